"""Replicated Redis topologies as real processes on 127.0.0.1, for the drills, benchmarks and
tests: a master with replicas watched by Sentinels (:class:`SentinelSet`), and a Redis Cluster
of masters with one replica each (:class:`ClusterSet`).

Every node runs ``redis-server`` (``redis-sentinel`` for Sentinels, or where that program is
missing ``redis-server --sentinel``: :func:`~.procs.sentinel_command`) with append-only
persistence in its own folder, on free ports, and can be killed (``kill -9``), stopped
(``SIGSTOP``), continued and restarted on the same port and folder. Every wait is bounded;
:meth:`SentinelSet.stop` and :meth:`ClusterSet.stop` stop every process they started.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import redis

from .procs import Child, cpu_seconds, free_port, sentinel_command

#: The Sentinel master name the drills use (``cardhall serve --redis-service``).
SERVICE = "cardhall"
#: Options every ``redis-server`` node starts with (its own ``args`` may override them): a
#: replica's full sync starts at once. Redis 7 waits ``repl-diskless-sync-delay`` (5 s) for
#: more replicas to share one transfer; a master here has one or two, so that wait was 5 s of
#: every topology's setup and of every resync, with nothing to share.
SYNC_AT_ONCE = ("--repl-diskless-sync-delay", "0")


def _client(port: int, timeout: float = 2.0) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=timeout,
                       socket_connect_timeout=timeout)


def until(check: Any, seconds: float, what: str, poll: float = 0.1) -> Any:
    """Call ``check()`` every ``poll`` seconds until it returns a truthy value (Redis errors
    count as falsy); that value.

    Raises:
        RuntimeError: still falsy after ``seconds`` (the message names ``what``).
    """
    deadline = time.monotonic() + seconds
    while True:
        with contextlib.suppress(redis.RedisError, OSError):
            value = check()
            if value:
                return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {seconds:g} s")
        time.sleep(poll)


def online_replicas(port: int) -> int:
    """How many replicas of the node on ``port`` are in sync with it (``state=online``) and
    done with what a sync starts: a replica rewrites its AOF just after it, and finishing
    that (fsync, rename) holds its main thread, so a ``WAIT`` sent meanwhile may go
    unanswered for longer than the store waits (a replica that does not answer here counts
    as not in sync)."""
    with _client(port) as c:
        info = c.info("replication")
    return sum(1 for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)
               and v.get("state") == "online" and _settled_node(int(v["port"])))


def _settled_node(port: int) -> bool:
    """The node on ``port`` answers and neither loads data nor rewrites its AOF."""
    try:
        with _client(port, timeout=0.5) as c:
            info = c.info("persistence")
    except (redis.RedisError, OSError):
        return False
    return not (info.get("loading") or info.get("aof_rewrite_in_progress")
                or info.get("aof_rewrite_scheduled"))


class Node:
    """One ``redis-server`` (or Sentinel) process on a fixed port, restartable on it with the
    same folder.

    Args:
        workdir: Its folder (AOF, ``nodes.conf``, ``sentinel.conf``); made if missing.
        args: Options after ``--port PORT`` (a Sentinel: its config file comes first).
        program: ``redis-server``, or ``redis-sentinel`` for a Sentinel (run as
            :func:`~.procs.sentinel_command` says: ``redis-server --sentinel`` where
            ``redis-sentinel`` is not installed).
        port: Its port (None: a free one).
    """

    def __init__(self, workdir: Path, args: list[str], program: str = "redis-server",
                 port: int | None = None) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.workdir = workdir
        self.args = args
        self.program = program
        self.port = port or free_port()
        self.log = workdir / f"{program}.log"
        self.child: Child | None = None

    @property
    def pid(self) -> int | None:
        """Process id while it runs."""
        if self.child is None or self.child.proc.poll() is not None:
            return None
        return self.child.pid

    def start(self, *extra: str) -> None:
        """Start (or restart) it with ``extra`` options and wait until it listens (30 s).

        Raises:
            RuntimeError: it exited or did not listen in time.
            FileNotFoundError: its program is not installed (a Sentinel: neither
                ``redis-sentinel`` nor ``redis-server``).
        """
        sentinel = self.program == "redis-sentinel"
        head = sentinel_command(self.args[0]) if sentinel else [self.program, *SYNC_AT_ONCE]
        rest = self.args[1:] if sentinel else self.args
        self.child = Child(self.program, [
            *head, "--port", str(self.port), "--bind", "127.0.0.1", "--protected-mode", "no",
            "--dir", str(self.workdir), *rest, *extra], self.port, self.log)

    def signal(self, sig: int) -> None:
        """Send ``sig`` (SIGKILL waits until the process is gone)."""
        if self.child is not None and self.child.proc.poll() is None:
            self.child.proc.send_signal(sig)
            if sig == signal.SIGKILL:
                self.child.proc.wait(timeout=10)

    def stop(self) -> None:
        """Stop it: SIGCONT first (in case it was stopped), then SIGTERM, sent again every
        0.2 s until it exits (Redis drops a SIGTERM that comes while it writes its first AOF,
        e.g. just after a replica's sync: "Writing initial AOF, can't exit"), and SIGKILL
        after 10 s."""
        if self.child is None:
            return
        proc = self.child.proc
        with contextlib.suppress(ProcessLookupError):
            self.signal(signal.SIGCONT)
        deadline = time.monotonic() + 10
        while proc.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.2)
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        self.child.stop()  # whatever else the child holds

    def role(self) -> str:
        """``master`` or ``slave`` (``ROLE``; raises a Redis error when it does not answer)."""
        with _client(self.port) as c:
            return str(c.execute_command("ROLE")[0].decode())

    def cpu_seconds(self) -> float:
        """User + system CPU seconds of the running process (0 when not running)."""
        return cpu_seconds(self.pid) if self.pid else 0.0


_DATA = ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]


class SentinelSet:
    """One master, ``replicas`` replicas and ``sentinels`` Sentinels (quorum: a majority)
    watching it as :data:`SERVICE`.

    Args:
        workdir: Folder of the nodes' folders.
        replicas: Replicas of the first master.
        sentinels: Sentinel processes.
        down_after_ms: Sentinel ``down-after-milliseconds``: a master silent this long is
            down.
        failover_timeout_ms: Sentinel ``failover-timeout`` (a Sentinel starts another
            failover of the same master name at least twice this long after the last).
    """

    def __init__(self, workdir: Path, replicas: int = 2, sentinels: int = 3,
                 down_after_ms: int = 1500, failover_timeout_ms: int = 4000) -> None:
        self.workdir = workdir
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms
        self.nodes = [Node(workdir / f"redis-{i}", list(_DATA)) for i in range(1 + replicas)]
        self.quorum = sentinels // 2 + 1
        self.sentinels: list[Node] = []
        for i in range(sentinels):
            folder = workdir / f"sentinel-{i}"
            folder.mkdir(parents=True, exist_ok=True)
            self.sentinels.append(Node(folder, [str(folder / "sentinel.conf")],
                                       "redis-sentinel"))

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """The Sentinels' ``(host, port)``."""
        return [("127.0.0.1", s.port) for s in self.sentinels]

    def start(self) -> None:
        """Start the master, the replicas (until each is in sync) and the Sentinels (until
        all of them see every replica and each other).

        Raises:
            RuntimeError: a process did not start or the set did not settle in 30 s.
        """
        master = self.nodes[0]
        master.start()
        for node in self.nodes[1:]:
            node.start("--replicaof", "127.0.0.1", str(master.port))
        until(lambda: online_replicas(master.port) >= len(self.nodes) - 1, 30,
              "replicas in sync")
        for s in self.sentinels:
            (s.workdir / "sentinel.conf").write_text(
                f"sentinel monitor {SERVICE} 127.0.0.1 {master.port} {self.quorum}\n"
                f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}\n"
                f"sentinel failover-timeout {SERVICE} {self.failover_timeout_ms}\n"
                f"sentinel parallel-syncs {SERVICE} {len(self.nodes)}\n")
            s.start()
        until(self._settled, 30, "Sentinels see every replica and each other")

    def _settled(self) -> bool:
        for s in self.sentinels:
            with _client(s.port) as c:
                state = c.sentinel_master(SERVICE)
            if (int(state["num-slaves"]) < len(self.nodes) - 1
                    or int(state["num-other-sentinels"]) < len(self.sentinels) - 1):
                return False
        return True

    def master_port(self) -> int:
        """The master's port as a majority of the Sentinels name it.

        Raises:
            RuntimeError: no majority within 10 s.
        """
        def named() -> int | None:
            votes: dict[int, int] = {}
            for s in self.sentinels:
                with contextlib.suppress(redis.RedisError, OSError), _client(s.port) as c:
                    _, port = c.sentinel_get_master_addr_by_name(SERVICE)
                    votes[int(port)] = votes.get(int(port), 0) + 1
            best = max(votes, key=lambda p: votes[p], default=None)
            return best if best is not None and votes[best] >= self.quorum else None

        return int(until(named, 10, "a master named by the Sentinels"))

    def node(self, port: int) -> Node:
        """The node on ``port``."""
        return next(n for n in self.nodes if n.port == port)

    def wait_promoted(self, old_port: int, seconds: float = 30) -> int:
        """Wait until the Sentinels name another master than ``old_port`` and it answers as
        a master; its port.

        Raises:
            RuntimeError: not within ``seconds``.
        """
        def promoted() -> int | None:
            port = self.master_port()
            return port if port != old_port and self.node(port).role() == "master" else None

        return int(until(promoted, seconds, "a replica promoted by the Sentinels"))

    def restart_as_replica(self, node: Node) -> None:
        """Restart a killed node as a replica of the current master."""
        node.start("--replicaof", "127.0.0.1", str(self.master_port()))

    def cpu_seconds(self) -> float:
        """CPU seconds of every data node so far (killed ones' CPU is lost)."""
        return sum(n.cpu_seconds() for n in self.nodes)

    def stop(self) -> None:
        """Stop every process (Sentinels first)."""
        for node in [*self.sentinels, *self.nodes]:
            with contextlib.suppress(Exception):
                node.stop()


class ClusterSet:
    """A Redis Cluster of ``masters`` masters with ``replicas`` replica(s) each, made by
    ``redis-cli --cluster create``, every node with ``cluster-require-full-coverage no``
    (the other masters go on serving while one's slots fail over).

    Args:
        workdir: Folder of the nodes' folders.
        masters: Masters (3 at least).
        replicas: Replicas per master.
        node_timeout_ms: ``cluster-node-timeout``: a master silent this long is failed over.
    """

    def __init__(self, workdir: Path, masters: int = 3, replicas: int = 1,
                 node_timeout_ms: int = 2000) -> None:
        self.masters = masters
        self.replicas = replicas
        self.nodes = []
        for i in range(masters * (1 + replicas)):
            bus = free_port()
            self.nodes.append(Node(workdir / f"node-{i}", [
                *_DATA, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(node_timeout_ms), "--cluster-port", str(bus),
                "--cluster-require-full-coverage", "no"]))

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """Every node's ``(host, port)`` (seed nodes for clients)."""
        return [("127.0.0.1", n.port) for n in self.nodes]

    def start(self) -> None:
        """Start the nodes, create the cluster and wait until every node says ``ok`` and every
        master has its replicas online.

        Raises:
            RuntimeError: a node did not start, ``redis-cli`` failed, or the cluster did
                not settle in 60 s.
        """
        for node in self.nodes:
            node.start()
        done = subprocess.run(
            ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {done.stdout[-2000:]}")
        self.wait_healthy(60)

    def wait_healthy(self, seconds: float) -> None:
        """Until every running node says ``cluster_state:ok`` and each master has its
        replicas online.

        Raises:
            RuntimeError: not within ``seconds``.
        """
        def healthy() -> bool:
            for node in self.nodes:
                if node.pid is None:
                    continue
                with _client(node.port) as c:
                    if b"cluster_state:ok" not in c.execute_command("CLUSTER", "INFO"):
                        return False
            ports = self.master_ports()
            return len(ports) == self.masters and all(
                online_replicas(p) >= self.replicas for p in ports)

        until(healthy, seconds, "the cluster to be ok with every replica online", 0.2)

    def slots(self) -> dict[int, list[tuple[int, int]]]:
        """Slot ranges per master port, as a running node sees them (``CLUSTER SLOTS``)."""
        for node in self.nodes:
            if node.pid is None:
                continue
            with contextlib.suppress(redis.RedisError, OSError), _client(node.port) as c:
                out: dict[int, list[tuple[int, int]]] = {}
                for start, end, master, *_ in c.execute_command("CLUSTER SLOTS"):
                    out.setdefault(int(master[1]), []).append((int(start), int(end)))
                return out
        raise RuntimeError("no cluster node answers")

    def master_ports(self) -> list[int]:
        """The ports of the masters that own slots now."""
        return sorted(self.slots())

    def master_of(self, slot: int) -> int:
        """The port of the master owning ``slot``."""
        for port, ranges in self.slots().items():
            if any(a <= slot <= b for a, b in ranges):
                return port
        raise RuntimeError(f"nobody owns slot {slot}")

    def node(self, port: int) -> Node:
        """The node on ``port``."""
        return next(n for n in self.nodes if n.port == port)

    def cpu_seconds(self) -> float:
        """CPU seconds of every node so far (killed ones' CPU is lost)."""
        return sum(n.cpu_seconds() for n in self.nodes)

    def stop(self) -> None:
        """Stop every node."""
        for node in self.nodes:
            with contextlib.suppress(Exception):
                node.stop()
