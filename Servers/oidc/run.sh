#!/bin/sh
# run.sh <python> <port> <state-dir>: oidc-provider-mock, a real OpenID Connect provider for tests
# (Flask + Authlib), on 127.0.0.1:<port>. A nonce sent is echoed in the ID token (not required: Omnigent sends none); ID tokens are RS256 with a key made at
# start. Its state lives in memory, so <state-dir> stays empty.
exec "$1" -m oidc_provider_mock --host 127.0.0.1 --port "$2"
