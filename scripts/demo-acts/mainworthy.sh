#!/usr/bin/env bash
# The Mainworthy act of the demo: the reference server (a stand-in written from the app's guide),
# driven by `companion mainworthy` as the app's core would drive it: sign in as ada, the queue's
# summary line, answer the failure as flaky with a reason, undo it, record a result in the open run
# and move to the next empty slot; then changes: a pipeline report turns a change's gate failing live on
# `watch`, the failing test is answered and the verdict changes.
#
# Needs $COMPANION (the built companion binary). Starts the server with `scripts/servers start
# mainworthy` unless $MAINWORTHY_URL is set already; stops only a server it started (not one it reused).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${COMPANION:?set COMPANION to the built companion binary}"
export COMPANION_STATE=${COMPANION_STATE:-$PWD/.servers}
export COMPANION_HOME=${COMPANION_HOME:-$COMPANION_STATE/demo-home}

started=""
if [ -z "${MAINWORTHY_URL:-}" ]; then
    status=$(scripts/servers status mainworthy 2>&1 || true)
    case "$status" in *"mainworthy: running"*) ;; *) started=yes ;; esac
    scripts/servers start mainworthy
    set -a; source "$COMPANION_STATE/env"; set +a
fi
stop() { if [ -n "$started" ]; then scripts/servers stop mainworthy >/dev/null 2>&1 || true; fi; }
trap stop EXIT INT TERM

url=$MAINWORTHY_URL
# MAINWORTHY_SHAPE=spec runs the act against the stand-in answering with §2's members only (Servers/mainworthy/shapes.py).
shape=${MAINWORTHY_SHAPE:-rich}
curl -sf -X POST "$url/_control/reset" -H 'Content-Type: application/json' \
    -d "{\"fixture\":\"default\",\"shape\":\"$shape\"}" >/dev/null
password=$(curl -sf "$url/_control/fixture" | python3 -c 'import json,sys; print(json.load(sys.stdin)["passwords"]["ada"])')

mw() { echo; echo "\$ companion mainworthy $*"; "$COMPANION" mainworthy "$@" --server "$url"; }

echo "== Mainworthy (reference server at $url, $shape shape)"
echo; echo "\$ companion mainworthy login --user ada --password-stdin"
printf '%s\n' "$password" | "$COMPANION" mainworthy login --user ada --password-stdin --server "$url"
mw queue
failure=$("$COMPANION" mainworthy queue --kind failure --json --server "$url" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["value"]["items"][0]["id"])')
mw question "$failure"
decision=$("$COMPANION" mainworthy answer "$failure" flaky --reason "Runner timeout" --json --server "$url" \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["recorded"], file=sys.stderr); print(d["decision"]["id"])')
echo "(answered $failure as flaky; decision $decision)"
mw queue
mw undo "$decision" --reason "Wrong call"
mw queue
mw run r_1
mw result r_1 s_2 pass --note "Works on the staging shop"
mw result r_1 s_4 fail --step 2 --note "The address form does not save"

# Changes and the gate: a pipeline report arrives (posted with the pipeline token), the gate turns
# failing live on `watch`, the failing test is answered and the verdict changes.
echo; echo "== Changes and the gate"
mw changes
mw change ch_1
json_field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
token=$(curl -sf "$url/_control/fixture" | json_field 'd["pipeline_token"]')
watch_out=$(mktemp)
revision=$("$COMPANION" mainworthy changes --json --server "$url" | json_field 'd["value"]["revision"]')
echo; echo "\$ companion mainworthy watch --until change   (in the background, from revision $revision)"
"$COMPANION" mainworthy watch --after "$revision" --until change --timeout 30 --server "$url" >"$watch_out" &
watcher=$!
echo; echo "\$ companion mainworthy report --project shop --commit d4e5f6a --branch feat/cart --pr 412 --fail … < token"
printf '%s\n' "$token" | "$COMPANION" mainworthy report --project shop --commit d4e5f6a --base 0f0e0d0 \
    --branch feat/cart --pr 412 --fail "checkout.spec.ts › pays with card=expected 200, got 500" --case C-12 \
    --touch C-12 --server "$url"
wait "$watcher"
echo "(watch saw:)"; cat "$watch_out"
mw change ch_1
question=$("$COMPANION" mainworthy change ch_1 --json --server "$url" | json_field 'd["value"]["gate"]["questions"][0]["id"]')
revision=$("$COMPANION" mainworthy changes --json --server "$url" | json_field 'd["value"]["revision"]')
"$COMPANION" mainworthy watch --after "$revision" --until change --timeout 30 --server "$url" >"$watch_out" &
watcher=$!
mw answer "$question" flaky --reason "Runner timeout on the new head"
wait "$watcher"
echo "(watch saw:)"; cat "$watch_out"
rm -f "$watch_out"
mw change ch_1
mw logout

# ---- Cases: browse, a scoped search, a case edit saved and adopted, and the history with the new version.
echo; echo "\$ companion mainworthy login --user ada --password-stdin"
printf '%s\n' "$password" | "$COMPANION" mainworthy login --user ada --password-stdin --server "$url"
mw browse
mw cases --folder f_3 --search c-12
mw case C-12
mw edit C-12 --title "Pay by card with 3-D Secure" --step "Open the cart" \
    --step "Pay with a 3-D Secure card=>The bank's page opens" --step "Confirm=>A confirmation appears" \
    --reason "The bank now asks for 3-D Secure"
mw history C-12
mw logout
