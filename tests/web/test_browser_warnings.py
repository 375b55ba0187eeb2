"""Chromium: the paged warnings page (issue 24) at laptop and phone widths."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.feed.models import ParticipantState
from app.feed.rules import PlayState
from tests.conftest import ADMIN_TOKEN
from tests.factories import make_event, make_participant
from tests.web.conftest import check_page, sign_in_organiser


def test_the_warnings_page_pages_and_fits_360_and_1280(live_server, desk, session: Session) -> None:
    event = make_event(session, name="Ночной рогейн")
    for n in range(1, 131):  # 130 participants holding two unsaved cards
        participant = make_participant(session, event, f"{n:03d}", name=f"Участник {n}")
        state = PlayState(hand=("QH", "TS"))
        session.add(
            ParticipantState(
                participant_id=participant.id,
                event_id=event.id,
                state=state.to_json(),
                hand_cards=2,
                takes=2,
            )
        )
    session.commit()
    page = desk.new_page()
    url = f"{live_server.url}/admin/events/{event.id}/warnings"
    sign_in_organiser(page, url, ADMIN_TOKEN)
    page.wait_for_url(url)
    assert page.locator("#unsaved tbody tr").count() == 100
    assert "Страница 1 из 2" in page.inner_text("body")
    check_page(page, "admin-warnings")
    page.get_by_role("link", name="Следующая →").first.click()
    page.wait_for_url(f"{url}?page=2")
    assert page.locator("#unsaved tbody tr").count() == 30
    assert page.locator("#unsaved tbody tr").first.inner_text().startswith("101")
