"""The Certain reference server's data (a stand-in, see README.md): its schema, its users and its fixtures,
kept in the shared store (`standin.store.Store`, with snapshots: a reset copies the first load back).

The users are filled here; the finance tables and rows come from fixtures.py. A reset runs every fill
function of the chosen fixture in order.
"""

import secrets
from datetime import UTC, datetime

import pyotp

import fixtures
from standin.clock import Clock
from standin.passwords import hash_password, token_hash
from standin.store import Store

SCHEMA = (
    """
CREATE TABLE users (
    id INTEGER PRIMARY KEY, username TEXT UNIQUE NOT NULL, display_name TEXT NOT NULL,
    password_hash TEXT NOT NULL, totp_secret TEXT, must_change_password INTEGER NOT NULL DEFAULT 0,
    mfa_required INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
CREATE TABLE recovery_codes (user_id INTEGER NOT NULL, code_hash TEXT NOT NULL, used INTEGER NOT NULL DEFAULT 0);
CREATE TABLE used_totp (user_id INTEGER NOT NULL, counter INTEGER NOT NULL, PRIMARY KEY (user_id, counter));
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL, stage TEXT NOT NULL, created_at REAL NOT NULL,
    ended INTEGER NOT NULL DEFAULT 0);
CREATE TABLE tokens (
    id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, name TEXT NOT NULL, scope TEXT NOT NULL,
    token_hash TEXT UNIQUE NOT NULL, created_at TEXT NOT NULL, last_used_at TEXT, revoked INTEGER NOT NULL DEFAULT 0);
"""
    + fixtures.FINANCE_SCHEMA
)

# The fixture passwords are public test data: the tests read them from the control endpoint
# GET /_control/fixture, never from the app's side.
PASSWORDS = {
    "plain": "plain-Passw0rd-1",
    "totp": "totp-Passw0rd-2",
    "mustchange": "mustchange-Passw0rd-3",
    "mfapolicy": "mfapolicy-Passw0rd-4",
    "other": "other-Passw0rd-5",
}


def stamp(seconds: float) -> str:
    """Certain's times: ISO 8601 with microseconds, no zone (the backend's naive UTC)."""
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None).isoformat(timespec="microseconds")


def fixture_users(store: Store) -> None:
    created = "2026-10-20T14:18:15.780705"
    rows = [
        ("plain", "Plain", None, 0, 0),
        ("totp", "Tessa Totp", pyotp.random_base32(), 0, 0),
        ("mustchange", "Max Change", None, 1, 0),
        ("mfapolicy", "Mia Policy", None, 0, 1),
        ("other", "Otto Other", None, 0, 0),
    ]
    for name, display, secret, must, mfa in rows:
        user_id = store.run(
            "INSERT INTO users (username, display_name, password_hash, totp_secret, must_change_password,"
            " mfa_required, created_at) VALUES (?,?,?,?,?,?,?)",
            name,
            display,
            hash_password(PASSWORDS[name]),
            secret,
            must,
            mfa,
            created,
        )
        if secret:
            codes = [f"rc-{secrets.token_hex(4)}" for _ in range(4)]
            store.fixture_state.setdefault("recovery_codes", {})[name] = codes
            for code in codes:
                store.run("INSERT INTO recovery_codes (user_id, code_hash) VALUES (?,?)", user_id, token_hash(code))


FIXTURES = {name: [fixture_users, fill] for name, fill in fixtures.FIXTURES.items()}


def open_store(path: str) -> Store:
    """The server's store in a fresh file at `path`, with the default fixture loaded."""
    return Store(path, SCHEMA, FIXTURES, clock=Clock(stamp), snapshots=True)
