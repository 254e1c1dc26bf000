"""Certain reference server, sign-in part: a stand-in written from the Certain seed (see README.md).

Run: python server.py --port PORT --db PATH   (binds 127.0.0.1 only; prints READY <port> when listening)
"""

import argparse
import asyncio
import base64
import contextlib
import hashlib
import json
import secrets

import pyotp
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

import finance
from standin.asgi import StandInMiddleware, control_body, control_routes
from standin.faults import Faults
from standin.passwords import check_password, hash_password, token_hash
from standin.request_log import RequestLog
from store import FIXTURES, PASSWORDS, open_store

COOKIE = "certain_session"
TOKEN_HEADER = "x-certain-token"
COOKIE_MAX_AGE = 30 * 24 * 3600
SETUP_URL = "/einstellungen/sicherheit"
CONTROL_SWITCH = "CERTAIN_REF_CONTROL"

MESSAGES = {
    "not_authenticated": ("Nicht angemeldet.", "Not signed in."),
    "invalid_credentials": ("Benutzername oder Passwort falsch.", "Wrong user name or password."),
    "invalid_code": ("Code ungültig.", "Invalid code."),
    "session_expired": ("Sitzung abgelaufen.", "Session expired."),
    "token_revoked": ("Die Gerätemarke wurde widerrufen.", "The device token was revoked."),
    "password_change_required": ("Bitte zuerst das Passwort ändern.", "Change your password first."),
    "mfa_setup_required": (
        "Zweiter Faktor muss im Browser eingerichtet werden.",
        "Set up a second factor in the browser.",
    ),
    "token_cannot_mint": ("Eine Gerätemarke kann keine Marke ausstellen.", "A device token cannot issue a token."),
    "cookie_required": ("Nur mit einer Anmeldung im Browser.", "Only with a browser sign-in."),
    "not_found": ("Nicht gefunden.", "Not found."),
    "weak_password": ("Das Passwort ist zu schwach.", "The password is too weak."),
    "idempotency_key_reused": (
        "Der Schlüssel wurde mit anderem Inhalt benutzt.",
        "The key was used with another body.",
    ),
    "invalid_grant": ("Ungültige Berechtigung.", "Invalid grant."),
}


class State:
    def __init__(self, db_path: str):
        self.store = open_store(db_path)
        self.clock = self.store.clock
        self.log = RequestLog()
        self.faults = Faults()
        self.idempotent: dict[str, tuple[float, str, dict]] = {}
        self.oauth_codes: dict[str, dict] = {}
        self.access_tokens: dict[str, dict] = {}
        self.refresh_tokens: dict[str, dict] = {}
        self.counters = {"refresh": 0, "refresh_failed": 0, "token_exchange": 0}
        self.tickets: dict[str, dict] = {}
        self.refresh_fails = 0
        self.hold: dict | None = None


S: State


def error(request: Request, status: int, code: str, **extra) -> JSONResponse:
    """The FastAPI-style envelope, in German unless Accept-Language starts with `en`."""
    german, english = MESSAGES[code]
    lang = request.headers.get("accept-language", "").strip().lower()
    body = {"detail": english if lang.startswith("en") else german, "code": code}
    body.update(extra)
    return JSONResponse(body, status_code=status)


async def body(request: Request) -> dict:
    try:
        data = await request.json()
        return data if isinstance(data, dict) else {}
    except Exception:
        return {}


# ---- who is calling ----------------------------------------------------------------------------


def session_of(request: Request):
    value = request.cookies.get(COOKIE)
    if not value:
        return None
    return S.store.one("SELECT * FROM sessions WHERE token_hash = ? AND ended = 0", token_hash(value))


def caller(request: Request):
    """(user row, kind, detail) for the credential the request carries, or (None, error code, None)."""
    token = request.headers.get(TOKEN_HEADER)
    if token:
        row = S.store.one("SELECT * FROM tokens WHERE token_hash = ?", token_hash(token))
        if row is None:
            return None, "not_authenticated", None
        if row["revoked"]:
            return None, "token_revoked", None
        S.store.run("UPDATE tokens SET last_used_at = ? WHERE id = ?", S.clock.stamp(), row["id"])
        return S.store.one("SELECT * FROM users WHERE id = ?", row["user_id"]), "token", row
    auth = request.headers.get("authorization", "")
    if auth.startswith("Bearer "):
        grant = S.access_tokens.get(auth[7:])
        if grant is None or grant["revoked"]:
            return None, "not_authenticated", None
        if grant["expires_at"] <= S.clock.now():
            return None, "session_expired", None
        return S.store.one("SELECT * FROM users WHERE id = ?", grant["user_id"]), "bearer", grant
    session = session_of(request)
    if session is None:
        return None, "not_authenticated", None
    if S.clock.now() - session["created_at"] > COOKIE_MAX_AGE:
        return None, "session_expired", None
    return S.store.one("SELECT * FROM users WHERE id = ?", session["user_id"]), "cookie", session


def full_user(request: Request):
    """The signed-in user, or an error response (pending cookies may not call data endpoints)."""
    user, kind, detail = caller(request)
    if user is None:
        return None, None, None, error(request, 401, kind)
    if kind == "cookie" and detail["stage"] == "password_change":
        return None, None, None, error(request, 403, "password_change_required")
    if kind == "cookie" and detail["stage"] == "mfa_setup_required":
        return None, None, None, error(request, 403, "mfa_setup_required", setup_url=SETUP_URL)
    if kind == "cookie" and detail["stage"] != "full":
        return None, None, None, error(request, 401, "not_authenticated")
    return user, kind, detail, None


def user_json(user) -> dict:
    return {
        "id": user["id"],
        "username": user["username"],
        "display_name": user["display_name"],
        "mfa_enabled": user["totp_secret"] is not None,
        "must_change_password": bool(user["must_change_password"]),
        "created_at": user["created_at"],
    }


def next_stage(user, after: str) -> str:
    if after == "password" and user["totp_secret"]:
        return "second_factor"
    if after in ("password", "second_factor") and user["must_change_password"]:
        return "password_change"
    if user["mfa_required"] and not user["totp_secret"]:
        return "mfa_setup_required"
    return "full"


def stage_reply(stage: str, user) -> dict:
    if stage == "full":
        return {"status": "ok", "user": user_json(user)}
    reply = {"status": stage, "user": None}
    if stage == "mfa_setup_required":
        reply["setup_url"] = SETUP_URL
    return reply


# ---- sign-in -----------------------------------------------------------------------------------


async def version(request: Request):
    return JSONResponse({"name": "certain", "version": "0.9.0", "api": 1})


async def login(request: Request):
    data = await body(request)
    user = S.store.one("SELECT * FROM users WHERE username = ?", str(data.get("username", "")))
    if user is None or not check_password(str(data.get("password", "")), user["password_hash"]):
        return error(request, 401, "invalid_credentials")
    stage = next_stage(user, "password")
    value = secrets.token_urlsafe(32)
    S.store.run(
        "INSERT INTO sessions (token_hash, user_id, stage, created_at) VALUES (?,?,?,?)",
        token_hash(value),
        user["id"],
        stage,
        S.clock.now(),
    )
    response = JSONResponse(stage_reply(stage, user))
    response.set_cookie(COOKIE, value, max_age=COOKIE_MAX_AGE, httponly=True, secure=True, samesite="lax")
    return response


def valid_totp(user, code: str) -> bool:
    totp = pyotp.TOTP(user["totp_secret"])
    now = S.clock.now()
    for offset in (-1, 0, 1):
        counter = int(now // 30) + offset
        if secrets.compare_digest(totp.at(counter * 30), code):
            if S.store.one("SELECT 1 FROM used_totp WHERE user_id = ? AND counter = ?", user["id"], counter):
                return False
            S.store.run("INSERT INTO used_totp (user_id, counter) VALUES (?,?)", user["id"], counter)
            return True
    return False


async def second_factor(request: Request):
    session = session_of(request)
    if session is None or session["stage"] != "second_factor":
        return error(request, 401, "not_authenticated")
    user = S.store.one("SELECT * FROM users WHERE id = ?", session["user_id"])
    code = str((await body(request)).get("code", "")).strip()
    ok = False
    if code.isdigit() and len(code) == 6:
        ok = valid_totp(user, code)
    else:
        row = S.store.one(
            "SELECT rowid FROM recovery_codes WHERE user_id = ? AND code_hash = ? AND used = 0",
            user["id"],
            token_hash(code),
        )
        if row is not None:
            S.store.run("UPDATE recovery_codes SET used = 1 WHERE rowid = ?", row["rowid"])
            ok = True
    if not ok:
        return error(request, 401, "invalid_code")
    stage = next_stage(user, "second_factor")
    S.store.run("UPDATE sessions SET stage = ? WHERE token_hash = ?", stage, session["token_hash"])
    return JSONResponse(stage_reply(stage, user))


async def change_password(request: Request):
    session = session_of(request)
    if session is None or session["stage"] not in ("password_change", "full"):
        return error(request, 401, "not_authenticated")
    user = S.store.one("SELECT * FROM users WHERE id = ?", session["user_id"])
    data = await body(request)
    if not check_password(str(data.get("current_password", "")), user["password_hash"]):
        return error(request, 401, "invalid_credentials")
    new = str(data.get("new_password", ""))
    if len(new) < 10 or new == data.get("current_password"):
        return error(request, 422, "weak_password")
    S.store.run(
        "UPDATE users SET password_hash = ?, must_change_password = 0 WHERE id = ?", hash_password(new), user["id"]
    )
    user = S.store.one("SELECT * FROM users WHERE id = ?", user["id"])
    stage = next_stage(user, "password_change")
    S.store.run("UPDATE sessions SET stage = ? WHERE token_hash = ?", stage, session["token_hash"])
    return JSONResponse(stage_reply(stage, user))


async def logout(request: Request):
    session = session_of(request)
    if session is not None:
        S.store.run("UPDATE sessions SET ended = 1 WHERE token_hash = ?", session["token_hash"])
    response = Response(status_code=204)
    response.delete_cookie(COOKIE)
    return response


async def me(request: Request):
    user, _, _, failure = full_user(request)
    return failure or JSONResponse(user_json(user))


async def settings(request: Request):
    user, _, _, failure = full_user(request)
    if failure:
        return failure
    return JSONResponse({"base_currency": "EUR", "mfa_required": bool(user["mfa_required"]), "locale": "de-DE"})


# ---- device tokens -----------------------------------------------------------------------------


def token_json(row) -> dict:
    return {k: row[k] for k in ("id", "name", "scope", "created_at", "last_used_at")}


async def mint(request: Request):
    if request.headers.get(TOKEN_HEADER):
        user, kind, _ = caller(request)
        return error(request, 403, "token_cannot_mint") if user else error(request, 401, kind)
    user, kind, _, failure = full_user(request)
    if failure:
        return failure
    if kind != "cookie":
        return error(request, 403, "cookie_required")
    raw = await request.body()
    key = request.headers.get("idempotency-key")
    if key and key in S.idempotent:
        at, digest, reply = S.idempotent[key]
        if S.clock.now() - at < 600:
            if digest != hashlib.sha256(raw).hexdigest():
                return error(request, 422, "idempotency_key_reused")
            return JSONResponse(reply, status_code=201, headers={"Idempotent-Replayed": "true"})
    data = await body(request)
    if data.get("scope") != "app":
        return JSONResponse(
            {"detail": [{"loc": ["body", "scope"], "msg": "Input should be 'app'", "type": "literal_error"}]},
            status_code=422,
        )
    plaintext = "ctk_" + secrets.token_urlsafe(32)
    name = str(data.get("name") or "Gerät")[:200]
    token_id = S.store.run(
        "INSERT INTO tokens (user_id, name, scope, token_hash, created_at) VALUES (?,?,?,?,?)",
        user["id"],
        name,
        "app",
        token_hash(plaintext),
        S.clock.stamp(),
    )
    row = S.store.one("SELECT * FROM tokens WHERE id = ?", token_id)
    reply = dict(token_json(row), token=plaintext)
    if key:
        S.idempotent[key] = (S.clock.now(), hashlib.sha256(raw).hexdigest(), reply)
    return JSONResponse(reply, status_code=201)


async def list_tokens(request: Request):
    if request.headers.get(TOKEN_HEADER):
        return error(request, 403, "cookie_required")
    user, _, _, failure = full_user(request)
    if failure:
        return failure
    rows = S.store.all("SELECT * FROM tokens WHERE user_id = ? AND revoked = 0 ORDER BY id", user["id"])
    return JSONResponse([token_json(r) for r in rows])


async def revoke_token(request: Request):
    user, kind, detail, failure = full_user(request)
    if failure:
        return failure
    token_id = int(request.path_params["id"])
    row = S.store.one("SELECT * FROM tokens WHERE id = ? AND user_id = ?", token_id, user["id"])
    if row is None or (kind == "token" and detail["id"] != token_id):
        return error(request, 404, "not_found")
    S.store.run("UPDATE tokens SET revoked = 1 WHERE id = ?", token_id)
    return Response(status_code=204)


# ---- OAuth 2.0 authorization code + PKCE, refresh with rotation, revoke (test counterpart) --------

CLIENT_ID = "companion-test"
REDIRECT_URI = "companionkit-test:/oauth/callback"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def authorize(request: Request):
    """The browser step: a test user named by login_hint approves at once (no HTML in the stand-in)."""
    q = request.query_params
    if q.get("client_id") != CLIENT_ID or q.get("redirect_uri") != REDIRECT_URI:
        return JSONResponse({"error": "invalid_client"}, status_code=400)
    if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
        return RedirectResponse(f"{REDIRECT_URI}?error=invalid_request&state={q.get('state', '')}", status_code=302)
    user = S.store.one("SELECT * FROM users WHERE username = ?", q.get("login_hint", ""))
    if user is None:
        return RedirectResponse(f"{REDIRECT_URI}?error=access_denied&state={q.get('state', '')}", status_code=302)
    code = secrets.token_urlsafe(24)
    S.oauth_codes[code] = {
        "user_id": user["id"],
        "challenge": q["code_challenge"],
        "nonce": q.get("nonce"),
        "at": S.clock.now(),
    }
    state = q.get("state", "")
    if q.get("tamper_state"):
        state = "tampered"
    return RedirectResponse(f"{REDIRECT_URI}?code={code}&state={state}", status_code=302)


def issue_grant(user_id: int, nonce=None, family=None) -> dict:
    access = "cat_" + secrets.token_urlsafe(24)
    refresh = "crt_" + secrets.token_urlsafe(24)
    family = family or secrets.token_hex(8)
    S.access_tokens[access] = {
        "user_id": user_id,
        "expires_at": S.clock.now() + 3600,
        "revoked": False,
        "family": family,
    }
    S.refresh_tokens[refresh] = {"user_id": user_id, "used": False, "revoked": False, "family": family}
    reply = {"access_token": access, "refresh_token": refresh, "token_type": "Bearer", "expires_in": 3600}
    if nonce is not None:
        claims = {"sub": str(user_id), "aud": CLIENT_ID, "nonce": nonce, "iat": int(S.clock.now())}
        reply["id_token"] = ".".join([b64url(b'{"alg":"none"}'), b64url(json.dumps(claims).encode()), ""])
    return reply


async def form_of(request: Request) -> dict:
    from urllib.parse import parse_qs

    return {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}


async def token_endpoint(request: Request):
    form = await form_of(request)
    grant = form.get("grant_type")
    if grant == "authorization_code":
        S.counters["token_exchange"] += 1
        entry = S.oauth_codes.pop(str(form.get("code", "")), None)
        verifier = str(form.get("code_verifier", ""))
        if entry is None or b64url(hashlib.sha256(verifier.encode()).digest()) != entry["challenge"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return JSONResponse(issue_grant(entry["user_id"], nonce=entry["nonce"]))
    if grant == "refresh_token":
        S.counters["refresh"] += 1
        if S.refresh_fails > 0:
            S.refresh_fails -= 1
            S.counters["refresh_failed"] += 1
            return JSONResponse({"error": "invalid_grant", "error_description": "refresh refused"}, status_code=400)
        entry = S.refresh_tokens.get(str(form.get("refresh_token", "")))
        if entry is None or entry["revoked"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        if entry["used"]:  # reuse of a rotated token: revoke the whole family
            for e in list(S.refresh_tokens.values()) + list(S.access_tokens.values()):
                if e["family"] == entry["family"]:
                    e["revoked"] = True
            return JSONResponse(
                {"error": "invalid_grant", "error_description": "refresh token reused"}, status_code=400
            )
        entry["used"] = True
        for e in S.access_tokens.values():
            if e["family"] == entry["family"]:
                e["revoked"] = True
        return JSONResponse(issue_grant(entry["user_id"], family=entry["family"]))
    return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)


async def revoke_endpoint(request: Request):
    form = await form_of(request)
    value = str(form.get("token", ""))
    entry = S.refresh_tokens.get(value) or S.access_tokens.get(value)
    if entry is not None:
        for e in list(S.refresh_tokens.values()) + list(S.access_tokens.values()):
            if e["family"] == entry["family"]:
                e["revoked"] = True
    return Response(status_code=200)


# ---- ticket poll (Omnigent's shipped iOS flow, reproduced for a deterministic test) ---------------


async def cli_login(request: Request):
    ticket = secrets.token_urlsafe(16)
    S.tickets[ticket] = {"state": "pending", "user_id": None}
    return JSONResponse({"ticket": ticket, "login_url": f"/auth/cli-approve?ticket={ticket}"})


async def cli_approve(request: Request):
    entry = S.tickets.get(request.query_params.get("ticket", ""))
    user = S.store.one("SELECT * FROM users WHERE username = ?", request.query_params.get("login_hint", ""))
    if entry is None or user is None:
        return JSONResponse({"error": "unknown ticket or user"}, status_code=404)
    entry.update(state="approved", user_id=user["id"], pending_polls=int(request.query_params.get("after_polls", "0")))
    return JSONResponse({"approved": True})


async def cli_poll(request: Request):
    entry = S.tickets.get(request.query_params.get("ticket", ""))
    if entry is None or entry["state"] == "expired":
        return JSONResponse({"error": "ticket expired"}, status_code=410)
    if entry["state"] == "pending" or entry.get("pending_polls", 0) > 0:
        entry["pending_polls"] = entry.get("pending_polls", 0) - 1
        return JSONResponse({"status": "pending"}, status_code=202)
    entry["state"] = "expired"
    grant = issue_grant(entry["user_id"])
    return JSONResponse({"token": grant["access_token"], "expires_in": 3600})


# ---- control (tests only) ----------------------------------------------------------------------


async def control_reset(request: Request):
    """Loads a fixture (its clock set back) and forgets the request log, the faults and every grant."""
    fixture = str((await control_body(request)).get("fixture", "default"))
    if fixture not in FIXTURES:
        return finance.invalid(["body", "fixture"], f"Input should be one of {sorted(FIXTURES)}", "enum", fixture)
    S.store.reset(fixture)
    S.log.clear()
    S.faults.clear()
    for kept in (S.idempotent, S.oauth_codes, S.access_tokens, S.refresh_tokens, S.tickets):
        kept.clear()
    S.refresh_fails = 0
    S.hold = None
    finance.API.contract_notice_ids = "transaction_ids"
    for k in S.counters:
        S.counters[k] = 0
    return JSONResponse({"ok": True, "fixture": fixture})


async def control_hold(request: Request):
    """POST {"count": N, "timeout_ms": T, "release": "together"|"last_first", "lag_ms": L}: hold every /api
    reply until N requests are waiting (or T passed), then answer them together, or (`last_first`) the last
    one first and the others once its reply has gone out, L ms later (default 200): a late reply to an older
    request. GET: whether the count was reached, i.e. the client had N requests in flight at once."""
    if request.method == "GET":
        hold = S.hold or {}
        return JSONResponse(
            {"count": hold.get("count"), "waiting": hold.get("waiting", 0), "reached": hold.get("reached", False)}
        )
    data = await control_body(request)
    release = str(data.get("release", "together"))
    if release not in ("together", "last_first"):
        return finance.invalid(
            ["body", "release"], "Input should be 'together' or 'last_first'", "literal_error", release
        )
    S.hold = {
        "count": int(data.get("count", 1)),
        "timeout": int(data.get("timeout_ms", 5000)) / 1000,
        "waiting": 0,
        "reached": False,
        "event": asyncio.Event(),
        "last_first": release == "last_first",
        "lag": int(data.get("lag_ms", 200)) / 1000,
        "last_done": asyncio.Event(),
    }
    return JSONResponse({"ok": True})


async def control_fixture(request: Request):
    return JSONResponse({"passwords": PASSWORDS, "recovery_codes": S.store.fixture_state.get("recovery_codes", {})})


async def control_totp(request: Request):
    user = S.store.one("SELECT * FROM users WHERE username = ?", request.path_params["username"])
    if user is None or not user["totp_secret"]:
        return error(request, 404, "not_found")
    offset = int(request.query_params.get("offset", "0"))
    return JSONResponse({"code": pyotp.TOTP(user["totp_secret"]).at(S.clock.now() + 30 * offset)})


async def control_clock(request: Request):
    S.clock.advance(float((await control_body(request)).get("advance_days", 0)) * 86400)
    return JSONResponse({"offset_days": S.clock.offset / 86400})


async def control_shape(request: Request):
    """Picks the shape served where §2 is silent: `{"contract_notice_ids": "transaction_ids" | "contract_ids"}`."""
    ids = str((await control_body(request)).get("contract_notice_ids", "transaction_ids"))
    if ids not in ("transaction_ids", "contract_ids"):
        return finance.invalid(
            ["body", "contract_notice_ids"], "Input should be transaction_ids or contract_ids", "enum", ids
        )
    finance.API.contract_notice_ids = ids
    return JSONResponse({"contract_notice_ids": ids})


async def control_counters(request: Request):
    return JSONResponse(S.counters)


async def control_oauth(request: Request):
    data = await control_body(request)
    if data.get("expire_access"):
        for e in S.access_tokens.values():
            e["expires_at"] = S.clock.now() - 1
    S.refresh_fails = int(data.get("fail_refreshes", S.refresh_fails))
    return JSONResponse({"ok": True})


async def control_tokens(request: Request):
    rows = S.store.all("SELECT id, user_id, name, revoked FROM tokens ORDER BY id")
    return JSONResponse([dict(r) for r in rows])


async def control_ticket(request: Request):
    data = await control_body(request)
    entry = S.tickets.get(str(data.get("ticket", "")))
    if entry is None:
        return error(request, 404, "not_found")
    entry["state"] = str(data.get("state", "expired"))
    return JSONResponse({"ok": True})


routes = [
    Route("/api/version", version),
    Route("/api/auth/login", login, methods=["POST"]),
    Route("/api/auth/second-factor", second_factor, methods=["POST"]),
    Route("/api/auth/password", change_password, methods=["POST"]),
    Route("/api/auth/logout", logout, methods=["POST"]),
    Route("/api/auth/me", me),
    Route("/api/settings", settings),
    Route("/api/inbox/tokens", mint, methods=["POST"]),
    Route("/api/inbox/tokens", list_tokens, methods=["GET"]),
    Route("/api/inbox/tokens/{id:int}", revoke_token, methods=["DELETE"]),
    Route("/api/accounts", finance.accounts),
    Route("/api/categories", finance.categories),
    Route("/api/tags", finance.tags),
    Route("/api/reports/month", finance.report_month),
    Route("/api/budget", finance.budget),
    Route("/api/transactions", finance.transactions),
    Route("/api/contracts", finance.contracts),
    Route("/oauth/authorize", authorize),
    Route("/oauth/token", token_endpoint, methods=["POST"]),
    Route("/oauth/revoke", revoke_endpoint, methods=["POST"]),
    Route("/auth/cli-login", cli_login, methods=["POST"]),
    Route("/auth/cli-approve", cli_approve),
    Route("/auth/cli-poll", cli_poll),
]

# The server's own control endpoints, beside the shared `requests`, `fail` and `drop-reply` (standin.control):
# served only when CERTAIN_REF_CONTROL=1, and only to 127.0.0.1.
CONTROL_ENDPOINTS = {
    "reset": (control_reset, ["POST"]),
    "fixture": (control_fixture, ["GET"]),
    "totp/{username}": (control_totp, ["GET"]),
    "clock": (control_clock, ["POST"]),
    "counters": (control_counters, ["GET"]),
    "shape": (control_shape, ["POST"]),
    "oauth": (control_oauth, ["POST"]),
    "ticket": (control_ticket, ["POST"]),
    "hold": (control_hold, ["GET", "POST"]),
    "tokens": (control_tokens, ["GET"]),
}


async def not_found(request: Request, exc):
    return error(request, 404, "not_found")


async def method_not_allowed(request: Request, exc):
    return JSONResponse({"detail": "Method Not Allowed"}, status_code=405)


def log_fields(headers: dict) -> dict:
    """Certain's own fields of a request log entry: whether a device token or a bearer came along (C-TOK-3),
    never their values."""
    return {"token": TOKEN_HEADER in headers, "bearer": headers.get("authorization", "").startswith("Bearer ")}


def injected_failure(status: int, path: str) -> Response:
    return JSONResponse({"detail": "Vom Test ausgelöster Fehler.", "code": "control_fault"}, status_code=status)


async def hold(scope) -> None:
    """While `POST /_control/hold` is armed, each /api request waits until `count` of them are waiting."""
    if S.hold is None or not scope["path"].startswith("/api/") or S.hold["reached"]:
        return
    held = S.hold
    held["waiting"] += 1
    if held["waiting"] >= held["count"]:
        held["reached"] = True
        held["event"].set()
        if held["last_first"]:
            scope[LAST_HELD] = held  # HoldRelease tells the others when this reply has gone out
        return
    try:
        await asyncio.wait_for(held["event"].wait(), held["timeout"])
    except TimeoutError:
        held["event"].set()
        S.hold = None  # the client never had them all in flight: release, and report not reached
        return
    if held["last_first"]:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(held["last_done"].wait(), held["timeout"])
        await asyncio.sleep(held["lag"])


LAST_HELD = "certain.last_held"


class HoldRelease:
    """Outside the shared middleware: once the last held request's reply has gone out (`release: last_first`),
    lets the earlier held ones run."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        try:
            await self.app(scope, receive, send)
        finally:
            held = scope.get(LAST_HELD)
            if held is not None:
                held["last_done"].set()


def build_app() -> HoldRelease:
    """The routes, the control endpoints, and the shared middleware: the request log, the faults and holds.
    While a lost reply is armed, every other reply closes its connection, so the lost one arrives on a fresh
    connection (a client that resends on a reused connection by itself would hide it from the app)."""
    controls = control_routes(
        CONTROL_SWITCH, S.log, S.faults, CONTROL_ENDPOINTS, refused=lambda request: error(request, 404, "not_found")
    )
    app = Starlette(routes=routes + controls, exception_handlers={404: not_found, 405: method_not_allowed})
    return HoldRelease(
        StandInMiddleware(
            app,
            log=S.log,
            faults=S.faults,
            clock=S.clock,
            failure=injected_failure,
            extra=log_fields,
            before=hold,
            fresh_connections_while_dropping=True,
        )
    )


def main() -> None:
    global S
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    S = State(args.db)
    finance.API.store = S.store
    finance.API.full_user = full_user
    finance.API.error = error
    finance.API.now = S.clock.now
    finance.register_functions(S.store.db)
    uvicorn.run(build_app(), host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
