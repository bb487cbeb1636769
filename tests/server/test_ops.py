"""Operations: /healthz and /metrics on the WebSocket port, the local cluster script, and
the deployment files (haproxy with TLS, the compose file, Prometheus, the Grafana dashboard)."""

from __future__ import annotations

import asyncio
import gc
import http.client
import ipaddress
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from cardhall.client.bots import play_games
from cardhall.server.app import Server, tune_gc
from cardhall.server.config import Settings
from cardhall.server.metrics import HEALTH_FRESH_SECONDS
from cardhall.server.store.redis_store import RedisStore
from cardhall.server.store.memory_store import MemoryStore

from ..conftest import RedisProcess, free_port, serving

ROOT = Path(__file__).resolve().parents[2]


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
        await asyncio.sleep(HEALTH_FRESH_SECONDS)  # an answer is reused this long
        assert (await asyncio.to_thread(get, http))[0] == 503
        redis.start()
        await asyncio.sleep(HEALTH_FRESH_SECONDS)
        assert (await asyncio.to_thread(get, http))[0] == 200
    finally:
        await server.stop()
        redis.stop()


def test_local_cluster_script_serves_games_through_haproxy() -> None:
    if shutil.which("haproxy") is None or shutil.which("redis-server") is None:
        pytest.skip("haproxy and redis-server are needed")
    # The script puts its two servers on PORT + 1 and PORT + 2: those must be free too,
    # and Redis's port must not be one of them.
    # haproxy on PORT, the servers on PORT + 1..2, Redis on PORT + 3 (free_port draws
    # them below the ephemeral range, where no outgoing connection can take one first).
    port = free_port(span=4)
    redis_port = port + 3
    env = dict(os.environ, PORT=str(port), REDIS_PORT=str(redis_port))
    # The script runs `cardhall`: this interpreter's, whatever else is on PATH first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.run([str(ROOT / "deploy" / "local-cluster.sh"), "--check"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    games = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(games) == 2
    # issue #33: behind haproxy (--trusted-proxy 127.0.0.1/32), the operator on the host
    # scrapes each server and calls its admin API directly, without a PROXY header.
    for server_port in (port + 1, port + 2):
        said = re.search(rf"metrics of :{server_port}: (\d+) cardhall_ samples", proc.stdout)
        assert said and int(said.group(1)) > 10, proc.stdout[-2000:]
    rooms = {json.loads(line)["room"] for line in games}
    listing = proc.stdout[proc.stdout.index("owner"):]
    assert all(room in listing for room in rooms), listing


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["--sentinel", "--cluster"])
def test_local_cluster_script_runs_replicated_redis(mode: str) -> None:
    """``local-cluster.sh --sentinel`` (1 master + 2 replicas + 3 Sentinels) and
    ``--cluster`` (3 masters + 3 replicas) serve games through haproxy too."""
    tools = ("haproxy", "redis-server", "redis-sentinel", "redis-cli")
    if any(shutil.which(t) is None for t in tools):
        pytest.skip(f"{', '.join(tools)} are needed")
    # haproxy on PORT, the servers on PORT + 1..2; Redis nodes on REDIS_PORT + 0..5,
    # Sentinels + 10..12, the Cluster's bus + 20..25 (REDIS_PORT = PORT + 10).
    port = free_port(span=36)
    redis_port = port + 10
    env = dict(os.environ, PORT=str(port), REDIS_PORT=str(redis_port))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.run([str(ROOT / "deploy" / "local-cluster.sh"), mode, "--check"],
                          env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"redis ({mode[2:]})" in proc.stdout
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


# -- deployment files -------------------------------------------------------------------------

DEPLOY = ROOT / "deploy"
CERT_IN_CONTAINER = "/usr/local/etc/haproxy/certs/cardhall.pem"


def make_cert(folder: Path) -> tuple[Path, Path]:
    """Run deploy/make-cert.sh into ``folder``: ``(haproxy's PEM, the CA file)``."""
    proc = subprocess.run([str(DEPLOY / "make-cert.sh"), str(folder)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not (folder / "cardhall.key").exists()  # the key lives in the PEM only
    return folder / "cardhall.pem", folder / "cardhall.crt"


def local_haproxy_cfg(pem: Path, port: int, server_port: int) -> str:
    """The shipped haproxy.cfg with its TLS bind on 127.0.0.1:``port`` using ``pem`` and
    its one server on 127.0.0.1:``server_port`` (as deploy/local-cluster.sh rewrites it)."""
    cfg = (DEPLOY / "haproxy.cfg").read_text()
    bind = f"bind *:8443 ssl crt {CERT_IN_CONTAINER}"
    assert bind in cfg
    cfg = cfg.replace(bind, f"bind 127.0.0.1:{port} ssl crt {pem}")
    cfg = cfg.replace("cardhall-1:8765", f"127.0.0.1:{server_port}")
    return "\n".join(line for line in cfg.splitlines() if "cardhall-2" not in line) + "\n"


def frontend(cfg: str) -> list[str]:
    """The lines of haproxy's public ``frontend`` section."""
    section = re.search(r"^frontend \S+\n((?:[ \t].*\n|\s*\n)*)", cfg, re.MULTILINE)
    assert section is not None
    return [line.split("#")[0].strip() for line in section.group(1).splitlines()
            if line.split("#")[0].strip()]


def test_shipped_haproxy_config_is_valid_with_a_made_certificate(tmp_path: Path) -> None:
    if shutil.which("haproxy") is None or shutil.which("openssl") is None:
        pytest.skip("haproxy and openssl are needed")
    pem, _ = make_cert(tmp_path / "certs")
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(local_haproxy_cfg(pem, free_port(), free_port()))
    proc = subprocess.run(["haproxy", "-c", "-f", str(cfg)], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = frontend((DEPLOY / "haproxy.cfg").read_text())
    binds = [line for line in lines if line.startswith("bind ")]
    assert binds == [f"bind *:8443 ssl crt {CERT_IN_CONTAINER} alpn http/1.1"]  # TLS only
    assert "http-request deny deny_status 403 if { path -i -m beg /metrics /admin }" in lines


async def test_public_side_is_tls_only_and_never_serves_metrics_or_admin(
        tmp_path: Path) -> None:
    if shutil.which("haproxy") is None or shutil.which("openssl") is None:
        pytest.skip("haproxy and openssl are needed")
    pem, ca = make_cert(tmp_path / "certs")
    port = free_port()
    async with serving(MemoryStore) as make:
        server = await make(trusted_proxies=("127.0.0.1/32",))
        (tmp_path / "haproxy.cfg").write_text(local_haproxy_cfg(pem, port, server.port))
        proxy = await asyncio.create_subprocess_exec(
            "haproxy", "-f", str(tmp_path / "haproxy.cfg"), "-db",
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        context = ssl.create_default_context(cafile=str(ca))

        def public(path: str) -> int:
            conn = http.client.HTTPSConnection("localhost", port, timeout=5, context=context)
            try:
                conn.request("GET", path)
                return conn.getresponse().status
            finally:
                conn.close()

        def private(path: str) -> int:  # what Prometheus sees on the private network
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5,
                                              source_address=("127.0.0.2", 0))
            try:
                conn.request("GET", path)
                return conn.getresponse().status
            finally:
                conn.close()

        try:
            async with asyncio.timeout(20):  # haproxy up and its first health check passed
                while True:
                    try:
                        if await asyncio.to_thread(public, "/healthz") == 200:
                            break
                    except OSError:
                        pass
                    await asyncio.sleep(0.2)
            for path in ("/metrics", "/METRICS", "/metrics?x=1", "/admin", "/admin/drain"):
                assert await asyncio.to_thread(public, path) == 403, path
            assert await asyncio.to_thread(private, "/metrics") == 200
            with pytest.raises((OSError, http.client.HTTPException)):  # no plain text
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                try:
                    conn.request("GET", "/healthz")
                    conn.getresponse()
                finally:
                    conn.close()
        finally:
            proxy.terminate()
            await proxy.wait()


def test_compose_publishes_tls_only_and_keeps_metrics_private() -> None:
    compose: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    published = {name: svc["ports"] for name, svc in services.items() if "ports" in svc}
    assert published == {"haproxy": ["443:8443"], "grafana": ["127.0.0.1:3000:3000"]}
    cfg = (DEPLOY / "haproxy.cfg").read_text()
    assert "bind *:8443 ssl crt " + CERT_IN_CONTAINER in cfg  # 443 -> haproxy's TLS bind
    assert f"./certs/cardhall.pem:{CERT_IN_CONTAINER}:ro" in services["haproxy"]["volumes"]
    assert compose["networks"]["private"]["internal"] is True
    servers = sorted(name for name, svc in services.items() if "build" in svc)
    assert servers == ["cardhall-1", "cardhall-2"]
    for name in [*servers, "redis", "prometheus"]:
        assert services[name]["networks"] == ["private"], name  # unreachable from outside
    # The servers trust haproxy's fixed address only, which no other container can get.
    haproxy_ip = services["haproxy"]["networks"]["private"]["ipv4_address"]
    [ipam] = compose["networks"]["private"]["ipam"]["config"]
    assert ipaddress.ip_address(haproxy_ip) in ipaddress.ip_network(ipam["subnet"])
    assert ipaddress.ip_address(haproxy_ip) not in ipaddress.ip_network(ipam["ip_range"])
    for name in servers:
        assert services[name]["command"] == ["--trusted-proxy", f"{haproxy_ip}/32"]
    # Prometheus scrapes every server directly, on the private network.
    prom = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    [job] = prom["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == [f"{s}:8765" for s in servers]
    assert "./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in \
        services["prometheus"]["volumes"]
    # Grafana: the provisioned data source is the dashboard's, the dashboard is mounted
    # where the provider reads.
    source = yaml.safe_load((DEPLOY / "grafana/provisioning/datasources/prometheus.yaml")
                            .read_text())["datasources"][0]
    assert source["url"] == "http://prometheus:9090"
    [provider] = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/cardhall.yaml")
                                .read_text())["providers"]
    mount = f"./grafana/cardhall.json:{provider['options']['path']}/cardhall.json:ro"
    assert mount in services["grafana"]["volumes"]
    dashboard = json.loads((DEPLOY / "grafana" / "cardhall.json").read_text())
    uids = {p["datasource"]["uid"] for p in dashboard["panels"] if "datasource" in p}
    assert uids == {source["uid"]}


def _overlay(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Compose's merge of an override file: mappings merged key by key, anything else
    replaced."""
    out = dict(base)
    for k, v in extra.items():
        out[k] = _overlay(out[k], v) if isinstance(v, dict) and isinstance(out.get(k),
                                                                           dict) else v
    return out


def test_compose_overlays_run_replicated_redis_on_the_private_network() -> None:
    """compose.sentinel.yaml: 1 master + 2 replicas + 3 Sentinels (quorum 2); and
    compose.cluster.yaml: 6 nodes made 3 masters + 3 replicas; the servers name them and
    nothing of them is published."""
    base = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    subnet = ipaddress.ip_network(base["networks"]["private"]["ipam"]["config"][0]["subnet"])
    dynamic = ipaddress.ip_network(base["networks"]["private"]["ipam"]["config"][0][
        "ip_range"])
    for name in ("sentinel", "cluster"):
        compose = _overlay(base, yaml.safe_load((DEPLOY / f"compose.{name}.yaml").read_text()))
        services = compose["services"]
        redis_nodes = [n for n in services if n.startswith("redis")]
        for node in [*redis_nodes, *(n for n in services if n.startswith("sentinel"))]:
            assert "ports" not in services[node], node
            nets = services[node]["networks"]
            assert list(nets) == ["private"], node
            if isinstance(nets, dict) and nets["private"]:  # a fixed address: not dynamic
                ip = ipaddress.ip_address(nets["private"]["ipv4_address"])
                assert ip in subnet and ip not in dynamic, node
        env = [services[s]["environment"] for s in ("cardhall-1", "cardhall-2")]
        assert all(e["CARDHALL_REDIS_URL"] == "" for e in env)
        if name == "sentinel":
            sentinels = sorted(n for n in services if n.startswith("sentinel"))
            assert len(sentinels) == 3
            script = services[sentinels[0]]["entrypoint"][-1]
            assert "sentinel monitor cardhall redis 6379 2" in script
            replicas = [n for n in redis_nodes if "--replicaof" in services[n]["command"]]
            assert len(replicas) == 2
            assert all(e["CARDHALL_REDIS_SENTINEL"].split() == [f"{s}:26379" for s in
                                                                  sentinels] for e in env)
        else:
            assert len(redis_nodes) == 7  # six nodes and the one-shot init
            nodes = [n for n in redis_nodes if "command" in services[n]]
            assert all("--cluster-enabled" in services[n]["command"] for n in nodes)
            init = services["redis-cluster-init"]["entrypoint"][-1]
            addresses = [services[n]["networks"]["private"]["ipv4_address"] for n in nodes]
            assert all(f"{a}:6379" in init for a in addresses) and "--cluster-replicas 1" \
                in init
            seeds = env[0]["CARDHALL_REDIS_CLUSTER"].split()
            assert seeds and set(seeds) <= {f"{a}:6379" for a in addresses}


def test_the_image_copies_every_folder_of_the_package() -> None:
    """deploy/Dockerfile copies each folder pyproject maps into ``cardhall``
    (``package-dir``), or ``pip install`` in the image fails on the missing one (the command
    line's ``cli/`` included)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = set(config["tool"]["setuptools"]["package-dir"].values())
    copied = set(re.findall(r"^COPY (\S+) \./\1$",
                            (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8"),
                            re.MULTILINE))
    assert folders <= copied, folders - copied


def test_no_private_key_is_committed() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=30)

    for name in ("cardhall.pem", "cardhall.crt", "cardhall.key"):  # what make-cert.sh writes
        assert git("check-ignore", "-q", f"deploy/certs/{name}").returncode == 0, name
    assert git("check-ignore", "-q", "deploy/certs/.gitignore").returncode == 1
    tracked = git("ls-files", "deploy").stdout.split()
    assert "deploy/haproxy.cfg" in tracked
    assert [f for f in tracked if f.startswith("deploy/certs/")] in ([], [
        "deploy/certs/.gitignore"])
    for name in tracked:
        assert "PRIVATE KEY-----" not in (ROOT / name).read_text(encoding="utf-8"), name


async def test_grafana_dashboard_queries_only_metrics_the_server_exports() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "cardhall.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    exprs += [v["query"]["query"] for v in dashboard["templating"]["list"]]
    used = {name for e in exprs for name in re.findall(r"\bcardhall_[a-z_]+\b", e)}
    assert len(exprs) >= 15 and len(used) >= 15
    async with serving(MemoryStore) as make:
        server = await make()
        await play_games([server.url], "skipper", "solo", 1, 1, "greedy", seed=2, timeout=60)
        _, _, body = await asyncio.to_thread(get, f"http://127.0.0.1:{server.port}/metrics")
    exported = {re.split(r"[{ ]", line, maxsplit=1)[0] for line in body.splitlines()
                if line and not line.startswith("#")}
    assert sorted(used - exported) == []
    labels = {"game", "mode", "outcome", "code", "reason", "instance", "le"}
    for e in exprs:
        for group in re.findall(r"by \(([^)]*)\)", e):
            assert {g.strip() for g in group.split(",")} <= labels, e
