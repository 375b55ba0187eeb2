"""Issue 16 in Debian's Chromium, pages only, on an empty database: the organiser signs in,
creates the event, shuffles the deck, edits a hint, imports 3 participants from a CSV
file and prints their cards; three phones then play through `/t/{code}` pages, and the
take log says in Russian words why a repeated CP did not count. Screenshots at 1280 and
360 px; axe-core finds no serious or critical violation on the organiser's setup pages.
Also: `/docs` renders the OpenAPI 3.1 schema with Swagger UI 5 and `/redoc` renders.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.conftest import ADMIN_TOKEN
from tests.web.conftest import axe_violations, screenshot

pytestmark = pytest.mark.browser

PARTICIPANTS_CSV = (
    "name,external_id,category\nАнна Петрова,11,Ж\nБорис Иванов,12,М\nКоманда «Лось»,13,МЖ\n"
)


def check_page(page, name: str) -> None:
    """Screenshots at 1280 and 360 px, and no serious or critical axe-core violation."""
    screenshot(page, f"{name}-1280")
    assert axe_violations(page) == [], name
    page.set_viewport_size({"width": 360, "height": 780})
    screenshot(page, f"{name}-360")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, name
    page.set_viewport_size({"width": 1280, "height": 800})


def test_organiser_sets_up_an_event_from_the_pages_and_three_phones_play(
    live_server, desk, browser, tmp_path
):
    url = live_server.url
    page = desk.new_page()
    page.goto(f"{url}/admin")
    page.fill("#token", ADMIN_TOKEN)
    page.get_by_role("button", name="Войти").click()
    check_page(page, "setup-events")

    # Create the event: the course opened an hour ago (Moscow time) and runs 5 hours more.
    page.get_by_role("link", name="Новое событие").click()
    now = datetime.now(UTC).astimezone(ZoneInfo("Europe/Moscow"))
    opens = (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    closes = (now + timedelta(hours=5)).strftime("%Y-%m-%dT%H:%M")
    page.fill("#f-name", "Рогейн у озера")
    page.fill("#f-timezone", "Europe/Moscow")
    page.fill("#f-opens", opens)
    page.fill("#f-closes", closes)
    check_page(page, "setup-new-event")
    page.get_by_role("button", name="Создать событие").click()
    assert re.search(r"/admin/events/\d+/checkpoints", page.url)
    event_path = page.url.split("/checkpoints")[0]
    assert "Событие создано" in page.inner_text("[role=status]")

    # Shuffle with a seed: 54 CPs appear, each with its card and codes.
    page.fill("#f-seed", "2026")
    page.get_by_role("button", name="Перетасовать").click()
    assert page.inner_text("[role=status]") == "Колода перетасована."
    assert page.locator("tr[id^=cp-]").count() == 54

    # Edit CP 1's hint in place.
    page.get_by_label("Подсказка КП 1", exact=True).fill("Старая ель у родника")
    page.get_by_role("button", name="Сохранить КП 1", exact=True).click()
    assert page.inner_text("[role=status]") == "КП сохранён."
    assert page.get_by_label("Подсказка КП 1", exact=True).input_value() == "Старая ель у родника"
    check_page(page, "setup-checkpoints")
    codes = [page.locator(f"#cp-{n} .mono").first.inner_text() for n in range(1, 8)]

    page.get_by_role("link", name="Публичный список КП").click()
    assert "Старая ель у родника" in page.inner_text("main")
    assert codes[0] not in page.content()  # no code on the public list
    check_page(page, "setup-public-checkpoints")

    # Import three participants from a CSV file, then print their cards.
    page.goto(f"{event_path}/participants")
    csv_file = tmp_path / "participants.csv"
    csv_file.write_text(PARTICIPANTS_CSV, encoding="utf-8")
    page.set_input_files("#f-p-file", str(csv_file))
    page.locator("form[action$='/participants/import'] button").click()
    assert "Участники загружены" in page.inner_text("[role=status]")
    assert page.locator("tbody tr").count() == 3
    check_page(page, "setup-participants")
    with desk.expect_page() as popup:
        page.locator(".actions form[action$='/participant-cards'] button").click()
    cards = popup.value
    cards.wait_for_load_state()
    assert cards.locator("section.card").count() == 3
    assert "Коды сохранения" in cards.inner_text("main")
    screenshot(cards, "setup-participant-cards-1280")
    links = [link.strip() for link in cards.locator(".card .url").all_inner_texts()]
    assert len(links) == 3 and all("/p/" in link for link in links)

    # Three phones sign in with the printed links and take CPs through /t/{code}.
    phones = [browser.new_context(viewport={"width": 360, "height": 780}) for _ in links]
    try:
        for index, (context, link) in enumerate(zip(phones, links, strict=True)):
            phone = context.new_page()
            phone.goto(link)
            assert phone.url == f"{url}/me"
            for code in codes[index * 2 : index * 2 + 3]:
                phone.goto(f"{url}/t/{code}")
                assert "/me/takes/" in phone.url
                assert phone.locator("h1").inner_text() == "Взятие засчитано"
            if index == 0:
                screenshot(phone, "setup-phone-take-360")
                phone.goto(f"{url}/t/{codes[0]}")  # CP 1 again: a duplicate
                assert phone.locator("h1").inner_text() == "Взятие не засчитано"
                assert "Вы уже брали этот КП" in phone.inner_text("main")
    finally:
        for context in phones:
            context.close()

    # The organiser's log says why in words, never the raw code.
    page.goto(f"{event_path}/participants/11")
    log = page.inner_text(".take-log")
    assert "повтор КП" in log and "duplicate" not in log
    assert "телефон" in log and "phone" not in log
    page.goto(f"{event_path}/participants")
    assert "Сдача 1, раунд 1 · Рука (3 из 5)" in page.inner_text("tbody")
    page.goto(f"{event_path}/settings")
    check_page(page, "setup-settings")


def test_docs_render_the_openapi_schema_and_redoc_renders(live_server, desk):
    page = desk.new_page()
    page.goto(f"{live_server.url}/docs")
    operation = page.locator(".opblock-post .opblock-summary-path[data-path='/api/v1/events']")
    operation.first.wait_for(timeout=15000)
    assert page.locator(".swagger-ui .version").first.inner_text().strip() == "0.1.0"
    assert "Unable to render this definition" not in page.inner_text("body")
    screenshot(page, "docs-swagger-1280")

    page.goto(f"{live_server.url}/redoc")
    page.locator("h2", has_text="Create Event").first.wait_for(timeout=15000)
    assert page.locator("h1").first.inner_text().startswith("Rogaine Poker")
    screenshot(page, "docs-redoc-1280")
