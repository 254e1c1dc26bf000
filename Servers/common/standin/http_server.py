"""The shared helpers on the standard library's http.server (the PrompTugal stand-in, the fault server).

class Handler(StandInHandler):
    standin_log, standin_faults, standin_clock = RequestLog(), Faults(), Clock(iso)
    standin_switch = "PROMPTUGAL_REF_CONTROL"
    standin_endpoints = {"reset": reset}           # name -> fn(handler, query, raw body)

    def do_GET(self):
        if self.path.startswith("/_control/"):
            return self.serve_control()
        if self.standin_begin():                   # logged; True when an armed failure answered
            return
        ...
"""

import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from . import control
from .clock import Clock
from .faults import Faults
from .request_log import RequestLog

Endpoint = Callable[["StandInHandler", dict[str, str], bytes], None]


class _Sink:
    """Where a lost reply's bytes go."""

    closed = False

    def write(self, data: bytes) -> int:
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class StandInHandler(BaseHTTPRequestHandler):
    """A request handler with the request log, the armed faults and the control API of `standin.control`."""

    standin_log: RequestLog
    standin_faults: Faults
    standin_clock: Clock
    standin_switch: str | None = None
    standin_endpoints: dict[str, Endpoint] = {}  # noqa: RUF012 (a table the subclass replaces, never mutated)
    standin_entry: dict | None = None

    def header_map(self) -> dict[str, str]:
        """The request's headers, lower-case names, repeated ones joined with ", "."""
        out: dict[str, str] = {}
        for name, value in self.headers.items():
            name = name.lower()
            out[name] = out[name] + ", " + value if name in out else value
        return out

    def send_response(self, code, message=None):
        if self.standin_entry is not None:
            self.standin_log.update(self.standin_entry, status=code)
        super().send_response(code, message)

    def standin_record(self, **extra) -> dict:
        """Logs this request (the fields of `request_log`, plus `extra`) and returns its entry."""
        parts = urlsplit(self.path)
        self.standin_entry = self.standin_log.record(
            self.command, parts.path, parts.query, self.header_map(), self.standin_clock.stamp(), **extra
        )
        return self.standin_entry

    def standin_begin(self, failure: Callable[[int, str], tuple[str, bytes]], **extra) -> bool:
        """Logs this request and applies an armed fault: True when a failure answered it (the caller stops);
        a delay has been waited; a lost reply swallows whatever the caller writes, then closes the connection.
        `failure(status, path)` gives the server's error reply (media type, body)."""
        entry = self.standin_record(**extra)
        path = entry["path"]
        fail = self.standin_faults.take_fail(self.command, path)
        if fail is not None:
            if fail["delay_ms"]:
                time.sleep(fail["delay_ms"] / 1000)
            if fail["status"]:
                media, body = (
                    (fail["content_type"], fail["body"].encode())
                    if fail["body"] is not None
                    else failure(fail["status"], path)
                )
                self._reply(fail["status"], media, body)
                return True
        if self.standin_faults.take_drop(self.command, path):
            self.standin_log.update(entry, dropped=True)
            self.close_connection = True
            self.wfile = _Sink()
        return False

    def serve_control(self, raw: bytes, refused: Callable[[], None]) -> None:
        """Answers a `/_control/<name>` request (its body already read into `raw`)."""
        self.standin_entry = None
        parts = urlsplit(self.path)
        name = parts.path[len(control.PREFIX) :]
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if not control.allowed(self.standin_switch, self.client_address[0]):
            return refused()
        try:
            if name == "requests" and self.command == "DELETE":
                self.standin_log.clear()
                return self._reply(204, "application/json", b"")
            if name == "requests":
                wait = control.log_wait(query)
                if wait is not None:
                    self.standin_log.wait(*wait)
                return self._json(200, self.standin_log.reply(query.get("prefix", "")))
            if name in ("fail", "drop-reply") and self.command == "POST":
                return self._json(200, control.arm(self.standin_faults, name, control.parse_body(raw)))
            endpoint = self.standin_endpoints.get(name)
            if endpoint is None:
                return refused()
            endpoint(self, query, raw)
        except control.Invalid as exc:
            self._json(422, control.invalid(str(exc)))

    def _json(self, status: int, value) -> None:
        self._reply(status, "application/json", json.dumps(value).encode())

    def _reply(self, status: int, media: str, body: bytes) -> None:
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)
