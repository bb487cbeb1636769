// @ts-check
// The replay viewer's screen as Preact components (ui.js): the title line, the step
// controls (to the deal, back, the slider, forward, to the end), what happened at the state
// shown, the table as it was (drawn by the game's renderer: renderers.js embed), and the deal check.
// The ReplayView (replay.js) holds the state and asks the server; these only draw it.
import { html } from "./ui.js";
import { embed } from "./renderers.js";

/**
 * @typedef {{ room: string, title: string, outcome?: string }} ReplayRecord
 * @typedef {{ rec: ReplayRecord, sid: number, final: number, stateId: number | null,
 *   said: string, error: string, table: any, loading: boolean, deal: string,
 *   dealOk: boolean | null | undefined, match: string, onStep: (sid: number) => void,
 *   onClose: () => void }} ReplayProps
 */

/**
 * The title line: which game, the state shown, Close replay.
 * @param {{ rec: ReplayRecord, position: string | null, onClose: () => void }} p
 */
function TitleLine({ rec, position, onClose }) {
  return html`<div class="turn-line">
    <strong>Replay of ${rec.title}</strong>
    ${position === null ? null
      : html`<span id="replay-position" aria-live="polite">${position}</span>`}
    <button type="button" id="replay-close" class="secondary" onClick=${onClose}>
      Close replay</button>
  </div>`;
}

/**
 * The step controls; a step outside 0..final is the viewer's to clamp.
 * @param {{ sid: number, final: number, value: number, onStep: (sid: number) => void }} p
 */
export function StepControls({ sid, final, value, onStep }) {
  /** @param {string} id @param {string} label @param {string} text @param {number} to */
  const go = (id, label, text, to) => html`<button type="button" id=${id} aria-label=${label}
    data-key=${id} onClick=${() => onStep(to)}>${text}</button>`;
  return html`<div class="replay-controls" role="group" aria-label="replay controls">
    ${go("replay-first", "to the deal", "\u00AB", 0)}
    ${go("replay-back", "one step back", "\u25C0", sid - 1)}
    <input type="range" id="replay-step" min="0" max=${final} value=${value}
      aria-label="state of the game" data-key="replay-step"
      onChange=${(/** @type {any} */ e) => onStep(Number(e.currentTarget.value))} />
    ${go("replay-forward", "one step forward", "\u25B6", sid + 1)}
    ${go("replay-last", "to the end", "\u00BB", final)}
  </div>`;
}

/**
 * The deal check: the result (data-ok: "true", "false" or "" while unknown), whether the
 * replay ends at the view the player saw, the outcome.
 * @param {{ deal: string, dealOk: boolean | null | undefined, match: string,
 *           outcome?: string }} p
 */
export function DealCheck({ deal, dealOk, match, outcome }) {
  return html`<section class="panel deal-check" id="deal-check" aria-labelledby="deal-title">
    <h2 id="deal-title">Fair deal</h2>
    <p id="deal-result" data-ok=${String(dealOk ?? "")}>${deal}</p>
    ${match ? html`<p id="final-match">${match}</p>` : null}
    ${outcome ? html`<p class="outcome">${outcome}</p>` : null}
  </section>`;
}

/**
 * The replay viewer.
 * @param {ReplayProps} p
 */
export function ReplayScreen(p) {
  return html`<main id="replay" class="replay" data-room=${p.rec.room}
      data-state-id=${p.stateId ?? ""} data-final=${p.final}>
    <${TitleLine} rec=${p.rec} position=${`state ${p.sid} of ${p.final}`}
      onClose=${p.onClose} />
    <${StepControls} sid=${p.sid} final=${p.final} value=${p.stateId ?? p.final}
      onStep=${p.onStep} />
    ${p.error ? html`<p class="error" role="alert" id="replay-error">${p.error}</p>` : null}
    <p class="replay-events" id="replay-events">${p.said}</p>
    <section class="table" aria-label="table at this state">
      ${p.table ? embed(p.table) : p.loading ? html`<p>Loading\u2026</p>`
        : null}
    </section>
    <${DealCheck} deal=${p.deal} dealOk=${p.dealOk} match=${p.match}
      outcome=${p.rec.outcome} />
  </main>`;
}

/**
 * The viewer of a game the server no longer keeps: says so, and nothing else.
 * @param {{ rec: ReplayRecord, error: string, onClose: () => void }} p
 */
export function GoneScreen({ rec, error, onClose }) {
  return html`<main id="replay" class="replay gone" data-room=${rec.room} data-gone="1">
    <${TitleLine} rec=${rec} position=${null} onClose=${onClose} />
    <p class="error" role="alert" id="replay-error">${error}</p>
    ${rec.outcome ? html`<p class="outcome">${rec.outcome}</p>` : null}
  </main>`;
}
