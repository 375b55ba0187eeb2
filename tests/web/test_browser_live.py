"""The phone ceremony page updates in place from the live stream (no reload), Chromium: the
close ("being revealed"), each reveal step, the result."""

from __future__ import annotations

import httpx
import pytest

from tests.live.test_stream import ceremony_event
from tests.web.conftest import WAIT_MS, WAIT_S, new_context, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def desk_phone(browser):
    """A 1280 px wide browser context (its own cookies)."""
    context = new_context(browser, viewport={"width": 1280, "height": 800})
    yield context
    context.close()


def test_phone_page_shows_the_result_in_place_when_the_auction_closes(
    live_server, phone, desk_phone, admin
):
    event_id, anna, boris, full, high = ceremony_event(live_server.engine)
    api = httpx.Client(
        base_url=f"{live_server.url}/api/v1/events/{event_id}", headers=admin, timeout=WAIT_S
    )
    assert api.post("/auctions/3/open").is_success
    assert api.post(
        "/auctions/3/bids", json={"participant": "41", "combination_id": full}
    ).is_success
    assert api.post(
        "/auctions/3/bids", json={"participant": "42", "combination_id": high}
    ).is_success

    pages = []
    for context, person in ((phone, anna), (desk_phone, boris)):
        page = context.new_page()
        page.goto(f"{live_server.url}/p/{person.access_token}")
        page.goto(f"{live_server.url}/me/ceremony")
        assert page.locator("#ceremony-live form[action='/me/ceremony/3/withdraw']").count() == 1
        # A marker that a reload or a navigation would wipe out.
        page.evaluate("window.__liveMarker = 'still here'")
        requests: list[str] = []
        page.on("request", lambda request, seen=requests: seen.append(request.url))
        pages.append((page, requests))
    # The stream is up (its `hello` arrived): the page is not polling.
    for page, _ in pages:
        page.wait_for_function("() => !document.querySelector('[data-live-mode=poll]')")

    assert api.post("/auctions/3/close").json()["winner"] == "41"
    # Closed, being revealed (RULES.md I-21): in place, the count only, no card.
    for page, _ in pages:
        page.locator("#ceremony-live").get_by_text("идёт вскрытие ставок").wait_for(timeout=WAIT_MS)
        text = page.locator("#ceremony-live").inner_text()
        assert "Ставок: 2 · Ещё не вскрыто: 2" in text
        assert "A♥" not in text and "2♣" not in text and "Победитель" not in text
        assert page.locator("#ceremony-live form[action='/me/ceremony/3/withdraw']").count() == 0
    # The projector's first step: Boris's high card (the weaker) appears in place.
    assert api.post("/auctions/3/reveal").json()["revealed"] == 1
    for page, _ in pages:
        page.locator("#ceremony-live").get_by_text("Ещё не вскрыто: 1").wait_for(timeout=WAIT_MS)
        text = page.locator("#ceremony-live").inner_text()
        assert "2♣ 3♦ 4♥ 5♠ 7♣" in text and "A♥" not in text
    assert api.post("/auctions/3/reveal", json={"all": True}).json()["complete"] is True

    for (page, requests), width in zip(pages, (360, 1280), strict=True):
        page.locator("#ceremony-live").get_by_text("Победитель: Анна").wait_for(timeout=WAIT_MS)
        assert page.evaluate("window.__liveMarker") == "still here"
        assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
        text = page.locator("#ceremony-live").inner_text()
        assert "Борис" in text and "фулл-хаус" in text and "старшая карта" in text
        assert "A♥ A♦ A♣ K♠ K♥" in text and "2♣ 3♦ 4♥ 5♠ 7♣" in text
        assert page.locator("[data-live-mode=poll]").count() == 0  # it came by the stream
        screenshot(page, f"live-ceremony-closed-{width}")
        # Shown from the messages themselves (the close 4, the steps 5 and 6): no request
        # for the page at all.
        assert page.locator("#ceremony-live").get_attribute("data-live-shown") == "3:6"
        assert not [url for url in requests if "/me/ceremony" in url]
        mine = "Анна ★" if width == 360 else "Борис ★"  # each page marks its own bid only
        assert mine in text and text.count("★") == 1


def test_organiser_ceremony_page_counts_bids_and_shows_the_close_in_place(live_server, desk, admin):
    from tests.conftest import ADMIN_TOKEN

    event_id, _anna, _boris, full, high = ceremony_event(live_server.engine)
    api = httpx.Client(
        base_url=f"{live_server.url}/api/v1/events/{event_id}", headers=admin, timeout=WAIT_S
    )
    assert api.post("/auctions/3/open").is_success
    page = desk.new_page()
    page.goto(f"{live_server.url}/admin/login")
    page.fill("#token", ADMIN_TOKEN)
    page.get_by_role("button", name="Войти").click()
    page.goto(f"{live_server.url}/admin/events/{event_id}/ceremony")
    page.evaluate("window.__liveMarker = 'still here'")
    count = page.locator("#live-ceremony [data-live-field=bids_3]")
    assert count.inner_text() == "0"
    page.wait_for_function("() => !document.querySelector('[data-live-mode=poll]')")

    for person, combination, expected in (("41", full, "1"), ("42", high, "2")):
        body = {"participant": person, "combination_id": combination}
        assert api.post("/auctions/3/bids", json=body).is_success
        page.wait_for_function(
            f"() => document.querySelector('#live-ceremony [data-live-field=bids_3]')"
            f".textContent === '{expected}'"
        )
    assert api.post("/auctions/3/close").json()["winner"] == "41"
    # The page fetches itself and swaps the ceremony panel: the organiser sees the decision
    # at once (the reveal is for everybody else), no close button.
    page.locator("#live-ceremony").get_by_text("Победитель: Анна").wait_for(timeout=WAIT_MS)
    assert page.locator("#live-ceremony form[action$='/auctions/3/close']").count() == 0
    assert page.locator("#on-behalf").count() == 0  # no bid on behalf: nothing is open
    assert page.evaluate("window.__liveMarker") == "still here"
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    screenshot(page, "live-admin-ceremony-1280")
