#!/usr/bin/env bash
# Stops the server start.sh started: SIGTERM to its process group, a bounded wait, then SIGKILL.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
exec {WAITFD}<> <(:)   # a pipe nobody writes to: `read -t` on it is a bounded pause
PIDFILE=${SGIT_SERVER_PIDFILE:-$SGIT_SERVER_DIR/server.pid}
[ -f "$PIDFILE" ] || { echo "stop.sh: no server pid file at $PIDFILE"; exit 0; }
PID=$(cat "$PIDFILE")
if kill -0 "$PID" 2>/dev/null; then
    kill -TERM -- "-$PID" 2>/dev/null || kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$PID" 2>/dev/null || break
        read -r -t 0.1 -u "$WAITFD" || true
    done
    if kill -0 "$PID" 2>/dev/null; then
        kill -KILL -- "-$PID" 2>/dev/null || kill -KILL "$PID" 2>/dev/null || true
    fi
fi
rm -f "$PIDFILE"
echo "stop.sh: server $PID stopped"
