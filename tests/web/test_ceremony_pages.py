"""The ceremony on the phone: bid, receipt, withdraw, sealed until the close, results."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.events.models import Event
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.test_signin import admin_login, csrf_of


def play(client: TestClient, admin: dict, event, person, cards: list[str], start: datetime):
    """Five card takes and a save through the field feed (organiser API)."""
    codes = [event_cp_code(event, card) for card in cards] + [person.save_codes[0]]
    takes = [
        {
            "participant": person.external_id,
            "code": code,
            "taken_at": (start + timedelta(minutes=i)).isoformat(),
            "source": "field",
            "source_id": f"{person.external_id}-{i}",
        }
        for i, code in enumerate(codes)
    ]
    response = client.post(f"/api/v1/events/{event.id}/takes", json={"takes": takes}, headers=admin)
    assert [r["outcome"] for r in response.json()["results"]] == ["counted"] * 6


def test_bid_from_the_phone_sealed_until_the_close(
    client: TestClient, session: Session, admin: dict
):
    event = make_event(session)
    anna = make_participant(session, event, "41", name="Анна")
    boris = make_participant(session, event, "42", name="Борис")
    session.commit()
    start = datetime.now(UTC) - timedelta(minutes=50)
    # Anna: A♥ A♦ A♣ K♠ K♥ full house; Boris: 2♣ 3♦ 4♥ 5♠ 7♣ high card (worked by hand).
    play(client, admin, event, anna, ["AH", "AD", "AC", "KS", "KH"], start)
    play(client, admin, event, boris, ["2C", "3D", "4H", "5S", "7C"], start)
    session.execute(update(Event).where(Event.id == event.id).values(closes_at=datetime.now(UTC)))
    session.commit()

    phone = TestClient(client.app)
    phone.get(f"/p/{anna.access_token}")
    page = phone.get("/me/ceremony")
    assert "Аукционы ещё не начались" in page.text
    # The fallback poll: the live version (nothing changed yet) and the auctions' shape.
    assert phone.get("/me/ceremony.json").json() == {
        "version": 0,
        "shape": "3:pending:None;2:pending:None;1:pending:None",
    }
    assert phone.get("/me/ceremony.json?since=0").json() == {"version": 0}
    assert phone.get(f"/me/ceremony.json?since=0&event={event.id}").json() == {"version": 0}

    assert client.post(f"/api/v1/events/{event.id}/auctions/3/open", headers=admin).is_success
    # The poll now says what changed: version 1 (the opening), place 3 open in round 1.
    for url in ("/me/ceremony.json?since=0", f"/me/ceremony.json?since=0&event={event.id}"):
        assert phone.get(url).json() == {
            "version": 1,
            "shape": "3:open:1;2:pending:None;1:pending:None",
        }
    assert phone.get(f"/me/ceremony.json?since=1&event={event.id}").json() == {"version": 1}
    page = phone.get("/me/ceremony")
    token = csrf_of(page.text)
    combination_id = re.search(r'name="combination_id" value="(\d+)"', page.text).group(1)
    assert "фулл-хаус" in page.text

    # A forged form bids nothing.
    phone.post("/me/ceremony/3/bid", data={"combination_id": combination_id, "csrf_token": "x"})
    assert (
        client.get(f"/api/v1/events/{event.id}/auctions/3", headers=admin).json()["bid_count"] == 0
    )

    response = phone.post(
        "/me/ceremony/3/bid", data={"combination_id": combination_id, "csrf_token": token}
    )
    assert "Ставка принята" in response.text
    receipt = re.search(r'id="receipt-3">([0-9a-f]+)<', response.text).group(1)
    assert (
        client.get(f"/api/v1/events/{event.id}/auctions/3", headers=admin).json()["bid_count"] == 1
    )

    # Boris sees no bid of Anna's (sealed), only his own form.
    other = TestClient(client.app)
    other.get(f"/p/{boris.access_token}")
    boris_page = other.get("/me/ceremony").text
    assert receipt not in boris_page and "A♥" not in boris_page

    # Withdraw, then bid again; then the close reveals the results on the phone.
    bid_id = re.search(r'name="bid_id" value="(\d+)"', response.text).group(1)
    response = phone.post("/me/ceremony/3/withdraw", data={"bid_id": bid_id, "csrf_token": token})
    assert "Ставка отозвана" in response.text
    phone.post("/me/ceremony/3/bid", data={"combination_id": combination_id, "csrf_token": token})
    boris_token = csrf_of(boris_page)
    boris_combo = re.search(r'name="combination_id" value="(\d+)"', boris_page).group(1)
    other.post(
        "/me/ceremony/3/bid", data={"combination_id": boris_combo, "csrf_token": boris_token}
    )

    admin_login(client)
    ceremony = client.get(f"/admin/events/{event.id}/ceremony")
    assert client.get(f"/admin/events/{event.id}/ceremony.json").json()["bids_3"] == 2
    client.post(
        f"/admin/events/{event.id}/auctions/3/close",
        data={"csrf_token": csrf_of(ceremony.text), "confirm": "1"},
    )
    # Closed, being revealed (RULES.md I-21): the count, no bid, no winner yet.
    revealing = phone.get("/me/ceremony").text
    assert "Аукцион закрыт, идёт вскрытие ставок" in revealing
    assert "Ставок: 2 · Ещё не вскрыто: 2" in revealing
    assert "Победитель" not in revealing and "A♥" not in revealing and "2♣" not in revealing
    assert (
        phone.get(f"/me/ceremony.json?event={event.id}").json()["shape"].startswith("3:closed:1:0;")
    )
    # The projector's first step: Boris's high card (the weaker), on every phone.
    projector = client.get(f"/admin/events/{event.id}/projector/3").text
    client.post(
        f"/admin/events/{event.id}/auctions/3/reveal", data={"csrf_token": csrf_of(projector)}
    )
    revealing = phone.get("/me/ceremony").text
    assert "Ещё не вскрыто: 1" in revealing and "старшая карта" in revealing
    assert "A♥" not in revealing and "Победитель" not in revealing
    client.post(
        f"/admin/events/{event.id}/auctions/3/reveal",
        data={"csrf_token": csrf_of(projector), "all": "1"},
    )
    results = phone.get("/me/ceremony").text
    assert "Победитель: Анна" in results
    assert "Борис" in results and "старшая карта" in results
    # Anna has won a place: she takes no part in the later auctions (RULES.md I-8).
    client.post(
        f"/admin/events/{event.id}/auctions/2/open", data={"csrf_token": csrf_of(ceremony.text)}
    )
    assert "Вы уже выиграли место" in phone.get("/me/ceremony").text


def test_projector_and_phone_show_every_rounds_bids_and_an_unawarded_place(
    client: TestClient, session: Session, admin: dict
):
    from tests.auctions.test_api import TIE, bid, build

    w = build(session, TIE)
    # Round 1: P1 and P2 hold the same flush A-K-9-5-2 (suits never rank): a tie.
    assert client.post(w.url(3, "/open"), headers=admin).is_success
    for who, combo in [("P1", "P1_flush"), ("P2", "P2_flush"), ("P3", "P3_pair")]:
        assert bid(client, admin, w, 3, who, combo).status_code == 201
    reveal_all = {"headers": admin, "json": {"all": True}}
    assert client.post(w.url(3, "/close"), headers=admin).json()["status"] == "open"
    assert client.post(w.url(3, "/reveal"), **reveal_all).is_success
    assert bid(client, admin, w, 3, "P1", "P1_trips").status_code == 201
    assert bid(client, admin, w, 3, "P2", "P2_two_pair").status_code == 201
    assert client.post(w.url(3, "/close"), headers=admin).json()["winner"] == "P1"
    assert client.post(w.url(3, "/reveal"), **reveal_all).is_success

    admin_login(client)
    projector = client.get(f"/admin/events/{w.event_id}/projector/3").text
    assert "Раунд 1" in projector and "Раунд 2" in projector
    assert projector.count('class="who"') == 5  # 3 bids of round 1 + 2 of the tie-break
    assert "флеш" in projector and "тройка" in projector
    # Each bid in the evaluator's words, so the hall sees why it ranks where it does
    # (RULES.md §1.3): 7♣ 7♦ 7♠ 2♦ 3♣ and J♥ J♣ 2♣ 5♦ 9♦.
    assert "тройка семёрок, кикеры тройка, двойка" in projector
    assert "пара валетов, кикеры девятка, пятёрка, двойка" in projector

    phone = TestClient(client.app)
    phone.get(f"/p/{w.people['P3'].access_token}")
    page = phone.get("/me/ceremony").text
    assert "Раунд 1" in page and "Раунд 2" in page
    assert page.count('class="rank"') == 5
    assert "две пары, дамы и четвёрки, кикер восьмёрка" in page  # Q♣ Q♦ 4♣ 4♥ 8♥

    # Place 2 closed without bids: one reveal step, the outcome, and the projector says so.
    assert client.post(w.url(2, "/open"), headers=admin).is_success
    assert client.post(w.url(2, "/close"), headers=admin).is_success
    empty = client.get(f"/admin/events/{w.event_id}/projector/2").text
    assert "Место не присуждено" not in empty and "Ставок: 0" in empty
    assert client.post(w.url(2, "/reveal"), headers=admin).json()["complete"] is True
    empty = client.get(f"/admin/events/{w.event_id}/projector/2").text
    banner = re.search(r'<p class="winner-banner"[^>]*>\s*([^<]+)', empty)
    assert banner.group(1).strip() == "Место не присуждено (нет ставок)."
