# Shared settings for the Servers/sgit scripts; sourced, not run.
# SGIT_WORK holds the venvs, the server's disk store and the generated vaults. Override it to move them.
SGIT_WORK=${SGIT_WORK:-${TMPDIR:-/tmp}/companionkit-sgit}
SGIT_VENV=${SGIT_VENV:-$SGIT_WORK/venv}          # sgit-ai (the CLI)
SGIT_SRVENV=${SGIT_SRVENV:-$SGIT_WORK/srvenv}    # sgraph-ai-app-send (the SG/Send server)
SGIT_CLI=${SGIT_CLI:-$SGIT_VENV/bin/sgit}
SGIT_SRVPY=${SGIT_SRVPY:-$SGIT_SRVENV/bin/python}
SGIT_SERVER_DIR=${SGIT_SERVER_DIR:-$SGIT_WORK/server}
SGIT_SGIT_VERSION=${SGIT_SGIT_VERSION:-0.26.0}
SGIT_SEND_VERSION=${SGIT_SEND_VERSION:-0.34.0}

# The Python that runs both venvs: 3.12 (the server needs >= 3.12). pyenv's first, else any python3.12.
sgit_find_python312() {
    local candidate
    for candidate in "${SGIT_PYTHON:-}" "$HOME/.pyenv/versions/3.12.1/bin/python3.12" \
        $(ls -d "$HOME"/.pyenv/versions/3.12.*/bin/python3.12 2>/dev/null) "$(command -v python3.12 || true)"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
    done
    return 1
}
