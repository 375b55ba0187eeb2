"""Browser smoke tests: sign-in pages render, switch language and pass axe-core."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests.factories import make_event, make_participant
from tests.web.conftest import axe_violations, screenshot

pytestmark = pytest.mark.browser


def test_participant_signs_in_by_personal_link_and_switches_language(live_server, phone):
    with Session(live_server.engine) as db:
        event = make_event(db)
        person = make_participant(db, event, "7", name="Команда Лось")
        db.commit()
    page = phone.new_page()
    page.goto(f"{live_server.url}/me")
    assert page.locator("h1").inner_text() == "Как войти"
    assert axe_violations(page) == []

    page.goto(f"{live_server.url}/p/{person.access_token}")
    assert page.url == f"{live_server.url}/me"
    assert "Команда Лось" in page.content()
    page.get_by_role("link", name="Switch to English").click()
    assert page.locator("h1").inner_text() == "My game"
    assert axe_violations(page) == []
    screenshot(page, "smoke-my-game-360")


def test_organiser_signs_in_and_out(live_server, desk):
    from tests.conftest import ADMIN_TOKEN

    page = desk.new_page()
    page.goto(f"{live_server.url}/admin")
    assert "/admin/login" in page.url
    page.fill("#token", ADMIN_TOKEN)
    page.get_by_role("button", name="Войти").click()
    assert page.url == f"{live_server.url}/admin"
    screenshot(page, "smoke-admin-1280")
    page.get_by_role("button", name="Выйти").click()
    assert "/admin/login" in page.url
