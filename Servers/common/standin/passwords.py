"""Password hashes and secret digests, one way for every stand-in.

Passwords: scrypt with a random 16-byte salt, stored as `scrypt$<salt hex>$<digest hex>`. The cost is
n=2**12, r=8, p=1: a real scrypt hash as a backend keeps, cheap enough for a test server that hashes on
every sign-in and every fixture load, on its event loop.
Tokens, session cookies and recovery codes: their SHA-256 (hex); the value itself is never stored.
"""

import hashlib
import hmac
import secrets

SCRYPT_COST = {"n": 2**12, "r": 8, "p": 1}


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, **SCRYPT_COST)
    return f"scrypt${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str | None) -> bool:
    """Whether `password` matches `stored` (a `hash_password` value); `None` (no password set) never matches."""
    if not stored:
        return False
    _, salt, digest = stored.split("$")
    candidate = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), **SCRYPT_COST)
    return hmac.compare_digest(candidate.hex(), digest)


def token_hash(value: str) -> str:
    """The stored form of a token, cookie value or one-time code."""
    return hashlib.sha256(value.encode()).hexdigest()
