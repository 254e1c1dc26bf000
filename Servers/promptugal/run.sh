#!/bin/sh
# run.sh <python> <port> <state-dir>: the PrompTugal team-data stand-in (standard library only; no state kept),
# also serving the repository's vault fixture on the SG/Send read routes. PYTHONPATH holds Servers/common (set by
# Servers/lib.sh).
cd "$(dirname "$0")" && exec "$1" promptugal_server.py --port "$2" \
    --vault "fixturevault01=$(pwd)/../../Tests/CompanionVaultTests/Fixtures/sgit-vault/objects"
