"""The phone at night (issue 17 item 3), through TestClient: the dark theme switch, the
hand with its discard codes, value and discards left, a hand_full take's CP number, the
code field on the result page, the closed course, the ceremony form and receipt copy,
combinations from the strongest; the organiser's log shows a corrected device clock."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.events.models import Event
from app.web.assets import static_url
from tests.factories import (
    DECK,
    discard_code,
    event_cp_code,
    make_combination,
    make_event,
    make_participant,
)
from tests.web.test_participant_pages import signed_in
from tests.web.test_signin import admin_login, csrf_of

CODE_FORM = 'action="/me/code"'


def cp_number(card: str) -> int:
    """The test deck's CP number of a card (DECK order, from 1)."""
    return DECK.index(card) + 1


def scan(client: TestClient, event: Event, card: str) -> str:
    """Scan a CP's QR page; the result page's HTML."""
    response = client.get(f"/t/{event_cp_code(event, card)}", follow_redirects=False)
    assert response.status_code == 303, response.text
    return client.get(response.headers["location"]).text


def hand_slots(html: str) -> list[tuple[str, str]]:
    """(card as shown, discard code under it) of each card of the hand panel."""
    return re.findall(
        r'<li class="hand-slot"><span class="playing-card [a-z]+">([^<]+)</span>'
        r'<span class="dc mono"[^>]*>([A-Z0-9]+)</span></li>',
        html,
    )


def test_a_three_card_hand_shows_the_category_it_already_makes(
    client: TestClient, session: Session
):
    """Q♥ 7♠ + joker: the joker is the second queen (RULES.md I-6): one pair, queens —
    on the take result page and on `/me`, in Russian and in English."""
    event = make_event(session)
    anna = make_participant(session, event, "32", name="Анна")
    session.commit()
    signed_in(client, anna.access_token)
    assert "Значение руки" not in client.get("/me").text  # an empty hand has no value
    assert "Значение руки: старшая карта, дама</p>" in scan(client, event, "QH")
    scan(client, event, "7S")
    result = scan(client, event, "JK1")
    assert "Значение руки: пара дам</p>" in result
    assert "Значение руки: пара дам</p>" in client.get("/me").text
    client.get("/lang/en?next=/me")
    assert "Hand value: one pair, queens</p>" in client.get("/me").text


def test_the_hand_shows_codes_under_cards_its_value_and_the_discards_left(
    client: TestClient, session: Session
):
    event = make_event(session)
    anna = make_participant(session, event, "31", name="Анна")
    session.commit()
    signed_in(client, anna.access_token)
    for card in ("QH", "QD", "QC", "7S"):
        scan(client, event, card)
    four = client.get("/me").text
    # Four cards: the category they already make, no kickers (RULES.md §1.3).
    assert "Значение руки: тройка дам</p>" in four
    assert "Сбросов осталось: 2 из 2" in four

    page = scan(client, event, "2H")
    assert hand_slots(page) == [
        ("Q♥", "DQH"),
        ("Q♦", "DQD"),
        ("Q♣", "DQC"),
        ("7♠", "D7S"),
        ("2♥", "D2H"),
    ]
    # The evaluator's description: three queens, kickers 7 and 2 (RULES.md §1.3).
    me = client.get("/me").text
    assert "Значение руки: тройка дам, кикеры семёрка, двойка" in me
    client.get("/lang/en?next=/me")
    assert "Hand value: three of a kind, queens, kickers seven, two" in client.get("/me").text
    client.get("/lang/ru?next=/me")

    # One discard step (2♥) leaves one discard in this deal.
    token = csrf_of(me)
    confirm = client.post("/me/code", data={"code": discard_code("2H"), "csrf_token": token})
    source_id = re.search(r'name="source_id" value="([^"]+)"', confirm.text).group(1)
    client.post(
        "/me/code/confirm",
        data={"code": discard_code("2H"), "csrf_token": token, "source_id": source_id},
    )
    me = client.get("/me").text
    assert "Сбросов осталось: 1 из 2" in me
    assert [card for card, _ in hand_slots(me)] == ["Q♥", "Q♦", "Q♣", "7♠"]


def test_a_hand_full_take_shows_its_cp_number_but_not_its_card(
    client: TestClient, session: Session
):
    event = make_event(session)
    anna = make_participant(session, event, "32")
    session.commit()
    signed_in(client, anna.access_token)
    for card in ("2S", "3S", "4S", "5S", "7H"):
        scan(client, event, card)
    page = scan(client, event, "KH")
    assert f"КП {cp_number('KH')}:" in page  # CP 25
    assert "K♥" not in page and "DKH" not in page  # I-1: the card stays hidden
    me = client.get("/me").text
    assert "КП 25" in me and "K♥" not in me  # the take log on /me too
    bearer = {"Authorization": f"Bearer {anna.access_token}"}
    state = client.get("/api/v1/me/state", headers=bearer).json()
    last = state["takes"][-1]
    assert (last["reason"], last["checkpoint"], last["card"]) == ("hand_full", 25, None)


def test_the_result_page_has_the_code_field_and_the_closed_course_hides_it(
    client: TestClient, session: Session
):
    event = make_event(session)
    anna = make_participant(session, event, "33")
    session.commit()
    signed_in(client, anna.access_token)
    result = scan(client, event, "QH")
    assert CODE_FORM in result and 'name="code"' in result
    open_page = client.get("/me").text
    assert CODE_FORM in open_page and "Собирайте карты: нужно ещё 4." in open_page

    session.execute(update(Event).where(Event.id == event.id).values(closes_at=datetime.now(UTC)))
    session.commit()
    me = client.get("/me").text
    assert "Дистанция закрыта." in me
    assert CODE_FORM not in me and 'name="code"' not in me
    assert "Собирайте карты" not in me  # no next step after the close
    bearer = {"Authorization": f"Bearer {anna.access_token}"}
    take_id = client.get("/api/v1/me/state", headers=bearer).json()["takes"][0]["take_id"]
    assert CODE_FORM not in client.get(f"/me/takes/{take_id}").text


def test_combinations_from_the_strongest_and_a_bid_form_that_preselects_nothing(
    client: TestClient, session: Session, admin: dict
):
    event = make_event(session)
    anna = make_participant(session, event, "34")
    start = event.opens_at + timedelta(minutes=1)
    # Saved in this order: high card, full house (aces over kings), one pair (twos).
    high = make_combination(session, event, anna, ["2C", "5D", "8H", "JS", "KC"], start)
    full = make_combination(
        session, event, anna, ["AH", "AD", "AC", "KS", "KH"], start + timedelta(minutes=5)
    )
    pair = make_combination(
        session, event, anna, ["2H", "2D", "9C", "JC", "QD"], start + timedelta(minutes=9)
    )
    ids = [full.id, pair.id, high.id]
    session.execute(update(Event).where(Event.id == event.id).values(closes_at=datetime.now(UTC)))
    session.commit()
    signed_in(client, anna.access_token)
    me = client.get("/me").text
    shown = [me.index(text) for text in ("фулл-хаус", "пара", "старшая карта")]
    assert shown == sorted(shown)

    assert client.post(f"/api/v1/events/{event.id}/auctions/3/open", headers=admin).is_success
    page = client.get("/me/ceremony").text
    radios = re.findall(r'<input type="radio" name="combination_id" value="(\d+)"[^>]*>', page)
    assert [int(value) for value in radios] == ids
    assert "checked" not in re.findall(r"<fieldset>.*?</fieldset>", page, re.S)[0]

    bid = client.post(
        "/me/ceremony/3/bid", data={"combination_id": str(full.id), "csrf_token": csrf_of(page)}
    ).text
    receipt = re.search(r'id="receipt-3">([0-9a-f]{64})<', bid).group(1)
    assert receipt
    assert re.search(
        r'<button type="button" class="secondary copy" data-copy="receipt-3" '
        r'data-copied="Скопировано" hidden>Копировать</button>',
        bid,
    )
    assert f'<script type="module" src="{static_url("copy.js")}"></script>' in bid


def test_the_theme_follows_the_system_and_the_switch_is_a_cookie(
    client: TestClient, session: Session
):
    event = make_event(session)
    anna = make_participant(session, event, "35")
    session.commit()
    signed_in(client, anna.access_token)
    page = client.get("/me").text
    assert '<html lang="ru">' in page  # no data-theme: the system decides
    assert '<meta name="color-scheme" content="light dark">' in page
    assert 'href="/theme/dark?next=/me"' in page
    # No inline script (CSP script-src 'self'): every script has a src.
    assert re.findall(r"<script(?![^>]*\ssrc=)[^>]*>", page) == []

    switched = client.get("/theme/dark?next=/me", follow_redirects=False)
    assert (switched.status_code, switched.headers["location"]) == (303, "/me")
    page = client.get("/me").text
    assert 'data-theme="dark"' in page and 'content="dark"' in page
    assert 'href="/theme/light?next=/me"' in page
    client.get("/theme/light")
    assert 'data-theme="light"' in client.get("/me").text
    client.get("/theme/auto")
    assert "data-theme" not in client.get("/me").text
    # An unknown theme or a foreign `next` changes nothing and stays on the site.
    odd = client.get("/theme/purple?next=https://evil.example/", follow_redirects=False)
    assert odd.headers["location"] == "/me"
    assert "data-theme" not in client.get("/me").text

    css = client.get("/static/app.css").text
    assert "@media (prefers-color-scheme: dark)" in css
    assert ':root[data-theme="dark"]' in css


def test_the_organisers_log_shows_the_device_time_and_the_offset(
    client: TestClient, session: Session, admin: dict
):
    event = make_event(session)
    make_participant(session, event, "36")
    session.commit()
    now = datetime.now(UTC)
    stamp = now.replace(microsecond=0) + timedelta(minutes=7)  # a device 7 minutes fast
    body = {
        "sent_at": stamp.isoformat(),
        "takes": [
            {
                "participant": "36",
                "code": event_cp_code(event, "QH"),
                "taken_at": stamp.isoformat(),
                "source": "fixpoint-7",
                "source_id": "fp-1",
            }
        ],
    }
    response = client.post(f"/api/v1/events/{event.id}/takes", json=body, headers=admin)
    assert response.json()["results"][0]["outcome"] == "counted"
    admin_login(client)
    page = client.get(f"/admin/events/{event.id}/participants/36").text
    device = stamp.astimezone(event_zone()).strftime("%d.%m %H:%M:%S")
    assert f"по часам устройства {device}" in page
    assert re.search(r"поправка -4[12]\d с", page)  # −420 s, less the request's own time


def event_zone():
    from zoneinfo import ZoneInfo

    return ZoneInfo("Europe/Moscow")


def test_the_warnings_page_lists_the_devices_whose_clocks_were_off(
    client: TestClient, session: Session, admin: dict
):
    event = make_event(session)
    make_participant(session, event, "37")
    session.commit()
    stamp = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=7)
    body = {
        "sent_at": stamp.isoformat(),
        "takes": [
            {
                "participant": "37",
                "code": event_cp_code(event, card),
                "taken_at": stamp.isoformat(),
                "source": "fixpoint-7",
                "source_id": f"fp-{card}",
            }
            for card in ("QH", "QD")
        ],
    }
    client.post(f"/api/v1/events/{event.id}/takes", json=body, headers=admin)
    admin_login(client)
    # the dashboard links the warnings page, which lists them (reading every take: not on
    # the dashboard, whose cost does not grow with the event, issue 24)
    dashboard = client.get(f"/admin/events/{event.id}").text
    assert f'href="/admin/events/{event.id}/warnings"' in dashboard
    page = client.get(f"/admin/events/{event.id}/warnings").text
    table = re.search(r'<table class="device-clocks">.*?</table>', page, re.S).group(0)
    row = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", table.split("<tbody>")[1])).strip()
    assert re.fullmatch(r"fixpoint-7 2 -4[12]\d с 37", row), row
