"""The settings of ``cardhall bench`` (its command-line options), shared by the load
(:mod:`.load`), the bench's server children (:mod:`.servers`) and the restart figure
(:mod:`.durable`)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class BenchConfig:
    """What ``cardhall bench`` runs (the command-line options).

    Attributes:
        rooms: Active tables (4 connections each) in the latency and throughput phases.
        rate: Actions per second over all tables in the latency phase (paced).
        warmup: Seconds of load before each measured phase.
        latency_seconds: Measured seconds of the latency phase.
        throughput_seconds: Measured seconds of the throughput phase.
        idle: Idle connections opened for the memory measurement (0: skip).
        redis: ``"auto"`` (start a redis-server when one is on PATH), ``"off"``, or a
            ``redis://`` URL of a running Redis.
        url: Bench an already running Cardhall server instead of starting one (CPU and RSS
            then need ``server_pid``; the Redis mode is skipped).
        server_pid: Process id of the server at ``url`` (for CPU and RSS figures).
        seed: Seed of the clients' random choices.
        rounds: Windows each of Cardhall (in memory) and the echo baseline take in turn,
            per phase (see :func:`phase`).
        pin: On Linux with 2 or more CPUs, run the server under test (Cardhall or echo) on
            the first CPU and the load generator on the second, so neither loses time to
            the other in the scheduler's migrations; redis-server stays unpinned.
        sqlite: Also bench Cardhall on the SQLite store (``cardhall serve``'s default),
            its windows in turn with the memory store's and the echo's, and its restart
            (:mod:`.durable`).
        sqlite_commit: ``"auto"`` (the store's default: ``tick`` with ``fsync always``,
            else ``adaptive``), ``"tick"`` (group commit: the appends of one loop tick share
            one transaction), ``"each"`` (every append commits at once) or ``"adaptive"``
            (the first append of a tick commits at once, the others share one commit).
        sqlite_fsync: ``"normal"`` or ``"always"`` (``cardhall serve --fsync``).
        restart_rooms: Rooms in play when the SQLite server is killed and restarted for the
            restart figure (0: skip it).
        protocol: The protocol version the load generator's clients speak (``hello.v``):
            1 (an ``ok`` per accepted action, deltas with ``state_id``) or 2.
    """

    rooms: int = 100
    rate: float = 200.0
    warmup: float = 2.0
    latency_seconds: float = 8.0
    throughput_seconds: float = 8.0
    idle: int = 2000
    redis: str = "auto"
    url: str | None = None
    server_pid: int | None = None
    seed: int = 1
    rounds: int = 8
    pin: bool = True
    sqlite: bool = True
    sqlite_commit: str = "auto"
    sqlite_fsync: str = "normal"
    restart_rooms: int = 1000
    protocol: int = 1
