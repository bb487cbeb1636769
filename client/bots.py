"""Scripted bots: ordinary clients that play with a strategy (``cardhall bots``).

A bot sees exactly what a person's client sees (its view, with its legal actions) and uses
the same strategies as ``cardhall simulate``; so bots double as load generators.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import protocol as p
from ..games.bots import Strategy, strategy
from .client import Client, ConnectionLost, ServerError, new_device_secret

RETRY_SECONDS = 0.3  # pause before retrying an action the server could not answer
STALL_SECONDS = 2.0  # the seat may act but nothing happened this long: act again
#: Refusals that mean "not now" rather than "not this": the bot waits and tries again.
_RETRY_CODES = frozenset({"server/unavailable", "rate/limited"})


@dataclass
class SeatResult:
    """What one bot saw of its game.

    Attributes:
        room: Room id.
        seat: The bot's seat.
        outcome: The ``game_over`` outcome (``winner``, ``reason``, ``scores``, ``stats``).
        state_id: Final state id.
        actions: Actions this bot had accepted.
        refused: Actions refused (stale state after another seat acted, and the like).
        frames: Every ``update`` message it received, when ``keep_frames`` (for leak tests).
    """

    room: str
    seat: int
    outcome: dict[str, Any] = field(default_factory=dict)
    state_id: int = 0
    actions: int = 0
    refused: int = 0
    frames: list[Any] = field(default_factory=list)


async def play_seat(client: Client, room: str, seat: int, choose: Strategy,
                    rng: random.Random, *, keep_frames: bool = False,
                    think: float = 0.0, act_timeout: float = 3.0) -> SeatResult:
    """Play ``seat`` of ``room`` with ``choose`` until the game ends.

    Acts whenever the seat's current view lists legal actions and the view is newer than the
    one it last acted on. Refused actions (a stale view in a real-time game, say) are counted
    and the bot waits for the next update. When the server is unavailable or asks it to slow
    down (``rate/limited``), the reply is lost (a server died) or does not come within
    ``act_timeout``, the bot tries again after ``RETRY_SECONDS`` with the same ``state_id``,
    so an action is never applied twice.

    Args:
        client: A connected client already seated in ``room``.
        think: Seconds to wait before each action (0: act at once).
        act_timeout: Seconds to wait for the reply to one action.

    Returns:
        The seat's result once ``game_over`` arrives.

    Raises:
        ConnectionLost: the client gave up reconnecting.
    """
    player = _SeatPlayer(client, room, seat, choose, rng, think, act_timeout)
    retry_task = asyncio.get_running_loop().create_task(player.retrier())
    try:
        return await _follow(client, room, seat, player, keep_frames)
    finally:
        retry_task.cancel()
        await asyncio.gather(retry_task, return_exceptions=True)


class _SeatPlayer:
    """The acting part of :func:`play_seat`: one seat's state between its actions.

    ``acted_on`` is the ``state_id`` last acted on (-1: act on the next view that allows
    it), ``acting`` the actions under way (thinking or waiting for their reply), and
    ``last_try`` when the last of them ended (``time.monotonic()``, s).
    """

    def __init__(self, client: Client, room: str, seat: int, choose: Strategy,
                 rng: random.Random, think: float, act_timeout: float) -> None:
        self.client, self.room, self.choose, self.rng = client, room, choose, rng
        self.think, self.act_timeout = think, act_timeout
        self.result = SeatResult(room=room, seat=seat)
        self.acted_on = -1
        self.retry = asyncio.Event()
        self.acting = 0
        self.last_try = time.monotonic()

    def reset(self) -> None:
        """Act on the next view that allows it, even one already acted on."""
        self.acted_on = -1

    async def maybe_act(self) -> None:
        """Act when the seat's view lists legal actions and is newer than the last acted
        on; a refusal that means "not now", a lost reply or a timeout asks for a retry."""
        view = self.client.views.get(self.room)
        if not view or view.get("over") or not view.get("legal_actions"):
            return
        sid = view["state_id"]
        if sid <= self.acted_on:
            return
        self.acted_on = sid
        self.acting += 1
        try:
            # Chosen before thinking: updates arriving meanwhile change ``view`` in place
            # (it may list no legal action any more); a stale choice is refused as stale.
            action = self.choose(view, self.rng)
            if self.think:
                await asyncio.sleep(self.think)
            async with asyncio.timeout(self.act_timeout):
                await self.client.act(self.room, action, sid)
            self.result.actions += 1
        except ServerError as exc:
            self.result.refused += 1
            if exc.code in _RETRY_CODES:
                self.acted_on = -1
                self.retry.set()
        except (ConnectionLost, TimeoutError):
            self.acted_on = -1  # try again: if it was applied, the repeat is refused as stale
            self.retry.set()
        finally:
            self.acting -= 1
            self.last_try = time.monotonic()

    async def retrier(self) -> None:
        """Retries on request, and a watchdog: when the seat may act but for STALL_SECONDS
        nothing has happened and no action of ours was under way or answered (an action
        lost with a dying server, say), act again with the same state_id; if the first one
        was applied, the repeat is refused as stale. Runs until cancelled."""
        seen, since = -1, time.monotonic()
        while True:
            try:
                async with asyncio.timeout(STALL_SECONDS / 2):
                    await self.retry.wait()
                self.retry.clear()
                await asyncio.sleep(RETRY_SECONDS)
                await self.maybe_act()
            except TimeoutError:
                view = self.client.views.get(self.room) or {}
                sid = view.get("state_id", -1)
                quiet = time.monotonic() - max(since, self.last_try)
                if sid != seen:
                    seen, since = sid, time.monotonic()
                elif (view.get("legal_actions") and not view.get("over") and not self.acting
                      and quiet >= STALL_SECONDS):
                    self.acted_on, since = -1, time.monotonic()
                    await self.maybe_act()


async def _follow(client: Client, room: str, seat: int, player: _SeatPlayer,
                  keep_frames: bool) -> SeatResult:
    result, maybe_act = player.result, player.maybe_act
    await maybe_act()
    async for msg in client.updates():
        if keep_frames and isinstance(msg, p.Update) and msg.room == room:
            result.frames.append(msg)
        if getattr(msg, "room", None) != room:
            continue
        if isinstance(msg, p.GameOver):
            result.outcome = dict(msg.outcome)
            result.state_id = msg.state_id
            return result
        if isinstance(msg, (p.Update, p.Started)):
            await maybe_act()
        if isinstance(msg, p.SeatEvent) and msg.event == "resumed" and msg.seat == seat:
            player.reset()  # back after a drop: an action sent meanwhile may have been lost
            await maybe_act()
    raise ConnectionLost(f"updates ended before room {room} finished")


async def timed_actions(client: Client, room: str, choose: Strategy, rng: random.Random,
                        limit: int, pace: float = 0.0) -> list[float]:
    """Play the room ``room`` (joined, started, the client's seat the only one to act) with
    ``choose``, one action at a time, and time each round trip: ``act`` sent -> the room's
    next ``update`` received, in seconds. Waits ``pace`` seconds before each action; stops
    when the game is over or after ``limit`` actions (for latency probes).

    Raises:
        ServerError: an action was refused.
        ConnectionLost: the connection dropped.
    """
    rtts: list[float] = []
    pushes = client.updates()

    async def next_push() -> Any:
        try:
            return await pushes.__anext__()
        except StopAsyncIteration:  # the client's connection closed: no more pushes
            raise ConnectionLost("the connection closed while timing actions") from None

    while len(rtts) < limit:
        view = client.views[room]
        if view.get("over"):
            break
        if not view["legal_actions"]:
            await next_push()
            continue
        action, sid = choose(view, rng), view["state_id"]
        if pace:
            await asyncio.sleep(pace)
        t0 = time.perf_counter()
        await client.act(room, action, sid)
        while True:
            msg = await next_push()
            if isinstance(msg, p.Update) and msg.room == room and msg.state_id > sid:
                break
        rtts.append(time.perf_counter() - t0)
    return rtts


def bot_clients(urls: Sequence[str], players: int, prefix: str = "bot",
                guests: Sequence[str] | None = None, token: str | None = None,
                **client_options: Any) -> list[Client]:
    """``players`` bot clients named ``PREFIX-i`` (when the name is free), spread over
    ``urls``: bot ``i`` connects to ``urls[i % len(urls)]`` first and moves on to the next
    URL when its connection drops (then resumes its seat). They are not connected yet
    (:func:`seat_bots` does it).

    Args:
        urls: Server URLs, ``ws://HOST:PORT``.
        players: How many clients.
        prefix: Their names' start.
        guests: Each bot's guest device secret (bot ``i`` signs in to the guest account of
            ``guests[i]``); None: signed in to no account (anonymous guests), unless
            ``token`` is given.
        token: An access token every bot signs in with (one account: it holds one seat of a
            room unless the room allows more, room option ``multi_seat``).
        client_options: More :class:`~cardhall.client.client.Client` arguments
            (``keep_records``, say).
    """
    return [Client([urls[(i + k) % len(urls)] for k in range(len(urls))],
                   name=f"{prefix}-{i}", token=token,
                   guest=guests[i] if guests is not None and token is None else None,
                   **client_options)
            for i in range(players)]


async def seat_bots(clients: Sequence[Client], game: str, mode: str | None = None,
                    options: dict[str, Any] | None = None,
                    room: str | None = None) -> tuple[str, list[int]]:
    """Connect ``clients`` and seat each in one room: a new room of ``game`` with a seat per
    client, created by the first (the room starts when full), or the existing ``room``. A
    create or join the server refuses for now (``server/unavailable``: its store fails over
    or a replica is in its first sync; ``rate/limited``) is asked again with backoff
    (``patient``: :meth:`~.client.Client.create_room`).

    Args:
        clients: Clients not connected yet (:func:`bot_clients`).
        game: The game of the new room.
        mode: Its mode (None: the game's default).
        options: Its options (None: none).
        room: An existing room to take free seats in; ``game``, ``mode`` and ``options`` are
            then ignored.

    Returns:
        The room id and each client's seat, in the order of ``clients``.

    Raises:
        ServerError: the server refused to create or join the room (for
            ``server/unavailable``: still, after the last try).
        OSError: no server could be reached.
    """
    for c in clients:
        await c.connect()
    if room is None:
        room = (await clients[0].create_room(game, mode=mode, seats=len(clients),
                                             options=dict(options or {}), patient=True)).room
    seats = []
    for c in clients:
        joined = await c.join(room, patient=True)
        assert joined.seat is not None
        seats.append(joined.seat)
    return room, seats


async def stop_bots(tasks: Sequence[asyncio.Future[Any]], clients: Sequence[Client]) -> None:
    """Cancel ``tasks`` (bots still playing, :func:`play_seat`), wait until each has ended,
    then close ``clients``. What the tasks raised is dropped."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for c in clients:
        await c.close()


async def play_games(urls: Sequence[str], game: str, mode: str | None, players: int,
                     games: int, bot: str = "greedy", options: dict[str, Any] | None = None,
                     seed: int | None = None, timeout: float = 600.0,
                     keep_frames: bool = False, think: float = 0.0,
                     record_dir: str | None = None,
                     room: str | None = None, token: str | None = None,
                     guests: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Play ``games`` games, each with ``players`` bot clients spread over ``urls``.

    Bot ``i`` signs in to the guest account of device secret ``guests[i]`` (None: a secret
    made for each bot now, the same for every game), or with ``token`` (every bot the same
    account).

    The first bot of each game creates the room; every bot joins; the room starts when full.
    With ``room``, the bots take free seats in that existing room instead (a room a person
    created, say; ``game`` must be its game, ``mode`` and ``options`` are ignored) and play
    it to the end; ``games`` must then be 1.
    Bot ``i`` connects to ``urls[i % len(urls)]`` first and moves on to the next URL when its
    connection drops (then resumes its seat). ``think``: seconds each bot waits before acting.
    ``record_dir``: a folder where each bot writes its game record when the game is over
    (``<room>-seat<k>.json``, for ``cardhall verify``).

    Returns:
        One record per game: ``room, game, mode, seats, winner, turns, auctions, skip_draws,
        state_id, duration_s, outcome`` (plus ``results``, the per-seat ``SeatResult``s).

    Raises:
        ServerError: the server refused to create or join the room.
        TimeoutError: a game took longer than ``timeout`` seconds.
        OSError: no server could be reached.
        ValueError: ``room`` was given with ``games`` other than 1.
    """
    if room is not None and games != 1:
        raise ValueError("joining an existing room plays exactly one game")
    choose = strategy(game, bot)
    rng = random.Random(seed)
    records = []
    if guests is None:
        guests = [new_device_secret() for _ in range(players)]
    for _ in range(games):
        t0 = time.perf_counter()
        clients = bot_clients(urls, players, guests=guests, token=token,
                              keep_records=record_dir is not None)
        try:
            room_id, seats = await seat_bots(clients, game, mode, options, room)
            tasks = [play_seat(c, room_id, s, choose, random.Random(rng.random()),
                               keep_frames=keep_frames, think=think)
                     for c, s in zip(clients, seats)]
            async with asyncio.timeout(timeout):
                results = await asyncio.gather(*tasks)
            if record_dir is not None:
                for c, s in zip(clients, seats):
                    await c.save_game_record(
                        room_id, os.path.join(record_dir, f"{room_id}-seat{s}.json"))
        finally:
            for c in clients:
                await c.close()
        outcome = results[0].outcome
        stats = outcome.get("stats", {})
        records.append({
            "room": room_id, "game": game, "mode": mode, "seats": players,
            "winner": outcome.get("winner"), "turns": stats.get("turns"),
            "auctions": stats.get("auctions"), "skip_draws": stats.get("skip_draws"),
            "state_id": results[0].state_id, "duration_s": round(time.perf_counter() - t0, 3),
            "outcome": outcome.get("reason"), "results": results,
        })
    return records
