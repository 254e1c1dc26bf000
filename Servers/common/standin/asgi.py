"""The shared helpers on Starlette and uvicorn (the Certain and Mainworthy stand-ins).

log, faults = RequestLog(), Faults()
routes = app_routes + control_routes("CERTAIN_REF_CONTROL", log, faults, {"reset": (reset, ["POST"])},
                                     refused=not_found)
app = StandInMiddleware(Starlette(routes=routes), log=log, faults=faults, clock=store.clock,
                        failure=lambda status, path: JSONResponse(..., status_code=status))
"""

import asyncio
from collections.abc import Awaitable, Callable

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from . import control
from .clock import Clock
from .faults import Faults
from .request_log import RequestLog

Handler = Callable[[Request], Awaitable[Response]]


def control_routes(
    switch: str | None,
    log: RequestLog,
    faults: Faults,
    endpoints: dict[str, tuple[Handler, list[str]]],
    refused: Callable[[Request], Response],
) -> list[Route]:
    """The routes of the control API: `requests`, `fail` and `drop-reply` as every stand-in serves them,
    and the server's own `endpoints` (name, e.g. "reset" or "totp/{username}" → handler and methods), each
    answered by `refused(request)` when the switch is off or the caller is not on 127.0.0.1."""

    async def requests(request: Request) -> Response:
        if request.method == "DELETE":
            log.clear()
            return Response(status_code=204)
        wait = control.log_wait(request.query_params)
        if wait is not None:
            await log.wait_async(*wait)
        return JSONResponse(log.reply(request.query_params.get("prefix", "")))

    def arming(name: str) -> Handler:
        async def arm(request: Request) -> Response:
            return JSONResponse(control.arm(faults, name, control.parse_body(await request.body())))

        return arm

    table = {
        "requests": (requests, ["GET", "DELETE"]),
        "fail": (arming("fail"), ["POST"]),
        "drop-reply": (arming("drop-reply"), ["POST"]),
        **endpoints,
    }

    def guarded(handler: Handler) -> Handler:
        async def guard(request: Request) -> Response:
            if not control.allowed(switch, request.client.host if request.client else ""):
                return refused(request)
            try:
                return await handler(request)
            except control.Invalid as exc:
                return JSONResponse(control.invalid(str(exc)), status_code=422)

        return guard

    return [
        Route(control.PREFIX + name, guarded(handler), methods=methods) for name, (handler, methods) in table.items()
    ]


async def control_body(request: Request) -> dict:
    """A control request's JSON object body; a bad one answers 422 (`control.Invalid`)."""
    return control.parse_body(await request.body())


class StandInMiddleware:
    """Logs every request outside `/_control` in the request log, then applies what the control endpoints
    armed: a delay, a failure (`failure(status, path)`, the server's error envelope), or a lost reply.

    `extra(headers)` adds the server's own fields to each log entry; `before(scope)` runs after the entry
    is logged and before the faults (Certain's hold). With `fresh_connections_while_dropping`, every other
    reply closes its connection while a lost reply is armed, so the lost one arrives on a new connection."""

    def __init__(
        self,
        app,
        *,
        log: RequestLog,
        faults: Faults,
        clock: Clock,
        failure: Callable[[int, str], Response],
        extra: Callable[[dict[str, str]], dict] | None = None,
        before: Callable[[dict], Awaitable[None]] | None = None,
        fresh_connections_while_dropping: bool = False,
    ):
        self.app = app
        self.log = log
        self.faults = faults
        self.clock = clock
        self.failure = failure
        self.extra = extra
        self.before = before
        self.fresh_connections = fresh_connections_while_dropping

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"].startswith(control.PREFIX):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        method, path = scope["method"], scope["path"]
        entry = self.log.record(
            method,
            path,
            scope.get("query_string", b"").decode("latin-1"),
            headers,
            self.clock.stamp(),
            **(self.extra(headers) if self.extra else {}),
        )

        def answered(message) -> None:
            self.log.update(
                entry,
                status=message["status"],
                replayed=any(k.lower() == b"idempotent-replayed" for k, _ in message.get("headers", [])),
            )

        async def logged(message):
            if message["type"] == "http.response.start":
                answered(message)
            await send(message)

        if self.before is not None:
            await self.before(scope)
        fail = self.faults.take_fail(method, path)
        if fail is not None:
            if fail["delay_ms"]:
                await asyncio.sleep(fail["delay_ms"] / 1000)
            if fail["status"]:
                if fail["body"] is not None:
                    response = Response(fail["body"], status_code=fail["status"], media_type=fail["content_type"])
                else:
                    response = self.failure(fail["status"], path)
                await response(scope, receive, logged)
                return
        if self.faults.take_drop(method, path):
            self.log.update(entry, dropped=True)
            sender = lost_reply(send, answered)
        elif self.fresh_connections and self.faults.dropping():
            sender = closing(logged)
        else:
            sender = logged
        try:
            await self.app(scope, receive, sender)
        except ClientDisconnect:
            # The client closed the connection before its body arrived whole (a resend that carries only the
            # head, or a send it gave up on while a delay held it): nothing ran; the 500 Starlette wrote (the
            # entry's status) went nowhere.
            self.log.update(entry, disconnected=True)


def lost_reply(send, answered: Callable[[dict], None]):
    """A `send` that lets the handler run and commit, then closes the connection before the status line:
    the client receives nothing at all. `answered` still sees the status the handler chose. uvicorn's `send`
    is a bound method of the request cycle, whose transport this closes; marking the cycle disconnected
    stops uvicorn from writing a 500 afterwards."""
    cycle = getattr(send, "__self__", None)
    if getattr(cycle, "transport", None) is None:
        raise RuntimeError("a lost reply needs uvicorn's own send (its request cycle)")

    async def lose(message):
        if message["type"] == "http.response.start":
            answered(message)
            cycle.disconnected = True
            cycle.transport.close()
        # every message of the reply is swallowed

    return lose


def closing(send):
    """A `send` that adds `Connection: close` to the reply's head."""

    async def close_after(message):
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
            message = dict(message, headers=[*headers, (b"connection", b"close")])
        await send(message)

    return close_after
