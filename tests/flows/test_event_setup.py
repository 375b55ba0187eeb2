"""Event setup across events and the feed (app.flows.event_setup, flows.course.replays):
the deck and the participants the feed relies on cannot change once takes exist, and a
change replays the feed exactly when it moves the window or the ranking preset."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from app.core.errors import Conflict
from app.events.models import Participant
from app.events.schemas import EventUpdate
from app.feed.models import Take
from app.flows import course, event_setup
from tests.factories import event_cp_code, make_event, make_participant


def _take(session: Session, event, participant_id: int) -> None:
    session.add(
        Take(
            event_id=event.id,
            participant_id=participant_id,
            source="test",
            source_id="1",
            code=event_cp_code(event, "AS"),
            taken_at=event.opens_at,
            recorded_by="test",
        )
    )
    session.flush()


def test_a_change_replays_only_a_new_window_or_preset_once_takes_exist(session: Session):
    event = make_event(session, hand_ranking="seed")
    anna = make_participant(session, event, "1")
    ranking = EventUpdate(hand_ranking="classic")
    same_ranking = EventUpdate(hand_ranking="seed")
    name = EventUpdate(name="Renamed")
    later = EventUpdate(closes_at=event.closes_at.replace(year=event.closes_at.year + 1))
    assert not course.replays(session, event, ranking)  # no take yet
    _take(session, event, anna.id)
    assert event_setup.has_takes(session, event)
    assert course.replays(session, event, ranking)
    assert course.replays(session, event, later)
    assert not course.replays(session, event, same_ranking)
    assert not course.replays(session, event, name)


def test_the_deck_and_a_participant_with_takes_are_locked(session: Session):
    event = make_event(session)
    anna = make_participant(session, event, "1")
    boris = make_participant(session, event, "2")
    _take(session, event, anna.id)
    with pytest.raises(Conflict) as locked:
        event_setup.shuffle_deck(session, event, 7)
    assert locked.value.code == "deck_in_play"
    with pytest.raises(Conflict) as kept:
        event_setup.delete_participant(session, event, session.get(Participant, anna.id))
    assert kept.value.code == "participant_has_takes"
    event_setup.delete_participant(session, event, session.get(Participant, boris.id))
    assert session.get(Participant, boris.id) is None
