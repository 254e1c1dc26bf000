#!/bin/sh
# run.sh <python> <port> <state-dir>: the PrompTugal team-data stand-in (standard library only; no state kept).
cd "$(dirname "$0")" && exec "$1" promptugal_server.py --port "$2"
