#!/bin/sh
# run.sh <python> <port> <state-dir>: the Certain stand-in with a fresh database in <state-dir>.
cd "$(dirname "$0")" && rm -f "$3/certain.sqlite" && exec "$1" server.py --port "$2" --db "$3/certain.sqlite"
