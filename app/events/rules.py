"""Pure rules of event setup: the status machine and the shuffled deal.

No database, no HTTP, no clock; the only randomness is a seeded `random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum

from app.poker.cards import DECK


class EventStatus(StrEnum):
    """An event's status (a `str`: the database and JSON read the values)."""

    DRAFT = "draft"
    COURSE_OPEN = "course_open"
    COURSE_CLOSED = "course_closed"
    CEREMONY = "ceremony"
    FINISHED = "finished"


# The statuses of an event in their order; an event only ever moves forward.
EVENT_STATUSES = tuple(EventStatus)


def status_index(status: str) -> int:
    """Position of `status` in draft → course_open → course_closed → ceremony → finished."""
    return EVENT_STATUSES.index(status)


def is_forward(current: str, target: str) -> bool:
    """True when `target` comes after `current` in the status order (skips allowed).

    The organiser moves an event forward only; going back is never allowed.
    """
    return status_index(target) > status_index(current)


# Where a moment sits in the course window (`course_phase`).
COURSE_BEFORE = "before"
COURSE_OPEN = "open"
COURSE_CLOSED = "closed"


def course_phase(opens_at: datetime, closes_at: datetime, now: datetime) -> str:
    """Where `now` sits in the course window [`opens_at`, `closes_at`) (aware UTC
    datetimes): `COURSE_BEFORE` ("before") while `now < opens_at`, `COURSE_OPEN` ("open")
    while `opens_at <= now < closes_at`, `COURSE_CLOSED` ("closed") from `closes_at` on.
    RULES.md §1.1: the window is half-open, as for takes (a take at `closes_at` does
    not count). The one place this comparison is written; callers pass their clock."""
    if now < opens_at:
        return COURSE_BEFORE
    return COURSE_OPEN if now < closes_at else COURSE_CLOSED


def effective_status(status: str, closes_at: datetime, now: datetime) -> str:
    """The event's status as of `now` (aware UTC datetimes): a stored `course_open`
    reads as `course_closed` once `now` has reached `closes_at`, since the course closes
    by the clock (RULES.md §1.1: no take after the close counts); every other status
    reads as stored. No background job moves the stored status: reads derive it here, and
    the next status write (close now, a status move, the first auction) stores it.
    """
    if status == EventStatus.COURSE_OPEN and now >= closes_at:
        return EventStatus.COURSE_CLOSED
    return status


def deal(seed: int, numbers: Sequence[int]) -> dict[int, str]:
    """The shuffled deck dealt onto CP `numbers`: {number: canonical card code}.

    The 54 cards in sorted canonical order (`sorted(DECK)`, independent of how the
    cards module lists them) are shuffled by `random.Random(seed)`; the i-th CP
    number in ascending order gets the i-th card. Same seed and numbers, same deal.
    Raises ValueError when there are more than 54 numbers or duplicates.
    """
    ordered = sorted(numbers)
    if len(set(ordered)) != len(ordered):
        raise ValueError("CP numbers must be distinct")
    if len(ordered) > len(DECK):
        raise ValueError(f"a deck has {len(DECK)} cards, {len(ordered)} CPs given")
    cards = sorted(DECK)
    random.Random(seed).shuffle(cards)
    return dict(zip(ordered, cards, strict=False))


PARTICIPANT_KINDS = ("person", "team")
MAX_PARTICIPANT_NAME = 200


def participant_name(
    name: str | None, kind: str, given_name: str | None, family_name: str | None
) -> str:
    """The name a participant is shown by (issue 28: the parts kept as they came).

    A person with a given or family name is named "Given Family" (`name` may be left
    out, or must be just that); otherwise `name` is required as it is. A team has no
    name parts. Raises ValueError with the reason.
    """
    if kind == "team" and (given_name or family_name):
        raise ValueError("a team has no given or family name: give its name")
    if given_name or family_name:
        derived = " ".join(part for part in (given_name, family_name) if part)
        if name and name != derived:
            raise ValueError(f"name must be {derived!r} (the given and family name) or left out")
        if len(derived) > MAX_PARTICIPANT_NAME:
            raise ValueError(f"the name is longer than {MAX_PARTICIPANT_NAME} characters")
        return derived
    if not name:
        raise ValueError("give the name, or the given and family name")
    return name
