#!/bin/sh
# run.sh <python> <port> <state-dir>: the Mainworthy stand-in with a fresh database in <state-dir> (the store
# replaces any file left there). PYTHONPATH holds Servers/common (set by Servers/lib.sh).
cd "$(dirname "$0")" && exec "$1" server.py --port "$2" --db "$3/mainworthy.sqlite"
