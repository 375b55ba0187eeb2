"""The audit trail: an append-only table of who did what, when.

The entries whose action decides a result (`DECIDING_ACTIONS`: the lots drawn at a
close, an organiser's correction after a reveal) are also hash-chained, one chain per
event (`app.core.ledger`, chain `decisions`); the other entries are not
(`log_seq`/`log_prev`/`log_hash` NULL). On PostgreSQL a trigger refuses UPDATE and
DELETE of any audit entry (migration `0013_chain_decisions`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core import chain, ledger
from app.core.db import Base, utcnow

# Audit actions that decide a result (RULES.md I-9 lots, I-21 corrections): chained.
DECIDING_ACTIONS = frozenset({"auction.lots", "auction.correct"})


class AuditEntry(Base):
    """One organiser or system action. Rows are never updated or deleted."""

    __tablename__ = "audit_entry"
    __table_args__ = (Index("ix_audit_entry_event_id_id", "event_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    actor: Mapped[str] = mapped_column(String(120))
    action: Mapped[str] = mapped_column(String(60))
    subject: Mapped[str | None] = mapped_column(String(200))
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # In the event's `decisions` chain when `action` is in DECIDING_ACTIONS; else NULL.
    log_seq: Mapped[int | None]
    log_prev: Mapped[str | None] = mapped_column(String(64))
    log_hash: Mapped[str | None] = mapped_column(String(64))


def record(
    session: Session,
    *,
    event_id: int | None,
    actor: str,
    action: str,
    subject: str | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    """Append an audit entry (flushed, not committed); an entry of an event whose
    `action` is in DECIDING_ACTIONS is appended to the event's `decisions` chain (its
    head stays locked until the transaction ends)."""
    entry = AuditEntry(
        event_id=event_id,
        actor=actor,
        action=action,
        subject=subject,
        details=details or {},
        created_at=utcnow(),
    )
    if event_id is not None and action in DECIDING_ACTIONS:
        # hashed as it will be read back: JSON (string keys, lists for tuples)
        entry.details = json.loads(json.dumps(entry.details))
        content = chain.decision_content(
            action=action,
            actor=actor,
            subject=subject,
            details=entry.details,
            created_at=entry.created_at,
        )
        [(entry.log_seq, entry.log_prev, entry.log_hash)] = ledger.append(
            session, event_id, chain.DECISIONS, chain.DECISION, [content]
        )
    session.add(entry)
    session.flush()
    return entry
