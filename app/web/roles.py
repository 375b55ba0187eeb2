"""Who of the organising team may use which organiser route (issue 29): THE table.

`ROLES` maps every route that accepts the organiser, `(method, path template)`, to the
roles of organiser members it admits (`app.core.members`: owner, judge, desk, ceremony,
screen). The `ADMIN_TOKEN` holder is the owner and passes everywhere; an organiser
member passes only where its role is listed, and on a route with `{event_id}` only for
its own event. `ADMIN_TOKEN_ONLY` (an empty set) marks the service-wide routes (create
or list events, the poker-family games): no member is admitted.

`role_guard` is an app-wide dependency (`create_app`, next to the CSRF guard), so a
route cannot forget it. For a request of a member (`app.core.guard.organiser_member`):

- admitted: the member is the route's organiser (`organiser_caller` returns its
  Principal: `app.core.principal.Principal.actor` names it in the audit log);
- refused on a GET of a route that also serves the public: the member is a visitor
  (it sees what the public sees, nothing more);
- refused otherwise: 403 `role_forbidden` (a problem under `/api/`, else a page),
  before the route runs, so nothing changes.

`tests/web/test_roles.py` enumerates the app's routes and fails when a route that
accepts the organiser is missing here or an entry names a route that is gone.
`PREFIX_ROLES` covers routes that arrive from other work (the hall screen).
docs/roles.md is the table for people.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI, Request, Response

from app.core import guard
from app.core.errors import Forbidden
from app.core.members import CEREMONY, DESK, JUDGE, OWNER, SCREEN, TOKEN_PREFIX, MemberInfo
from app.core.principal import ORGANISER, Kind, Principal
from app.web import sessions
from app.web.common import render

Roles = frozenset[str]

ADMIN_TOKEN_ONLY: Roles = frozenset()
ALL: Roles = frozenset({OWNER, JUDGE, DESK, CEREMONY, SCREEN})
OWN: Roles = frozenset({OWNER})
TEAM: Roles = frozenset({OWNER, JUDGE, DESK, CEREMONY})  # the event's overview
J: Roles = frozenset({OWNER, JUDGE})  # take log, corrections, device clocks, review
D: Roles = frozenset({OWNER, DESK})  # participants, cards, links, the QR sheet
JD: Roles = frozenset({OWNER, JUDGE, DESK})  # participants' pages (read)
C: Roles = frozenset({OWNER, CEREMONY})  # auctions
PROJECTOR: Roles = frozenset({OWNER, CEREMONY, SCREEN})

A = "/admin/events/{event_id}"
E = "/api/v1/events/{event_id}"

ROLES: dict[tuple[str, str], Roles] = {
    # site root and the organiser's start page (a member sees only its own event)
    ("GET", "/"): ALL,
    ("GET", "/admin"): ALL,
    ("GET", "/admin/new-event"): ADMIN_TOKEN_ONLY,
    ("POST", "/admin/new-event"): ADMIN_TOKEN_ONLY,
    # organiser pages of an event
    ("GET", A): TEAM,
    ("GET", f"{A}/live.json"): TEAM,
    ("GET", f"{A}/warnings"): J,
    ("GET", f"{A}/members"): OWN,
    ("POST", f"{A}/members"): OWN,
    ("POST", f"{A}/members/{{member_id}}/revoke"): OWN,
    ("POST", f"{A}/members/{{member_id}}/reissue"): OWN,
    ("GET", f"{A}/keys"): OWN,
    ("POST", f"{A}/keys"): OWN,
    ("POST", f"{A}/keys/{{key_id}}/revoke"): OWN,
    ("GET", f"{A}/settings"): OWN,
    ("POST", f"{A}/hall-screen"): OWN,  # the hall screen public or not
    ("POST", f"{A}/settings"): OWN,
    ("GET", f"{A}/course"): OWN,
    ("POST", f"{A}/course/close"): OWN,
    ("POST", f"{A}/course/status"): OWN,
    ("POST", f"{A}/course/window"): OWN,
    ("GET", f"{A}/iof"): OWN,
    ("POST", f"{A}/iof/course-data"): OWN,
    ("GET", f"{A}/checkpoints"): D,  # its button prints the participants' cards
    ("GET", f"{A}/checkpoints/public"): D,
    ("POST", f"{A}/checkpoints/import"): OWN,
    ("POST", f"{A}/checkpoints/shuffle"): OWN,
    ("POST", f"{A}/checkpoints/{{number}}"): OWN,
    ("GET", f"{A}/print/checkpoints"): D,
    ("GET", f"{A}/participant-cards"): D,
    ("POST", f"{A}/participant-cards"): D,
    ("GET", f"{A}/participants"): JD,
    ("POST", f"{A}/participants"): D,
    ("POST", f"{A}/participants/import"): D,
    ("GET", f"{A}/participants/{{external_id}}"): JD,
    ("POST", f"{A}/participants/{{external_id}}/access-token"): D,
    ("POST", f"{A}/participants/{{external_id}}/delete"): D,
    ("POST", f"{A}/participants/{{external_id}}/takes"): J,
    ("POST", f"{A}/participants/{{external_id}}/void"): J,
    ("GET", f"{A}/review"): J,
    ("POST", f"{A}/review/deadline"): J,
    ("POST", f"{A}/review/{{review_id}}/{{decision}}"): J,
    ("GET", f"{A}/ceremony"): C,
    ("GET", f"{A}/ceremony.json"): C,
    ("POST", f"{A}/auctions/{{place}}/open"): C,
    ("POST", f"{A}/auctions/{{place}}/close"): C,
    ("POST", f"{A}/auctions/{{place}}/reveal"): C,
    ("POST", f"{A}/auctions/{{place}}/bid"): C,
    ("POST", f"{A}/auctions/{{place}}/undo"): C,
    ("GET", f"{A}/projector/{{place}}"): PROJECTOR,
    ("GET", f"{A}/projector/{{place}}/live.json"): PROJECTOR,
    # the API
    ("GET", "/api/v1/events"): ADMIN_TOKEN_ONLY,
    ("POST", "/api/v1/events"): ADMIN_TOKEN_ONLY,
    ("POST", "/api/v1/events/import"): ADMIN_TOKEN_ONLY,
    ("GET", E): TEAM,
    ("PATCH", E): OWN,
    ("POST", f"{E}/status"): OWN,
    ("POST", f"{E}/course/close"): OWN,
    ("GET", f"{E}/archive"): OWN,
    ("POST", f"{E}/rebuild"): OWN,
    ("GET", f"{E}/live"): ALL,  # the screen: the hall screen's and the projector's updates
    ("GET", f"{E}/log/verify"): J,
    ("GET", f"{E}/integration-keys"): OWN,
    ("POST", f"{E}/integration-keys"): OWN,
    ("POST", f"{E}/integration-keys/{{key_id}}/revoke"): OWN,
    ("POST", f"{E}/iof/course-data"): OWN,
    ("GET", f"{E}/iof/entry-list.xml"): OWN,
    ("GET", f"{E}/checkpoints"): D,
    ("PUT", f"{E}/checkpoints"): OWN,
    ("POST", f"{E}/checkpoints/import"): OWN,
    ("POST", f"{E}/checkpoints/shuffle"): OWN,
    ("PATCH", f"{E}/checkpoints/{{number}}"): OWN,
    ("GET", f"{E}/checkpoints/export.csv"): OWN,
    ("GET", f"{E}/checkpoints/{{number}}/qr.png"): D,
    ("GET", f"{E}/checkpoints/{{number}}/qr.svg"): D,
    ("GET", f"{E}/print/checkpoints"): D,
    ("POST", f"{E}/print/participant-cards"): D,
    ("GET", f"{E}/participants"): JD,
    ("POST", f"{E}/participants"): D,
    ("POST", f"{E}/participants/import"): D,
    ("GET", f"{E}/participants/{{external_id}}"): JD,
    ("PATCH", f"{E}/participants/{{external_id}}"): D,
    ("DELETE", f"{E}/participants/{{external_id}}"): D,
    ("POST", f"{E}/participants/{{external_id}}/access-token"): D,
    ("GET", f"{E}/participants/{{external_id}}/state"): JD,
    ("GET", f"{E}/takes"): J,
    ("POST", f"{E}/takes"): J,  # the field feed delivered by hand (`feed_principal`)
    ("POST", f"{E}/takes/import"): J,  # a CSV of takes (`feed_principal`)
    ("POST", f"{E}/takes/manual"): J,
    ("POST", f"{E}/takes/{{take_id}}/void"): J,
    ("GET", f"{E}/corrections"): J,
    ("GET", f"{E}/warnings"): J,
    ("PUT", f"{E}/sources/{{source}}/clock"): J,
    ("GET", f"{E}/auctions"): C,
    ("GET", f"{E}/auctions/{{place}}"): C,
    ("POST", f"{E}/auctions/{{place}}/open"): C,
    ("POST", f"{E}/auctions/{{place}}/close"): C,
    ("POST", f"{E}/auctions/{{place}}/reveal"): C,
    ("POST", f"{E}/auctions/{{place}}/undo"): C,
    ("POST", f"{E}/auctions/{{place}}/bids"): C,
    ("DELETE", f"{E}/auctions/{{place}}/bids/{{bid_id}}"): C,
    ("POST", f"{E}/auctions/{{place}}/rounds/{{number}}/correct"): C,
    # the poker-family games are not an event's: the service's owner alone
    ("GET", "/api/v1/games/{game_id}"): ADMIN_TOKEN_ONLY,
    ("POST", "/api/v1/games/{game_id}/actions"): ADMIN_TOKEN_ONLY,
}

PREFIX_ROLES: dict[tuple[str, str], Roles] = {
    # The hall screen (issue 29 item 2) arrives from other work: every GET under /hall/.
    ("GET", "/hall/"): ALL,
}

ORGANISER_BY_HAND: frozenset[tuple[str, str]] = frozenset(
    {("POST", f"{E}/takes"), ("POST", f"{E}/takes/import")}
)
"""Routes that check the organiser themselves (`app.feed.keys.feed_principal`), not through
`app.core.principal.accepts`: the route enumeration cannot see them."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ADMITTED_FLAG = "organiser_member_admitted"


def roles_of(method: str, path: str) -> Roles | None:
    """The roles `ROLES` (or a `PREFIX_ROLES` prefix) admits to `method path`; None when
    the route is not listed (no member is admitted then). HEAD is its GET."""
    method = "GET" if method == "HEAD" else method
    found = ROLES.get((method, path))
    if found is not None:
        return found
    for (prefix_method, prefix), roles in PREFIX_ROLES.items():
        if method == prefix_method and path.startswith(prefix):
            return roles
    return None


def _calls(dependant: Any) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def organiser_access(route: Any, method: str, path: str) -> tuple[bool, bool]:
    """(the route accepts the organiser, it requires a caller: no public view) of the
    route object as served (its dependency tree: `accepts(...)` marks its kinds; the
    organiser pages' `organiser_page` requires the organiser)."""
    if (method, path) in ORGANISER_BY_HAND:
        return True, True
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return False, False
    kinds: set[Kind] = set()
    page = False
    for call in _calls(dependant):
        kinds |= getattr(call, "kinds", frozenset())
        page = page or getattr(call, "__name__", "") == "organiser_page"
    return Kind.ORGANISER in kinds, page or Kind.PUBLIC not in kinds


_access_cache: dict[tuple[int, str, str], tuple[bool, bool]] = {}


def _access(request: Request, path: str) -> tuple[bool, bool]:
    route = request.scope.get("route")
    key = (id(route), request.method, path)
    if key not in _access_cache:
        _access_cache[key] = organiser_access(route, request.method, path)
    return _access_cache[key]


def admits(member: MemberInfo, method: str, path: str, path_params: dict[str, Any]) -> bool:
    """Whether `member` may use `method path` (its role is listed; on an event's route,
    it is its own event)."""
    roles = roles_of(method, path)
    if roles is None or member.role not in roles:
        return False
    event_id = path_params.get("event_id")
    return event_id is None or str(event_id) == str(member.event_id)


class RoleRefused(Exception):
    """An organiser page refused to a member's role (answered with a 403 page)."""

    def __init__(self, member: MemberInfo) -> None:
        super().__init__(member.role)
        self.member = member


async def role_guard(request: Request) -> None:
    """The app-wide dependency (see the module docstring). Raises `RoleRefused` (pages)
    or 403 `role_forbidden` (API); returns None otherwise."""
    member = guard.organiser_member(request)
    if member is None or _other_credential(request):
        return
    route = request.scope.get("route")
    path = getattr(route, "path", request.url.path)
    accepts_organiser, required = _access(request, path)
    if not accepts_organiser:
        return
    if admits(member, request.method, path, request.path_params):
        setattr(request.state, ADMITTED_FLAG, True)
        return
    if request.method in SAFE_METHODS and not required:
        return  # a visitor here: the route's public view
    if path.startswith("/api/"):
        raise Forbidden(
            f"The {member.role} role may not use {request.method} {path} of this event.",
            code="role_forbidden",
        )
    raise RoleRefused(member)


def _other_credential(request: Request) -> bool:
    """True when the request carries a credential header that is not the member's (a
    participant's or a game's bearer token, an integration key): the header speaks, not
    the member's cookie (a request never mixes two), so the member is not admitted."""
    if request.headers.get("x-integration-key"):
        return True
    _, _, token = request.headers.get("authorization", "").partition(" ")
    return bool(token.strip()) and not token.strip().startswith(TOKEN_PREFIX)


def member_principal(member: MemberInfo) -> Principal:
    """The organiser Principal of an admitted member."""
    return Principal(
        Kind.ORGANISER,
        event_id=member.event_id,
        member_id=member.id,
        member_name=member.name,
        member_role=member.role,
    )


def organiser_caller(request: Request) -> Principal | None:
    """`Credentials.organiser` of `app.wiring` (`app.core.principal.organiser_of`): an admitted
    member's Principal; ORGANISER for the owner's live session; else None."""
    member = guard.organiser_member(request)
    if member is not None:
        return member_principal(member) if getattr(request.state, ADMITTED_FLAG, False) else None
    return ORGANISER if sessions.has_organiser_session(request) else None


def page_can(request: Request, method: str, path: str) -> bool:
    """For templates (`can(...)`): False when the request's organiser member may not use
    `method path` (a template of `ROLES`); True for everybody else (the routes decide)."""
    member = guard.organiser_member(request)
    if member is None:
        return True
    roles = roles_of(method, path)
    return roles is not None and member.role in roles


MEMBER_LINKS = (
    ("{A}", "admin.dashboard"),
    ("{A}/participants", "admin.participants"),
    ("{A}/review", "roles.link.review"),
    ("{A}/checkpoints", "admin.checkpoints"),
    ("{A}/print/checkpoints", "roles.link.qr_sheet"),
    ("{A}/ceremony", "admin.ceremony"),
    ("{A}/projector/{{place}}", "roles.link.projector"),
    ("/hall/{event_id}", "roles.link.hall"),
    ("{A}/members", "roles.members"),
)


def member_links(member: MemberInfo, award_places: int) -> list[tuple[str, str]]:
    """(href, message key) of the pages `member`'s role opens on its event's start page;
    the projector once per awarded place (the key carries the place after `|`)."""
    links: list[tuple[str, str]] = []
    for template, key in MEMBER_LINKS:
        path = template.replace("{A}", A).replace("{{place}}", "{place}")
        roles = roles_of("GET", path) or frozenset()
        if member.role not in roles:
            continue
        href = path.replace("{event_id}", str(member.event_id))
        if "{place}" in href:
            places = range(1, award_places + 1)
            links += [(href.replace("{place}", str(n)), f"{key}|{n}") for n in places]
        else:
            links.append((href, key))
    return links


def install_role_pages(app: FastAPI) -> None:
    """Answer `RoleRefused` with the 403 page (what the role may not do, and a way back)."""

    @app.exception_handler(RoleRefused)
    async def _refused(request: Request, exc: RoleRefused) -> Response:
        context = {"member": exc.member, "home": f"/admin/events/{exc.member.event_id}"}
        return render(request, "admin/role_forbidden.html", context, status=403)


def may(principal: Principal, method: str, path: str) -> bool:
    """For templates: whether `principal` (an organiser) may use `method path` (a
    template of `ROLES`): the owner always; a member when its role is listed."""
    if principal.member_role is None:
        return True
    roles = roles_of(method, path)
    return roles is not None and principal.member_role in roles
