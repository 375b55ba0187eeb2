"""The page layer's errors: a mistyped page address is an HTML 404 page (the API keeps
its problems), and who is calling is one Principal (issue 15)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.principal import Kind, Principal
from tests.conftest import ADMIN_TOKEN
from tests.factories import make_event, make_participant
from tests.web.test_signin import admin_login


def assert_html_404(response) -> None:
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "Страница не найдена" in response.text


def test_mistyped_admin_addresses_are_an_html_404_page(client: TestClient, session: Session):
    admin_login(client)
    for path in ("/admin/events", "/admin/events/new", "/admin/events/999", "/admin/nope"):
        assert_html_404(client.get(path))


def test_mistyped_phone_addresses_are_an_html_404_page(client: TestClient, session: Session):
    event = make_event(session)
    person = make_participant(session, event, "101", name="Анна")
    session.commit()
    client.get(f"/p/{person.access_token}")
    for path in ("/me/nope", "/t/", "/me/takes/abc"):
        assert_html_404(client.get(path))


def test_the_api_keeps_its_problems(client: TestClient):
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    for path in ("/api/v1/events/999", "/api/v1/nope"):
        response = client.get(path, headers=headers)
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/problem+json"
    live = client.get("/admin/events/999/live.json", headers=headers)
    assert live.headers["content-type"] == "application/problem+json"


def test_a_principal_is_a_small_frozen_value():
    seat = Principal(Kind.GAME_SEAT, game_id=3, seat=1)
    assert not seat.is_organiser and not seat.is_public
    assert Principal(Kind.ORGANISER).is_organiser
    with pytest.raises(FrozenInstanceError):
        seat.seat = 2  # type: ignore[misc]


def test_one_page_layer_no_pasted_checks():
    """No page route checks the CSRF token by hand, rolls the session back or reads the
    sign-in cookie itself: `app.web.forms` and `app.core.principal` do (issue 15)."""
    web = Path(__file__).resolve().parents[2] / "app" / "web"
    shared = {"forms.py", "sessions.py", "csrf.py"}  # csrf.py: the app-wide check (issue 23)
    for path in web.rglob("*.py"):
        if path.name in shared:
            continue
        text = path.read_text(encoding="utf-8")
        assert ".rollback(" not in text, path
        assert "csrf_valid(" not in text, path
        assert "is_organiser(" not in text, path


def test_a_form_address_opened_with_get_leads_to_its_page(client: TestClient, session: Session):
    """A bookmarked or restored answer to a form (its address is the form's POST route)
    is a redirect to the page it belongs to, not a JSON 405; a bad page query is the
    page without it. The API keeps its 405 problem."""
    event = make_event(session)
    session.commit()
    admin_login(client)
    base = f"/admin/events/{event.id}"
    for path, page in [
        (f"{base}/iof/course-data", f"{base}/iof"),
        (f"{base}/course/close", f"{base}/course"),
        (f"{base}/checkpoints/shuffle", f"{base}/checkpoints"),
        ("/me/code/confirm", "/me"),
        (f"{base}/review?page=abc", f"{base}/review"),
    ]:
        answer = client.get(path, follow_redirects=False)
        assert (answer.status_code, answer.headers.get("location")) == (303, page), path
    api = client.get(f"/api/v1/events/{event.id}/auctions/3/close")
    assert api.status_code == 405
    assert api.headers["content-type"] == "application/problem+json"
