"""The organiser dashboard's counters, read across domains (events and the feed).

The dashboard page (`app.web.admin.pages`) and the live channel (`app.live.snapshots`) both
show them; this is the one place they are computed, all from the database.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.events import repository as events_repo
from app.events.models import Event
from app.feed import views as feed_views

TAKES_RATE_WINDOW = timedelta(minutes=10)  # takes per minute are averaged over it


def dashboard_numbers(session: Session, event: Event, now: datetime) -> dict[str, Any]:
    """Counters of the dashboard at `now` (aware UTC): `participants`, `takes_total`,
    `takes_per_minute` (over the last TAKES_RATE_WINDOW), `unsaved_hands`,
    `unknown_codes`, `hand_full` (counts) and `warnings` (the feed's warnings)."""
    total = feed_views.log(session, event, limit=1).total
    recent = feed_views.log(session, event, taken_from=now - TAKES_RATE_WINDOW, limit=1).total
    warnings = feed_views.warnings(session, event, now=now)
    return {
        "participants": events_repo.participant_count(session, event.id),
        "takes_total": total,
        "takes_per_minute": round(recent / (TAKES_RATE_WINDOW.total_seconds() / 60), 1),
        "unsaved_hands": len(warnings.unsaved_hands),
        "unknown_codes": len(warnings.unknown_codes),
        "hand_full": sum(w.count for w in warnings.hand_full),
        "warnings": warnings,
    }
