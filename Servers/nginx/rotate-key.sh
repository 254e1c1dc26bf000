#!/usr/bin/env bash
# Changes the key of the nginx test server's rotating TLS server: points the link `rotating` at the other of the
# two self-signed pairs make-pki.sh made (a, b), in one rename, and waits, at most 10 s, until the port serves the
# new certificate (nginx reads it at every handshake: no reload, so no other server's connections are touched).
# Prints the SHA-256 fingerprint now served.
#
#   Servers/nginx/rotate-key.sh <state-dir>      (the nginx server's state folder, e.g. .servers/nginx)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 <state-dir>" >&2; exit 2; }
state=$1 pki=$1/pki
port=$(sed -n 's/^ROTATING=//p' "$state/ports")
[ -n "$port" ] && [ -L "$pki/rotating" ] || { echo "$0: nginx is not running from $state" >&2; exit 1; }
if [ "$(readlink "$pki/rotating")" = rotating-a.d ]; then next=b; else next=a; fi
ln -sfn "rotating-$next.d" "$pki/rotating.new" && mv -T "$pki/rotating.new" "$pki/rotating"
want=$(openssl x509 -in "$pki/rotating-$next.pem" -noout -fingerprint -sha256 | cut -d= -f2)
for _ in $(seq 1 100); do
    served=$(openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null \
        | openssl x509 -noout -fingerprint -sha256 2>/dev/null | cut -d= -f2 || true)
    if [ "$served" = "$want" ]; then echo "$want"; exit 0; fi
    sleep 0.1
done
echo "$0: the new certificate was not served within 10 s" >&2
exit 1
