"""``cardhall chaos``: one drill per fault kind in turn, within the run's time cap
(:func:`run`), and the table of their figures (:func:`render`). The drills are
:class:`.chaos.Drill` (a lone Redis, or the SQLite store) and :class:`.ha_chaos.HaDrill`
(Redis replicated: Sentinel, Cluster).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .chaos import FAULTS, KINDS, ChaosConfig, Drill, Progress
from .ha_chaos import HA_FAULTS, HA_KINDS, HaDrill
from .procs import raise_fd_limit


async def run_async(cfg: ChaosConfig, say: Progress | None = None,
                    logdir: Path | None = None) -> dict[str, Any]:
    """Run one drill per kind of ``cfg.kinds`` in turn, within ``cfg.seconds``.

    Args:
        say: Progress messages (None: quiet).
        logdir: Keep Redis' and the servers' logs there (None: a temporary folder,
            removed afterwards).

    Returns:
        ``{"config": ..., "drills": [figures per kind], "ok": all targets met}``; a kind
        not started before the cap has ``{"kind", "skipped": True, "ok": False}``.

    Raises:
        ValueError: an unknown kind.
    """
    classes = {kind: drill_class(kind) for kind in cfg.kinds}
    deadline = time.monotonic() + cfg.seconds
    drills: list[dict[str, Any]] = []
    base = logdir or Path(tempfile.mkdtemp(prefix="cardhall-chaos-"))
    try:
        for kind in cfg.kinds:
            if time.monotonic() > deadline - 10:
                drills.append({"kind": kind, "skipped": True, "ok": False})
                continue
            workdir = base / kind
            if workdir.exists():
                shutil.rmtree(workdir)
            workdir.mkdir(parents=True)
            drills.append(await classes[kind](kind, cfg, deadline, workdir, say).run())
            if say:
                say(f"{kind}: {'PASS' if drills[-1]['ok'] else 'FAIL'}")
    finally:
        if logdir is None:
            shutil.rmtree(base, ignore_errors=True)
    return {"config": asdict(cfg), "drills": drills, "ok": all(d["ok"] for d in drills)}


def drill_class(kind: str) -> type[Drill]:
    """The drill class of fault kind ``kind``: :class:`Drill` for :data:`KINDS`, the
    replicated-Redis drills (:mod:`.ha_chaos`) for theirs.

    Raises:
        ValueError: an unknown kind.
    """
    if kind in FAULTS:
        return Drill
    if kind in HA_FAULTS:
        return HaDrill
    raise ValueError(f"unknown fault kind {kind!r}; one of {', '.join(KINDS + HA_KINDS)}")


def run(cfg: ChaosConfig, say: Progress | None = None,
        logdir: Path | None = None) -> dict[str, Any]:
    """:func:`run_async` in a new event loop (the ``cardhall chaos`` command)."""
    raise_fd_limit(4096)
    return asyncio.run(run_async(cfg, say, logdir))


COLUMNS = (("kind", "fault kind"), ("games", "games"), ("finished_pct", "finished %"),
           ("acked", "acked"), ("lost", "lost"), ("doubled", "doubled"),
           ("views_backwards", "views back"), ("views_split", "views split"),
           ("seats_dropped", "seats dropped"),
           ("faults", "faults"), ("wall_s", "wall s"))


def render(result: dict[str, Any]) -> str:
    """The figures as a text table, one row per fault kind, then the details of misses."""
    rows = [[h for _, h in COLUMNS] + ["result"]]
    for d in result["drills"]:
        if d.get("skipped"):
            rows.append([d["kind"]] + ["-"] * (len(COLUMNS) - 1) + ["SKIPPED (--seconds)"])
            continue
        rows.append([str(d[k]) for k, _ in COLUMNS] + ["ok" if d["ok"] else "MISSED"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    for d in result["drills"]:
        for line in d.get("notes", []):
            lines.append(f"  {d['kind']}: {line}")
        for line in d.get("details", [])[:30]:
            lines.append(f"  {d['kind']}: {line}")
    lines.append("targets: 0 lost, 0 doubled, 100% finished, 0 seats dropped, 0 views "
                 f"backwards or split: {'met' if result['ok'] else 'MISSED'}")
    return "\n".join(lines)
