"""The room's action path step by step, in one process without sockets: what the engine,
``state()``, the store append, the clocks, the metrics, ``table()`` and the fan-out each cost
per action, in µs of CPU, and the engine alone with no room (issue #34 item 2).

:func:`measure` plays 4-seat Skipper ``multi`` rooms through :meth:`Room.play` as
``benchmarks/room_path.py`` does (memory store, stand-in connections that count frames,
random legal actions other than ``resign``, ``rooms`` rooms in turn), twice: once clean,
for the whole action's CPU time, and once with a timer around each step (a subclass of the
room and of the store, a stand-in around the engine, the room module's ``observe_action``
swapped), for the steps. The steps are exclusive: the fan-out's figure is
``views.send_all`` less the ``facts()`` and engine calls made inside it; "the rest" is the clean
whole less every step (the room's checks, its lock, the act frame's decoding, the ``ok``).
Each step's figure has the timer's own cost (measured around a no-op) taken off. A compiled
room (:data:`cardhall.server.room.COMPILED`) takes no subclass from Python and no stand-in
engine, and calls its parts directly: its steps cannot be timed from outside, and only the
whole action and the engine alone are measured (the steps come out empty, ``-`` in the
table).

:func:`side_by_side` runs :func:`measure` in a child process per build (pure Python and the
compiled core, :mod:`cardhall.bench.builds`), by turns; :func:`render` prints the medians
and the ratio compiled / pure. ``cardhall bench --builds`` and ``python -m
cardhall.bench.steps --builds`` print them (without ``--builds``: the build on
``PYTHONPATH`` alone).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The steps, in the order of an action, with the callables each one times
#: (``Table.NAME``, ``store.append_now``, ``game.NAME``, ``views.send_all``, the room driver's
#: ``observe_action``).
STEPS = (("engine: apply the action", ("game.apply_entry",)),
         ("state()", ("table.state",)),
         ("store append", ("store.append_now",)),
         ("clocks", ("table._schedule", "table._wake")),
         ("metrics", ("observe_action",)),
         ("table()", ("table.facts",)),
         ("engine: deltas and views", ("game.deltas", "game.views")),
         ("fan-out (frames, less the above)", ("views.send_all",)))
#: Room settings of the measured rooms: the room options' defaults (no turn clock), as
#: ``cardhall serve`` runs the rooms of the bench and of the peers harness.
ROOM_SETTINGS = {"turn_seconds": None, "bid_seconds": None, "grace_seconds": 120.0,
                 "on_abandon": "bot"}


class CountingPeer:
    """Stands in for a room's member (a peer): counts the frames the room sends it, and notes
    in ``first_at`` (a ``time.perf_counter()`` reading, s) when the first write after
    ``first_at`` was last reset to 0.0 happened."""

    def __init__(self, i: int, act_reply: str = "ok") -> None:
        self.session_id = self.name = f"seat{i}"
        self.account = ""  # signed in to no account
        self.process = "bench"
        self.act_reply = act_reply
        self.rooms: dict[str, Any] = {}
        self.frames = 0
        self.first_at = 0.0

    def send(self, msg: Any) -> None:
        """Encode and count ``msg`` (a protocol message)."""
        from .. import protocol as p

        self.send_raw(p.encode(msg))

    def send_raw(self, *frames: bytes) -> None:
        """Count encoded frames (and stamp the first write: ``first_at``)."""
        if not self.first_at:
            self.first_at = time.perf_counter()
        self.frames += len(frames)

    def push(self) -> None:
        """Nothing is queued here."""

    def send_later(self, frame: bytes) -> None:
        """Count a frame sent after the others (a spectator's)."""
        self.send_raw(frame)

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Count an error reply."""
        from .. import protocol as p

        self.send(p.Error(code=code, message=message, re=re))


class Clock:
    """Seconds of CPU (``time.process_time``: preemption by other processes does not count)
    and calls, per timed callable."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` (sync or async) timed under ``name``."""
        seconds, calls, now = self.seconds, self.calls, time.process_time
        if asyncio.iscoroutinefunction(fn):
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                t = now()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    seconds[name] += now() - t
                    calls[name] += 1
            return run_async

        def run(*args: Any, **kwargs: Any) -> Any:
            t = now()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[name] += now() - t
                calls[name] += 1
        return run


class TimedGame:
    """Stands in for a room's engine: times :data:`STEPS`' ``game.*`` calls, hands on every
    other attribute."""

    def __init__(self, game: Any, clock: Clock) -> None:
        self._game = game
        for name in ("apply_entry", "deltas", "views"):
            setattr(self, name, clock.timed(f"game.{name}", getattr(game, name)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def timed_subclass(base: type, names: tuple[str, ...], prefix: str, clock: Clock) -> type:
    """A subclass of ``base`` whose methods ``names`` (those it has) are timed as
    ``prefix.NAME``."""
    def method(name: str) -> Callable[..., Any]:
        return clock.timed(f"{prefix}.{name}", getattr(base, name))

    return type(f"Timed{base.__name__}", (base,),
                {n: method(n) for n in names if hasattr(base, n)})


def timer_cost(calls: int = 20_000) -> float:
    """Seconds the timer itself adds to one call (a timed no-op less a bare one)."""
    def noop() -> None:
        return None

    timed = Clock().timed("noop", noop)
    t = time.process_time()
    for _ in range(calls):
        timed()
    t1 = time.process_time()
    for _ in range(calls):
        noop()
    t2 = time.process_time()
    return max(0.0, ((t1 - t) - (t2 - t1)) / calls)


async def open_table(room_cls: type[Any], number: int, seed: int, store: Any,
                     settings: dict[str, Any], metrics: Any = None
                     ) -> tuple[Any, Any, list[CountingPeer]]:
    """A started 4-seat Skipper ``multi`` room ``r{number}`` of ``room_cls`` (``Room`` or a
    subclass) on ``store``, with room options ``settings`` and bound ``metrics`` (None:
    none), its engine (deal ``seed``) and its four :class:`CountingPeer` seated."""
    from ..games.skipper import Skipper

    conns = [CountingPeer(i) for i in range(4)]
    game = Skipper({"mode": "multi", "seed": seed}, 4)
    room = room_cls(id=f"r{number}", name="bench", game_name="skipper", game=game,
                    settings=settings, store=store)
    room.metrics = metrics
    room.start_task()
    for i, conn in enumerate(conns):
        await room.apply(room.table.join(conn, i, reply=False))
    await room.apply(room.table.start(None))
    return room, game, conns


async def _play(actions: int, rooms: int, seed: int, clock: Clock | None,
                turn_seconds: float | None = None) -> float:
    """Play ``actions`` actions over ``rooms`` rooms in turn (``turn_seconds``: their turn
    clock); timed steps into ``clock`` (None: clean). Returns the CPU seconds of the actions
    (``time.process_time``)."""
    from .. import protocol as p
    from ..server import metrics
    from ..server.store import memory_store
    from ..server.room import driver as room_module, views as views_module

    rng = random.Random(seed)
    room_cls: type[Any] = room_module.Room  # its members are stand-ins (Any)
    store_cls: type[Any] = memory_store.MemoryStore
    table_cls, send_all = vars(room_module)["Table"], views_module.send_all
    if clock is not None:  # the driver makes its table of the class its module names
        vars(room_module)["Table"] = timed_subclass(
            table_cls, ("state", "_schedule", "_wake", "facts"), "table", clock)
        vars(views_module)["send_all"] = clock.timed("views.send_all", send_all)
        # the room appends at once (Room.act_now), through the store's plain call
        store_cls = timed_subclass(store_cls, ("append_now",), "store", clock)
    store = store_cls()
    bound = metrics.bind_game(metrics.Metrics(store, lambda: rooms, lambda: 4 * rooms),
                              "skipper", "multi")
    made = 0

    async def new_table() -> tuple[Any, Any, list[CountingPeer]]:
        nonlocal made
        made += 1
        room, game, conns = await open_table(
            room_cls, made, rng.randrange(1 << 30), store,
            {**ROOM_SETTINGS, "turn_seconds": turn_seconds}, bound)
        if clock is not None:
            room.table.game = TimedGame(room.table.game, clock)
        return room, game, conns

    observe = vars(room_module)["observe_action"]  # what the room driver calls, by that name
    if clock is not None:
        vars(room_module)["observe_action"] = clock.timed("observe_action", observe)
    try:
        tables = [await new_table() for _ in range(rooms)]
        cpu = 0.0
        for done in range(actions):
            k = done % rooms
            room, game, conns = tables[k]
            if game.over:
                await room.close()
                room, game, conns = tables[k] = await new_table()
            seat = game.to_act()[0]
            action = rng.choice([a for a in game.legal_actions(seat) if a[0] != "resign"])
            frame = p.encode(p.Act(room=room.id, state_id=game.state_id,
                                   action=list(action), id=done))
            c0 = time.process_time()
            await room.play(conns[seat], p.decode(frame, side="client"))
            cpu += time.process_time() - c0
        for room, _game, _conns in tables:
            await room.close()
        await store.close()
    finally:
        vars(room_module)["observe_action"] = observe
        vars(room_module)["Table"], vars(views_module)["send_all"] = table_cls, send_all
    return cpu


def engine_alone(actions: int, seed: int) -> float:
    """CPU seconds of ``actions`` actions of bare Skipper ``multi`` engines (4 seats): each
    applied, then the deltas of every seat asked (the engine's part of a room's action,
    with no room around it)."""
    from ..games import LogEntry
    from ..games.skipper import Skipper

    rng = random.Random(seed)
    seats: set[int | None] = {0, 1, 2, 3}
    game = Skipper({"mode": "multi", "seed": rng.randrange(1 << 30)}, 4)
    cpu = 0.0
    for _ in range(actions):
        if game.over:
            game = Skipper({"mode": "multi", "seed": rng.randrange(1 << 30)}, 4)
        seat = game.to_act()[0]
        action = rng.choice([a for a in game.legal_actions(seat) if a[0] != "resign"])
        c0 = time.process_time()
        game.apply_entry(LogEntry.act(seat, list(action)))
        game.deltas(seats)
        cpu += time.process_time() - c0
    return cpu


def measure(actions: int = 3000, rooms: int = 10, seed: int = 1,
            turn_seconds: float | None = None) -> dict[str, Any]:
    """This process's build, step by step (``turn_seconds``: the rooms' turn clock, None
    for none, the default): ``{"build": "compiled" | "pure", "whole_us",
    "engine_alone_us", "timer_us", "steps": {label: µs per action}, "calls": {label: timed
    calls in all}, "rest_us"}`` (µs of CPU per action; see the module docstring).

    A compiled room's steps are not timed (see the module docstring): ``"steps"`` is empty
    and ``"rest_us"`` None.

    Raises:
        ValueError: ``actions`` or ``rooms`` is below 1.
    """
    from ..server import build
    from ..server.room import COMPILED

    if actions < 1 or rooms < 1:
        raise ValueError("actions and rooms must be at least 1")
    asyncio.run(_play(min(actions, 300), rooms, seed + 1, None, turn_seconds))  # warm up
    whole = asyncio.run(_play(actions, rooms, seed, None, turn_seconds)) / actions
    alone = engine_alone(actions, seed) / actions * 1e6
    if COMPILED:
        return {"build": build.kind(), "actions": actions, "rooms": rooms,
                "whole_us": whole * 1e6, "engine_alone_us": alone, "timer_us": None,
                "steps": {}, "calls": {}, "rest_us": None}
    clock = Clock()
    asyncio.run(_play(actions, rooms, seed, clock, turn_seconds))
    cost = timer_cost()
    us = step_figures(clock, cost, actions)
    return {"build": build.kind(), "actions": actions, "rooms": rooms,
            "whole_us": whole * 1e6, "engine_alone_us": alone, "timer_us": cost * 1e6,
            "steps": us, "calls": {label: sum(clock.calls[n] for n in names)
                                   for label, names in STEPS},
            "rest_us": whole * 1e6 - sum(us.values())}


def step_figures(clock: Clock, cost: float, actions: int) -> dict[str, float]:
    """``{label of STEPS: µs of CPU per action}`` from a timed run's ``clock`` over
    ``actions`` actions, each step's own time less ``cost`` (s, the timer's cost per call,
    :func:`timer_cost`) per timed call; the fan-out less the calls made inside it. A step
    cheaper than the timer's noise would come out below zero after the timer's cost is
    taken off: it reads 0.0, as CPU time cannot be negative (CI once printed ``-0.1`` for
    the metrics step)."""
    def own(names: tuple[str, ...]) -> float:
        return sum(clock.seconds[n] - cost * clock.calls[n] for n in names) / actions

    steps = {label: own(names) for label, names in STEPS}
    fanout = "fan-out (frames, less the above)"
    steps[fanout] -= steps["table()"] + steps["engine: deltas and views"] + cost * (
        sum(clock.calls[n] for n in ("table.facts", "game.deltas", "game.views")) / actions)
    return {k: max(0.0, v) * 1e6 for k, v in steps.items()}


def side_by_side(paths: dict[str, Path | None], rounds: int, actions: int, rooms: int = 10,
                 seed: int = 1, turn_seconds: float | None = None
                 ) -> dict[str, list[dict[str, Any]]]:
    """:func:`measure` in a child process per build of ``paths`` (``{"pure": PYTHONPATH
    entry or None for this interpreter's own package, "compiled": ...}``), by turns for
    ``rounds`` rounds: each build's results.

    Raises:
        subprocess.CalledProcessError: a child failed; subprocess.TimeoutExpired: it took
            over 10 minutes.
    """
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in paths}
    for _ in range(rounds):
        for kind, path in paths.items():
            env = dict(os.environ)
            if path is not None:
                env["PYTHONPATH"] = str(path)
            done = subprocess.run(
                [sys.executable, "-m", "cardhall.bench.steps", "--json", "--actions",
                 str(actions), "--rooms", str(rooms), "--seed", str(seed),
                 *([] if turn_seconds is None else ["--turn-seconds", str(turn_seconds)])],
                env=env, capture_output=True, text=True, check=True, timeout=600)
            runs[kind].append(json.loads(done.stdout))
    return runs


def rows(run: dict[str, Any]) -> dict[str, float | None]:
    """``{figure: µs per action}`` of one :func:`measure` result, in print order (None: not
    measured, a compiled room's steps)."""
    steps = run["steps"] or dict.fromkeys(label for label, _ in STEPS)
    return {"whole action (room.play, memory store), CPU": run["whole_us"],
            **{f"  {k}": v for k, v in steps.items()},
            "  the rest (checks, lock, decode, ok)": run["rest_us"],
            "engine alone, no room (apply + deltas)": run["engine_alone_us"]}


def render(runs: dict[str, list[dict[str, Any]]]) -> str:
    """The Markdown table of :func:`side_by_side`: each figure's median over rounds per
    build (µs of CPU per action) and the median of the per-round ratios of the second to
    the first; each column named by the build its runs reported (``build.kind()``)."""
    kinds = list(runs)
    names = ["/".join(sorted({r["build"] for r in runs[k]})) for k in kinds]  # as they ran
    head = [*names, *([f"{names[1]} / {names[0]}"] if len(kinds) == 2 else [])]
    lines = ["| figure (CPU per action) | unit | " + " | ".join(head) + " |",
             "|---|---|" + "---:|" * (len(kinds) + (len(kinds) == 2))]
    for name in rows(runs[kinds[0]][0]):
        values = {k: [v for r in runs[k] if (v := rows(r)[name]) is not None] for k in kinds}
        cells = [f"{statistics.median(values[k]):,.1f}" if values[k] else "-" for k in kinds]
        if len(kinds) == 2:
            ratios = [b / a for a, b in zip(values[kinds[0]], values[kinds[1]]) if a > 0]
            cells.append(f"{statistics.median(ratios):.2f}x" if ratios else "-")
        lines.append(f"| {name} | us | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """``python -m cardhall.bench.steps [--json] [--actions N] [--rooms R] [--seed S]``: this
    build's steps (the package first on ``PYTHONPATH``); ``--builds [--rounds N]``: both
    builds by turns (:func:`side_by_side`), the table or (``--json``) every run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--rooms", type=int, default=10, help="rooms taking turns")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turn-seconds", type=float, default=None,
                        help="the rooms' turn clock (default: none, as the bench's rooms)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--builds", action="store_true", help="both builds, by turns")
    parser.add_argument("--rounds", type=int, default=3, help="with --builds: rounds")
    args = parser.parse_args(argv)
    if args.builds:
        import tempfile

        from . import builds

        with tempfile.TemporaryDirectory(prefix="cardhall-steps-") as tmp:
            runs = side_by_side(builds.both(Path(tmp)), args.rounds, args.actions,
                                args.rooms, args.seed, args.turn_seconds)
        print(json.dumps(runs) if args.json else render(runs))
        return
    run = measure(args.actions, args.rooms, args.seed, args.turn_seconds)
    if args.json:
        print(json.dumps(run))
        return
    print(render({run["build"]: [run]}))


if __name__ == "__main__":
    main()
