"""The organiser dashboard's counters, read across domains (events and the feed).

The dashboard page (`app.web.admin.pages`) and the live channel (`app.live.snapshots`) both
show them; this is the one place they are computed. Their cost does not grow with the
event (issue 24): one query sums the participants' tallies, which the feed's writes keep
(`participant_state`), and the dashboard's warning lists are bounded
(`DASHBOARD_ROWS`); the full lists are the paged warnings page's.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.events.models import Event
from app.feed import views as feed_views
from app.feed.schemas import WarningsRead

TAKES_RATE_WINDOW = timedelta(minutes=10)  # takes per minute are averaged over it
DASHBOARD_ROWS = 20  # rows of each warning list on the dashboard
WARNINGS_PAGE_ROWS = 100  # rows of each list per page of the warnings page


def dashboard_numbers(session: Session, event: Event, now: datetime) -> dict[str, Any]:
    """Counters of the dashboard at `now` (aware UTC): `participants`, `takes_total`,
    `takes_per_minute` (takes whose field time is within TAKES_RATE_WINDOW of `now`),
    `unsaved_hands` (participants holding unsaved cards, RULES.md I-3), `unknown_codes`
    (takes, not voided) and `hand_full` (refused takes, I-1). One query."""
    tallies = feed_views.tallies(session, event, now - TAKES_RATE_WINDOW)
    return {
        "participants": tallies["participants"],
        "takes_total": tallies["takes"],
        "takes_per_minute": round(tallies["recent"] / (TAKES_RATE_WINDOW.total_seconds() / 60), 1),
        "unsaved_hands": tallies["unsaved_hands"],
        "unknown_codes": tallies["unknown_codes"],
        "hand_full": tallies["hand_full"],
    }


def dashboard_warnings(session: Session, event: Event) -> WarningsRead:
    """The first DASHBOARD_ROWS of each warning list (no device clocks, no future takes:
    those read every take, they are on the warnings page)."""
    return feed_views.warnings_page(session, event, limit=DASHBOARD_ROWS)


def warnings_page(session: Session, event: Event, page: int) -> WarningsRead:
    """Page `page` (1 = first) of every warning list, WARNINGS_PAGE_ROWS rows each."""
    offset = (page - 1) * WARNINGS_PAGE_ROWS
    return feed_views.warnings_page(
        session, event, limit=WARNINGS_PAGE_ROWS, offset=offset, full=True
    )
