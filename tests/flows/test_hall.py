"""The hall screen (issue 29 item 2): its data from a small world, worked out by hand,
and who may watch it (private by default; public once the owner says so; the organiser
always)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy.orm import Session

from app.events.models import Event
from app.flows import hall as hall_flow
from tests.factories import make_participant
from tests.feed.conftest import OPENS, World, at
from tests.feed.test_tallies import deliver
from tests.live.test_stream import ceremony_event
from tests.web.test_signin import admin_login, csrf_of

NOW = OPENS + timedelta(minutes=95)  # 1 h 35 min into the course


def play(client: TestClient, admin: dict, session: Session, world: World) -> None:
    """Alice: 2S 3S 4S 5S 6S at minutes 1, 2, 12, 25, 26, saves them at 27. Bob: 2S at 3,
    2H at 14, a code that is no CP's at 15, 3H at 64. Carol: no take."""
    make_participant(session, session.get(Event, world.id), "103", "Carol")
    session.commit()
    alice = [("101", world.cp(card), minute) for card, minute in
             [("2S", 1), ("3S", 2), ("4S", 12), ("5S", 25), ("6S", 26)]]  # fmt: skip
    alice.append(("101", world.alice.save_codes[0], 27))
    bob = [("102", world.cp("2S"), 3), ("102", world.cp("2H"), 14), ("102", "NOPE", 15)]
    bob.append(("102", world.cp("3H"), 64))
    results = deliver(client, admin, world, alice + bob)
    assert [r["reason"] for r in results] == [None] * 8 + ["unknown_code", None]


def test_the_hall_data_of_a_small_world(
    client: TestClient, admin: dict, session: Session, world: World
) -> None:
    play(client, admin, session, world)
    session.expire_all()
    event = session.get(Event, world.id)
    data = hall_flow.with_clock(hall_flow.hall_data(session, event, NOW), event, NOW)
    # 3 registered; at 95 min the quiet limit is 60 min: Bob (last take at 64) is out,
    # Alice (last at 27) finished, Carol never started
    assert (data["participants"], data["on_course"], data["finished"]) == (3, 1, 1)
    # bars from the opening to the one holding minute 95: [0,10) … [90,100)
    assert data["chart"]["start"][0] == OPENS.isoformat()
    assert data["chart"]["start"][-1] == at(90).isoformat()
    assert data["chart"]["takes"] == [3, 3, 3, 0, 0, 0, 1, 0, 0, 0]
    # counted card takes per CP (CP number = deck index + 1: 2S=1 … 6S=5, 2H=14, 3H=15)
    taken = [(cp["number"], cp["hint"], cp["taken"]) for cp in data["checkpoints"]]
    assert taken[:7] == [
        (1, "hint 1", 2), (2, "hint 2", 1), (3, "hint 3", 1), (4, "hint 4", 1),
        (5, "hint 5", 1), (14, "hint 14", 1), (15, "hint 15", 1),
    ]  # fmt: skip
    assert len(taken) == 54 and all(count == 0 for _, _, count in taken[7:])
    assert all(set(cp) == {"number", "hint", "taken"} for cp in data["checkpoints"])
    assert data["combinations"] == 1
    assert data["phase"] == "open"
    assert data["seconds_left"] == (event.closes_at - NOW).total_seconds()
    assert [(s["place"], s["status"]) for s in data["ceremony"]] == [
        (3, "pending"), (2, "pending"), (1, "pending")
    ]  # fmt: skip
    assert data["podium"] == []

    # after the close everybody who took is finished, and the chart ends at the close
    after = event.closes_at + timedelta(hours=1)
    closed = hall_flow.hall_data(session, event, after)
    assert (closed["on_course"], closed["finished"]) == (0, 2)
    assert closed["chart"]["start"][-1] == (event.closes_at - timedelta(minutes=10)).isoformat()
    assert len(closed["chart"]["takes"]) == hall_flow.BUCKETS


def test_bucket_edges_before_the_opening_and_on_a_bucket_boundary(
    session: Session, world: World
) -> None:
    event = session.get(Event, world.id)
    assert hall_flow.bucket_edges(event, OPENS - timedelta(seconds=1)) == []
    assert hall_flow.bucket_edges(event, OPENS) == []
    # at 10:00 into the course the bar [10, 20) has begun
    assert hall_flow.bucket_edges(event, at(10)) == [at(0), at(10), at(20)]
    edges = hall_flow.bucket_edges(event, at(300))
    assert edges[0] == at(190) and edges[-1] == at(310) and len(edges) == 13


def test_private_by_default_public_on_request_organiser_always(
    app: FastAPI, client: TestClient, admin: dict, session: Session, world: World
) -> None:
    play(client, admin, session, world)
    urls = [f"/hall/{world.id}", f"/hall/{world.id}/data.json"]
    page, data = (client.get(url) for url in urls)
    assert page.status_code == 403 and "hall_not_public" not in page.text
    assert "Экран зала закрыт" in page.text  # the clear page, in the default language
    assert data.status_code == 403 and data.json()["code"] == "hall_not_public"
    stream = client.get(f"/api/v1/events/{world.id}/live?hall=true")
    assert stream.status_code == 403 and stream.json()["code"] == "hall_not_public"
    for url in urls:  # the organiser always
        assert client.get(url, headers=admin).status_code == 200
    assert client.get("/hall/999999").status_code == 404

    organiser = TestClient(app)  # the owner ticks the box on the settings page (a form)
    admin_login(organiser)
    assert switch(organiser, world, "1").status_code == 303
    session.expire_all()
    assert session.get(Event, world.id).hall_public is True
    session.rollback()
    page, data = (client.get(url) for url in urls)
    assert page.status_code == 200 and "hint 1" in page.text
    assert "Взятия за 10 минут" in page.text and 'data-theme="dark"' in page.text
    english = client.get(urls[0], headers={"Cookie": "lang=en"}).text
    assert "Takes per 10 minutes" in english and "Out on the course" in english
    body = data.json()
    assert (body["participants"], body["combinations"]) == (3, 1)
    # no card, no code: neither the deck's cards nor the CPs' codes appear
    for card in ("2S", "3S", "6S", "2H", "3H"):
        assert world.cp(card) not in page.text + data.text
        assert f'"{card}"' not in data.text
    assert world.alice.save_codes[0] not in page.text + data.text

    assert switch(organiser, world, "").status_code == 303
    assert client.get(urls[1]).status_code == 403  # private again


def switch(organiser: TestClient, world: World, public: str) -> Response:
    """Post the settings page's hall screen form (with its CSRF token)."""
    page = organiser.get(f"/admin/events/{world.id}/settings")
    assert 'name="public" value="1"' in page.text
    form = page.text[page.text.index(f'action="/admin/events/{world.id}/hall-screen"') :]
    data = {"csrf_token": csrf_of(form)} | ({"public": public} if public else {})
    url = f"/admin/events/{world.id}/hall-screen"
    return organiser.post(url, data=data, follow_redirects=False)


def test_the_ceremony_steps_and_the_podium_only_once_revealed(
    client: TestClient, admin: dict, engine, session: Session
) -> None:
    event_id, _anna, _boris, full, high = ceremony_event(engine)
    api = f"/api/v1/events/{event_id}/auctions/3"

    def hall() -> dict:
        session.expire_all()
        data = hall_flow.hall_data(session, session.get(Event, event_id), datetime.now(UTC))
        session.rollback()
        return data

    assert client.post(f"{api}/open", headers=admin).is_success
    assert hall()["ceremony"][0] == {
        "place": 3, "status": "open", "round": 1, "revealing": False, "revealed": None
    }  # fmt: skip
    for who, combination in (("41", full), ("42", high)):
        bid = {"participant": who, "combination_id": combination}
        assert client.post(f"{api}/bids", json=bid, headers=admin).is_success
    assert client.post(f"{api}/close", headers=admin).json()["winner"] == "41"
    data = hall()  # closed, being revealed: no step shown yet, no podium
    assert data["ceremony"][0] == {
        "place": 3, "status": "closed", "round": 1, "revealing": True, "revealed": 0
    }  # fmt: skip
    assert data["podium"] == []
    assert client.post(f"{api}/reveal", headers=admin).json()["revealed"] == 1
    assert hall()["ceremony"][0]["revealed"] == 1 and hall()["podium"] == []
    assert client.post(f"{api}/reveal", json={"all": True}, headers=admin).is_success
    data = hall()
    assert data["ceremony"][0]["revealing"] is False
    assert data["podium"] == [{"place": 3, "name": "Анна", "category": "full_house"}]
    assert [s["status"] for s in data["ceremony"][1:]] == ["pending", "pending"]
