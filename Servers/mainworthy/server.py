"""Mainworthy reference server: a stand-in written from the app's user guide (see README.md).

Run: python server.py --port PORT --db PATH   (binds 127.0.0.1 only)

The app is assembled from route modules (`routes_auth`, `routes_queue`, `routes_runs`, `routes_reports`,
`routes_changes`, `routes_events`); a later part adds its own modules (cases, proposals) to `ROUTE_MODULES` and
its fixture rows to `store.fixture_default`. Any module publishes to the live stream with
`events.publish(store, project, kind, data)`. Control endpoints exist only with MAINWORTHY_REF_CONTROL=1, and answer only
callers on 127.0.0.1.
"""

import argparse
import asyncio
import json
import os

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import events
import routes_auth
import routes_cases
import routes_changes
import routes_events
import routes_proposals
import routes_queue
import routes_reports
import routes_runs
from common import S, error, json_body, refuse, guarded
from store import PASSWORDS, PIPELINE_TOKEN, Store

ROUTE_MODULES = [routes_auth, routes_queue, routes_runs, routes_reports, routes_changes, routes_events]
ROUTE_MODULES += [routes_cases, routes_proposals]  # the cases part


class Faults:
    """What the control endpoints asked for: failures or delays, and replies to drop."""

    def __init__(self):
        self.requests: list[dict] = []
        self.fails: list[dict] = []
        self.drops: list[dict] = []
        # The log's change feed: `version` counts changes (an entry added, a status set, a clear); waiters of
        # `GET /_control/requests?after=N` wake on `changed`.
        self.version = 0
        self.changed = asyncio.Event()

    def touch(self):
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    def clear(self):
        self.requests.clear()
        self.fails.clear()
        self.drops.clear()
        self.touch()


F = Faults()


def matching(rules: list[dict], method: str, path: str):
    for rule in rules:
        if rule["times"] > 0 and rule["path"] == path and rule.get("method") in (None, method):
            rule["times"] -= 1
            return rule
    return None


# ---- control ----------------------------------------------------------------------------------


def control(handler):
    async def wrapper(request: Request) -> Response:
        host = request.client.host if request.client else ""
        if os.environ.get("MAINWORTHY_REF_CONTROL") != "1" or host != "127.0.0.1":
            return error(404, "not_found")
        return await guarded(handler)(request)

    return wrapper


async def control_reset(request: Request):
    fixture = str((await json_body(request)).get("fixture", "default"))
    try:
        S.store.reset(fixture)
    except KeyError:
        raise refuse(422, "invalid", f"There is no fixture “{fixture}”.", fields={"fixture": "unknown"})
    F.clear()
    routes_changes.reset_controls()
    routes_events.reset_controls()
    events.wake_all()
    S.apple_apps = os.environ.get("MAINWORTHY_APPLE_APPS")
    return JSONResponse({"ok": True, "fixture": fixture})


async def control_requests(request: Request):
    if request.method == "DELETE":
        F.requests.clear()
        F.touch()
        return Response(status_code=204)
    # `?after=N&wait_ms=M`: answers once the log changed past version N, or after M ms (at most 10 s), so a test
    # waits on the log's changes instead of polling it.
    after = request.query_params.get("after")
    if after is not None and after.isdigit() and F.version <= int(after):
        wait_ms = request.query_params.get("wait_ms", "5000")
        timeout = min(int(wait_ms) if wait_ms.isdigit() else 5000, 10_000) / 1000
        try:
            await asyncio.wait_for(F.changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass
    return JSONResponse({"items": F.requests, "version": F.version})


async def control_fail(request: Request):
    data = await json_body(request)
    F.fails.append({"path": str(data.get("path", "")), "method": data.get("method"), "status": data.get("status"),
                    "times": int(data.get("times", 1)), "delay_ms": int(data.get("delay_ms") or 0)})
    return JSONResponse({"ok": True})


async def control_drop_reply(request: Request):
    data = await json_body(request)
    F.drops.append({"path": str(data.get("path", "")), "method": data.get("method"), "times": int(data.get("times", 1))})
    return JSONResponse({"ok": True})


async def control_fixture(request: Request):
    return JSONResponse({"passwords": PASSWORDS, "pipeline_token": PIPELINE_TOKEN})


async def control_capabilities(request: Request):
    """Sets a user's capabilities in a project (a concurrency test lets bo decide)."""
    data = await json_body(request)
    user = S.store.one("SELECT id FROM users WHERE name = ?", data.get("user"))
    if user is None:
        raise refuse(404, "not_found", "There is no such user.")
    S.store.run(
        "INSERT INTO memberships VALUES (?,?,?) ON CONFLICT(user_id, project) DO UPDATE SET capabilities = excluded.capabilities",
        user["id"], data.get("project"), json.dumps(list(data.get("capabilities", []))))
    return JSONResponse({"ok": True})


async def control_configure(request: Request):
    """Serves as if started with another MAINWORTHY_APPLE_APPS (`null`: unset)."""
    data = await json_body(request)
    value = data.get("apple_apps")
    S.apple_apps = value if isinstance(value, str) else None
    return JSONResponse({"apple_apps": S.apple_apps})


async def control_clock(request: Request):
    """Moves the server's clock forward (the 24 h idempotency window)."""
    data = await json_body(request)
    S.store.clock_offset += float(data.get("advance_hours", 0)) * 3600
    return JSONResponse({"offset_hours": S.store.clock_offset / 3600})


async def control_move_head(request: Request):
    """`{"change", "times": n, "after": k}`: in each of the next n reads of the change, its head moves after
    the k-th part served (default 1; a read starts with `GET P/changes/{id}`). `{"change", "now": true}`
    moves it at once."""
    data = await json_body(request)
    change = S.store.one("SELECT * FROM changes WHERE id = ?", str(data.get("change", "")))
    if change is None:
        raise refuse(404, "not_found", "There is no such change.")
    if data.get("now"):
        return JSONResponse({"head": routes_changes.move_head(change["project"], change["id"])})
    routes_changes.MOVES[change["id"]] = {"times": int(data.get("times", 1)), "after": max(1, int(data.get("after", 1))),
                                          "count": None}
    return JSONResponse({"ok": True})


async def control_stream(request: Request):
    """`{"ping_ms": n}`: the streams' ping interval (until the next reset)."""
    data = await json_body(request)
    if data.get("ping_ms") is not None:
        routes_events.C.ping_seconds = max(0.01, int(data["ping_ms"]) / 1000)
        events.wake_all()
    return JSONResponse({"ping_ms": int(routes_events.C.ping_seconds * 1000)})


async def control_cut_stream(request: Request):
    """`{"after_events": n, "times": t}`: the next t streams opened send n events, then half of the next,
    and close the connection."""
    data = await json_body(request)
    routes_events.C.cuts.append({"after_events": int(data.get("after_events", 0)), "times": int(data.get("times", 1))})
    return JSONResponse({"ok": True})


async def control_publish(request: Request):
    """`{"project", "kind", "data", "times"}`: publishes an event `times` times (a burst while a client is away)."""
    data = await json_body(request)
    project = str(data.get("project", "shop"))
    last = 0
    with S.store.lock:
        S.store.db.execute("BEGIN")
        try:
            for _ in range(max(1, int(data.get("times", 1)))):
                last = events.publish(S.store, project, str(data.get("kind", "run")), dict(data.get("data") or {}))
        finally:
            S.store.db.execute("COMMIT")
    return JSONResponse({"revision": last})


async def control_branches(request: Request):
    """`{"project", "count", "prefix"}`: one pipeline report on each of `count` new branches, as if posted."""
    data = await json_body(request)
    project = str(data.get("project", "shop"))
    prefix = str(data.get("prefix", "bulk/"))
    made = []
    with S.store.lock:
        S.store.db.execute("BEGIN")
        try:
            for n in range(int(data.get("count", 1))):
                report = {"commit": f"{n:07x}", "base": "0f0e0d0", "branch": f"{prefix}{n}", "job": "unit",
                          "results": [{"test": "unit › smoke", "outcome": "pass"}]}
                made.append(routes_reports.apply_report(S.store, project, report, json.dumps(report)))
        finally:
            S.store.db.execute("COMMIT")
    return JSONResponse({"changes": made})


control_routes = [
    Route("/_control/move-head", control(control_move_head), methods=["POST"]),
    Route("/_control/stream", control(control_stream), methods=["POST"]),
    Route("/_control/cut-stream", control(control_cut_stream), methods=["POST"]),
    Route("/_control/publish", control(control_publish), methods=["POST"]),
    Route("/_control/branches", control(control_branches), methods=["POST"]),
    Route("/_control/reset", control(control_reset), methods=["POST"]),
    Route("/_control/requests", control(control_requests), methods=["GET", "DELETE"]),
    Route("/_control/fail", control(control_fail), methods=["POST"]),
    Route("/_control/drop-reply", control(control_drop_reply), methods=["POST"]),
    Route("/_control/fixture", control(control_fixture)),
    Route("/_control/capabilities", control(control_capabilities), methods=["POST"]),
    Route("/_control/clock", control(control_clock), methods=["POST"]),
    Route("/_control/configure", control(control_configure), methods=["POST"]),
]


# ---- the request log and the faults ----------------------------------------------------------------


class Middleware:
    """Logs every request (method, path, query, its Idempotency-Key, whether a cookie came along, never
    its value), then applies an injected delay or failure, or drops the reply after the request ran."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"].startswith("/_control"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        entry = {"method": scope["method"], "path": scope["path"],
                 "query": scope.get("query_string", b"").decode(), "idempotency_key": headers.get("idempotency-key"),
                 "cookie": "cookie" in headers, "at": S.store.stamp(), "status": None, "replayed": False,
                 "dropped": False}
        F.requests.append(entry)
        F.touch()

        async def logged(message):
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
                entry["replayed"] = any(k.lower() == b"idempotent-replayed" for k, _ in message.get("headers", []))
                F.touch()
            await send(message)

        fail = matching(F.fails, scope["method"], scope["path"])
        if fail is not None:
            if fail["delay_ms"]:
                await asyncio.sleep(fail["delay_ms"] / 1000)
            if fail["status"]:
                response = error(int(fail["status"]), "injected_failure",
                                 f"This failure was injected for {scope['path']}.")
                await response(scope, receive, logged)
                return
        if matching(F.drops, scope["method"], scope["path"]) is not None:
            entry["dropped"] = True

            async def drop(message):
                # The request ran and is committed; the head goes out, the body never does: a lost reply.
                if message["type"] == "http.response.body":
                    raise ConnectionAbortedError("reply dropped on purpose (/_control/drop-reply)")
                await logged(message)

            await self.app(scope, receive, drop)
            return
        await self.app(scope, receive, logged)


def build_app() -> Middleware:
    routes = [route for module in ROUTE_MODULES for route in module.routes] + control_routes

    async def not_found(request: Request, exc):
        return error(404, "not_found", f"There is nothing at {request.url.path}.")

    async def not_allowed(request: Request, exc):
        return error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}.")

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed})
    return Middleware(app)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    S.store = Store(args.db)
    S.base_url = f"http://127.0.0.1:{args.port}"
    S.apple_apps = os.environ.get("MAINWORTHY_APPLE_APPS")
    uvicorn.run(build_app(), host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
