"""What every Python stand-in in Servers/ shares (see Servers/README.md, "The shared helper module").

- `store.Store`: the SQLite store, fresh per process, with fixtures, prefixed ids and the server's clock;
- `clock.Clock`: the server's time, moved by the tests;
- `passwords`: `hash_password`, `check_password` (scrypt, one cost) and `token_hash`;
- `request_log.RequestLog`: the request log the tests read, with a version to wait on;
- `faults.Faults`: the failures, delays and lost replies a test arms;
- `control`: the control API's rules (`/_control/<name>`, who may call it, its standard endpoints);
- `asgi`: the control routes and the logging middleware for Starlette servers (imports Starlette);
- `http_server`: the same for http.server handlers (standard library only).

Every module but `asgi` uses the standard library only. The lifecycle (Servers/lib.sh) puts Servers/common on
PYTHONPATH for every Python server; by hand: `PYTHONPATH=../common python server.py ...`.
"""
