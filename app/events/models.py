"""Events, checkpoints (the deck in the field), participants and their save codes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class Event(Base):
    """A rogaine: course window (UTC, shown in `timezone`), ranking preset, codes, places."""

    __tablename__ = "event"
    __table_args__ = (
        CheckConstraint("closes_at > opens_at", name="window_order"),
        CheckConstraint("hand_ranking IN ('seed', 'classic')", name="hand_ranking"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    opens_at: Mapped[datetime]
    closes_at: Mapped[datetime]
    timezone: Mapped[str] = mapped_column(String(64))
    hand_ranking: Mapped[str] = mapped_column(String(16), default="seed")
    save_codes_per_participant: Mapped[int] = mapped_column(default=10)
    award_places: Mapped[int] = mapped_column(default=3)
    status: Mapped[str] = mapped_column(String(20), default="draft")
    deck_seed: Mapped[int | None] = mapped_column(BigInteger)
    # When the first auction opened: from then on the feed is frozen (app.feed.freeze.
    # feed_frozen). On the event row itself, so that a delivery waiting on the row lock
    # of an opening auction reads it fresh once that lock is released.
    feed_frozen_at: Mapped[datetime | None]
    # The event head over the take and bid logs, fixed when the last auction closed and
    # the event became `finished` (app.flows.log_chain.fix_head): `{"head", "takes",
    # "bids", "at"}` (`at` ISO 8601 UTC). None before the finish and after an undone close.
    # Kept here so that the phone's results page reads it with the event row.
    final_log_head: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # The owner made the hall screen (`/hall/{id}`) public: anybody may watch it (issue 29).
    hall_public: Mapped[bool] = mapped_column(server_default=false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Checkpoint(Base):
    """A CP: one card of the deck, its secret QR `code` and its `discard_code`."""

    __tablename__ = "checkpoint"
    __table_args__ = (
        UniqueConstraint("event_id", "number"),
        UniqueConstraint("event_id", "card"),
        UniqueConstraint("event_id", "discard_code"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    number: Mapped[int]
    card: Mapped[str] = mapped_column(String(4))
    code: Mapped[str] = mapped_column(String(64), unique=True)
    discard_code: Mapped[str] = mapped_column(String(32))
    lat: Mapped[float | None]
    lon: Mapped[float | None]
    hint: Mapped[str] = mapped_column(Text, default="")


class Participant(Base):
    """An individual or a team: one account, one access token, one set of save codes."""

    __tablename__ = "participant"
    __table_args__ = (
        UniqueConstraint("event_id", "external_id"),
        CheckConstraint("kind IN ('person', 'team')", name="kind"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    category: Mapped[str | None] = mapped_column(String(64))
    # "person" or "team"; a person's name parts, club and punching card as an entry
    # list or the organiser gave them (IOF XML: Given, Family, Organisation, ControlCard).
    kind: Mapped[str] = mapped_column(String(8), default="person", server_default="person")
    given_name: Mapped[str | None] = mapped_column(String(100))
    family_name: Mapped[str | None] = mapped_column(String(100))
    club: Mapped[str | None] = mapped_column(String(100))
    control_card: Mapped[str | None] = mapped_column(String(12))
    access_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The token sealed with SECRET_KEY (`security.seal_token`) when it was issued for a
    # printed card: a re-print shows the same link (issue 26 point 7). None otherwise.
    access_token_sealed: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ParticipantIdentity(Base):
    """A participant's identity as results show it, after each change (a log, chained per
    event: `app.events.identity`). Names may be edited legitimately: an edit appends a
    row, never updates one; `log/verify` checks each participant row against its latest
    identity row. `participant_id` has no foreign key: a deleted participant's rows stay
    (the last says `delete`); an archive restores them without it (NULL)."""

    __tablename__ = "participant_identity"
    __table_args__ = (
        CheckConstraint("change IN ('create', 'update', 'delete')", name="change"),
        Index("ix_participant_identity_event_id_log_seq", "event_id", "log_seq"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    participant_id: Mapped[int | None]
    change: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    category: Mapped[str | None] = mapped_column(String(64))
    changed_by: Mapped[str] = mapped_column(String(120))
    changed_at: Mapped[datetime]
    log_seq: Mapped[int | None]
    log_prev: Mapped[str | None] = mapped_column(String(64))
    log_hash: Mapped[str | None] = mapped_column(String(64))


class SaveCode(Base):
    """One of a participant's single-use save codes (whether used is derived from the feed)."""

    __tablename__ = "save_code"
    __table_args__ = (
        UniqueConstraint("event_id", "code"),
        Index("ix_save_code_participant_id", "participant_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    participant_id: Mapped[int] = mapped_column(ForeignKey("participant.id", ondelete="CASCADE"))
    position: Mapped[int]
    code: Mapped[str] = mapped_column(String(32))
