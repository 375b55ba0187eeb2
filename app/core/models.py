"""The core's tables: the live versions, the sign-in guard's rows, the organiser
members and the heads of the event-level chains.

They live here, apart from the modules that explain and use them, so that the core's
queries (`app.core.repository`) can import them without an import cycle:

- `LiveVersion`, `LiveChange`: `app.core.livelog` (what a version means, when it is
  bumped);
- `AuthFailure`, `OrganiserSession`: `app.core.guard` (the throttle, the sessions);
- `OrganiserMember`: `app.core.members` (issue 29: roles, tokens);
- `EventChain`: `app.core.ledger` (the event-level chains).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow

CLIENT_MAX_LENGTH = 64  # a client address, as the guard stores it
NAME_MAX_LENGTH = 60  # a member's name: the actor "member:<id> <name> (<role>)" fits 120


class LiveVersion(Base):
    """The latest live version of an event (0 = nothing changed yet; no row = 0)."""

    __tablename__ = "live_version"

    event_id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger, default=0)


class LiveChange(Base):
    """Topic `topic` (place `place`, 0 for the event itself) changed at `version`."""

    __tablename__ = "live_change"

    event_id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    topic: Mapped[str] = mapped_column(String(16), primary_key=True)
    place: Mapped[int] = mapped_column(primary_key=True)
    changed_at: Mapped[datetime] = mapped_column(default=utcnow)


class AuthFailure(Base):
    """One failed credential from a client address; rows older than the window are purged."""

    __tablename__ = "auth_failure"
    __table_args__ = (Index("ix_auth_failure_client_failed_at", "client", "failed_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    client: Mapped[str] = mapped_column(String(CLIENT_MAX_LENGTH))
    path: Mapped[str] = mapped_column(String(200))
    failed_at: Mapped[datetime] = mapped_column(index=True)


class OrganiserSession(Base):
    """A signed-in organiser browser: the SHA-256 of its session id, until `expires_at`."""

    __tablename__ = "organiser_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    sid_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)
    # The organiser member signed in with a personal link (issue 29); NULL: the owner's
    # ADMIN_TOKEN. Revoking the member deletes its rows (`end_member_sessions`).
    member_id: Mapped[int | None] = mapped_column(
        ForeignKey("organiser_member.id", ondelete="CASCADE"), index=True
    )


class OrganiserMember(Base):
    """A member of an event's organising team; `revoked_at` set once revoked (kept for the
    audit log, which names members by id)."""

    __tablename__ = "organiser_member"

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH))
    role: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class EventChain(Base):
    """The head of one event-level chain of an event (a projection of its rows)."""

    __tablename__ = "event_chain"

    event_id: Mapped[int] = mapped_column(
        ForeignKey("event.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    log_seq: Mapped[int] = mapped_column(server_default="0")
    log_head: Mapped[str | None] = mapped_column(String(64))
