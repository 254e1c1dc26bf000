#!/usr/bin/env bash
# Changes the key of the nginx test server's rotating TLS server: swaps rotating.pem/.key between the two
# self-signed certificates make-pki.sh made (a, b), reloads nginx (SIGHUP to its master) and waits, at most
# 10 s, until the port serves the new certificate. Prints the SHA-256 fingerprint now served.
#
#   Servers/nginx/rotate-key.sh <state-dir>      (the nginx server's state folder, e.g. .servers/nginx)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 <state-dir>" >&2; exit 2; }
state=$1 pki=$1/pki
port=$(sed -n 's/^ROTATING=//p' "$state/ports")
[ -n "$port" ] && [ -s "$state/nginx.pid" ] || { echo "$0: nginx is not running from $state" >&2; exit 1; }
if cmp -s "$pki/rotating.pem" "$pki/rotating-a.pem"; then next=b; else next=a; fi
cp "$pki/rotating-$next.key" "$pki/rotating.key.tmp" && mv "$pki/rotating.key.tmp" "$pki/rotating.key"
cp "$pki/rotating-$next.pem" "$pki/rotating.pem.tmp" && mv "$pki/rotating.pem.tmp" "$pki/rotating.pem"
want=$(openssl x509 -in "$pki/rotating.pem" -noout -fingerprint -sha256 | cut -d= -f2)
kill -HUP "$(cat "$state/nginx.pid")"
for _ in $(seq 1 100); do
    served=$(openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null \
        | openssl x509 -noout -fingerprint -sha256 2>/dev/null | cut -d= -f2 || true)
    if [ "$served" = "$want" ]; then echo "$want"; exit 0; fi
    sleep 0.1
done
echo "$0: the new certificate was not served within 10 s" >&2
exit 1
