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
from .versions import export

#: The servers :func:`compare` can run: Cardhall, the harness's Colyseus, the floor, the
#: floor reading frames in websockets' protocol callback (``-sync``, as Cardhall does with
#: the in-memory store), and the floor playing real Skipper games with no room around them
#: (``--game skipper``; :mod:`cardhall.bench.floor`).
SERVERS = ("cardhall", "colyseus", "floor", "floor-sync", "floor-skipper", "floor-skipper-sync")
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
        servers: Server kinds by turns each round (:data:`SERVERS`), ``cardhall`` first;
            ``cardhall@VERSION`` is another version of Cardhall's server (a git revision,
            or a checkout's folder: :func:`~cardhall.bench.versions.export`).
        rounds: Rounds (each runs every server once).
        rooms: Four-seat tables of the generator.
        rate: Actions per second over all tables in the paced phase.
        seconds: Measured seconds of each phase (after 2 s of warm-up).
        pin: Server on CPU 0, generator on CPU 1 (``taskset``).
    """

    peers: Path
    node_modules: Path
    servers: tuple[str, ...] = ("cardhall", "colyseus", "floor")
    rounds: int = 3
    rooms: int = 100
    rate: int = 200
    seconds: int = 8
    pin: bool = True

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
        if not self.servers or self.servers[0] != "cardhall" or not all(
                k in SERVERS or k.startswith("cardhall@") for k in self.servers):
            raise ValueError(f"servers: cardhall first, then any of {', '.join(SERVERS[1:])} "
                             "or cardhall@VERSION")


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
    return (serve_command(port, "--msg-rate", "0", "--max-connections-per-address", "0",
                          "--rooms-per-minute", "0", "--log-level", "WARNING",
                          package=package), url, "cardhall")


def run_one(kind: str, cfg: PeersConfig, pythonpath: Path | None = None) -> dict[str, Any]:
    """One fresh server of ``kind`` under one ``loadgen.js --mode play`` run: its JSON.
    ``pythonpath``: where the server's ``cardhall`` package is (``cardhall@VERSION``).

    Raises:
        RuntimeError: the generator failed, or the server did not listen (see
            :class:`~cardhall.bench.procs.Child`).
    """
    port = free_port()
    argv, url, gen_kind = server_command(kind.partition("@")[0], port, cfg.peers, pythonpath)
    env = dict(os.environ, NODE_PATH=str(cfg.node_modules / "node_modules"))
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    server = Child(kind, argv, port, None, {0} if cfg.pin else None, env)
    try:
        done = subprocess.run(
            [*(["taskset", "-c", "1"] if cfg.pin else []), "node",
             str(cfg.peers / "loadgen.js"), "--kind", gen_kind, "--url", url,
             "--server-pid", str(server.pid), "--mode", "play", "--rooms", str(cfg.rooms),
             "--rate", str(cfg.rate), "--latency-seconds", str(cfg.seconds),
             "--throughput-seconds", str(cfg.seconds), "--max-seconds", "120"],
            cwd=cfg.node_modules, env=env, capture_output=True, text=True, timeout=180)
        if done.returncode != 0:
            raise RuntimeError(f"loadgen against {kind} failed: {done.stderr[-2000:]}")
        return dict(json.loads(done.stdout))
    finally:
        server.stop()


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
        paths = {k: export(k.partition("@")[2], Path(tmp) / str(i))
                 for i, k in enumerate(cfg.servers) if k.startswith("cardhall@")}
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


def render(runs: dict[str, list[dict[str, Any]]]) -> str:
    """The Markdown table of :func:`compare`'s runs: each figure's median over rounds per
    server, then each other server's ratio to Cardhall (median of the per-round ratios)."""
    kinds = list(runs)
    others = kinds[1:]
    lines = ["| figure | unit | " + " | ".join(kinds) + " | "
             + " | ".join(f"{k} / cardhall" for k in others) + " |",
             "|---|---|" + "---:|" * (len(kinds) + len(others))]
    for name, unit, phase, key in FIGURES:
        own = [figure(x, phase, key) for x in runs["cardhall"]]
        cells = [f"{statistics.median(own):,.1f}"]
        ratios = []
        for k in others:
            theirs = [figure(x, phase, key) for x in runs[k]]
            cells.append(f"{statistics.median(theirs):,.1f}")
            ratios.append(f"{statistics.median(y / x for x, y in zip(own, theirs) if x):.2f}x")
        lines.append(f"| {name} | {unit} | " + " | ".join(cells + ratios) + " |")
    return "\n".join(lines)
