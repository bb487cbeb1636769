// The lobby's "Leaderboards" panel: pick a game, see the best solo scores (`get_leaderboard`).
import { h } from "./cards.js";

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
    } catch (err) {
      if (game !== this.game) return;
      this.board = null;
      this.message =
        err.code === "lobby/no_leaderboard" ? "This game keeps no leaderboard." : err.message;
    }
    this.app.render();
  }

  render() {
    const games = this.app.games || [];
    const select = h(
      "select",
      { id: "board-game", name: "game" },
      games.map((g) => h("option", { value: g.game, text: g.title })),
    );
    select.value = this.game;
    select.addEventListener("change", () => {
      this.game = select.value;
      this.board = null;
      this.message = "";
      this.load();
    });
    const board = this.board;
    let body;
    if (board) {
      const unit = board.game === "skipper" ? "turns" : "points";
      body = [
        h(
          "p",
          { class: "doc", id: "board-caption" },
          `${board.mode}: ${board.order === "asc" ? "fewest" : "most"} ${unit} first` +
            ` (${board.total} ${board.total === 1 ? "player" : "players"})`,
        ),
        h(
          "table",
          { class: "rooms board", id: "board-table", "aria-labelledby": "board-title" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["#", "Player", unit].map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            {},
            board.entries.length
              ? board.entries.map((e) =>
                  h(
                    "tr",
                    { dataset: { name: e.name } },
                    h("td", {}, String(e.rank)),
                    h("td", {}, e.name),
                    h("td", {}, String(e.score)),
                  ),
                )
              : h(
                  "tr",
                  {},
                  h("td", { colspan: 3, class: "none", id: "board-empty" }, "Nobody yet."),
                ),
          ),
        ),
        board.you
          ? h("p", { id: "board-you" }, `You: #${board.you.rank} with ${board.you.score}`)
          : null,
        // What puts a player on this board (the server's words: leaderboard.how).
        h(
          "p",
          { class: "doc", id: "board-how" },
          board.how || "Finish a solo game with the standard rules to be on the board.",
        ),
      ];
    } else {
      body = h("p", { class: "doc", id: "board-caption" }, this.message || "Loading…");
    }
    return h(
      "section",
      { class: "panel", id: "leaderboards", "aria-labelledby": "board-title" },
      h("h2", { id: "board-title" }, "Leaderboards"),
      h(
        "div",
        { class: "filters" },
        h("label", { for: "board-game" }, "Game"),
        select,
        h("button", { type: "button", id: "board-refresh", onclick: () => this.load() }, "Refresh"),
      ),
      body,
    );
  }
}
