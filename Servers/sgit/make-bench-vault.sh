#!/usr/bin/env bash
# Builds the P5 benchmark vault (1,000 files, about 50 MB; SGIT_BENCH_FILES / SGIT_BENCH_MB override) with the real
# sgit CLI on the running SG/Send server, and prints the variable the benchmark reads:
#   eval "$(bash Servers/sgit/make-bench-vault.sh)"      # sets SGIT_BENCH_KEY (a throwaway read-key string)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
if [ -z "${SGIT_SERVER_URL:-}" ] && [ -f "$SGIT_WORK/test-env.sh" ]; then . "$SGIT_WORK/test-env.sh"; fi
: "${SGIT_SERVER_URL:?make-bench-vault.sh: SGIT_SERVER_URL is not set; eval the output of start.sh first}"
OUT=${SGIT_BENCH_DIR:-$SGIT_WORK/bench}
rm -rf "$OUT"; mkdir -p "$OUT"
KEY=$("$SGIT_VENV/bin/python" "$HERE/make_bench_vault.py" "$SGIT_CLI" "$SGIT_SERVER_URL" "$OUT" | tail -n 1)
rm -rf "$OUT/bench"   # the working copy is not needed
echo "export SGIT_BENCH_KEY=$KEY" | tee -a "$SGIT_WORK/test-env.sh"
