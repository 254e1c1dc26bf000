#!/usr/bin/env bash
# The Omnigent act of scripts/demo: a local Omnigent 0.19.1 server (installed on first use) driven by
# `companion` the way the native app's core would: probe, sessions grouped as on the watch, a
# session's messages, a live message over SSE, a rename, a refused turn with the server's own
# sentence, and the redacted journal. The server listens on 127.0.0.1 only and is stopped on exit.
#
# Needs: $COMPANION = the built companion binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${COMPANION:?set COMPANION to the companion binary}"
export COMPANION_STATE=${COMPANION_STATE:-$PWD/.servers}
export COMPANION_HOME=${COMPANION_HOME:-$COMPANION_STATE/demo-home}
trap 'scripts/servers stop omnigent >/dev/null 2>&1 || true' EXIT INT TERM
companion() { echo; echo "\$ companion $*"; "$COMPANION" "$@"; }

echo "== starting Omnigent"
scripts/servers start omnigent
# shellcheck disable=SC1091
source "$COMPANION_STATE/omnigent/env"
url=$OMNIGENT_URL

# Some activity to look at: a session with a question and an answer, made as another client would.
py=$(command -v python3)
agent=$(curl -sf "$url/v1/agents" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])')
session=$(curl -sf -X POST "$url/v1/sessions" -H 'Content-Type: application/json' \
    -d "{\"agent_id\":\"$agent\",\"title\":\"Demo $(date -u +%H:%M:%S)\"}" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["id"])')
post() { curl -sf -X POST "$url/v1/sessions/$session/events" -H 'Content-Type: application/json' -d "$1" >/dev/null; }
post '{"type":"external_conversation_item","data":{"item_type":"message","item_data":{"role":"user","content":[{"type":"input_text","text":"What is CompanionKit?"}]}}}'
post '{"type":"external_assistant_message","data":{"agent":"debby","text":"The shared core of four companion apps."}}'

companion probe "$url" --manifest omnigent
companion omnigent sessions --server "$url" --limit 5
companion omnigent show "$session"
( sleep 2; post '{"type":"external_assistant_message","data":{"agent":"debby","text":"This line arrived live over SSE."}}' ) &
companion omnigent watch "$session" --events 1
companion omnigent rename "$session" "Renamed from the terminal"
companion omnigent send "$session" "Hello" || echo "(expected: this server has no runner, and the app shows the server's own sentence)"
companion journal --limit 6
