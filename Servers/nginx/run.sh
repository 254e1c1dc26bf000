#!/usr/bin/env bash
# Runs the nginx test server in the foreground (Servers/lib.sh's nginx kind starts it):
#
#   Servers/nginx/run.sh <python> <health-port> <state-dir>
#
# Needs <state-dir>/pki from make-pki.sh and, in the environment, the upstreams as host:port:
# NGINX_FAULT_UPSTREAM, NGINX_OMNIGENT_UPSTREAM, NGINX_ACCOUNTS_UPSTREAM, NGINX_WSFAULT_UPSTREAM. Picks a free
# 127.0.0.1 port for every TLS server, writes them to <state-dir>/ports (NAME=port lines), renders nginx.conf.template into
# <state-dir>/nginx.conf and execs nginx (daemon off, so the pid stays the master's).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 <python> <health-port> <state-dir>" >&2; exit 2; }
py=$1 health=$2 state=$3
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for name in NGINX_FAULT_UPSTREAM NGINX_OMNIGENT_UPSTREAM NGINX_ACCOUNTS_UPSTREAM NGINX_WSFAULT_UPSTREAM; do
    [ -n "${!name:-}" ] || { echo "$0: $name is not set" >&2; exit 2; }
done
[ -s "$state/pki/server-chain.pem" ] || { echo "$0: $state/pki has no certificates (make-pki.sh)" >&2; exit 2; }
names=(FAULT OMNIGENT ACCOUNTS BASIC OPTIONAL SELFSIGNED ROTATING LOGIN WEBSOCKET)
# The kernel picks each port (bound together, then released); a port lost meanwhile makes nginx fail with
# "Address already in use", and the lifecycle starts again with new ones.
mapfile -t ports < <("$py" -c 'import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
for s in sockets:
    print(s.getsockname()[1])
for s in sockets:
    s.close()' "${#names[@]}")
: > "$state/ports.tmp"
args=(-e "s|@STATE@|$state|g" -e "s|@PKI@|$state/pki|g" -e "s|@DIR@|$dir|g" -e "s|@HEALTH_PORT@|$health|g"
    -e "s|@FAULT_UPSTREAM@|$NGINX_FAULT_UPSTREAM|g" -e "s|@OMNIGENT_UPSTREAM@|$NGINX_OMNIGENT_UPSTREAM|g"
    -e "s|@ACCOUNTS_UPSTREAM@|$NGINX_ACCOUNTS_UPSTREAM|g" -e "s|@WSFAULT_UPSTREAM@|$NGINX_WSFAULT_UPSTREAM|g" -e "s|@SSO_COOKIE@|$(cat "$state/pki/sso-cookie")|g")
for i in "${!names[@]}"; do
    args+=(-e "s|@${names[$i]}_PORT@|${ports[$i]}|g")
    echo "${names[$i]}=${ports[$i]}" >> "$state/ports.tmp"
done
# As root the workers must run as root too: they read the htpasswd file inside the 0700 state folder.
if [ "$(id -u)" -eq 0 ]; then args+=(-e "s|@USER@|user root;|"); else args+=(-e "s|@USER@||"); fi
mkdir -p "$state/temp"
sed "${args[@]}" "$dir/nginx.conf.template" > "$state/nginx.conf"
mv "$state/ports.tmp" "$state/ports"
exec /usr/sbin/nginx -p "$state/" -c "$state/nginx.conf" -e stderr
