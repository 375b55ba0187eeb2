"""The course window across domains: a change of the window or the ranking preset
(events) replays the field feed (feed); "close the course now"; status moves that
close the course.

A preview (`dry_run`) runs exactly the same steps inside a SAVEPOINT that is then
rolled back: the summary is the one the change would give, and nothing is stored
(no event change, no replayed outcome, no audit entry).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from sqlalchemy.orm import Session

from app.auctions import repository as auction_repo
from app.core import audit
from app.core.db import utcnow
from app.core.errors import Conflict
from app.events import rules as event_rules
from app.events import service as event_service
from app.events.models import Event
from app.events.rules import EventStatus
from app.events.schemas import EventUpdate
from app.feed import freeze, projection
from app.flows import event_setup
from app.flows.schemas import EventChanged, ReplayRead

JUDGING_FIELDS = ("opens_at", "closes_at", "hand_ranking")  # what the feed's outcomes rest on
CLOSED = EventStatus.COURSE_CLOSED

T = TypeVar("T")


def _judged_by(event: Event) -> tuple[object, ...]:
    return tuple(getattr(event, field) for field in JUDGING_FIELDS)


def preview(session: Session, work: Callable[[], T]) -> T:
    """Run `work` in a SAVEPOINT and roll it back: its result, nothing stored.

    An error raised by `work` rolls the savepoint back and propagates."""
    savepoint = session.begin_nested()
    try:
        return work()
    finally:
        savepoint.rollback()


def _replay(session: Session, event: Event, actor: str) -> ReplayRead:
    """Replay the feed of `event` (RULES.md I-4) as the window or preset now say; zeros
    when no take is recorded."""
    summary = projection.ReplaySummary()
    if event_setup.has_takes(session, event):
        summary = projection.replay_event(session, event, actor=actor)
    return ReplayRead(**vars(summary))


def _changes_judging(event: Event, data: EventUpdate) -> bool:
    """True when `data` sets a window bound or the ranking preset to a new value."""
    changes = data.model_dump(exclude_unset=True)
    return any(
        field in changes and changes[field] != current
        for field, current in zip(JUDGING_FIELDS, _judged_by(event), strict=True)
    )


def replays(session: Session, event: Event, data: EventUpdate) -> bool:
    """True when applying `data` would replay recorded takes (RULES.md I-4): it changes
    the window or the ranking preset and takes are recorded. A page asks the organiser
    to confirm such a change after showing its preview (`change_event(dry_run=True)`)."""
    return _changes_judging(event, data) and event_setup.has_takes(session, event)


def _answer(
    session: Session, event: Event, replay: ReplayRead | None, dry_run: bool
) -> EventChanged:
    read = event_service.event_read(session, event)
    return EventChanged(**read.model_dump(), replay=replay, dry_run=dry_run)


def change_event(
    session: Session,
    event: Event,
    data: EventUpdate,
    *,
    dry_run: bool = False,
    actor: str = event_service.ORGANISER_ACTOR,
) -> EventChanged:
    """Apply `data` to the event (`event_service.update_event`); when the window
    (`opens_at`, `closes_at`) or `hand_ranking` changes, replay the feed and answer its
    summary in `replay` (RULES.md §1.1: only takes inside the window count; I-4).

    Raises Conflict `feed_closed` (409) for a window or preset change once the ceremony
    has begun, and the problems of `update_event`. With `dry_run` nothing is stored.
    """
    before = _judged_by(event)
    if _changes_judging(event, data):
        freeze.ensure_feed_open(session, event)

    def work() -> EventChanged:
        event_service.update_event(session, event, data, actor=actor)
        replay = _replay(session, event, actor) if _judged_by(event) != before else None
        return _answer(session, event, replay, dry_run)

    return preview(session, work) if dry_run else work()


def _check_course_open(event: Event, now: datetime) -> None:
    """Raise unless the course window is open at `now`: 409 `course_not_opened` before it
    opens (closing would end it before it began: change the window instead), 409
    `course_already_closed` once it has closed. Both name the time in event time."""
    phase = event_rules.course_phase(event.opens_at, event.closes_at, now)
    if phase == event_rules.COURSE_BEFORE:
        raise Conflict(
            f"The course opens at {event_service.zoned_time(event, event.opens_at)}; "
            "it cannot close before it opens (change the window instead).",
            code="course_not_opened",
        )
    if phase == event_rules.COURSE_CLOSED:
        raise Conflict(
            f"The course already closed at {event_service.zoned_time(event, event.closes_at)}.",
            code="course_already_closed",
        )


def _close_now(session: Session, event: Event, now: datetime, actor: str) -> ReplayRead:
    """`closes_at` becomes `now`, the feed is replayed, recorded as `course.close`."""
    freeze.ensure_feed_open(session, event)
    event_service.update_event(session, event, EventUpdate(closes_at=now), actor=actor)
    replay = _replay(session, event, actor)
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="course.close",
        subject=f"event:{event.id}",
        details={"closes_at": now.isoformat(), "replay": replay.model_dump()},
    )
    return replay


def close_course(
    session: Session,
    event: Event,
    *,
    now: datetime | None = None,
    dry_run: bool = False,
    actor: str = event_service.ORGANISER_ACTOR,
) -> EventChanged:
    """Close the course now: `closes_at` becomes the server's clock (`now`, aware UTC;
    only ever earlier than it was), the feed is replayed (takes after `now` stop
    counting, RULES.md §1.1) and the status moves on to `course_closed` when it was
    earlier. Answers the event and the replay summary.

    Raises 409 `course_already_closed` / `course_not_opened` (`_check_course_open`),
    409 `feed_closed`. With `dry_run` nothing is stored.
    """
    auction_repo.lock_event(session, event.id)
    now = now or utcnow()
    _check_course_open(event, now)

    def work() -> EventChanged:
        replay = _close_now(session, event, now, actor)
        if event_rules.is_forward(event.status, CLOSED):
            event_service.change_status(session, event, CLOSED, actor=actor)
        return _answer(session, event, replay, dry_run)

    return preview(session, work) if dry_run else work()


def change_status(
    session: Session,
    event: Event,
    status: str,
    *,
    now: datetime | None = None,
    dry_run: bool = False,
    actor: str = event_service.ORGANISER_ACTOR,
) -> EventChanged:
    """Move the event forward to `status` (`event_service.change_status`). A status from
    `course_closed` on, while the window is open, closes the course now first (with its
    replay summary); before the window opens it is 409 `course_not_opened`. With
    `dry_run` nothing is stored."""
    now = now or utcnow()
    closes = event_rules.status_index(status) >= event_rules.status_index(CLOSED) and (
        event_rules.is_forward(event.status, status)
    )
    if closes:
        auction_repo.lock_event(session, event.id)
        if event_rules.course_phase(event.opens_at, event.closes_at, now) == (
            event_rules.COURSE_BEFORE
        ):
            _check_course_open(event, now)

    def work() -> EventChanged:
        replay = None
        if closes and event_rules.course_phase(event.opens_at, event.closes_at, now) != (
            event_rules.COURSE_CLOSED
        ):
            replay = _close_now(session, event, now, actor)
        event_service.change_status(session, event, status, actor=actor)
        return _answer(session, event, replay, dry_run)

    return preview(session, work) if dry_run else work()
