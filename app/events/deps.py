"""Dependencies that load and authorise event-domain objects for routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import select

from app.core import guard
from app.core.deps import SessionDep, bearer_token, is_organiser
from app.core.errors import NotFound, Unauthorized
from app.core.security import hash_token
from app.core.types import PathId
from app.events.models import Event, Participant


def valid_event(event_id: PathId, session: SessionDep) -> Event:
    """The event of the path's `event_id`; 404 problem `event_not_found` when absent."""
    event = session.get(Event, event_id)
    if event is None:
        raise NotFound(f"Event {event_id} does not exist.", code="event_not_found")
    return event


EventDep = Annotated[Event, Depends(valid_event)]


def participant_by_token(session: SessionDep, token: str | None) -> Participant | None:
    """The participant whose access token is `token` (looked up by its hash), or None."""
    if not token:
        return None
    return session.scalar(
        select(Participant).where(Participant.access_token_hash == hash_token(token))
    )


def current_participant(request: Request, session: SessionDep) -> Participant:
    """Dependency: the participant of `Authorization: Bearer <access_token>`, else 401."""
    participant = participant_by_token(session, bearer_token(request))
    if participant is None:
        raise Unauthorized("The participant access token is missing or wrong.")
    return participant


ParticipantDep = Annotated[Participant, Depends(current_participant)]


def organiser_or_public(request: Request, session: SessionDep) -> bool:
    """True for the organiser; False for anyone else (the public view).

    A bearer token that is neither the organiser's nor a participant's counts as a
    failed credential of the caller's address (`app.core.guard`): public endpoints
    must not let anyone test organiser tokens unthrottled.
    """
    if is_organiser(request):
        return True
    token = bearer_token(request)
    if token and participant_by_token(session, token) is None:
        guard.mark_failed(request)
    return False
