#!/usr/bin/env bash
# The compose topology on 127.0.0.1 without Docker: redis-server (append-only), two
# `cardhall serve` processes sharing it, haproxy in front ending TLS with a self-signed
# certificate made by make-cert.sh (Debian's redis-server, haproxy and openssl).
#
#   deploy/local-cluster.sh                 run until Ctrl-C; clients use wss://localhost:8443
#                                           with the CA file it prints (SSL_CERT_FILE=...)
#   deploy/local-cluster.sh --check         start, play 2 bot games through haproxy, read a
#                                           server's /metrics and admin API directly, stop
#   PORT=9000 deploy/local-cluster.sh       haproxy on another port (servers use the next ones)
#   deploy/local-cluster.sh --sentinel      Redis as 1 master + 2 replicas + 3 Sentinels
#                                           (redis-sentinel), servers on --redis-sentinel
#   deploy/local-cluster.sh --cluster       Redis as a Cluster of 3 masters + 3 replicas
#                                           (redis-cli makes it), servers on --redis-cluster
# Redis nodes listen on REDIS_PORT and the next 5, Sentinels on REDIS_PORT+10..12, the
# Cluster's bus on REDIS_PORT+20..25. --sentinel/--cluster go before --check.
set -euo pipefail
PORT=${PORT:-8443}
REDIS_PORT=${REDIS_PORT:-$((PORT + 9))}
S1=$((PORT + 1)); S2=$((PORT + 2))
MODE=lone
case "${1:-}" in
  --sentinel) MODE=sentinel; shift ;;
  --cluster) MODE=cluster; shift ;;
esac
tools="redis-server haproxy openssl curl cardhall"
[ "$MODE" = sentinel ] && tools="$tools redis-sentinel"
[ "$MODE" = cluster ] && tools="$tools redis-cli"
for tool in $tools; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install redis-server redis-sentinel haproxy openssl curl)" >&2; exit 1; }
done
work=$(mktemp -d)
pids=()
cleanup() {
  # Newest first (haproxy, the servers, then Redis), each given 10 s before SIGKILL, so that
  # the servers stop while Redis still answers and nothing can keep the script waiting.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[$i]}
    kill "$pid" 2>/dev/null || continue
    # SIGTERM again each time: Redis drops one that comes while it writes its first AOF
    # (a replica just synced: "Writing initial AOF, can't exit").
    for _ in $(seq 100); do kill "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

wait_port() {  # wait_port PORT: until something listens (10 s at most)
  for _ in $(seq 100); do
    (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1; logs:" >&2; tail -n 20 "$work"/*.log >&2; exit 1
}

redis_node() {  # redis_node PORT [OPTIONS...]: an append-only redis-server in its own folder
  local port=$1; shift
  mkdir -p "$work/redis-$port"
  # A replica's full sync starts at once (Redis waits 5 s by default for more replicas to
  # share one transfer; a master here has at most two).
  redis-server --port "$port" --bind 127.0.0.1 --appendonly yes --dir "$work/redis-$port" \
    --save "" --repl-diskless-sync-delay 0 "$@" >"$work/redis-$port.log" 2>&1 &
  pids+=($!)
  wait_port "$port"
}

case "$MODE" in
  lone)
    redis_node "$REDIS_PORT"
    redis_args=(--redis-url "redis://127.0.0.1:$REDIS_PORT/0") ;;
  sentinel)
    redis_node "$REDIS_PORT"
    for i in 1 2; do redis_node $((REDIS_PORT + i)) --replicaof 127.0.0.1 "$REDIS_PORT"; done
    redis_args=(--redis-service cardhall)
    for i in 0 1 2; do
      sport=$((REDIS_PORT + 10 + i))
      mkdir -p "$work/sentinel-$sport"
      printf '%s\n' "sentinel monitor cardhall 127.0.0.1 $REDIS_PORT 2" \
        "sentinel down-after-milliseconds cardhall 2000" \
        "sentinel failover-timeout cardhall 10000" >"$work/sentinel-$sport/sentinel.conf"
      redis-sentinel "$work/sentinel-$sport/sentinel.conf" --port "$sport" --bind 127.0.0.1 \
        --dir "$work/sentinel-$sport" >"$work/sentinel-$sport.log" 2>&1 &
      pids+=($!)
      wait_port "$sport"
      redis_args+=(--redis-sentinel "127.0.0.1:$sport")
    done ;;
  cluster)
    nodes=()
    redis_args=()
    for i in 0 1 2 3 4 5; do
      redis_node $((REDIS_PORT + i)) --cluster-enabled yes --cluster-config-file nodes.conf \
        --cluster-node-timeout 2000 --cluster-port $((REDIS_PORT + 20 + i)) \
        --cluster-require-full-coverage no
      nodes+=("127.0.0.1:$((REDIS_PORT + i))")
      redis_args+=(--redis-cluster "127.0.0.1:$((REDIS_PORT + i))")
    done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes \
      >"$work/cluster-create.log" 2>&1 || { tail -n 20 "$work/cluster-create.log" >&2; exit 1; }
    for _ in $(seq 100); do
      redis-cli -p "$REDIS_PORT" cluster info | grep -q "cluster_state:ok" && break
      sleep 0.1
    done ;;
esac
# With Sentinel or Cluster every action waits for a replica (WAIT): wait until they are in sync.
replicas=$([ "$MODE" = sentinel ] && echo 2 || echo 3)
[ "$MODE" = lone ] || for _ in $(seq 300); do
  up=0
  for i in 0 1 2 3 4 5; do
    (echo >"/dev/tcp/127.0.0.1/$((REDIS_PORT + i))") 2>/dev/null || continue
    redis-cli -p $((REDIS_PORT + i)) info replication | grep -q "master_link_status:up" \
      && up=$((up + 1))
  done
  [ "$up" -ge "$replicas" ] && break
  sleep 0.1
done
# The admin API's token (cardhall admin ... --token-file): $CARDHALL_ADMIN_TOKEN, or a new one.
(umask 077; echo "${CARDHALL_ADMIN_TOKEN:-$(openssl rand -hex 16)}" >"$work/admin-token")
for port in "$S1" "$S2"; do
  # haproxy (127.0.0.1) sends a PROXY v2 header first (send-proxy-v2): trust it. Players
  # reach the servers through haproxy only; a connection from 127.0.0.1 without a PROXY
  # header (curl .../metrics, cardhall admin) is this host's own, served directly.
  cardhall serve --host 127.0.0.1 --port "$port" "${redis_args[@]}" \
    --trusted-proxy 127.0.0.1/32 --admin-token-file "$work/admin-token" \
    --log-level WARNING >"$work/serve-$port.log" 2>&1 &
  pids+=($!)
done
wait_port "$S1"; wait_port "$S2"
"$(dirname "$0")/make-cert.sh" "$work/certs" >/dev/null
sed -e "s#bind \*:8443 ssl crt [^ ]*#bind 127.0.0.1:$PORT ssl crt $work/certs/cardhall.pem#" \
    -e "s/server cardhall-1 cardhall-1:8765/server cardhall-1 127.0.0.1:$S1/" \
    -e "s/server cardhall-2 cardhall-2:8765/server cardhall-2 127.0.0.1:$S2/" \
    "$(dirname "$0")/haproxy.cfg" >"$work/haproxy.cfg"
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
pids+=($!)
wait_port "$PORT"
echo "cluster up: wss://localhost:$PORT (CA file $work/certs/cardhall.crt; servers :$S1 :$S2," \
  "redis ($MODE) :$REDIS_PORT, logs in $work; admin: cardhall admin rooms --url" \
  "http://127.0.0.1:$S1 --token-file $work/admin-token)"

if [ "${1:-}" = "--check" ]; then
  sleep 1.5  # haproxy's first health checks
  SSL_CERT_FILE="$work/certs/cardhall.crt" timeout 120 \
    cardhall bots --url "wss://localhost:$PORT" --game skipper --mode multi --players 4 \
    --games 2 --json
  # The operator on this host reaches each server directly, without haproxy's PROXY header.
  for port in "$S1" "$S2"; do
    metrics=$(curl -fsS "http://127.0.0.1:$port/metrics")
    echo "metrics of :$port: $(grep -c '^cardhall_' <<<"$metrics") cardhall_ samples"
  done
  cardhall admin rooms --url "http://127.0.0.1:$S1" --token-file "$work/admin-token"
  exit 0
fi
wait
