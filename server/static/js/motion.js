// Cards move: the app redraws the table on every update, so a card that changed place is a
// new element. Before a redraw, measure() notes where each card was (by its code); after
// it, animate() starts each card that moved at its old place and lets a short CSS
// transition (table.css, `.card.moving`) carry it to the new one. Nothing moves under
// prefers-reduced-motion (and table.css turns the transitions off there too).
const reduced = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Where each card of `root` is now: card code -> its box (the first element of a code). */
export function measure(root) {
  const where = new Map();
  if (reduced()) return where;
  for (const el of root.querySelectorAll(".table [data-card]")) {
    if (!where.has(el.dataset.card)) where.set(el.dataset.card, el.getBoundingClientRect());
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
    const now = el.getBoundingClientRect();
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
