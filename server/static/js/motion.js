// @ts-check
// Cards move: on an update Preact redraws the table in place (room.js); a card that changed
// place may be the same element (keyed) or a new one (another part of the table). Before a
// redraw (App.render), measure() notes where each card was (by its code); after it,
// animate() starts each card that moved at its old place and lets a short CSS
// transition (table.css, `.card.moving`) carry it to the new one. A place is taken within
// the table, not on the screen: when the whole table moves (the game-over box, a question
// or an error line appears above it) its cards move with it, and none flies (issue #44).
// Nothing moves under prefers-reduced-motion (and table.css turns the transitions off there
// too).
const reduced = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** The place of card element `el` within its table: {left, top} in px from the table's
 * top left corner. */
function placeOf(el) {
  const box = el.getBoundingClientRect();
  const table = el.closest(".table");
  const origin = table ? table.getBoundingClientRect() : { left: 0, top: 0 };
  return { left: box.left - origin.left, top: box.top - origin.top };
}

/** Where each card of `root` is now: card code -> its place in its table (the first
 * element of a code). */
export function measure(root) {
  const where = new Map();
  if (reduced()) return where;
  for (const el of root.querySelectorAll(".table [data-card]")) {
    if (!where.has(el.dataset.card)) where.set(el.dataset.card, placeOf(el));
  }
  return where;
}

/** Move the cards of `root` that `before` saw elsewhere from there to their new place. */
export function animate(root, before) {
  if (!before.size || reduced()) return;
  const moved = [];
  const seen = new Set();
  for (const el of root.querySelectorAll(".table [data-card]")) {
    const code = el.dataset.card;
    if (seen.has(code)) continue;
    seen.add(code);
    const old = before.get(code);
    if (!old) continue;
    const now = placeOf(el);
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    el.style.transform = `translate(${dx}px, ${dy}px)`;
    moved.push(el);
  }
  if (!moved.length) return;
  root.getBoundingClientRect(); // the old places are laid out before the transition starts
  for (const el of moved) {
    el.classList.add("moving");
    el.style.transform = "";
    el.addEventListener("transitionend", () => el.classList.remove("moving"), { once: true });
  }
}
