#!/usr/bin/env bash
# Start one of CompanionKit's small Python test servers on 127.0.0.1 (certain, allauth).
#
#   Servers/start-python.sh <name> <state-dir>
#
# Installs Servers/<name>/requirements.txt into ${COMPANION_VENVS:-<repo>/.venvs}/<name> on first use
# (Python >= 3.12), runs Servers/<name>/run.sh <python> <port> <state-dir> in its own process group
# (setsid), waits (bounded) for GET <url><ready-path> (Servers/<name>/ready-path) and prints the base URL
# as the last stdout line. Files in <state-dir>: pid, pgid, url, server.out. A healthy running server
# is reused. Stop it with: kill -TERM -- -"$(cat <state-dir>/pgid)"   (or scripts/servers stop).
set -euo pipefail
BOOT_TIMEOUT=60
die() { echo "start-python.sh: $*" >&2; exit 1; }
say() { echo "start-python.sh: $*" >&2; }
[ $# -eq 2 ] || die "usage: $0 <name> <state-dir>"
NAME=$1
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=$REPO/Servers/$NAME
[ -x "$DIR/run.sh" ] || die "unknown server $NAME"
mkdir -p "$2"
STATE=$(cd "$2" && pwd)
VENV=${COMPANION_VENVS:-$REPO/.venvs}/$NAME
READY=$(cat "$DIR/ready-path")
healthy() { curl -sf --max-time 2 -o /dev/null "$1$READY"; }

if [ -f "$STATE/pid" ] && [ -f "$STATE/url" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
    if healthy "$(cat "$STATE/url")"; then
        say "$NAME: reusing pid $(cat "$STATE/pid")"
        cat "$STATE/url"
        exit 0
    fi
    die "$NAME is running from $STATE (pid $(cat "$STATE/pid")) but unhealthy; stop it first"
fi
rm -f "$STATE/pid" "$STATE/pgid" "$STATE/url"

find_python() {
    local c root roots=("${PYENV_ROOT:-${HOME:-/nonexistent}/.pyenv}")
    command -v pyenv >/dev/null && roots+=("$(pyenv root 2>/dev/null || true)")
    local candidates=(python3.13 python3.12 python3)
    for root in "${roots[@]}"; do
        [ -n "$root" ] && candidates+=("$root"/versions/3.12*/bin/python3 "$root"/versions/3.13*/bin/python3)
    done
    for c in "${candidates[@]}"; do
        if "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
            "$c" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

STAMP=$VENV/.requirements
if ! cmp -s "$DIR/requirements.txt" "$STAMP" 2>/dev/null; then
    mkdir -p "$(dirname "$VENV")"
    exec 9>"$VENV.lock"
    flock -w 600 9 || die "timed out waiting for another install of $NAME"
    if ! cmp -s "$DIR/requirements.txt" "$STAMP" 2>/dev/null; then
        PY=$(find_python) || die "no Python >= 3.12 found"
        say "$NAME: installing requirements into $VENV"
        [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
        "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$DIR/requirements.txt" \
            || die "pip install for $NAME failed"
        cp "$DIR/requirements.txt" "$STAMP"
    fi
    exec 9>&-
fi

for attempt in 1 2 3; do
    PORT=$("$VENV/bin/python" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    URL="http://127.0.0.1:$PORT"
    rm -f "$STATE/pid"
    setsid sh -c 'echo $$ > "$0"; exec "$@"' "$STATE/pid" \
        "$DIR/run.sh" "$VENV/bin/python" "$PORT" "$STATE" > "$STATE/server.out" 2>&1 < /dev/null &
    for i in $(seq 1 100); do [ -s "$STATE/pid" ] && break; sleep 0.05; done
    [ -s "$STATE/pid" ] || die "$NAME did not start"
    PID=$(cat "$STATE/pid")
    echo "$PID" > "$STATE/pgid"
    deadline=$((SECONDS + BOOT_TIMEOUT))
    while [ $SECONDS -lt $deadline ]; do
        if healthy "$URL"; then
            echo "$URL" > "$STATE/url"
            say "$NAME: pid $PID healthy at $URL"
            echo "$URL"
            exit 0
        fi
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM -- "-$PID" 2>/dev/null || true
    sleep 1
    kill -KILL -- "-$PID" 2>/dev/null || true
    rm -f "$STATE/pid" "$STATE/pgid"
    if grep -qi 'address already in use' "$STATE/server.out" && [ $attempt -lt 3 ]; then continue; fi
    echo "--- tail of $STATE/server.out ---" >&2; tail -n 40 "$STATE/server.out" >&2
    die "$NAME did not become healthy"
done
die "could not find a free port"
