"""The audit trail: an append-only table of who did what, when."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core.db import Base, utcnow


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


def record(
    session: Session,
    *,
    event_id: int | None,
    actor: str,
    action: str,
    subject: str | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    """Append an audit entry (flushed, not committed)."""
    entry = AuditEntry(
        event_id=event_id, actor=actor, action=action, subject=subject, details=details or {}
    )
    session.add(entry)
    session.flush()
    return entry
