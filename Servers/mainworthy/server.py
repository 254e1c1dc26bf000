"""Mainworthy reference server: a stand-in written from the app's user guide (see README.md).

Run: python server.py --port PORT --db PATH   (binds 127.0.0.1 only)

The app is assembled from route modules (`routes_auth`, `routes_queue`, `routes_runs`, `routes_reports`); a later part
adds its own modules (changes, events, cases, proposals) to `ROUTE_MODULES` and its fixture rows to
`store.fixture_default`. Control endpoints exist only with MAINWORTHY_REF_CONTROL=1, and answer only
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

import routes_auth
import routes_cases
import routes_proposals
import routes_queue
import routes_reports
import routes_runs
from common import S, error, json_body, refuse, guarded
from store import PASSWORDS, PIPELINE_TOKEN, Store

ROUTE_MODULES = [routes_auth, routes_queue, routes_runs, routes_reports]
ROUTE_MODULES += [routes_cases, routes_proposals]  # the cases part


class Faults:
    """What the control endpoints asked for: failures or delays, and replies to drop."""

    def __init__(self):
        self.requests: list[dict] = []
        self.fails: list[dict] = []
        self.drops: list[dict] = []

    def clear(self):
        self.requests.clear()
        self.fails.clear()
        self.drops.clear()


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
    S.apple_apps = os.environ.get("MAINWORTHY_APPLE_APPS")
    return JSONResponse({"ok": True, "fixture": fixture})


async def control_requests(request: Request):
    if request.method == "DELETE":
        F.requests.clear()
        return Response(status_code=204)
    return JSONResponse({"items": F.requests})


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


control_routes = [
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

        async def logged(message):
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
                entry["replayed"] = any(k.lower() == b"idempotent-replayed" for k, _ in message.get("headers", []))
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
