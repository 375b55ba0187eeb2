"""Bounded trust in phone times (RULES.md I-22): device contacts, the review list, the
sync deadline.

A phone's `taken_at` and its batch's `sent_at` are evidence from a device the participant
controls. The service keeps what it learns of each device's clock at every contact
(`device_contact`: a bundle fetch with the phone's clock, a sync with its `sent_at`), and
lists for the organiser (`take_review`) every stored phone take whose time it cannot
corroborate:

- `late_arrival`: the take arrived after the close with a (corrected) time before it;
- `offset_jump`: the batch's clock offset differs from an earlier contact's offset of the
  device by more than `jump` (PHONE_CLOCK_JUMP_SECONDS);
- `large_correction`: the batch's clock offset is larger than `bound`
  (PHONE_CLOCK_REVIEW_SECONDS), whether or not the feed corrected it (more than 7 days is
  never corrected, `app.feed.ingest.clock_offset`).

A listed take counts as the rules say; the organiser accepts it (nothing changes) or
voids it (`ingest.void_take`); both are logged (audit). The organiser's sync deadline
(`sync_deadline`, a log) stops phone batches received after it from storing anything new.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.core import audit
from app.core.db import utcnow
from app.core.errors import Conflict, NotFound, Unprocessable
from app.events.models import Event, Participant
from app.feed import ingest as feed_ingest
from app.feed.models import DeviceContact, SyncDeadline, Take, TakeOutcome, TakeReview
from app.flows import repository

REVIEW_PAGE_SIZE = 50
DECISIONS = ("accepted", "voided")


@dataclass(frozen=True)
class TrustLimits:
    """`jump`: how far a device's offset may move between contacts; `bound`: the largest
    offset not listed (both from the settings)."""

    jump: timedelta = timedelta(seconds=300)
    bound: timedelta = timedelta(hours=2)


def review_reasons(
    *,
    received_at: datetime,
    closes_at: datetime,
    taken_at: datetime,
    offset: timedelta | None,
    previous: timedelta | None,
    limits: TrustLimits,
) -> list[str]:
    """Why a stored phone take goes to review (empty: it does not). Pure.

    `received_at` (server clock), `closes_at`, `taken_at` (as stored, i.e. corrected):
    aware UTC; `offset`: the batch's `received_at − sent_at` (None: no `sent_at`);
    `previous`: the earlier offset of the device farthest from `offset`
    (`farthest_offset`; None: no contact with a clock). RULES.md I-22.
    """
    reasons = []
    if received_at >= closes_at and taken_at < closes_at:
        reasons.append("late_arrival")
    if offset is not None and previous is not None and abs(offset - previous) > limits.jump:
        reasons.append("offset_jump")
    if offset is not None and abs(offset) > limits.bound:
        reasons.append("large_correction")
    return reasons


def farthest_offset(
    session: Session, event_id: int, source: str, offset: timedelta | None
) -> timedelta | None:
    """Of the device's earlier contacts that carried its clock, the offset farthest from
    `offset` (the batch's): the jump is measured against every earlier contact, so a
    forged contact cannot quietly move the baseline. None: no such contact, or no
    `offset`. Two aggregates on `ix_device_contact_event_id_source_id`."""
    if offset is None:
        return None
    low, high = repository.contact_offset_range(session, event_id, source)
    if low is None or high is None:
        return None
    seconds = offset.total_seconds()
    return timedelta(seconds=low if abs(seconds - low) >= abs(seconds - high) else high)


def record_contact(
    session: Session,
    participant: Participant,
    source: str,
    kind: str,
    *,
    received_at: datetime,
    device_at: datetime | None,
    takes: int = 0,
) -> DeviceContact:
    """Log a contact of the device `source` (`phone-p<id>-<device>`): `kind` `bundle` or
    `sync`, the server's and the device's clocks (aware UTC; `device_at` None: not sent)."""
    offset = None if device_at is None else (received_at - device_at).total_seconds()
    row = DeviceContact(
        event_id=participant.event_id, participant_id=participant.id, source=source,
        kind=kind, received_at=received_at, device_at=device_at, offset_seconds=offset,
        takes=takes,
    )  # fmt: skip
    session.add(row)
    session.flush()
    return row


def review_batch(
    session: Session,
    event: Event,
    take_ids: Sequence[int],
    *,
    received_at: datetime,
    offset: timedelta | None,
    previous: timedelta | None,
    limits: TrustLimits,
) -> int:
    """List the takes of one stored phone batch that `review_reasons` finds doubtful;
    returns how many were listed."""
    if not take_ids:
        return 0
    rows = repository.take_times(session, take_ids)
    listed = 0
    for take_id, taken_at, device_taken_at in rows:
        reasons = review_reasons(
            received_at=received_at, closes_at=event.closes_at, taken_at=taken_at,
            offset=offset, previous=previous, limits=limits,
        )  # fmt: skip
        if not reasons:
            continue
        details = {
            "offset_seconds": None if offset is None else offset.total_seconds(),
            "previous_offset_seconds": None if previous is None else previous.total_seconds(),
            "device_taken_at": (device_taken_at or taken_at).isoformat(),
        }
        session.add(TakeReview(event_id=event.id, take_id=take_id, reasons=reasons,
                               details=details, created_at=received_at))  # fmt: skip
        listed += 1
    session.flush()
    return listed


# -- the sync deadline -------------------------------------------------------------------------


def sync_deadline(session: Session, event_id: int) -> datetime | None:
    """The event's current sync deadline (the latest `sync_deadline` row; None: none)."""
    return repository.latest_sync_deadline(session, event_id)


def set_sync_deadline(
    session: Session, event: Event, deadline: datetime | None, *, actor: str
) -> None:
    """Set (None: clear) the sync deadline. It must be after the close (422
    `deadline_before_close`): before it, takes must still arrive."""
    if deadline is not None and deadline <= event.closes_at:
        raise Unprocessable(
            "The sync deadline must be after the close of the course.",
            code="deadline_before_close",
        )
    session.add(SyncDeadline(event_id=event.id, deadline=deadline, set_by=actor, set_at=utcnow()))
    audit.record(
        session, event_id=event.id, actor=actor, action="feed.sync_deadline_set",
        details={"deadline": deadline.isoformat() if deadline else None},
    )  # fmt: skip


# -- the organiser's review list ---------------------------------------------------------------


def open_count(session: Session, event_id: int) -> int:
    """How many listed takes wait for the organiser's decision (one indexed count)."""
    return repository.open_review_count(session, event_id)


def review_page(session: Session, event: Event, page: int) -> tuple[list[dict[str, Any]], int]:
    """One page (REVIEW_PAGE_SIZE, from 1) of the review list, undecided first, then by
    id; and the total. Each item: `id`, `take_id`, `participant` (external id), `name`,
    `number` (CP number, None for other codes), `card`, `kind`, `outcome`, `reason`,
    `taken_at`, `received_at`, `reasons`, `details`, `decision`, `decided_by`."""
    total = repository.review_count(session, event.id)
    rows = repository.review_rows(
        session, event.id, limit=REVIEW_PAGE_SIZE, offset=(max(page, 1) - 1) * REVIEW_PAGE_SIZE
    )
    return [_review_item(*row) for row in rows], total


def _review_item(
    review: TakeReview,
    take: Take,
    external_id: str,
    name: str,
    outcome: TakeOutcome | None,
    number: int | None,
) -> dict[str, Any]:
    """One row of `review_page`."""
    return {
        "id": review.id, "take_id": take.id, "participant": external_id, "name": name,
        "number": number, "card": outcome.card if outcome else None,
        "kind": outcome.kind if outcome else None,
        "outcome": outcome.outcome if outcome else None,
        "reason": outcome.reason if outcome else None,
        "taken_at": take.taken_at, "received_at": take.received_at,
        "source": take.source, "reasons": review.reasons, "details": review.details,
        "decision": review.decision, "decided_by": review.decided_by,
    }  # fmt: skip


def decide(session: Session, event: Event, review_id: int, decision: str, *, actor: str) -> None:
    """The organiser's decision on a listed take: `accepted` (it keeps counting as the
    rules say) or `voided` (`ingest.void_take`: a `take_void` row, the participant
    replayed). Logged in the audit log. 404 `review_not_found`; 409 `review_decided`;
    422 `bad_decision`; `void_take`'s errors (409 `feed_closed`, `take_already_voided`)."""
    review = session.get(TakeReview, review_id)
    if review is None or review.event_id != event.id:
        raise NotFound(f"No review item {review_id} in this event.", code="review_not_found")
    if decision not in DECISIONS:
        raise Unprocessable("Accept or void.", code="bad_decision")
    if review.decision is not None:
        raise Conflict(f"Review item {review_id} is already {review.decision}.",
                       code="review_decided")  # fmt: skip
    if decision == "voided":
        reasons = ", ".join(review.reasons)
        feed_ingest.void_take(session, event, review.take_id, f"review: {reasons}", actor=actor)
    review.decision, review.decided_by, review.decided_at = decision, actor, utcnow()
    audit.record(
        session, event_id=event.id, actor=actor, action=f"feed.review_{decision}",
        subject=f"take:{review.take_id}", details={"reasons": review.reasons},
    )  # fmt: skip
