"""``cardhall chaos`` on replicated Redis (issue #32): the drills of :mod:`.chaos` with the
servers on a Sentinel-watched master or a Redis Cluster (:mod:`.topology`), and the faults
that replication is for. Fault kinds (:data:`HA_KINDS`):

* ``sentinel-kill``: 1 master + 2 replicas + 3 Sentinels; ``kill -9`` the master, wait until
  the Sentinels promote a replica, restart the old master as a replica of the new one;
  repeated (3 times).
* ``sentinel-partition``: ``SIGSTOP`` the master for longer than a failover takes, so that a
  replica is promoted while it is away; then ``SIGCONT``: it must rejoin as a replica.
* ``cluster-kill``: a Cluster of 3 masters + 3 replicas; ``kill -9`` the master that holds
  the most running rooms, wait until its replica took its slots over, restart it (it
  rejoins as a replica).
* ``cluster-load``: no fault: bots play flat out (no think time) for
  ``ChaosConfig.load_seconds`` against the Cluster (``WAIT`` for 1 replica), then against
  one lone Redis (no replica, no ``WAIT``), on fresh processes: accepted actions/s, the act
  round trip's p50/p99 and Redis CPU per action of each.

Every drill checks what :mod:`.chaos` checks (0 lost, 0 doubled, 100% finished, no seat
dropped, no view backwards) and adds notes: per fault, the time from the fault to the first
action accepted afterwards in a room it hit, and to the moment every such room had accepted
one; on a Cluster, how many of the drill's rooms each master holds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import statistics
import time
from pathlib import Path
from typing import Any

from .chaos import ChaosConfig, Drill, Progress, passed
from .procs import cpu_seconds
from .topology import SERVICE, ClusterSet, Node, SentinelSet

#: The replicated-Redis fault kinds, in the order ``--kind ha`` runs them.
HA_KINDS = ("sentinel-kill", "sentinel-partition", "cluster-kill", "cluster-load")
#: Per kind: (what is done, seconds the fault lasts at most, faults in a full drill). The
#: faults of a kind are that long plus :data:`~.chaos.SETTLE_SECONDS` apart, which must
#: exceed twice Sentinel's failover timeout (a Sentinel fails the same master name over
#: again only after that).
HA_FAULTS: dict[str, tuple[str, float, int]] = {
    "sentinel-kill": ("kill-master", 8.0, 3),
    "sentinel-partition": ("stop-master", 8.0, 1),
    "cluster-kill": ("kill-cluster-master", 8.0, 1),
    "cluster-load": ("load", 0.0, 0),
}

#: Seconds a master stopped and continued has to answer as a replica (``sentinel-partition``):
#: the Sentinels look at an instance they saw down every 10 s (INFO period), then reconfigure
#: it; 30 s was once exceeded in a CI run.
REJOIN_SECONDS = 60.0


class HaDrill(Drill):
    """One replicated-Redis drill (see the module docstring): :class:`~.chaos.Drill` with
    its Redis replaced by a topology and its faults by :data:`HA_FAULTS`.

    Args:
        kind: One of :data:`HA_KINDS`.
        cfg: The run's configuration.
        deadline: ``time.monotonic()`` value by which everything must be over.
        workdir: Folder for the Redis nodes and the servers' logs.
        say: Progress messages (None: quiet).
        backend: ``"sentinel"``, ``"cluster"`` or ``"lone"`` (None: the kind's; the
            ``cluster-load`` kind runs one drill on ``"cluster"`` and one on ``"lone"``).

    Raises:
        ValueError: an unknown kind.
    """

    fault_table = HA_FAULTS

    def __init__(self, kind: str, cfg: ChaosConfig, deadline: float, workdir: Path,
                 say: Progress | None, backend: str | None = None) -> None:
        super().__init__(kind, cfg, deadline, workdir, say)
        self.backend = backend
        self.topology: SentinelSet | ClusterSet | Node | None = None
        #: Per fault: when it began (monotonic s) and the running rooms it hit.
        self.hits: list[tuple[float, set[str]]] = []
        self.notes: list[str] = []

    # Processes ---------------------------------------------------------------------------

    @property
    def _kind_backend(self) -> str:
        return self.backend or ("sentinel" if self.kind.startswith("sentinel") else "cluster")

    async def _start_redis(self, procs: list[Any]) -> list[str]:
        down = self.cfg.down_after_ms
        folder = self.workdir / "redis"
        backend = self._kind_backend
        if backend == "sentinel":
            sentinel = SentinelSet(folder, 2, 3, down, failover_timeout_ms=2 * down)
            self.topology = sentinel
            procs.append(sentinel)
            await asyncio.to_thread(sentinel.start)
            nodes = [arg for host, port in sentinel.addresses
                     for arg in ("--redis-sentinel", f"{host}:{port}")]
            return [*nodes, "--redis-service", SERVICE]
        if backend == "cluster":
            cluster = ClusterSet(folder, 3, 1, node_timeout_ms=down)
            self.topology = cluster
            procs.append(cluster)
            await asyncio.to_thread(cluster.start)
            return [arg for host, port in cluster.addresses
                    for arg in ("--redis-cluster", f"{host}:{port}")]
        lone = Node(folder, ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""])
        self.topology = lone
        procs.append(lone)
        await asyncio.to_thread(lone.start)
        return ["--redis-url", f"redis://127.0.0.1:{lone.port}/0"]

    def _target(self) -> Any:
        from ..server.store.redis_topology import RedisTarget

        if isinstance(self.topology, SentinelSet):
            return RedisTarget(sentinels=tuple(self.topology.addresses), service=SERVICE)
        if isinstance(self.topology, ClusterSet):
            return RedisTarget(cluster=tuple(self.topology.addresses))
        assert isinstance(self.topology, Node)
        return RedisTarget(url=f"redis://127.0.0.1:{self.topology.port}/0")

    def _store(self) -> Any:
        from ..server.store.redis_store import RedisStore

        return RedisStore(self._target())

    # Faults --------------------------------------------------------------------------------

    def schedule(self) -> list[float]:
        """As :meth:`Drill.schedule`; ``cluster-load`` has no fault, whatever ``faults``."""
        return [] if self.kind == "cluster-load" else super().schedule()

    def play_seconds(self) -> float:
        """As :meth:`Drill.play_seconds`; ``cluster-load``: its load seconds."""
        return self.cfg.load_seconds if self.kind == "cluster-load" else super().play_seconds()

    async def _inject(self, t0: float) -> None:
        what, outage, _ = HA_FAULTS[self.kind]
        for at in self.schedule():
            await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
            if time.monotonic() > self.deadline:
                return
            try:
                if what == "kill-master":
                    await self._kill_master()
                elif what == "stop-master":
                    await self._stop_master(outage)
                elif what == "kill-cluster-master":
                    await self._kill_cluster_master()
            except (OSError, RuntimeError, ValueError) as exc:
                self.fault_errors.append(f"{type(exc).__name__}: {exc}")

    async def _sentinel_master(self) -> tuple[SentinelSet, Node]:
        """The Sentinel set and its master now."""
        sentinel = self.topology
        assert isinstance(sentinel, SentinelSet)
        return sentinel, sentinel.node(await asyncio.to_thread(sentinel.master_port))

    def _hit(self, sig: int, node: Node, rooms: set[str]) -> float:
        """Send ``sig`` to ``node`` and note the fault and the running ``rooms`` it hits;
        when it began (monotonic s)."""
        t = time.monotonic()
        node.signal(sig)
        self.hits.append((t, rooms))
        self.faults_injected += 1
        return t

    async def _kill_master(self) -> None:
        """``kill -9`` the Sentinels' master; once a replica is promoted, restart the old
        master as a replica of the new one."""
        sentinel, node = await self._sentinel_master()
        self.say(f"{self.kind}: kill -9 the master :{node.port}")
        t = self._hit(signal.SIGKILL, node, self._running())
        new = await asyncio.to_thread(sentinel.wait_promoted, node.port, 30)
        self.notes.append(f"fault {len(self.hits)}: master :{node.port} killed; the "
                          f"Sentinels promoted :{new} {time.monotonic() - t:.1f} s later")
        await asyncio.to_thread(sentinel.restart_as_replica, node)

    async def _stop_master(self, outage: float) -> None:
        """``SIGSTOP`` the master for ``outage`` seconds (a replica is promoted meanwhile),
        ``SIGCONT``; it must answer as a replica within :data:`REJOIN_SECONDS`."""
        sentinel, node = await self._sentinel_master()
        port = node.port
        self.say(f"{self.kind}: SIGSTOP the master :{port} for {outage:g} s")
        t = self._hit(signal.SIGSTOP, node, self._running())
        try:
            new = await asyncio.to_thread(sentinel.wait_promoted, port, outage)
            self.notes.append(f"fault {len(self.hits)}: master :{port} stopped; the "
                              f"Sentinels promoted :{new} {time.monotonic() - t:.1f} s later")
            await asyncio.sleep(max(0.0, t + outage - time.monotonic()))
        finally:
            node.signal(signal.SIGCONT)
        from .topology import until

        await asyncio.to_thread(until, lambda: node.role() == "slave", REJOIN_SECONDS,
                                f"the old master :{port} rejoining as a replica")
        self.notes.append(f"fault {len(self.hits)}: :{port} continued after "
                          f"{outage:g} s and rejoined as a replica")

    def _running(self) -> set[str]:
        """The rooms of the games under way."""
        return {g.room for g in self.games if g.state_id < 0}

    async def _kill_cluster_master(self) -> None:
        """``kill -9`` the Cluster master holding the most running rooms; once its replica
        holds its slots, restart it (it rejoins as a replica)."""
        from redis.crc import key_slot

        from ..server.store.redis_keys import key

        cluster = self.topology
        assert isinstance(cluster, ClusterSet)
        slots = await asyncio.to_thread(cluster.slots)
        running = self._running()
        where = {room: _owner(slots, key_slot(key(room, "log").encode())) for room in running}
        counts = {port: sum(1 for p in where.values() if p == port) for port in slots}
        port = max(counts, key=lambda p: counts[p])
        node = cluster.node(port)
        self.say(f"{self.kind}: kill -9 master :{port} ({counts[port]} of {len(running)} "
                 "running rooms)")
        t = self._hit(signal.SIGKILL, node, {r for r, p in where.items() if p == port})
        from .topology import until

        await asyncio.to_thread(until, lambda: port not in cluster.slots(), 30,
                                f"a replica taking the slots of :{port} over")
        self.notes.append(f"fault {len(self.hits)}: master :{port} killed ({counts[port]} "
                          f"running rooms); its replica took its slots "
                          f"{time.monotonic() - t:.1f} s later")
        await asyncio.to_thread(node.start)
        await asyncio.to_thread(cluster.wait_healthy, 60)

    # Figures -------------------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        """The drill; for ``cluster-load``, one drill on the Cluster and one on a lone
        Redis, their figures side by side (the Cluster's are the drill's)."""
        if self.kind != "cluster-load" or self.backend is not None:
            return await super().run()
        cfg = dataclasses.replace(self.cfg, think=0.0, servers=2)
        sides = {}
        for backend in ("cluster", "lone"):
            side = HaDrill(self.kind, cfg, self.deadline, self.workdir / backend, self.say,
                           backend)
            sides[backend] = await side.run()
        fig = dict(sides["cluster"])
        fig["load"] = {b: f["load"] for b, f in sides.items()}
        fig["details"] = [f"{b}: {d}" for b, f in sides.items() for d in f["details"]]
        fig["notes"] = [line for b, f in sides.items() for line in f["notes"]]
        for k in ("lost", "doubled", "views_backwards", "seats_dropped", "acked", "games",
                  "finished"):
            fig[k] = sum(f[k] for f in sides.values())
        fig["finished_pct"] = round(100.0 * fig["finished"] / fig["games"], 1) \
            if fig["games"] else 0.0
        fig["ok"] = all(f["ok"] for f in sides.values())
        return fig

    async def _play_and_check(self, t_start: float) -> dict[str, Any]:
        assert self.topology is not None

        def servers_cpu() -> float:
            return sum(cpu_seconds(s.pid) for s in self.servers if s.pid is not None)

        nodes = [self.topology] if isinstance(self.topology, Node) else self.topology.nodes
        node0 = {n.port: n.cpu_seconds() for n in nodes}
        cpu0, serve0 = self.topology.cpu_seconds(), servers_cpu()
        t0 = time.monotonic()
        fig = await super()._play_and_check(t_start)
        if self.kind == "cluster-load":
            load = fig["load"] = self._load(self.topology.cpu_seconds() - cpu0, t0)
            if load["acked"]:
                load["servers_cpu_us_per_action"] = round(
                    1e6 * (servers_cpu() - serve0) / load["acked"], 1)
                masters = (set(self.topology.master_ports())
                           if isinstance(self.topology, ClusterSet) else set(node0))
                busiest = max((n.cpu_seconds() - node0[n.port] for n in nodes
                               if n.port in masters), default=0.0)
                # The busiest master's share: what one node carries of this load.
                load["busiest_master_cpu_us_per_action"] = round(
                    1e6 * busiest / load["acked"], 1)
            self.notes.append(
                f"{self._kind_backend}: {load['actions_per_s']:.0f} accepted actions/s, act "
                f"round trip p50 {load['rtt_p50_ms']:.1f} ms p99 {load['rtt_p99_ms']:.1f} ms, "
                f"Redis CPU {load['redis_cpu_us_per_action']:.0f} us/action (busiest master "
                f"{load.get('busiest_master_cpu_us_per_action', 0):.0f}), servers' CPU "
                f"{load.get('servers_cpu_us_per_action', 0):.0f} us/action "
                f"({load['acked']} actions, {load['seconds']:.1f} s)")
            fig["ok"] = passed({**fig, "faults": 1})  # no fault is the point
        fig["notes"] = self.notes
        return fig

    def _load(self, redis_cpu: float, t0: float) -> dict[str, Any]:
        """Throughput, round trip and Redis CPU of the acknowledged acts sent after ``t0``
        (seconds: until the last of them was answered)."""
        oks = [a for c in self.clients for a in c.attempts
               if a.result == "ok" and a.answered is not None and a.sent >= t0]
        if not oks:
            return {"acked": 0, "seconds": 0.0, "actions_per_s": 0.0, "rtt_p50_ms": 0.0,
                    "rtt_p99_ms": 0.0, "redis_cpu_us_per_action": 0.0}
        seconds = max(a.answered or t0 for a in oks) - t0
        rtts = sorted(((a.answered or a.sent) - a.sent) * 1000 for a in oks)
        return {"acked": len(oks), "seconds": round(seconds, 2),
                "actions_per_s": round(len(oks) / seconds, 1) if seconds else 0.0,
                "rtt_p50_ms": round(statistics.median(rtts), 2),
                "rtt_p99_ms": round(rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))], 2),
                "redis_cpu_us_per_action": round(1e6 * redis_cpu / len(oks), 1)}

    async def _check(self) -> dict[str, Any]:
        fig = await super()._check()
        recovery: list[list[float] | None] = []
        for n, (t, rooms) in enumerate(self.hits, 1):
            first: dict[str, float] = {}
            for c in self.clients:
                for a in c.attempts:
                    if (a.result == "ok" and a.answered is not None and a.sent >= t
                            and a.room in rooms):
                        first[a.room] = min(first.get(a.room, a.answered - t), a.answered - t)
            if first:
                recovery.append([round(min(first.values()), 2), round(max(first.values()), 2)])
                self.notes.append(
                    f"fault {n}: first action sent after it and accepted: "
                    f"{min(first.values()):.1f} s after it, in one of the {len(rooms)} "
                    f"running rooms it hit; {len(first)} of them accepted one within "
                    f"{max(first.values()):.1f} s (median "
                    f"{statistics.median(first.values()):.1f} s)")
                slowest = max(first, key=lambda r: first[r])
                acts = sorted((a for c in self.clients for a in c.attempts
                               if a.room == slowest and a.sent >= t), key=lambda a: a.sent)
                self.notes.append(f"fault {n}: the slowest room {slowest}'s acts after it "
                                  "(sent +s, result, answered +s): " + ", ".join(
                                      f"{a.sent - t:.1f} {a.result} {(a.answered or t) - t:.1f}"
                                      for a in acts[:6]))
            else:
                recovery.append(None)
                self.notes.append(f"fault {n}: no room it hit accepted an action afterwards")
        fig["recovery_s"] = recovery
        if isinstance(self.topology, ClusterSet):
            fig["rooms_per_master"] = await asyncio.to_thread(self._spread)
            self.notes.append(f"rooms per master now: {fig['rooms_per_master']}")
        return fig

    def _spread(self) -> dict[str, int]:
        """How many of the drill's rooms each Cluster master holds now (by port)."""
        from redis.crc import key_slot

        from ..server.store.redis_keys import key

        assert isinstance(self.topology, ClusterSet)
        slots = self.topology.slots()
        out = {str(p): 0 for p in slots}
        for g in self.games:
            port = _owner(slots, key_slot(key(g.room, "log").encode()))
            out[str(port)] = out.get(str(port), 0) + 1
        return out


def _owner(slots: dict[int, list[tuple[int, int]]], slot: int) -> int:
    """The master port whose ranges in ``slots`` hold ``slot`` (-1: none)."""
    for port, ranges in slots.items():
        if any(a <= slot <= b for a, b in ranges):
            return port
    return -1

