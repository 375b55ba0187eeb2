"""Event setup steps that depend on the feed (events ← feed).

The deck cannot change once takes are recorded (their cards and codes rest on it), and a
participant with takes cannot be deleted (the take log is never deleted). The events
service does the change itself; these flows check the feed first. Routers and pages call
these, never the events service's functions of the same name.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.core.errors import Conflict
from app.events import service as event_service
from app.events.models import Checkpoint, Event, Participant
from app.events.service import ORGANISER_ACTOR, DeckRow, Locate
from app.feed import repository as feed_repo


def has_takes(session: Session, event: Event) -> bool:
    """True once any take of `event` is recorded (the deck is in play)."""
    return feed_repo.event_has_takes(session, event.id)


def ensure_deck_editable(session: Session, event: Event) -> None:
    """Raise Conflict `deck_in_play` (409) once takes are recorded for `event`."""
    if has_takes(session, event):
        raise Conflict(
            "Takes are already recorded for this event; the deck cannot change.",
            code="deck_in_play",
        )


def set_deck(
    session: Session, event: Event, rows: Sequence[DeckRow], locate: Locate
) -> list[Checkpoint]:
    """`event_service.set_deck` while no take is recorded; Conflict `deck_in_play`."""
    ensure_deck_editable(session, event)
    return event_service.set_deck(session, event, rows, locate)


def import_checkpoints_csv(session: Session, event: Event, text: str) -> list[Checkpoint]:
    """`event_service.import_checkpoints_csv` while no take is recorded; Conflict
    `deck_in_play` (before the CSV is read)."""
    ensure_deck_editable(session, event)
    return event_service.import_checkpoints_csv(session, event, text)


def shuffle_deck(
    session: Session, event: Event, seed: int | None, actor: str = ORGANISER_ACTOR
) -> list[Checkpoint]:
    """`event_service.shuffle_deck` while no take is recorded; Conflict `deck_in_play`."""
    ensure_deck_editable(session, event)
    return event_service.shuffle_deck(session, event, seed, actor=actor)


def delete_participant(
    session: Session, event: Event, participant: Participant, actor: str = ORGANISER_ACTOR
) -> None:
    """`event_service.delete_participant` for a participant without takes (audited as
    `actor`); Conflict `participant_has_takes` (409) once any take of theirs is recorded."""
    if feed_repo.participant_has_takes(session, participant.id):
        raise Conflict(
            "The participant has takes recorded and cannot be deleted.",
            code="participant_has_takes",
        )
    event_service.delete_participant(session, event, participant, actor)
