"""Cardhall against Colyseus and against its own protocol floor, in one run, driven by the
peers' load generator (``cardhall bench --peers DIR``, ``python benchmarks/peers.py``).

Runs ``loadgen.js`` of the peers harness (``../shared/peers``: the client that measures
Cardhall against Colyseus and boardgame.io) against, by turns: ``cardhall serve`` (this
installation), the harness's Colyseus server (``colyseus_server.js --patch immediate``, as
its ``colyseus`` config) and :mod:`cardhall.bench.floor` (Cardhall's protocol with no game,
store or rooms: what Python, uvloop, websockets, msgpack and the kernel cost per action
before any game runs). Each server is fresh, pinned to CPU 0 with the generator on CPU 1, as
the harness does. :func:`compare` returns every run; :func:`render` the medians over rounds
and the median of the per-round ratios to Cardhall: server CPU per action in the closed loop
(µs) and its inverse, paced round trip p50/p99 (µs), median update frame (B), frames per
action.

Needs Node 20+ and the harness's Node packages (``bash ../shared/peers/setup.sh . DIR``
installs them under ``DIR/node``). Bounded: every generator run has ``--max-seconds`` and a
subprocess timeout; servers get SIGTERM, then SIGKILL.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .procs import Child, free_port, serve_command
from . import builds
from .versions import export

#: The servers :func:`compare` can run: Cardhall, the harness's Colyseus, the floor, the
#: floor on Cardhall's socket driver (``-sync``: frames handled in the callback that read
#: them, as Cardhall does with the in-memory and SQLite stores), and the floor playing real
#: Skipper games with no room around them
#: (``--game skipper``; :mod:`cardhall.bench.floor`); ``cardhall-compiled`` and
#: ``cardhall-pure`` are this checkout's server in each build (:mod:`cardhall.bench.builds`),
#: whichever build is installed; a floor kind with ``+compiled`` (``floor-skipper-sync+compiled``)
#: runs on the compiled build too.
SERVERS = ("cardhall", "colyseus", "floor", "floor-sync", "floor-skipper", "floor-skipper-sync",
           "cardhall-compiled", "cardhall-pure")
#: The kinds of :data:`SERVERS` that run Cardhall's own server (and ``cardhall@VERSION``).
CARDHALLS = ("cardhall", "cardhall-compiled", "cardhall-pure")
#: (name, unit, loadgen phase, loadgen key; None: actions per server CPU-second)
FIGURES = (("server CPU per action, closed loop", "us", "throughput", "server_cpu_us_per_action"),
           ("actions per server CPU-second, closed loop", "1/s", "throughput", None),
           ("round trip p50, paced", "us", "latency", "rtt_p50_us"),
           ("round trip p99, paced", "us", "latency", "rtt_p99_us"),
           ("server CPU per action, paced", "us", "latency", "server_cpu_us_per_action"),
           ("update frame bytes, median", "B", "throughput", "update_bytes_p50"),
           ("frames received per action", "", "throughput", "frames_per_action"))


@dataclass
class PeersConfig:
    """What :func:`compare` runs.

    Attributes:
        peers: The peers harness folder (``loadgen.js``, ``colyseus_server.js``).
        node_modules: The folder holding the harness's ``node_modules``.
        servers: Server kinds by turns each round (:data:`SERVERS`), a Cardhall first (the
            reference of the ratios: ``cardhall``, ``cardhall-compiled``...);
            ``cardhall@VERSION`` is another version of Cardhall's server (a git revision,
            or a checkout's folder: :func:`~cardhall.bench.versions.export`).
        rounds: Rounds (each runs every server once).
        rooms: Four-seat tables of the generator.
        rate: Actions per second over all tables in the paced phase.
        seconds: Measured seconds of each phase (after 2 s of warm-up).
        pin: Server on CPU 0, generator on CPU 1 (``taskset``).
        throughput_seconds: Measured seconds of the closed loop (None: ``seconds``).
        prewarm: Seconds of closed loop before the paced phase (the generator's 2 s).
        think_seed: None: ``loadgen.js`` as it is (each table paced on a fixed interval);
            else the seed of the think times of :data:`THINK_JS` (every phase paced by
            think times of :data:`THINK_RANGE` seconds; ``rate`` ignored).
    """

    peers: Path
    node_modules: Path
    servers: tuple[str, ...] = ("cardhall", "colyseus", "floor")
    rounds: int = 3
    rooms: int = 100
    rate: int = 200
    seconds: int = 8
    pin: bool = True
    throughput_seconds: int | None = None
    prewarm: int = 2
    think_seed: int | None = None

    def check(self) -> None:
        """Raises:
            ValueError: a folder lacks what is needed, ``taskset`` is missing while pinning,
                or ``servers`` is not ``cardhall`` then known kinds.
        """
        if not (self.peers / "loadgen.js").exists():
            raise ValueError(f"no loadgen.js in {self.peers} (the peers harness folder)")
        if not (self.node_modules / "node_modules").is_dir():
            raise ValueError(f"no node_modules in {self.node_modules}: run the harness's "
                             "setup.sh")
        if shutil.which("node") is None:
            raise ValueError("node is not installed")
        if self.pin and shutil.which("taskset") is None:
            raise ValueError("taskset is missing (or do not pin)")
        if not self.servers or not is_cardhall(self.servers[0]) or not all(
                k.removesuffix("+compiled") in SERVERS or k.startswith("cardhall@")
                for k in self.servers):
            raise ValueError(f"servers: a cardhall first, then any of {', '.join(SERVERS)} "
                             "or cardhall@VERSION")


def is_cardhall(kind: str) -> bool:
    """Whether server ``kind`` is Cardhall's own server (any build or version)."""
    return kind in CARDHALLS or kind.startswith("cardhall@")


def server_command(kind: str, port: int, peers: Path, package: Path | None = None
                   ) -> tuple[list[str], str, str]:
    """The command line of server ``kind`` (:data:`SERVERS`) on ``port``, its URL and the
    generator's ``--kind`` (``package``: where a ``cardhall@VERSION``'s package is, see
    :func:`~.procs.serve_command`)."""
    if kind == "colyseus":
        return (["node", str(peers / "colyseus_server.js"), "--port", str(port),
                 "--patch", "immediate"], f"http://127.0.0.1:{port}", "colyseus")
    url = f"ws://127.0.0.1:{port}/"
    if kind.startswith("floor"):
        return ([sys.executable, "-m", "cardhall.bench.floor", "--port", str(port),
                 *(["--sync"] if kind.endswith("-sync") else []),
                 *(["--game", "skipper"] if kind.startswith("floor-skipper") else [])],
                url, "cardhall")
    return (serve_command(port, "--store", "memory", "--msg-rate", "0",
                          "--max-connections-per-address", "0", "--rooms-per-minute", "0",
                          "--rooms-per-minute-per-address", "0", "--log-level", "WARNING",
                          package=package), url, "cardhall")


def run_one(kind: str, cfg: PeersConfig, pythonpath: Path | None = None) -> dict[str, Any]:
    """One fresh server of ``kind`` under one ``loadgen.js --mode play`` run: its JSON.
    ``pythonpath``: where the server's ``cardhall`` package is (``cardhall@VERSION``).

    Raises:
        RuntimeError: the generator failed, or the server did not listen (see
            :class:`~cardhall.bench.procs.Child`).
    """
    port = free_port()
    argv, url, gen_kind = server_command(
        "cardhall" if is_cardhall(kind) else kind.removesuffix("+compiled"), port, cfg.peers,
        pythonpath)
    env = dict(os.environ, NODE_PATH=str(cfg.node_modules / "node_modules"))
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    think: list[str] = []  # human pace: loadgen.js run by think.js, with these options
    if cfg.think_seed is not None:
        think = ["--think-seed", str(cfg.think_seed), "--think-min", str(THINK_RANGE[0]),
                 "--think-max", str(THINK_RANGE[1]), "--warmup", str(THINK_RANGE[1])]
    server = Child(kind, argv, port, None, {0} if cfg.pin else None, env)
    try:
        done = subprocess.run(
            [*(["taskset", "-c", "1"] if cfg.pin else []), "node",
             *([str(THINK_JS)] if think else []), str(cfg.peers / "loadgen.js"), *think,
             "--kind", gen_kind, "--url", url,
             "--server-pid", str(server.pid), "--mode", "play", "--rooms", str(cfg.rooms),
             "--rate", str(cfg.rate), "--latency-seconds", str(cfg.seconds),
             "--throughput-seconds", str(cfg.seconds if cfg.throughput_seconds is None
                                         else cfg.throughput_seconds),
             "--prewarm", str(cfg.prewarm), "--max-seconds", "240"],
            cwd=cfg.node_modules, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"loadgen against {kind} failed: {done.stderr[-2000:]}")
        return dict(json.loads(done.stdout))
    finally:
        server.stop()


def server_paths(servers: tuple[str, ...], tmp: Path) -> dict[str, Path]:
    """The ``PYTHONPATH`` entry of each server of ``servers`` that is not the installed
    Cardhall: ``cardhall@VERSION`` exported into ``tmp``, ``cardhall-pure`` the sources
    exported, ``cardhall-compiled`` and ``+compiled`` floors the compiled build
    (:mod:`cardhall.bench.builds`).

    Raises:
        RuntimeError: the compiled build cannot be made (see :func:`builds.compiled`).
        subprocess.CalledProcessError: git does not know a version.
    """
    paths = {k: export(k.partition("@")[2], tmp / str(i))
             for i, k in enumerate(servers) if k.startswith("cardhall@")}
    if any(k == "cardhall-compiled" or k.endswith("+compiled") for k in servers):
        compiled = builds.compiled()
        paths.update({k: compiled for k in servers
                      if k == "cardhall-compiled" or k.endswith("+compiled")})
    if "cardhall-pure" in servers:
        paths["cardhall-pure"] = builds.pure(tmp / "pure")
    return paths


def compare(cfg: PeersConfig, progress: Callable[[str], None] | None = None
            ) -> dict[str, list[dict[str, Any]]]:
    """Run ``cfg.rounds`` rounds of every server by turns; returns each server's runs (the
    generator's JSON objects), by server kind.

    Raises:
        ValueError: see :meth:`PeersConfig.check`; RuntimeError, TimeoutError: a run failed.
        subprocess.CalledProcessError: git does not know the revision of a
            ``cardhall@VERSION``.
    """
    cfg.check()
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in cfg.servers}
    with tempfile.TemporaryDirectory(prefix="cardhall-peers-") as tmp:
        paths = server_paths(cfg.servers, Path(tmp))
        for r in range(cfg.rounds):
            for kind in cfg.servers:
                res = run_one(kind, cfg, paths.get(kind))
                runs[kind].append(res)
                if progress is not None:
                    progress(f"peers round {r + 1}/{cfg.rounds} {kind}: CPU/action "
                             f"{res['throughput']['server_cpu_us_per_action']:.1f} us, "
                             f"rtt p50 {res['latency']['rtt_p50_us']:.0f} us")
    return runs


def figure(result: dict[str, Any], phase: str, key: str | None) -> float:
    """One figure of a generator result (``key`` None: actions per server CPU-second)."""
    if key is None:
        return 1e6 / float(result["throughput"]["server_cpu_us_per_action"])
    return float(result[phase][key])


def render(runs: dict[str, list[dict[str, Any]]], base: str | None = None) -> str:
    """The Markdown table of :func:`compare`'s runs: each figure's median over rounds per
    server, then each other server's ratio to ``base`` (a kind of ``runs``; default the
    first), the median of the per-round ratios.

    Raises:
        KeyError: ``base`` is not a kind of ``runs``.
    """
    base = base or next(iter(runs))
    kinds = [base, *(k for k in runs if k != base)]
    others = kinds[1:]
    lines = ["| figure | unit | " + " | ".join(kinds) + " | "
             + " | ".join(f"{k} / {base}" for k in others) + " |",
             "|---|---|" + "---:|" * (len(kinds) + len(others))]
    for name, unit, phase, key in FIGURES:
        own = [figure(x, phase, key) for x in runs[base]]
        cells = [f"{statistics.median(own):,.1f}"]
        ratios = []
        for k in others:
            theirs = [figure(x, phase, key) for x in runs[k]]
            cells.append(f"{statistics.median(theirs):,.1f}")
            ratios.append(f"{statistics.median(y / x for x, y in zip(own, theirs) if x):.2f}x")
        lines.append(f"| {name} | {unit} | " + " | ".join(cells + ratios) + " |")
    return "\n".join(lines)


# -- capacity at human pace (issue #34) -------------------------------------------------------

#: Think times at human pace, s: a seat whose turn it is waits a time drawn uniformly from
#: this range, then acts (:data:`THINK_JS`; one seat of a Skipper table acts at a time, so a
#: table acts once per think time plus a round trip).
THINK_RANGE = (1.0, 4.0)
#: Seconds between two actions of one table at human pace, on average.
THINK_SECONDS = sum(THINK_RANGE) / 2
#: The generator of human pace: ``loadgen.js`` with its pacing replaced by seeded random
#: think times (see the script's head).
THINK_JS = Path(__file__).resolve().parent / "think.js"
#: A server keeps up while its action round trip p99 stays within this (µs)...
CAPACITY_P99_US = 100_000.0
#: ...and its CPU share stays under one core. Pinned to one CPU it cannot pass 1.0; this
#: margin counts a server at 95% of its core as full.
CAPACITY_CPU_SHARE = 0.95


def capacity(cfg: PeersConfig, players: tuple[int, ...],
             progress: Callable[[str], None] | None = None,
             seed: int = 1, retries: int = 1) -> dict[str, list[dict[str, Any]]]:
    """Capacity at human pace: for each server of ``cfg.servers`` by turns, ``players`` (in
    rising order) seated at four-seat tables, the seat to act thinking a random time of
    :data:`THINK_RANGE` seconds (from ``seed``: :data:`THINK_JS`) before each action, so a
    table acts about once per :data:`THINK_SECONDS`; after 4 s of warm-up, ``cfg.seconds``
    measured (:func:`capacity_step`). A step that breaks :data:`CAPACITY_P99_US` or
    :data:`CAPACITY_CPU_SHARE` is run again, up to ``retries`` times (on a shared machine
    one stall of the server by another process passes a p99 of 100 ms); a server leaves the
    run at its first step with no try kept up with. Returns each server's tries, in order
    (see :func:`capacity_step`; ``try``: 0 for a step's first).

    Raises:
        ValueError: see :meth:`PeersConfig.check`; RuntimeError, TimeoutError: a run failed.
    """
    from .procs import raise_fd_limit

    cfg.check()
    raise_fd_limit(16 + 2 * max(players))  # the generator's sockets (inherited)
    steps: dict[str, list[dict[str, Any]]] = {k: [] for k in cfg.servers}
    out: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="cardhall-capacity-") as tmp:
        paths = server_paths(cfg.servers, Path(tmp))
        for n in players:
            for kind in [k for k in cfg.servers if k not in out]:
                for attempt in range(1 + retries):
                    step = capacity_step(kind, n, cfg, seed, paths.get(kind))
                    step["try"] = attempt
                    steps[kind].append(step)
                    if progress is not None:
                        progress(f"capacity {kind} {step['players']} players"
                                 f"{f' (try {attempt + 1})' if attempt else ''}: "
                                 f"{step['actions_per_s']:.0f} act/s, CPU "
                                 f"{step['cpu_share']:.2f} ({step['cpu_us_per_action'] or 0:.0f}"
                                 f" us/action), p50 {step['p50_us'] or 0:.0f} us, p99 "
                                 f"{step['p99_us'] or 0:.0f} us, RSS "
                                 f"{step['rss_bytes'] / 2**20:.0f} MiB, generator CPU "
                                 f"{step['loadgen_cpu_share'] or 0:.2f}, others' CPU "
                                 f"{step['others_cpu_share'] or 0:.2f}"
                                 f"{'' if step['ok'] else ' (over)'}")
                    if step["ok"]:
                        break
                else:
                    out.add(kind)
    return steps


def capacity_step(kind: str, players: int, cfg: PeersConfig, seed: int,
                  path: Path | None) -> dict[str, Any]:
    """One step of :func:`capacity`: a fresh server of ``kind`` (``path``: its
    ``PYTHONPATH`` entry, :func:`server_paths`) under ``players`` players at human pace.
    Returns ``players``, ``tables``, ``rate`` (the actions/s expected), ``actions_per_s``,
    ``cpu_share`` (of a core), ``cpu_us_per_action``, ``p50_us``, ``p99_us``, ``rss_bytes``
    (after playing), ``loadgen_cpu_share``, ``others_cpu_share`` (every other process's CPU
    in the window, in cores: how contended the machine was), ``errors`` and ``ok`` (p99
    within :data:`CAPACITY_P99_US`, CPU share under :data:`CAPACITY_CPU_SHARE`, no error,
    at least 90% of the expected actions).

    Raises:
        RuntimeError, TimeoutError: the run failed (see :func:`run_one`).
    """
    tables = max(1, players // 4)
    rate = max(1, round(tables / THINK_SECONDS))
    step_cfg = PeersConfig(peers=cfg.peers, node_modules=cfg.node_modules,
                           servers=cfg.servers, rounds=1, rooms=tables, rate=rate,
                           seconds=cfg.seconds, pin=cfg.pin, throughput_seconds=0, prewarm=0,
                           think_seed=seed)
    res = run_one(kind, step_cfg, path)
    lat = res["latency"]
    step = {"players": 4 * tables, "tables": tables, "rate": rate,
            "actions_per_s": lat["actions_per_s"], "cpu_share": lat["server_cpu_share"],
            "cpu_us_per_action": lat["server_cpu_us_per_action"],
            "p50_us": lat["rtt_p50_us"], "p99_us": lat["rtt_p99_us"],
            "rss_bytes": res["rss_playing"], "loadgen_cpu_share": lat.get("loadgen_cpu_share"),
            "others_cpu_share": lat.get("others_cpu_share"), "errors": res.get("errors", [])}
    step["ok"] = bool(
        step["p99_us"] is not None and step["p99_us"] <= CAPACITY_P99_US
        and step["cpu_share"] < CAPACITY_CPU_SHARE and not step["errors"]
        and lat["actions_per_s"] >= 0.9 * rate)
    return step


def render_capacity(steps: dict[str, list[dict[str, Any]]]) -> str:
    """The Markdown tables of :func:`capacity`: every try (players, actions/s, CPU share and
    CPU per action, p50/p99, RSS, the CPU of every other process on the machine, in cores;
    a step run again is marked so), then per server the largest number of players it kept
    up with and the players one core would hold at that pace (players / CPU share there: a
    linear projection, for steps the open-file limit keeps below a full core), with the
    ratio of each to the first server's."""
    lines = ["| server | players | actions/s | CPU share | CPU/action (us) | p50 (us) | "
             "p99 (us) | RSS (MiB) | others' CPU | kept up |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for kind, runs in steps.items():
        for s in runs:
            again = " (again)" if s.get("try") else ""
            lines.append(f"| {kind} | {s['players']:,}{again} | {s['actions_per_s']:,.0f} | "
                         f"{s['cpu_share']:.2f} | {s['cpu_us_per_action'] or 0:,.0f} | "
                         f"{s['p50_us'] or 0:,.0f} | {s['p99_us'] or 0:,.0f} | "
                         f"{s['rss_bytes'] / 2**20:,.0f} | "
                         f"{s.get('others_cpu_share') or 0:.2f} | "
                         f"{'yes' if s['ok'] else 'NO'} |")
    best = {k: max((s for s in v if s["ok"]), key=lambda s: s["players"], default=None)
            for k, v in steps.items()}
    first = best[next(iter(steps))]
    lines += ["", "| server | players kept up with | players per core (projected) | "
              "RSS per player (KiB) | capacity / first | per core / first |",
              "|---|---:|---:|---:|---:|---:|"]
    for kind, top in best.items():
        if top is None:
            lines.append(f"| {kind} | below the first step | | | | |")
            continue
        per_core = top["players"] / max(top["cpu_share"], 1e-3)
        ratios = ("", "")
        if first is not None:
            ratios = (f"{top['players'] / first['players']:.2f}x",
                      f"{per_core / (first['players'] / max(first['cpu_share'], 1e-3)):.2f}x")
        lines.append(f"| {kind} | {top['players']:,} | {per_core:,.0f} | "
                     f"{top['rss_bytes'] / top['players'] / 1024:,.1f} | {ratios[0]} | "
                     f"{ratios[1]} |")
    return "\n".join(lines)
