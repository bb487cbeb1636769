// @ts-check
// The lobby's "Leaderboards" panel: pick a game, see the best solo scores (`get_leaderboard`).
// The Leaderboards hold the game chosen and its board; LeaderboardPanel (Preact, ui.js)
// draws them.
import { html } from "./ui.js";

const LIMIT = 10;

export class Leaderboards {
  constructor(app) {
    this.app = app;
    this.game = ""; // the chosen game ("" until the games are known: Skipper first)
    this.board = null; // the last `leaderboard` reply for this.game
    this.message = ""; // why there is no board to show (an error's message)
  }

  /** Fetch the board of the chosen game, then render. */
  async load() {
    const games = this.app.games || [];
    if (!this.game) this.game = (games.find((g) => g.game === "skipper") || games[0] || {}).game;
    if (!this.game || !this.app.session) return;
    const game = this.game;
    try {
      const reply = await this.app.session.request({ t: "get_leaderboard", game, limit: LIMIT });
      if (game !== this.game) return; // another game was chosen meanwhile
      this.board = reply;
      this.message = "";
    } catch (/** @type {any} */ err) {
      if (game !== this.game) return;
      this.board = null;
      this.message =
        err.code === "lobby/no_leaderboard" ? "This game keeps no leaderboard." : err.message;
    }
    this.app.render();
  }

  /** The panel (a Preact element, ui.js): the game chosen, its board. */
  render() {
    return html`<${LeaderboardPanel} games=${this.app.games || []} game=${this.game}
      board=${this.board} message=${this.message} onGame=${(g) => this.choose(g)}
      onRefresh=${() => this.load()} />`;
  }

  /** Another game chosen: its board is fetched. */
  choose(game) {
    this.game = game;
    this.board = null;
    this.message = "";
    this.load();
  }
}

/**
 * @typedef {{ rank: number, name: string, score: number }} BoardEntry
 * @typedef {{ game: string, mode: string, order: string, total: number,
 *             entries: BoardEntry[], you?: BoardEntry | null, how?: string }} Board
 *   a `leaderboard` reply (protocol/README.md)
 */

/**
 * A board: its caption, its table (or "Nobody yet."), the player's own place, and what
 * puts a player on it (the server's words: `how`).
 * @param {{ board: Board }} p
 */
export function BoardTable({ board }) {
  const unit = board.game === "skipper" ? "turns" : "points";
  const players = `${board.total} ${board.total === 1 ? "player" : "players"}`;
  return html`<p class="doc" id="board-caption">${board.mode}: ${
    board.order === "asc" ? "fewest" : "most"} ${unit} first (${players})</p>
    <table class="rooms board" id="board-table" aria-labelledby="board-title">
      <thead><tr>${["#", "Player", unit].map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
      <tbody>${board.entries.length
        ? board.entries.map((e) => html`<tr data-name=${e.name}><td>${String(e.rank)}</td>
            <td>${e.name}</td><td>${String(e.score)}</td></tr>`)
        : html`<tr><td colspan="3" class="none" id="board-empty">Nobody yet.</td></tr>`}
      </tbody>
    </table>
    ${board.you ? html`<p id="board-you">You: #${board.you.rank} with ${board.you.score}</p>`
      : null}
    <p class="doc" id="board-how">${board.how
      || "Finish a solo game with the standard rules to be on the board."}</p>`;
}

/**
 * The Leaderboards panel: a game to choose, Refresh, its board (or why there is none).
 * @param {{ games: { game: string, title: string }[], game: string, board: Board | null,
 *   message: string, onGame: (game: string) => void, onRefresh: () => void }} p
 */
export function LeaderboardPanel(p) {
  return html`<section class="panel" id="leaderboards" aria-labelledby="board-title">
    <h2 id="board-title">Leaderboards</h2>
    <div class="filters">
      <label for="board-game">Game</label>
      <select id="board-game" name="game" value=${p.game}
          onChange=${(/** @type {any} */ e) => p.onGame(e.currentTarget.value)}>
        ${p.games.map((g) => html`<option value=${g.game}>${g.title}</option>`)}
      </select>
      <button type="button" id="board-refresh" onClick=${p.onRefresh}>Refresh</button>
    </div>
    ${p.board ? html`<${BoardTable} board=${p.board} />`
      : html`<p class="doc" id="board-caption">${p.message || "Loading\u2026"}</p>`}
  </section>`;
}
