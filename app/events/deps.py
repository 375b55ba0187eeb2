"""Dependencies that load and authorise event-domain objects for routes.

`token_principal` is the lookup of the participant's access token (kind `participant`),
listed in the composition root's credential table (`app.wiring.credentials`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated

from fastapi import Depends
from sqlalchemy.orm import Session

from app.core.deps import SessionDep
from app.core.errors import NotFound
from app.core.principal import Kind, Principal
from app.core.security import hash_token
from app.core.types import PathId
from app.events import repository
from app.events.models import Event, Participant


def valid_event(event_id: PathId, session: SessionDep) -> Event:
    """The event of the path's `event_id`; 404 problem `event_not_found` when absent."""
    event = session.get(Event, event_id)
    if event is None:
        raise NotFound(f"Event {event_id} does not exist.", code="event_not_found")
    return event


EventDep = Annotated[Event, Depends(valid_event)]


def participant_by_token(session: Session, token: str | None) -> Participant | None:
    """The participant whose access token is `token` (looked up by its hash), or None."""
    if not token:
        return None
    return repository.participant_by_token_hash(session, hash_token(token))


PARTICIPANT_TOKEN_DETAIL = "The participant access token is missing or wrong."


def participants_by_tokens(session: Session, tokens: Collection[str]) -> dict[str, Participant]:
    """The participants of access tokens, by token (`participant_by_token` for many in one
    query: the phone scans of a group commit, `app.feed.batching`); a token of nobody is
    absent."""
    hashes = {hash_token(token): token for token in tokens if token}
    found = repository.participants_by_token_hashes(session, hashes)
    return {hashes[participant.access_token_hash]: participant for participant in found}


def participant_principal(participant: Participant) -> Principal:
    """The Principal of `participant` (its `actor` is `participant:<external_id>`)."""
    return Principal(
        Kind.PARTICIPANT,
        participant_id=participant.id,
        external_id=participant.external_id,
        event_id=participant.event_id,
    )


def token_principal(session: Session, token: str) -> Principal | None:
    """The participant Principal of an access token, or None (the `participant` lookup of
    `app.wiring.credentials`)."""
    participant = participant_by_token(session, token)
    if participant is None:
        return None
    # held for the request: the session's identity map keeps rows weakly, and the route's
    # `participant_of` (`app.callers`) should find this one without a query
    session.info.setdefault(_LOOKED_UP, []).append(participant)
    return participant_principal(participant)


_LOOKED_UP = "principal_rows"


def participant_of(session: Session, principal: Principal) -> Participant | None:
    """The participant row of a participant Principal (from the session's identity map:
    the lookup loaded it), else None."""
    if principal.kind is not Kind.PARTICIPANT or principal.participant_id is None:
        return None
    return session.get(Participant, principal.participant_id)
