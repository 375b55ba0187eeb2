"""The phone in a real forest (issue 26) in Debian's Chromium at 360 px: one truth between
the offline shell and the server after an action done online (point 3), a typed code
with look-alikes offline (point 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.events.codes import grouped, typed_form
from app.feed.models import Take
from tests.factories import make_event, make_participant
from tests.offline.test_offline_api import random_codes
from tests.offline.test_typed_codes import misread
from tests.web.conftest import ARTIFACTS, WAIT_MS, new_context, screenshot
from tests.web.test_browser_offline import Server, hand_shown

pytestmark = pytest.mark.browser


@pytest.fixture
def flaky_server(engine):
    """The app on a port of its own that can be stopped (the network drops) and started."""
    server = Server(engine)
    server.start()
    yield server
    if server.server is not None and not server.server.should_exit:
        server.stop()


@pytest.fixture
def pwa_phone(browser):
    """A 360 px phone with service workers allowed (the offline mode)."""
    context = new_context(browser, viewport={"width": 360, "height": 780}, device_scale_factor=1)
    yield context
    context.close()


def signed_in_phone(flaky_server, pwa_phone, external_id: str):
    """A participant with real random codes, signed in on a 360 px phone whose offline
    mode is ready; (page, codes)."""
    with Session(flaky_server.engine) as db:
        event = make_event(db, name="Лесной рогейн")
        codes = random_codes(db, event)
        anna = make_participant(db, event, external_id, name="Анна")
        db.commit()
    page = pwa_phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{flaky_server.url}/p/{anna.access_token}")
    page.wait_for_selector("html[data-offline=ready]", timeout=WAIT_MS)
    return page, codes, errors


def test_no_false_server_changed_after_an_online_discard_then_a_scan(flaky_server, pwa_phone):
    """Issue 26 point 3: five CPs scanned online (through the shell), then a discard code
    entered on the server's page ("Проверить код"), then the next CP scanned. The shell
    learnt of the discard (its data is refreshed on the take's page), so it predicts that
    the card counts, and after the sync nothing is listed as changed by the server."""
    url = flaky_server.url
    page, codes, errors = signed_in_phone(flaky_server, pwa_phone, "61")
    for card in ["QH", "QD", "QC", "TS", "AC"]:
        page.goto(f"{url}/t/{codes[card][0]}")
        page.wait_for_selector("#queue-count[data-count='0']", timeout=WAIT_MS)
    page.goto(f"{url}/me")
    page.fill("#code", codes["TS"][1])
    page.get_by_role("button", name="Проверить код").click()
    page.get_by_role("button", name="Да, сбросить").click()
    assert "/me/takes/" in page.url
    page.wait_for_selector("html[data-offline=ready]", timeout=WAIT_MS)  # the data refreshed

    page.goto(f"{url}/t/{codes['KD'][0]}")
    page.wait_for_selector("#take-status")
    assert page.locator("h1").inner_text() == "Взятие засчитано"  # the phone's own result
    page.wait_for_selector("#queue-count[data-count='0']", timeout=WAIT_MS)
    assert page.locator("#changes li").count() == 0
    assert page.locator("h1").inner_text() == "Взятие засчитано"
    assert hand_shown(page) == ["Q♥", "Q♦", "Q♣", "A♣", "K♦"]
    assert errors == []
    screenshot(page, "forest-360-online-discard-then-scan")


def test_a_typed_code_with_look_alikes_counts_offline(flaky_server, pwa_phone):
    """Issue 26 point 2, offline: the QR is wet; the participant types the tile's code in
    lower case, with dashes, reading 0 as O, 1 as l, 6 as G … The phone opens the card at
    once; the server, back, counts the same take."""
    url = flaky_server.url
    page, codes, errors = signed_in_phone(flaky_server, pwa_phone, "62")
    flaky_server.stop()
    page.goto(f"{url}/me/offline")
    typed = misread(typed_form(codes["QH"][0]))
    page.fill("#code", typed)
    page.get_by_role("button", name="Проверить код").click()
    page.click("#confirm-yes")
    page.wait_for_selector("#big-card")
    assert page.locator("#big-card").inner_text() == "Q♥"
    assert page.locator("#take-status").get_attribute("data-pending") == "true"
    screenshot(page, "forest-360-typed-offline")
    flaky_server.start()
    page.click("#send-now")
    page.wait_for_selector("#queue-count[data-count='0']", timeout=WAIT_MS)
    assert page.locator("#changes li").count() == 0
    with Session(flaky_server.engine) as db:
        (code,) = db.scalars(select(Take.code)).all()
    assert code == typed  # stored as typed; the server read it as QH's code
    assert hand_shown(page) == ["Q♥"]
    assert errors == []


def test_the_hints_page_works_offline(flaky_server, pwa_phone):
    """Issue 26 point 6: /me links to the hints; without network the same address shows
    them from the phone, with a GPX made on the phone."""
    url = flaky_server.url
    page, _, errors = signed_in_phone(flaky_server, pwa_phone, "63")
    page.click("#hints-link")
    assert page.url == f"{url}/me/hints"
    assert page.locator("#hints li").count() == 54
    flaky_server.stop()
    page.goto(f"{url}/me/hints")
    page.wait_for_selector("#hints li")
    assert page.locator("#hints li").count() == 54
    assert page.locator("h1").inner_text() == "Подсказки и координаты КП"
    with page.expect_download() as download:
        page.click("#gpx-link")
    path = download.value.path()
    assert "<gpx" in Path(path).read_text(encoding="utf-8")
    assert errors == []
    screenshot(page, "forest-360-hints-offline")


@pytest.mark.parametrize("width", [360, 1280])
def test_the_tile_shows_its_typed_code_and_the_review_list_its_takes(flaky_server, browser, width):
    """Screenshots (looked at): a CP tile with the code printed under its QR, the BASE_URL
    warning (the test server is http://127.0.0.1), and the organiser's review list with
    a late take (dated before the close, arrived an hour after it)."""
    from datetime import UTC, datetime, timedelta

    from app.events.models import Participant
    from app.flows import offline as offline_flow
    from tests.conftest import ADMIN_TOKEN

    url, engine = flaky_server.url, flaky_server.engine
    now = datetime.now(UTC)
    with Session(engine) as db:
        event = make_event(db, name="Лесной рогейн", opens_at=now - timedelta(hours=6),
                           closes_at=now - timedelta(hours=1))  # fmt: skip
        codes = random_codes(db, event)
        anna = make_participant(db, event, "64", name="Анна")
        db.commit()
        offline_flow.sync(
            db, db.get(Participant, anna.id), "phone-0a1b2c3d",
            [{"code": codes["QH"][0], "source_id": "pwa-1",
              "taken_at": (event.closes_at - timedelta(minutes=12)).isoformat()}],
            sent_at=now,
        )  # fmt: skip
        db.commit()
        event_id, number = event.id, codes["QH"][2]
    context = new_context(browser, viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{url}/admin/login")
        page.fill("#token", ADMIN_TOKEN)
        page.get_by_role("button", name="Войти").click()
        page.goto(f"{url}/admin/events/{event_id}/print/checkpoints")
        tile = page.locator(f"#cp-{number}")
        assert tile.locator(".typed .mono").inner_text() == grouped(typed_form(codes["QH"][0]))
        assert page.locator("#base-url-warning").is_visible()
        tile.scroll_into_view_if_needed()
        tile.screenshot(path=ARTIFACTS / f"tile-{width}-typed-code.png")
        screenshot(page, f"print-{width}-base-url-warning")
        page.goto(f"{url}/admin/events/{event_id}")
        assert page.locator("#review-link").inner_text().endswith(": 1")
        page.click("#review-link")
        row = page.locator(".review-item")
        assert row.count() == 1 and row.get_attribute("data-reasons") == "late_arrival"
        screenshot(page, f"review-{width}-list")
        row.locator("button.void").click()
        assert page.locator(".review-item .decision").inner_text() == "аннулировано"
    finally:
        context.close()
