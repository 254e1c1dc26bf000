"""About, AutoFill, sign-in, sessions and projects."""

import json
import secrets

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from common import COOKIE, S, client_place, error, guarded, json_body, keyed, person, refuse, signed_in
from standin.passwords import check_password, token_hash

VERSION = "1.31.0"
LICENCE_HTML = """<!doctype html>
<html><head><title>Licence</title></head>
<body><h1>Licence</h1><p>Mainworthy is licensed under the Apache License 2.0.</p>
<p>Copyright 2026 the Mainworthy authors.</p></body></html>
"""


async def version(request: Request):
    return JSONResponse({"name": "mainworthy", "version": VERSION})


async def licence(request: Request):
    return HTMLResponse(LICENCE_HTML)


async def apple_app_site_association(request: Request):
    """M-AUTH-9: exactly the ids listed in MAINWORTHY_APPLE_APPS, or none."""
    raw = S.apple_apps or ""
    apps = [part.strip() for part in raw.split(",") if part.strip()]
    return JSONResponse({"webcredentials": {"apps": apps}})


def session_json(row, current_id: str | None) -> dict:
    return {
        "id": row["id"],
        "client": row["client"],
        "opened_by": row["opened_by"],
        "opened_at": row["opened_at"],
        "opened_from": row["opened_from"],
        "last_used_at": row["last_used_at"],
        "last_used_from": row["last_used_from"],
        "current": row["id"] == current_id,
    }


async def open_session(request: Request):
    """M-AUTH-2..6: name + password → a cookie session. No token opens one; no password → password_not_set."""
    data = await json_body(request)
    name, password = data.get("name"), data.get("password")
    client = data.get("client")
    if not isinstance(name, str) or not isinstance(password, str):
        raise refuse(422, "invalid", "Give a name and a password.", fields={"name": "required", "password": "required"})
    user = S.store.one("SELECT * FROM users WHERE name = ?", name)
    if user is not None and user["password_hash"] is None:
        return error(401, "password_not_set")
    if user is None or not check_password(password, user["password_hash"]):
        return error(401, "invalid_credentials")
    value = secrets.token_urlsafe(32)
    sid = S.store.new_id("se")
    now, place = S.store.clock.stamp(), client_place(request)
    label = (
        client if isinstance(client, str) and client.strip() else request.headers.get("user-agent", "Unknown client")
    )
    S.store.run(
        "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,0)",
        sid,
        user["id"],
        token_hash(value),
        label,
        "password",
        now,
        place,
        now,
        place,
    )
    row = S.store.one("SELECT * FROM sessions WHERE id = ?", sid)
    response = JSONResponse({"user": person(user["id"]), "session": session_json(row, sid)}, status_code=201)
    response.set_cookie(COOKIE, value, httponly=True, secure=True, samesite="lax", path="/")
    return response


async def list_sessions(request: Request):
    """M-SESS-1/2/6: the caller's own open sessions, this one marked current."""
    user, session = signed_in(request)
    rows = S.store.all("SELECT * FROM sessions WHERE user_id = ? AND ended = 0 ORDER BY last_used_at DESC", user["id"])
    return JSONResponse({"items": [session_json(r, session["id"]) for r in rows]})


async def end_session(request: Request):
    """M-SESS-4/5: ends one of the caller's sessions; again → 204; another person's → 404."""
    user, _ = signed_in(request)
    row = S.store.one("SELECT * FROM sessions WHERE id = ?", request.path_params["id"])
    if row is None or row["user_id"] != user["id"]:
        raise refuse(404, "not_found", "You have no session with this id.")
    S.store.run("UPDATE sessions SET ended = 1 WHERE id = ?", row["id"])
    return Response(status_code=204)


async def me(request: Request):
    user, session = signed_in(request)
    return JSONResponse({"user": person(user["id"]), "session_id": session["id"]})


async def projects(request: Request):
    """M-CAP-1: the caller's projects, each with its capabilities."""
    user, _ = signed_in(request)
    rows = S.store.all(
        "SELECT p.key, p.name, m.capabilities FROM projects p JOIN memberships m ON m.project = p.key "
        "WHERE m.user_id = ? ORDER BY p.position",
        user["id"],
    )
    return JSONResponse(
        {"items": [{"key": r["key"], "name": r["name"], "capabilities": json.loads(r["capabilities"])} for r in rows]}
    )


routes = [
    Route("/api/version", version),
    Route("/licence", licence),
    Route("/.well-known/apple-app-site-association", apple_app_site_association),
    Route("/api/sessions", keyed(open_session), methods=["POST"]),
    Route("/api/sessions", guarded(list_sessions), methods=["GET"]),
    Route("/api/sessions/{id}", guarded(end_session), methods=["DELETE"]),
    Route("/api/me", guarded(me)),
    Route("/api/projects", guarded(projects)),
]
