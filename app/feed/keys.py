"""Integration keys for timing systems: created per event, shown once, stored hashed,
revocable; requests may be signed with HMAC-SHA256 over `timestamp + "." + body`."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.core import audit
from app.core.db import utcnow
from app.core.errors import Conflict, NotFound, Unauthorized
from app.core.principal import Kind, Principal
from app.core.security import hash_token, new_token
from app.events.models import Event
from app.feed import repository as repo
from app.feed.models import IntegrationKey
from app.feed.schemas import IntegrationKeyCreate, IntegrationKeyCreated, IntegrationKeyRead

KEY_PREFIX = "rpk_"
SIGNATURE_MAX_AGE = 86400  # seconds, default of Settings.feed_signature_max_age_seconds
KEY_HEADER = "x-integration-key"
TIMESTAMP_HEADER = "x-signature-timestamp"
SIGNATURE_HEADER = "x-signature"


def sign(key: str, timestamp: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of `timestamp + "." + body` with the integration key."""
    message = timestamp.encode("ascii") + b"." + body
    return hmac.new(key.encode("utf-8"), message, hashlib.sha256).hexdigest()


def _read(key: IntegrationKey) -> IntegrationKeyRead:
    return IntegrationKeyRead(
        id=key.id,
        event_id=key.event_id,
        name=key.name,
        prefix=key.prefix,
        require_signature=key.require_signature,
        created_at=key.created_at,
        revoked_at=key.revoked_at,
    )


def create_key(
    session: Session, event: Event, body: IntegrationKeyCreate, *, actor: str
) -> IntegrationKeyCreated:
    """A new key for `event`; the secret is returned here only (stored as its SHA-256)."""
    secret = KEY_PREFIX + new_token(24)
    key = IntegrationKey(
        event_id=event.id,
        name=body.name,
        prefix=secret[:10],
        key_hash=hash_token(secret),
        require_signature=body.require_signature,
        created_at=utcnow(),
    )
    session.add(key)
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="feed.key_created",
        subject=f"integration_key:{key.id}",
        details={"name": key.name, "prefix": key.prefix},
    )
    return IntegrationKeyCreated(**_read(key).model_dump(), key=secret)


def list_keys(session: Session, event: Event) -> list[IntegrationKeyRead]:
    return [_read(key) for key in repo.integration_keys(session, event.id)]


def revoke_key(
    session: Session, event: Event, key_id: int, *, actor: str, now: datetime
) -> IntegrationKeyRead:
    """Revoke a key (404 `key_not_found`, 409 `key_already_revoked`)."""
    key = session.get(IntegrationKey, key_id)
    if key is None or key.event_id != event.id:
        raise NotFound(f"Integration key {key_id} does not exist.", code="key_not_found")
    if key.revoked_at is not None:
        raise Conflict("The key is already revoked.", code="key_already_revoked")
    key.revoked_at = now
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="feed.key_revoked",
        subject=f"integration_key:{key.id}",
        details={"name": key.name, "prefix": key.prefix},
    )
    return _read(key)


def key_principal(session: Session, secret: str) -> Principal | None:
    """The Principal of a live (not revoked) integration key `secret`, or None (the
    `integration_key` lookup of `app.wiring.credentials`)."""
    key = repo.live_integration_key(session, hash_token(secret))
    if key is None:
        return None
    return Principal(
        Kind.INTEGRATION_KEY, key_id=key.id, key_prefix=key.prefix, event_id=key.event_id
    )


@dataclass(frozen=True)
class FeedCredentials:
    """What a feed delivery presented, read from its HTTP request by the router
    (`app.api.feed.feed_credentials`): the organiser's Principal when it carried the
    organiser's credential (the token, a session or an admitted member), the
    integration key (`Authorization: Bearer <key>` or `X-Integration-Key`), the
    `X-Signature` and `X-Signature-Timestamp` headers, and the signature's allowed age in
    seconds (FEED_SIGNATURE_MAX_AGE_SECONDS)."""

    organiser: Principal | None
    secret: str | None = None
    signature: str | None = None
    timestamp: str = ""
    max_age: int = SIGNATURE_MAX_AGE


def feed_principal(
    session: Session, event: Event, credentials: FeedCredentials, body: bytes
) -> Principal:
    """Who delivers to `event`'s feed: the organiser (ORGANISER, or an organiser member:
    its `actor` names it, `member:7 Anna (judge)`), or the integration key's Principal
    (its `actor` is `key:<prefix>`).

    The key must belong to this event and not be revoked (401 `unauthorized`: neither the
    organiser token nor a key matched).
    When `X-Signature` is sent (or the key requires it) it must be the HMAC of
    `X-Signature-Timestamp` (Unix seconds) + "." + the body, and the timestamp
    at most FEED_SIGNATURE_MAX_AGE_SECONDS (default a day) away from the server's
    clock (401 `stale_signature`, `bad_signature`, `signature_required`). The window
    is wide because field devices' clocks drift and sync late: a replayed signed
    delivery stores nothing (the feed is idempotent), so only the signature matters.
    """
    if credentials.organiser is not None:
        return credentials.organiser
    secret = credentials.secret
    if not secret:
        raise Unauthorized("The organiser token or an integration key is needed.")
    found = key_principal(session, secret)
    key = (
        session.get(IntegrationKey, found.key_id) if found and found.event_id == event.id else None
    )
    if found is None or key is None:
        raise Unauthorized(
            "Neither the organiser token nor an integration key of this event matched "
            "(a key may be unknown, revoked or for another event)."
        )
    signature = credentials.signature
    if signature is None:
        if key.require_signature:
            raise Unauthorized("This key requires signed requests.", code="signature_required")
        return found
    timestamp = credentials.timestamp
    try:
        age = utcnow().timestamp() - int(timestamp)
    except ValueError:
        raise Unauthorized(
            f"{TIMESTAMP_HEADER} must be Unix seconds.", code="bad_signature"
        ) from None
    max_age = credentials.max_age
    if abs(age) > max_age:
        raise Unauthorized(
            f"The signature timestamp is more than {max_age} s away from the server clock.",
            code="stale_signature",
        )
    expected = sign(secret, timestamp, body)
    given = signature.removeprefix("sha256=").strip().lower()
    if not hmac.compare_digest(expected, given):
        raise Unauthorized("The signature does not match the body.", code="bad_signature")
    return found
