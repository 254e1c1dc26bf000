# CompanionKit test servers: the one lifecycle every server folder goes through. Sourced, not run
# (scripts/servers sources it). Bash 4+, util-linux (setsid, flock), curl.
#
# A server is a folder Servers/<name>/ with a bash-sourceable server.conf (see Servers/README.md for
# the keys). srv_start <name> does, in order:
#   1. reuse: if <state>/pid is our process (same pid and start time), its command line contains
#      MARKER and it answers READY_PATH, nothing is started;
#   2. Python >= 3.12 (PATH, then pyenv) and a venv per requirements file under
#      ${COMPANION_VENVS:-<repo>/.venvs}/<venv>, (re)installed when the file changed, flock-guarded;
#   3. a free port on 127.0.0.1 (the kernel picks it), the process started in its own session and
#      process group (setsid), stdout to <state>/server.out, stderr to <state>/server.err;
#   4. a bounded wait until GET <url><READY_PATH> answers 2xx, or (no READY_PATH) until stdout has a
#      `READY <port>...` line; a port lost to another starter (its bind refused, or the health check
#      answered by the other starter's process) is retried with a new one;
#   5. <state>/pid, pgid, started (the kernel's start time of pid, so a reused pid is never taken for
#      ours), url and env (the export lines the tests source).
# srv_stop <name> sends SIGTERM to the process group, waits at most SRV_STOP_TIMEOUT s, then SIGKILL.
#
# Globals the caller sets: SRV_REPO (repository root), SRV_STATE_ROOT (state root). Everything this file
# defines starts with srv_ or SRV_; a server.conf sets only the keys of the format.

SRV_STOP_TIMEOUT=${SRV_STOP_TIMEOUT:-5}      # seconds between SIGTERM and SIGKILL
SRV_INSTALL_TIMEOUT=${SRV_INSTALL_TIMEOUT:-2400}  # seconds to wait for another starter's install (a 700 MB venv took 1039 s on a loaded machine)

srv_say() { echo "servers: $*" >&2; }

# ---- the list of servers --------------------------------------------------------------------------

# Every server: the folders of Servers/ that have a server.conf, in name order.
srv_all() {
    local conf
    for conf in "$SRV_REPO"/Servers/*/server.conf; do
        [ -f "$conf" ] || continue
        conf=${conf%/server.conf}
        echo "${conf##*/}"
    done | LC_ALL=C sort
}

# Loads Servers/<name>/server.conf into the SRV_/conf globals (call in a subshell per server).
srv_load() {
    local name=$1 dir=$SRV_REPO/Servers/$1
    [ -f "$dir/server.conf" ] || { srv_say "unknown server '$name' (known: $(srv_all | tr '\n' ' '))"; return 1; }
    KIND="" ENV_VAR="" READY_PATH="" MARKER="" EXTRA_ENV="" DESCRIPTION="" MODE="" VENV="" READY_TIMEOUT=""
    # shellcheck disable=SC1091
    . "$dir/server.conf" || { srv_say "$name: $dir/server.conf does not load"; return 1; }
    SRV_NAME=$name
    SRV_DIR=$dir
    SRV_STATE=$SRV_STATE_ROOT/$name
    VENV=${VENV:-$name}
    READY_TIMEOUT=${READY_TIMEOUT:-60}
    case "$KIND" in python|omnigent|sgit|fault|nginx|homeassistant) ;; *) srv_say "$name: KIND must be python, omnigent, sgit, fault, nginx or homeassistant, not '$KIND'"; return 1 ;; esac
    [[ "$ENV_VAR" =~ ^[A-Z_][A-Z0-9_]*$ ]] || { srv_say "$name: ENV_VAR '$ENV_VAR' is not a variable name"; return 1; }
    [ -n "$MARKER" ] || { srv_say "$name: MARKER is empty"; return 1; }
    local word
    for word in $EXTRA_ENV; do
        [[ "$word" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { srv_say "$name: EXTRA_ENV word '$word' is not NAME=VALUE"; return 1; }
    done
}

# ---- Python and venvs -----------------------------------------------------------------------------

# srv_pyenv_versions <glob...>: the python3 of every pyenv version matching a glob (PYENV_ROOT, ~/.pyenv, `pyenv root`).
srv_pyenv_versions() {
    local root glob roots=("${PYENV_ROOT:-${HOME:-/nonexistent}/.pyenv}")
    command -v pyenv >/dev/null 2>&1 && roots+=("$(pyenv root 2>/dev/null || true)")
    for root in "${roots[@]}"; do
        [ -n "$root" ] || continue
        # shellcheck disable=SC2086
        for glob in "$@"; do printf '%s\n' "$root"/versions/$glob/bin/python3; done
    done
}
# srv_first_python <condition> <candidate...>: prints sys.executable of the first candidate that runs and for which
# the Python expression <condition> (on sys.version_info) is true.
srv_first_python() {
    local condition=$1 c
    shift
    for c in "$@"; do
        [ -n "$c" ] || continue
        if "$c" -c "import sys; sys.exit(0 if $condition else 1)" >/dev/null 2>&1; then
            "$c" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

# Prints the path of a Python >= 3.12: $COMPANION_PYTHON, python3.12, python3.13, python3, then the
# pyenv versions. Each candidate is run, because a pyenv shim of a version that is not selected
# exists and fails.
srv_find_python() {
    local candidates
    mapfile -t candidates < <(srv_pyenv_versions '3.12*' '3.1[3-9]*')
    srv_first_python 'sys.version_info >= (3, 12)' "${COMPANION_PYTHON:-}" python3.12 python3.13 python3 "${candidates[@]}"
}

# srv_venv <venv-name> <requirements-file>: makes or refreshes ${COMPANION_VENVS}/<venv-name> so it
# holds exactly what the file pins (the file's copy in the venv marks it done) and prints its path.
# Concurrent starters of the same venv wait for each other on <venv>.lock.
srv_venv() {
    local venv=$SRV_VENVS/$1 req=$2 py
    [ -f "$req" ] || { srv_say "$SRV_NAME: $req is missing"; return 1; }
    if ! cmp -s "$req" "$venv/.requirements"; then
        mkdir -p "$SRV_VENVS"
        (
            exec 9>"$venv.lock"
            flock -w "$SRV_INSTALL_TIMEOUT" 9 || { srv_say "$SRV_NAME: timed out waiting for another install into $venv"; exit 1; }
            cmp -s "$req" "$venv/.requirements" && exit 0
            py=$(srv_find_python) || { srv_say "no Python >= 3.12 found (tried \$COMPANION_PYTHON, python3.12, python3.13, python3, pyenv versions)"; exit 1; }
            srv_say "$SRV_NAME: installing $(basename "$req") into $venv with $py"
            local t0=$SECONDS
            [ -x "$venv/bin/python" ] || "$py" -m venv "$venv" || exit 1
            "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" \
                || { srv_say "$SRV_NAME: pip install -r $req failed"; exit 1; }
            cp "$req" "$venv/.requirements"
            srv_say "$SRV_NAME: installed in $((SECONDS - t0)) s"
        ) || return 1
    fi
    echo "$venv"
}

# ---- processes ------------------------------------------------------------------------------------

# A free TCP port on 127.0.0.1 (bound and released; a lost race is caught by the retry in srv_start).
srv_free_port() {
    "$1" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The kernel's start time of a pid (field 22 of /proc/<pid>/stat), or nothing.
srv_starttime() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    stat=${stat##*) }
    # shellcheck disable=SC2086
    set -- $stat
    echo "${20}"
}

# Pid of the server process we started for the loaded server (same pid and start time), or nothing.
srv_owned_pid() {
    local pid
    [ -s "$SRV_STATE/pid" ] || return 0
    pid=$(cat "$SRV_STATE/pid")
    [[ "$pid" =~ ^[0-9]+$ ]] && [ "$pid" -gt 1 ] || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    if [ -s "$SRV_STATE/started" ] && [ "$(srv_starttime "$pid")" != "$(cat "$SRV_STATE/started")" ]; then
        return 0
    fi
    echo "$pid"
}

# Pid of the running server: ours, and its command line contains MARKER.
srv_running_pid() {
    local pid
    pid=$(srv_owned_pid)
    [ -n "$pid" ] || return 0
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$MARKER" || return 0
    echo "$pid"
}

srv_healthy() { # url
    [ -n "$READY_PATH" ] || return 0
    curl -sf --max-time 2 -o /dev/null "$1$READY_PATH"
}

# srv_spawn <command...>: runs the command as leader of a new session and process group, records
# pid, pgid and start time. The inner sh writes its own pid, which exec hands to the command.
srv_spawn() {
    local i pid
    rm -f "$SRV_STATE/pid" "$SRV_STATE/pgid" "$SRV_STATE/started"
    # shellcheck disable=SC2016
    setsid sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' "$SRV_STATE/pid" "$@" \
        > "$SRV_STATE/server.out" 2> "$SRV_STATE/server.err" < /dev/null &
    for i in $(seq 1 100); do [ -s "$SRV_STATE/pid" ] && break; sleep 0.05; done
    [ -s "$SRV_STATE/pid" ] || { srv_say "$SRV_NAME: the process did not start"; return 1; }
    pid=$(cat "$SRV_STATE/pid")
    echo "$pid" > "$SRV_STATE/pgid"
    srv_starttime "$pid" > "$SRV_STATE/started"
}

# SIGTERM to the process group, a bounded wait, SIGKILL.
srv_kill_group() {
    local pgid=$1 i
    kill -TERM -- "-$pgid" 2>/dev/null || return 0
    for i in $(seq 1 $((SRV_STOP_TIMEOUT * 10))); do
        kill -0 -- "-$pgid" 2>/dev/null || return 0
        sleep 0.1
    done
    srv_say "$SRV_NAME: still running after $SRV_STOP_TIMEOUT s, sending SIGKILL"
    kill -KILL -- "-$pgid" 2>/dev/null || true
    for i in $(seq 1 20); do kill -0 -- "-$pgid" 2>/dev/null || return 0; sleep 0.1; done
}

# Stops the loaded server: its whole process group. A pid file whose pid now belongs to another
# program is left alone.
srv_stop() {
    local pgid="" pid
    pid=$(srv_owned_pid)
    [ -s "$SRV_STATE/pgid" ] && pgid=$(cat "$SRV_STATE/pgid")
    if [[ "$pgid" =~ ^[0-9]+$ ]] && [ "$pgid" -gt 1 ] && kill -0 -- "-$pgid" 2>/dev/null; then
        if [ -z "$pid" ] && [ -s "$SRV_STATE/pid" ] && kill -0 "$(cat "$SRV_STATE/pid")" 2>/dev/null; then
            srv_say "$SRV_NAME: pid $(cat "$SRV_STATE/pid") is not ours any more; not killing it"
        else
            srv_kill_group "$pgid"
            srv_say "$SRV_NAME: stopped"
        fi
    fi
    rm -f "$SRV_STATE/pid" "$SRV_STATE/pgid" "$SRV_STATE/started" "$SRV_STATE/env" "$SRV_STATE/url"
}

srv_tail_logs() {
    local f
    for f in server.out server.err; do
        [ -s "$SRV_STATE/$f" ] || continue
        echo "--- tail of $SRV_STATE/$f ---" >&2
        tail -n 30 "$SRV_STATE/$f" >&2
    done
}

# srv_listener_is_ours <port> <pgid>: whether the process listening on 127.0.0.1:<port> is in the process group
# <pgid> (each server runs in a session of its own). Two starters can be handed the same free port; the one that
# loses cannot bind it, but its health check would pass on the other's answer. True when `ss` cannot tell.
srv_listener_is_ours() {
    local owner group seen=0
    command -v ss >/dev/null || return 0
    for owner in $(ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2); do
        seen=1
        group=$(ps -o pgid= -p "$owner" 2>/dev/null | tr -d ' ')
        [ "$group" = "$2" ] && return 0
    done
    [ "$seen" -eq 0 ]
}

# srv_boot <python-for-port> <command...>: picks a port, spawns, waits until ready; up to three
# attempts when the port was taken meanwhile. "{PORT}" in the command is replaced by the port.
# Sets SRV_URL (and SRV_READY_LINE for READY-line servers).
srv_boot() {
    local py=$1 attempt port pid deadline arg args
    shift
    for attempt in 1 2 3; do
        port=$(srv_free_port "$py") || return 1
        args=()
        for arg in "$@"; do args+=("${arg//\{PORT\}/$port}"); done
        srv_spawn "${args[@]}" || return 1
        pid=$(cat "$SRV_STATE/pid")
        SRV_URL=http://127.0.0.1:$port
        SRV_READY_LINE=""
        deadline=$((SECONDS + READY_TIMEOUT))
        while [ $SECONDS -lt $deadline ]; do
            if [ -n "$READY_PATH" ]; then
                if srv_healthy "$SRV_URL"; then
                    srv_listener_is_ours "$port" "$pid" && return 0
                    # Another process (a server started beside this one, given the same free port) answered:
                    # this one cannot bind it and is failing; start it again on a new port.
                    srv_say "$SRV_NAME: port $port answers for another process, retrying"
                    srv_kill_group "$pid"
                    rm -f "$SRV_STATE/pid" "$SRV_STATE/pgid" "$SRV_STATE/started"
                    [ $attempt -lt 3 ] && continue 2
                    srv_say "$SRV_NAME: no port of its own after 3 attempts"
                    return 1
                fi
            else
                SRV_READY_LINE=$(grep -m1 -E '^READY( [0-9]+)+$' "$SRV_STATE/server.out" 2>/dev/null || true)
                [ -n "$SRV_READY_LINE" ] && return 0
            fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        srv_kill_group "$pid"
        rm -f "$SRV_STATE/pid" "$SRV_STATE/pgid" "$SRV_STATE/started"
        if ! kill -0 "$pid" 2>/dev/null && [ $attempt -lt 3 ] \
            && cat "$SRV_STATE/server.out" "$SRV_STATE/server.err" 2>/dev/null \
                | grep -qi -e 'address already in use' -e 'not bindable' -e 'port .* in use'; then
            srv_say "$SRV_NAME: port $port was taken, retrying"
            continue
        fi
        srv_tail_logs
        srv_say "$SRV_NAME: not ready within $READY_TIMEOUT s (${READY_PATH:-READY line})"
        return 1
    done
    return 1
}

srv_q() { printf '%q' "$1"; }

# ---- the kinds ------------------------------------------------------------------------------------
# Each kind has srv_<kind>_start (boot the process, set SRV_URL) and srv_<kind>_env (print the export
# lines beyond "ENV_VAR=url"). Both run with the server's conf loaded and its state dir made.

# python: Servers/<name>/run.sh <python> <port> <state-dir>, venv from Servers/<VENV>/requirements.txt, with
# Servers/common (the shared helper module `standin`) on PYTHONPATH.
srv_python_start() {
    local venv
    venv=$(srv_venv "$VENV" "$SRV_REPO/Servers/$VENV/requirements.txt") || return 1
    [ -x "$SRV_DIR/run.sh" ] || { srv_say "$SRV_NAME: $SRV_DIR/run.sh is missing or not executable"; return 1; }
    # shellcheck disable=SC2086
    srv_boot "$venv/bin/python" env PYTHONPATH="$SRV_REPO/Servers/common" $EXTRA_ENV "$SRV_DIR/run.sh" "$venv/bin/python" \
        "{PORT}" "$SRV_STATE"
}
srv_python_env() { :; }

# fault: Servers/fault/fault_server.py (stdlib only, Servers/common on PYTHONPATH), five listeners it picks itself, announced by
# `READY <primary> <secondary> <tls> <root-same> <root-cross>`; ENV_VAR is the primary, <ENV_VAR>2 the second
# origin, COMPANION_FAULT_TLS_URL (ENV_VAR with _URL replaced by _TLS_URL) the TLS port, and
# COMPANION_FAULT_ROOT_SAME_URL / COMPANION_FAULT_ROOT_CROSS_URL the two origins whose root redirects.
srv_fault_start() {
    local py
    py=$(srv_find_python) || { srv_say "$SRV_NAME: no Python >= 3.12 found"; return 1; }
    # shellcheck disable=SC2086
    srv_boot "$py" env PYTHONPATH="$SRV_REPO/Servers/common" $EXTRA_ENV "$py" "$SRV_DIR/fault_server.py" --state-dir "$SRV_STATE" --log "$SRV_STATE/requests.log" || return 1
    # shellcheck disable=SC2086
    set -- $SRV_READY_LINE
    [ $# -eq 6 ] || { srv_say "$SRV_NAME: READY line '$SRV_READY_LINE' does not name five ports"; return 1; }
    SRV_URL=http://127.0.0.1:$2
    echo "$3 $4 $5 $6" > "$SRV_STATE/ports"
}
srv_fault_env() {
    local ports
    ports=($(cat "$SRV_STATE/ports"))
    echo "export ${ENV_VAR}2=http://127.0.0.1:${ports[0]}"
    echo "export ${ENV_VAR%_URL}_TLS_URL=https://127.0.0.1:${ports[1]}"
    echo "export ${ENV_VAR%_URL}_ROOT_SAME_URL=http://127.0.0.1:${ports[2]}"
    echo "export ${ENV_VAR%_URL}_ROOT_CROSS_URL=http://127.0.0.1:${ports[3]}"
}

# omnigent: a dedicated Omnigent server from the venv of Servers/omnigent/requirements.txt, with its
# own HOME, data and tmp under the state dir. MODE=header (single user) or MODE=accounts (sign-in;
# admin user "admin", a random first-boot password in <state>/admin-password, 0600, never in argv).
srv_omnigent_start() {
    local venv
    venv=$(srv_venv "$VENV" "$SRV_REPO/Servers/$VENV/requirements.txt") || return 1
    [ -x "$venv/bin/omnigent" ] || { srv_say "$SRV_NAME: $venv/bin/omnigent is missing after the install"; return 1; }
    case "${MODE:-header}" in header|accounts|oidc) ;; *) srv_say "$SRV_NAME: MODE must be header, accounts or oidc"; return 1 ;; esac
    local issuer=""
    if [ "$MODE" = oidc ]; then
        # OIDC mode signs in at the provider of Servers/oidc, started alongside (bounded wait for its URL).
        local waited=0
        until [ -s "$SRV_STATE_ROOT/oidc/env" ] && curl -sf --max-time 2 -o /dev/null "$(cat "$SRV_STATE_ROOT/oidc/url")/.well-known/openid-configuration"; do
            [ "$waited" -ge "$READY_TIMEOUT" ] && { srv_say "$SRV_NAME: no OpenID provider: start the oidc server too"; return 1; }
            sleep 1; waited=$((waited + 1))
        done
        issuer=$(cat "$SRV_STATE_ROOT/oidc/url")
    fi
    (
        mkdir -p "$SRV_STATE/home" "$SRV_STATE/data" "$SRV_STATE/tmp"
        export HOME="$SRV_STATE/home" OMNIGENT_DATA_DIR="$SRV_STATE/data" TMPDIR="$SRV_STATE/tmp"
        export DO_NOT_TRACK=1 OMNIGENT_ANALYTICS=0
        unset OMNIGENT_AUTH_PROVIDER OMNIGENT_AUTH_ENABLED OMNIGENT_ACCOUNTS_INIT_ADMIN_PASSWORD
        if [ "$MODE" = accounts ]; then
            # The password takes effect only on the first boot of a data dir: without its file, start over.
            if [ ! -s "$SRV_STATE/admin-password" ]; then
                rm -rf "$SRV_STATE/data" && mkdir -p "$SRV_STATE/data"
                (umask 077 && "$venv/bin/python" -c 'import secrets; print(secrets.token_urlsafe(24))' \
                    > "$SRV_STATE/admin-password")
            fi
            chmod 600 "$SRV_STATE/admin-password"
            export OMNIGENT_AUTH_ENABLED=1 OMNIGENT_ACCOUNTS_INIT_ADMIN_USERNAME=admin
            OMNIGENT_ACCOUNTS_INIT_ADMIN_PASSWORD=$(cat "$SRV_STATE/admin-password")
            export OMNIGENT_ACCOUNTS_INIT_ADMIN_PASSWORD
        fi
        if [ "$MODE" = oidc ]; then
            [ -s "$SRV_STATE/oidc-secrets" ] || (umask 077 && "$venv/bin/python" -c \
                'import secrets; print(secrets.token_urlsafe(24)); print(secrets.token_hex(32))' > "$SRV_STATE/oidc-secrets")
            export OMNIGENT_AUTH_PROVIDER=oidc OMNIGENT_OIDC_ISSUER="$issuer" OMNIGENT_OIDC_CLIENT_ID=omnigent-tests
            OMNIGENT_OIDC_CLIENT_SECRET=$(sed -n 1p "$SRV_STATE/oidc-secrets")
            OMNIGENT_OIDC_COOKIE_SECRET=$(sed -n 2p "$SRV_STATE/oidc-secrets")
            export OMNIGENT_OIDC_CLIENT_SECRET OMNIGENT_OIDC_COOKIE_SECRET
        fi
        # shellcheck disable=SC2086
        srv_boot "$venv/bin/python" env $EXTRA_ENV "$venv/bin/omnigent" server --host 127.0.0.1 --port "{PORT}" \
            --database-uri "sqlite:///$SRV_STATE/data/chat.db" --artifact-location "$SRV_STATE/data/artifacts" \
            --no-open || exit 1
        echo "$SRV_URL" > "$SRV_STATE/url"
    ) || return 1
    SRV_URL=$(cat "$SRV_STATE/url")
    echo "${MODE:-header}" > "$SRV_STATE/mode"
}
srv_omnigent_env() {
    [ "${MODE:-header}" = oidc ] && echo "export ${ENV_VAR%_URL}_ISSUER=$(srv_q "$(cat "$SRV_STATE_ROOT/oidc/url")")"
    [ "${MODE:-header}" = accounts ] || return 0
    echo "export ${ENV_VAR%_URL}_USER=admin"
    echo "export ${ENV_VAR%_URL}_PASSWORD_FILE=$(srv_q "$SRV_STATE/admin-password")"
}

# sgit: the real SG/Send server (Servers/sgit/requirements.txt, disk storage under the state dir),
# the real sgit CLI (Servers/sgit/cli-requirements.txt, venv "<VENV>-cli") and the test vaults made
# with that CLI on that server (Servers/sgit/make_vaults.py, about a minute). Exports SGIT_SERVER_URL
# (ENV_VAR), SGIT_SERVER_PIDFILE, SGIT_CLI, SGIT_VAULTS_MANIFEST.
srv_sgit_start() {
    local venv cli
    venv=$(srv_venv "$VENV" "$SRV_DIR/requirements.txt") || return 1
    cli=$(srv_venv "$VENV-cli" "$SRV_DIR/cli-requirements.txt") || return 1
    [ -x "$cli/bin/sgit" ] || { srv_say "$SRV_NAME: $cli/bin/sgit is missing after the install"; return 1; }
    rm -rf "$SRV_STATE/data" "$SRV_STATE/ui" "$SRV_STATE/home" "$SRV_STATE/vaults"
    mkdir -p "$SRV_STATE/data" "$SRV_STATE/ui" "$SRV_STATE/home"
    # SEND__DEPLOYMENT_ID=shared: with it empty the list route answers [] and pack vaults cannot be read.
    # shellcheck disable=SC2086
    srv_boot "$venv/bin/python" env -i PATH=/usr/bin:/bin HOME="$SRV_STATE/home" $EXTRA_ENV SEND__STORAGE_MODE=disk \
        SEND__DISK_PATH="$SRV_STATE/data" SEND__STORAGE_BASE= SEND__STORAGE_VERSION= SEND__DEPLOYMENT_ID=shared \
        SEND__VAULT_STATIC_DIR="$SRV_STATE/ui" \
        "$venv/bin/python" -c 'import sys, uvicorn
from sgraph_ai_app_send__docker.app import create_app
uvicorn.run(create_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")' "{PORT}" || return 1
    echo "$cli/bin/sgit" > "$SRV_STATE/cli"
    srv_say "$SRV_NAME: server up at $SRV_URL; making the test vaults"
    if ! "$cli/bin/python" "$SRV_DIR/make_vaults.py" "$cli/bin/sgit" "$SRV_URL" "$SRV_STATE/vaults" > "$SRV_STATE/vaults.log" 2>&1 \
        || [ ! -s "$SRV_STATE/vaults/manifest.json" ]; then
        tail -n 30 "$SRV_STATE/vaults.log" >&2
        srv_say "$SRV_NAME: making the vaults failed"
        return 1
    fi
}
srv_sgit_env() {
    echo "export SGIT_SERVER_PIDFILE=$(srv_q "$SRV_STATE/pid")"
    echo "export SGIT_CLI=$(srv_q "$(cat "$SRV_STATE/cli")")"
    echo "export SGIT_VAULTS_MANIFEST=$(srv_q "$SRV_STATE/vaults/manifest.json")"
}

# homeassistant: Home Assistant (Servers/homeassistant/requirements.txt) in its own venv, made with Python 3.13
# (2025.4.4's Requires-Python is >=3.13.0; srv_find_python would take 3.12) and installed against the
# package_constraints.txt inside Home Assistant's own wheel (without it pip backtracks for minutes). The install is
# bounded (SRV_HA_INSTALL_TIMEOUT s), logged to <venv>.install.log, whose tail is shown when it fails, and kept for
# reuse until requirements.txt changes. Servers/homeassistant/ha_server.py then runs the two instances and the
# helper site and prints `READY <main> <tls> <helper>` (see Servers/homeassistant/README.md).
SRV_HA_INSTALL_TIMEOUT=${SRV_HA_INSTALL_TIMEOUT:-1500}
srv_find_python313() {
    local candidates
    mapfile -t candidates < <(srv_pyenv_versions '3.13*')
    srv_first_python 'sys.version_info[:2] == (3, 13)' "${COMPANION_HA_PYTHON:-}" python3.13 "${candidates[@]}"
}
srv_homeassistant_venv() {
    local venv=$SRV_VENVS/$VENV req=$SRV_DIR/requirements.txt
    if ! cmp -s "$req" "$venv/.requirements"; then
        mkdir -p "$SRV_VENVS"
        (
            exec 9>"$venv.lock"
            flock -w "$SRV_INSTALL_TIMEOUT" 9 || { srv_say "$SRV_NAME: timed out waiting for another install into $venv"; exit 1; }
            cmp -s "$req" "$venv/.requirements" && exit 0
            local py version log=$venv.install.log t0=$SECONDS
            py=$(srv_find_python313) || { srv_say "$SRV_NAME: no Python 3.13 found (tried \$COMPANION_HA_PYTHON, python3.13, pyenv versions/3.13*)"; exit 1; }
            version=$(sed -n 's/^homeassistant==//p' "$req")
            srv_say "$SRV_NAME: installing Home Assistant $version into $venv with $py (log: $log; at most $SRV_HA_INSTALL_TIMEOUT s)"
            rm -rf "$venv"
            if ! timeout "$SRV_HA_INSTALL_TIMEOUT" bash -c '
                set -euo pipefail
                "$1" -m venv "$2"
                pip=("$2/bin/python" -m pip --disable-pip-version-check)
                "${pip[@]}" download --no-deps "homeassistant==$4" -d "$2/dl"
                "$2/bin/python" -c "import sys, zipfile
print(zipfile.ZipFile(sys.argv[1]).read(\"homeassistant/package_constraints.txt\").decode(), end=\"\")" \
                    "$2/dl/homeassistant-$4-py3-none-any.whl" > "$2/constraints.txt"
                rm -rf "$2/dl"
                "${pip[@]}" install -c "$2/constraints.txt" -r "$3"
            ' _ "$py" "$venv" "$req" "$version" > "$log" 2>&1; then
                tail -n 40 "$log" >&2
                srv_say "$SRV_NAME: installing Home Assistant failed or took over $SRV_HA_INSTALL_TIMEOUT s (log: $log)"
                exit 1
            fi
            cp "$req" "$venv/.requirements"
            srv_say "$SRV_NAME: installed in $((SECONDS - t0)) s"
        ) || return 1
    fi
    echo "$venv"
}
srv_homeassistant_start() {
    local venv
    venv=$(srv_homeassistant_venv) || return 1
    [ -x "$venv/bin/hass" ] || { srv_say "$SRV_NAME: $venv/bin/hass is missing after the install"; return 1; }
    command -v openssl >/dev/null || { srv_say "$SRV_NAME: openssl is required for the test PKI"; return 1; }
    # shellcheck disable=SC2086
    srv_boot "$venv/bin/python" env $EXTRA_ENV "$venv/bin/python" "$SRV_DIR/ha_server.py" --port "{PORT}" \
        --state "$SRV_STATE" || return 1
    # shellcheck disable=SC2086
    set -- $SRV_READY_LINE
    [ $# -eq 4 ] || { srv_say "$SRV_NAME: READY line '$SRV_READY_LINE' does not name three ports"; return 1; }
    SRV_URL=http://127.0.0.1:$2
}
# A running Home Assistant is reused while it answers /manifest.json and its helper site answers.
srv_homeassistant_reusable() {
    local ports
    [ -s "$SRV_STATE/ports" ] || return 1
    ports=($(cat "$SRV_STATE/ports"))
    curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:${ports[0]}/manifest.json" \
        && curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:${ports[2]}/_control/status"
}
srv_homeassistant_env() {
    local ports p=${ENV_VAR%_URL} pki=$SRV_STATE/pki
    ports=($(cat "$SRV_STATE/ports"))
    echo "export ${p}_USER=ci"
    echo "export ${p}_PASSWORD_FILE=$(srv_q "$SRV_STATE/secrets/owner-password")"
    echo "export ${p}_TOKEN_FILE=$(srv_q "$SRV_STATE/secrets/main-token")"
    echo "export ${p}_TOTP_USER=ci-totp"
    echo "export ${p}_TOTP_PASSWORD_FILE=$(srv_q "$SRV_STATE/secrets/totp-password")"
    echo "export ${p}_TOTP_SECRET_FILE=$(srv_q "$SRV_STATE/secrets/main-totp-secret")"
    echo "export ${p}_CONTROL_URL=http://127.0.0.1:${ports[2]}/_control"
    echo "export ${p}_PUSH_URL=http://127.0.0.1:${ports[2]}/push"
    echo "export ${p}_CLIENT_ID_URL=http://127.0.0.1:${ports[2]}/app/"
    echo "export ${p}_TLS_URL=https://127.0.0.1:${ports[1]}"
    echo "export ${p}_TLS_TOKEN_FILE=$(srv_q "$SRV_STATE/secrets/tls-token")"
    echo "export ${p}_TLS_TOTP_SECRET_FILE=$(srv_q "$SRV_STATE/secrets/tls-totp-secret")"
    echo "export ${p}_TLS_ROOT_PEM=$(srv_q "$pki/root.pem")"
    echo "export ${p}_TLS_ROOT_DER=$(srv_q "$pki/root.der")"
    echo "export ${p}_TLS_CLIENT_P12=$(srv_q "$pki/client.p12")"
    echo "export ${p}_TLS_CLIENT_CERT=$(srv_q "$pki/client-chain.pem")"
    echo "export ${p}_TLS_CLIENT_KEY=$(srv_q "$pki/client.key")"
    echo "export ${p}_TLS_STRANGER_P12=$(srv_q "$pki/stranger.p12")"
    echo "export ${p}_TLS_P12_PASSPHRASE_FILE=$(srv_q "$pki/p12-passphrase")"
}

# srv_wait_for <name>: waits until the server <name> (started alongside) is up (its env and url written). It
# waits as long as that server is being started (its process is alive, or its venv's install holds the venv
# lock), at most SRV_INSTALL_TIMEOUT in all; when nothing has been starting it for READY_TIMEOUT seconds, it
# gives up (the server was not asked for).
srv_wait_for() {
    local dir=$SRV_STATE_ROOT/$1 venv idle=0 busy deadline=$((SECONDS + SRV_INSTALL_TIMEOUT))
    venv=$( (srv_load "$1" >/dev/null 2>&1 && echo "$SRV_VENVS/$VENV") || true)
    until [ -s "$dir/env" ] && [ -s "$dir/url" ]; do
        busy=0
        [ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null && busy=1
        if [ -n "$venv" ] && [ -e "$venv.lock" ] && ! flock -n "$venv.lock" true 2>/dev/null; then busy=1; fi
        if [ "$busy" -eq 1 ]; then idle=0; else idle=$((idle + 1)); fi
        [ "$idle" -ge "$READY_TIMEOUT" ] || [ "$SECONDS" -ge "$deadline" ] && return 1
        sleep 1
    done
}

# nginx: /usr/sbin/nginx (Debian's package) in front of the fault server and of Omnigent in header and accounts
# mode, which it waits for (bounded by READY_TIMEOUT). A fresh private PKI (Servers/nginx/make-pki.sh) in
# <state>/pki at every start; Servers/nginx/run.sh picks the TLS ports and renders the configuration. ENV_VAR is
# the plain-http health port; srv_nginx_env exports one https URL per TLS server and the test material.
srv_nginx_start() {
    local py name
    py=$(srv_find_python) || { srv_say "$SRV_NAME: no Python >= 3.12 found"; return 1; }
    [ -x /usr/sbin/nginx ] || { srv_say "$SRV_NAME: /usr/sbin/nginx is missing (scripts/bootstrap installs it)"; return 1; }
    for name in fault omnigent omnigent-accounts wsfault; do
        srv_wait_for "$name" || { srv_say "$SRV_NAME: the $name server is not running: start it too"; return 1; }
    done
    rm -rf "$SRV_STATE/pki"
    "$SRV_DIR/make-pki.sh" "$SRV_STATE/pki" || { srv_say "$SRV_NAME: making the test PKI failed"; return 1; }
    # shellcheck disable=SC2086
    srv_boot "$py" env $EXTRA_ENV NGINX_FAULT_UPSTREAM="$(srv_nginx_upstream fault)" \
        NGINX_OMNIGENT_UPSTREAM="$(srv_nginx_upstream omnigent)" \
        NGINX_ACCOUNTS_UPSTREAM="$(srv_nginx_upstream omnigent-accounts)" \
        NGINX_WSFAULT_UPSTREAM="$(srv_nginx_upstream wsfault)" "$SRV_DIR/run.sh" "$py" "{PORT}" "$SRV_STATE" \
        || return 1
    srv_nginx_upstreams > "$SRV_STATE/upstreams"
}
# host:port of a server nginx proxies to.
srv_nginx_upstream() { sed -e 's|^http://||' -e 's|/$||' "$SRV_STATE_ROOT/$1/url"; }
srv_nginx_upstreams() {
    echo "$(srv_nginx_upstream fault) $(srv_nginx_upstream omnigent) $(srv_nginx_upstream omnigent-accounts)" \
        "$(srv_nginx_upstream wsfault)"
}
# A running nginx is reused only while it proxies to the servers running now (one restarted on another port
# makes it start again).
srv_nginx_reusable() {
    [ -s "$SRV_STATE/upstreams" ] && [ "$(srv_nginx_upstreams 2>/dev/null)" = "$(cat "$SRV_STATE/upstreams")" ]
}
srv_nginx_env() {
    local line name port pki=$SRV_STATE/pki
    while IFS== read -r name port; do
        echo "export NGINX_${name}_URL=https://127.0.0.1:$port"
    done < "$SRV_STATE/ports"
    echo "export NGINX_STATE=$(srv_q "$SRV_STATE")"
    for line in ROOT_PEM=root.pem ROOT_DER=root.der CLIENT_P12=client.p12 CLIENT_LEGACY_P12=client-legacy.p12 \
        CLIENT_LEAF_P12=client-leaf.p12 STRANGER_P12=stranger.p12 P12_PASSPHRASE_FILE=p12-passphrase \
        BASIC_PASSWORD_FILE=basic-password SSO_COOKIE_FILE=sso-cookie; do
        echo "export NGINX_${line%%=*}=$(srv_q "$pki/${line#*=}")"
    done
    echo "export NGINX_BASIC_USER=$(srv_q "$(cat "$pki/basic-user")")"
}

# ---- start ----------------------------------------------------------------------------------------

# Starts (or reuses) the loaded server and writes <state>/url and <state>/env.
srv_start() {
    local pid t0=$SECONDS
    mkdir -p "$SRV_STATE"
    chmod 700 "$SRV_STATE"
    pid=$(srv_running_pid)
    if [ -n "$pid" ] && [ -s "$SRV_STATE/url" ] && [ -s "$SRV_STATE/env" ] && srv_healthy "$(cat "$SRV_STATE/url")" \
        && { ! declare -F "srv_${KIND}_reusable" >/dev/null || "srv_${KIND}_reusable"; }; then
        srv_say "$SRV_NAME: reusing pid $pid at $(cat "$SRV_STATE/url")"
        return 0
    fi
    [ -n "$(srv_owned_pid)" ] && { srv_say "$SRV_NAME: running but not healthy; restarting it"; srv_stop; }
    rm -f "$SRV_STATE/env" "$SRV_STATE/url"
    if ! "srv_${KIND}_start"; then
        srv_stop
        return 1
    fi
    echo "$SRV_URL" > "$SRV_STATE/url"
    {
        echo "export $ENV_VAR=$(srv_q "$SRV_URL")"
        "srv_${KIND}_env"
    } > "$SRV_STATE/env.tmp"
    mv "$SRV_STATE/env.tmp" "$SRV_STATE/env"
    srv_say "$SRV_NAME: pid $(cat "$SRV_STATE/pid") at $SRV_URL (ready in $((SECONDS - t0)) s)"
}
