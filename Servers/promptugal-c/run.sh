#!/bin/sh
# run.sh <python> <port> <state-dir>: the PrompTugal stand-in serving its third fixture (standard library only; no
# state kept): me.json, places, the agenda and the command centre in shapes neither the client nor its tests were
# written against. PYTHONPATH holds Servers/common (set by Servers/lib.sh).
cd "$(dirname "$0")/../promptugal" && exec "$1" promptugal_server.py --port "$2" --fixture third
