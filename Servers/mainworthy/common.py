"""What every route module of the Mainworthy stand-in shares: the store, the error envelope, who is
calling, project access, paging and the idempotent write wrapper."""

import base64
import hashlib
import json
from contextvars import ContextVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from standin.faults import Faults
from standin.passwords import token_hash
from standin.request_log import RequestLog
from standin.store import Store

COOKIE = "mw_session"
IDEMPOTENCY_TTL = 24 * 3600
DEFAULT_LIMIT = 50
MAX_LIMIT = 200


class EntryLog(RequestLog):
    """The shared request log, which also remembers the entry of the request being handled (`current`, per
    request task), so the server adds to it what the shared log leaves out (`logged_bodies`)."""

    current: ContextVar[dict | None] = ContextVar("mainworthy_log_entry", default=None)

    def record(self, *args, **extra) -> dict:
        entry = super().record(*args, **extra)
        self.current.set(entry)
        return entry


class State:
    store: Store
    log = EntryLog()
    faults = Faults()
    base_url: str = ""
    # MAINWORTHY_APPLE_APPS as read at start; /_control/configure replaces it as a restart with
    # another configuration would.
    apple_apps: str | None = None
    # The shape replies take (shapes.py): "rich", or "spec" for §2's members only.
    shape: str = "rich"


S = State()

MESSAGES = {
    "idempotency_key_required": "Every write needs an Idempotency-Key header.",
    "invalid_credentials": "Wrong name or password.",
    "password_not_set": "Set a password in the web app under Settings, Your sign-in.",
    "session_ended": "This session was ended. Sign in again.",
    "not_signed_in": "Sign in first.",
    "capability_missing": "You may not do this in this project.",
    "not_found": "Not found.",
    "decision_changed": "This question was decided meanwhile.",
    "run_closed": "This run is closed and accepts no results. Withdraw its sign-off to reopen it.",
    "invalid": "The request is not valid.",
    "empty_selection": "The selection has no cases.",
    "reason_required": "Give a reason for this answer.",
    "idempotency_key_reused": "This Idempotency-Key was used for another request.",
}


def error(status: int, code: str, message: str | None = None, **extra) -> JSONResponse:
    """The envelope of every error: {"error": {"code", "message", …}}."""
    return JSONResponse({"error": {"code": code, "message": message or MESSAGES[code], **extra}}, status_code=status)


class Refusal(Exception):
    """Raised inside a handler to answer with an error envelope."""

    def __init__(self, response: Response):
        self.response = response


def refuse(status: int, code: str, message: str | None = None, **extra) -> Refusal:
    return Refusal(error(status, code, message, **extra))


async def json_body(request: Request) -> dict:
    raw = await request.body()
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise refuse(422, "invalid", "The body is not JSON.", fields={"body": "not_json"}) from None
    if not isinstance(data, dict):
        raise refuse(422, "invalid", "The body is not a JSON object.", fields={"body": "not_object"})
    return data


def client_place(request: Request) -> str:
    host = request.client.host if request.client else "unknown"
    return f"This computer ({host})" if host in ("127.0.0.1", "::1") else host


# ---- who is calling -------------------------------------------------------------------------------


def session_row(request: Request):
    value = request.cookies.get(COOKIE)
    if not value:
        return None
    return S.store.one("SELECT * FROM sessions WHERE token_hash = ?", token_hash(value))


def signed_in(request: Request):
    """(user row, session row) of the cookie session, or raises 401 not_signed_in / session_ended."""
    session = session_row(request)
    if session is None:
        raise refuse(401, "not_signed_in")
    if session["ended"]:
        raise refuse(401, "session_ended")
    S.store.run(
        "UPDATE sessions SET last_used_at = ?, last_used_from = ? WHERE id = ?",
        S.store.clock.stamp(),
        client_place(request),
        session["id"],
    )
    user = S.store.one("SELECT * FROM users WHERE id = ?", session["user_id"])
    return user, session


def capabilities(user_id: str, project: str) -> list[str] | None:
    row = S.store.one("SELECT capabilities FROM memberships WHERE user_id = ? AND project = ?", user_id, project)
    return json.loads(row["capabilities"]) if row else None


def project_access(request: Request, needs: str = "read"):
    """(user, project key) when the caller is a member holding `needs`; 404 for a project they cannot see."""
    user, _ = signed_in(request)
    key = request.path_params["key"]
    caps = capabilities(user["id"], key)
    if caps is None:
        raise refuse(404, "not_found", f"There is no project “{key}” you can see.")
    if needs not in caps:
        raise refuse(403, "capability_missing", f"You need the {needs} capability in this project.", capability=needs)
    return user, key


def person(user_id: str) -> dict:
    if user_id == "u_0":
        return {"id": "u_0", "name": "pipeline"}
    row = S.store.one("SELECT id, name FROM users WHERE id = ?", user_id)
    return {"id": row["id"], "name": row["name"]} if row else {"id": user_id, "name": "unknown"}


# ---- paging ---------------------------------------------------------------------------------------


def paging(request: Request) -> tuple[int, int]:
    """(offset, limit) from ?cursor=&limit=; a bad value is a 422 naming the field."""
    raw_limit = request.query_params.get("limit")
    limit = DEFAULT_LIMIT
    if raw_limit is not None:
        if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= MAX_LIMIT:
            raise refuse(
                422, "invalid", f"limit must be a number from 1 to {MAX_LIMIT}.", fields={"limit": "out_of_range"}
            )
        limit = int(raw_limit)
    cursor = request.query_params.get("cursor")
    offset = 0
    if cursor:
        try:
            text = base64.urlsafe_b64decode(cursor.encode() + b"==").decode()
            if not text.startswith("o:"):
                raise ValueError
            offset = int(text[2:])
        except (ValueError, UnicodeDecodeError):
            raise refuse(
                422, "invalid", "The cursor is not one this server gave out.", fields={"cursor": "unknown"}
            ) from None
    return offset, limit


def page(rows: list, offset: int, limit: int) -> tuple[list, str | None]:
    """The rows of one page and the cursor of the next (`None` at the end)."""
    chunk = rows[offset : offset + limit]
    more = offset + limit < len(rows)
    cursor = base64.urlsafe_b64encode(f"o:{offset + limit}".encode()).decode().rstrip("=") if more else None
    return chunk, cursor


# ---- idempotent writes ----------------------------------------------------------------------------


def fingerprint(request: Request, raw: bytes) -> str:
    try:
        canonical = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")) if raw else ""
    except ValueError:
        canonical = raw.decode("latin-1")
    return hashlib.sha256(f"{request.method} {request.url.path}\n{canonical}".encode()).hexdigest()


def keyed(handler):
    """Wraps a POST handler: `Idempotency-Key` required (400), the reply kept per user and key for 24 h
    and replayed with `Idempotent-Replayed: true`; the same key with another body → 422."""

    async def wrapper(request: Request) -> Response:
        key = request.headers.get("idempotency-key", "").strip()
        if not key:
            return error(400, "idempotency_key_required")
        raw = await request.body()
        session = session_row(request)
        if session is not None and not session["ended"]:
            scope = f"user:{session['user_id']}"
        else:
            # No one is signed in (a sign-in): the reply, cookie included, is replayed to the same client only.
            host = request.client.host if request.client else "unknown"
            scope = f"anonymous:{host}:{request.headers.get('user-agent', '')}"
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            scope = "token:" + token_hash(auth[7:])
        mark = fingerprint(request, raw)
        store = S.store
        store.run("DELETE FROM idempotency WHERE stored_at < ?", store.clock.now() - IDEMPOTENCY_TTL)
        kept = store.one("SELECT * FROM idempotency WHERE scope = ? AND key = ?", scope, key)
        if kept is not None:
            if kept["fingerprint"] != mark:
                return error(422, "idempotency_key_reused")
            headers = json.loads(kept["headers"])
            response = Response(content=kept["body"], status_code=kept["status"])
            for name, value in headers:
                response.raw_headers.append((name.encode("latin-1"), value.encode("latin-1")))
            response.headers["Idempotent-Replayed"] = "true"
            return response
        try:
            response = await handler(request)
        except Refusal as refusal:
            response = refusal.response
        if response.status_code < 500 and response.status_code != 401:
            headers = [
                (k.decode("latin-1"), v.decode("latin-1"))
                for k, v in response.raw_headers
                if k.decode("latin-1").lower() not in ("content-length",)
            ]
            store.run(
                "INSERT INTO idempotency VALUES (?,?,?,?,?,?,?)",
                scope,
                key,
                mark,
                response.status_code,
                json.dumps(headers),
                response.body,
                store.clock.now(),
            )
        return response

    return wrapper


def guarded(handler):
    """Turns a `Refusal` raised in a handler into its response."""

    async def wrapper(request: Request) -> Response:
        try:
            return await handler(request)
        except Refusal as refusal:
            return refusal.response

    return wrapper
