#!/usr/bin/env bash
# The Home Assistant act of scripts/demo: a real Home Assistant 2025.4.4 on 127.0.0.1 with 1,000 entities in ten
# areas; the sign-in (the password read from standard input, never echoed), one area's entities, a toggle from the
# terminal seen arriving on a running `watch`, Home Assistant's own refusal word for word, this device registered
# with its battery sensor, a notification received over the local push channel and confirmed, and the stored
# states with their age once the server is stopped.
#
# Needs: $COMPANION = the built companion binary. Uses $COMPANION_HOME (a demo home is made when unset).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${COMPANION:?set COMPANION to the companion binary}"
export COMPANION_STATE=${COMPANION_STATE:-$PWD/.servers}
export COMPANION_HOME=${COMPANION_HOME:-$COMPANION_STATE/demo-home}
mkdir -p "$COMPANION_HOME"
work=$(mktemp -d)
background=()
stop() {
    for pid in "${background[@]}"; do kill "$pid" 2>/dev/null || true; done
    scripts/servers stop homeassistant >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap stop EXIT INT TERM

run() { echo; echo "\$ companion $*"; "$COMPANION" "$@"; }
# Waits (at most 90 s) until the file $1 holds a line starting with $2.
await_line() {
    for _ in $(seq 450); do
        grep -q "^$2" "$1" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "demo: \"$2\" never appeared in $1" >&2
    return 1
}

echo "== Home Assistant: starting 2025.4.4 (the first start installs it: minutes)"
scripts/servers start homeassistant
# shellcheck disable=SC1091
source "$COMPANION_STATE/homeassistant/env"
url=$HOMEASSISTANT_URL

run homeassistant probe "$url"
echo; echo "\$ companion homeassistant login $url --user $HOMEASSISTANT_USER --password-stdin   (the password)"
"$COMPANION" homeassistant login "$url" --user "$HOMEASSISTANT_USER" --password-stdin <"$HOMEASSISTANT_PASSWORD_FILE"
echo; echo "\$ companion homeassistant states --area Kitchen   (the first 12 lines)"
"$COMPANION" homeassistant states --area Kitchen >"$work/states.out"
head -n 12 "$work/states.out"

echo; echo "== a watch runs in the background; a toggle from this terminal arrives on it"
"$COMPANION" homeassistant watch input_boolean.porch_light --events 1 >"$work/watch.out" 2>"$work/watch.err" &
watch=$!
background+=("$watch")
await_line "$work/watch.err" "Watching"
run homeassistant toggle input_boolean.porch_light
wait "$watch"
echo "(the watch printed) $(cat "$work/watch.out")"

echo; echo "== Home Assistant's own refusal, word for word (exit 1)"
run homeassistant call input_number.set_value --entity input_number.thermostat --data '{"value": 999}' || true

echo; echo "== this device: registered, its battery sent, a notification over the local push channel"
tag=$(date +%s)
run homeassistant register --server "$url" --device-name "demo $tag"
run homeassistant sensor battery_level 81 --server "$url"
"$COMPANION" homeassistant notifications --follow --count 1 --server "$url" >"$work/push.out" 2>"$work/push.err" &
follow=$!
background+=("$follow")
await_line "$work/push.err" "Following"
run homeassistant call "notify.mobile_app_demo_$tag" --data '{"message": "The washing machine is done", "title": "Laundry"}'
wait "$follow"
echo "(received and confirmed) $(cat "$work/push.out")"

echo; echo "== stopping Home Assistant: the stored states, with their age"
scripts/servers stop homeassistant
echo; echo "\$ companion homeassistant states --offline --area Kitchen   (the first 5 lines)"
"$COMPANION" homeassistant states --offline --area Kitchen >"$work/offline.out"
head -n 5 "$work/offline.out"
