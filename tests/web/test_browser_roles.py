"""Chromium: the team page and a member's sign-in (issue 29) at laptop and phone widths."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests.conftest import ADMIN_TOKEN
from tests.factories import make_event, make_participant
from tests.web.conftest import check_page, sign_in_organiser

pytestmark = pytest.mark.browser


def test_owner_adds_a_judge_who_signs_in_and_sees_only_the_judges_pages(
    live_server, desk, browser, session: Session
) -> None:
    event = make_event(session, name="Ночной рогейн")
    make_participant(session, event, "31")
    session.commit()
    page = desk.new_page()
    url = f"{live_server.url}/admin/events/{event.id}/members"
    sign_in_organiser(page, url, ADMIN_TOKEN)
    page.fill("#member-name", "Анна")
    page.select_option("#member-role", "judge")
    page.get_by_role("button", name="Добавить в команду").click()
    link = page.locator("#new-link").inner_text()
    assert link.startswith(f"{live_server.url}/o/om_")
    check_page(page, "team-members")
    page.reload()
    assert page.locator("#new-link").count() == 0  # shown once

    judge = desk.browser.new_context(viewport={"width": 360, "height": 780})
    judge_page = judge.new_page()
    judge_page.goto(link)
    assert "Анна (судья)" in judge_page.locator("main").inner_text()
    nav = judge_page.locator(".member-links").inner_text()
    assert "Участники" in nav and "Церемония" not in nav
    judge_page.goto(f"{live_server.url}/admin/events/{event.id}/course")
    assert judge_page.locator("h1").inner_text() == "Нет доступа"
    check_page(judge_page, "team-refused")
    judge.close()


def test_the_team_on_a_phone_shows_each_members_buttons_on_screen(
    live_server, phone, session: Session
) -> None:
    """At 360 px the team table used to scroll sideways inside its frame, the New link and
    Revoke buttons right of the screen; each member is now a block with its buttons."""
    event = make_event(session, name="Ночной рогейн")
    session.commit()
    page = phone.new_page()
    sign_in_organiser(page, f"{live_server.url}/admin/events/{event.id}/members", ADMIN_TOKEN)
    page.fill("#member-name", "Проектор в зале")
    page.select_option("#member-role", "screen")
    page.get_by_role("button", name="Добавить в команду").click()
    assert page.locator("#new-link").is_visible()
    for name in ("Новая ссылка Проектор в зале", "Отозвать Проектор в зале"):
        box = page.get_by_role("button", name=name).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, name
