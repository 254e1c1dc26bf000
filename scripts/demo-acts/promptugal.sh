#!/usr/bin/env bash
# The PrompTugal act of scripts/demo: pull the reader vault from the local SG/Send server and merge its
# schedule mirror with a local pick, show the schedule in Lisbon time, fetch the team data, stop the team-data
# stand-in and show the same data again offline with its age, then print the Network and Keys debug panels.
# No key value is printed anywhere; the act checks its own output for it.
#
# Needs: $COMPANION = the built companion binary (scripts/demo sets it).
# Starts `promptugal` and `sgit` with scripts/servers (127.0.0.1 only) and stops them on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${COMPANION:?set COMPANION to the companion binary (swift build --show-bin-path)/companion}"
export COMPANION_STATE=${COMPANION_STATE:-$PWD/.servers}
export COMPANION_HOME=${COMPANION_HOME:-$COMPANION_STATE/demo-home}/promptugal-act
rm -rf "$COMPANION_HOME"
transcript=$(mktemp)
trap 'rm -f "$transcript"; scripts/servers stop promptugal sgit >/dev/null 2>&1 || true' EXIT INT TERM
companion() { echo; echo "\$ companion $*"; "$COMPANION" "$@" 2>&1 | tee -a "$transcript"; }

echo "== PrompTugal: starting the team-data stand-in and the SG/Send server"
scripts/servers start promptugal sgit
set -a
# shellcheck disable=SC1091
source "$COMPANION_STATE/promptugal/env"
# shellcheck disable=SC1091
source "$COMPANION_STATE/sgit/env"
set +a
echo "== PrompTugal: making the reader vault with the real sgit CLI (its apps/agenda/picks.json holds two picks)"
eval "$(bash Servers/promptugal/make-agenda-vault.sh)"

# A local pick: an event of the agenda, by its page address.
slug=$(curl -sf "$PROMPTUGAL_URL/api/v1/live/agenda.json" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["slug"])')
companion promptugal debug --on
companion promptugal schedule --add "https://promptugal.news/events/$slug/index.html"
echo
echo "\$ COMPANION_VAULT_KEY=<the read key> companion promptugal schedule --from-vault -"
COMPANION_VAULT_KEY="$PROMPTUGAL_VAULT_KEY" "$COMPANION" promptugal schedule --from-vault - 2>&1 | tee -a "$transcript"
companion promptugal debug network
companion promptugal team me
companion promptugal team places
companion promptugal team agenda
companion promptugal team command-centre

echo
echo "== PrompTugal: stopping the stand-in; the same data from the copy on this device, with its age"
scripts/servers stop promptugal
sleep 2   # so the age is visible
companion promptugal team places
companion promptugal team agenda --offline
companion promptugal team command-centre --offline
companion promptugal schedule --offline
companion promptugal debug network
companion promptugal debug keys
companion promptugal debug build

hex=${PROMPTUGAL_VAULT_KEY#sgit_private_read_}
hex=${hex%%:*}
if grep -qi -e "$hex" -e "$PROMPTUGAL_VAULT_KEY" "$transcript" \
    || grep -rqi "$hex" "$COMPANION_HOME/journal.jsonl" 2>/dev/null; then
    echo "!! a key value appeared in the output or the journal" >&2
    exit 1
fi
echo
echo "== PrompTugal: no key value in the output or the journal"
