// @ts-check
// THE RENDERERS' CONTRACT (issue #44: the table screen on Preact)
// A renderer is a module games/NAME.js (NAME: the game's registry name). It exports
//   render(view, ui) -> a Preact element (htm's html`…`, ui.js); RoomView and the replay
//       viewer put it in their screens (embed() below). (While the renderers were moved, a
//       DOM Node was taken too; all six return Preact elements now and that path is gone.)
//   describeEvent(ev, who)?, describeAction(action)?, describeOutcome(outcome, who, view)?:
//       words (strings); generic.js's stand in for any left out.
// `ui` (RoomView.tableUi; the replay's has nothing to click):
//   seat (number | null), view, legal (the legal actions), selected (a card code | null),
//   select(code), marks (values picked), toggle(value), act(action), seatName(seat),
//   handled(action): say that the table draws `action` (it gets no plain button below),
//   button(action, label, extra?) -> a Preact <button class="action"> that acts (and is
//       marked handled); extra: {class?, label? (aria-label)}.
// Drawing helpers to build tables with:
//   cards.js:  <${Card} code onClick? label? selected? highlight? faceDown? small? where?
//       dataKey? extra? />, <${Pile} count label onClick? />
//   games/generic.js: <${SelectableCard} code ui where small? />, <${SelectionBar} ui
//       describe? />, <${CardRow} label codes ui where? small? id? /> (components: put them
//       in html`<${X} …/>`).
// ui.handled / ui.button may be called while Preact draws the table (in its components): the
// page draws the other actions after the table, in tree order, and asks for them then.
// A renderer keeps no state of its own: what it draws comes from `view` and `ui`; Preact's
// keyed diff keeps focus and card elements across updates (give list items a `key`).
//
// The games' renderers: one module per game, games/GAME.js, named by the game's registry name
// (cardhall.games: the server's list_games reply). No table of games here: App.connect loads
// the renderer of every game the server hosts (loadRenderers), and a room, a replay or a log
// line asks for its game's (rendererFor); a game without one is drawn by games/generic.js.
import * as generic from "./games/generic.js";
import { isValidElement } from "./ui.js";

/** A registry name (the protocol's game names): nothing else becomes a module path. */
const GAME_NAME = /^[a-z0-9_]{1,32}$/;
const loaded = new Map(); // game name -> its renderer module

/** Load the renderer module of each game in `names` not loaded yet (games/NAME.js); one that
 * cannot be loaded is reported on the console and drawn by the generic renderer. */
export async function loadRenderers(names) {
  const wanted = names.filter((name) => GAME_NAME.test(name) && !loaded.has(name));
  await Promise.all(
    wanted.map(async (name) => {
      try {
        loaded.set(name, await import(`./games/${name}.js`));
      } catch (/** @type {any} */ err) {
        console.warn(`no renderer for the game ${name}: ${err.message}`);
        loaded.set(name, generic);
      }
    }),
  );
}

/** The renderer module of `game` (loaded by loadRenderers), else the generic one. */
export function rendererFor(game) {
  return loaded.get(game) || generic;
}

/**
 * What a renderer returned, ready to go in a Preact tree: a Preact element as it is,
 * anything else (null) as nothing.
 * @param {any} drawn  render(view, ui)'s result
 */
export function embed(drawn) {
  return isValidElement(drawn) ? drawn : null;
}
