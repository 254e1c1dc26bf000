#!/usr/bin/env bash
# Starts one Omnigent server in a state folder of the caller's choosing (the tests' OwnOmnigent uses
# this to own a server it can kill and restart on the same data):
#
#   Servers/omnigent/start.sh <state-dir> [header|accounts]   # last stdout line: http://127.0.0.1:<port>
#
# The lifecycle is Servers/lib.sh's, with the conf of Servers/omnigent (header) or
# Servers/omnigent-accounts (accounts). Stop it: kill -TERM -- -"$(cat <state-dir>/pgid)".
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 <state-dir> [header|accounts]" >&2; exit 2; }
SRV_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRV_STATE_ROOT=${COMPANION_STATE:-$SRV_REPO/.servers}
SRV_VENVS=${COMPANION_VENVS:-$SRV_REPO/.venvs}
# shellcheck source=../lib.sh
. "$SRV_REPO/Servers/lib.sh"
case "${2:-header}" in
    header) srv_load omnigent ;;
    accounts) srv_load omnigent-accounts ;;
    *) echo "$0: mode must be 'header' or 'accounts', not '$2'" >&2; exit 2 ;;
esac
mkdir -p "$1"
SRV_STATE=$(cd "$1" && pwd)
srv_start
cat "$SRV_STATE/url"
