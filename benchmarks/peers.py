"""Cardhall against Colyseus and against its own protocol floor, in one run, driven by the
peers' load generator.

Runs ``loadgen.js`` of the peers harness (``../shared/peers``: the client that measures
Cardhall against Colyseus and boardgame.io) against, by turns: ``cardhall serve`` (this
checkout), the peers' Colyseus server (``colyseus_server.js --patch immediate``, as the
harness's ``colyseus`` config) and ``benchmarks/floor_server.py`` (Cardhall's protocol with
no game, store or rooms: what Python, uvloop, websockets, msgpack and the kernel cost per
action before any game runs). Each server is fresh, pinned to CPU 0 with the generator on
CPU 1, as the harness does. Prints per round, then medians and the median of the per-round
ratios to Cardhall: server CPU per action in the closed loop (µs) and its inverse, paced
round trip p50/p99 (µs), median update frame (B), frames per action.

    python benchmarks/peers.py --rounds 3
    python benchmarks/peers.py --servers cardhall,floor --peers ../shared/peers

Needs Node 20+ and the harness's Node packages: ``bash ../shared/peers/setup.sh . DIR``
installs them under ``DIR/node`` (``--node-modules``; default ``$PEERS_PREFIX/node``, else
``/tmp/peers/node``). Bounded: every generator run has ``--max-seconds``; servers get
SIGTERM, then SIGKILL.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = (("server CPU per action, closed loop", "us", "throughput", "server_cpu_us_per_action"),
           ("actions per server CPU-second, closed loop", "1/s", "throughput", None),
           ("round trip p50, paced", "us", "latency", "rtt_p50_us"),
           ("round trip p99, paced", "us", "latency", "rtt_p99_us"),
           ("server CPU per action, paced", "us", "latency", "server_cpu_us_per_action"),
           ("update frame bytes, median", "B", "throughput", "update_bytes_p50"),
           ("frames received per action", "", "throughput", "frames_per_action"))


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 15.0) -> None:
    """Wait until 127.0.0.1:``port`` accepts connections.

    Raises:
        TimeoutError: it did not within ``timeout`` seconds.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


def server_command(kind: str, port: int, peers: str) -> tuple[list[str], str, str]:
    """The command line of server ``kind`` (``cardhall``, ``floor`` or ``colyseus``) on
    ``port``, its URL and the generator's ``--kind``."""
    if kind == "colyseus":
        return (["node", str(Path(peers) / "colyseus_server.js"), "--port", str(port),
                 "--patch", "immediate"], f"http://127.0.0.1:{port}", "colyseus")
    url = f"ws://127.0.0.1:{port}/"
    if kind in ("floor", "floor-sync"):
        return ([sys.executable, str(ROOT / "benchmarks" / "floor_server.py"), "--port",
                 str(port), *(["--sync"] if kind == "floor-sync" else [])], url, "cardhall")
    return ([sys.executable, "-m", "cardhall.server.cli", "serve", "--port", str(port),
             "--msg-rate", "0", "--max-connections-per-address", "0", "--rooms-per-minute", "0",
             "--log-level", "WARNING"], url, "cardhall")


def run_one(kind: str, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """One fresh server of ``kind`` under one ``loadgen.js --mode play`` run: its JSON."""
    port = free_port()
    pin = ["taskset", "-c", "0"] if args.pin else []
    argv, url, gen_kind = server_command(kind, port, args.peers)
    env = dict(os.environ, NODE_PATH=str(Path(args.node_modules) / "node_modules"))
    server = subprocess.Popen([*pin, *argv], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env, cwd=args.node_modules)
    try:
        wait_port(port)
        gen = ["taskset", "-c", "1"] if args.pin else []
        done = subprocess.run(
            [*gen, "node", str(Path(args.peers) / "loadgen.js"), "--kind", gen_kind,
             "--url", url, "--server-pid", str(server.pid),
             "--mode", "play", "--rooms", str(args.rooms), "--rate", str(args.rate),
             "--latency-seconds", str(args.seconds), "--throughput-seconds", str(args.seconds),
             "--max-seconds", "120"],
            cwd=args.node_modules, env=env, capture_output=True, text=True, timeout=180)
        if done.returncode != 0:
            raise RuntimeError(f"loadgen against {kind} failed: {done.stderr[-2000:]}")
        return json.loads(done.stdout)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def figure(result: dict[str, dict[str, float]], phase: str, key: str | None) -> float:
    """One figure of a loadgen result (``key`` None: actions per server CPU-second)."""
    if key is None:
        return 1e6 / result["throughput"]["server_cpu_us_per_action"]
    return float(result[phase][key])


def main() -> None:
    """Command line: rounds of cardhall and floor by turns, then the table."""
    prefix = os.environ.get("PEERS_PREFIX", "/tmp/peers")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peers", default=str(ROOT.parent / "shared" / "peers"),
                        help="the peers harness folder (loadgen.js)")
    parser.add_argument("--node-modules", default=str(Path(prefix) / "node"),
                        help="the folder holding the harness's node_modules")
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--rate", type=int, default=200, help="paced actions/s")
    parser.add_argument("--seconds", type=int, default=8, help="measured s per phase")
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--servers", default="cardhall,colyseus,floor",
                        help="comma-separated, by turns each round: cardhall, then any of "
                        "colyseus, floor, floor-sync (the floor reading frames in the "
                        "protocol callback)")
    args = parser.parse_args()
    if not (Path(args.peers) / "loadgen.js").exists():
        parser.error(f"no loadgen.js in {args.peers} (--peers)")
    if not (Path(args.node_modules) / "node_modules").is_dir():
        parser.error(f"no node_modules in {args.node_modules}: run the harness's setup.sh")
    if args.pin and shutil.which("taskset") is None:
        parser.error("taskset is missing (or pass --no-pin)")
    kinds = args.servers.split(",")
    if kinds[0] != "cardhall" or not set(kinds) <= {"cardhall", "colyseus", "floor",
                                                     "floor-sync"}:
        parser.error("--servers: cardhall first, then any of colyseus, floor, floor-sync")
    runs: dict[str, list[dict[str, dict[str, float]]]] = {k: [] for k in kinds}
    for r in range(args.rounds):
        for kind in runs:
            res = run_one(kind, args)
            runs[kind].append(res)
            print(f".. round {r + 1}/{args.rounds} {kind}: CPU/action "
                  f"{res['throughput']['server_cpu_us_per_action']:.1f} us, rtt p50 "
                  f"{res['latency']['rtt_p50_us']:.0f} us", flush=True)
    others = kinds[1:]
    print("\n| figure | unit | " + " | ".join(kinds) + " | "
          + " | ".join(f"{k} / cardhall" for k in others) + " |")
    print("|---|---|" + "---:|" * (len(kinds) + len(others)))
    for name, unit, phase, key in FIGURES:
        own = [figure(x, phase, key) for x in runs["cardhall"]]
        cells = [f"{statistics.median(own):,.1f}"]
        ratios = []
        for k in others:
            theirs = [figure(x, phase, key) for x in runs[k]]
            cells.append(f"{statistics.median(theirs):,.1f}")
            ratios.append(f"{statistics.median(y / x for x, y in zip(own, theirs) if x):.2f}x")
        print(f"| {name} | {unit} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
