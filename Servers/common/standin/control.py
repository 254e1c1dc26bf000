"""The control API every stand-in serves to its tests, one shape for all of them.

- Paths `/_control/<name>`; a change is a `POST` with a JSON object body, a read a `GET`; replies are JSON.
- Served only when the server's switch is on (an environment variable set to "1", e.g.
  `CERTAIN_REF_CONTROL=1` from its server.conf) and only to callers on 127.0.0.1; otherwise the
  server's own 404.
- Every stand-in serves these the same way:
  `POST reset` (back to a fixture; forgets the faults and the request log),
  `GET requests?after=N&wait_ms=M&prefix=P` (the request log, `request_log.RequestLog.reply`; with
  `after`, answered once the log's version is past N or after M ms, at most 10 s) and `DELETE requests`,
  `POST fail` and `POST drop-reply` (see `faults`), `GET fixture` (public test data) where it has one.
- A control request that cannot be carried out is 422 `{"error": {"code": "invalid", "message": sentence}}`.

The adapters for each kind of server are `standin.asgi` (Starlette) and `standin.http` (http.server).
"""

import json
import os
from collections.abc import Mapping

from .faults import Faults

PREFIX = "/_control/"
MAX_WAIT_SECONDS = 10.0


class Invalid(ValueError):
    """A control request that cannot be carried out; its message is the reply's sentence."""


def allowed(switch: str | None, host: str) -> bool:
    """Whether a caller on `host` may use the control endpoints (`switch`: the variable that turns them on;
    None: always on)."""
    return (switch is None or os.environ.get(switch) == "1") and host == "127.0.0.1"


def invalid(message: str) -> dict:
    return {"error": {"code": "invalid", "message": message}}


def parse_body(raw: bytes) -> dict:
    """A control request's JSON object body (empty: `{}`)."""
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise Invalid("The body is not JSON.") from exc
    if not isinstance(data, dict):
        raise Invalid("The body is not a JSON object.")
    return data


def log_wait(query: Mapping[str, str]) -> tuple[int, float] | None:
    """`(after, seconds)` from `?after=N&wait_ms=M` (M defaults to 5000, at most 10 s), or None without `after`."""
    after = query.get("after")
    if after is None or not after.isdigit():
        return None
    wait_ms = query.get("wait_ms", "5000")
    seconds = (int(wait_ms) if wait_ms.isdigit() else 5000) / 1000
    return int(after), min(seconds, MAX_WAIT_SECONDS)


def arm(faults: Faults, name: str, body: dict) -> dict:
    """Carries out `POST /_control/fail` or `POST /_control/drop-reply`."""
    try:
        if name == "fail":
            faults.arm_fail(body)
        else:
            faults.arm_drop(body)
    except ValueError as exc:
        raise Invalid(str(exc)) from exc
    return {"ok": True}
