"""The organiser closes the course safely and runs the ceremony from the pages (issue 16).

Four participants play through the field feed (API). In Chromium the organiser previews
a window change (6 takes of 1 participant would stop counting) and confirms it, closes
the course now (2 takes dated after the close stop counting), then runs the three
auctions from the ceremony page: only the next auction can open, a bid on behalf of a
participant, a confirmed close (issue 23: the phone at 360 px shows "closed, being
revealed" until the projector reveals, RULES.md I-21), an undo before any reveal, an undo
refused after the first reveal step, a tie in the auction for 3rd place whose tie-break
round the projector counts live; the projector reveals step by step (forms the server
answers) and ends with the podium. Screenshots at 1280 and 360 px; axe-core on every page
shown.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auctions.models import Bid
from app.events.models import Event
from tests.conftest import ADMIN_TOKEN
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.conftest import (
    WAIT_S,
    axe_violations,
    confirm_close,
    new_context,
    reveal_everything,
    screenshot,
    wait_until,
)

pytestmark = pytest.mark.browser
MOSCOW = ZoneInfo("Europe/Moscow")

HIGH_SEVEN = ["2C", "3D", "4H", "5S", "7C"]  # high card, 7 high
DEALS = {
    "1": [["AH", "AD", "AC", "KS", "KH"]],  # Анна: full house
    "2": [HIGH_SEVEN, ["QH", "QD", "2S", "3S", "4S"], ["KH", "KD", "KC", "KS", "2D"]],  # Борис
    "3": [HIGH_SEVEN, ["9H", "9D", "9C", "2H", "3H"]],  # Вера: high card, three of a kind
    "4": [["8S", "8H", "8D", "6C", "6D"]],  # Глеб: plays in the first minutes only
}


def feed_items(event, people, opens: datetime, now: datetime) -> list[dict]:
    """Gleb's 6 takes at opening + 1..6 min; the others' from opening + 20 min, one a
    minute; then Boris takes 2 more cards dated 2 and 3 min after now (a fast clock)."""
    items = []
    for external_id, deals in DEALS.items():
        person = people[external_id]
        moment = opens + timedelta(minutes=1 if external_id == "4" else 20 + 40 * int(external_id))
        for deal, cards in enumerate(deals):
            for code in [event_cp_code(event, c) for c in cards] + [person.save_codes[deal]]:
                items.append((external_id, code, moment))
                moment += timedelta(minutes=1)
    items += [
        ("2", event_cp_code(event, c), now + timedelta(minutes=m))
        for c, m in (("6H", 2), ("7H", 3))
    ]
    return [
        {
            "participant": p,
            "code": code,
            "taken_at": at.isoformat(),
            "source": "app",
            "source_id": f"t{i}",
        }
        for i, (p, code, at) in enumerate(items)
    ]


def bid(api: httpx.Client, event_id: int, place: int, token: str, combination_id: int) -> None:
    response = api.post(
        f"/api/v1/events/{event_id}/auctions/{place}/bids",
        json={"combination_id": combination_id},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201, response.text


def check(page, name: str) -> None:
    screenshot(page, name)
    assert axe_violations(page) == []


def test_course_close_and_ceremony_from_the_pages(live_server, desk, phone, browser):
    url = live_server.url
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    opens = now - timedelta(hours=4)
    with Session(live_server.engine) as db:
        event = make_event(
            db, name="Рогейн «Лосиный остров»", opens_at=opens, closes_at=now + timedelta(hours=5)
        )
        names = {"1": "Анна", "2": "Борис", "3": "Вера", "4": "Глеб"}
        people = {ext: make_participant(db, event, ext, name=name) for ext, name in names.items()}
        db.commit()
        event_id = event.id
        items = feed_items(event, people, opens, datetime.now(UTC))
    api = httpx.Client(
        base_url=url, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=WAIT_S
    )
    response = api.post(f"/api/v1/events/{event_id}/takes", json={"takes": items})
    assert [r["outcome"] for r in response.json()["results"]] == ["counted"] * len(items)

    def combinations(external_id: str) -> list[int]:
        state = api.get(f"/api/v1/events/{event_id}/participants/{external_id}/state").json()
        return [c["id"] for c in state["combinations"]]

    page = desk.new_page()
    page.goto(f"{url}/admin/events/{event_id}/course")
    page.fill("#token", ADMIN_TOKEN)
    page.get_by_role("button", name="Войти").click()
    assert page.url == f"{url}/admin/events/{event_id}/course"
    assert "дистанция открыта" in page.inner_text("main")
    check(page, "admin-course-1280")

    # The ceremony waits for the close and says until when, in event time.
    page.goto(f"{url}/admin/events/{event_id}/ceremony")
    closes_local = (now + timedelta(hours=5)).astimezone(MOSCOW)
    assert f"{closes_local:%Y-%m-%d %H:%M} MSK (Europe/Moscow)" in page.inner_text(
        "#course-open-refusal"
    )
    assert page.get_by_role("button", name="Открыть аукцион").count() == 0

    # The window opens 10 min later: Gleb's 6 takes would stop counting. Preview first.
    page.goto(f"{url}/admin/events/{event_id}/course")
    later = (opens + timedelta(minutes=10)).astimezone(MOSCOW)
    page.fill("#opens_at", f"{later:%Y-%m-%dT%H:%M}")
    page.get_by_role("button", name="Показать, что изменится").click()
    assert "Перестанут засчитываться: 6 взятий 1 участника." in page.inner_text("main")
    check(page, "admin-course-window-preview-1280")
    with Session(live_server.engine) as db:
        assert db.get(Event, event_id).opens_at == opens  # the preview stored nothing
    page.get_by_role("button", name="Да, изменить окно").click()
    assert "Окно дистанции изменено." in page.inner_text("main")
    assert "Перестали засчитываться: 6 взятий 1 участника." in page.inner_text("main")
    assert combinations("4") == []

    # Close the course now: Boris's 2 takes dated after now stop counting.
    page.get_by_role("button", name="Закрыть дистанцию сейчас…").click()
    assert "Перестанут засчитываться: 2 взятия 1 участника." in page.inner_text("main")
    check(page, "admin-course-close-preview-1280")
    page.set_viewport_size({"width": 360, "height": 780})
    check(page, "admin-course-close-preview-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.get_by_role("button", name="Да, закрыть дистанцию").click()
    assert "Перестали засчитываться: 2 взятия 1 участника." in page.inner_text("main")
    assert "дистанция закрыта" in page.inner_text("main")
    assert api.get(f"/api/v1/events/{event_id}").json()["status"] == "course_closed"
    check(page, "admin-course-closed-1280")

    # Auction for 3rd place: the only Open button. Boris's bid is placed on his behalf.
    boris, vera, anna = combinations("2"), combinations("3"), combinations("1")
    page.goto(f"{url}/admin/events/{event_id}/ceremony")
    assert page.get_by_role("button", name="Открыть аукцион").count() == 1
    page.locator("#auction-3").locator("..").get_by_role("button", name="Открыть аукцион").click()
    assert api.get(f"/api/v1/events/{event_id}").json()["status"] == "ceremony"
    page.select_option("#participant", "2")
    page.get_by_role("button", name="Показать комбинации").click()
    assert page.locator("input[name=combination_id]").count() == 3
    page.check(f"input[name=combination_id][value='{boris[0]}']")
    check(page, "admin-ceremony-on-behalf-1280")
    page.set_viewport_size({"width": 360, "height": 780})
    check(page, "admin-ceremony-on-behalf-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.get_by_role("button", name="Поставить за: Борис").click()
    assert "Ставка за участника принята." in page.inner_text("[role=status]")
    with Session(live_server.engine) as db:
        assert db.scalars(select(Bid.placed_by)).all() == ["organiser"]
    bid(api, event_id, 3, people["3"].access_token, vera[0])  # the same five cards: a tie
    wait_until(page, "document.querySelector('[data-live-field=bids_3]').textContent === '2'")

    # Vera's phone (360 px) watches the ceremony page (live stream).
    vera_phone = phone.new_page()
    vera_phone.goto(f"{url}/p/{people['3'].access_token}")
    vera_phone.goto(f"{url}/me/ceremony")
    vera_phone.wait_for_function("() => !document.querySelector('[data-live-mode=poll]')")
    live_text = "document.querySelector('#ceremony-live').innerText"

    # Close: the confirmation says what will happen; then the projector, sealed.
    page.get_by_role("button", name="Закрыть аукцион…").click()
    confirm_text = page.inner_text("main")
    assert "Закрыть аукцион за 3 место?" in confirm_text
    assert "Ставок в раунде 1: 2." in confirm_text
    assert "только пока не вскрыта первая ставка" in confirm_text
    check(page, "admin-ceremony-close-confirm-1280")
    page.get_by_role("button", name="Да, закрыть аукцион").click()
    assert f"/admin/events/{event_id}/projector/3" in page.url
    assert "Аукцион закрыт, идёт вскрытие ставок" in page.inner_text("main")
    assert page.locator(".reveal-list > li").count() == 0 and "Ничья" not in page.inner_text("main")
    # The phone: closed, being revealed, the count only (RULES.md I-21).
    wait_until(vera_phone, f"{live_text}.includes('идёт вскрытие ставок')")
    assert "Ещё не вскрыто: 2" in vera_phone.inner_text("#ceremony-live")
    assert "Q♥" not in vera_phone.inner_text("main") and "Победитель" not in vera_phone.inner_text(
        "main"
    )
    check(vera_phone, "phone-ceremony-revealing-360")

    # Nothing is revealed yet: the close may still be undone (confirmed), and redone.
    page.goto(f"{url}/admin/events/{event_id}/ceremony")
    page.get_by_role("button", name="Отменить последнее закрытие…").click()
    assert "Раунд 1 снова откроется" in page.inner_text("main")
    page.set_viewport_size({"width": 360, "height": 780})
    check(page, "admin-ceremony-undo-confirm-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.get_by_role("button", name="Да, отменить закрытие").click()
    assert "Закрытие отменено" in page.inner_text("[role=status]")
    wait_until(vera_phone, f"!{live_text}.includes('идёт вскрытие ставок')")
    page.get_by_role("button", name="Закрыть аукцион…").click()
    page.get_by_role("button", name="Да, закрыть аукцион").click()
    # The ceremony page as it was before the reveal, in a browser without JavaScript (the
    # page works without it, and does not update itself): it still offers the undo.
    no_js = new_context(browser, viewport={"width": 1280, "height": 800}, java_script_enabled=False)
    stale = no_js.new_page()
    stale.goto(f"{url}/admin/events/{event_id}/ceremony")
    stale.fill("#token", ADMIN_TOKEN)
    stale.get_by_role("button", name="Войти").click()
    assert stale.get_by_role("button", name="Отменить последнее закрытие…").count() == 1

    # The first step: one bid on the projector, and on the phone by the live stream.
    page.get_by_role("button", name="Показать следующую").click()
    assert page.locator(".reveal-list > li").count() == 1
    wait_until(vera_phone, f"{live_text}.includes('Ещё не вскрыто: 1')")
    check(page, "admin-projector-step-1280")

    # After a reveal no path undoes the close: the stale form is refused, with the reason.
    stale.get_by_role("button", name="Отменить последнее закрытие…").click()
    assert "Ставки этого раунда уже вскрыты" in stale.inner_text("main")
    assert stale.get_by_role("button", name="Отменить последнее закрытие…").count() == 0
    no_js.close()
    refused = api.post(f"/api/v1/events/{event_id}/auctions/3/undo")
    assert (refused.status_code, refused.json()["code"]) == (409, "undo_after_reveal")

    # Reveal the rest: a tie; both top bids highlighted; round 2 counts its own bids live.
    page.get_by_role("button", name="Показать всё").click()
    assert page.locator(".reveal-list > li.tied").count() == 2
    assert "Ничья — переторжка: Раунд 2" in page.inner_text("main")
    assert page.locator("#reveal-next").count() == 0
    assert page.locator("[data-live-field=bids_3]").inner_text() == "0"
    wait_until(vera_phone, f"{live_text}.includes('Ничья')")
    check(vera_phone, "phone-ceremony-tie-360")

    # Tie-break: Boris a pair of queens, Vera three nines; the projector counts round 2.
    bid(api, event_id, 3, people["2"].access_token, boris[1])
    wait_until(page, "document.querySelector('[data-live-field=bids_3]').textContent === '1'")
    bid(api, event_id, 3, people["3"].access_token, vera[1])
    wait_until(page, "document.querySelector('[data-live-field=bids_3]').textContent === '2'")
    check(page, "admin-projector-tie-1280")
    page.goto(f"{url}/admin/events/{event_id}/ceremony")
    confirm_close(page)
    reveal_everything(page)
    assert "Победитель: Вера" in page.inner_text(".winner-banner")
    wait_until(vera_phone, f"{live_text}.includes('Победитель: Вера')")
    check(vera_phone, "phone-ceremony-winner-360")

    # 2nd place: Anna's full house; 1st place: Boris's four kings (seed, 7.5 lots seed).
    for place, token, combination in (
        (2, people["1"].access_token, anna[0]),
        (1, people["2"].access_token, boris[2]),
    ):
        page.goto(f"{url}/admin/events/{event_id}/ceremony")
        assert page.get_by_role("button", name="Открыть аукцион").count() == 1
        page.locator(f"#auction-{place}").locator("..").get_by_role(
            "button", name="Открыть аукцион"
        ).click()
        bid(api, event_id, place, token, combination)
        page.fill(f"#lots-seed-{place}", "7")
        confirm_close(page)
        reveal_everything(page)
    podium = page.locator(".podium").inner_text()
    assert [line for line in podium.split() if not line.isdigit()] == ["Анна", "Борис", "Вера"]
    assert page.locator("#reveal-next").count() == 0
    check(page, "admin-projector-podium-1280")
    assert api.get(f"/api/v1/events/{event_id}").json()["status"] == "finished"
    page.goto(f"{url}/admin/events/{event_id}/ceremony")
    check(page, "admin-ceremony-finished-1280")
    api.close()
