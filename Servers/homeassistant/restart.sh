#!/usr/bin/env bash
# Restarts (or stops, or starts) the test Home Assistant on the same port and config, and returns when it is
# RUNNING again (at most about 3.5 min), printing the control API's JSON answer:
#
#   Servers/homeassistant/restart.sh [restart|stop|start] [main|tls]     # default: restart main
#
# It needs HOMEASSISTANT_CONTROL_URL (source .servers/env), or reads it from the lifecycle's state folder
# ${COMPANION_STATE:-<repo>/.servers}/homeassistant/env. Tests can POST to $HOMEASSISTANT_CONTROL_URL/<action>
# themselves (Servers/homeassistant/README.md). Exit 0 done, 1 not done, 2 usage.
set -euo pipefail
action=${1:-restart}
instance=${2:-main}
case "$action" in restart|stop|start) ;; *) echo "usage: $0 [restart|stop|start] [main|tls]" >&2; exit 2 ;; esac
case "$instance" in main|tls) ;; *) echo "usage: $0 [restart|stop|start] [main|tls]" >&2; exit 2 ;; esac
if [ -z "${HOMEASSISTANT_CONTROL_URL:-}" ]; then
    repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    env_file=${COMPANION_STATE:-$repo/.servers}/homeassistant/env
    [ -s "$env_file" ] || { echo "$0: the homeassistant server is not running (no $env_file)" >&2; exit 1; }
    # shellcheck disable=SC1090
    . "$env_file"
fi
curl -sS --fail-with-body --max-time 220 -X POST -H 'Content-Type: application/json' \
    -d "{\"instance\":\"$instance\"}" "$HOMEASSISTANT_CONTROL_URL/$action"
echo
