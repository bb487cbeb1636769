"""What counting one action costs the server: prometheus_client's children against the plain
attributes of :mod:`cardhall.server.metrics` (issue #43), in one run, on the build that runs it.

No server: each way is called in a tight loop, ``--number`` calls a round, ``--rounds``
rounds taken in turns (old, new, old, ...) so that both meet the same drift of the
machine's speed. The ways:

- accepted action with latency, old: what the room's ``observe_action`` did before, on
  prometheus_client children (a labelled ``Counter`` child's ``inc()`` and the
  ``Histogram``'s ``observe()``, :data:`~cardhall.server.metrics.LATENCY_BUCKETS`);
- accepted action with latency, new: :func:`cardhall.server.metrics.observe_action` on a
  bound :class:`~cardhall.server.metrics.GameMetrics` (a :class:`Tally`'s int and a
  :class:`LatencyHistogram`'s bucket found with ``bisect``);
- refused action, old and new: a ``Counter`` child's ``inc()`` against a ``Tally``'s;
- the loop itself: the accepted ways' loop calling a function that does nothing, for
  reference.

Latencies cycle through ``--values`` (default 1024) drawn from a log-uniform spread over
0.2 ms .. 20 ms (a closed loop's round trips), so the old histogram walks its buckets as on
a server. Run it on each build: the editable install (pure Python) and a compiled one
(``pip install .`` in a fresh venv; the figures name the build)::

    python benchmarks/metrics.py                       # 200,000 calls a round, 7 rounds
    /tmp/mvenv/bin/python benchmarks/metrics.py --rounds 11

Printed: the build, then per way the nanoseconds per call (best round and median), and the
ratio new / old of the medians. ``--json`` prints one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any, cast

from prometheus_client import CollectorRegistry, Counter, Histogram

from cardhall.server import metrics
from cardhall.server.build import compiled_modules, describe
from cardhall.server.store.ports import Store

#: The ways timed, in the order printed: (key, label).
WAYS = (("accept_old", "accepted action + latency, prometheus_client children (old)"),
        ("accept_new", "accepted action + latency, plain attributes (new)"),
        ("refuse_old", "refused action, prometheus_client Counter child (old)"),
        ("refuse_new", "refused action, Tally (new)"),
        ("loop", "the loop and an empty call (reference)"))


def old_observe_action(bound: Any, seconds: float | None) -> None:
    """The room's ``observe_action`` before issue #43, on prometheus_client children
    (``bound.accepted``: a ``Counter`` child; ``bound.latency``: a ``Histogram``)."""
    if bound is None:
        return
    bound.accepted.inc()
    if seconds is not None:
        bound.latency.observe(seconds)


class OldBound:
    """The old :class:`GameMetrics`' per-action fields: prometheus_client children of a
    registry of their own, labelled as the server's."""

    def __init__(self) -> None:
        registry = CollectorRegistry()
        labels = ["game", "mode"]
        self.accepted = Counter("cardhall_actions_accepted", "Actions", labels,
                                registry=registry).labels("skipper", "multi")
        self.refused = Counter("cardhall_actions_refused", "Refused", labels,
                               registry=registry).labels("skipper", "multi")
        self.latency = Histogram("cardhall_action_latency_seconds", "Latency",
                                 buckets=metrics.LATENCY_BUCKETS, registry=registry)


def latencies(count: int, seed: int) -> list[float]:
    """``count`` latencies in seconds, log-uniform over 0.2 ms .. 20 ms."""
    rng = random.Random(seed)
    return [10 ** rng.uniform(-3.7, -1.7) for _ in range(count)]


def nothing(bound: Any, seconds: float | None) -> None:
    """The reference way: a call that counts nothing."""


def loops(values: list[float]) -> dict[str, Callable[[int], None]]:
    """``{way: run(n)}``: each ``run`` makes ``n`` calls of its way."""
    new = metrics.Metrics(cast(Store, None), lambda: 0, lambda: 0).game("skipper", "multi")
    old = OldBound()
    mask = len(values) - 1
    observe = metrics.observe_action

    def accept(fn: Callable[[Any, float | None], None], bound: Any) -> Callable[[int], None]:
        def run(n: int) -> None:
            for i in range(n):
                fn(bound, values[i & mask])
        return run

    def refuse(inc: Callable[[], None]) -> Callable[[int], None]:
        def run(n: int) -> None:
            for _ in range(n):
                inc()
        return run

    return {"accept_old": accept(old_observe_action, old), "accept_new": accept(observe, new),
            "refuse_old": refuse(old.refused.inc), "refuse_new": refuse(new.refused.inc),
            "loop": accept(nothing, None)}


def measure(number: int, rounds: int, count: int, seed: int) -> dict[str, Any]:
    """Time every way of :func:`loops`, ``rounds`` rounds of ``number`` calls, in turns.

    Returns:
        ``{"build": ..., "metrics_compiled": bool, "number": n, "rounds": r,
        "ns_per_call": {way: {"best": ns, "median": ns}}, "new_over_old": {...}}``.
    """
    if count & (count - 1):
        raise ValueError("--values must be a power of two")
    runs = loops(latencies(count, seed))
    for run in runs.values():  # warm up
        run(min(number, 10_000))
    times: dict[str, list[float]] = {way: [] for way in runs}
    for _ in range(rounds):
        for way, run in runs.items():
            t0 = time.perf_counter()
            run(number)
            times[way].append((time.perf_counter() - t0) / number * 1e9)
    ns = {way: {"best": min(t), "median": statistics.median(t)} for way, t in times.items()}
    return {"build": describe(),
            "metrics_compiled": compiled_modules(("cardhall.server.metrics",))[
                "cardhall.server.metrics"],
            "number": number, "rounds": rounds, "ns_per_call": ns,
            "new_over_old": {"accept": ns["accept_new"]["median"] / ns["accept_old"]["median"],
                             "refuse": ns["refuse_new"]["median"] / ns["refuse_old"]["median"]}}


def table(out: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    head = (f"build: {out['build']} (cardhall.server.metrics compiled: "
            f"{out['metrics_compiled']}); {out['rounds']} rounds of {out['number']:,} calls")
    lines = [head, "", "| way | ns per call, best | median |", "|---|---:|---:|"]
    for way, label in WAYS:
        f = out["ns_per_call"][way]
        lines.append(f"| {label} | {f['best']:.0f} | {f['median']:.0f} |")
    ratio = out["new_over_old"]
    lines += ["", (f"new / old (medians): accepted action {ratio['accept']:.3f}, "
                   f"refused action {ratio['refuse']:.3f}")]
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=200_000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds per way")
    parser.add_argument("--values", type=int, default=1024,
                        help="latencies cycled through (a power of two)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    out = measure(args.number, args.rounds, args.values, args.seed)
    print(json.dumps(out, indent=2) if args.json else table(out))


if __name__ == "__main__":
    main()
