"""Organiser pages under `/admin`: sign-in, events, dashboard, checkpoints, participants,
integration keys, ceremony and the projector view.

Every page needs the organiser (session cookie or bearer token); a browser without a
session is sent to `/admin/login`. Every form carries a CSRF token tied to the session.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request, Response

from app.core.deps import SessionDep, SettingsDep, is_organiser
from app.core.security import tokens_equal
from app.web import sessions
from app.web.common import local_path, quoted, redirect_exception, render, see_other

router = APIRouter(prefix="/admin", include_in_schema=False)


def require_organiser_page(request: Request) -> None:
    """Page dependency: the organiser, else a 303 to the sign-in page."""
    if not is_organiser(request):
        raise redirect_exception("/admin/login?next=" + quoted(request.url.path))


def check_csrf(request: Request, token: str) -> None:
    """403 page unless `token` is this session's CSRF token."""
    if not sessions.csrf_valid(request, token):
        raise CsrfRejected()


class CsrfRejected(Exception):
    """A form without a valid CSRF token (rendered as a 403 page by the routes)."""


AdminPage = Annotated[None, Depends(require_organiser_page)]
CsrfField = Annotated[str, Form()]


@router.get("/login")
def login_form(request: Request, next: str | None = None, error: str | None = None) -> Response:
    """The organiser sign-in form (a token field)."""
    token, new_nonce = sessions.anonymous_csrf(request)
    context = {"next": local_path(next, "/admin"), "error": error, "login_csrf": token}
    response = render(request, "admin/login.html", context, status=401 if error else 200)
    if new_nonce:
        sessions.set_anonymous_nonce(request, response, new_nonce)
    return response


@router.post("/login")
def login(
    request: Request,
    settings: SettingsDep,
    token: Annotated[str, Form()] = "",
    csrf_token: CsrfField = "",
    next: Annotated[str, Form()] = "/admin",
) -> Response:
    """Check the organiser token and start a session (303 to `next`)."""
    target = local_path(next, "/admin")
    if not sessions.csrf_valid(request, csrf_token):
        return render(request, "admin/csrf.html", status=403)
    if not tokens_equal(token.strip(), settings.admin_token):
        return see_other("/admin/login?error=1&next=" + quoted(target))
    response = see_other(target)
    sessions.sign_in_organiser(request, response)
    return response


@router.post("/logout")
def logout(request: Request, csrf_token: CsrfField = "") -> Response:
    """End the organiser session."""
    if not sessions.csrf_valid(request, csrf_token):
        return render(request, "admin/csrf.html", status=403)
    response = see_other("/admin/login")
    sessions.sign_out_organiser(response)
    return response


@router.get("")
def events_page(request: Request, session: SessionDep, _: AdminPage) -> Response:
    """The events of this service, each linking to its dashboard."""
    from sqlalchemy import select

    from app.events.models import Event

    events = session.scalars(select(Event).order_by(Event.opens_at.desc())).all()
    return render(request, "admin/events.html", {"events": events})
