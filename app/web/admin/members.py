"""The organising team of an event (issue 29): `/admin/events/{id}/members`, and the
member's sign-in link `/o/{token}`.

The owner (the `ADMIN_TOKEN` holder, or an owner member of the event) creates members
(name, role), revokes them and re-issues their links; a new link is shown once (a
short-lived flash cookie, as a new integration key). Revoking or re-issuing deletes the
member's session rows (`app.core.guard.end_member_sessions`): the old cookies stop
working in every process. Each change is in the audit log (`member.create`,
`member.revoke`, `member.reissue`), naming who did it. The event's integration keys are
shown on the same page (managed as before, `app.web.admin.pages`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, Form, Request, Response

from app.callers import AdminPage
from app.core import guard
from app.core.deps import SessionDep, SettingsDep
from app.core.errors import NotFound, Unprocessable
from app.core.members import ROLES, OrganiserMember, member_by_token
from app.core.types import PathId
from app.events import service as events_service
from app.events.deps import EventDep
from app.events.models import Event
from app.feed import keys as key_service
from app.flows import team
from app.web import sessions
from app.web.common import render, see_other
from app.web.forms import PageRedirect, done, outcome

router = APIRouter(include_in_schema=False)
LINK_FLASH_COOKIE = "rp_new_member_link"


def members_url(event: Event) -> str:
    return f"/admin/events/{event.id}/members"


@contextmanager
def _back_to_team(event: Event) -> Iterator[None]:
    """No live member of that id: back to the team page saying so (`member_not_found`)."""
    try:
        yield
    except NotFound as error:
        raise PageRedirect(members_url(event), code=error.code) from error


def _show_once(request: Request, url: str, member: OrganiserMember, link: str) -> Response:
    """Redirect to the team page, which shows `link` once, naming whose it is (the flash
    carries `"{member id} {link}"`)."""
    response = see_other(url)
    sessions.set_flash(request, response, LINK_FLASH_COOKIE, f"{member.id} {link}", path="/admin")
    return response


def _new_link(
    request: Request, members: Sequence[OrganiserMember]
) -> tuple[OrganiserMember, str] | None:
    """The member and link of the flash, if it is valid and names one of `members`."""
    raw = request.cookies.get(LINK_FLASH_COOKIE)
    value = sessions.read_flash(request, raw, LINK_FLASH_COOKIE) if raw else None
    member_id, _, link = (value or "").partition(" ")
    found = [member for member in members if str(member.id) == member_id]
    return (found[0], link) if found and link else None


@router.get("/admin/events/{event_id}/members")
def members_page(event: EventDep, request: Request, session: SessionDep, _: AdminPage) -> Response:
    """The team (members with role, created and revoked times) and the integration keys;
    a link just created or re-issued is shown once."""
    raw = request.cookies.get(LINK_FLASH_COOKIE)
    members = team.members_of(session, event)
    context = {
        "event": event,
        "section": "members",
        "members": members,
        "roles": ROLES,
        "new_link": _new_link(request, members),
        "keys": key_service.list_keys(session, event),
        "new_key": None,
        "local": lambda moment: events_service.local_time(event, moment),
        **outcome(request),
    }
    response = render(request, "admin/members.html", context)
    if raw:
        response.delete_cookie(LINK_FLASH_COOKIE, path="/admin")
    return response


@router.post("/admin/events/{event_id}/members")
def add_member(
    event: EventDep,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    caller: AdminPage,
    name: Annotated[str, Form(max_length=200)] = "",
    role: Annotated[str, Form(max_length=20)] = "",
) -> Response:
    """Create a member; its personal link is shown once on the page after the redirect."""
    url = members_url(event)
    try:
        member, token = team.add(session, event, name, role, caller)
    except Unprocessable as error:
        raise PageRedirect(url, code=error.code, values={"name": name}) from error
    return _show_once(request, url, member, f"{settings.base_url.rstrip('/')}/o/{token}")


@router.post("/admin/events/{event_id}/members/{member_id}/revoke")
def revoke_member(
    event: EventDep, member_id: PathId, session: SessionDep, caller: AdminPage
) -> Response:
    """Revoke a member: its link and every session it signed in end at once."""
    with _back_to_team(event):
        team.revoke(session, event, member_id, caller)
    return done(members_url(event), "member_revoked")


@router.post("/admin/events/{event_id}/members/{member_id}/reissue")
def reissue_member(
    event: EventDep,
    member_id: PathId,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    caller: AdminPage,
) -> Response:
    """A new personal link for a member (shown once); the old link and its sessions end."""
    with _back_to_team(event):
        member, token = team.reissue(session, event, member_id, caller)
    url = members_url(event)
    return _show_once(request, url, member, f"{settings.base_url.rstrip('/')}/o/{token}")


@router.get("/o/{token}")
def member_link(token: str, request: Request, session: SessionDep) -> Response:
    """Sign in with a member's personal link: an organiser session bound to the member
    (303 to the event's start page for its role); an unknown or revoked link is a failed
    sign-in of this address (`app.core.guard`) and the sign-in page, saying the link no
    longer works (`?error=link`: the member holds no token to type)."""
    member = member_by_token(session, token)
    if member is None:
        guard.mark_failed(request)
        return see_other("/admin/login?error=link")
    sid = guard.start_session(session, max_age=sessions.ORGANISER_MAX_AGE, member_id=member.id)
    response = see_other("/admin")
    sessions.sign_in_organiser(request, response, sid)
    return response
