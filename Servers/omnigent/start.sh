#!/usr/bin/env bash
# Start a dedicated Omnigent 0.19.1 server on 127.0.0.1 for CompanionKit tests.
#
#   Servers/omnigent/start.sh <state-dir> [header|accounts]
#
# Installs omnigent==0.19.1 into ${COMPANION_VENVS:-<repo>/.venvs}/omnigent on first use (needs
# Python >= 3.12), starts the server in its own process group (setsid), waits for GET /health
# (at most 90 s) and prints the base URL as the last stdout line. Everything else goes to stderr.
# Files in <state-dir>: pid, pgid, url, mode, server.out, admin-password (accounts mode, 0600),
# home/, data/, tmp/. If <state-dir>/pid is alive and healthy, the running server is reused.
# Stop it with: kill -TERM -- -"$(cat <state-dir>/pgid)"   (or scripts/servers stop).
set -euo pipefail

VERSION=0.19.1
BOOT_TIMEOUT=90

die() { echo "omnigent/start.sh: $*" >&2; exit 1; }
say() { echo "omnigent/start.sh: $*" >&2; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 <state-dir> [header|accounts]"
MODE=${2:-header}
case "$MODE" in header|accounts) ;; *) die "mode must be 'header' or 'accounts', not '$MODE'" ;; esac
command -v curl >/dev/null || die "curl is required (apt-get install curl)"
command -v setsid >/dev/null || die "setsid is required (apt-get install util-linux)"

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$1"
STATE=$(cd "$1" && pwd)
VENV_ROOT=${COMPANION_VENVS:-$REPO/.venvs}
VENV=$VENV_ROOT/omnigent

healthy() { curl -sf --max-time 2 -o /dev/null "$1/health"; }

# ---- reuse a running server ---------------------------------------------------------------
if [ -f "$STATE/pid" ] && [ -f "$STATE/url" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
    if [ "$(cat "$STATE/mode" 2>/dev/null)" = "$MODE" ] && healthy "$(cat "$STATE/url")"; then
        say "reusing pid $(cat "$STATE/pid")"
        cat "$STATE/url"
        exit 0
    fi
    die "a server is running from $STATE (pid $(cat "$STATE/pid")) but it is unhealthy or in another mode; stop it first"
fi
rm -f "$STATE/pid" "$STATE/pgid" "$STATE/url"

# ---- Python >= 3.12 and the venv ----------------------------------------------------------
find_python() {
    local candidates=(python3.13 python3.12 python3)
    local roots=("${PYENV_ROOT:-${HOME:-/nonexistent}/.pyenv}")
    if command -v pyenv >/dev/null; then roots+=("$(pyenv root 2>/dev/null || true)"); fi
    local root
    for root in "${roots[@]}"; do
        [ -n "$root" ] || continue
        candidates+=("$root"/versions/3.12*/bin/python3 "$root"/versions/3.13*/bin/python3)
    done
    local c
    for c in "${candidates[@]}"; do
        # pyenv shims exist for versions that are not selected and then fail: test, don't trust.
        if "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
            "$c" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

install_omnigent() {
    [ -x "$VENV/bin/omnigent" ] && return 0
    local py
    py=$(find_python) || die "no Python >= 3.12 found (omnigent $VERSION requires it; tried python3.13, python3.12, pyenv versions)"
    say "installing omnigent==$VERSION into $VENV with $py (takes ~1 min)"
    local t0=$SECONDS
    [ -x "$VENV/bin/python" ] || "$py" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "omnigent==$VERSION" \
        || die "pip install omnigent==$VERSION failed"
    [ -x "$VENV/bin/omnigent" ] || die "pip finished but $VENV/bin/omnigent is missing"
    say "installed in $((SECONDS - t0)) s"
}

mkdir -p "$VENV_ROOT"
if command -v flock >/dev/null; then
    # Two starts (header + accounts) may race to create the same venv; serialise them.
    exec 9>"$VENV_ROOT/.omnigent.lock"
    flock -w 900 9 || die "timed out waiting for another omnigent install"
    install_omnigent
    exec 9>&-
else
    install_omnigent
fi

# ---- state and credentials ----------------------------------------------------------------
mkdir -p "$STATE/home" "$STATE/data" "$STATE/tmp"
export HOME="$STATE/home" OMNIGENT_DATA_DIR="$STATE/data" TMPDIR="$STATE/tmp"
export DO_NOT_TRACK=1 OMNIGENT_ANALYTICS=0
unset OMNIGENT_AUTH_PROVIDER OMNIGENT_AUTH_ENABLED OMNIGENT_ACCOUNTS_INIT_ADMIN_PASSWORD

if [ "$MODE" = accounts ]; then
    # The admin password only takes effect on the first boot of a data dir, so a data dir
    # without its password file is useless: start over.
    if [ ! -s "$STATE/admin-password" ]; then
        rm -rf "$STATE/data" && mkdir -p "$STATE/data"
        (umask 077 && "$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(24))' \
            > "$STATE/admin-password")
    fi
    chmod 600 "$STATE/admin-password"
    export OMNIGENT_AUTH_ENABLED=1 OMNIGENT_ACCOUNTS_INIT_ADMIN_USERNAME=admin
    # Same as --admin-password (the CLI folds that flag into this variable), but the password
    # stays out of argv, where `ps`/`pgrep -a` would show it.
    OMNIGENT_ACCOUNTS_INIT_ADMIN_PASSWORD=$(cat "$STATE/admin-password")
    export OMNIGENT_ACCOUNTS_INIT_ADMIN_PASSWORD
fi
echo "$MODE" > "$STATE/mode"

free_port() {
    "$VENV/bin/python" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

stop_group() {
    local pgid=$1 i
    kill -TERM -- "-$pgid" 2>/dev/null || return 0
    for i in $(seq 1 50); do
        kill -0 -- "-$pgid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL -- "-$pgid" 2>/dev/null || true
}

# ---- start and wait for /health (retry with a new port if the picked one was taken) --------
for attempt in 1 2 3; do
    PORT=$(free_port)
    URL="http://127.0.0.1:$PORT"
    rm -f "$STATE/pid"
    t0=$(date +%s%N)
    # setsid makes the server a session and process-group leader; the inner shell records its
    # own pid, which `exec` hands to omnigent, so pid == pgid even if setsid had to fork.
    setsid sh -c 'echo $$ > "$0"; exec "$@"' "$STATE/pid" \
        "$VENV/bin/omnigent" server --host 127.0.0.1 --port "$PORT" \
        --database-uri "sqlite:///$STATE/data/chat.db" --artifact-location "$STATE/data/artifacts" \
        --no-open > "$STATE/server.out" 2>&1 < /dev/null &
    for i in $(seq 1 100); do [ -s "$STATE/pid" ] && break; sleep 0.05; done
    [ -s "$STATE/pid" ] || die "the server process did not start"
    PID=$(cat "$STATE/pid")
    echo "$PID" > "$STATE/pgid"

    deadline=$((SECONDS + BOOT_TIMEOUT))
    while [ $SECONDS -lt $deadline ]; do
        if healthy "$URL"; then
            echo "$URL" > "$STATE/url"
            say "$MODE server pid $PID healthy at $URL after $((($(date +%s%N) - t0) / 1000000)) ms"
            echo "$URL"
            exit 0
        fi
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        stop_group "$PID"
        rm -f "$STATE/pid" "$STATE/pgid"
        echo "--- tail of $STATE/server.out ---" >&2; tail -n 40 "$STATE/server.out" >&2
        die "no healthy /health at $URL within $BOOT_TIMEOUT s"
    fi
    stop_group "$PID"
    rm -f "$STATE/pid" "$STATE/pgid"
    if grep -qi -e 'address already in use' -e 'not bindable' -e 'port .* in use' "$STATE/server.out" && [ $attempt -lt 3 ]; then
        say "port $PORT was taken, retrying"
        continue
    fi
    echo "--- tail of $STATE/server.out ---" >&2; tail -n 40 "$STATE/server.out" >&2
    die "the server exited before it became healthy"
done
die "could not find a free port"
