#!/bin/sh
# run.sh <python> <port> <state-dir>: the Mainworthy stand-in with a fresh database in <state-dir>.
cd "$(dirname "$0")" && rm -f "$3/mainworthy.sqlite" "$3/mainworthy.sqlite-wal" "$3/mainworthy.sqlite-shm" \
    && exec "$1" server.py --port "$2" --db "$3/mainworthy.sqlite"
