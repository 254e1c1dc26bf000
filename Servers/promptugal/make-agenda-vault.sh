#!/usr/bin/env bash
# Builds PrompTugal's reader vaults with the real sgit CLI on the running SG/Send server (scripts/servers start sgit)
# and prints the variables the demo reads, for `eval`:
#   eval "$(bash Servers/promptugal/make-agenda-vault.sh)"  # sets PROMPTUGAL_VAULT_KEY, PROMPTUGAL_BROKEN_VAULT_KEY
# The first vault's apps/agenda/picks.json holds two picks; the second's is not a schedule document. Needs
# SGIT_CLI and SGIT_SERVER_URL (source .servers/env). The keys are throwaway keys made for this run.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${SGIT_SERVER_URL:?make-agenda-vault.sh: SGIT_SERVER_URL is not set; run scripts/servers start sgit and source .servers/env}"
: "${SGIT_CLI:?make-agenda-vault.sh: SGIT_CLI is not set; run scripts/servers start sgit and source .servers/env}"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/promptugal-vaults.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
KEYS=$(python3 "$HERE/make_agenda_vault.py" "$SGIT_CLI" "$SGIT_SERVER_URL" "$OUT/work")
echo "export PROMPTUGAL_VAULT_KEY=$(echo "$KEYS" | sed -n 1p)"
echo "export PROMPTUGAL_BROKEN_VAULT_KEY=$(echo "$KEYS" | sed -n 2p)"
