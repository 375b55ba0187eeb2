"""Browser test: the organiser's participant page (take log with void forms) fits the
window at 1280x800 and stays usable at phone width."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import httpx
import pytest
from sqlalchemy.orm import Session

from tests.conftest import ADMIN_TOKEN
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.conftest import WAIT_S, LiveServer, axe_violations, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

# Unknown codes as a field app may send them: a foreign QR URL and a long garbage scan.
FOREIGN_URL = "https://orienteering.example.org/results/2024/rogaine-poker/checkpoint?id=ABCDEF"
LONG_SCAN = "X7Q" * 60  # 180 characters without a break

# Where each void button is: its right edge, and the nearest ancestor that scrolls
# horizontally (its left and right edges) if the button lies beyond the window.
VOID_BUTTONS_JS = """
() => [...document.querySelectorAll('.void-form button')].map((button) => {
  const rect = button.getBoundingClientRect();
  let scroller = null;
  for (let node = button.parentElement; node; node = node.parentElement) {
    const overflow = getComputedStyle(node).overflowX;
    if ((overflow === 'auto' || overflow === 'scroll') && node.scrollWidth > node.clientWidth) {
      const box = node.getBoundingClientRect();
      scroller = {left: box.left, right: box.right};
      break;
    }
  }
  return {left: rect.left, right: rect.right, scroller};
})
"""


def feed_takes(live_server: LiveServer, event_id: int, codes: list[str]) -> list[dict]:
    """Deliver `codes` for participant 41 through the organiser feed API, a minute apart."""
    start = datetime.now(UTC) - timedelta(minutes=50)
    takes = [
        {
            "participant": "41",
            "code": code,
            "taken_at": (start + timedelta(minutes=i)).isoformat(),
            "source": "sportident-field-relay-station-north-07",
            "source_id": f"layout-{i}",
        }
        for i, code in enumerate(codes)
    ]
    response = httpx.post(
        f"{live_server.url}/api/v1/events/{event_id}/takes",
        json={"takes": takes},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=WAIT_S,
    )
    assert response.status_code == 200, response.text
    return response.json()["results"]


def sign_in(page: Page, url: str) -> None:
    """Open `url` as the organiser (through the sign-in form it redirects to)."""
    page.goto(url)
    page.fill("#token", ADMIN_TOKEN)
    page.get_by_role("button", name="Войти").click()
    assert page.url == url


@pytest.fixture
def participant_with_takes(live_server: LiveServer) -> str:
    """Participant 41 with seven takes (cards, a discard, long unknown codes); the URL
    of their admin page."""
    with Session(live_server.engine) as db:
        event = make_event(db, name="Вёрстка")
        make_participant(db, event, "41", name="Анна Длинная-Фамилия")
        db.commit()
        event_id = event.id
        codes = [event_cp_code(event, card) for card in ("2S", "3S", "4S", "5S", "6S")]
    results = feed_takes(live_server, event_id, [*codes, FOREIGN_URL, LONG_SCAN])
    assert [r["kind"] for r in results] == ["card"] * 5 + ["unknown", "unknown"]
    return f"{live_server.url}/admin/events/{event_id}/participants/41"


def test_take_log_fits_a_1280_window(live_server, desk, participant_with_takes):
    page = desk.new_page()
    sign_in(page, participant_with_takes)
    assert page.locator(".void-form button").count() == 7
    assert LONG_SCAN in page.locator("table").inner_text()  # the whole code is shown

    width = page.evaluate("window.innerWidth")
    assert width == 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for button in page.evaluate(VOID_BUTTONS_JS):
        if button["right"] > width:  # only acceptable inside a scroller within the window
            assert button["scroller"] is not None, button
            assert button["scroller"]["left"] >= 0, button
            assert button["scroller"]["right"] <= width, button
        assert button["left"] >= 0, button
    screenshot(page, "admin-participant-log-1280")
    assert axe_violations(page) == []


def test_take_log_can_void_at_phone_width(live_server, phone, participant_with_takes):
    page = phone.new_page()
    sign_in(page, participant_with_takes)
    width = page.evaluate("window.innerWidth")
    assert width == 360
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, "admin-participant-log-360")
    assert axe_violations(page) == []

    last = page.locator("tbody tr").last
    last.locator("input[name=reason]").fill("test scan")
    last.get_by_role("button", name="Отменить").click()
    assert "Исправление записано" in page.inner_text("[role=status]")
    assert page.locator(".void-form button").count() == 6
