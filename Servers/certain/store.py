"""SQLite storage and fixtures for the Certain reference server (a stand-in, see README.md).

The users are filled here; the finance tables and rows come from fixtures.py. `reset()` runs every
fill function of the chosen fixture in order.
"""

import copy
import hashlib
import hmac
import secrets
import sqlite3
import threading

import pyotp

import fixtures

SCHEMA = """
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
""" + fixtures.FINANCE_SCHEMA

# The fixture passwords are public test data: the tests read them from the control endpoint
# GET /_control/fixture, never from the app's side.
PASSWORDS = {
    "plain": "plain-Passw0rd-1",
    "totp": "totp-Passw0rd-2",
    "mustchange": "mustchange-Passw0rd-3",
    "mfapolicy": "mfapolicy-Passw0rd-4",
    "other": "other-Passw0rd-5",
}


def hash_password(password: str) -> str:
    """scrypt with a random salt: a real password hash, as the backend would keep."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"scrypt${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    _, salt, digest = stored.split("$")
    candidate = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=1)
    return hmac.compare_digest(candidate.hex(), digest)


def token_hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def fixture_users(db: sqlite3.Connection, state: dict) -> None:
    created = "2026-10-20T14:18:15.780705"
    rows = [
        ("plain", "Plain", None, 0, 0),
        ("totp", "Tessa Totp", pyotp.random_base32(), 0, 0),
        ("mustchange", "Max Change", None, 1, 0),
        ("mfapolicy", "Mia Policy", None, 0, 1),
        ("other", "Otto Other", None, 0, 0),
    ]
    for name, display, secret, must, mfa in rows:
        cur = db.execute(
            "INSERT INTO users (username, display_name, password_hash, totp_secret, must_change_password,"
            " mfa_required, created_at) VALUES (?,?,?,?,?,?,?)",
            (name, display, hash_password(PASSWORDS[name]), secret, must, mfa, created),
        )
        if secret:
            codes = [f"rc-{secrets.token_hex(4)}" for _ in range(4)]
            state.setdefault("recovery_codes", {})[name] = codes
            for code in codes:
                db.execute("INSERT INTO recovery_codes (user_id, code_hash) VALUES (?,?)", (cur.lastrowid, token_hash(code)))


FIXTURES = {name: [fixture_users, fill] for name, fill in fixtures.FIXTURES.items()}


class Store:
    """One SQLite database (in a file), serialised by a lock; small enough for tests."""

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.RLock()
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA synchronous = OFF")  # test data: speed over durability
        self.fixture_state: dict = {}
        self.snapshots: dict = {}
        self.reset("default")

    def reset(self, fixture: str) -> None:
        """Loads `fixture`. The first load of each fixture is kept in memory and copied back on later
        resets (scrypt hashes and two years of rows take a second to build)."""
        with self.lock:
            if fixture in self.snapshots:
                saved, state = self.snapshots[fixture]
                saved.backup(self.db)
                self.fixture_state = copy.deepcopy(state)
                return
            for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
                self.db.execute(f"DROP TABLE {name}")
            self.db.executescript(SCHEMA)
            self.fixture_state = {}
            self.db.execute("BEGIN")
            for fill in FIXTURES[fixture]:
                fill(self.db, self.fixture_state)
            self.db.execute("COMMIT")
            saved = sqlite3.connect(":memory:", check_same_thread=False)
            self.db.backup(saved)
            self.snapshots[fixture] = (saved, copy.deepcopy(self.fixture_state))

    def one(self, sql: str, *args):
        with self.lock:
            return self.db.execute(sql, args).fetchone()

    def all(self, sql: str, *args):
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def run(self, sql: str, *args) -> int:
        with self.lock:
            return self.db.execute(sql, args).lastrowid
