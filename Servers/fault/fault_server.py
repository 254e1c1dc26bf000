#!/usr/bin/env python3
"""CompanionKit fault server: a stdlib-only HTTP/1.1 server that misbehaves on purpose.

Usage: PYTHONPATH=<repo>/Servers/common python3 fault_server.py --state-dir DIR [--log FILE]

Binds five listeners on 127.0.0.1 (port 0 each) and prints one line to stdout:
    READY <primary> <secondary> <tls> <root-same> <root-cross>
The secondary port is "another origin" (same routes; every request to it is
recorded). The TLS port uses a self-signed certificate made with the `openssl`
CLI in DIR, so clients fail to trust it. SIGTERM/SIGINT stop the server cleanly.

Routes (JSON bodies unless noted; "envelope" = {"error":{"code","message"}}):
  GET  /api/version                 {"version":"fault-1.0"}
  GET  /.well-known/fault.json      {"manifest_version":1,"server_name":"fault"}
  GET  /health                      {"status":"ok"}
  GET  /ok                          {"ok":true,"n":1}
  GET  /small                       {}
  GET  /drop-on-reuse?how=H         the first request on a connection answered, kept alive; a later one on the
                                    same connection closed with no reply (H rst, fin); H after: closed right after
                                    the first reply (on TLS close_notify, then FIN), as a server restarting does
  GET  /json?bytes=N                JSON object padded to ~N bytes
  GET  /items?after=ID&limit=N&total=T   cursor paging (ids item-0001 ...)
  ANY  /echo, /echo-headers         {"method","path","query","raw_query","headers","cookies","body",
                                     "body_bytes","origin"}
  GET  /status/<code>?envelope=omnigent|fastapi|plain|html|none&retry_after=N&retry_after_date=1&pad=N
           (pad: a JSON envelope with a "padding" member of N bytes, at most 4 MiB)
  ANY  /flaky?key=K&fail=N&code=503&retry_after=0&mode=status|reset
  POST|PATCH|PUT /write?key_required=0|1&fail_first=N&mode=503|reset|stall&stall=S  (Idempotency-Key)
  GET  /_stats?key=K                {"attempts":a,"effects":e}
  POST /_reset                      clears every counter and log
  HEAD /  (second origin only)     200 with `Server: databricks` (a workspace root, for mount discovery)
  ANY  /  (root-same origin only)   302 to /workspace-root (200 with `Server: databricks`)
  ANY  /  (root-cross origin only)  302 to the second origin's root, /?via=root-cross (a workspace root too)
           Two origins of their own, for the probe's redirect rule: their roots never change, so no test
           has to switch a shared server's behaviour while others use it.
  POST /ticket-start?login_url=U&ticket=T&token=X   {"ticket":T,"login_url":U} (a ticket flow whose login page is
           U; T defaults to "fault-ticket"); with `token`, GET /ticket-poll?ticket=T then answers 200 {"token":X}
  GET  /ticket-poll?ticket=T        200 {"token":X,"expires_in":3600} for a ticket started with a token, else 404
  POST /auth/login                  200 {"token":"aaa.bbb.ccc; Domain=evil.example","expires_in":28800,...}: a
           sign-in answer whose token is not JWT-shaped (a cookie attribute smuggled into it)
  Fault routes below answer any method (GET and a keyed POST see the same fault). Any request
  carrying an Idempotency-Key header counts as an attempt for that key (see /_stats).
  GET  /reset                       headers (Content-Length 10000) + 100 bytes, then TCP RST
  GET  /reset-before                TCP RST before any byte
  GET  /truncate                    headers (Content-Length 10000) + 100 bytes, then FIN
  GET  /truncated-json              200, correct Content-Length, body {"a":[1,2,
  GET  /stall?seconds=S             wait S (<=30) seconds, then {"ok":true}
  GET  /stall-body?seconds=S        headers + half the body, wait S (<=30), the rest
  GET  /html-error                  500 text/html
  GET  /wrong-content-type          200 text/html "not json"
  GET  /oversized?bytes=N           200 JSON array of exactly N bytes (<=64 MiB), streamed
  GET  /invalid-utf8                200 JSON with invalid UTF-8 inside a string
  GET  /not-json                    200 application/json "this is not json"
  GET  /http09                      no status line, only bytes (an HTTP/0.9-looking reply), then close
  GET  /wrong-shape                 200 {"items":[{"id":1,"name":null}]}
  GET  /redirect-loop               302 to itself
  GET  /redirect?to=/path&code=302  redirect within the same origin
  GET  /redirect-cross-origin?code=302&path=/echo-headers   to http://127.0.0.1:<secondary><path>
  GET  /redirect-to-https           302 to https://127.0.0.1:<tls>/ok
  GET  /redirect-to-http-from-tls   302 to http://127.0.0.1:<primary>/echo-headers (meant for the TLS port)
  GET  /_secondary_log              [{"method","path","headers"}] seen by the secondary port
  GET  /auth/required               401 envelope unless "Authorization: Bearer good-token" -> {"user":"tester"}
  GET  /auth/forbidden              403 envelope
  GET  /cookie/set                  Set-Cookie: fault_session=abc; Path=/; HttpOnly
  GET  /sse?count=5&interval_ms=20&stream=NAME&drop_after=K&retry=MS&comment=1&multiline=1
           &big=B&stall_after=K&malformed=1&crlf=1&done_after=K   text/event-stream, chunked; resumes after
           Last-Event-ID; with done_after, `data: [DONE]` follows the K-th event and the rest still come after it
  GET  /_sse_stats?stream=NAME      {"connections":c,"last_event_ids":[...]}
  GET  /lost-reply                  200 {"ok":true,"connection_request":n} (n: how many requests this connection
           has carried, this one included), on a kept-alive connection
  POST|PUT|PATCH|DELETE /lost-reply the whole request is read and committed (logged, and counted as an
           effect of its Idempotency-Key in /_stats), then the connection closes without a byte of reply
           (no status line; no `100 Continue` either). After a GET on the same connection, this is a write
           whose reused connection dies unanswered: the case where a client may resend it by itself.
  GET  /_lost_reply_log?after=N&wait_ms=M   {"items":[...],"version":v}: every request to /lost-reply, in
           the request-log shape of Servers/common (standin.request_log) plus "connection_request",
           "content_length" (declared, or null), "body_bytes" (received) and "committed" (the whole body
           arrived); with `after`, answered once the version is past N or after M ms (at most 10 s)
  ANY  /replica/<path>              400 {"error":{"code":"wrong_replica"}} when the request carries
           X-Databricks-Omnigent-Slice-Key (a replica that does not own that host), else 200 with an
           empty list page (GET) or {"queued":true,"pending_id":"pending-1"} (other methods: a message
           queued behind a running turn)
  GET  /omnigent-refusing/<answer>/.well-known/omnigent.json   an Omnigent manifest refused as a Databricks
           workspace refuses it to a person not yet signed in: answer 401 or 403 (the omnigent envelope), or
           `signin` (302 to /omnigent-refusing/signin/login, an HTML sign-in page)
"""

import argparse
import email.utils
import json
import math
import os
import shutil
import signal
import socket
import socketserver
import ssl
import struct
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from standin import control
from standin.request_log import RequestLog

MAX_BODY = 64 * 1024 * 1024
MAX_STALL = 30.0
MAX_LOG = 1000
STOP = threading.Event()
PORTS = {}
LOG = {"file": None, "lock": threading.Lock()}


class State:
    """All mutable counters, guarded by one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.lost_replies = RequestLog()  # every request to /lost-reply (/_lost_reply_log)
        self.reset()

    def reset(self):
        self.flaky = {}  # key -> requests seen
        self.attempts = {}  # idempotency key -> requests seen
        self.effects = {}  # idempotency key -> effects applied
        self.responses = {}  # idempotency key -> stored reply of the applied write
        self.secondary = []  # requests seen by the secondary port
        self.sse = {}  # stream -> {"connections", "last_event_ids"}
        self.lost_replies.clear()
        self.tickets = {}  # ticket -> the token its poll hands out


STATE = State()


def log(msg):
    if LOG["file"] is not None:
        with LOG["lock"]:
            LOG["file"].write("{} {}\n".format(time.strftime("%H:%M:%S"), msg))
            LOG["file"].flush()


def envelope(status, message=None):
    codes = {
        400: "bad_request",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        405: "method_not_allowed",
        409: "conflict",
        422: "validation_error",
        429: "rate_limited",
        500: "internal_error",
        502: "bad_gateway",
        503: "service_unavailable",
        504: "gateway_timeout",
    }
    reason = BaseHTTPRequestHandler.responses.get(status, ("Error",))[0]
    return {
        "error": {
            "code": codes.get(status, f"http_{status}"),
            "message": message or f"The fault server answered {status} {reason}.",
        }
    }


def num(q, name, default, lo, hi, cast=int):
    """A bounded number from the query, or the default."""
    try:
        value = cast(q[name])
    except (KeyError, ValueError):
        return default
    if isinstance(value, float) and not math.isfinite(value):
        return default
    return max(lo, min(hi, value))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = 120  # idle keep-alive connections end eventually
    origin = "primary"
    server_version = "FaultServer/1.0"

    # ---- plumbing -------------------------------------------------------
    def log_message(self, fmt, *args):
        log(f"{self.origin} {fmt % args}")

    def do_GET(self):
        self.dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts, total = [], 0
            while True:
                size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"x", 16)
                if size == 0:
                    for _ in range(100):  # trailers, then the empty line
                        if self.rfile.readline(8192) in (b"\r\n", b"\n", b""):
                            break
                    return b"".join(parts)
                total += size
                if total > MAX_BODY:
                    raise ValueError("body too large")
                parts.append(self.rfile.read(size))
                self.rfile.readline(8)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY or length < 0:
            raise ValueError("bad Content-Length")
        return self.rfile.read(length) if length else b""

    def send(self, status, body=b"", ctype="application/json", headers=()):
        self.send_response(status)
        if body:
            self.send_header("Content-Type", ctype)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        # A HEAD reply has headers only (RFC 9110 §9.3.2): a body here would sit on a kept-alive connection
        # and be read as the next request's reply.
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def json(self, status, obj, headers=()):
        self.send(status, json.dumps(obj, separators=(",", ":")).encode(), headers=headers)

    def error(self, status, message=None, headers=()):
        self.json(status, envelope(status, message), headers)

    def hard_reset(self):
        """Close with SO_LINGER 0 so the kernel sends RST instead of FIN."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            os.close(self.connection.detach())
        except OSError:
            pass

    def wait(self, seconds):
        STOP.wait(max(0.0, min(MAX_STALL, seconds)))

    def handle_expect_100(self):
        # A lost reply sends no byte at all, not even `100 Continue`: the client sends its body after its own wait.
        if urlsplit(self.path).path == "/lost-reply":
            return True
        return super().handle_expect_100()

    def dispatch(self):
        # The handler lives as long as its connection: this counts the requests the connection carried.
        self.connection_requests = getattr(self, "connection_requests", 0) + 1
        split = urlsplit(self.path)
        self.route, self.raw_query = split.path, split.query
        self.q = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        if self.route == "/lost-reply":
            return self.r_lost_reply()  # logged before its body is read: a body that never comes shows too
        try:
            self.body = self.read_body()
        except ValueError as exc:
            self.close_connection = True
            return self.error(400, f"Unreadable request body: {exc}")
        if self.origin == "secondary":
            with STATE.lock:
                STATE.secondary.append({"method": self.command, "path": self.path, "headers": self.header_dict()})
                del STATE.secondary[:-MAX_LOG]
        key = self.headers.get("Idempotency-Key")
        if key and self.route != "/write":
            # Every keyed request counts as an attempt, so a test can see how often a client retried.
            with STATE.lock:
                STATE.attempts[key] = STATE.attempts.get(key, 0) + 1
        if self.route == "/" and self.origin == "secondary":
            # The second origin plays a Databricks workspace root for mount discovery (HEAD /).
            return self.workspace_root()
        if self.route == "/" and self.origin == "root-cross":
            # Marked, so a test can tell this redirect's target from other requests to the second origin.
            return self.redirect(f"http://127.0.0.1:{PORTS['secondary']}/?via=root-cross")
        if self.route == "/" and self.origin == "root-same":
            return self.redirect("/workspace-root")
        if self.route == "/workspace-root":
            return self.workspace_root()
        if self.route.startswith("/status/"):
            return self.r_status()
        if self.route.startswith("/replica/"):
            return self.r_replica()
        if self.route.startswith("/omnigent-refusing/"):
            return self.r_omnigent_refusing()
        entry = ROUTES.get(self.route)
        if entry is None:
            return self.error(404, "Not found.")
        methods, func = entry
        if self.command not in methods:
            return self.error(405, f"Method {self.command} not allowed here.")
        try:
            func(self)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def workspace_root(self):
        """200 with `Server: databricks`, for this reply only (the handler serves a kept-alive connection)."""
        self.server_version, self.sys_version = "databricks", ""
        try:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        finally:
            del self.server_version, self.sys_version

    def header_dict(self):
        out = {}
        for name, value in self.headers.items():
            name = name.lower()
            out[name] = out[name] + ", " + value if name in out else value
        return out

    # ---- identity and simple JSON --------------------------------------
    def r_version(self):
        self.json(200, {"version": "fault-1.0"})

    def r_manifest(self):
        self.json(200, {"manifest_version": 1, "server_name": "fault"})

    def r_health(self):
        self.json(200, {"status": "ok"})

    def r_ok(self):
        self.json(200, {"ok": True, "n": 1})

    def r_drop_on_reuse(self):
        """The first request on a connection is answered (kept alive); a later one on the same connection finds it
        gone: closed with no reply, by RST (`how=rst`, the default) or by a bare FIN (`how=fin`: on TLS no
        close_notify), as a server that restarted or dropped an idle connection leaves a client's pooled one."""
        served = getattr(self, "served_on_connection", 0)
        self.served_on_connection = served + 1
        if not served:
            self.json(200, {"ok": True, "request_on_connection": 1})
            if self.q.get("how") == "after":
                # Answered as kept alive, then closed at once the way a server shutting down closes its idle
                # connections: on TLS a close_notify first, then FIN.
                self.wfile.flush()
                self.close_connection = True
                try:
                    if self.origin == "tls":
                        self.connection = self.connection.unwrap()
                    self.connection.close()
                except OSError:
                    pass
            return None
        if self.q.get("how") == "fin":
            self.close_connection = True
            try:
                os.close(self.connection.detach())
            except OSError:
                pass
            return None
        return self.hard_reset()

    def r_small(self):
        self.send(200, b"{}")

    def r_odd_headers(self):
        """`{}` with header fields as servers may write them: spaces and tabs around a value, one field twice, an
        empty one, and with `utf8=1` a UTF-8 value. Written raw: `send_header` would tidy them. (URLSession on Linux
        fails on this reply: "Failed writing header".)"""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        lines = ["X-Padded:  \t padded  value \t ", "X-Twice: one", "X-Twice:two", "X-Empty:"]
        if "utf8" in self.q:
            lines.append("X-Word: café")
        for line in lines:
            self._headers_buffer.append(line.encode() + b"\r\n")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(b"{}")

    def r_json(self):
        size = num(self.q, "bytes", 64, 0, 16 * 1024 * 1024)
        self.send(200, b'{"pad":"' + b"x" * max(0, size - 10) + b'"}')

    def r_items(self):
        total = num(self.q, "total", 25, 0, 100000)
        limit = num(self.q, "limit", 10, 1, 1000)
        start = 0
        after = self.q.get("after")
        if after:
            try:
                start = int(after.rsplit("-", 1)[1])
            except (IndexError, ValueError):
                return self.error(400, f"Unknown cursor {after!r}.")
        data = [
            {"id": f"item-{n:04d}", "n": n, "created_at": 1764400000 + n}
            for n in range(start + 1, min(total, start + limit) + 1)
        ]
        self.json(
            200,
            {
                "object": "list",
                "data": data,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
                "has_more": bool(data) and data[-1]["n"] < total,
            },
        )

    def r_echo(self):
        cookies = {}
        for part in self.headers.get("Cookie", "").split(";"):
            if "=" in part:
                name, value = part.strip().split("=", 1)
                cookies[name] = value
        self.json(
            200,
            {
                "method": self.command,
                "path": self.route,
                "query": self.q,
                "raw_query": self.raw_query,
                "headers": self.header_dict(),
                "cookies": cookies,
                "body": self.body.decode("utf-8", "replace"),
                "body_bytes": len(self.body),
                "origin": self.origin,
            },
        )

    # ---- a sharded deployment's router: the slice key names a host on another replica ----
    def r_replica(self):
        if self.headers.get("X-Databricks-Omnigent-Slice-Key"):
            return self.json(400, {"error": {"code": "wrong_replica", "message": "host is on another replica"}})
        if self.command == "GET":
            return self.json(200, {"object": "list", "data": [], "first_id": None, "last_id": None, "has_more": False})
        self.json(200, {"queued": True, "pending_id": "pending-1"})

    def r_omnigent_refusing(self):
        parts = self.route.split("/")  # ["", "omnigent-refusing", answer, ...]
        answer = parts[2] if len(parts) > 2 else ""
        if self.route.endswith("/login"):
            page = b"<html><head><title>Sign in</title></head><body><form>Sign in</form></body></html>"
            return self.send(200, page, "text/html; charset=utf-8")
        if answer in ("401", "403"):
            message = "Sign in to the workspace first." if answer == "401" else "Not allowed."
            return self.json(int(answer), {"error": {"code": "unauthenticated", "message": message}})
        if answer == "signin":
            return self.redirect("/omnigent-refusing/signin/login")
        return self.error(404, "Not found.")

    # ---- status codes, flaky endpoints, idempotent writes ---------------
    def r_status(self):
        try:
            status = int(self.route[len("/status/") :])
        except ValueError:
            return self.error(400, "Status must be a number.")
        if not 200 <= status <= 599:
            return self.error(400, "Status must be within 200...599.")
        headers = []
        if "retry_after" in self.q:
            headers.append(("Retry-After", self.q["retry_after"]))
        if self.q.get("retry_after_date") == "1":
            headers.append(("Retry-After", email.utils.formatdate(math.ceil(time.time() + 1), usegmt=True)))
        kind = self.q.get("envelope", "omnigent")
        if status in (204, 304) or kind == "none":
            return self.send(status, b"", headers=headers)
        if kind == "html":
            page = b"<html><body><h1>Error %d</h1><p>Something broke.</p></body></html>" % status
            return self.send(status, page, "text/html; charset=utf-8", headers)
        body = {
            "fastapi": {
                "detail": [{"type": "missing", "loc": ["body", "agent_id"], "msg": "Field required", "input": {}}]
            },
            "plain": {"error": "plain error sentence"},
        }.get(kind, envelope(status))
        pad = num(self.q, "pad", 0, 0, 4 << 20)
        if pad:
            body = dict(body, padding="x" * pad)  # a large error reply: its sentence must still be read
        self.json(status, body, headers)

    def r_flaky(self):
        key = self.q.get("key", "default")
        with STATE.lock:
            attempt = STATE.flaky[key] = STATE.flaky.get(key, 0) + 1
        if attempt <= num(self.q, "fail", 1, 0, 1000):
            if self.q.get("mode") == "reset":
                return self.hard_reset()
            retry = self.q.get("retry_after", "0")
            self.error(
                num(self.q, "code", 503, 400, 599),
                headers=[("Retry-After", retry)] if retry not in ("", "none") else [],
            )
            return
        self.json(200, {"ok": True, "attempt": attempt})

    def r_write(self):
        key = self.headers.get("Idempotency-Key", "")
        with STATE.lock:
            attempt = STATE.attempts[key] = STATE.attempts.get(key, 0) + 1
            if not key and self.q.get("key_required") == "1":
                reply = None
            elif key and key in STATE.responses:
                reply = dict(STATE.responses[key], replayed=True)
            else:
                effect = STATE.effects[key] = STATE.effects.get(key, 0) + 1
                reply = {
                    "effect": effect,
                    "key": key,
                    "replayed": False,
                    "method": self.command,
                    "body": self.body.decode("utf-8", "replace"),
                }
                if key:
                    STATE.responses[key] = reply
        if reply is None:
            return self.error(400, "An Idempotency-Key header is required.")
        reply = dict(reply, attempt=attempt)
        if attempt <= num(self.q, "fail_first", 0, 0, 1000):
            mode = self.q.get("mode", "503")
            if mode == "reset":
                return self.hard_reset()
            if mode == "stall":
                self.wait(num(self.q, "stall", 5.0, 0.0, MAX_STALL, float))
            else:
                return self.error(503, "Write applied but the reply failed.", [("Retry-After", "0")])
        self.json(201, reply)

    def r_lost_reply(self):
        declared = self.headers.get("Content-Length")
        key = self.headers.get("Idempotency-Key")
        entry = STATE.lost_replies.record(
            self.command,
            self.route,
            self.raw_query,
            self.header_dict(),
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            connection_request=self.connection_requests,
            content_length=int(declared) if declared and declared.isdigit() else None,
            body_bytes=0,
            committed=False,
        )
        if key:
            with STATE.lock:
                STATE.attempts[key] = STATE.attempts.get(key, 0) + 1
        if self.command in ("GET", "HEAD"):
            STATE.lost_replies.update(entry, status=200)
            return self.json(200, {"ok": True, "connection_request": self.connection_requests})
        try:
            body = self.read_body()
            chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
            complete = chunked or len(body) == (entry["content_length"] or 0)
        except (ValueError, OSError):
            body, complete = b"", False
        if complete and key:
            with STATE.lock:
                STATE.effects[key] = STATE.effects.get(key, 0) + 1
        STATE.lost_replies.update(entry, body_bytes=len(body), committed=complete, dropped=True)
        self.close_connection = True  # FIN with nothing written: the whole body was read, so no RST

    def r_lost_reply_log(self):
        wait = control.log_wait(self.q)
        if wait is not None:
            STATE.lost_replies.wait(*wait)
        self.json(200, STATE.lost_replies.reply())

    def r_stats(self):
        key = self.q.get("key", "")
        with STATE.lock:
            self.json(200, {"attempts": STATE.attempts.get(key, 0), "effects": STATE.effects.get(key, 0)})

    def r_reset_state(self):
        with STATE.lock:
            STATE.reset()
        self.json(200, {"ok": True})

    # ---- connection faults ----------------------------------------------
    def partial_head(self, length=10000):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def r_reset(self):
        self.partial_head()
        self.wfile.write(b'{"data":"' + b"x" * 91)
        self.hard_reset()

    def r_reset_before(self):
        self.hard_reset()

    def r_truncate(self):
        self.partial_head()
        self.wfile.write(b'{"data":"' + b"x" * 91)
        self.close_connection = True

    def r_truncated_json(self):
        self.send(200, b'{"a":[1,2,')

    def r_stall(self):
        seconds = num(self.q, "seconds", 5.0, 0.0, MAX_STALL, float)
        self.wait(seconds)
        self.json(200, {"ok": True, "stalled": seconds})

    def r_stall_body(self):
        seconds = num(self.q, "seconds", 5.0, 0.0, MAX_STALL, float)
        body = json.dumps({"ok": True, "stalled": seconds, "pad": "y" * 200}).encode()
        self.partial_head(len(body))
        self.wfile.write(body[:100])
        self.wait(seconds)
        self.wfile.write(body[100:])

    # ---- bad bodies -----------------------------------------------------
    def r_html_error(self):
        self.send(500, b"<html><body><h1>500 Internal Server Error</h1></body></html>", "text/html")

    def r_wrong_content_type(self):
        self.send(200, b"<html><body>not json</body></html>", "text/html")

    def r_oversized(self):
        size = num(self.q, "bytes", 1024 * 1024, 2, MAX_BODY)
        inner = size - 2  # "[" + elements + "]"
        first = b"" if inner == 0 else (b"0" if inner % 2 else b"10")
        pairs = (inner - len(first)) // 2  # each ",0" is 2 bytes
        self.partial_head(size)
        self.wfile.write(b"[" + first)
        block = b",0" * 32768
        full, rest = divmod(pairs, 32768)
        for _ in range(full):
            self.wfile.write(block)
        self.wfile.write(b",0" * rest + b"]")

    def r_invalid_utf8(self):
        self.send(200, b'{"text":"bad \xff\xfe\xc3( bytes"}')

    def r_http09(self):
        # No status line and no headers: what a client reads when a connection carries stray bytes.
        self.close_connection = True
        self.wfile.write(b"stray bytes, not an HTTP reply\n")

    def r_not_json(self):
        self.send(200, b"this is not json")

    def r_wrong_shape(self):
        self.json(200, {"items": [{"id": 1, "name": None}]})

    # ---- redirects ------------------------------------------------------
    def redirect(self, location, code=302):
        self.send(code, b"", headers=[("Location", location)])

    def code(self):
        return num(self.q, "code", 302, 300, 308)

    def r_redirect_loop(self):
        self.redirect("/redirect-loop")

    def r_redirect(self):
        target = self.q.get("to", "/ok")
        if not target.startswith("/"):
            return self.error(400, "'to' must be a path on this origin.")
        self.redirect(target, self.code())

    def r_redirect_cross(self):
        path = self.q.get("path", "/echo-headers")
        if not path.startswith("/"):
            return self.error(400, "'path' must start with '/'.")
        self.redirect(f"http://127.0.0.1:{PORTS['secondary']}{path}", self.code())

    def r_redirect_https(self):
        self.redirect(f"https://127.0.0.1:{PORTS['tls']}/ok")

    def r_redirect_http(self):
        self.redirect(f"http://127.0.0.1:{PORTS['primary']}/echo-headers")

    def r_ticket_start(self):
        ticket = self.q.get("ticket", "fault-ticket")
        if "token" in self.q:
            with STATE.lock:
                STATE.tickets[ticket] = self.q["token"]
        self.json(200, {"ticket": ticket, "login_url": self.q.get("login_url", "/auth/login")})

    def r_bad_login(self):
        self.json(
            200,
            {
                "token": "aaa.bbb.ccc; Domain=evil.example",
                "expires_in": 28800,
                "user": {"id": "fault", "is_admin": False},
            },
        )

    def r_ticket_poll(self):
        with STATE.lock:
            token = STATE.tickets.get(self.q.get("ticket", ""))
        if token is None:
            return self.json(404, envelope(404, "no such ticket"))
        self.json(200, {"token": token, "expires_in": 3600})

    def r_secondary_log(self):
        with STATE.lock:
            self.json(200, list(STATE.secondary))

    # ---- auth and cookies -----------------------------------------------
    def r_auth_required(self):
        if self.headers.get("Authorization", "") == "Bearer good-token":
            return self.json(200, {"user": "tester"})
        self.error(401, "Authentication required")

    def r_auth_forbidden(self):
        self.error(403, "You are not allowed to do that.")

    def r_cookie_set(self):
        self.json(200, {"ok": True}, [("Set-Cookie", "fault_session=abc; Path=/; HttpOnly")])

    # ---- server-sent events ---------------------------------------------
    def chunk(self, text):
        data = text.encode("utf-8") if isinstance(text, str) else text
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def r_sse(self):
        q = self.q
        stream = q.get("stream", "default")
        last_id = self.headers.get("Last-Event-ID")
        with STATE.lock:
            stats = STATE.sse.setdefault(stream, {"connections": 0, "last_event_ids": []})
            stats["connections"] += 1
            first_connection = stats["connections"] == 1
            stats["last_event_ids"] = (stats["last_event_ids"] + [last_id])[-MAX_LOG:]
        count = num(q, "count", 5, 0, 100000)
        interval = num(q, "interval_ms", 20, 0, 10000) / 1000.0
        drop_after = num(q, "drop_after", 0, 0, 100000) if first_connection else 0
        stall_after = num(q, "stall_after", 0, 0, 100000)
        done_after = num(q, "done_after", 0, 0, 100000)
        big = num(q, "big", 0, 0, 16 * 1024 * 1024)
        nl = "\r\n" if q.get("crlf") == "1" else "\n"
        try:
            start = int(last_id) + 1 if last_id else 1
        except ValueError:
            start = 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if "retry" in q:
            self.chunk(f"retry: {num(q, 'retry', 1000, 0, 3600000)}{nl}{nl}")
        sent = 0
        for n in range(start, count + 1):
            if STOP.is_set():
                break
            if sent and interval:
                STOP.wait(interval)
            if q.get("comment") == "1":
                self.chunk(": keep-alive" + nl)
            data = f'{{"n":{n},"stream":{json.dumps(stream)}}}'
            if big and sent == 0:
                data = data[:-1] + ',"pad":"' + "z" * max(0, big - len(data) - 9) + '"}'
            lines = []
            if q.get("malformed") == "1":
                lines += ["nocolonline", "bogus: ignored field", "retry: abc"]
            lines += [f"id: {n}", "event: tick"]
            if q.get("multiline") == "1" and "," in data:
                head, tail = data.split(",", 1)
                lines += ["data: " + head + ",", "data: " + tail]
            else:
                lines.append("data: " + data)
            if q.get("malformed") == "1":
                lines.append("id: 99\x0099")  # contains NUL: the spec says ignore it
            event = nl.join(lines) + nl + nl
            for i in range(0, len(event), 65536):
                self.chunk(event[i : i + 65536])
            sent += 1
            if done_after and sent == done_after:
                self.chunk("data: [DONE]" + nl + nl)
            if drop_after and sent >= drop_after and n < count:
                self.close_connection = True  # FIN without the last chunk: a drop
                return
            if stall_after and sent >= stall_after and n < count:
                self.wait(MAX_STALL)
                self.close_connection = True
                return
        self.wfile.write(b"0\r\n\r\n")

    def r_sse_stats(self):
        with STATE.lock:
            stats = STATE.sse.get(self.q.get("stream", "default"), {"connections": 0, "last_event_ids": []})
            self.json(200, {"connections": stats["connections"], "last_event_ids": list(stats["last_event_ids"])})


GET, ANY, WRITE = ("GET",), ("GET", "POST", "PUT", "PATCH", "DELETE"), ("POST", "PATCH", "PUT")
ROUTES = {
    "/api/version": (GET, Handler.r_version),
    "/.well-known/fault.json": (GET, Handler.r_manifest),
    "/health": (GET, Handler.r_health),
    "/ok": (ANY, Handler.r_ok),
    "/drop-on-reuse": (GET, Handler.r_drop_on_reuse),
    "/small": (ANY, Handler.r_small),
    "/odd-headers": (ANY, Handler.r_odd_headers),
    "/json": (ANY, Handler.r_json),
    "/items": (ANY, Handler.r_items),
    "/echo": (ANY, Handler.r_echo),
    "/echo-headers": (ANY, Handler.r_echo),
    "/flaky": (ANY, Handler.r_flaky),
    "/write": (WRITE, Handler.r_write),
    "/_stats": (GET, Handler.r_stats),
    "/_lost_reply_log": (GET, Handler.r_lost_reply_log),
    "/_reset": (("POST",), Handler.r_reset_state),
    "/reset": (ANY, Handler.r_reset),
    "/reset-before": (ANY, Handler.r_reset_before),
    "/truncate": (ANY, Handler.r_truncate),
    "/truncated-json": (ANY, Handler.r_truncated_json),
    "/stall": (ANY, Handler.r_stall),
    "/stall-body": (ANY, Handler.r_stall_body),
    "/html-error": (ANY, Handler.r_html_error),
    "/wrong-content-type": (ANY, Handler.r_wrong_content_type),
    "/oversized": (ANY, Handler.r_oversized),
    "/invalid-utf8": (ANY, Handler.r_invalid_utf8),
    "/not-json": (ANY, Handler.r_not_json),
    "/http09": (ANY, Handler.r_http09),
    "/wrong-shape": (ANY, Handler.r_wrong_shape),
    "/redirect-loop": (ANY, Handler.r_redirect_loop),
    "/redirect": (ANY, Handler.r_redirect),
    "/redirect-cross-origin": (ANY, Handler.r_redirect_cross),
    "/redirect-to-https": (ANY, Handler.r_redirect_https),
    "/redirect-to-http-from-tls": (ANY, Handler.r_redirect_http),
    "/_secondary_log": (GET, Handler.r_secondary_log),
    "/ticket-start": (("POST",), Handler.r_ticket_start),
    "/ticket-poll": (GET, Handler.r_ticket_poll),
    "/auth/login": (("POST",), Handler.r_bad_login),
    "/auth/required": (ANY, Handler.r_auth_required),
    "/auth/forbidden": (ANY, Handler.r_auth_forbidden),
    "/cookie/set": (GET, Handler.r_cookie_set),
    "/sse": (GET, Handler.r_sse),
    "/_sse_stats": (GET, Handler.r_sse_stats),
}


class TLSHandler(Handler):
    origin = "tls"

    def setup(self):
        self.request.settimeout(10)
        self.request.do_handshake()  # in the handler thread, never in the accept loop
        super().setup()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    # socketserver's default backlog is 5: with hundreds of tests connecting at once the kernel dropped
    # handshakes, and a client's SYN retried after 1, 3, 7, 15 s (a three-request test ran past a minute).
    request_queue_size = 1024

    def server_bind(self):
        # Skip HTTPServer's reverse-DNS lookup (getfqdn), which can hang on offline machines.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request, client_address):
        log(f"error from {client_address}: {sys.exc_info()[1]!r}")


def make_certificate(state_dir):
    if shutil.which("openssl") is None:
        sys.exit("fault_server: the `openssl` CLI is required for the TLS listener but was not found")
    cert, key = os.path.join(state_dir, "tls-cert.pem"), os.path.join(state_dir, "tls-key.pem")
    result = subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            key,
            "-out",
            cert,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode != 0:
        sys.exit("fault_server: openssl failed:\n" + result.stderr)
    return cert, key


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    parser = argparse.ArgumentParser(description="CompanionKit fault server (127.0.0.1 only)")
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--log", help="append a request log to this file")
    args = parser.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: STOP.set())
    os.makedirs(args.state_dir, exist_ok=True)
    if args.log:
        LOG["file"] = open(args.log, "a", encoding="utf-8")
    cert, key = make_certificate(args.state_dir)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    servers = {
        "primary": Server(("127.0.0.1", 0), Handler),
        "secondary": Server(("127.0.0.1", 0), type("SecondaryHandler", (Handler,), {"origin": "secondary"})),
        "tls": Server(("127.0.0.1", 0), TLSHandler),
        "root-same": Server(("127.0.0.1", 0), type("RootSameHandler", (Handler,), {"origin": "root-same"})),
        "root-cross": Server(("127.0.0.1", 0), type("RootCrossHandler", (Handler,), {"origin": "root-cross"})),
    }
    servers["tls"].socket = context.wrap_socket(servers["tls"].socket, server_side=True, do_handshake_on_connect=False)
    for name, server in servers.items():
        PORTS[name] = server.server_address[1]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    print("READY", *(PORTS[name] for name in ("primary", "secondary", "tls", "root-same", "root-cross")), flush=True)
    log(f"ready on {PORTS!r}")
    while not STOP.wait(0.1):
        pass
    for server in servers.values():
        server.shutdown()
        server.server_close()
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
