"""Print sheets in headless Chromium: at A4 every CP box and participant card holds its
content, boxes do not overlap, and the CP sheet prints two CPs per page."""

from __future__ import annotations

import itertools

import httpx
import pytest

from tests.conftest import ADMIN_TOKEN
from tests.events.conftest import EVENT_BODY, full_deck
from tests.web.conftest import ARTIFACTS, WAIT_S, new_context, screenshot

pytestmark = pytest.mark.browser

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
MM = 96 / 25.4  # CSS px per millimetre
# A4 minus the sheets' @page margins (8 mm CP sheet, 10 mm cards), in CSS px.
CP_PAGE_WIDTH = round((210 - 2 * 8) * MM)
CARD_PAGE_WIDTH = round((210 - 2 * 10) * MM)

# For every `selector` box: its rect, and the rects of its children matching `parts`.
MEASURE = """([selector, parts]) => [...document.querySelectorAll(selector)].map(box => {
  const rect = (el) => { const r = el.getBoundingClientRect();
    return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right,
            width: r.width, height: r.height}; };
  return {id: box.id, box: rect(box),
          parts: parts.map(part => [part, rect(box.querySelector(part))])};
})"""


def assert_contained_and_apart(boxes: list[dict]) -> None:
    """Each part lies within its box (0.5 px rounding) and no two boxes overlap."""
    for item in boxes:
        box = item["box"]
        for name, part in item["parts"]:
            assert part["height"] > 0, (item["id"], name)
            inside = (
                part["top"] >= box["top"] - 0.5
                and part["bottom"] <= box["bottom"] + 0.5
                and part["left"] >= box["left"] - 0.5
                and part["right"] <= box["right"] + 0.5
            )
            assert inside, (item["id"], name, part, box)
    for first, second in itertools.combinations(boxes, 2):
        a, b = first["box"], second["box"]
        apart = (
            a["bottom"] <= b["top"] + 0.5
            or b["bottom"] <= a["top"] + 0.5
            or a["right"] <= b["left"] + 0.5
            or b["right"] <= a["left"] + 0.5
        )
        assert apart, (first["id"], second["id"])


def pdf_pages(pdf: bytes) -> int:
    """Number of pages of a Chromium PDF (one `/Type /Page` object per page)."""
    return pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")


def test_checkpoint_sheet_fits_two_cps_per_a4_page(live_server, browser):
    with httpx.Client(base_url=live_server.url, headers=ADMIN, timeout=WAIT_S) as api:
        event_id = api.post("/api/v1/events", json=EVENT_BODY).json()["id"]
        body = {"checkpoints": full_deck()}
        deck = api.put(f"/api/v1/events/{event_id}/checkpoints", json=body)
    assert deck.status_code == 200
    context = new_context(
        browser, viewport={"width": CP_PAGE_WIDTH, "height": 1000}, extra_http_headers=ADMIN
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/api/v1/events/{event_id}/print/checkpoints")
    assert page.locator(".brand").get_attribute("href") == (f"/admin/events/{event_id}/checkpoints")

    page.emulate_media(media="print")
    boxes = page.evaluate(MEASURE, [".cp", [".number", ".qr svg", ".event"]])
    assert len(boxes) == 54
    assert_contained_and_apart(boxes)
    for item in boxes:
        # Two boxes fit the 281 mm printable height; the QR is at least 6 cm (10 cm set).
        assert item["box"]["height"] <= 140 * MM
        qr = dict(item["parts"])[".qr svg"]
        assert qr["width"] >= 60 * MM and qr["height"] >= 60 * MM
    pdf = page.pdf(format="A4")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "print-checkpoints.pdf").write_bytes(pdf)
    assert pdf_pages(pdf) == 27  # 54 CPs, two per page

    # On screen: a grid of several columns, not one column of 54 posters.
    page.emulate_media(media="screen")
    page.set_viewport_size({"width": 1280, "height": 800})
    boxes = page.evaluate(MEASURE, [".cp", [".number", ".qr svg", ".event"]])
    assert_contained_and_apart(boxes)
    assert len({round(item["box"]["left"]) for item in boxes}) >= 4
    screenshot(page, "print-checkpoints-screen-1280")
    context.close()


def test_participant_cards_fit_their_boxes_at_a4(live_server, browser):
    with httpx.Client(base_url=live_server.url, headers=ADMIN, timeout=WAIT_S) as api:
        event_id = api.post("/api/v1/events", json=EVENT_BODY).json()["id"]
        for number in range(1, 8):
            body = {"name": f"Команда {number} Длинное Название", "external_id": str(number)}
            assert api.post(f"/api/v1/events/{event_id}/participants", json=body).is_success
        response = api.post(f"/api/v1/events/{event_id}/print/participant-cards")
    context = new_context(
        browser, viewport={"width": CARD_PAGE_WIDTH, "height": 1000}, extra_http_headers=ADMIN
    )
    page = context.new_page()
    page.set_content(response.text.replace("<head>", f'<head><base href="{live_server.url}/">'))
    assert page.locator(".brand").get_attribute("href") == (
        f"/admin/events/{event_id}/participants"
    )

    page.emulate_media(media="print")
    parts = ["h2", ".meta", ".qr svg", ".url", "ol", "li:first-child .n", "li:last-child"]
    cards = page.evaluate(MEASURE, [".card", parts])
    assert len(cards) == 7
    assert_contained_and_apart(cards)
    pdf = page.pdf(format="A4")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "print-participant-cards.pdf").write_bytes(pdf)
    context.close()
