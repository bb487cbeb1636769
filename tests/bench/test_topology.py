"""Redis processes for the drills (``bench/topology.py``): :func:`until` polls through Redis
errors and names what did not happen in time; a :class:`Node` is a real ``redis-server`` on
its own port and folder, which survives ``kill -9`` and a restart with its data (append-only
file), and a second node started as its replica is counted in sync by
:func:`online_replicas`; a Sentinel runs as ``redis-server --sentinel`` where
``redis-sentinel`` is missing. The Sentinel and Cluster sets run in
tests/bench/test_ha_chaos.py and tests/e2e/test_redis_ha.py."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest
import redis

from cardhall.bench import procs
from cardhall.bench.topology import Node, online_replicas, until

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None,
                                 reason="redis-server is not installed")


def test_until_returns_the_first_truthy_value_and_counts_redis_errors_as_falsy() -> None:
    answers = iter([redis.ConnectionError("down"), 0, OSError("refused"), "", "ready"])

    def check() -> object:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert until(check, 5, "ready", poll=0.001) == "ready"


def test_until_names_what_did_not_happen_in_time() -> None:
    with pytest.raises(RuntimeError, match=r"the replica syncing: not within 0.05 s"):
        until(lambda: False, 0.05, "the replica syncing", poll=0.01)
    with pytest.raises(ValueError):  # not a Redis error: not swallowed
        until(lambda: int("x"), 1, "never")


@needs_redis
def test_a_node_keeps_its_data_across_kill_9_and_serves_a_replica(tmp_path: Path) -> None:
    data = ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
    master = Node(tmp_path / "master", data)
    replica = Node(tmp_path / "replica", data)
    try:
        master.start()
        assert master.pid is not None and master.role() == "master"
        with redis.Redis(port=master.port) as c:
            c.set("k", "v")
        port = master.port
        master.signal(signal.SIGKILL)
        assert master.pid is None
        master.start()  # the same port and folder
        assert master.port == port
        with redis.Redis(port=master.port) as c:
            assert c.get("k") == b"v"
        replica.start("--replicaof", "127.0.0.1", str(master.port))
        assert replica.role() == "slave"
        assert until(lambda: online_replicas(master.port) == 1, 15, "the replica syncing")
        with redis.Redis(port=replica.port) as c:
            assert until(lambda: c.get("k"), 15, "the key reaching the replica") == b"v"
    finally:
        replica.stop()
        master.stop()
    assert master.pid is None and replica.pid is None


# -- a Sentinel without a redis-sentinel binary (issue #41 item 9) ------------------------

def test_a_sentinel_runs_as_redis_server_sentinel_when_redis_sentinel_is_missing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Debian ships redis-sentinel apart from redis-server: without it, redis-server runs the
    # Sentinel (its config file first, then --sentinel).
    found = {"redis-server": "/usr/bin/redis-server", "redis-sentinel": None}
    monkeypatch.setattr(procs.shutil, "which", lambda name: found[name])
    assert procs.sentinel_command("s.conf") == ["redis-server", "s.conf", "--sentinel"]
    found["redis-sentinel"] = "/usr/bin/redis-sentinel"
    assert procs.sentinel_command("s.conf") == ["redis-sentinel", "s.conf"]
    found["redis-sentinel"] = found["redis-server"] = None
    with pytest.raises(FileNotFoundError, match="redis-sentinel nor redis-server"):
        procs.sentinel_command("s.conf")


@needs_redis
def test_a_sentinel_starts_with_only_redis_server_on_the_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = shutil.which("redis-server")
    assert server is not None
    bin_dir = tmp_path / "bin"  # a PATH with redis-server and no redis-sentinel
    bin_dir.mkdir()
    (bin_dir / "redis-server").symlink_to(server)
    monkeypatch.setenv("PATH", str(bin_dir))
    folder = tmp_path / "sentinel"
    folder.mkdir()
    node = Node(folder, [str(folder / "sentinel.conf")], "redis-sentinel")
    (folder / "sentinel.conf").write_text("")
    try:
        node.start()
        assert node.role() == "sentinel"
    finally:
        node.stop()
