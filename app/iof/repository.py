"""Queries of the IOF exchange."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.feed.models import Take


def participants_with_takes(session: Session, event_id: int) -> set[int]:
    """Ids of the event's participants with at least one stored take (any outcome)."""
    return set(
        session.scalars(select(Take.participant_id).where(Take.event_id == event_id).distinct())
    )
