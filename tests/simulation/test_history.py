"""The demo event's simulated history (what `make run` shows a newcomer)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from app.cli import load_demo_if_empty
from app.feed.models import Take
from app.simulation.history import simulate_history
from tests.factories import make_event, make_participant


def test_history_plays_the_event_up_to_now(settings, session) -> None:
    now = datetime.now(UTC)
    event = make_event(session, opens_at=now - timedelta(hours=2))
    demo = [make_participant(session, event, external_id) for external_id in ("101", "102")]
    session.commit()
    people = [
        {
            "external_id": p.external_id,
            "name": f"Demo {p.external_id}",
            "save_codes": p.save_codes,
            "access_token": p.access_token,
        }
        for p in demo
    ]
    line = simulate_history(settings, event.id, people, extra_participants=2, now=now)

    takes = session.scalars(select(Take).where(Take.event_id == event.id)).all()
    assert takes, "a two-hour history has takes"
    assert all(take.taken_at <= now for take in takes)  # nothing from the future
    by_participant = session.execute(
        select(Take.participant_id, func.count())
        .where(Take.event_id == event.id)
        .group_by(Take.participant_id)
    ).all()
    assert {row[0] for row in by_participant} >= {p.id for p in demo}
    assert f"{len(takes)} takes by 4 participants" in line


def test_make_run_demo_comes_with_a_history(settings, session) -> None:
    text = load_demo_if_empty(settings)
    assert text is not None and "Simulated history:" in text
    stored = session.scalar(select(func.count()).select_from(Take))
    assert stored > 0  # the demo course opened an hour ago: the log is not empty
    assert f"Simulated history: {stored} takes by 12 participants" in text
