// Unit tests of the replay viewer's screen (server/static/js/replay_view.js) under
// `node --test`: the state shown, the step controls' targets, the deal check's result, and
// the page for a game the server no longer keeps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { html } from "../../../server/static/js/ui.js";
import { ReplayScreen, GoneScreen } from "../../../server/static/js/replay_view.js";
import { expand, findAll, textOf } from "./vnodes.mjs";

const byId = (tree, id) => findAll(tree, (n) => n.props.id === id)[0];
const REC = { room: "r9", title: "Skipper multi \u2014 room r9", outcome: "You won, 31" };

function screen(extra = {}) {
  const steps = [];
  const props = { rec: REC, sid: 4, final: 9, stateId: 4, said: "You played 7\u2665.",
    error: "", table: null, loading: true, deal: "Deal verified: \u2026", dealOk: true,
    match: "The replay ends at the view you saw.", onStep: (s) => steps.push(s),
    onClose: () => steps.push("close"), ...extra };
  return [expand(html`<${ReplayScreen} ...${props} />`), steps];
}

test("the state shown, what happened, the deal verified, the outcome", () => {
  const [tree] = screen();
  const main = tree[0];
  assert.equal(main.props["data-room"], "r9");
  assert.equal(main.props["data-state-id"], 4);
  assert.equal(textOf(byId(tree, "replay-position")), "state 4 of 9");
  assert.equal(textOf(byId(tree, "replay-events")), "You played 7\u2665.");
  assert.equal(byId(tree, "deal-result").props["data-ok"], "true");
  assert.equal(textOf(byId(tree, "final-match")), "The replay ends at the view you saw.");
  assert.match(textOf(tree), /Loading/);
  assert.equal(byId(tree, "replay-error"), undefined);
});

test("the controls step to the deal, back, forward, the end, and where the slider is", () => {
  const [tree, steps] = screen();
  for (const id of ["replay-first", "replay-back", "replay-forward", "replay-last"])
    byId(tree, id).props.onClick();
  byId(tree, "replay-step").props.onChange({ currentTarget: { value: "7" } });
  byId(tree, "replay-close").props.onClick();
  assert.deepEqual(steps, [0, 3, 5, 9, 7, "close"]);
  assert.equal(byId(tree, "replay-step").props.max, 9);
});

test("a deal not yet checked has an empty data-ok; an error is shown", () => {
  const [tree] = screen({ dealOk: null, deal: "Checking the deal\u2026", error: "Could not replay: x" });
  assert.equal(byId(tree, "deal-result").props["data-ok"], "");
  assert.equal(textOf(byId(tree, "replay-error")), "Could not replay: x");
});

test("a game no longer kept: the page says so, with no controls and no deal", () => {
  const tree = expand(html`<${GoneScreen} rec=${REC} error="This game is no longer kept."
    onClose=${() => {}} />`);
  assert.equal(tree[0].props["data-gone"], "1");
  assert.equal(textOf(byId(tree, "replay-error")), "This game is no longer kept.");
  assert.equal(byId(tree, "replay-step"), undefined);
  assert.equal(byId(tree, "deal-result"), undefined);
  assert.equal(byId(tree, "replay-position"), undefined);
});
