#!/usr/bin/env bash
# The Certain act of scripts/demo: the reference server, a sign-in with a second factor (the code from the
# server's control endpoint, as an authenticator app would show it), the device token, the overview,
# October's budget with its notices, a transactions page with a paired transfer, the contracts, and the
# overview again with the server stopped: the offline copy, with its age.
#
# Needs: $COMPANION = the built companion binary. Uses $COMPANION_HOME (a demo home is made when unset).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${COMPANION:?set COMPANION to the companion binary}"
export COMPANION_STATE=${COMPANION_STATE:-$PWD/.servers}
export COMPANION_HOME=${COMPANION_HOME:-$COMPANION_STATE/demo-home}
mkdir -p "$COMPANION_HOME"
stop() { scripts/servers stop certain >/dev/null 2>&1 || true; }
trap stop EXIT INT TERM

run() { echo; echo "\$ companion $*"; "$COMPANION" "$@"; }
control() { curl -sf --max-time 5 "$@"; }
field() { python3 -c 'import json,sys; print(json.load(sys.stdin)'"$1"')'; }

echo "== Certain: starting the reference server"
scripts/servers start certain
# shellcheck disable=SC1091
source "$COMPANION_STATE/certain/env"
url=$CERTAIN_URL
control -X POST "$url/_control/reset" -H 'Content-Type: application/json' -d '{"fixture":"default"}' >/dev/null

# The demo user "totp" has a second factor. The password and the current code come from the test
# server's control endpoints; the terminal reads both from standard input and never echoes them.
password=$(control "$url/_control/fixture" | field '["passwords"]["totp"]')
code=$(control "$url/_control/totp/totp" | field '["code"]')
echo; echo "\$ companion certain login $url --user totp --password-stdin   (password, then the TOTP code)"
printf '%s\n%s\n' "$password" "$code" | "$COMPANION" certain login "$url" --user totp --password-stdin
run certain tokens --lang en

run certain overview --lang de
run certain budget --month 2026-10 --lang en
# October's savings transfer came from the bank as two linked legs, both positive: one row.
run certain transactions --search Sparen --from 2026-10-01 --to 2026-10-31 --limit 5 --lang en
run certain contracts --lang de

echo; echo "== stopping the server: the overview comes from the offline copy, with its age"
scripts/servers stop certain
run certain overview --lang en
