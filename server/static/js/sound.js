// @ts-check
// Optional sounds, off by default (a toggle kept in localStorage): a chime when your turn
// begins, a tick for each bid of an auction, a short tune at game over. Generated with the
// Web Audio API (oscillators), so the client ships no sound files. The toggle is a Preact
// component (SoundToggle).
import { html } from "./ui.js";

const SOUND_KEY = "cardhall.sound";
const TUNES = {
  turn: [[660, 0.09], [880, 0.12]],
  bid: [[520, 0.06]],
  over: [[523, 0.12], [659, 0.12], [784, 0.2]],
};

let context = null;
const lastMine = new Map(); // room id -> was it the page's turn at the last update

/** Whether sounds are on (off unless the player turned them on). */
export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

/** Play one of TUNES (nothing while sounds are off). */
export function play(name) {
  if (!soundOn() || !TUNES[name]) return;
  const Ctx = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
  if (!Ctx) return;
  context = context || new Ctx();
  let at = context.currentTime;
  for (const [freq, seconds] of TUNES[name]) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.08, at);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
    osc.connect(gain).connect(context.destination);
    osc.start(at);
    osc.stop(at + seconds);
    at += seconds;
  }
}

/** After a room message has been applied: sound what it means for the page's seat. */
export function afterMessage(room, msg) {
  if (msg.t === "game_over") {
    play("over");
    return;
  }
  if (msg.t !== "update") return;
  const v = room.view;
  const mine = room.seat !== null && !v.over && (v.to_act || []).includes(room.seat);
  if (mine && !lastMine.get(room.roomId)) play("turn");
  lastMine.set(room.roomId, mine);
  if ((msg.events || []).some((e) => e && e.type === "bid")) play("bid");
}

/** Turn sounds on (`on` true) or off, kept in localStorage; turning them on plays the turn
 * chime (a taste, and browsers start audio on a click). */
export function setSound(on) {
  try {
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  } catch {
    /* storage off */
  }
  if (on) play("turn");
}

/**
 * The sound toggle: a switch button showing `on`, calling onToggle() when pressed.
 * @param {{ on: boolean, onToggle: () => void }} p
 */
export function SoundToggle({ on, onToggle }) {
  return html`<button type="button" id="sound-toggle" class="secondary sound" role="switch"
      aria-label="Sounds" aria-checked=${on ? "true" : "false"} data-key="sound-toggle"
      onClick=${onToggle}>
    <span class="sound-icon" aria-hidden="true">\u266A</span>
    <span class="sound-word">${on ? " Sounds on" : " Sounds off"}</span>
  </button>`;
}

/**
 * The header's sound toggle (a Preact element; off by default): pressing it flips the kept
 * setting and draws the page again (`app.render()`).
 * @param {{ render: () => void }} app
 */
export function soundToggle(app) {
  const on = soundOn();
  return html`<${SoundToggle} on=${on} onToggle=${() => {
    setSound(!on);
    app.render();
  }} />`;
}
