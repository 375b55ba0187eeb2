"""CSRF on by default (issue 23 item 4; README "Security").

Every unsafe route of the app is checked by the one app-wide guard (`app.web.csrf`)
unless `CSRF_EXEMPT` names it with a reason: the tests enumerate the app's routes, so a
new route is covered, or fails here, without anybody remembering to opt in.
"""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.feed.models import Take
from app.web.csrf import CSRF_EXEMPT, UNSAFE_METHODS, back_of, csrf_guard
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.test_signin import admin_login, csrf_of

FORGED = "forged-token"
FILL = {"action": "open"}  # other path parameters: "1" (the guard runs before the route)


def unsafe_routes(app: FastAPI) -> list[tuple[str, str, object]]:
    """(method, path template, route as the app serves it) of every POST/PUT/PATCH/DELETE
    route. The served route carries the app-wide dependencies (FastAPI keeps it as the
    context's `_effective_route`; `route` is the router's own, without them)."""
    found = []
    for context in iter_route_contexts(app.routes):
        served = getattr(context, "_effective_route", context.route)
        for method in sorted((context.methods or set()) & UNSAFE_METHODS):
            found.append((method, context.path, served))
    return found


def url_of(path: str) -> str:
    return re.sub(r"{(\w+)}", lambda m: FILL.get(m.group(1), "1"), path)


def calls(dependant) -> set:
    """Every callable of a route's dependency tree."""
    out = set()
    for sub in dependant.dependencies:
        out.add(sub.call)
        out |= calls(sub)
    return out


def is_refused(response, path: str) -> bool:
    """The guard's refusal: the 403 page, or (a phone form) 303 back to its page with
    nothing else done (no cookie set)."""
    if response.status_code == 403 and "Форма устарела" in response.text:
        return True
    return (
        response.status_code == 303
        and response.headers["location"] == back_of(path)
        and "set-cookie" not in response.headers
    )


def test_every_unsafe_route_checks_csrf_or_is_exempt_with_a_reason(app: FastAPI) -> None:
    routes = unsafe_routes(app)
    assert len(routes) > 60  # the app's routes, found
    keys = {(method, path) for method, path, _ in routes}
    assert set(CSRF_EXEMPT) <= keys, "an exemption names a route that is gone"
    assert all(len(reason) > 40 for reason in CSRF_EXEMPT.values())
    for method, path, route in routes:
        assert csrf_guard in calls(route.dependant), f"{method} {path} skips the CSRF guard"


def test_every_unsafe_page_route_refuses_a_forged_token(client: TestClient) -> None:
    """Signed in as the organiser (a live session cookie), a form with a forged token is
    refused by every page route but the exempt ones, before the route runs."""
    admin_login(client)
    pages = [
        (method, path)
        for method, path, _ in unsafe_routes(client.app)
        if not path.startswith("/api/") and (method, path) not in CSRF_EXEMPT
    ]
    assert len(pages) >= 25
    unchecked = []
    for method, path in pages:
        response = client.request(
            method, url_of(path), data={"csrf_token": FORGED}, follow_redirects=False
        )
        if not is_refused(response, path):
            unchecked.append(f"{method} {path}: {response.status_code}")
    assert unchecked == []
    # still signed in: none of them ran (a logout would have ended the session)
    assert client.get("/admin", follow_redirects=False).status_code == 200


def test_the_api_checks_csrf_only_for_a_cookie_authenticated_call(
    client: TestClient, admin: dict[str, str]
) -> None:
    """The organiser's cookie also authenticates the API: such a call needs the session's
    token in `X-CSRF-Token`; a bearer call carries its own credential and is not checked."""
    admin_login(client)
    token = csrf_of(client.get("/admin/new-event").text)
    api = [(m, p) for m, p, _ in unsafe_routes(client.app) if p.startswith("/api/")]
    assert len(api) >= 30
    for method, path in api:
        url = url_of(path)
        cookie_only = client.request(method, url, json={})
        assert cookie_only.status_code == 403, (method, path, cookie_only.text)
        assert cookie_only.json()["code"] == "csrf_failed"
        for headers in ({"X-CSRF-Token": token}, admin):
            answered = client.request(method, url, json={}, headers=headers)
            problem = answered.json() if "json" in answered.headers["content-type"] else {}
            assert problem.get("code") != "csrf_failed", (method, path, headers)
    assert (
        client.post(url_of("/api/v1/events/{event_id}/course/close"), headers=admin).json()["code"]
        == "event_not_found"
    )


def test_the_take_by_hand_form_refuses_a_forged_token(client: TestClient, session: Session) -> None:
    """The hole of issue 23: `POST …/participants/{external_id}/takes` stored a take sent
    with a forged token. Now it is refused and stores nothing; the page's own token works."""
    event = make_event(session)
    person = make_participant(session, event, "101")
    event_id, code = event.id, event_cp_code(event, "QS")
    session.commit()
    admin_login(client)
    page = client.get(f"/admin/events/{event_id}/participants/101")
    form = {"code": code, "taken_at": "2026-06-12T12:30", "note": "paper card"}
    url = f"/admin/events/{event_id}/participants/101/takes"

    forged = client.post(url, data={**form, "csrf_token": FORGED}, follow_redirects=False)
    assert forged.status_code == 403
    assert "Форма устарела" in forged.text
    takes = select(func.count()).select_from(Take).where(Take.participant_id == person.id)
    assert session.scalar(takes) == 0
    session.rollback()

    missing = client.post(url, data=form, follow_redirects=False)
    assert missing.status_code == 403
    assert session.scalar(takes) == 0
    session.rollback()

    real = client.post(url, data={**form, "csrf_token": csrf_of(page.text)}, follow_redirects=False)
    assert real.status_code == 303
    assert session.scalar(takes) == 1
    session.rollback()
