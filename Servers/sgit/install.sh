#!/usr/bin/env bash
# Installs the real sgit CLI (sgit-ai) and the real SG/Send server (sgraph-ai-app-send) into two venvs
# under $SGIT_WORK, from PyPI, pinned. Idempotent: a venv whose package is already at the pinned version is kept.
# Usage: bash Servers/sgit/install.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
PY=$(sgit_find_python312) || { echo "install.sh: Python 3.12 not found (set SGIT_PYTHON)" >&2; exit 1; }
mkdir -p "$SGIT_WORK"

installed() { # venv package version
    [ -x "$1/bin/python" ] && [ "$("$1/bin/python" -c "import importlib.metadata as m; print(m.version('$2'))" 2>/dev/null)" = "$3" ]
}

if ! installed "$SGIT_VENV" sgit-ai "$SGIT_SGIT_VERSION"; then
    rm -rf "$SGIT_VENV"
    "$PY" -m venv "$SGIT_VENV"
    "$SGIT_VENV/bin/pip" install -q --disable-pip-version-check "sgit-ai==$SGIT_SGIT_VERSION"
fi
if ! installed "$SGIT_SRVENV" sgraph-ai-app-send "$SGIT_SEND_VERSION"; then
    rm -rf "$SGIT_SRVENV"
    "$PY" -m venv "$SGIT_SRVENV"
    "$SGIT_SRVENV/bin/pip" install -q --disable-pip-version-check "sgraph-ai-app-send==$SGIT_SEND_VERSION" uvicorn
fi
echo "sgit: $("$SGIT_CLI" --version 2>/dev/null | head -1) at $SGIT_CLI"
echo "server python: $SGIT_SRVPY"
