"""Operations: /healthz and /metrics on the WebSocket port, and the local cluster script."""

from __future__ import annotations

import asyncio
import gc
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from cardhall.client.bots import play_games
from cardhall.server.app import Server, tune_gc
from cardhall.server.config import Settings
from cardhall.server.redis_store import RedisStore

from .conftest import RedisProcess, free_port

ROOT = Path(__file__).resolve().parent.parent


def get(url: str) -> tuple[int, str, str]:
    """``(status, content type, body)`` of an HTTP GET (errors included)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read().decode()


async def test_healthz_and_metrics(server: Server) -> None:
    http = f"http://127.0.0.1:{server.port}"
    status, _, body = await asyncio.to_thread(get, http + "/healthz")
    assert (status, body) == (200, "ok\n")
    await play_games([server.url], "skipper", "solo", 1, 1, "greedy", seed=2, timeout=60)
    status, ctype, body = await asyncio.to_thread(get, http + "/metrics")
    assert status == 200 and ctype.startswith("text/plain")
    lines = dict(line.rsplit(" ", 1) for line in body.splitlines()
                 if line and not line.startswith("#"))
    assert float(lines["cardhall_rooms"]) == 1
    assert float(lines["cardhall_actions_total"]) > 10
    assert float(lines["cardhall_action_latency_seconds_count"]) > 10
    assert "cardhall_store_errors_total" in lines and "cardhall_connections" in lines


async def test_healthz_is_503_while_redis_is_down(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    redis = RedisProcess(tmp_path)
    redis.start()
    server = Server(Settings(port=0), RedisStore(redis.url))
    await server.start()
    try:
        http = f"http://127.0.0.1:{server.port}/healthz"
        assert (await asyncio.to_thread(get, http))[0] == 200
        redis.stop()
        assert (await asyncio.to_thread(get, http))[0] == 503
        redis.start()
        assert (await asyncio.to_thread(get, http))[0] == 200
    finally:
        await server.stop()
        redis.stop()


def test_local_cluster_script_serves_games_through_haproxy() -> None:
    if shutil.which("haproxy") is None or shutil.which("redis-server") is None:
        pytest.skip("haproxy and redis-server are needed")
    port = free_port()
    proc = subprocess.run([str(ROOT / "deploy" / "local-cluster.sh"), "--check"],
                          env={**__import__("os").environ, "PORT": str(port),
                               "REDIS_PORT": str(free_port())},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    games = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(games) == 2


def test_tune_gc_freezes_startup_objects_and_sets_the_young_threshold() -> None:
    before = gc.get_threshold()
    try:
        tune_gc(None)
        assert gc.get_threshold() == before
        tune_gc(12_345)
        assert gc.get_threshold() == (12_345, *before[1:])
        assert gc.get_freeze_count() > 1000  # modules, classes, functions of this process
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
