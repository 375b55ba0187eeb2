"""The print sheets on screen in Debian's Chromium: the participant cards fit a 360 px
phone in one column (and keep two columns on A4 paper), and on the CP QR sheet at
1280 px the typed code stays inside its tile's dashed border. Screenshots go to
test-artifacts/.
"""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests.conftest import ADMIN_TOKEN
from tests.factories import make_event, make_participant
from tests.offline.test_offline_api import random_codes
from tests.web.conftest import csp_watch, new_context, screenshot, sign_in_organiser

pytestmark = pytest.mark.browser


@pytest.fixture
def event_id(live_server) -> int:
    """An event with its 54 CPs coded and three participants (one with a long name)."""
    with Session(live_server.engine) as db:
        event = make_event(db, name="Рогейн у Тёплого озера")
        random_codes(db, event)
        make_participant(db, event, "11", name="Анна")
        make_participant(db, event, "12", name="Константин Константинопольский-Щедрин")
        make_participant(db, event, "13", name="Борис")
        db.commit()
        return event.id


def organiser(browser, width: int):
    """The organiser's browser at `width` px (its own cookies)."""
    return new_context(browser, viewport={"width": width, "height": 800}, service_workers="block")


def test_the_participant_cards_fit_a_phone_in_one_column(live_server, browser, event_id):
    context = organiser(browser, 360)
    try:
        with csp_watch(context):
            page = context.new_page()
            sign_in_organiser(
                page, f"{live_server.url}/admin/events/{event_id}/participants", ADMIN_TOKEN
            )
            with context.expect_page() as popup:
                page.locator(".actions form[action$='/participant-cards'] button").click()
            cards = popup.value
            cards.wait_for_load_state()
            assert cards.locator("section.card").count() == 3
            assert cards.evaluate("document.documentElement.scrollWidth") <= 360
            columns = "getComputedStyle(document.querySelector('.cards')).gridTemplateColumns"
            assert len(cards.evaluate(columns).split()) == 1
            boxes = [cards.locator(f"#participant-{n}").bounding_box() for n in ("11", "12", "13")]
            assert all(b is not None and b["x"] >= 0 and b["x"] + b["width"] <= 360 for b in boxes)
            overflowing = (
                "[...document.querySelectorAll('section.card')]"
                ".filter(c => c.scrollWidth > c.clientWidth).length"
            )
            assert cards.evaluate(overflowing) == 0  # nothing sticks out of a card either
            screenshot(cards, "print-participant-cards-360")
            cards.emulate_media(media="print")  # A4 keeps two cards a row
            assert len(cards.evaluate(columns).split()) == 2
    finally:
        context.close()


def test_the_typed_code_stays_in_its_tile_at_1280(live_server, browser, event_id):
    context = organiser(browser, 1280)
    try:
        with csp_watch(context):
            page = context.new_page()
            sheet = f"{live_server.url}/admin/events/{event_id}/print/checkpoints"
            sign_in_organiser(page, sheet, ADMIN_TOKEN)
            assert page.locator("section.cp").count() == 54
            outside = page.evaluate(
                """() => [...document.querySelectorAll('section.cp')].flatMap(tile => {
                    const t = tile.getBoundingClientRect();
                    return [...tile.querySelectorAll('.typed, .typed .mono')].filter(node => {
                        const b = node.getBoundingClientRect();
                        return b.left < t.left || b.right > t.right;
                    }).map(() => tile.id);
                })"""
            )
            assert outside == []
            assert page.evaluate("document.documentElement.scrollWidth") <= 1280
            screenshot(page, "print-checkpoints-1280")
    finally:
        context.close()
