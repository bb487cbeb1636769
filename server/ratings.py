"""Ratings of rated play (issue #45 item 1): one OpenSkill rating per account (or server bot
strategy) per rated game type, updated once per finished rated game.

The model is Weng-Lin's Bayesian approximation with the Plackett-Luce likelihood
(``openskill.models.PlackettLuce``): it rates free-for-all games of 2 to 4 seats with ties,
which is what a Skipper multi or race game is (a ranking of the seats by finish). A rating
is a belief about a player's skill: its mean ``mu`` and its uncertainty ``sigma`` (a new
player: 25 and 25/3). What people are shown is the conservative figure, the *ordinal*
``mu - 3 sigma`` (the skill the player has with 99.7 % certainty), scaled and offset
(:attr:`Rating.shown`: ``1500 + 20 * ordinal``, a new player 1500), and a rating is
*provisional* while ``sigma`` is at least :data:`PROVISIONAL_SIGMA` (about 12 games of four
seats; lichess's "?").

Rated game types (:data:`RATED`): Skipper ``multi`` and Skipper ``race``. Who is rated (a
rating *key*, :func:`seat_key`): a seat's account (a guest account counts: an account is an
account); a seat a server bot played from the start, by the bots' strategy (``bot:greedy``:
a bot's seat counts, and bots have ratings of their own); a seat held by no account (a
connection signed in to none) plays at a new player's rating and keeps nothing.

The finish order (:func:`finish_ranks`): the winner first; then the seats still in the game
at its end by their complete stacks (more is better, equal counts tie); then the seats that
left it (resigned, or abandoned: a rated room forfeits an abandoned seat, so abandoning is
a loss), by complete stacks among themselves.

Each finished rated game is rated once, by its id (:func:`game_id`: the room and its deal's
commitment): every store's :meth:`Ratings.rate` reads the seats' ratings, computes and
writes them and marks the game rated in one atomic step, and does nothing for a game
already marked, so that a takeover or a restart that finishes or reports a game again
never rates it twice. Every update is kept (the rating history: :meth:`Ratings.history`).

Stores (the port :class:`Ratings`): :class:`MemoryRatings` here, the SQLite data file's
(:mod:`.store.rating_sqlite`, schema versions 5 and 6) and Redis's (:mod:`.store.rating_redis`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from openskill.models import PlackettLuce

__all__ = ["BASE", "HISTORY", "MU", "PROVISIONAL_SIGMA", "RATED", "SCALE", "SIGMA", "Change",
           "Entry", "MemoryRatings", "RatedGame", "RatedSeat", "Rating", "Ratings",
           "best_first", "board_id", "changes", "compute", "finish_ranks", "game_id",
           "is_rated", "seat_key"]

#: Rated game types: game -> its rated modes.
RATED: Mapping[str, tuple[str, ...]] = {"skipper": ("multi", "race")}
#: A new player's mean and uncertainty (OpenSkill's defaults).
MU, SIGMA = 25.0, 25.0 / 3.0
#: A rating is provisional while its sigma is at least this.
PROVISIONAL_SIGMA = 6.5
#: Shown rating = BASE + SCALE * (mu - 3 sigma).
BASE, SCALE = 1500.0, 20.0
#: Updates of one key the rating history keeps (the newest).
HISTORY = 100

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating on one rated game type.

    Attributes:
        mu: Mean skill (OpenSkill units; a new player 25).
        sigma: Uncertainty of ``mu`` (a new player 25/3; shrinks with each game).
        games: Rated games played.
    """

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative skill ``mu - 3 sigma`` (a new player 0)."""
        return self.mu - 3.0 * self.sigma

    @property
    def shown(self) -> int:
        """The figure people see: ``round(BASE + SCALE * ordinal)`` (a new player 1500)."""
        return round(BASE + SCALE * self.ordinal)

    @property
    def provisional(self) -> bool:
        """True while ``sigma`` is at least :data:`PROVISIONAL_SIGMA`."""
        return self.sigma >= PROVISIONAL_SIGMA

    def record(self) -> dict[str, Any]:
        """The stored and sent form: ``{"mu", "sigma", "games", "rating", "provisional"}``."""
        return {"mu": self.mu, "sigma": self.sigma, "games": self.games,
                "rating": self.shown, "provisional": self.provisional}

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Rating:
        """The rating of a stored :meth:`record` (extra keys ignored).

        Raises:
            KeyError, TypeError, ValueError: not a rating's record.
        """
        return cls(float(record["mu"]), float(record["sigma"]), int(record["games"]))


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """A seat of a rated game.

    Attributes:
        key: Its rating key (:func:`seat_key`), or None (no account: rated as a new player,
            nothing kept).
        name: The display name at the table.
        guest: True for a guest account (boards may leave guests out: ``rated_boards``).
    """

    key: str | None
    name: str
    guest: bool = False


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished rated game, as the stores rate it.

    Attributes:
        id: The game's id (:func:`game_id`): a game is rated once by it.
        board: The rated game type (:func:`board_id`, ``"skipper:multi"``).
        seats: Its seats in seat order.
        ranks: Finish rank of each seat (1 best, equal ranks tie: :func:`finish_ranks`).
        at: Unix time (s) of the finish.
    """

    id: str
    board: str
    seats: tuple[RatedSeat, ...]
    ranks: tuple[int, ...]
    at: float = field(default_factory=time.time)


@dataclass(frozen=True, slots=True)
class Change:
    """What one game did to one seat's rating.

    Attributes:
        seat: The seat number.
        key: The rating key (None: a seat without account, nothing kept).
        name: Display name.
        before: The rating before the game.
        after: The rating after it.
    """

    seat: int
    key: str | None
    name: str
    before: Rating
    after: Rating

    def record(self) -> dict[str, Any]:
        """``{"seat", "key", "name", "before": Rating.record, "after": Rating.record}``."""
        return {"seat": self.seat, "key": self.key, "name": self.name,
                "before": self.before.record(), "after": self.after.record()}

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Change:
        """The change of a stored :meth:`record`.

        Raises:
            KeyError, TypeError, ValueError: not a change's record.
        """
        return cls(int(record["seat"]), record["key"], str(record["name"]),
                   Rating.of(record["before"]), Rating.of(record["after"]))


def is_rated(game: str, mode: str | None) -> bool:
    """Whether ``game`` in ``mode`` is a rated game type (:data:`RATED`)."""
    return mode is not None and mode in RATED.get(game, ())


def board_id(game: str, mode: str | None) -> str:
    """The id of a rated game type: ``"GAME:MODE"``."""
    return f"{game}:{mode}"


def game_id(room_id: str, commitment: str | None) -> str:
    """The id a finished game is rated by: the room id and the first 16 hex digits of its
    deal's commitment (a room id may come again, a commitment does not)."""
    return f"{room_id}:{(commitment or '')[:16]}"


def seat_key(player: Mapping[str, Any] | None, bot_strategy: str) -> str | None:
    """The rating key of an archived seat (``{"name", "bot", "account"}``, see
    :func:`~.archive.game_record`): ``bot:STRATEGY`` for a seat a server bot played, the
    account id for a seat of an account, None otherwise (an empty seat, no account)."""
    if player is None:
        return None
    if player.get("bot"):
        return f"bot:{bot_strategy}"
    return str(player.get("account") or "") or None


def finish_ranks(winner: int | None, scores: Sequence[float], out: Sequence[bool]) -> list[int]:
    """Each seat's finish rank (1 best; equal places share a rank), see the module docstring:
    the winner, then the seats in the game at its end, then those out (resigned or
    forfeited), each group by ``scores`` (more is better).

    Args:
        winner: The winning seat, or None.
        scores: Each seat's score (Skipper: complete stacks).
        out: Whether each seat left the game before its end.

    Raises:
        ValueError: ``scores`` and ``out`` differ in length, or ``winner`` is no seat.
    """
    if len(scores) != len(out) or (winner is not None and not 0 <= winner < len(scores)):
        raise ValueError("finish_ranks: one score and one out flag per seat")
    place = [(0 if seat == winner else 1 + bool(out[seat]), -float(scores[seat]))
             for seat in range(len(scores))]
    order = sorted(set(place))
    return [1 + order.index(p) for p in place]


def compute(game: RatedGame, before: Sequence[Rating]) -> list[Rating]:
    """The seats' ratings after ``game``, from theirs ``before`` (one per seat): one
    Plackett-Luce update with the game's ranks; each seat's ``games`` counts one more. A seat
    listed twice (one key holding two seats) is rated per seat; the store keeps its last.

    Raises:
        ValueError: ``before`` and ``game.seats`` differ in length.
    """
    if len(before) != len(game.seats):
        raise ValueError("compute: one rating per seat")
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    rated = _MODEL.rate(teams, ranks=[float(r) for r in game.ranks])
    return [Rating(float(t[0].mu), float(t[0].sigma), r.games + 1)
            for t, r in zip(rated, before, strict=True)]


def changes(game: RatedGame, current: Mapping[str, Rating]) -> list[Change]:
    """The :class:`Change` of each seat of ``game`` given the ``current`` ratings of its
    keys (a key not in it: a new player)."""
    before = [current.get(s.key, Rating()) if s.key is not None else Rating()
              for s in game.seats]
    after = compute(game, before)
    return [Change(k, s.key, s.name, b, a)
            for k, (s, b, a) in enumerate(zip(game.seats, before, after, strict=True))]


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a rating list.

    Attributes:
        key: The rating key (an account id, or ``bot:STRATEGY``).
        name: The display name it last played under.
        rating: Its rating.
        guest: True for a guest account's.
    """

    key: str
    name: str
    rating: Rating
    guest: bool = False

    def record(self) -> dict[str, Any]:
        """``{"key", "name", "guest", "mu", "sigma", "games", "rating", "provisional"}``."""
        return {"key": self.key, "name": self.name, "guest": self.guest,
                **self.rating.record()}


class Ratings(Protocol):
    """Where ratings live (the port; :class:`MemoryRatings`, :mod:`.store.rating_sqlite`,
    :mod:`.store.rating_redis`). Every method raises :class:`~.store.ports.StoreError` when
    the store is unavailable."""

    async def rate(self, game: RatedGame) -> list[Change] | None:
        """Rate ``game``: read its seats' ratings, compute (:func:`changes`), write the new
        ones with a history entry each and mark the game rated, all at once. Returns the
        changes, or None when the game was rated already (nothing changes)."""

    async def ratings(self, board: str, keys: Sequence[str]) -> dict[str, Rating]:
        """The current ratings of ``keys`` on ``board`` (keys never rated are left out)."""

    async def entries(self, board: str, keys: Sequence[str]) -> list[Entry]:
        """The list entries of ``keys`` on ``board`` whatever their rank, in the order of
        ``keys`` (a key given twice once; keys never rated left out): what a rated table
        shows of its seated players (``GET /ratings?key=K``)."""

    async def listing(self, board: str, limit: int = 100, offset: int = 0) -> list[Entry]:
        """The ``limit`` best entries of ``board`` after the ``offset`` best, the highest
        shown rating first (equal ratings by key; paging with ``offset`` meets every entry
        once while nothing is rated)."""

    async def game_changes(self, board: str, game: str) -> list[Change] | None:
        """The changes rated game ``game`` (its id) of ``board`` made, or None (not
        rated)."""

    async def history(self, board: str, key: str, limit: int = HISTORY
                      ) -> list[tuple[float, str, Rating]]:
        """The rating history of ``key`` on ``board``, newest first: (unix s, game id,
        rating after that game)."""

    async def rated_ids(self, board: str, offset: int, limit: int
                        ) -> list[tuple[str, float]]:
        """Up to ``limit`` rated games of ``board`` after the ``offset`` oldest, oldest
        first: (game id, unix s of its finish). For ``cardhall migrate``."""

    async def put_entry(self, board: str, entry: Entry,
                        history: Sequence[tuple[float, str, Rating]]) -> bool:
        """Write ``entry`` with its ``history`` (newest first, as :meth:`history` gives it)
        unless ``board`` holds its key already; returns whether it was written. For
        ``cardhall migrate`` (the target is in no server's use)."""

    async def put_game(self, board: str, game: str, done: Sequence[Change],
                       at: float) -> bool:
        """Mark game ``game`` of ``board`` rated with its changes ``done`` (finished at
        ``at``, unix s) unless it is marked already; returns whether it was marked. For
        ``cardhall migrate``."""


def best_first(entries: list[Entry], limit: int) -> list[Entry]:
    """The ``limit`` first of ``entries`` (sorted in place): the highest ordinal first,
    equal ones by key."""
    entries.sort(key=lambda e: (-e.rating.ordinal, e.key))
    return entries[:limit]


class MemoryRatings:
    """Ratings in this process's memory (a :class:`Ratings`; the memory store's)."""

    def __init__(self) -> None:
        self._boards: dict[str, dict[str, Entry]] = {}
        self._games: dict[str, list[Change]] = {}
        self._history: dict[tuple[str, str], list[tuple[float, str, Rating]]] = {}
        self._rated: dict[str, list[tuple[str, float]]] = {}

    async def rate(self, game: RatedGame) -> list[Change] | None:
        """See :meth:`Ratings.rate` (atomic: nothing awaits in between)."""
        if game.id in self._games:
            return None
        board = self._boards.setdefault(game.board, {})
        done = changes(game, {k: e.rating for k, e in board.items()})
        for seat, change in zip(game.seats, done, strict=True):
            if change.key is None:
                continue
            board[change.key] = Entry(change.key, change.name, change.after, seat.guest)
            kept = self._history.setdefault((game.board, change.key), [])
            kept.insert(0, (game.at, game.id, change.after))
            del kept[HISTORY:]
        self._games[game.id] = done
        self._rated.setdefault(game.board, []).append((game.id, game.at))
        return done

    async def ratings(self, board: str, keys: Sequence[str]) -> dict[str, Rating]:
        """See :meth:`Ratings.ratings`."""
        entries = self._boards.get(board, {})
        return {k: entries[k].rating for k in keys if k in entries}

    async def entries(self, board: str, keys: Sequence[str]) -> list[Entry]:
        """See :meth:`Ratings.entries`."""
        entries = self._boards.get(board, {})
        return [entries[k] for k in dict.fromkeys(keys) if k in entries]

    async def listing(self, board: str, limit: int = 100, offset: int = 0) -> list[Entry]:
        """See :meth:`Ratings.listing`."""
        entries = best_first(list(self._boards.get(board, {}).values()), offset + limit)
        return entries[offset:]

    async def game_changes(self, board: str, game: str) -> list[Change] | None:
        """See :meth:`Ratings.game_changes`."""
        done = self._games.get(game)
        return None if done is None else list(done)

    async def history(self, board: str, key: str, limit: int = HISTORY
                      ) -> list[tuple[float, str, Rating]]:
        """See :meth:`Ratings.history`."""
        return list(self._history.get((board, key), [])[:limit])

    async def rated_ids(self, board: str, offset: int, limit: int
                        ) -> list[tuple[str, float]]:
        """See :meth:`Ratings.rated_ids`."""
        rated = sorted(self._rated.get(board, []), key=lambda g: g[1])
        return rated[offset:offset + limit]

    async def put_entry(self, board: str, entry: Entry,
                        history: Sequence[tuple[float, str, Rating]]) -> bool:
        """See :meth:`Ratings.put_entry`."""
        entries = self._boards.setdefault(board, {})
        if entry.key in entries:
            return False
        entries[entry.key] = entry
        self._history[(board, entry.key)] = list(history)[:HISTORY]
        return True

    async def put_game(self, board: str, game: str, done: Sequence[Change],
                       at: float) -> bool:
        """See :meth:`Ratings.put_game`."""
        if game in self._games:
            return False
        self._games[game] = list(done)
        self._rated.setdefault(board, []).append((game, at))
        return True
