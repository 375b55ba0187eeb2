"""The demo event's simulated history (what `make run` shows a newcomer)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.cli import load_demo_if_empty
from app.events.models import Event, Participant
from app.feed.models import Combination, ParticipantState, Take, TakeOutcome
from app.simulation.history import OFFLINE_FOR, simulate_history
from tests.factories import TestParticipant, make_event, make_participant


def _people(demo: list[TestParticipant]) -> list[dict[str, object]]:
    return [
        {
            "external_id": p.external_id,
            "name": f"Demo {p.external_id}",
            "save_codes": p.save_codes,
            "access_token": p.access_token,
        }
        for p in demo
    ]


def _played(session: Session, event_id: int) -> dict[str, list[tuple]]:
    """Each participant's takes as the rules saw them, in field-time order (no codes)."""
    rows = session.execute(
        select(
            Participant.external_id,
            Take.taken_at,
            TakeOutcome.kind,
            TakeOutcome.outcome,
            TakeOutcome.reason,
            TakeOutcome.card,
        )
        .join(Take, Take.participant_id == Participant.id)
        .join(TakeOutcome, TakeOutcome.take_id == Take.id)
        .where(Take.event_id == event_id)
        .order_by(Participant.external_id, Take.taken_at, Take.id)
    ).all()
    played: dict[str, list[tuple]] = {}
    for external_id, *take in rows:
        played.setdefault(external_id, []).append(tuple(take))
    return played


def test_history_plays_the_event_up_to_now(settings, session) -> None:
    now = datetime.now(UTC)
    event = make_event(session, opens_at=now - timedelta(hours=4))
    demo = [make_participant(session, event, external_id) for external_id in ("101", "102")]
    session.commit()
    history = simulate_history(settings, event.id, _people(demo), extra_participants=2, now=now)

    takes = session.scalars(select(Take).where(Take.event_id == event.id)).all()
    assert takes, "a four-hour history has takes"
    assert all(take.taken_at <= now for take in takes)  # nothing from the future
    by_participant = session.execute(
        select(Take.participant_id, func.count())
        .where(Take.event_id == event.id)
        .group_by(Take.participant_id)
    ).all()
    assert {row[0] for row in by_participant} >= {p.id for p in demo}
    assert history.participants == 4
    assert history.sent == len(takes)
    assert f"{len(takes)} takes by 4 participants" in history.line
    # One device has been out of coverage for the last OFFLINE_FOR: what it recorded
    # since then waits on it, and the service has nothing of that participant since.
    assert history.backlog, "a device still holds unsent takes"
    offline = next(iter(history.backlog))
    last = session.scalar(
        select(func.max(Take.taken_at))
        .join(Participant, Participant.id == Take.participant_id)
        .where(Take.event_id == event.id, Participant.external_id == offline)
    )
    assert last is not None and last <= now - OFFLINE_FOR


def test_the_same_event_and_clock_give_the_same_history(settings, session) -> None:
    now = datetime.now(UTC)
    played = []
    for _ in range(2):  # two events with the same deck and CP places
        event = make_event(session, opens_at=now - timedelta(hours=3))
        session.commit()
        history = simulate_history(settings, event.id, [], extra_participants=4, now=now)
        played.append((history.sent, history.backlog, _played(session, event.id)))
        session.rollback()  # end the read transaction (SQLite: it holds the write lock)
    assert played[0][0] > 0
    assert played[0] == played[1]


def test_make_run_demo_is_a_living_event(settings, session) -> None:
    """The history `make run` plays on its demo event shows every part of the game."""
    text = load_demo_if_empty(settings)
    assert text is not None
    event_id = session.scalar(select(Event.id))
    line = text.splitlines()[-1]
    stored = session.scalar(select(func.count()).select_from(Take))
    assert f"Simulated history: {stored} takes by 12 participants since the opening" in line
    assert stored >= 150  # hours of play, not one (it was 46)

    # At least one device is offline now, with takes it has not sent.
    waiting = re.search(r"\((\d+) more waiting on (\d+) offline devices?\)", line)
    assert waiting is not None, line
    assert int(waiting[1]) >= 1 and int(waiting[2]) >= 1

    # Saved combinations of at least two categories.
    categories = session.scalars(
        select(Combination.category).where(Combination.event_id == event_id)
    ).all()
    assert len(categories) >= 5
    assert len(set(categories)) >= 2

    outcomes = session.execute(
        select(TakeOutcome.kind, TakeOutcome.outcome, TakeOutcome.reason)
        .join(Take, Take.id == TakeOutcome.take_id)
        .where(Take.event_id == event_id)
    ).all()
    assert sum(1 for kind, outcome, _ in outcomes if (kind, outcome) == ("discard", "counted")) >= 1
    reasons = {reason for _, outcome, reason in outcomes if outcome == "rejected"}
    assert {"duplicate", "unknown_code"} <= reasons
    assert len(reasons) >= 3  # and at least one more (hand_full, outside_course_hours, …)

    # Participants at different stages: their hands are not all drawn from the same
    # few cards, and some have saved more deals than others.
    states = session.scalars(
        select(ParticipantState.state).where(ParticipantState.event_id == event_id)
    ).all()
    in_hands = {card for state in states for card in state["hand"]}
    assert len(in_hands) >= 10
    per_participant = session.execute(
        select(Combination.participant_id, func.count())
        .where(Combination.event_id == event_id)
        .group_by(Combination.participant_id)
    ).all()
    assert len({count for _, count in per_participant}) >= 2
