"""Printing safely (issue 26 point 7): the print pages and the dashboard warn when BASE_URL
cannot be opened by a phone in the field; production refuses such a BASE_URL; a re-print
of participant cards keeps their links unless the organiser asks for new ones."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy.orm import Session

from app.core.config import Settings, base_url_problems
from app.main import create_app
from tests.conftest import make_settings
from tests.factories import make_event, make_participant
from tests.web.test_signin import admin_login, csrf_of


@pytest.mark.parametrize(
    ("url", "problems"),
    [
        ("http://127.0.0.1:8000", ["loopback", "http"]),
        ("http://localhost:8000", ["loopback", "http"]),
        ("https://[::1]", ["loopback"]),
        ("http://192.168.1.20:8000", ["private", "http"]),
        ("https://10.0.0.5", ["private"]),
        ("https://poker.local", ["private"]),
        ("http://poker.example.org", ["http"]),
        ("https://poker.example.org", []),
    ],
)
def test_base_url_problems(url: str, problems: list[str]):
    assert base_url_problems(url) == problems


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://poker.example.org",
                                 "http://192.168.0.2"])  # fmt: skip
def test_production_refuses_to_start_without_an_https_base_url(url: str):
    with pytest.raises(ValidationError, match="BASE_URL must be the public https address"):
        Settings(_env_file=None, environment="production", admin_token="k" * 32, base_url=url)


@pytest.mark.parametrize("url", ["https://localhost", "https://192.168.0.2"])
def test_production_starts_on_a_rehearsal_https_address(url: str):
    """A rehearsal behind Caddy's `tls internal` (docker-compose.yml's default, the
    two-host rehearsal) serves https on a loopback or private address: it starts, and
    the print pages warn (above)."""
    settings = Settings(
        _env_file=None, environment="production", admin_token="k" * 32, base_url=url
    )
    assert base_url_problems(settings.base_url) in (["loopback"], ["private"])


def _warning(html: str) -> str | None:
    match = re.search(r'id="base-url-warning" data-problems="([^"]*)"', html)
    return match.group(1) if match else None


def app_at(settings: Settings, engine, base_url: str) -> TestClient:
    """The app with this BASE_URL, the organiser signed in."""
    app = create_app(make_settings(settings.database_url, base_url=base_url), engine)
    client = TestClient(app, base_url=base_url)
    admin_login(client)
    return client


def test_the_print_pages_and_the_dashboard_warn_about_a_loopback_base_url(
    settings: Settings, engine, session: Session
):
    event = make_event(session)
    make_participant(session, event, "71")
    session.commit()
    local = app_at(settings, engine, "http://127.0.0.1:8000")
    dashboard = local.get(f"/admin/events/{event.id}").text
    assert _warning(dashboard) == "loopback http"
    assert "127.0.0.1:8000" in dashboard
    assert _warning(local.get(f"/admin/events/{event.id}/print/checkpoints").text) == (
        "loopback http"
    )
    token = csrf_of(local.get(f"/admin/events/{event.id}/checkpoints").text)
    cards = local.post(f"/admin/events/{event.id}/participant-cards", data={"csrf_token": token})
    assert _warning(cards.text) == "loopback http"

    public = app_at(settings, engine, "https://poker.example.org")
    assert _warning(public.get(f"/admin/events/{event.id}").text) is None
    assert _warning(public.get(f"/admin/events/{event.id}/print/checkpoints").text) is None


def test_a_reprint_keeps_the_links_unless_asked_to_reissue(client: TestClient, session: Session):
    event = make_event(session)
    make_participant(session, event, "72")
    make_participant(session, event, "73")
    session.commit()
    admin_login(client)
    url = f"/admin/events/{event.id}/participant-cards"
    token = csrf_of(client.get(f"/admin/events/{event.id}/checkpoints").text)

    def links(**form) -> list[str]:
        html = client.post(url, data={"csrf_token": token, **form}).text
        return re.findall(r"/p/([A-Za-z0-9_-]{20,})", html)

    first = links()
    assert len(set(first)) == 2
    assert links() == first  # the paper jammed: the same links again
    phone = TestClient(client.app)
    assert phone.get(f"/p/{first[0]}", follow_redirects=False).headers["location"] == "/me"
    again = links(reissue="1")
    assert len(set(again)) == 2 and not set(again) & set(first)
    assert TestClient(client.app).get(f"/p/{first[0]}").status_code == 404  # old link dead
    assert links() == again


def _renewed_note(html: str) -> str | None:
    match = re.search(r'<p class="warning">[^<]*участникам: ([^<]*)</p>', html)
    return match.group(1) if match else None


def test_a_link_given_at_creation_survives_the_first_print(client: TestClient, session: Session):
    """The API's answer and the add form show a personal link once; printing the cards
    later prints that same link, and the sheet warns only about links it renewed."""
    event = make_event(session)
    make_participant(session, event, "80")  # made without a sealed token: renewed at print
    session.commit()
    admin_login(client)
    token = csrf_of(client.get(f"/admin/events/{event.id}/checkpoints").text)
    created = client.post(
        f"/api/v1/events/{event.id}/participants",
        json={"name": "Ирина", "external_id": "81"},
        headers={"X-CSRF-Token": token},
    )
    assert created.status_code == 201, created.text
    given = created.json()["access_token"]
    url = f"/admin/events/{event.id}/participant-cards"
    first = client.post(url, data={"csrf_token": token}).text
    assert f"/p/{given}" in first  # the link given at creation, not a new one
    assert _renewed_note(first) == "80"  # only 80's link is new
    again = client.post(url, data={"csrf_token": token}).text
    assert _renewed_note(again) is None and f"/p/{given}" in again
    assert TestClient(client.app).get(f"/p/{given}", follow_redirects=False).status_code == 303
