"""Dependencies that load and authorise event-domain objects for routes.

`token_principal` is the lookup of the participant's access token (kind `participant`),
listed in the composition root's credential table (`app.wiring.credentials`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, TypeVar

import anyio.to_thread
from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.core.deps import SessionDep, database_slots
from app.core.errors import NotFound, Unauthorized
from app.core.principal import Kind, Principal, accepts, resolve
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
    # `participant_of` / `current_participant` should find this one without a query
    session.info.setdefault(_LOOKED_UP, []).append(participant)
    return participant_principal(participant)


_LOOKED_UP = "principal_rows"


def participant_of(session: Session, principal: Principal) -> Participant | None:
    """The participant row of a participant Principal (from the session's identity map:
    the lookup loaded it), else None."""
    if principal.kind is not Kind.PARTICIPANT or principal.participant_id is None:
        return None
    return session.get(Participant, principal.participant_id)


def current_participant(
    principal: Annotated[
        Principal,
        Depends(
            accepts(Kind.PARTICIPANT, detail="The participant access token is missing or wrong.")
        ),
    ],
    session: SessionDep,
) -> Participant:
    """Dependency: the participant of `Authorization: Bearer <access_token>`, else 401."""
    participant = participant_of(session, principal)
    assert participant is not None
    return participant


ParticipantDep = Annotated[Participant, Depends(current_participant)]

T = TypeVar("T")
PARTICIPANT_TOKEN_DETAIL = "The participant access token is missing or wrong."


def _signed_in(request: Request, session: Session) -> Participant:
    """`current_participant` on `session` (one worker thread): the participant of the bearer
    access token, else 401 `unauthorized` (the session is then closed)."""
    try:
        principal = resolve(request, session, (Kind.PARTICIPANT,), ("bearer",))
        participant = participant_of(session, principal)
        if participant is None:
            raise Unauthorized(PARTICIPANT_TOKEN_DETAIL)
        return participant
    except BaseException:
        session.close()
        raise


async def participant_session(request: Request) -> AsyncIterator[tuple[Session, Participant]]:
    """Dependency of a participant's write that costs one worker-thread hop, not five (issue
    24): (a new session, the participant of `Authorization: Bearer <access_token>`), found
    as `ParticipantDep` finds it (401 `unauthorized` otherwise, before the body is read).

    Holds one of the process's database slots (`database_gate`) until the route is done.
    The route ends the transaction itself in its own worker thread (`finish`); whatever
    it left open is closed (rolled back) here."""
    async with database_slots(request.app):
        session = request.app.state.sessionmaker()
        participant = await anyio.to_thread.run_sync(_signed_in, request, session)
        try:
            yield session, participant
        finally:
            if session.in_transaction():
                await anyio.to_thread.run_sync(session.close)


participant_session.kinds = frozenset({Kind.PARTICIPANT})  # type: ignore[attr-defined]  # roles

ParticipantSessionDep = Annotated[
    tuple[Session, Participant], Depends(participant_session, scope="function")
]
"""(session, participant) of a route that commits in its own thread (`finish`)."""


def finish(session: Session, work: Callable[[Session], T]) -> T:
    """`work(session)`, then commit (roll back if it raises) and close the session:
    the route's one worker-thread hop after `participant_session`. Returns what `work`
    returned; raises what it or the commit raised."""
    try:
        answer = work(session)
        session.commit()
        return answer
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


OrganiserOrParticipant = Annotated[
    Principal, Depends(accepts(Kind.ORGANISER, Kind.PARTICIPANT, Kind.PUBLIC))
]
"""The organiser, a participant (own access token) or anybody; a bearer token that is
neither marks the request failed for the sign-in guard (public routes must not let
anyone test tokens unthrottled)."""
