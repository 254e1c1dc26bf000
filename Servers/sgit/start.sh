#!/usr/bin/env bash
# Starts the real SG/Send server (sgraph-ai-app-send, disk storage) on 127.0.0.1 and a free port, in its own
# process group, and waits (bounded) until it answers. Prints the variables the tests read, ready for `eval`:
#   eval "$(bash Servers/sgit/start.sh)"     # sets SGIT_SERVER_URL, SGIT_SERVER_PIDFILE, SGIT_CLI
# The same lines go to $SGIT_WORK/test-env.sh. Stop it with: bash Servers/sgit/stop.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
exec {WAITFD}<> <(:)   # a pipe nobody writes to: `read -t` on it is a bounded pause
[ -x "$SGIT_SRVPY" ] || { echo "start.sh: server venv missing; run Servers/sgit/install.sh first" >&2; exit 1; }
PIDFILE="$SGIT_SERVER_DIR/server.pid"
mkdir -p "$SGIT_SERVER_DIR"
if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    echo "start.sh: a server is already running (pid $(cat "$PIDFILE")); run stop.sh first" >&2; exit 1
fi
rm -rf "$SGIT_SERVER_DIR/data" "$SGIT_SERVER_DIR/ui" "$SGIT_SERVER_DIR/home"
mkdir -p "$SGIT_SERVER_DIR/data" "$SGIT_SERVER_DIR/ui" "$SGIT_SERVER_DIR/home"

# A free port: ask the kernel for one on loopback (a small race with other starters is possible; the
# readiness check below catches a lost race because our process then dies).
PORT=${SGIT_PORT:-$("$SGIT_SRVPY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')}
BASE="http://127.0.0.1:$PORT"

# SEND__DEPLOYMENT_ID=shared: with it empty the list route answers [] and pack vaults cannot be read (sgit-vault.md §2.9).
setsid env -i PATH=/usr/bin:/bin HOME="$SGIT_SERVER_DIR/home" SEND__STORAGE_MODE=disk \
    SEND__DISK_PATH="$SGIT_SERVER_DIR/data" SEND__STORAGE_BASE= SEND__STORAGE_VERSION= SEND__DEPLOYMENT_ID=shared \
    SEND__VAULT_STATIC_DIR="$SGIT_SERVER_DIR/ui" \
    "$SGIT_SRVPY" -c 'import sys, uvicorn
from sgraph_ai_app_send__docker.app import create_app
uvicorn.run(create_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")' "$PORT" \
    > "$SGIT_SERVER_DIR/server.log" 2>&1 < /dev/null {WAITFD}>&- &
PID=$!
echo "$PID" > "$PIDFILE"

# Bounded readiness poll: up to ~60 s, each probe itself capped at 2 s.
ready=0
for _ in $(seq 1 300); do
    if ! kill -0 "$PID" 2>/dev/null; then break; fi
    if curl -sf --max-time 2 "$BASE/api/info/versions" > /dev/null 2>&1; then ready=1; break; fi
    read -r -t 0.2 -u "$WAITFD" || true   # pause between probes: a bounded read on a silent pipe
done
if [ "$ready" != 1 ]; then
    echo "start.sh: the server did not become ready; log follows" >&2
    tail -n 30 "$SGIT_SERVER_DIR/server.log" >&2 || true
    bash "$HERE/stop.sh" >&2 || true
    exit 1
fi
{
    echo "export SGIT_SERVER_URL=$BASE"
    echo "export SGIT_SERVER_PIDFILE=$PIDFILE"
    echo "export SGIT_CLI=$SGIT_CLI"
} | tee "$SGIT_WORK/test-env.sh"   # also kept on disk: `. $SGIT_WORK/test-env.sh` in a later shell
