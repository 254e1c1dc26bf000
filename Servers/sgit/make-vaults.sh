#!/usr/bin/env bash
# Builds the CompanionVault test vaults with the real sgit CLI on the running SG/Send server (start.sh) and writes
# their manifest. Prints the variable the tests read, ready for `eval`:
#   eval "$(bash Servers/sgit/make-vaults.sh)"     # sets SGIT_VAULTS_MANIFEST
# Needs SGIT_SERVER_URL (from start.sh). Takes about a minute (the 10 MB file and PBKDF2 dominate).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
if [ -z "${SGIT_SERVER_URL:-}" ] && [ -f "$SGIT_WORK/test-env.sh" ]; then . "$SGIT_WORK/test-env.sh"; fi
: "${SGIT_SERVER_URL:?make-vaults.sh: SGIT_SERVER_URL is not set; eval the output of start.sh first}"
OUT=${SGIT_VAULTS_DIR:-$SGIT_WORK/vaults}
"$SGIT_VENV/bin/python" "$HERE/make_vaults.py" "$SGIT_CLI" "$SGIT_SERVER_URL" "$OUT" >&2
echo "export SGIT_VAULTS_MANIFEST=$OUT/manifest.json" | tee -a "$SGIT_WORK/test-env.sh"
