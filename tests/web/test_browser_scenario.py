"""The issue's browser scenario, end to end in Debian's Chromium (RULES.md §1.2, §1.4).

A participant signs in by personal link, scans 5 CPs, discards 2, draws 2, saves; a
6th take (a CP already taken) shows why it did not count. Then the course closes, the
organiser opens the auction for 3rd place, the participant bids from the phone page,
the organiser closes it and the projector view reveals the bids and the winner.
Screenshots at 360 px and 1280 px go to test-artifacts/; axe-core checks the
participant pages (and a few organiser pages) for serious or critical violations.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.events.models import Event
from app.feed.models import Take
from tests.conftest import ADMIN_TOKEN
from tests.factories import discard_code, event_cp_code, make_event, make_participant
from tests.web.conftest import (
    WAIT_S,
    axe_violations,
    confirm_close,
    confirm_code,
    screenshot,
    wait_until,
)

pytestmark = pytest.mark.browser


def take_count(engine, participant_id: int) -> int:
    with Session(engine) as db:
        return db.scalar(
            select(func.count()).select_from(Take).where(Take.participant_id == participant_id)
        )


def test_participant_plays_a_deal_and_wins_an_auction(live_server, phone, desk):
    url = live_server.url
    with Session(live_server.engine) as db:
        event = make_event(db, name="Ночной рогейн")
        anna = make_participant(db, event, "11", name="Анна")
        boris = make_participant(db, event, "12", name="Борис")
        db.commit()
        event_id = event.id
        cp = {card: event_cp_code(event, card) for card in ("QH", "QD", "QC", "TS", "AC")}
        cp |= {card: event_cp_code(event, card) for card in ("QS", "JK1")}
        boris_cards = [event_cp_code(event, c) for c in ("2C", "3D", "4H", "5S", "7C")]

    page = phone.new_page()
    page.goto(f"{url}/p/{anna.access_token}")
    assert page.url == f"{url}/me"
    assert "Сдача 1, раунд 1" in page.inner_text("main")

    # Round 1: five card takes, each shows the card large and its discard code.
    for card, display in [("QH", "Q♥"), ("QD", "Q♦"), ("QC", "Q♣"), ("TS", "10♠"), ("AC", "A♣")]:
        page.goto(f"{url}/t/{cp[card]}")
        assert "/me/takes/" in page.url  # recorded, then redirected (PRG)
        assert page.locator(".big-card").inner_text() == display
        assert discard_code(card) in page.locator(".discard-code").inner_text()
        if card == "QH":
            screenshot(page, "participant-take-360")
            assert axe_violations(page) == []
    assert "Решите" in page.inner_text(".next-step")
    # Reloading the result page records nothing new.
    before = take_count(live_server.engine, anna.id)
    page.reload()
    assert take_count(live_server.engine, anna.id) == before == 5

    # Discard 10♠ and A♣ (one discard step: round 2), each with a confirmation.
    page.goto(f"{url}/me")
    page.fill("#code", discard_code("TS"))
    page.get_by_role("button", name="Проверить код").click()
    assert "Сбросить карту 10♠?" in page.inner_text("main")
    screenshot(page, "participant-confirm-360")
    assert axe_violations(page) == []
    page.get_by_role("button", name="Да, сбросить").click()
    assert "Карта сброшена: 10♠" in page.locator("h1").inner_text()
    confirm_code(page, discard_code("AC"), "Да, сбросить")
    assert "Карта сброшена: A♣" in page.locator("h1").inner_text()
    assert "Сдача 1, раунд 2" in page.inner_text("main")

    # Draw two: Q♠ and a joker.
    for card in ("QS", "JK1"):
        page.goto(f"{url}/t/{cp[card]}")
        assert page.locator("h1").inner_text() == "Взятие засчитано"

    # Save: five of a kind (four queens and a joker, RULES.md I-6), worked out by hand.
    confirm_code(page, anna.save_codes[0], "Да, сохранить")
    assert page.locator("h1").inner_text() == "Комбинация сохранена"
    assert "покер (пять одинаковых)" in page.inner_text("main")
    assert "Сдача 2, раунд 1" in page.inner_text("main")

    # A 6th CP scan: Q♥ again is a duplicate (RULES.md §1.2 rule 2), said in plain words.
    page.goto(f"{url}/t/{cp['QH']}")
    assert page.locator("h1").inner_text() == "Взятие не засчитано"
    assert "Вы уже брали этот КП" in page.inner_text("[role=alert]")
    screenshot(page, "participant-not-counted-360")
    assert axe_violations(page) == []

    page.goto(f"{url}/me")
    assert "покер (пять одинаковых)" in page.inner_text("main")
    screenshot(page, "participant-my-game-360")
    assert axe_violations(page) == []
    page.set_viewport_size({"width": 1280, "height": 800})
    screenshot(page, "participant-my-game-1280")
    page.set_viewport_size({"width": 360, "height": 780})

    # Boris plays through the field feed (organiser API): 5 cards and a save, high card.
    with httpx.Client(
        base_url=url, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=WAIT_S
    ) as api:
        start = datetime.now(UTC) - timedelta(minutes=30)
        takes = [
            {
                "participant": "12",
                "code": code,
                "taken_at": (start + timedelta(minutes=i)).isoformat(),
                "source": "field-app",
                "source_id": f"b{i}",
            }
            for i, code in enumerate([*boris_cards, boris.save_codes[0]])
        ]
        response = api.post(f"/api/v1/events/{event_id}/takes", json={"takes": takes})
        assert response.status_code == 200, response.text
        assert [r["outcome"] for r in response.json()["results"]] == ["counted"] * 6

    # The organiser signs in and looks at the dashboard while the course is open.
    admin = desk.new_page()
    admin.goto(f"{url}/admin/events/{event_id}")
    admin.fill("#token", ADMIN_TOKEN)
    admin.get_by_role("button", name="Войти").click()
    assert admin.url == f"{url}/admin/events/{event_id}"
    assert admin.locator("[data-live-field=participants]").inner_text() == "2"
    screenshot(admin, "admin-dashboard-1280")
    assert axe_violations(admin) == []
    admin.goto(f"{url}/admin/events/{event_id}/participants/11")
    assert "Анна" in admin.locator("h1").inner_text()
    screenshot(admin, "admin-participant-1280")
    assert axe_violations(admin) == []

    # The course closes; the ceremony starts with the auction for 3rd place.
    with Session(live_server.engine) as db:
        db.execute(update(Event).where(Event.id == event_id).values(closes_at=datetime.now(UTC)))
        db.commit()
    admin.goto(f"{url}/admin/events/{event_id}/ceremony")
    admin.locator("#auction-3").locator("..").get_by_role("button", name="Открыть аукцион").click()
    assert "Аукцион открыт" in admin.inner_text("[role=status]")

    # Anna bids from the phone; Boris's bid comes in through the API on his behalf.
    page.goto(f"{url}/me/ceremony")
    assert "Аукцион открыт" in page.inner_text("main")
    screenshot(page, "participant-ceremony-open-360")
    assert axe_violations(page) == []
    # Nothing is preselected (issue 17): the participant picks the combination.
    assert page.locator("input[name=combination_id]:checked").count() == 0
    page.locator("input[name=combination_id]").first.check()
    page.get_by_role("button", name="Сделать ставку").click()
    assert "Ставка принята" in page.inner_text("[role=status]")
    receipt = page.locator("#receipt-3").inner_text()
    assert len(receipt) >= 32
    screenshot(page, "participant-ceremony-bid-360")
    assert axe_violations(page) == []
    with httpx.Client(
        base_url=url, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=WAIT_S
    ) as api:
        state = api.get(f"/api/v1/events/{event_id}/participants/12/state").json()
        combination_id = state["combinations"][0]["id"]
        response = api.post(
            f"/api/v1/events/{event_id}/auctions/3/bids",
            json={"participant": "12", "combination_id": combination_id},
        )
        assert response.status_code in (200, 201), response.text

    # The organiser's count of sealed bids updates live (polling), without a reload.
    admin.goto(f"{url}/admin/events/{event_id}/ceremony")
    wait_until(admin, "document.querySelector('[data-live-field=bids_3]').textContent === '2'")
    screenshot(admin, "admin-ceremony-1280")

    # Close (confirmed): the projector reveals weakest to strongest, then the winner and
    # the podium; each step is a form the server answers (RULES.md I-21).
    confirm_close(admin)
    assert f"/admin/events/{event_id}/projector/3" in admin.url
    items = admin.locator(".reveal-list > li")
    assert items.count() == 0 and "идёт вскрытие ставок" in admin.inner_text("main")
    admin.get_by_role("button", name="Показать следующую").click()
    assert items.count() == 1 and "Борис" in items.nth(0).inner_text()
    admin.get_by_role("button", name="Показать следующую").click()
    assert items.count() == 2 and "Анна" in items.nth(1).inner_text()
    assert admin.locator(".winner-banner").inner_text().strip() == (
        "Аукцион закрыт, идёт вскрытие ставок"
    )
    admin.get_by_role("button", name="Показать следующую").click()
    assert admin.locator(".winner-banner").first.inner_text().strip() == "Победитель: Анна"
    assert "Анна" in admin.locator(".podium").inner_text()
    assert admin.locator("#reveal-next").count() == 0
    screenshot(admin, "admin-projector-1280")
    assert axe_violations(admin) == []

    # The phone shows the revealed results.
    page.goto(f"{url}/me/ceremony")
    assert "Победитель: Анна" in page.inner_text("main")
    screenshot(page, "participant-ceremony-results-360")
    assert axe_violations(page) == []
