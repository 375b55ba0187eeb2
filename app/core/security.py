"""Secrets: random tokens, their hashes, constant-time comparison."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


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


SEAL_INFO = b"rogaine-token-seal/v1|"


def _seal_key(secret: str) -> bytes:
    return hashlib.sha256(SEAL_INFO + secret.encode("utf-8")).digest()


def seal_token(secret: str, token: str) -> str:
    """`token` encrypted (AES-256-GCM, key SHA-256 of a domain tag and `secret`, the
    service's SECRET_KEY): base64url of nonce ‖ ciphertext. Lets a re-print show the same
    personal link without storing it in clear (issue 26 point 7)."""
    nonce = secrets.token_bytes(12)
    sealed = AESGCM(_seal_key(secret)).encrypt(nonce, token.encode("utf-8"), SEAL_INFO)
    return base64.urlsafe_b64encode(nonce + sealed).decode("ascii")


def unseal_token(secret: str, sealed: str | None) -> str | None:
    """The token of `seal_token`, or None (nothing sealed, another secret, tampered)."""
    if not sealed:
        return None
    try:
        raw = base64.urlsafe_b64decode(sealed.encode("ascii"))
        return AESGCM(_seal_key(secret)).decrypt(raw[:12], raw[12:], SEAL_INFO).decode("utf-8")
    except (InvalidTag, ValueError):
        return None
