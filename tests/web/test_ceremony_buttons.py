"""The ceremony pages show only the steps the auctions service allows (`can_x`): no
"open" button while the course is open or out of order, no "close" button for an auction
that is not open, "undo" only for the last close while nothing of it is revealed, no
bid form for a participant who may
not bid or has no usable combination, "withdraw" only for one's own live bid."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.events.models import Event
from tests.factories import make_event, make_participant
from tests.web.test_ceremony_pages import play
from tests.web.test_signin import admin_login, csrf_of


def steps(page: str, event_id: int) -> set[str]:
    """The organiser's auction forms on the page, as "place/step" ("3/open", "3/close")."""
    return set(re.findall(rf'action="/admin/events/{event_id}/auctions/(\d/\w+)"', page))


def phone_forms(page: str) -> set[str]:
    """The participant's auction forms on the page, as "place/step" ("3/bid")."""
    return {"/".join(m) for m in re.findall(r'action="/me/ceremony/(\d)/(bid|withdraw)"', page)}


def test_organiser_sees_only_the_allowed_steps(client: TestClient, session: Session, admin: dict):
    event = make_event(session)
    anna = make_participant(session, event, "41", name="Анна")
    session.commit()
    play(
        client,
        admin,
        event,
        anna,
        ["AH", "AD", "AC", "KS", "KH"],
        datetime.now(UTC) - timedelta(minutes=50),
    )
    admin_login(client)
    url = f"/admin/events/{event.id}/ceremony"

    # The course is open: no auction may open, none may close, nothing to undo.
    assert steps(client.get(url).text, event.id) == set()

    session.execute(update(Event).where(Event.id == event.id).values(closes_at=datetime.now(UTC)))
    session.commit()
    page = client.get(url).text
    assert steps(page, event.id) == {"3/open"}  # lowest place first; no close of a pending one

    token = csrf_of(page)
    client.post(f"/admin/events/{event.id}/auctions/3/open", data={"csrf_token": token})
    page = client.get(url).text
    # Place 3 is open: it may close; nothing opens meanwhile; round 1 has no close to undo.
    assert steps(page, event.id) == {"3/close"}
    assert f'action="/admin/events/{event.id}/auctions/3/bid"' not in page  # nobody chosen

    close = {"csrf_token": token, "confirm": "1"}
    client.post(f"/admin/events/{event.id}/auctions/3/close", data=close)
    page = client.get(url).text
    # Place 3 is closed (no bids), nothing revealed: its close may be undone; place 2 waits
    # for the reveal (RULES.md I-21), which is the projector's.
    assert steps(page, event.id) == {"3/undo"}
    assert "Вскрыто шагов: 0 из 1" in page
    assert f'href="/admin/events/{event.id}/projector/3"' in page
    client.post(f"/admin/events/{event.id}/auctions/3/reveal", data={"csrf_token": token})
    page = client.get(url).text
    # Revealed: no undo any more; place 2 opens.
    assert steps(page, event.id) == {"2/open"}

    client.post(f"/admin/events/{event.id}/auctions/2/open", data={"csrf_token": token})
    assert steps(client.get(url).text, event.id) == {"2/close"}


def test_phone_shows_a_bid_form_only_to_who_may_bid_with_a_usable_combination(
    client: TestClient, session: Session, admin: dict
):
    event = make_event(session)
    anna = make_participant(session, event, "41", name="Анна")
    boris = make_participant(session, event, "42", name="Борис")
    vera = make_participant(session, event, "43", name="Вера")  # saved no combination
    session.commit()
    start = datetime.now(UTC) - timedelta(minutes=50)
    play(client, admin, event, anna, ["AH", "AD", "AC", "KS", "KH"], start)  # full house
    play(client, admin, event, boris, ["2C", "3D", "4H", "5S", "7C"], start)  # high card
    session.execute(update(Event).where(Event.id == event.id).values(closes_at=datetime.now(UTC)))
    session.commit()
    phones = {}
    for who in (anna, boris, vera):
        phones[who.external_id] = TestClient(client.app)
        phones[who.external_id].get(f"/p/{who.access_token}")

    def forms(who) -> set[str]:
        return phone_forms(phones[who.external_id].get("/me/ceremony").text)

    assert forms(anna) == forms(boris) == forms(vera) == set()  # nothing open yet
    assert client.post(f"/api/v1/events/{event.id}/auctions/3/open", headers=admin).is_success
    assert forms(anna) == forms(boris) == {"3/bid"}
    assert forms(vera) == set()  # no usable combination: no bid form

    for who in (anna, boris):
        page = phones[who.external_id].get("/me/ceremony").text
        combination_id = re.search(r'name="combination_id" value="(\d+)"', page).group(1)
        phones[who.external_id].post(
            "/me/ceremony/3/bid",
            data={"combination_id": combination_id, "csrf_token": csrf_of(page)},
        )
    # Each may withdraw their own live bid; the only combination is in the bid: no other choice.
    assert forms(anna) == forms(boris) == {"3/withdraw"}

    assert (
        client.post(f"/api/v1/events/{event.id}/auctions/3/close", headers=admin).json()["winner"]
        == "41"
    )
    # closed, being revealed: no form for anybody (RULES.md I-21: no re-bid)
    assert forms(anna) == forms(boris) == forms(vera) == set()
    reveal = client.post(
        f"/api/v1/events/{event.id}/auctions/3/reveal", headers=admin, json={"all": True}
    )
    assert reveal.is_success
    assert client.post(f"/api/v1/events/{event.id}/auctions/2/open", headers=admin).is_success
    assert forms(anna) == set()  # a winner takes no part in later auctions (RULES.md I-8)
    assert forms(boris) == set()  # his only combination is used up in place 3
    assert forms(vera) == set()
