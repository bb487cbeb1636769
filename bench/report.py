"""The table of ``cardhall bench``: one row per figure (:func:`rows`), Cardhall's against the
echo baseline's with the issue's targets, printed by :func:`render` or as JSON
(:func:`to_json`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _get(d: dict[str, Any] | None, *path: str) -> Any:
    for k in path:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


#: ``check(figure, ratio)``: whether a row meets its target (None: no verdict).
Check = Callable[[float, float | None], bool | None]


class _Rows:
    """The rows of the table being written (:func:`rows`)."""

    def __init__(self) -> None:
        self.out: list[dict[str, Any]] = []

    def row(self, figure: str, unit: str, ours: Any, base: Any, target: str = "",
            check: Check | None = None) -> None:
        """Append one row: Cardhall's figure ``ours`` against the echo's ``base``, their
        ratio, the ``target`` and, with ``check``, whether it is met."""
        ratio = (ours / base if isinstance(ours, (int, float)) and isinstance(base, (int, float))
                 and base else None)
        ok = None
        if check is not None and isinstance(ours, (int, float)):
            verdict = check(ours, ratio)
            ok = None if verdict is None else bool(verdict)
        self.out.append({"figure": figure, "unit": unit, "cardhall": ours, "echo": base,
                         "ratio": ratio, "target": target, "pass": ok})


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per figure: ``figure, unit, cardhall, echo, ratio, target, pass``.

    ``target`` is the issue's target written out; ``pass`` is True/False, or None when the
    row has no target or a figure is missing.
    """
    t = _Rows()
    mem, echo = r.get("memory"), r.get("echo")
    n = r.get("config", {}).get("rooms")
    rate = r.get("config", {}).get("rate")
    lat = f"{n} rooms, {rate:g} act/s" if rate is not None else ""
    _latency_rows(t, mem, echo, lat)
    _load_rows(t, mem, echo)
    _memory_rows(t, r, mem, echo)
    sqlite_rows(t.out, r, lat)
    _redis_rows(t, r.get("redis"), mem, echo, lat)
    return t.out


def _latency_rows(t: _Rows, mem: Any, echo: Any, lat: str) -> None:
    """The paced phase's round trips (``lat``: its rooms and rate)."""
    t.row(f"round trip p50 ({lat})", "us", _get(mem, "latency", "rtt_p50_us"),
          _get(echo, "latency", "rtt_p50_us"), "<= 1.5x echo",
          lambda _v, q: None if q is None else q <= 1.5)
    by_round = zip(_get(mem, "latency", "rtt_p50_us_by_round") or [],
                   _get(echo, "latency", "rtt_p50_us_by_round") or [])
    for k, (ours, base) in enumerate(by_round, 1):  # the spread within this run
        t.row(f"  round {k} of the p50 above", "us", ours, base)
    t.row(f"round trip p99 ({lat})", "us", _get(mem, "latency", "rtt_p99_us"),
          _get(echo, "latency", "rtt_p99_us"), "<= 2x echo",
          lambda _v, q: None if q is None else q <= 2.0)
    t.row(f"round trip max ({lat})", "us", _get(mem, "latency", "rtt_max_us"),
          _get(echo, "latency", "rtt_max_us"))
    t.row("round trip p50, to the reader task", "us", _get(mem, "latency", "rtt_task_p50_us"),
          _get(echo, "latency", "rtt_task_p50_us"))
    t.row("round trip p99, to the reader task", "us", _get(mem, "latency", "rtt_task_p99_us"),
          _get(echo, "latency", "rtt_task_p99_us"))


def _load_rows(t: _Rows, mem: Any, echo: Any) -> None:
    """The closed loop's round trips, rates and sizes, and the CPU figures."""
    t.row("round trip p50 (closed loop)", "us", _get(mem, "throughput", "rtt_p50_us"),
          _get(echo, "throughput", "rtt_p50_us"))
    t.row("round trip p99 (closed loop)", "us", _get(mem, "throughput", "rtt_p99_us"),
          _get(echo, "throughput", "rtt_p99_us"))
    t.row("accepted actions / s", "1/s", _get(mem, "throughput", "actions_per_s"),
          _get(echo, "throughput", "actions_per_s"))
    t.row("update frames delivered / s", "1/s", _get(mem, "throughput", "update_frames_per_s"),
          _get(echo, "throughput", "update_frames_per_s"), ">= 0.5x echo msgs/s",
          lambda _v, q: None if q is None else q >= 0.5)
    t.row("update frame bytes, median", "B", _get(mem, "throughput", "update_bytes_p50"),
          _get(echo, "throughput", "update_bytes_p50"), "<= 300 B", lambda v, _q: v <= 300)
    t.row("update frame bytes, p99", "B", _get(mem, "throughput", "update_bytes_p99"),
          _get(echo, "throughput", "update_bytes_p99"))
    t.row("bytes received per action, all seats", "B", _get(mem, "throughput", "bytes_per_action"),
          _get(echo, "throughput", "bytes_per_action"))
    t.row("frames received per action, all seats", "", _get(mem, "throughput", "frames_per_action"),
          _get(echo, "throughput", "frames_per_action"))
    t.row("server CPU per action", "us", _scale(_get(mem, "throughput", "server_cpu_s_per_action")),
          _scale(_get(echo, "throughput", "server_cpu_s_per_action")))
    t.row("server CPU per action, latency phase", "us",
          _scale(_get(mem, "latency", "server_cpu_s_per_action")),
          _scale(_get(echo, "latency", "server_cpu_s_per_action")))
    t.row("server CPU share, latency phase", "core", _get(mem, "latency", "server_cpu_share"),
          _get(echo, "latency", "server_cpu_share"))
    t.row("server CPU share, closed loop", "core", _get(mem, "throughput", "server_cpu_share"),
          _get(echo, "throughput", "server_cpu_share"))
    t.row("load generator CPU share, closed loop", "core",
          _get(mem, "throughput", "loadgen_cpu_share"),
          _get(echo, "throughput", "loadgen_cpu_share"))


def _memory_rows(t: _Rows, r: dict[str, Any], mem: Any, echo: Any) -> None:
    """Server RSS per active room and per idle connection."""
    t.row("server RSS per active room", "KiB", _kib(_get(mem, "rss_per_active_room")),
          _kib(_get(echo, "rss_per_active_room")))
    idle, eidle = r.get("idle"), _get(echo, "idle")
    t.row(f"server RSS per idle connection ({_get(idle, 'connections')} open)", "KiB",
          _kib(_get(idle, "rss_per_connection")), _kib(_get(eidle, "rss_per_connection")),
          "<= 20 KiB", lambda v, _q: v <= 20)
    n_idle = _get(idle, "connections") or 0
    t.row("idle connections held", "", _get(idle, "held"), _get(eidle, "held"),
          "10000 held (run --idle 10000)",
          lambda v, _q: v >= 10_000 if n_idle >= 10_000 else None)


def _redis_rows(t: _Rows, red: Any, mem: Any, echo: Any, lat: str) -> None:
    """The Redis store's rows (its throughput against the memory store's), or why it was
    skipped."""
    if red and "skipped" not in red:
        mem_rate = _get(mem, "throughput", "actions_per_s")
        red_rate = _get(red, "throughput", "actions_per_s")
        t.out.append({"figure": "REDIS accepted actions / s (ratio: to in-memory)", "unit": "1/s",
                      "cardhall": red_rate, "echo": mem_rate,
                      "ratio": red_rate / mem_rate if red_rate and mem_rate else None,
                      "target": ">= 0.6x in-memory",
                      "pass": bool(red_rate and mem_rate and red_rate / mem_rate >= 0.6)})
        t.row(f"REDIS round trip p50 ({lat})", "us", _get(red, "latency", "rtt_p50_us"),
              _get(echo, "latency", "rtt_p50_us"))
        t.row(f"REDIS round trip p99 ({lat})", "us", _get(red, "latency", "rtt_p99_us"),
              _get(echo, "latency", "rtt_p99_us"))
        t.row("REDIS update frames delivered / s", "1/s",
              _get(red, "throughput", "update_frames_per_s"),
              _get(echo, "throughput", "update_frames_per_s"))
        t.row("REDIS server CPU per action", "us",
              _scale(_get(red, "throughput", "server_cpu_s_per_action")),
              _scale(_get(echo, "throughput", "server_cpu_s_per_action")))
        t.row("REDIS redis-server CPU per action", "us",
              _scale(_get(red, "throughput", "redis_cpu_s_per_action")), None)
        t.row("REDIS server RSS per active room", "KiB", _kib(_get(red, "rss_per_active_room")),
              _kib(_get(echo, "rss_per_active_room")))
    elif red:
        t.out.append({"figure": f"REDIS: skipped ({red['skipped']})", "unit": "", "cardhall": None,
                      "echo": None, "ratio": None, "target": ">= 0.6x in-memory", "pass": None})


def sqlite_rows(out: list[dict[str, Any]], r: dict[str, Any], lat: str) -> None:
    """Append the SQLITE rows of result ``r`` to ``out``: the SQLite store against the
    memory store of the same run (windows in turns), its file growth and restart time."""
    mem, sq = r.get("memory"), r.get("sqlite")
    if not sq:
        return

    def vs_memory(figure: str, unit: str, key: tuple[str, ...], target: str = "",
                  check: Callable[[float], bool] | None = None, scale: float = 1.0) -> None:
        ours, base = _get(sq, *key), _get(mem, *key)
        ours = ours * scale if isinstance(ours, (int, float)) else ours
        base = base * scale if isinstance(base, (int, float)) else base
        ratio = ours / base if isinstance(ours, (int, float)) and base else None
        out.append({"figure": f"SQLITE {figure} (ratio: to in-memory)", "unit": unit,
                    "cardhall": ours, "echo": base, "ratio": ratio, "target": target,
                    "pass": None if check is None or ratio is None else check(ratio)})

    vs_memory("accepted actions / s", "1/s", ("throughput", "actions_per_s"),
              ">= 0.8x in-memory", lambda q: q >= 0.8)
    vs_memory(f"round trip p50 ({lat})", "us", ("latency", "rtt_p50_us"),
              "<= 1.15x in-memory", lambda q: q <= 1.15)
    vs_memory(f"round trip p99 ({lat})", "us", ("latency", "rtt_p99_us"))
    vs_memory("round trip p50 (closed loop)", "us", ("throughput", "rtt_p50_us"))
    vs_memory("server CPU per action", "us", ("throughput", "server_cpu_s_per_action"),
              scale=1e6)
    restart = sq.get("restart") or {}
    if restart.get("skipped"):
        out.append({"figure": f"SQLITE restart: skipped ({restart['skipped']})", "unit": "",
                    "cardhall": None, "echo": None, "ratio": None, "target": "", "pass": None})
        return
    if restart:
        growth = restart.get("bytes_per_1000_actions")
        out.append({"figure": "SQLITE data file growth per 1,000 actions", "unit": "B",
                    "cardhall": growth, "echo": None, "ratio": None, "target": "",
                    "pass": None})
        rooms, seconds = restart.get("rooms_restored"), restart.get("to_listening_s")
        depth = restart.get("entries_per_room")
        out.append({"figure": f"SQLITE restart after kill -9, {rooms} rooms in play "
                              f"({depth} actions each): serving",
                    "unit": "s", "cardhall": seconds, "echo": None, "ratio": None,
                    "target": "<= 2 s", "pass": None if seconds is None else seconds <= 2})
        out.append({"figure": "SQLITE   then every room loaded (in the background)",
                    "unit": "s", "cardhall": restart.get("restore_s"), "echo": None,
                    "ratio": None, "target": "", "pass": None})


def _scale(v: Any) -> Any:
    return v * 1e6 if isinstance(v, (int, float)) else v


def _kib(v: Any) -> Any:
    return v / 1024 if isinstance(v, (int, float)) else v


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if abs(v) >= 100:
            return f"{v:.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    return str(v)


def render(result: dict[str, Any]) -> str:
    """The result as one plain-text (Markdown) table, with a line about the run."""
    head = ["figure", "unit", "cardhall", "echo", "ratio", "target", "pass"]
    body = [[x["figure"], x["unit"], _fmt(x["cardhall"]), _fmt(x["echo"]),
             "-" if x["ratio"] is None else f"{x['ratio']:.2f}x", x["target"] or "",
             _fmt(x["pass"]) if x["pass"] is not None else ""] for x in result["rows"]]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if i in (0, 1, 5) else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    sep = "|" + "|".join(("-" * (w + 2)) if i in (0, 1, 5) else ("-" * (w + 1) + ":")
                         for i, w in enumerate(widths)) + "|"
    env = result.get("env", {})
    notes = [(f"python {env.get('python')}, websockets {env.get('websockets')}, "
              f"{env.get('loop')}, {env.get('cpus')} CPUs, pinned: {env.get('pinned', 'no')}; "
              f"wall {result.get('wall_seconds')} s")]
    for part in ("memory", "redis"):
        errs = _get(result, part, "errors")
        if errs:
            notes.append(f"{part} errors: {errs}")
        refused = _get(result, part, "throughput", "refused")
        if refused:
            notes.append(f"{part}: {refused} actions refused in the closed loop")
    return "\n".join([line(head), sep, *map(line, body), "", *notes])


def to_json(result: dict[str, Any]) -> str:
    """One JSON object (every figure; ``rows`` as in the table)."""
    return json.dumps(result, sort_keys=True, default=float)
