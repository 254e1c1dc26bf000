"""Mainworthy reference server: a stand-in written from the app's user guide (see README.md).

Run: PYTHONPATH=../common python server.py --port PORT --db PATH   (binds 127.0.0.1 only)

The app is assembled from route modules (`routes_auth`, `routes_queue`, `routes_runs`, `routes_reports`,
`routes_changes`, `routes_events`); a later part adds its own modules (cases, proposals) to `ROUTE_MODULES` and
its fixture rows to `store.fixture_default`. Any module publishes to the live stream with
`events.publish(store, project, kind, data)`. Control endpoints exist only with MAINWORTHY_REF_CONTROL=1, and answer
only callers on 127.0.0.1.
"""

import argparse
import json
import os

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

import events
import routes_auth
import routes_cases
import routes_changes
import routes_events
import routes_proposals
import routes_queue
import routes_reports
import routes_runs
from common import S, error, guarded, refuse
from standin.asgi import StandInMiddleware, control_body, control_routes
from store import PASSWORDS, PIPELINE_TOKEN, open_store

ROUTE_MODULES = [routes_auth, routes_queue, routes_runs, routes_reports, routes_changes, routes_events]
ROUTE_MODULES += [routes_cases, routes_proposals]  # the cases part


CONTROL_SWITCH = "MAINWORTHY_REF_CONTROL"


# ---- control ----------------------------------------------------------------------------------


async def control_reset(request: Request):
    """`{"fixture": "default", "shape": "rich"|"spec"}`: loads the fixture, its replies in that shape (shapes.py;
    `spec` is "§2 only"). Without a shape, the one the server started with (`MAINWORTHY_SHAPE`, else rich)."""
    body = await control_body(request)
    fixture = str(body.get("fixture", "default"))
    shape = str(body.get("shape") or os.environ.get("MAINWORTHY_SHAPE") or "rich")
    if shape not in ("rich", "spec"):
        raise refuse(422, "invalid", "The shape is rich or spec.", fields={"shape": "unknown"})
    S.shape = shape
    try:
        S.store.reset(fixture)
    except KeyError:
        raise refuse(422, "invalid", f"There is no fixture “{fixture}”.", fields={"fixture": "unknown"}) from None
    S.log.clear()
    S.faults.clear()
    routes_changes.reset_controls()
    routes_events.reset_controls()
    events.wake_all()
    S.apple_apps = os.environ.get("MAINWORTHY_APPLE_APPS")
    return JSONResponse({"ok": True, "fixture": fixture, "shape": S.shape})


async def control_fixture(request: Request):
    return JSONResponse({"passwords": PASSWORDS, "pipeline_token": PIPELINE_TOKEN})


async def control_capabilities(request: Request):
    """Sets a user's capabilities in a project (a concurrency test lets bo decide)."""
    data = await control_body(request)
    user = S.store.one("SELECT id FROM users WHERE name = ?", data.get("user"))
    if user is None:
        raise refuse(404, "not_found", "There is no such user.")
    S.store.run(
        "INSERT INTO memberships VALUES (?,?,?) "
        "ON CONFLICT(user_id, project) DO UPDATE SET capabilities = excluded.capabilities",
        user["id"],
        data.get("project"),
        json.dumps(list(data.get("capabilities", []))),
    )
    return JSONResponse({"ok": True})


async def control_configure(request: Request):
    """Serves as if started with another MAINWORTHY_APPLE_APPS (`null`: unset)."""
    data = await control_body(request)
    value = data.get("apple_apps")
    S.apple_apps = value if isinstance(value, str) else None
    return JSONResponse({"apple_apps": S.apple_apps})


async def control_clock(request: Request):
    """Moves the server's clock forward (the 24 h idempotency window)."""
    data = await control_body(request)
    S.store.clock.advance(float(data.get("advance_hours", 0)) * 3600)
    return JSONResponse({"offset_hours": S.store.clock.offset / 3600})


async def control_move_head(request: Request):
    """`{"change", "times": n, "after": k}`: in each of the next n reads of the change, its head moves after
    the k-th part served (default 1; a read is the next four parts served, in any order). `{"change", "now":
    true}` moves it at once."""
    data = await control_body(request)
    change = S.store.one("SELECT * FROM changes WHERE id = ?", str(data.get("change", "")))
    if change is None:
        raise refuse(404, "not_found", "There is no such change.")
    if data.get("now"):
        return JSONResponse({"head": routes_changes.move_head(change["project"], change["id"])})
    routes_changes.MOVES[change["id"]] = {
        "times": int(data.get("times", 1)),
        "after": min(routes_changes.PARTS, max(1, int(data.get("after", 1)))),
        "count": 0,
    }
    return JSONResponse({"ok": True})


async def control_stream(request: Request):
    """`{"ping_ms": n}`: the streams' ping interval (until the next reset)."""
    data = await control_body(request)
    if data.get("ping_ms") is not None:
        routes_events.C.ping_seconds = max(0.01, int(data["ping_ms"]) / 1000)
        events.wake_all()
    return JSONResponse({"ping_ms": int(routes_events.C.ping_seconds * 1000)})


async def control_cut_stream(request: Request):
    """`{"after_events": n, "times": t}`: the next t streams opened send n events, then half of the next,
    and close the connection."""
    data = await control_body(request)
    routes_events.C.cuts.append({"after_events": int(data.get("after_events", 0)), "times": int(data.get("times", 1))})
    return JSONResponse({"ok": True})


async def control_publish(request: Request):
    """`{"project", "kind", "data", "times"}`: publishes an event `times` times (a burst while a client is away)."""
    data = await control_body(request)
    project = str(data.get("project", "shop"))
    last = 0
    with S.store.transaction():
        for _ in range(max(1, int(data.get("times", 1)))):
            last = events.publish(S.store, project, str(data.get("kind", "run")), dict(data.get("data") or {}))
    return JSONResponse({"revision": last})


async def control_branches(request: Request):
    """`{"project", "count", "prefix"}`: one pipeline report on each of `count` new branches, as if posted."""
    data = await control_body(request)
    project = str(data.get("project", "shop"))
    prefix = str(data.get("prefix", "bulk/"))
    made = []
    with S.store.transaction():
        for n in range(int(data.get("count", 1))):
            report = {
                "commit": f"{n:07x}",
                "base": "0f0e0d0",
                "branch": f"{prefix}{n}",
                "job": "unit",
                "results": [{"test": "unit › smoke", "outcome": "pass"}],
            }
            made.append(routes_reports.apply_report(S.store, project, report, json.dumps(report)))
    return JSONResponse({"changes": made})


# The server's own control endpoints, beside the shared `requests`, `fail` and `drop-reply` (standin.control):
# served only when MAINWORTHY_REF_CONTROL=1, and only to 127.0.0.1.
CONTROL_ENDPOINTS = {
    "move-head": (control_move_head, ["POST"]),
    "stream": (control_stream, ["POST"]),
    "cut-stream": (control_cut_stream, ["POST"]),
    "publish": (control_publish, ["POST"]),
    "branches": (control_branches, ["POST"]),
    "reset": (control_reset, ["POST"]),
    "fixture": (control_fixture, ["GET"]),
    "capabilities": (control_capabilities, ["POST"]),
    "clock": (control_clock, ["POST"]),
    "configure": (control_configure, ["POST"]),
}


# Writes whose body is never logged: sign-in carries a password.
UNLOGGED_BODIES = {"/api/sessions"}
# A body larger than this is logged as null (a proposal of 500 long steps need not be kept twice).
LOGGED_BODY_LIMIT = 1 << 20


def logged_bodies(app):
    """Adds the JSON body of each POST to its entry in the request log (`body`: the value as sent, `null` when
    it was not JSON or too long), except sign-in's; with the `last_event_id` header the shared middleware logs,
    a test reads from the log what the client sent, not what the client says it sent."""

    async def logging(scope, receive, send):
        entry = S.log.current.get()
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or scope["path"] in UNLOGGED_BODIES
            or entry is None
            or entry["path"] != scope["path"]
        ):
            await app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def receiving():
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    raw = b"".join(chunks)
                    try:
                        body = json.loads(raw) if 0 < len(raw) <= LOGGED_BODY_LIMIT else None
                    except ValueError:
                        body = None
                    S.log.update(entry, body=body)
            return message

        await app(scope, receiving, send)

    return logging


def injected_failure(status: int, path: str) -> Response:
    return error(status, "injected_failure", f"This failure was injected for {path}.")


def build_app() -> StandInMiddleware:
    """The route modules, the control endpoints, and the shared middleware: the request log and the faults.
    A lost reply (`POST /_control/drop-reply`) closes the connection the request came on, reused or not,
    without a byte of the reply."""
    controls = control_routes(
        CONTROL_SWITCH,
        S.log,
        S.faults,
        {name: (guarded(handler), methods) for name, (handler, methods) in CONTROL_ENDPOINTS.items()},
        refused=lambda request: error(404, "not_found"),
    )
    routes = [route for module in ROUTE_MODULES for route in module.routes] + controls

    async def not_found(request: Request, exc):
        return error(404, "not_found", f"There is nothing at {request.url.path}.")

    async def not_allowed(request: Request, exc):
        return error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}.")

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed})
    return StandInMiddleware(
        logged_bodies(app),
        log=S.log,
        faults=S.faults,
        clock=S.store.clock,
        failure=injected_failure,
        extra=lambda headers: {"last_event_id": headers.get("last-event-id")},
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    S.shape = os.environ.get("MAINWORTHY_SHAPE") or "rich"
    S.store = open_store(args.db)
    S.base_url = f"http://127.0.0.1:{args.port}"
    S.apple_apps = os.environ.get("MAINWORTHY_APPLE_APPS")
    uvicorn.run(build_app(), host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
