"""CSRF on by default: one check for every unsafe request of the app (issue 23 item 4).

`create_app` installs `csrf_guard` as an app-wide dependency (`FastAPI(dependencies=…)`),
so a route cannot forget it and no route opts in. For every POST, PUT, PATCH and DELETE:

- a page route (not under `/api/`) needs the form's `csrf_token`, tied to the caller's
  session (`app.web.sessions.csrf_valid`; the organiser sign-in form: the anonymous
  cookie's). A stale or forged token is refused before the route runs: a 403 page, or the
  phone's page again (`back_of`), through `CsrfRejected` (`app.web.forms`).
- an API route is exposed only when a cookie authenticates the call (the organiser's
  session cookie is accepted by the API; a participant's phone cookie is sent along):
  then it needs the `X-CSRF-Token` header with the session's token, else 403
  `csrf_failed`. A call that carries its own credential header (`Authorization: Bearer`,
  `X-Integration-Key`) cannot be forged by another site (a browser does not send such
  headers across origins without CORS consent), and is not checked.

`CSRF_EXEMPT` is the one list of routes that skip the check, each with its reason;
`tests/web/test_csrf.py` enumerates the app's routes and fails on an unsafe route that
neither checks CSRF nor appears here.
"""

from __future__ import annotations

from fastapi import Request

from app.core.errors import Forbidden
from app.web import sessions
from app.web.forms import check_csrf

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
API_PREFIX = "/api/"
CSRF_HEADER = "x-csrf-token"
CREDENTIAL_HEADERS = ("authorization", "x-integration-key")
SESSION_COOKIES = (sessions.ORGANISER_COOKIE, sessions.PARTICIPANT_COOKIE)

CSRF_EXEMPT: dict[tuple[str, str], str] = {
    ("POST", "/me/offline/sync"): (
        "the offline phone's queue, sent by its script as JSON: the route refuses a "
        "request whose Origin (or Referer) is not the app's own (`_same_origin`), and a "
        "cross-site form cannot send a JSON body"
    ),
    ("POST", "/games/liars-holdem"): (
        "opens a new table for whoever asks, anonymously: no cookie authenticates it and "
        "the links it makes are shown only in its own response"
    ),
}


def route_path(request: Request) -> str:
    """The path template of the route that answers `request` (`/me/ceremony/{place}/bid`)."""
    route = request.scope.get("route")
    path = getattr(route, "path", None)  # not getattr's default: `request.url` costs a parse
    return path if isinstance(path, str) else request.url.path


def back_of(path: str) -> str | None:
    """Where a refused phone form goes back to (its page), None for the 403 page."""
    if path.startswith("/me/ceremony"):
        return "/me/ceremony"
    if path.startswith("/me"):
        return "/me"
    return None


def cookie_authenticated(request: Request) -> bool:
    """True when a session cookie may authenticate the request: it carries one and no
    credential header of its own."""
    if any(request.headers.get(name) for name in CREDENTIAL_HEADERS):
        return False
    return any(request.cookies.get(name) for name in SESSION_COOKIES)


async def csrf_guard(request: Request) -> None:
    """The app-wide dependency: an unsafe request must prove it comes from the app's own
    page (see the module docstring). Raises `CsrfRejected` (pages) or 403 `csrf_failed`
    (API); returns None for safe methods, exempt routes and API calls with their own
    credential header."""
    if request.method not in UNSAFE_METHODS:
        return
    path = route_path(request)
    if (request.method, path) in CSRF_EXEMPT:
        return
    if path.startswith(API_PREFIX):
        if cookie_authenticated(request) and not sessions.csrf_valid(
            request, request.headers.get(CSRF_HEADER)
        ):
            raise Forbidden(
                "A call authenticated by a session cookie needs the session's CSRF token "
                "in the X-CSRF-Token header (or use a bearer token).",
                code="csrf_failed",
            )
        return
    await check_csrf(request, back_of(path))
