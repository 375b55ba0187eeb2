"""Fixtures of the feed tests: an event with the test deck and a few participants."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session

from tests.factories import TestParticipant, cp_code, discard_code, make_event, make_participant

# The seed's window: 12 June 12:00 to 13 June 06:00 Moscow time (UTC+3).
OPENS = datetime(2026, 6, 12, 9, 0, tzinfo=UTC)
CLOSES = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)


@dataclass
class World:
    """Plain values only: touching an expired ORM object in a test would open a
    transaction (on SQLite, the write lock) while the app serves a request."""

    id: int
    alice: TestParticipant
    bob: TestParticipant

    def cp(self, card: str) -> str:
        return f"{cp_code(card)}{self.id}"

    def discard(self, card: str) -> str:
        return discard_code(card)


def at(minutes: float) -> datetime:
    """A field time `minutes` after the course opened."""
    return OPENS + timedelta(minutes=minutes)


@pytest.fixture
def world(session: Session) -> World:
    """An event with the seed's window (in the past: feed tests give `taken_at`)."""
    event = make_event(session, opens_at=OPENS, closes_at=CLOSES)
    alice = make_participant(session, event, "101", "Alice")
    bob = make_participant(session, event, "102", "Bob")
    session.commit()
    return World(event.id, alice, bob)


@pytest.fixture
def open_world(session: Session) -> World:
    """An event open now (for phone scans at the server's clock)."""
    event = make_event(session)
    alice = make_participant(session, event, "201", "Alice")
    bob = make_participant(session, event, "202", "Bob")
    session.commit()
    return World(event.id, alice, bob)


class HeldFirstTransaction:
    """Wraps a group commit's store function (`batching.store`, `batching.store_scans`):
    records each transaction's batch size; the first waits for `release`, so the requests
    sent meanwhile are known to queue behind it (nothing depends on timing). `batch_at`:
    the position of the batch among the store function's arguments."""

    def __init__(self, real: Callable, batch_at: int) -> None:
        self.sizes: list[int] = []
        self.release = threading.Event()
        self.real, self.batch_at = real, batch_at

    def __call__(self, *args):
        self.sizes.append(len(args[self.batch_at]))
        if len(self.sizes) == 1:
            assert self.release.wait(30), "the test never released the first transaction"
        return self.real(*args)
