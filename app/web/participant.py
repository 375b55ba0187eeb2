"""Participant pages (mobile first): sign-in by personal link, my game, CP takes, codes, ceremony.

- `GET /p/{access_token}` signs in (participant cookie) and redirects to `/me`;
- `GET /me` "my game", or how to sign in when there is no cookie;
- `GET /t/{code}` records a take (the page a CP's QR code opens);
- `POST /me/signout`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request, Response

from app.core.deps import SessionDep
from app.events.deps import participant_by_token
from app.events.models import Participant
from app.web import sessions
from app.web.common import render, see_other

router = APIRouter(include_in_schema=False)


def signed_in_participant(request: Request, session: SessionDep) -> Participant | None:
    """The participant of the page's cookie, or None (no cookie, bad signature, deleted)."""
    pid = sessions.participant_id(request)
    return session.get(Participant, pid) if pid is not None else None


def sign_in_help(request: Request, *, status: int = 200, **context: object) -> Response:
    return render(request, "participant/signin.html", dict(context), status=status)


@router.get("/p/{access_token}")
def personal_link(access_token: str, request: Request, session: SessionDep) -> Response:
    """Sign in with the personal link: set the cookie, then show my game (PRG)."""
    participant = participant_by_token(session, access_token)
    if participant is None:
        return sign_in_help(request, status=404, bad_link=True)
    response = see_other("/me")
    sessions.sign_in_participant(request, response, participant.id)
    return response


@router.get("/me")
def my_game(request: Request, session: SessionDep) -> Response:
    """My game: hand, deal and round, the next step, the code form, takes, combinations."""
    participant = signed_in_participant(request, session)
    if participant is None:
        return sign_in_help(request)
    return render(request, "participant/game.html", {"participant": participant})


@router.post("/me/signout")
def sign_out(request: Request, csrf_token: Annotated[str, Form()] = "") -> Response:
    """Forget the participant cookie on this phone."""
    response = see_other("/me")
    if sessions.csrf_valid(request, csrf_token):
        sessions.sign_out_participant(response)
    return response
