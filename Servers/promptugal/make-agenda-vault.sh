#!/usr/bin/env bash
# Builds PrompTugal's reader vault (apps/agenda/picks.json) with the real sgit CLI on the running SG/Send server
# (Servers/sgit/start.sh) and prints the variable PrompTugalCore's vault tests and the demo read, for `eval`:
#   eval "$(bash Servers/promptugal/make-agenda-vault.sh)"  # sets PROMPTUGAL_VAULT_KEY, PROMPTUGAL_BROKEN_VAULT_KEY
# The second vault's mirror is not a schedule document. Needs SGIT_SERVER_URL. The keys are throwaway keys made
# for this run (a few seconds: PBKDF2 dominates).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../sgit/env.sh"
if [ -z "${SGIT_SERVER_URL:-}" ] && [ -f "$SGIT_WORK/test-env.sh" ]; then . "$SGIT_WORK/test-env.sh"; fi
: "${SGIT_SERVER_URL:?make-agenda-vault.sh: SGIT_SERVER_URL is not set; eval the output of Servers/sgit/start.sh first}"
KEYS=$("$SGIT_VENV/bin/python" "$HERE/make_agenda_vault.py" "$SGIT_CLI" "$SGIT_SERVER_URL" "$SGIT_WORK/promptugal-vault")
{
    echo "export PROMPTUGAL_VAULT_KEY=$(echo "$KEYS" | sed -n 1p)"
    echo "export PROMPTUGAL_BROKEN_VAULT_KEY=$(echo "$KEYS" | sed -n 2p)"
} | tee -a "$SGIT_WORK/test-env.sh"
