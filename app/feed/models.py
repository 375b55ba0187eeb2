"""The field feed: the append-only take log, corrections, and the state projection.

`Take` and `TakeVoid` are logs: rows are inserted, never updated or deleted.
`TakeOutcome`, `ParticipantState` and `Combination` are a projection of the log
(RULES.md I-4) and may be rewritten by a replay or a rebuild.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class Take(Base):
    """One delivery from a device or an organiser, exactly as sent (the log)."""

    __tablename__ = "take"
    __table_args__ = (
        UniqueConstraint("event_id", "source", "source_id"),
        Index("ix_take_participant_id_taken_at_id", "participant_id", "taken_at", "id"),
        # the dashboard's takes per minute: a range of the event's recent takes
        Index("ix_take_event_id_taken_at", "event_id", "taken_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    participant_id: Mapped[int] = mapped_column(ForeignKey("participant.id", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(64))
    source_id: Mapped[str] = mapped_column(String(128))
    code: Mapped[str] = mapped_column(String(512))
    taken_at: Mapped[datetime]
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    recorded_by: Mapped[str] = mapped_column(String(120))
    # A device clock corrected at receipt (the batch's `sent_at` was off by more than the
    # tolerance): `taken_at` = `device_taken_at` + `clock_offset_seconds`; both None otherwise.
    device_taken_at: Mapped[datetime | None]
    clock_offset_seconds: Mapped[float | None]
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The participant's hash chain (app.core.chain); NULL only for a row written outside
    # the service, which `verify` reports.
    log_seq: Mapped[int | None]
    log_prev: Mapped[str | None] = mapped_column(String(64))
    log_hash: Mapped[str | None] = mapped_column(String(64))


class TakeVoid(Base):
    """An organiser's correction that voids a take (the take stays in the log)."""

    __tablename__ = "take_void"

    id: Mapped[int] = mapped_column(primary_key=True)
    take_id: Mapped[int] = mapped_column(ForeignKey("take.id", ondelete="CASCADE"), unique=True)
    reason: Mapped[str] = mapped_column(Text)
    voided_by: Mapped[str] = mapped_column(String(120))
    voided_at: Mapped[datetime] = mapped_column(default=utcnow)
    # In the chain of the voided take's participant (app.core.chain).
    log_seq: Mapped[int | None]
    log_prev: Mapped[str | None] = mapped_column(String(64))
    log_hash: Mapped[str | None] = mapped_column(String(64))


class SourceClock(Base):
    """An organiser's offset for a source's clock (a log: the latest row per source wins).

    Every take of `source` is then played at its device time + `offset_seconds`
    (`device_taken_at`, or `taken_at` when it was not corrected at receipt); None
    clears the offset (back to the times as stored). The takes are never edited.
    """

    __tablename__ = "source_clock"
    __table_args__ = (Index("ix_source_clock_event_id_source", "event_id", "source", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(64))
    offset_seconds: Mapped[float | None]
    set_by: Mapped[str] = mapped_column(String(120))
    set_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The event's `clocks` chain (app.core.ledger); NULL only for a row written outside
    # the service, which `verify` reports.
    log_seq: Mapped[int | None]
    log_prev: Mapped[str | None] = mapped_column(String(64))
    log_hash: Mapped[str | None] = mapped_column(String(64))


class TakeOutcome(Base):
    """Projection: what the rules made of one take in the participant's replay."""

    __tablename__ = "take_outcome"
    __table_args__ = (Index("ix_take_outcome_kind", "kind"),)  # the unknown codes' list

    take_id: Mapped[int] = mapped_column(
        ForeignKey("take.id", ondelete="CASCADE"), primary_key=True
    )
    participant_id: Mapped[int] = mapped_column(
        ForeignKey("participant.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(String(32))
    card: Mapped[str | None] = mapped_column(String(4))
    checkpoint_id: Mapped[int | None] = mapped_column(
        ForeignKey("checkpoint.id", ondelete="SET NULL")
    )
    deal: Mapped[int]
    round: Mapped[int]
    # When a replay (a late take, a correction) changed this take's outcome, what it was
    # before and when it changed: the change stays visible in the participant's log (I-4).
    previous_outcome: Mapped[str | None] = mapped_column(String(16))
    previous_reason: Mapped[str | None] = mapped_column(String(32))
    changed_at: Mapped[datetime | None]


class ParticipantState(Base):
    """Projection: a participant's rules state after their last take in field-time order."""

    __tablename__ = "participant_state"
    __table_args__ = (  # the warning lists of an event: the rows whose tally is above 0
        Index("ix_participant_state_event_id_hand_cards", "event_id", "hand_cards"),
        Index("ix_participant_state_event_id_hand_full", "event_id", "hand_full"),
        Index("ix_participant_state_event_id_unknown_codes", "event_id", "unknown_codes"),
    )

    participant_id: Mapped[int] = mapped_column(
        ForeignKey("participant.id", ondelete="CASCADE"), primary_key=True
    )
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"), index=True)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    last_taken_at: Mapped[datetime | None]
    last_take_id: Mapped[int | None]
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The head of the participant's hash chain of takes and voids (app.core.chain): rows so
    # far and the last row's hash. Like the state, it follows from the log (a rebuild
    # recomputes it from the rows' `log_seq`/`log_hash`); written with the state, under
    # the participant's row lock.
    log_seq: Mapped[int] = mapped_column(server_default="0")
    log_head: Mapped[str | None] = mapped_column(String(64))
    # Tallies of the participant's log, written with the state (they follow from the log
    # like it; issue 24): the dashboard sums them in one query instead of reading every
    # take. Cards in hand (unsaved), takes (voided ones too), unknown codes not voided,
    # takes refused as `hand_full`.
    hand_cards: Mapped[int] = mapped_column(server_default="0")
    takes: Mapped[int] = mapped_column(server_default="0")
    unknown_codes: Mapped[int] = mapped_column(server_default="0")
    hand_full: Mapped[int] = mapped_column(server_default="0")


class Combination(Base):
    """Projection: a saved 5-card combination; its id is the id of the save take."""

    __tablename__ = "combination"

    id: Mapped[int] = mapped_column(
        ForeignKey("take.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"), index=True)
    participant_id: Mapped[int] = mapped_column(
        ForeignKey("participant.id", ondelete="CASCADE"), index=True
    )
    cards: Mapped[list[str]] = mapped_column(JSON)
    category: Mapped[str] = mapped_column(String(20))
    deal: Mapped[int]
    saved_at: Mapped[datetime]


class IntegrationKey(Base):
    """A timing system's key for one event: shown once, stored hashed, revocable."""

    __tablename__ = "integration_key"

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    prefix: Mapped[str] = mapped_column(String(16))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    require_signature: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]


class DeviceContact(Base):
    """What the service learnt of a phone's clock at one contact (a log, RULES.md I-22).

    A contact is a bundle fetch (`kind` `bundle`: the phone sent its clock with
    `GET /me/offline.json?device=…&at=…`) or a sync (`kind` `sync`: the batch's
    `sent_at`). `offset_seconds` = server clock at receipt − device clock (None when the
    phone sent no clock); `takes`: the takes the batch stored.
    """

    __tablename__ = "device_contact"
    __table_args__ = (Index("ix_device_contact_event_id_source_id", "event_id", "source", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    participant_id: Mapped[int] = mapped_column(ForeignKey("participant.id", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    device_at: Mapped[datetime | None]
    offset_seconds: Mapped[float | None]
    takes: Mapped[int] = mapped_column(default=0, server_default="0")


class TakeReview(Base):
    """A phone take whose time the service cannot corroborate, listed for the organiser
    (RULES.md I-22). `reasons`: some of `late_arrival`, `offset_jump`, `large_correction`;
    `details`: the figures behind them (offsets in seconds). The take counts as the rules
    say until the organiser decides: `decision` `accepted` (nothing changes) or `voided`
    (a `take_void` row, the participant replayed); both are logged in the audit log."""

    __tablename__ = "take_review"
    __table_args__ = (Index("ix_take_review_event_id_decision_id", "event_id", "decision", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    take_id: Mapped[int] = mapped_column(ForeignKey("take.id", ondelete="CASCADE"), unique=True)
    reasons: Mapped[list[str]] = mapped_column(JSON)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    decision: Mapped[str | None] = mapped_column(String(16))
    decided_by: Mapped[str | None] = mapped_column(String(120))
    decided_at: Mapped[datetime | None]


class SyncDeadline(Base):
    """The organiser's deadline for phone syncs after the close (a log: the latest row of
    the event wins; `deadline` None clears it). A phone batch received after it stores
    nothing new (409 `sync_deadline_passed` per take), RULES.md I-22."""

    __tablename__ = "sync_deadline"
    __table_args__ = (Index("ix_sync_deadline_event_id_id", "event_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    deadline: Mapped[datetime | None]
    set_by: Mapped[str] = mapped_column(String(120))
    set_at: Mapped[datetime] = mapped_column(default=utcnow)
