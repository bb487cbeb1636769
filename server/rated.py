"""Rated play on a server (issue #45 items 1, 2 and 4): which rooms are rated, the rating of
each finished rated game, and the rating lists over HTTP.

* A room is rated when created with the room option ``rated`` (:func:`check_room`): public,
  of a rated game type (:data:`~.ratings.RATED`), with the deal drawn by the server (a room
  of several seats refuses ``seed`` and ``deck`` anyway), one seat per account, and an
  abandoned seat forfeits (``on_abandon`` is ``forfeit``: abandoning a rated game is its
  loss; no server bot plays on for a player who left). No game of Cardhall has take-backs,
  so there is none to refuse. A guest account may play rated games.
* When its game is over, the lobby tells the :class:`Rater` (:meth:`Rater.finished`), which
  rates it in the background through the :class:`~.ratings.Ratings` store, once per game id
  (a takeover that finishes or reports the game again does not rate it twice).
* ``GET /ratings?game=G&mode=M[&limit=N]`` answers the list of a rated game type as JSON
  (:meth:`Rater.http`): ``{"game", "mode", "board", "entries": [Entry.record...]}`` (the
  highest rating first), what ``cardhall ratings`` prints. With the operator setting
  ``rated_boards = "registered"`` guests are left out of it (the default ``"all"`` lists
  every account and bot).
* ``GET /ratings?game=G&mode=M&key=K[&key=K2...]`` (at most :data:`MAX_KEYS` keys, as a rated
  room's facts give them: ``room.players[i].key``, :func:`~.ratings.seat_key`) answers the
  same shape with the entries of those keys (:meth:`Rater.seated`): each rated key's, in the
  order asked, whatever its rank (a player beyond the list's :data:`LIST_LIMIT`) and whatever
  ``rated_boards`` says (a guest left off a registered-only list): what a rated table shows of
  its seats. The board setting decides who is *listed*, not whose rating may be read: a key is
  learnt from a rated room's facts, which show its seat's name at the table already, and
  ``/ratings/history`` answers an account's ratings by its id anyway. Nothing but the list's
  own entry fields is answered (no history, no account detail), and a key never rated is left
  out (a new player's rating). A query of no key, more than :data:`MAX_KEYS`, an empty key
  or one longer than :data:`MAX_KEY_LENGTH` is refused (HTTP 400, :class:`QueryError`).
* ``GET /ratings/history?game=G&mode=M&account=A[&limit=N]``: the rated games of account
  ``A`` (a public fact, as the list), newest first: ``{"entries": [{"at", "game", "room",
  "before": Rating.record, "after": Rating.record}...]}`` (My games' "before -> after").
"""

from __future__ import annotations

import http
import json
import logging
import time
from functools import partial
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from ..games import OptionError
from ..games.bots import strategy
from .accounts.account_store import AccountStore
from .ratings import (
    MemoryRatings,
    Rating,
    RatedGame,
    RatedSeat,
    Ratings,
    board_id,
    finish_ranks,
    game_id,
    is_rated,
    seat_key,
)
from .store.ports import Store, StoreError
from .phases import RoomError
from .tasks import Background
from .web import Responder

__all__ = ["LIST_LIMIT", "MAX_KEYS", "MAX_KEY_LENGTH", "RATED_BOARDS", "SERVER_BOT",
           "QueryError", "Rater", "check_room", "query_keys", "rated_game", "ratings_for"]

log = logging.getLogger("cardhall.rated")

#: Most entries of one ``/ratings`` answer.
LIST_LIMIT = 1000
#: Most keys of one ``/ratings?key=K...`` query (a table has 4 seats at most).
MAX_KEYS = 16
#: Longest key a ``/ratings?key=K`` query may name (an account id has 16 hex digits, a bot's
#: key ``bot:STRATEGY``).
MAX_KEY_LENGTH = 64
#: The server bots' strategy (``room.state.BOT_STRATEGY``): their rating key is ``bot:greedy``.
SERVER_BOT = "greedy"
#: Values of the operator setting ``rated_boards``: who the rating lists show.
RATED_BOARDS = ("all", "registered")


class QueryError(ValueError):
    """A bad ``/ratings`` query (HTTP 400): ``message`` names the parameter and the fault."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def query_keys(keys: list[str]) -> list[str]:
    """The keys of a ``/ratings?key=K...`` query, checked: each once, in the order given.

    Raises:
        QueryError: no key, more than :data:`MAX_KEYS` (counted once each), an empty key or
            one longer than :data:`MAX_KEY_LENGTH`.
    """
    unique = list(dict.fromkeys(keys))
    if not unique:
        raise QueryError("key: at least one")
    if len(unique) > MAX_KEYS:
        raise QueryError(f"key: at most {MAX_KEYS}")
    if any(not k or len(k) > MAX_KEY_LENGTH for k in unique):
        raise QueryError(f"key: 1 to {MAX_KEY_LENGTH} characters")
    return unique


def ratings_for(store: Store) -> Ratings:
    """The ratings store that shares ``store``'s backend: on its Redis (its ``redis``
    attribute), in its SQLite data file (its ``file``: schema v5 and v6), else in this process."""
    client = getattr(store, "redis", None)
    if client is not None:
        from .store.rating_redis import RedisRatings

        return RedisRatings(client, store.health)
    data = getattr(store, "file", None)
    if data is not None:
        from .store.rating_sqlite import SQLiteRatings

        return SQLiteRatings(data.write, partial(data.reading, fold=False))
    return MemoryRatings()


def check_room(game: str, mode: str | None, settings: dict[str, Any], private: bool) -> None:
    """Check a room's server bot strategy (room option ``bot_strategy``: one of the game's
    strategies), and a rated room's creation, setting its forced settings (see the module
    docstring): ``on_abandon`` becomes ``forfeit``, ``multi_seat`` off.

    Raises:
        RoomError: ``lobby/bad_options`` (a strategy the game has not; a private rated room,
            a game type that is not rated, or ``multi_seat`` asked for in a rated room).
    """
    chosen = settings.get("bot_strategy")
    if chosen is not None:
        try:
            strategy(game, str(chosen))
        except OptionError as exc:
            raise RoomError("lobby/bad_options", f"bot_strategy: {exc.message}") from None
    if not settings.get("rated"):
        return
    if private:
        raise RoomError("lobby/bad_options", "a rated room is public")
    if not is_rated(game, mode):
        raise RoomError("lobby/bad_options", f"{game} {mode or ''} is not rated (rated: "
                        "skipper multi and race)")
    if settings.get("multi_seat"):
        raise RoomError("lobby/bad_options", "a rated room gives each account one seat")
    settings["on_abandon"] = "forfeit"
    settings["multi_seat"] = False


def rated_game(room: Any, bot_strategy: str) -> RatedGame | None:
    """The :class:`~.ratings.RatedGame` of finished ``room`` (a :class:`~.room.Room`), or
    None when the room is not rated. Its server bots are rated as the room's strategy
    (room option ``bot_strategy``; ``bot_strategy`` for a room stored without it). Guests
    are marked later (:meth:`Rater.rate`).

    Raises:
        RuntimeError: the room never started.
    """
    table = room.table
    if not table.settings.get("rated"):
        return None
    bot_strategy = str(table.settings.get("bot_strategy") or bot_strategy)
    mode = table.options.get("mode")
    game = table.dealt()
    outcome = game.outcome() or {}
    players = getattr(game, "players", [])
    out = [getattr(players[k], "status", "") == "out" if k < len(players) else False
           for k in range(table.seat_count)]
    scores = list(outcome.get("scores") or [0] * table.seat_count)
    ranks = finish_ranks(outcome.get("winner"), scores, out)
    seats = []
    for holder in table.seats:
        player = None if holder is None else {"bot": holder.bot, "account": holder.account}
        key = seat_key(player, bot_strategy)
        name = (f"{bot_strategy} bot" if holder is not None and holder.bot
                else (holder.name if holder is not None else ""))
        seats.append(RatedSeat(key, name))
    return RatedGame(game_id(table.id, table.commitment), board_id(table.game_name, mode),
                     tuple(seats), tuple(ranks), float(table.finished_at or 0.0) or time.time())


class Rater:
    """Rates the finished rated games of this process (see the module docstring).

    Args:
        ratings: Where ratings live.
        accounts: The account store (whether a seat's account is a guest's).
        bot_strategy: The server bots' strategy (their rating key ``bot:STRATEGY``).
        boards: Who the lists show (:data:`RATED_BOARDS`).
    """

    def __init__(self, ratings: Ratings, accounts: AccountStore | None,
                 bot_strategy: str, boards: str = "all") -> None:
        if boards not in RATED_BOARDS:
            raise ValueError(f"rated_boards: one of {', '.join(RATED_BOARDS)}")
        self.ratings, self.accounts = ratings, accounts
        self.bot_strategy, self.boards = bot_strategy, boards
        self.background = Background()

    def check_room(self, game: str, mode: str | None, settings: dict[str, Any],
                   private: bool) -> None:
        """:func:`check_room` (the lobby's hook as a room is created).

        Raises:
            RoomError: see :func:`check_room`.
        """
        check_room(game, mode, settings, private)

    def finished(self, room: Any) -> None:
        """The game of ``room`` is over: rate it in the background when it is rated."""
        game = rated_game(room, self.bot_strategy)
        if game is not None:
            self.background.spawn(self.rate(game))

    async def rate(self, game: RatedGame) -> None:
        """Rate ``game`` (guests marked from the account store); a store failure is
        logged (the game stays unrated)."""
        seats = []
        for seat in game.seats:
            guest = False
            if seat.key is not None and not seat.key.startswith("bot:") and self.accounts:
                try:
                    account = await self.accounts.get(seat.key)
                except StoreError:
                    account = None
                guest = account is None or account.guest
            seats.append(RatedSeat(seat.key, seat.name, guest))
        game = RatedGame(game.id, game.board, tuple(seats), game.ranks, game.at)
        try:
            done = await self.ratings.rate(game)
        except StoreError as exc:
            log.warning("game %s: not rated: %s", game.id, exc)
            return
        if done is not None:
            log.info("game %s rated: %s", game.id, ", ".join(
                f"{c.name} {c.before.shown}->{c.after.shown}" for c in done))

    async def listing(self, game: str, mode: str | None, limit: int = 100) -> dict[str, Any]:
        """The list of rated game type (``game``, ``mode``) as sent (module docstring).

        Raises:
            RoomError: ``lobby/unknown_game`` (not a rated game type).
            StoreError: the store is unavailable.
        """
        if not is_rated(game, mode):
            raise RoomError("lobby/unknown_game", f"{game} {mode or ''} is not rated")
        board = board_id(game, mode)
        entries = await self.ratings.listing(board, LIST_LIMIT)
        if self.boards == "registered":
            entries = [e for e in entries if not e.guest]
        return {"game": game, "mode": mode, "board": board,
                "entries": [e.record() for e in entries[:limit]]}

    async def seated(self, game: str, mode: str | None, keys: list[str]) -> dict[str, Any]:
        """The entries of rating ``keys`` on (``game``, ``mode``) as sent (module docstring):
        each rated key's whatever its rank and whatever ``rated_boards`` says, in the order of
        ``keys``; a key never rated left out.

        Raises:
            QueryError: bad ``keys`` (:func:`query_keys`).
            RoomError: ``lobby/unknown_game`` (not a rated game type).
            StoreError: the store is unavailable.
        """
        keys = query_keys(keys)
        if not is_rated(game, mode):
            raise RoomError("lobby/unknown_game", f"{game} {mode or ''} is not rated")
        board = board_id(game, mode)
        entries = await self.ratings.entries(board, keys)
        return {"game": game, "mode": mode, "board": board,
                "entries": [e.record() for e in entries]}

    async def history(self, game: str, mode: str | None, account: str,
                      limit: int = 20) -> dict[str, Any]:
        """The rated games of ``account`` on (``game``, ``mode``) as sent (module
        docstring), each rating before and after the game.

        Raises:
            RoomError: ``lobby/unknown_game`` (not a rated game type).
            StoreError: the store is unavailable.
        """
        if not is_rated(game, mode):
            raise RoomError("lobby/unknown_game", f"{game} {mode or ''} is not rated")
        kept = await self.ratings.history(board_id(game, mode), account, limit + 1)
        entries = []
        for k, (at, gid, after) in enumerate(kept[:limit]):
            before = kept[k + 1][2] if k + 1 < len(kept) else Rating()
            entries.append({"at": at, "game": gid, "room": gid.split(":")[0],
                            "before": before.record(), "after": after.record()})
        return {"game": game, "mode": mode, "account": account, "entries": entries}

    async def http(self, connection: Responder, request: Request) -> Response | None:
        """Answer ``GET /ratings?game=G&mode=M[&limit=N]``, ``GET /ratings?...&key=K...``
        and ``GET /ratings/history`` (JSON; 400 for a bad query, 404 for a type that is not
        rated, 503 when the store is unavailable); None for another path."""
        parts = urlsplit(request.path)
        if parts.path not in ("/ratings", "/ratings/history"):
            return None
        every = parse_qs(parts.query, keep_blank_values=True)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        try:
            limit = max(1, min(LIST_LIMIT, int(query.get("limit", "100"))))
            if parts.path == "/ratings/history":
                body = await self.history(query.get("game", ""), query.get("mode"),
                                          query.get("account", ""), min(limit, 100))
            elif "key" in every:
                body = await self.seated(query.get("game", ""), query.get("mode"),
                                         every["key"])
            else:
                body = await self.listing(query.get("game", ""), query.get("mode"), limit)
        except QueryError as exc:
            return connection.respond(http.HTTPStatus.BAD_REQUEST, exc.message + "\n")
        except ValueError:
            return connection.respond(http.HTTPStatus.BAD_REQUEST, "limit: a number\n")
        except RoomError as exc:
            return connection.respond(http.HTTPStatus.NOT_FOUND, exc.message + "\n")
        except StoreError:
            return connection.respond(http.HTTPStatus.SERVICE_UNAVAILABLE,
                                      "store unavailable\n")
        data = json.dumps(body, sort_keys=True).encode()
        headers = Headers({"Content-Type": "application/json",
                           "Content-Length": str(len(data)), "Cache-Control": "no-cache"})
        return Response(200, "OK", headers, data)

    async def close(self) -> None:
        """Wait for the ratings under way (cancelled)."""
        await self.background.close()
