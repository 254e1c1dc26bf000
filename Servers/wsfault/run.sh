#!/bin/sh
# run.sh <python> <port> <state-dir>: the WebSocket fault server on 127.0.0.1:<port>.
cd "$(dirname "$0")" && exec "$1" ws_fault_server.py --port "$2" --state-dir "$3"
