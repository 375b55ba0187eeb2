"""Secrets: random tokens, their hashes, constant-time comparison."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token(nbytes: int = 24) -> str:
    """A URL-safe random token with `nbytes` bytes (8*nbytes bits) of randomness."""
    return secrets.token_urlsafe(nbytes)


def hash_token(token: str) -> str:
    """SHA-256 hex digest of a high-entropy token, for storage and lookup.

    Tokens are random (>= 128 bits), so a fast hash is safe here; passwords would not be.
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def tokens_equal(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison; False when either side is missing."""
    if not given or not expected:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))
