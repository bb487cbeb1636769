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
set -euo pipefail
PORT=${PORT:-8443}
REDIS_PORT=${REDIS_PORT:-$((PORT + 9))}
S1=$((PORT + 1)); S2=$((PORT + 2))
for tool in redis-server haproxy openssl curl cardhall; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install redis-server haproxy openssl curl)" >&2; exit 1; }
done
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
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

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --appendonly yes --dir "$work" --save "" \
  >"$work/redis.log" 2>&1 &
pids+=($!)
wait_port "$REDIS_PORT"
# The admin API's token (cardhall admin ... --token-file): $CARDHALL_ADMIN_TOKEN, or a new one.
(umask 077; echo "${CARDHALL_ADMIN_TOKEN:-$(openssl rand -hex 16)}" >"$work/admin-token")
for port in "$S1" "$S2"; do
  # haproxy (127.0.0.1) sends a PROXY v2 header first (send-proxy-v2): trust it. Players
  # reach the servers through haproxy only; a connection from 127.0.0.1 without a PROXY
  # header (curl .../metrics, cardhall admin) is this host's own, served directly.
  cardhall serve --host 127.0.0.1 --port "$port" --redis-url "redis://127.0.0.1:$REDIS_PORT/0" \
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
  "redis :$REDIS_PORT, logs in $work; admin: cardhall admin rooms --url" \
  "http://127.0.0.1:$S1 --token-file $work/admin-token)"

if [ "${1:-}" = "--check" ]; then
  sleep 1.5  # haproxy's first health checks
  SSL_CERT_FILE="$work/certs/cardhall.crt" \
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
