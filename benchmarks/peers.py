"""Cardhall, Colyseus and Cardhall's protocol floor by turns under the peers' load generator.

The work is :mod:`cardhall.bench.peers` (``cardhall bench --peers DIR`` runs it too); this
script is its command line:

    python benchmarks/peers.py --rounds 3
    python benchmarks/peers.py --servers cardhall,floor,floor-sync --rounds 5
    python benchmarks/peers.py --servers cardhall,colyseus,floor,floor-skipper --rounds 3
    python benchmarks/peers.py --servers cardhall,cardhall@HEAD~3,colyseus --rounds 5
    python benchmarks/peers.py --servers cardhall-compiled,cardhall-pure,colyseus --rounds 3
    python benchmarks/peers.py --servers cardhall-compiled,colyseus --capacity 2000,4000,8000

``--peers`` is the harness folder (default ``../shared/peers`` beside the checkout) and
``--node-modules`` the folder its ``setup.sh`` installed the Node packages into (default
``$PEERS_PREFIX/node``, else ``/tmp/peers/node``). ``cardhall-compiled`` and
``cardhall-pure`` run this checkout's server in each build (the compiled one is built
first, about two minutes, then kept under ``build/``); with several Cardhall servers, one
table is printed per Cardhall, its ratios taken against it.

``--capacity N1,N2,...``: capacity at human pace instead (:func:`cardhall.bench.peers.capacity`):
N players at four-seat tables, the seat to act thinking 1-4 s (uniform, seeded by
``--think-seed``: ``bench/think.js``) before each action, N rising, servers by turns; the
largest N each server keeps under one core with a round trip p99 <= 100 ms, with its RSS
there (a step missed is run again, ``--retries`` times: one stall by another process on a
shared machine passes 100 ms).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cardhall.bench.peers import (SERVERS, PeersConfig, capacity, compare, is_cardhall, render,
                                  render_capacity)

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    """Command line: rounds of the servers by turns, then the table."""
    prefix = os.environ.get("PEERS_PREFIX", "/tmp/peers")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peers", type=Path, default=ROOT.parent / "shared" / "peers",
                        help="the peers harness folder (loadgen.js)")
    parser.add_argument("--node-modules", type=Path, default=Path(prefix) / "node",
                        help="the folder holding the harness's node_modules")
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--rate", type=int, default=200, help="paced actions/s")
    parser.add_argument("--seconds", type=int, default=8, help="measured s per phase")
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--servers", default="cardhall,colyseus,floor",
                        help=f"comma-separated, by turns each round: a cardhall, then any of "
                        f"{', '.join(SERVERS)} (floor-sync: the floor reading frames in "
                        "websockets' protocol callback; floor-skipper: the floor playing "
                        "Skipper with the engine and no room), or cardhall@VERSION: another "
                        "version of this server (a git revision or a checkout's folder)")
    parser.add_argument("--capacity", metavar="N,N,...",
                        help="capacity at human pace at these numbers of players (rising)")
    parser.add_argument("--think-seed", type=int, default=1,
                        help="seed of the think times of --capacity (1)")
    parser.add_argument("--retries", type=int, default=1,
                        help="--capacity: runs again of a step a server did not keep up with")
    args = parser.parse_args()
    cfg = PeersConfig(peers=args.peers, node_modules=args.node_modules,
                      servers=tuple(args.servers.split(",")), rounds=args.rounds,
                      rooms=args.rooms, rate=args.rate, seconds=args.seconds, pin=args.pin)
    if args.capacity:
        try:
            players = tuple(sorted(int(n) for n in args.capacity.split(",")))
            steps = capacity(cfg, players, lambda m: print(f".. {m}", flush=True),
                             args.think_seed, args.retries)
        except ValueError as exc:
            parser.error(str(exc))
        except (RuntimeError, TimeoutError) as exc:
            sys.exit(f"Error: {exc}")
        print()
        print(render_capacity(steps))
        return
    try:
        runs = compare(cfg, lambda m: print(f".. {m}", flush=True))
    except ValueError as exc:
        parser.error(str(exc))
    except (RuntimeError, TimeoutError) as exc:
        sys.exit(f"Error: {exc}")
    for base in [k for k in runs if is_cardhall(k)]:
        print()
        print(render(runs, base))


if __name__ == "__main__":
    main()
