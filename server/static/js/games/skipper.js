// @ts-check
// Skipper (docs/rules/skipper.md): every seat's four suit stacks, discard top and piles;
// the own hand as buttons. Select a hand card, then click a highlighted stack to play it,
// or Discard / Auction it; when you are the bidder, click a hand card to bid it.
import { cardName, suitName, suitSymbol, Card } from "../cards.js";
import { html } from "../ui.js";
import { describeAction as genericAction, describeOutcome as genericOutcome } from "./generic.js";

const STATUS = { active: "", won: "won", out: "out of the game" };
/** A turn's phase in words (shown for the seat to act). */
const PHASE = {
  start: "starting the turn",
  played: "has played",
  discarded: "has discarded",
  auctioned: "auctioned a card",
};

/** The `act` that sets this seat's auto-trash preference (RULINGS K6m): kept in this one
 * function, so that the wire form of the setting can change in one place. */
export function autoTrashAction(on) {
  return ["auto_trash", on ? "on" : "off"];
}

/** The seat's line under its name: "turns 3 · has played", "turns 0 · out of the game". */
function seatFacts(seat, acting) {
  const parts = [`turns ${seat.turns}`];
  if (seat.status !== "active") parts.push(STATUS[seat.status] ?? seat.status);
  else if (acting) parts.push(PHASE[seat.phase] ?? String(seat.phase).replace(/_/g, " "));
  return parts.join(" \u00b7 ");
}

export function describeAction(action) {
  const [verb, card, stack] = action;
  if (verb === "play") return `play ${card} on the ${suitSymbol(stack)} stack`;
  if (verb === "end") return "end turn";
  if (verb === "discard") return `discard ${card}`;
  if (verb === "auction") return `auction ${card}`;
  if (verb === "bid") return `bid ${card}`;
  if (verb === "pass") return "pass (no bid)";
  return genericAction(action);
}

/** A seat's name after a verb: "You" is "you" there. */
const object = (name) => (name === "You" ? "you" : name);

export function describeEvent(ev, who) {
  const w = ev.seat === undefined ? "" : who(ev.seat);
  switch (ev.type) {
    case "play":
      return (
        `${w} played ${cardName(ev.card)} on the ${suitName(ev.stack)} stack ` +
        `(now ${(ev.values || []).join(" or ")}).`
      );
    case "complete":
      return `${w} completed the ${suitName(ev.stack)} stack.`;
    case "discard":
      return `${w} discarded ${cardName(ev.card)}.`;
    case "draw":
      return ev.skip_draw
        ? `${w} drew a card (skip draw).`
        : `${w} drew ${ev.count} card${ev.count === 1 ? "" : "s"}.`;
    case "auction":
      return `${w} put ${cardName(ev.card)} up for auction.`;
    case "bid":
      return `${w} bid ${cardName(ev.card)}.`;
    case "pass":
      return `${w} passed.`;
    case "sold":
      return (
        `${w} sold ${cardName(ev.card)} to ${object(who(ev.buyer))} ` +
        `for ${cardName(ev.price)}.`
      );
    case "unsold":
      return `Nobody bought ${cardName(ev.card)}; it went back to ${object(w)}.`;
    case "end":
      return `${w} ended turn ${ev.turns}.`;
    case "flip":
      return `${w} turned the discard pile over into the stock.`;
    case "trash":
      return `${w} trashed a card.`;
    case "auto_trash":
      return `${w} turned auto-trash ${ev.on ? "on" : "off"}.`;
    case "resigned":
      return `${w} resigned.`;
    case "forfeit":
      return `${w} forfeited.`;
    case "turn_limit":
      return `${w} reached the turn limit.`;
    case "game_over":
      return ""; // the game_over message tells it, with the scores
    default:
      return null;
  }
}

/** Why a Skipper game ended, in words, by the engine's `reason` (docs/rules/skipper.md). */
const REASON = {
  won: "all four stacks are complete",
  completed: "completed all four stacks first",
  last_standing: "every other player is out of the game",
  turn_limit: "the turn limit was reached",
  all_out: "every player is out of the game",
  resigned: "resigned",
  unwinnable: "no seat can finish any more",
};

export function describeOutcome(outcome, who, view) {
  if (!outcome) return "";
  const raw = String(outcome.reason || "");
  const reason = REASON[raw] || raw.replace(/_/g, " ");
  const scores = outcome.scores || [];
  if (view && view.mode === "solo") {
    const verdict = outcome.winner === 0 ? "You won" : "You lost";
    return `${verdict} (${reason}) after ${scores[0] ?? "?"} turns.`;
  }
  const won = outcome.winner !== null && outcome.winner !== undefined;
  const why = won && raw === "resigned" ? "every other player resigned" : reason;
  const head = !won
    ? `Nobody won: ${reason}`
    : raw === "completed" || raw === "last_standing" || raw === "resigned"
      ? `${who(outcome.winner)} won: ${why}`
      : `${who(outcome.winner)} won (${reason})`;
  const stacks = scores.map((n, i) => `${who(i)} ${n}`).join(", ");
  return `${head}. Complete stacks: ${stacks}.`;
}

/**
 * One suit stack of a seat: its top card (a highlighted button that plays the selected card
 * there, when that is legal), its values and a tick when complete.
 * @param {{ stack: any, seat: number, ui: any, mine: boolean }} props
 */
function Stack({ stack, seat, ui, mine }) {
  const cards = stack.cards || [];
  const top = cards.length ? cards[cards.length - 1] : null;
  const values = (stack.values || []).join(",");
  const play = mine && ui.selected
    ? ui.legal.find((a) => a[0] === "play" && a[1] === ui.selected && a[2] === stack.suit)
    : null;
  const where = `${suitName(stack.suit)} stack of ${ui.seatName(seat)}` +
    (values ? `, value ${values.replace(",", " or ")}` : "") +
    (stack.complete ? ", complete" : "");
  const data = { "data-stack": stack.suit, "data-seat": seat };
  let el;
  if (play) {
    ui.handled(play);
    const label = `play ${cardName(ui.selected)} here`;
    el = top
      ? html`<${Card} code=${top} where=${where} label=${label} highlight=${true}
          onClick=${() => ui.act(play)} dataKey=${`s:${seat}:${stack.suit}`} extra=${data} />`
      : html`<button type="button" class="card empty clickable highlight"
          aria-label=${`${where}, empty, ${label}`} onClick=${() => ui.act(play)}
          data-key=${`s:${seat}:${stack.suit}`} ...${data}>${suitSymbol(stack.suit)}</button>`;
  } else {
    el = top
      ? html`<${Card} code=${top} where=${where} extra=${data} />`
      : html`<span class="card empty" role="img" aria-label=${`${where}, empty`}
          ...${data}>${suitSymbol(stack.suit)}</span>`;
  }
  return html`<div class=${`stack${stack.complete ? " complete" : ""}`}>
    ${el}
    <span class="values" aria-hidden="true">${`${suitSymbol(stack.suit)} ${values
      ? `= ${values}` : ""}${stack.complete ? " \u2713" : ""}`}</span>
  </div>`;
}

/** Another seat's hand as card backs (8 at most), the first labelled with the count. */
function handBacks(seat, name) {
  const backs = [];
  for (let k = 0; k < Math.min(seat.hand || 0, 8); k++)
    backs.push(html`<${Card} key=${k} faceDown=${true} small=${true}
      label=${k === 0 ? `${name} holds ${seat.hand} cards` : undefined} />`);
  return backs;
}

/** A seat's discard top: selectable when it plays on a stack of the own seat. */
function discardTop(seat, i, ui, mine) {
  const top = seat.discard_top;
  if (!top)
    return html`<span class="card empty" role="img"
      aria-label=${`discard pile of ${ui.seatName(i)}: empty`} />`;
  const plays = mine && ui.legal.some((a) => a[0] === "play" && a[1] === top);
  return plays
    ? html`<${Card} code=${top} where="your discard top" selected=${ui.selected === top}
        label="select to play it" onClick=${() => ui.select(top)} dataKey="discard-top" />`
    : html`<${Card} code=${top} where=${`discard top of ${ui.seatName(i)}`} />`;
}

/**
 * One seat of the table (section.seat, data-seat): its name and facts, its four stacks, its
 * discard, stock, counts and (another seat's) hand as backs.
 * @param {{ view: any, seat: any, i: number, ui: any }} props
 */
function Seat({ view, seat, i, ui }) {
  const mine = i === ui.seat;
  const playing = view.room ? view.room.status === "playing" : !view.over;
  const acting = playing && (view.to_act || []).includes(i) && !view.over;
  const name = ui.seatName(i);
  return html`<section class=${`seat${mine ? " mine" : ""}${acting ? " acting" : ""}`}
    data-seat=${i} aria-label=${`${name}${acting ? ", to act" : ""}`}>
    <h3><span class="seat-title">${name}</span>${acting
      ? html`<span class="to-act"> \u25c0 to act</span>` : null}<small>${
      ` ${seatFacts(seat, acting)}`}</small></h3>
    <div class="stacks">${(seat.stacks || []).map((st) => html`<${Stack} key=${st.suit}
      stack=${st} seat=${i} ui=${ui} mine=${mine} />`)}</div>
    <div class="piles">
      <span class="pile">${discardTop(seat, i, ui, mine)}<span class="count">${
        `discard ${seat.discard}`}</span></span>
      <span class="pile">${seat.stock ? html`<${Card} faceDown=${true}
          label=${`stock of ${name}: ${seat.stock} cards`} />`
        : html`<span class="card empty" role="img" aria-label="stock: empty" />`}<span
        class="count">${`stock ${seat.stock}`}</span></span>
      <span class="pile"><span class="count">${
        `hand ${seat.hand} \u00b7 trash ${seat.trash}`}</span></span>
      ${mine ? null : html`<span class="other-hand" aria-hidden="true">${
        handBacks(seat, name)}</span>`}
    </div>
  </section>`;
}

/**
 * The auction under way (section#auction): the card for sale, the bids, who bids, Pass.
 * @param {{ view: any, ui: any }} props
 */
function Auction({ view, ui }) {
  const a = view.auction;
  if (!a) return null;
  const bids = (a.bids || []).map(([s, c], k) => html`<li key=${k}>${`${ui.seatName(s)}: `}${c
    ? html`<${Card} code=${c} small=${true} where=${`bid of ${ui.seatName(s)}`} />`
    : "pass"}</li>`);
  const pass = ui.legal.find((x) => x[0] === "pass");
  const bidding = a.bidder !== null && a.bidder !== undefined;
  return html`<section class="auction" id="auction" aria-label="auction">
    <h3>${`Auction: ${ui.seatName(a.seller)} sells `}</h3>
    <${Card} code=${a.card} where="for sale" />
    <ul class="bids">${bids.length ? bids : html`<li>no bids yet</li>`}</ul>
    ${bidding ? html`<p>${a.bidder === ui.seat
      ? "Your bid: click a card of your hand to offer it, or pass."
      : `${ui.seatName(a.bidder)} to bid.`}</p>` : null}
    ${pass ? ui.button(pass, "Pass", { label: "pass: make no bid" }) : null}
  </section>`;
}

/** True when the seat must act but no card of it plays on a stack, and it has not discarded
 * yet: it must discard (or auction, in multi) a card of its hand (K5: no pass then, so no
 * "end" either). */
function noPlay(legal) {
  const has = (verb) => legal.some((a) => a[0] === verb);
  return !has("play") && !has("end") && has("discard");
}

/** What to do when no card can be played (the highlighted cards are the ones that can go). */
function stuckHint(legal) {
  const auction = legal.some((a) => a[0] === "auction");
  return html`<p class="hint" id="no-play-hint" role="status">${
    "No card can be played on a stack: discard at least one card of your hand (pick a " +
    "highlighted card, then \u201cDiscard it\u201d), then \u201cEnd turn\u201d (K5)" +
    (auction ? ", or put one card up for auction (K9)." : ".")}</p>`;
}

/** A card of the own hand: a bid (in an auction), selectable (it can go somewhere), or
 * shown only; highlighted when no card plays and it can be discarded (K5). */
function handCard(code, ui, stuck) {
  const legal = ui.legal;
  const bid = legal.find((a) => a[0] === "bid" && a[1] === code);
  if (bid) {
    ui.handled(bid);
    return html`<${Card} key=${code} code=${code} where="in your hand"
      label="bid with this card" highlight=${true} onClick=${() => ui.act(bid)}
      dataKey=${`h:${code}`} extra=${{ "data-bid": "1" }} />`;
  }
  const usable = legal.some((a) => a[1] === code && a[0] !== "bid");
  const selected = ui.selected === code;
  return html`<${Card} key=${code} code=${code} where="in your hand" selected=${selected}
    highlight=${stuck && usable && !selected}
    label=${usable ? (selected ? "selected; now choose a stack, discard or auction" : "select")
      : undefined}
    onClick=${usable ? () => ui.select(code) : undefined}
    dataKey=${usable ? `h:${code}` : undefined} />`;
}

/** The bar of the selected card: what it can do (Discard it, Auction it), Cancel. */
function selectionBar(ui) {
  if (!ui.selected) return null;
  const legal = ui.legal;
  const withSel = legal.filter((a) => a[1] === ui.selected && a[0] !== "play");
  const plays = legal.some((a) => a[1] === ui.selected && a[0] === "play");
  const name = cardName(ui.selected);
  const said = `${name}: ${plays ? "choose a highlighted stack" : ""}${
    plays && withSel.length ? ", or " : ""}${
    !plays && !withSel.length ? "nothing to do with it now" : ""}`;
  return html`<div class="selection" role="group" aria-label=${`actions with ${name}`}>
    <span>${said}</span>
    ${withSel.map((a) => ui.button(a,
      a[0] === "discard" ? "Discard it" : a[0] === "auction" ? "Auction it" : describeAction(a),
      { class: a[0], label: `${a[0]} ${name}` }))}
    <button type="button" class="secondary" onClick=${() => ui.select(null)}>Cancel</button>
  </div>`;
}

/** The auto-trash switch of the own seat (RULINGS K6m), while it plays. */
function autoTrashSwitch(view, ui) {
  const me = ui.seat === null ? null : (view.seats || [])[ui.seat];
  const playing = !view.room || view.room.status === "playing";
  // Auto-trash (RULINGS K6m): a preference of the seat, settable at any time in the game.
  if (!(me && typeof me.auto_trash === "boolean" && me.status === "active" && playing))
    return null;
  return html`<label class="toggle" for="auto-trash"><input type="checkbox" id="auto-trash"
    data-key="auto-trash" checked=${me.auto_trash}
    onChange=${(event) => ui.act(autoTrashAction(event.target.checked))} /> Trash dead cards
    I draw (auto-trash)</label>`;
}

/** The own hand (section#hand): its cards, what to do when none plays, the selected card's
 * bar, End turn and Resign, auto-trash; a spectator's note instead. */
function Hand({ view, ui }) {
  if (view.hand === null || view.hand === undefined)
    return html`<p class="note">Spectating: hands are hidden.</p>`;
  const legal = ui.legal;
  const stuck = noPlay(legal);
  const cards = view.hand.map((code) => handCard(code, ui, stuck));
  const bar = selectionBar(ui);
  // Plays, discards and auctions are reached by selecting a card first: no buttons of their own.
  legal.filter((a) => ["play", "discard", "auction"].includes(a[0])).forEach((a) => ui.handled(a));
  const end = legal.find((a) => a[0] === "end");
  const resign = legal.find((a) => a[0] === "resign");
  return html`<section class="hand" id="hand" aria-label="your hand">
    <h3>Your hand</h3>
    <div class="cards">${cards.length ? cards : html`<span class="note">empty</span>`}</div>
    ${stuck ? stuckHint(legal) : null}
    ${bar}
    <div class="turn-buttons">
      ${end ? ui.button(end, "End turn", { class: "end" }) : null}
      ${resign ? ui.button(resign, "Resign", { class: "secondary resign" }) : null}
    </div>
    ${autoTrashSwitch(view, ui)}
  </section>`;
}

/** The Skipper table (a Preact element, renderers.js): the auction, the own hand, the seats
 * (the own first). */
export function render(view, ui) {
  const seats = (view.seats || []).map((s, i) => html`<${Seat} key=${i} view=${view} seat=${s}
    i=${i} ui=${ui} />`);
  // Own seat first, then the others.
  if (ui.seat !== null && seats[ui.seat]) seats.unshift(seats.splice(ui.seat, 1)[0]);
  return html`<div class="skipper">
    <${Auction} view=${view} ui=${ui} />
    <${Hand} view=${view} ui=${ui} />
    <div class="seats-grid">${seats}</div>
  </div>`;
}

export { genericOutcome };
