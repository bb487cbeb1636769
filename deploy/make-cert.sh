#!/usr/bin/env bash
# A self-signed TLS certificate for haproxy's public frontend (testing and private use; in
# production put a certificate of a real CA in the same file, e.g. from certbot:
# cat fullchain.pem privkey.pem > deploy/certs/cardhall.pem).
#
#   deploy/make-cert.sh                       deploy/certs/cardhall.pem for localhost
#   deploy/make-cert.sh DIR cards.example     DIR/cardhall.pem for that host name
#
# Writes DIR/cardhall.pem (certificate then private key: haproxy's `crt` format) and
# DIR/cardhall.crt (the certificate alone: give it to clients as their CA file, e.g.
# SSL_CERT_FILE=deploy/certs/cardhall.crt cardhall bots --url wss://localhost:8443).
# The key never leaves DIR: deploy/certs/ is ignored by git (never commit a private key).
set -euo pipefail
dir=${1:-"$(dirname "$0")/certs"}
host=${2:-localhost}
command -v openssl >/dev/null || { echo "missing: openssl" >&2; exit 1; }
mkdir -p "$dir"
chmod 700 "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 365 \
  -subj "/CN=$host" -addext "subjectAltName=DNS:$host,DNS:localhost,IP:127.0.0.1" \
  -keyout "$dir/cardhall.key" -out "$dir/cardhall.crt" 2>/dev/null
cat "$dir/cardhall.crt" "$dir/cardhall.key" >"$dir/cardhall.pem"
rm "$dir/cardhall.key"
# haproxy's container user (uid 99) reads the file through its bind mount; the folder
# (0700) keeps other users of this host out.
chmod 644 "$dir/cardhall.pem"
echo "$dir/cardhall.pem (CN=$host, 365 days)"
