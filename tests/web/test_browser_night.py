"""The phone at night in Chromium at 360 px: the hand on one row with 16 px discard codes,
light and dark themes (the switch, and the system's preference), the receipt copy button,
five dice on one row. Screenshots: test-artifacts/night-*.png."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.events.models import Event
from tests.conftest import ADMIN_TOKEN
from tests.factories import event_cp_code, make_combination, make_event, make_participant
from tests.web.conftest import WAIT_S, axe_violations, screenshot

pytestmark = pytest.mark.browser

PHONE_WIDTH = 360


def luminance(page, selector: str = "body") -> float:
    """Relative luminance (0 black … 1 white) of an element's computed background."""
    rgb = page.eval_on_selector(
        selector,
        "el => getComputedStyle(el).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number)",
    )

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def assert_one_row(page, selector: str, count: int) -> None:
    boxes = [page.locator(selector).nth(i).bounding_box() for i in range(count)]
    assert page.locator(selector).count() == count
    assert len({round(box["y"]) for box in boxes}) == 1, boxes  # one row
    assert max(box["x"] + box["width"] for box in boxes) <= PHONE_WIDTH
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def test_the_phone_at_night_light_and_dark(live_server, phone):
    with Session(live_server.engine) as db:
        event = make_event(db)
        anna = make_participant(db, event, "51", name="Анна")
        db.commit()
        codes = {card: event_cp_code(event, card) for card in ("QH", "QD", "QC", "7S", "2H", "KH")}
        event_id = event.id
    page = phone.new_page()
    page.goto(f"{live_server.url}/p/{anna.access_token}")
    for card in ("QH", "QD", "QC", "7S", "2H"):
        page.goto(f"{live_server.url}/t/{codes[card]}")
    page.goto(f"{live_server.url}/t/{codes['KH']}")  # a 6th card: hand full, CP 25 shown
    assert "КП 25" in page.inner_text("main") and "K♥" not in page.inner_text("main")

    page.goto(f"{live_server.url}/me")
    assert_one_row(page, ".cards.hand .hand-slot", 5)
    # The top bar's four buttons (my game, ceremony, language, theme): one row (their
    # middles level: the theme glyph is larger), inside the screen, 48 px touch targets.
    nav = page.locator(".topbar nav a")
    assert nav.count() == 4
    boxes = [nav.nth(i).bounding_box() for i in range(4)]
    middles = [box["y"] + box["height"] / 2 for box in boxes]
    assert max(middles) - min(middles) < 4, boxes
    assert max(box["x"] + box["width"] for box in boxes) <= PHONE_WIDTH
    assert min(box["height"] for box in boxes) >= 48 and min(b["width"] for b in boxes) >= 44
    sizes = page.eval_on_selector_all(
        ".hand-slot .dc", "els => els.map(el => parseFloat(getComputedStyle(el).fontSize))"
    )
    assert sizes == [16.0] * 5
    assert "Значение руки: тройка дам" in page.inner_text("main")
    assert luminance(page) > 0.9  # light by default (the system is light here)
    assert axe_violations(page) == []
    screenshot(page, "night-me-360-light")

    page.get_by_role("link", name="Тема оформления: как в системе. Переключить").click()
    page.wait_for_url(f"{live_server.url}/me")
    assert page.get_attribute("html", "data-theme") == "dark"
    assert luminance(page) < 0.02
    assert luminance(page, ".panel") < 0.02
    assert axe_violations(page) == []  # contrast included: readable at night
    screenshot(page, "night-me-360-dark")
    page.goto(f"{live_server.url}/t/{codes['QH']}")  # already taken: rejected, in the dark
    assert luminance(page) < 0.02
    screenshot(page, "night-result-360-dark")

    # Back to "as the system"; a system in dark mode gets the dark theme without a cookie.
    page.goto(f"{live_server.url}/theme/auto?next=/me")
    page.emulate_media(color_scheme="dark")
    page.reload()
    assert page.get_attribute("html", "data-theme") is None
    assert luminance(page) < 0.02
    page.emulate_media(color_scheme="light")
    page.reload()
    assert luminance(page) > 0.9

    # After the close: the course is closed, no code form; a bid's receipt can be copied.
    with Session(live_server.engine) as db:
        row = db.get(Event, event_id)
        make_combination(
            db, row, anna, ["AH", "AD", "AC", "KS", "KD"], row.opens_at + timedelta(minutes=2)
        )
        db.execute(update(Event).where(Event.id == event_id).values(closes_at=datetime.now(UTC)))
        db.commit()
    page.goto(f"{live_server.url}/theme/dark?next=/me")
    assert "Дистанция закрыта." in page.inner_text("main")
    assert page.locator("input[name=code]").count() == 0
    screenshot(page, "night-closed-360-dark")
    opened = httpx.post(
        f"{live_server.url}/api/v1/events/{event_id}/auctions/3/open",
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=WAIT_S,
    )
    assert opened.status_code == 200, opened.text
    page.goto(f"{live_server.url}/me/ceremony")
    assert page.locator("input[name=combination_id]:checked").count() == 0
    page.locator("input[name=combination_id]").first.check()
    page.get_by_role("button", name="Сделать ставку").click()
    copy = page.get_by_role("button", name="Копировать")
    copy.click()
    page.wait_for_selector("button.copy:has-text('Скопировано')")
    assert axe_violations(page) == []
    screenshot(page, "night-ceremony-360-dark")


def test_five_dice_on_one_row_at_360(live_server, phone):
    page = phone.new_page()
    page.goto(f"{live_server.url}/games/poker-dice")
    page.fill("#players", "Anna")
    page.get_by_role("button", name="Начать игру").click()
    page.wait_for_url(f"{live_server.url}/games/poker-dice/*")
    page.locator("#roll").click()
    page.wait_for_selector("#dice .die >> nth=4")
    assert_one_row(page, "#dice .die", 5)
    screenshot(page, "night-dice-360-light")
