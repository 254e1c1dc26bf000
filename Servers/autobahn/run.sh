#!/usr/bin/env bash
# run.sh <python> <port> <state-dir>: Autobahn|Testsuite's fuzzingserver on 127.0.0.1:<port>, sections 1-10.
# <python> is the venv of requirements.txt (virtualenv); the suite's own Python 2.7 environment is made beside it
# (<venv>/wstest-py27), once per constraints file, under a lock. Needs pyenv's CPython 2.7.18 (AUTOBAHN_PY27
# overrides) and gcc; fails loudly without them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py3=$1 port=$2 state=$3
venv3=$(dirname "$(dirname "$py3")")
root=${PYENV_ROOT:-${HOME:-/nonexistent}/.pyenv}
command -v pyenv >/dev/null 2>&1 && root=$(pyenv root)
py27=${AUTOBAHN_PY27:-$root/versions/2.7.18/bin/python}
[ -x "$py27" ] || { echo "autobahn: no CPython 2.7 at $py27 (wstest needs it; Debian 12 has none)" >&2; exit 1; }
wstest=$venv3/wstest-py27
if ! cmp -s "$here/constraints-py27.txt" "$wstest/.constraints"; then
    (
        exec 9>"$wstest.lock"
        flock -w 2400 9
        cmp -s "$here/constraints-py27.txt" "$wstest/.constraints" && exit 0
        echo "autobahn: installing autobahntestsuite 25.10.1 into $wstest" >&2
        rm -rf "$wstest"
        "$venv3/bin/virtualenv" -q -p "$py27" "$wstest" >&2
        PIP_NO_PYTHON_VERSION_WARNING=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$wstest/bin/pip" install -q \
            -c "$here/constraints-py27.txt" autobahntestsuite==25.10.1 >&2
        cp "$here/constraints-py27.txt" "$wstest/.constraints"
    )
fi
rm -rf "$state/reports"
mkdir -p "$state/reports"
cat > "$state/spec.json" <<SPEC
{
    "url": "ws://127.0.0.1:$port",
    "outdir": "$state/reports",
    "cases": ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "9.*", "10.*"],
    "exclude-cases": [],
    "exclude-agent-cases": {}
}
SPEC
cd "$state"
export WSTEST_READY_PORT=$port
exec "$wstest/bin/python" "$here/wstest_loopback.py" -m fuzzingserver -s "$state/spec.json" -u 0
