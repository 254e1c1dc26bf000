#!/usr/bin/env bash
# Builds the P5 benchmark vault (1,000 files, about 50 MB; SGIT_BENCH_FILES / SGIT_BENCH_MB override) with the real
# sgit CLI on the running SG/Send server, and prints the variable the benchmark reads:
#   scripts/servers start sgit && source .servers/sgit/env
#   eval "$(bash Servers/sgit/make-bench-vault.sh)"      # sets SGIT_BENCH_KEY (a throwaway read-key string)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${SGIT_SERVER_URL:?make-bench-vault.sh: SGIT_SERVER_URL is not set; run scripts/servers start sgit and source its env}"
: "${SGIT_CLI:?make-bench-vault.sh: SGIT_CLI is not set; run scripts/servers start sgit and source its env}"
STATE=${COMPANION_STATE:-$(cd "$HERE/../.." && pwd)/.servers}
OUT=${SGIT_BENCH_DIR:-$STATE/sgit/bench}
rm -rf "$OUT"; mkdir -p "$OUT"
KEY=$("$(dirname "$SGIT_CLI")/python" "$HERE/make_bench_vault.py" "$SGIT_CLI" "$SGIT_SERVER_URL" "$OUT" | tail -n 1)
rm -rf "$OUT/bench"   # the working copy is not needed
echo "export SGIT_BENCH_KEY=$KEY"
