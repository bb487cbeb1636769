"""Checking a finished game's deal: what ``cardhall verify`` runs (protocol "Fair deals").

A *game record* (format ``"cardhall-game-record/1"``, written by
:meth:`cardhall.client.client.Client.save_game_record`) holds what one player saw: the deal
commitment published at start, the seed and salt revealed in ``game_over``, the game's
options, seat count and action log (``get_log``), the player's seat and every view and
delta it was sent. :func:`verify_record` checks, in order:

1. the seed and salt hash to the commitment (:func:`cardhall.protocol.fairness.commitment`),
   and the options replayed hold that seed;
2. the engine, dealt from the seed and options, accepts every entry of the log (actions,
   forfeits and settings, :class:`cardhall.games.LogEntry`, applied as
   :func:`cardhall.games.replay` does) and ends at the announced final ``state_id`` with the
   announced outcome;
3. at every state the player saw after the start, its view (its hand first of all) is the
   replay's view of its seat: the cards it was dealt and drew are the ones the seed gives.

Pure code: imports the engines and the protocol only (no asyncio, sockets or stores), so a
client-side tool can use it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import protocol as p
from ..protocol import fairness
from .. import games
from ..games import Game, GameError, LogEntry, OptionError
from ..games.base import SETTING
from .phases import Phase, is_phase

RECORD_FORMAT = "cardhall-game-record/1"


class VerificationFailed(Exception):
    """The record does not check out; ``reason`` says which check failed and how.

    Attributes:
        reason: One line for a person, e.g. ``"tampered seed: ..."``.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Verdict:
    """What :func:`verify_record` checked (it raises instead when a check fails).

    Attributes:
        game: Game name.
        room: Room id.
        seat: The recording player's seat (None: a spectator or no seat).
        state_id: The final state id (the log's actions and forfeits replayed).
        views_checked: Views of the player compared with the replay.
        states_checked: Distinct state ids those views were at.
        lines: One line per check passed, for a person.
    """

    game: str
    room: str
    seat: int | None
    state_id: int
    views_checked: int = 0
    states_checked: int = 0
    lines: list[str] = field(default_factory=list)


def _plain(value: Any) -> Any:
    """``value`` as JSON would carry it (tuples as lists, int map keys as strings), so an
    engine's view compares equal to a view read back from a record file."""
    return json.loads(json.dumps(value))


def _need(record: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise VerificationFailed(f"bad record: {key!r} is missing or not a {kind}")
    return value


def _seen_views(seen: list[Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The views a client held, rebuilt from its record's ``seen`` list (full views and the
    deltas it applied to them), in order: ``(state_id, view)``.

    Raises:
        VerificationFailed: a delta that does not apply, or an entry of the wrong shape.
    """
    view: dict[str, Any] | None = None
    for n, item in enumerate(seen):
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[2], dict)
                and item[1] in ("view", "delta")):
            raise VerificationFailed(f"bad record: seen[{n}] is not [state_id, kind, map]")
        state_id, kind, data = item
        if kind == "view":
            view = copy.deepcopy(data)
        elif view is None:
            raise VerificationFailed(f"bad record: seen[{n}] is a delta before any view")
        else:
            try:
                p.apply_delta(view, copy.deepcopy(data))
            except (KeyError, IndexError, TypeError, ValueError):
                raise VerificationFailed(f"bad record: seen[{n}] does not apply") from None
            if "state_id" not in data:  # protocol version 2: the update's is the view's
                view["state_id"] = state_id
        sid = view.get("state_id")
        if not isinstance(sid, int) or sid != state_id:
            raise VerificationFailed(f"bad record: seen[{n}] is at state {state_id!r} but "
                                     f"its view says {sid!r}")
        yield sid, view


def _differing(seen: dict[str, Any], truth: dict[str, Any]) -> list[str]:
    """The keys in which the view ``seen`` differs from the replay's ``truth``, sorted: the
    server's room facts are left out, and the legal actions unless the room was playing."""
    facts = seen.get("room")
    playing = isinstance(facts, dict) and is_phase(facts.get("status"), Phase.PLAYING)
    skip = {"room"} if playing else {"room", "legal_actions"}
    mine = {k: v for k, v in seen.items() if k not in skip}
    real = {k: v for k, v in truth.items() if k not in skip}
    if mine == real:
        return []
    return sorted(k for k in set(mine) | set(real) if mine.get(k) != real.get(k))


def _compare(seen: dict[str, Any], truth: dict[str, Any], sid: int, who: str) -> None:
    """Raise when the view ``seen`` at ``sid`` is not the replay's ``truth``
    (:func:`_differing`)."""
    keys = _differing(seen, truth)
    if not keys:
        return
    what = "hand mismatch" if "hand" in keys or "hands" in keys else "view mismatch"
    raise VerificationFailed(f"{what}: at state {sid}, {who}'s view differs from the replay "
                             f"of the revealed seed in {', '.join(map(repr, keys))}")


class _Views:
    """The views a record's player saw (:func:`_seen_views`), checked against the replay as
    it reaches their states (check 3 of the module docstring)."""

    def __init__(self, game: Game, seat: int | None, seen: list[Any], verdict: Verdict) -> None:
        self.game, self.seat, self.verdict = game, seat, verdict
        self.who = "the spectator" if seat is None else f"seat {seat}"
        self.views = _seen_views(seen)
        self.pending = next(self.views, None)
        self.states: set[int] = set()

    def check(self, setting_next: bool = False) -> None:
        """Check every seen view of the replay's current state. With ``setting_next`` (the
        next log entry is a setting: the state's views change without a new ``state_id``) a
        view that differs waits for it.

        Raises:
            VerificationFailed: a view out of order or unlike the replay's.
        """
        game = self.game
        truth: dict[str, Any] | None = None
        while self.pending is not None and self.pending[0] <= game.state_id:
            sid, view = self.pending
            if sid < game.state_id:
                raise VerificationFailed(f"bad record: views out of order at state {sid}")
            facts = view.get("room")
            if not (isinstance(facts, dict) and is_phase(facts.get("status"), Phase.WAITING)):
                # (before the start the room may not be dealt yet: not compared)
                if truth is None:
                    truth = _plain(game.view(self.seat))
                if setting_next and _differing(view, truth):
                    return  # seen after the setting: compared once it is applied
                _compare(view, truth, sid, self.who)
                self.verdict.views_checked += 1
                self.states.add(sid)
            self.pending = next(self.views, None)


def _read(record: Mapping[str, Any]) -> tuple[dict[str, Any], Verdict]:
    """The record as JSON would carry it, and a verdict for it.

    Raises:
        VerificationFailed: not a record of :data:`RECORD_FORMAT`, or a field of the wrong
            kind.
    """
    rec = _plain(dict(record))
    if rec.get("format") != RECORD_FORMAT:
        raise VerificationFailed(f"bad record: format is {rec.get('format')!r}, not "
                                 f"{RECORD_FORMAT!r}")
    _need(rec, "seats", int)
    _need(rec, "options", dict)
    seat = rec.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
        raise VerificationFailed("bad record: 'seat' is not a seat number")
    verdict = Verdict(game=_need(rec, "game", str), room=str(rec.get("room")), seat=seat,
                      state_id=0)
    _need(rec, "log", list)
    return rec, verdict


def _check_commitment(rec: dict[str, Any], verdict: Verdict) -> None:
    """Check 1: the revealed seed and salt hash to the published commitment, and the
    options hold that seed.

    Raises:
        VerificationFailed: they do not, or one is missing.
    """
    published: Any = rec.get("commitment")
    if not fairness.is_commitment(published):
        raise VerificationFailed("bad record: no deal commitment was recorded at the start")
    seed: Any = rec.get("seed")
    salt: Any = rec.get("salt")
    if not isinstance(seed, int) or isinstance(seed, bool) or not fairness.is_salt(salt):
        raise VerificationFailed("bad record: the seed and salt revealed at game over are "
                                 "missing or malformed")
    if not fairness.matches(seed, salt, published):
        raise VerificationFailed(
            f"tampered seed: sha256 of seed {seed} and salt {salt} is "
            f"{fairness.commitment(seed, salt)}, not the commitment {published} published at "
            "the start")
    if rec["options"].get("seed") != seed:
        raise VerificationFailed(f"tampered seed: the game's options hold seed "
                                 f"{rec['options'].get('seed')!r}, not the revealed seed {seed}")
    verdict.lines.append(f"commitment {published} = sha256(seed {seed}, salt {salt})")


def _entry(raw: Any, n: int, seats: int) -> LogEntry:
    """Entry ``n`` of the log as a :class:`LogEntry`.

    Raises:
        VerificationFailed: not ``[kind, seat, action]`` with a seat of the game.
    """
    try:
        entry = LogEntry.of(raw)
    except GameError:
        raise VerificationFailed(f"tampered log: entry {n} is not [kind, seat, action]"
                                 ) from None
    if not 0 <= entry.seat < seats:
        raise VerificationFailed(f"tampered log: entry {n} is not [kind, seat, action]")
    return entry


def _check_end(rec: dict[str, Any], game: Game, verdict: Verdict) -> None:
    """Check 2's end: the replay ends over, at the announced state, with the announced
    outcome.

    Raises:
        VerificationFailed: it does not.
    """
    final = rec.get("state_id")
    if final != game.state_id:
        raise VerificationFailed(f"tampered log: the log replays to state {game.state_id}, "
                                 f"but the game ended at state {final}")
    if not game.over:
        raise VerificationFailed(f"tampered log: the game is not over after the log's "
                                 f"{len(rec['log'])} entries")
    announced = rec.get("outcome")
    if isinstance(announced, dict):
        real = _plain({**(game.outcome() or {}), "stats": game.stats()})
        mine = {k: v for k, v in announced.items() if k in real}
        if mine != {k: v for k, v in real.items() if k in announced}:
            raise VerificationFailed(f"outcome mismatch: the replay ends with {real}, the "
                                     f"server announced {announced}")
    seats = rec["seats"]
    verdict.lines.append(f"replayed {game.state_id} actions of {verdict.game} "
                         f"({seats} seat{'s' if seats != 1 else ''}) from the seed: final "
                         f"state {game.state_id}, outcome {game.outcome()}")


def verify_record(record: Mapping[str, Any]) -> Verdict:
    """Check a game record (see the module docstring for the three checks).

    Args:
        record: A ``"cardhall-game-record/1"`` dict: ``game``, ``room``, ``seats``,
            ``seat`` (None for a spectator), ``commitment`` (64 hex digits), ``seed``,
            ``salt``, ``state_id``, ``outcome``, ``options``, ``log`` (``[kind, seat,
            action]`` entries: :class:`cardhall.games.LogEntry`), ``seen`` (``[state_id,
            "view"|"delta", map]``, may be empty).

    Returns:
        The :class:`Verdict` (every check passed).

    Raises:
        VerificationFailed: a check failed or the record is malformed; ``reason`` begins with
            ``"tampered seed"``, ``"tampered log"``, ``"hand mismatch"``, ``"view mismatch"``,
            ``"outcome mismatch"`` or ``"bad record"``.
    """
    rec, verdict = _read(record)
    _check_commitment(rec, verdict)
    seats, log = rec["seats"], rec["log"]
    try:  # 2. the replay (with 3., the player's views, checked at each state on the way)
        game = games.get(verdict.game)(rec["options"], seats)
    except OptionError as exc:
        raise VerificationFailed(f"bad record: the engine refuses the options: "
                                 f"{exc.message}") from None
    views = _Views(game, verdict.seat, rec.get("seen") or [], verdict)
    entries = [_entry(raw, n, seats) for n, raw in enumerate(log)]
    for n, entry in enumerate(entries):
        views.check(setting_next=entry.kind == SETTING)
        try:
            game.apply_entry(entry)
        except GameError as exc:
            raise VerificationFailed(f"tampered log: entry {n} ({entry.kind} {entry.seat} "
                                     f"{entry.action}) does not apply: {exc}") from None
    views.check()
    if views.pending is not None:
        raise VerificationFailed(f"tampered log: the player saw state {views.pending[0]}, "
                                 f"but the log ends at state {game.state_id}")
    _check_end(rec, game, verdict)
    verdict.state_id = game.state_id
    verdict.states_checked = len(views.states)
    if verdict.views_checked:
        verdict.lines.append(f"{verdict.views_checked} views of {views.who} at "
                             f"{verdict.states_checked} states match the replay (its cards "
                             "are the seed's)")
    else:
        verdict.lines.append("no views recorded: the player's cards were not compared")
    return verdict
