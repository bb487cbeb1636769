// A test helper: a table `ui` as RoomView.tableUi gives it to a renderer (renderers.js's
// contract), which records what the renderer did: fakeUi(legal, selected) -> {ui, done};
// done.selected / done.acted / done.handled list the calls of ui.select / ui.act /
// ui.handled (ui.button marks its action handled, as the page's does).
import { html } from "../../../server/static/js/ui.js";

/** A table ui over the legal actions `legal`, `selected` the card selected (or null). */
export function fakeUi(legal, selected = null, seat = 0) {
  const done = { selected: [], acted: [], handled: [] };
  const ui = {
    seat, legal, selected, marks: [],
    seatName: (s) => (s === seat ? "You" : `Seat${s}`),
    select: (c) => done.selected.push(c),
    act: (a) => done.acted.push(a),
    handled: (a) => done.handled.push(a),
    button: (a, label, extra = {}) => {
      done.handled.push(a);
      return html`<button type="button" class=${`action ${extra.class || ""}`.trim()}
        data-action=${JSON.stringify(a)} aria-label=${extra.label}
        onClick=${() => done.acted.push(a)}>${label}</button>`;
    },
  };
  return { ui, done };
}

/** An action list as a sorted set of JSON texts (an action is a list; repeats count once). */
export const keys = (actions) => [...new Set(actions.map((a) => JSON.stringify(a)))].sort();
