// @ts-check
// The games' renderers: one module per game, games/GAME.js, named by the game's registry name
// (cardhall.games: the server's list_games reply). No table of games here: App.connect loads
// the renderer of every game the server hosts (loadRenderers), and a room, a replay or a log
// line asks for its game's (rendererFor); a game without one is drawn by games/generic.js.
import * as generic from "./games/generic.js";

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
