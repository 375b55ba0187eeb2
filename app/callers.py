"""Who may call a route: every caller type the routes name, in one table (README "From a
token to its Principal, in two steps").

Step 1 of the two: a route's parameter type is one of the names below. Each line of the
table is `Annotated[Principal, Depends(accepts(<kinds>))]`: the kinds the route accepts
(`app.core.principal.accepts`; `Kind.PUBLIC` makes the caller optional), found by
`resolve` from the bearer, key header, `?token=` or cookie (`via`). Step 2: the lookup of
each kind is named in `app/wiring.py` `credentials()`.

A few routes want more than the Principal: the wrappers below the table are one
documented function each over one line of the table (it loads the caller's participant
row, or refuses a page with a redirect), so the kinds are still one hop away.

This module sits between the HTTP layer (`app.api`, `app.web`: both import it) and the
layers below (`package-layers` in pyproject.toml); it imports no page code: the pages'
refusals are the exceptions `SignInNeeded` / `OrganiserSignInNeeded`, which
`app.web.forms` answers with its pages.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.core import guard
from app.core.deps import SessionDep
from app.core.errors import Unauthorized
from app.core.principal import PUBLIC, Kind, Principal, accepts, presented_secret
from app.events.deps import PARTICIPANT_TOKEN_DETAIL, EventDep, participant_of
from app.events.models import Participant

# -- the table: each caller type and the kinds it accepts -----------------------------------

OrganiserDep = Annotated[
    Principal, Depends(accepts(Kind.ORGANISER, detail="The organiser token is missing or wrong."))
]
"""The organiser (the admin token, the owner's page session, or a member its role admits);
else 401."""

OrganiserOrPublic = Annotated[Principal, Depends(accepts(Kind.ORGANISER, Kind.PUBLIC))]
"""The organiser or anybody (no secret looked up): the live stream, the hall screen, the
phone pages' language and theme, the organiser pages' sign-in check (`AdminPage`)."""

OrganiserOrParticipant = Annotated[
    Principal, Depends(accepts(Kind.ORGANISER, Kind.PARTICIPANT, Kind.PUBLIC))
]
"""The organiser, a participant (own access token) or anybody; a bearer token that is
neither marks the request failed for the sign-in guard (public routes must not let
anyone test tokens unthrottled)."""

StateReader = Annotated[
    Principal,
    Depends(
        accepts(
            Kind.ORGANISER,
            Kind.PARTICIPANT,
            detail="The organiser token or the participant's access token is needed.",
        )
    ),
]
"""The organiser or a participant (own access token); else 401 (a participant's state)."""

ParticipantBearer = Annotated[
    Principal, Depends(accepts(Kind.PARTICIPANT, detail=PARTICIPANT_TOKEN_DETAIL))
]
"""A participant by the access token (`Authorization: Bearer`); else 401 (`ParticipantDep`
loads its row)."""

PhoneCaller = Annotated[Principal, Depends(accepts(Kind.PARTICIPANT, Kind.PUBLIC, via=("cookie",)))]
"""The participant of the phone's cookie, or anybody (`PhoneVisitor`, `PhoneParticipant`
load the row)."""

GameCaller = Annotated[
    Principal,
    Depends(
        accepts(
            Kind.ORGANISER,
            Kind.GAME_SEAT,
            Kind.TABLE,
            Kind.PUBLIC,
            via=("bearer", "query"),
            mark_unknown=False,
        )
    ),
]
"""The organiser, a game's table or seat (`Authorization: Bearer` or `?token=`), or anybody;
an unknown token is the route's 401 `invalid_game_token` (`app.games.deps.game_viewer`),
once the game was found."""


# -- wrappers: one function over one line of the table --------------------------------------


class SignInNeeded(Exception):
    """A phone page without a signed-in participant (`app.web.forms` answers with the
    sign-in help)."""


class OrganiserSignInNeeded(Exception):
    """An organiser page without the organiser (`app.web.forms` answers 303 to the sign-in
    page, then back)."""


def participant_row(principal: ParticipantBearer, session: SessionDep) -> Participant:
    """`ParticipantDep`: the participant row of `ParticipantBearer` (401 without one)."""
    participant = participant_of(session, principal)
    assert participant is not None
    return participant


ParticipantDep = Annotated[Participant, Depends(participant_row)]


def event_caller(event: EventDep, principal: OrganiserOrParticipant, request: Request) -> Principal:
    """`EventCaller`: `OrganiserOrParticipant` as the path's event takes it: the organiser,
    a participant of this event (own access token), or PUBLIC (a participant of another
    event is anybody, and counts as a failed credential for `app.core.guard`)."""
    if principal.is_organiser:
        return principal
    if principal.kind is Kind.PARTICIPANT:
        if principal.event_id == event.id:
            return principal
        guard.mark_failed(request)  # a token that matches nobody here (app.core.guard)
    return PUBLIC


EventCaller = Annotated[Principal, Depends(event_caller)]


def organiser_page(principal: OrganiserOrPublic) -> Principal:
    """`AdminPage`: the organiser of `OrganiserOrPublic`, else `OrganiserSignInNeeded` (303
    to `/admin/login?next=<path>`; `app.web.roles` knows the organiser pages by this name)."""
    if not principal.is_organiser:
        raise OrganiserSignInNeeded()
    return principal


AdminPage = Annotated[Principal, Depends(organiser_page)]


def phone_visitor(principal: PhoneCaller, session: SessionDep) -> Participant | None:
    """`PhoneVisitor`: the participant of the phone's cookie (`PhoneCaller`), or None."""
    return participant_of(session, principal)


PhoneVisitor = Annotated[Participant | None, Depends(phone_visitor)]


def phone_participant(principal: PhoneCaller, session: SessionDep) -> Participant:
    """`PhoneParticipant`: the participant of the phone's cookie (`PhoneCaller`), else
    `SignInNeeded` (the page that explains how to sign in)."""
    participant = participant_of(session, principal)
    if participant is None:
        raise SignInNeeded()
    return participant


PhoneParticipant = Annotated[Participant, Depends(phone_participant)]


async def scan_token(request: Request) -> str:
    """`ScanToken`: the kind of `ParticipantBearer` for the phone scan, whose token is
    looked up in its group commit (`app.feed.batching.ScanBatcher`, issue 24): the bearer
    token as presented, not yet checked (no I/O); 401 `unauthorized` when none is
    presented (a wrong one is 401 from the batch, before its body is read)."""
    token = presented_secret(request, ("bearer",))
    if not token:
        raise Unauthorized(PARTICIPANT_TOKEN_DETAIL)
    return token


scan_token.kinds = frozenset({Kind.PARTICIPANT})  # type: ignore[attr-defined]  # roles

ScanToken = Annotated[str, Depends(scan_token)]
"""The participant's access token of the phone scan, looked up in its group commit."""
