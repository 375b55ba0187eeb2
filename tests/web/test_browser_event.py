"""Issue 16, Done when: a whole event on an empty database, through pages only, in Debian's
Chromium (RULES.md §1.1, §1.2, §1.4).

The organiser signs in, creates the event, shuffles the deck, edits a hint, imports three
participants from a CSV file and prints their cards. Three phones play through `/t/{code}`
pages and save combinations on "my game". The team's first scan (K♠) was a test before
the start: the organiser moves the opening past it (preview, then confirm), so K♠ stops
counting and the team's 6♦, refused earlier as `hand_full`, counts instead (three 8s
become a full house). The organiser closes the course now and runs the three auctions:

- 3rd place: Anna (phone) and Boris (bid on his behalf) bid the same high card: a tie;
  tie-break: Anna's three 9s beat Boris's pair of queens. That close is undone and
  repeated: Anna again.
- 2nd place: the team's full house, alone; 1st place: Boris's four kings, alone.

The projector shows the podium Boris, team, Anna. Screenshots at 1280 and 360 px;
axe-core finds no serious or critical violation on the organiser pages visited.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.conftest import ADMIN_TOKEN
from tests.web.conftest import (
    check_page,
    confirm_close,
    confirm_code,
    new_context,
    reveal_everything,
    screenshot,
    sign_in_organiser,
    wait_until,
)

pytestmark = pytest.mark.browser
MOSCOW = ZoneInfo("Europe/Moscow")

PARTICIPANTS_CSV = (
    "name,external_id,category\nАнна Петрова,11,Ж\nБорис Иванов,12,М\nКоманда «Лось»,13,МЖ\n"
)
HIGH_SEVEN = ["2♣", "3♦", "4♥", "5♠", "7♣"]  # high card, 7 high: Anna's and Boris's
HANDS = {  # per participant: the hands saved, in order (cards as the pages print them)
    "11": [HIGH_SEVEN, ["9♥", "9♦", "9♣", "2♥", "3♥"]],  # high card; three of a kind
    "12": [HIGH_SEVEN, ["Q♥", "Q♦", "2♠", "3♠", "4♠"], ["K♥", "K♦", "K♣", "K♠", "2♦"]],
}
TEAM_EARLY = "K♠"  # the team's test scan before the (moved) opening
TEAM_HAND = ["8♠", "8♥", "8♦", "6♣", "6♦"]  # 6♦ is refused (hand_full) until K♠ stops


def phone_takes(phone, url: str, codes: dict[str, str], cards: list[str]) -> list[str]:
    """Take the CPs of `cards` through /t/{code}; the h1 of each result page."""
    titles = []
    for card in cards:
        phone.goto(f"{url}/t/{codes[card]}")
        assert "/me/takes/" in phone.url
        titles.append(phone.locator("h1").inner_text())
    return titles


def phone_bid(phone, url: str, place: int, category: str) -> None:
    """Bid the phone's combination of `category` in the auction for `place`."""
    phone.goto(f"{url}/me/ceremony")
    section = phone.locator("section", has=phone.locator(f"#place-{place}"))
    section.locator("label.choice", has_text=category).locator("input").check()
    section.get_by_role("button", name="Сделать ставку").click()
    assert "Ставка принята" in phone.inner_text("[role=status]")


def open_auction(page, url: str, event_path: str, place: int) -> None:
    page.goto(f"{event_path}/ceremony")
    assert page.get_by_role("button", name="Открыть аукцион").count() == 1  # only the next
    page.locator(f"#auction-{place}").locator("..").get_by_role(
        "button", name="Открыть аукцион"
    ).click()
    assert "Аукцион открыт" in page.inner_text("[role=status]")


def close_and_reveal(page, event_path: str, bids: int, place: int) -> None:
    page.goto(f"{event_path}/ceremony")
    wait_until(
        page, f"document.querySelector('[data-live-field=bids_{place}]').textContent === '{bids}'"
    )
    confirm_close(page)
    assert f"{event_path}/projector/{place}" in page.url
    reveal_everything(page)


def test_an_event_from_the_pages_on_an_empty_database(live_server, desk, browser, tmp_path):
    url = live_server.url
    page = desk.new_page()
    sign_in_organiser(page, f"{url}/admin", ADMIN_TOKEN)
    assert page.url == f"{url}/admin"
    check_page(page, "event-events")

    # Create the event: the course opened an hour ago (Moscow time) and runs 5 hours more.
    page.get_by_role("link", name="Новое событие").click()
    now = datetime.now(UTC).astimezone(MOSCOW)
    page.fill("#f-name", "Рогейн у озера")
    page.fill("#f-timezone", "Europe/Moscow")
    page.fill("#f-opens", f"{now - timedelta(hours=1):%Y-%m-%dT%H:%M}")
    page.fill("#f-closes", f"{now + timedelta(hours=5):%Y-%m-%dT%H:%M}")
    check_page(page, "event-new-event")
    page.get_by_role("button", name="Создать событие").click()
    assert "Событие создано" in page.inner_text("[role=status]")
    event_path = page.url.split("/checkpoints")[0]

    # Shuffle, edit CP 1's hint; the table gives each card's CP code (the organiser's view).
    page.fill("#f-seed", "16")
    page.get_by_role("button", name="Перетасовать").click()
    assert page.inner_text("[role=status]") == "Колода перетасована."
    page.get_by_label("Подсказка КП 1", exact=True).fill("Старая ель у родника")
    page.get_by_role("button", name="Сохранить КП 1", exact=True).click()
    assert page.inner_text("[role=status]") == "КП сохранён."
    codes = dict(
        page.evaluate(
            """() => [...document.querySelectorAll('tr[id^=cp-]')].map(row => [
                row.querySelector('td:nth-child(2) strong').textContent.trim(),
                row.querySelector('.mono').textContent.trim()])"""
        )
    )
    assert page.locator("tr[id^=cp-]").count() == 54 and len(codes) >= 52
    check_page(page, "event-checkpoints")
    page.get_by_role("link", name="Публичный список КП").click()
    assert "Старая ель у родника" in page.inner_text("main")
    assert codes["2♣"] not in page.content()  # no code on the public list
    check_page(page, "event-public-checkpoints")

    # Import the participants from a CSV file and print their cards.
    page.goto(f"{event_path}/participants")
    csv_file = tmp_path / "participants.csv"
    csv_file.write_text(PARTICIPANTS_CSV, encoding="utf-8")
    page.set_input_files("#f-p-file", str(csv_file))
    page.locator("form[action$='/participants/import'] button").click()
    assert "Участники загружены" in page.inner_text("[role=status]")
    check_page(page, "event-participants")
    with desk.expect_page() as popup:
        page.locator(".actions form[action$='/participant-cards'] button").click()
    cards = popup.value
    cards.wait_for_load_state()
    printed = cards.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('section.card')].map(card => [
            card.id.replace('participant-', ''),
            {url: card.querySelector('.url').textContent.trim(),
             saves: [...card.querySelectorAll('li')].map(li => li.lastChild.textContent.trim())}
        ]))"""
    )
    assert sorted(printed) == ["11", "12", "13"]
    assert "Коды сохранения" in cards.inner_text("main")
    assert all("/p/" in card["url"] and len(card["saves"]) == 10 for card in printed.values())
    screenshot(cards, "event-participant-cards-1280")
    cards.close()

    phones = {}
    for external_id, card in printed.items():
        phones[external_id] = new_context(
            browser, viewport={"width": 360, "height": 780}, service_workers="block"
        ).new_page()
        phones[external_id].goto(card["url"])
        assert phones[external_id].url == f"{url}/me"
    try:
        # The team scans K♠ "to try": it counts, the course being open. The new opening
        # is the next whole second, and every other take comes after it.
        team = phones["13"]
        assert phone_takes(team, url, codes, [TEAM_EARLY]) == ["Взятие засчитано"]
        new_opening = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=1)
        time.sleep(max(0.0, (new_opening - datetime.now(UTC)).total_seconds()) + 0.05)

        for external_id, hands in HANDS.items():
            phone = phones[external_id]
            for deal, hand in enumerate(hands):
                assert set(phone_takes(phone, url, codes, hand)) == {"Взятие засчитано"}
                confirm_code(phone, printed[external_id]["saves"][deal], "Да, сохранить")
                assert phone.locator("h1").inner_text() == "Комбинация сохранена"
        phone_takes(phones["11"], url, codes, ["2♣"])  # again: a duplicate, said in words
        assert "Вы уже брали этот КП" in phones["11"].inner_text("main")
        screenshot(phones["11"], "event-phone-duplicate-360")

        titles = phone_takes(team, url, codes, TEAM_HAND)
        assert titles == ["Взятие засчитано"] * 4 + ["Взятие не засчитано"]  # hand_full
        confirm_code(team, printed["13"]["saves"][0], "Да, сохранить")
        assert "сет (тройка)" in team.inner_text("main")  # K♠ 8♠ 8♥ 8♦ 6♣

        # The organiser's take log says why in words, never the raw code.
        page.goto(f"{event_path}/participants/11")
        log = page.inner_text(".take-log")
        assert "повтор КП" in log and "duplicate" not in log
        assert "телефон" in log and "phone" not in log
        check_page(page, "event-participant")
        page.goto(f"{event_path}/participants")
        assert "Сдача 4, раунд 1 · Рука (0 из 5)" in page.inner_text("tbody")  # Boris: 3 saved

        # The organiser moves the opening past K♠: preview, then confirm.
        page.goto(f"{event_path}/course")
        page.fill("#opens_at", f"{new_opening.astimezone(MOSCOW):%Y-%m-%dT%H:%M:%S}")
        page.get_by_role("button", name="Показать, что изменится").click()
        preview = page.inner_text("main")
        assert "Перестанут засчитываться: 1 взятие 1 участника." in preview
        assert "Начнут засчитываться: 1 взятие." in preview
        check_page(page, "event-course-window-preview")
        page.get_by_role("button", name="Да, изменить окно").click()
        assert "Перестали засчитываться: 1 взятие 1 участника." in page.inner_text("main")
        team.goto(f"{url}/me")
        assert "фулл-хаус" in team.inner_text("main") and "сет (тройка)" not in team.inner_text(
            "main"
        )

        # Close the course now: no take is dated after now, so none changes.
        page.get_by_role("button", name="Закрыть дистанцию сейчас…").click()
        # 38 takes: Anna 10 cards, 2 saves, a repeat; Boris 15 and 3; the team 6 and 1.
        assert "Ни одно взятие не изменится (проверено: 38 взятий 3 участников)." in (
            page.inner_text("main")
        )
        page.get_by_role("button", name="Да, закрыть дистанцию").click()
        assert "дистанция закрыта" in page.inner_text("main")
        check_page(page, "event-course-closed")

        # 3rd place: Anna from her phone, Boris on his behalf: the same high card, a tie.
        open_auction(page, url, event_path, 3)
        phone_bid(phones["11"], url, 3, "старшая карта")
        page.goto(f"{event_path}/ceremony")
        page.select_option("#participant", "12")
        page.get_by_role("button", name="Показать комбинации").click()
        page.locator("label.choice", has_text="старшая карта").locator("input").check()
        check_page(page, "event-ceremony-on-behalf")
        page.get_by_role("button", name="Поставить за: Борис Иванов").click()
        assert "Ставка за участника принята." in page.inner_text("[role=status]")
        close_and_reveal(page, event_path, 2, 3)
        assert page.locator(".reveal-list > li.tied").count() == 2
        assert "Ничья — переторжка: Раунд 2" in page.inner_text("main")
        screenshot(page, "event-projector-tie-1280")

        # Tie-break: Anna's three 9s beat Boris's pair of queens. Undo the close, repeat it.
        phone_bid(phones["11"], url, 3, "сет (тройка)")
        phone_bid(phones["12"], url, 3, "пара")
        # Undo before the reveal (confirmed), then close again and reveal.
        page.goto(f"{event_path}/ceremony")
        confirm_close(page)
        page.goto(f"{event_path}/ceremony")
        page.get_by_role("button", name="Отменить последнее закрытие…").click()
        page.get_by_role("button", name="Да, отменить закрытие").click()
        assert "Закрытие отменено" in page.inner_text("[role=status]")
        close_and_reveal(page, event_path, 2, 3)
        assert page.inner_text(".winner-banner").strip() == "Победитель: Анна Петрова"

        # 2nd place: the team's full house; 1st place: Boris's four kings.
        open_auction(page, url, event_path, 2)
        phone_bid(team, url, 2, "фулл-хаус")
        close_and_reveal(page, event_path, 1, 2)
        assert page.inner_text(".winner-banner").strip() == "Победитель: Команда «Лось»"
        open_auction(page, url, event_path, 1)
        phone_bid(phones["12"], url, 1, "каре")
        close_and_reveal(page, event_path, 1, 1)
        podium = page.locator(".podium").inner_text()
        names = " ".join(word for word in podium.split() if not word.isdigit())
        assert names == "Команда «Лось» Борис Иванов Анна Петрова"  # 2nd, 1st, 3rd
        screenshot(page, "event-projector-podium-1280")
        fixed = page.inner_text(".log-head code")  # the head fixed at the finish
        assert len(fixed) == 64
        page.goto(f"{event_path}/ceremony")
        check_page(page, "event-ceremony-finished")
        page.goto(f"{event_path}/settings")
        check_page(page, "event-settings")
        # Boris's phone stayed on the page since his bid: the head arrives live, then on load.
        head_shown = "(document.querySelector('.log-head code') || {}).textContent"
        wait_until(phones["12"], f"{head_shown} === '{fixed}'")
        phones["12"].goto(f"{url}/me/ceremony")
        assert "Победитель: Борис Иванов" in phones["12"].inner_text("main")
        assert phones["12"].inner_text(".log-head code") == fixed  # the same head, on the phone
        assert phones["12"].evaluate("document.documentElement.scrollWidth") <= 360
        screenshot(phones["12"], "event-phone-ceremony-360")
    finally:
        for phone in phones.values():
            phone.context.close()
