"""The freeze of the feed at the ceremony: once an auction has opened, takes, corrections
and replays can no longer change the combinations (the auction results rest on them).

Read by the ingest (`app.feed.ingest`), the corrections and the replays
(`app.feed.projection`); a module of its own so that both import it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.core.errors import Conflict
from app.events.models import Event
from app.events.rules import EventStatus
from app.feed import repository as repo

FEED_CLOSED = "feed_closed"
FROZEN_STATUSES = (EventStatus.CEREMONY, EventStatus.FINISHED)


def feed_frozen(session: Session, event: Event) -> bool:
    """True once the ceremony has begun: the event is `ceremony`/`finished`, or an
    auction of the event has been opened (`event.feed_frozen_at`: its results rest on
    the combinations).

    Both are read from the event row FOR SHARE (PostgreSQL). Opening an auction locks
    that row FOR UPDATE and writes `feed_frozen_at` to it, so a delivery either
    commits before the auction opens or, having waited for the lock, reads the
    updated row and sees the feed frozen (a value from another table read in the
    same statement would come from the snapshot taken before the wait).
    """
    return is_frozen(*repo.event_freeze(session, event.id))


def is_frozen(status: str, feed_frozen_at: datetime | None) -> bool:
    """The freeze rule on an event row's `status` and `feed_frozen_at` (`feed_frozen`)."""
    return status in FROZEN_STATUSES or feed_frozen_at is not None


def load_event_for_feed(session: Session, event_id: int) -> tuple[Event, bool] | None:
    """The event, read FOR SHARE (as `feed_frozen` reads it), and whether its feed is
    frozen; None when there is no such event. One statement for both."""
    event = repo.event_for_feed(session, event_id)
    return None if event is None else (event, is_frozen(event.status, event.feed_frozen_at))


def feed_closed_error() -> Conflict:
    """The 409 `feed_closed` problem (raised by `ensure_feed_open`)."""
    return Conflict(
        "The feed is closed: the ceremony has begun (an auction was opened), so takes, "
        "corrections and replays can no longer change the combinations.",
        code=FEED_CLOSED,
    )


def ensure_feed_open(session: Session, event: Event) -> None:
    """Raise Conflict `feed_closed` (409) once the ceremony has begun (`feed_frozen`)."""
    if feed_frozen(session, event):
        raise feed_closed_error()
