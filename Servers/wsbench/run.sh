#!/bin/sh
# run.sh <python> <port> <state-dir>: the P11 WebSocket peer on 127.0.0.1:<port>; prints `READY <port>` when listening.
cd "$(dirname "$0")" && exec "$1" wsbench_server.py --port "$2"
