"""Organiser pages through TestClient: access, CSRF on every form, corrections, keys,
ceremony (no browser)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.events.models import Event
from tests.conftest import ADMIN_TOKEN
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.test_signin import admin_login, csrf_of


@pytest.fixture
def event_with_play(client: TestClient, session: Session):
    """An open event; participant 31 has taken 2♠ 3♠ 4♠ on the phone page."""
    event = make_event(session, name="Лесной рогейн")
    anna = make_participant(session, event, "31", name="Анна")
    session.commit()
    phone = TestClient(client.app)
    phone.get(f"/p/{anna.access_token}")
    for card in ("2S", "3S", "4S"):
        phone.get(f"/t/{event_cp_code(event, card)}")
    phone.get("/t/NOT-A-CODE")
    return event.id, anna


ADMIN_PAGES = ["", "/checkpoints", "/participants", "/participants/31", "/keys", "/ceremony"]


@pytest.mark.parametrize("suffix", ADMIN_PAGES)
def test_event_pages_need_the_organiser(client: TestClient, event_with_play, suffix: str):
    event_id, _ = event_with_play
    url = f"/admin/events/{event_id}{suffix}"
    response = client.get(url, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/admin/login?next=")
    admin_login(client)
    page = client.get(url)
    assert page.status_code == 200
    assert "Лесной рогейн" in page.text or "Анна" in page.text


def test_live_endpoints_need_the_organiser(client: TestClient, event_with_play):
    event_id, _ = event_with_play
    assert client.get(f"/admin/events/{event_id}/live.json").status_code == 401
    admin_login(client)
    live = client.get(f"/admin/events/{event_id}/live.json").json()
    # 3 card takes and one unknown code, all within the last 10 minutes.
    assert live["participants"] == 1
    assert live["takes_total"] == 4
    assert live["takes_per_minute"] == 0.4
    assert live["unknown_codes"] == 1
    assert live["unsaved_hands"] == 1  # 3 cards in hand, never saved (I-3)


def test_checkpoints_page_shows_cards_and_codes(client: TestClient, event_with_play):
    event_id, _ = event_with_play
    admin_login(client)
    page = client.get(f"/admin/events/{event_id}/checkpoints").text
    assert f"CPQHSECRETCODE{event_id}" in page and "DQH" in page and "Q♥" in page
    assert f"/admin/events/{event_id}/print/checkpoints" in page


def test_participant_cards_are_printed_through_a_csrf_protected_form(
    client: TestClient, event_with_play
):
    event_id, _ = event_with_play
    admin_login(client)
    url = f"/admin/events/{event_id}/participant-cards"
    assert client.post(url, data={"csrf_token": "forged"}).status_code == 403
    token = csrf_of(client.get(f"/admin/events/{event_id}/checkpoints").text)
    page = client.post(url, data={"csrf_token": token})
    assert page.status_code == 200
    assert "/p/" in page.text and "Анна" in page.text


def test_opening_the_participant_cards_url_leads_to_the_print_button(
    client: TestClient, event_with_play
):
    event_id, anna = event_with_play
    url = f"/admin/events/{event_id}/participant-cards"

    signed_out = client.get(url, follow_redirects=False)
    assert signed_out.status_code == 303
    assert signed_out.headers["location"] == f"/admin/login?next={url}"

    admin_login(client)
    response = client.get(url, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/admin/events/{event_id}/checkpoints"
    assert response.headers["cache-control"] == "no-store"
    page = client.get(url)  # followed: the checkpoints page with the print form
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert f'<form method="post" action="{url}"' in page.text
    assert "Печать карточек участников" in page.text

    # A GET prints nothing: the personal link handed out earlier still works.
    phone = TestClient(client.app)
    assert phone.get(f"/p/{anna.access_token}", follow_redirects=False).status_code == 303
    assert phone.get("/me").status_code == 200


def test_signing_in_from_the_participant_cards_url_ends_on_the_checkpoints_page(
    client: TestClient, event_with_play
):
    event_id, _ = event_with_play
    url = f"/admin/events/{event_id}/participant-cards"
    login = client.get(url)  # followed to the sign-in form, which carries `next`
    assert login.status_code == 200 and str(login.url).endswith(f"/admin/login?next={url}")
    response = client.post(
        "/admin/login",
        data={"token": ADMIN_TOKEN, "csrf_token": csrf_of(login.text), "next": url},
    )
    assert response.status_code == 200
    assert str(response.url) == f"http://testserver/admin/events/{event_id}/checkpoints"


def test_void_and_add_a_take_from_the_participant_page(
    client: TestClient, event_with_play, session: Session
):
    event_id, _ = event_with_play
    admin_login(client)
    url = f"/admin/events/{event_id}/participants/31"
    page = client.get(url).text
    token = csrf_of(page)
    take_ids = re.findall(r'name="take_id" value="(\d+)"', page)
    assert len(take_ids) == 4

    # CSRF: a forged form changes nothing.
    forged = client.post(f"{url}/void", data={"take_id": take_ids[0], "reason": "x"})
    assert forged.status_code == 403

    response = client.post(
        f"{url}/void",
        data={"take_id": take_ids[0], "reason": "wrong CP", "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303 and "done=correction" in response.headers["location"]
    state = client.get(f"/api/v1/events/{event_id}/participants/31/state").json()
    assert sorted(state["hand"]) == ["3S", "4S"]  # 2♠ voided

    now_local = (datetime.now(UTC) + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")  # Moscow
    response = client.post(
        f"{url}/takes",
        data={"code": event_cp_code_by_id(session, event_id, "KD"), "taken_at": now_local,
              "note": "paper card", "csrf_token": token},
        follow_redirects=False,
    )  # fmt: skip
    assert response.status_code == 303 and "done=correction" in response.headers["location"]
    state = client.get(f"/api/v1/events/{event_id}/participants/31/state").json()
    assert sorted(state["hand"]) == ["3S", "4S", "KD"]
    assert "Исправление записано" in client.get(response.headers["location"]).text

    bad = client.post(
        f"{url}/takes", data={"code": "X", "taken_at": "yesterday", "csrf_token": token},
        follow_redirects=False,
    )  # fmt: skip
    assert "error=bad_time" in bad.headers["location"]


def event_cp_code_by_id(session: Session, event_id: int, card: str) -> str:
    event = session.get(Event, event_id)
    code = event_cp_code(event, card)
    session.rollback()
    return code


def test_integration_key_is_shown_once_and_can_be_revoked(client: TestClient, event_with_play):
    event_id, _ = event_with_play
    admin_login(client)
    url = f"/admin/events/{event_id}/keys"
    token = csrf_of(client.get(url).text)
    assert client.post(url, data={"name": "SportIdent", "csrf_token": "x"}).status_code == 403

    created = client.post(url, data={"name": "SportIdent", "csrf_token": token})
    assert created.status_code == 200  # after the redirect
    key = re.search(r'<code class="mono" id="new-key">([^<]+)</code>', created.text).group(1)
    assert "SportIdent" in created.text
    assert key not in client.get(url).text  # shown once

    # The key works for the feed, then is revoked from the page.
    feed = {"takes": [{"participant": "31", "code": "X", "source": "si", "source_id": "1",
                       "taken_at": datetime.now(UTC).isoformat()}]}  # fmt: skip
    ok = client.post(
        f"/api/v1/events/{event_id}/takes", json=feed, headers={"Authorization": f"Bearer {key}"}
    )
    assert ok.status_code == 200
    key_id = re.search(rf"/admin/events/{event_id}/keys/(\d+)/revoke", created.text).group(1)
    client.post(f"{url}/{key_id}/revoke", data={"csrf_token": token})
    client.cookies.clear()
    refused = client.post(
        f"/api/v1/events/{event_id}/takes", json=feed, headers={"Authorization": f"Bearer {key}"}
    )
    assert refused.status_code in (401, 403)


def test_ceremony_open_bid_count_and_close(client: TestClient, event_with_play, session: Session):
    event_id, _ = event_with_play
    admin_login(client)
    url = f"/admin/events/{event_id}/ceremony"
    token = csrf_of(client.get(url).text)

    # While the course is open the auction cannot open: said on the page, nothing stored.
    response = client.post(
        f"/admin/events/{event_id}/auctions/3/open", data={"csrf_token": token},
        follow_redirects=False,
    )  # fmt: skip
    assert "error=course_still_open" in response.headers["location"]
    assert "Дистанция ещё открыта" in client.get(response.headers["location"]).text

    session.execute(update(Event).where(Event.id == event_id).values(closes_at=datetime.now(UTC)))
    session.commit()
    assert (
        client.post(
            f"/admin/events/{event_id}/auctions/3/open", data={"csrf_token": "forged"}
        ).status_code
        == 403
    )
    client.post(f"/admin/events/{event_id}/auctions/3/open", data={"csrf_token": token})
    live = client.get(f"/admin/events/{event_id}/ceremony.json").json()
    assert live["bids_3"] == 0 and "3:open" in live["version"]
    projector_live = client.get(f"/admin/events/{event_id}/projector/3/live.json").json()
    assert projector_live == {
        "version": "3:open:1",
        "bids": 0,
        "bids_3": 0,
        "shape": "3:open:1;2:pending:None;1:pending:None",
    }

    # The close asks first what will happen; nothing changes until it is confirmed.
    confirm = client.post(
        f"/admin/events/{event_id}/auctions/3/close",
        data={"csrf_token": token, "lots_seed": "7"},
        follow_redirects=False,
    )
    assert confirm.status_code == 200
    assert "Закрыть аукцион за 3 место?" in confirm.text
    assert "Ставок в раунде 1: 0." in confirm.text
    assert "только пока не вскрыта первая ставка" in confirm.text
    assert (
        'name="confirm" value="1"' in confirm.text and 'name="lots_seed" value="7"' in confirm.text
    )
    assert (
        client.get(f"/admin/events/{event_id}/ceremony.json")
        .json()["version"]
        .startswith("3:open:1")
    )
    response = client.post(
        f"/admin/events/{event_id}/auctions/3/close",
        data={"csrf_token": csrf_of(confirm.text), "confirm": "1"},
        follow_redirects=False,
    )
    assert response.headers["location"] == f"/admin/events/{event_id}/projector/3"
    projector = client.get(response.headers["location"]).text
    # closed, being revealed: the outcome shows only after its reveal step (a form)
    assert "Аукцион закрыт, идёт вскрытие ставок" in projector
    assert "Место не присуждено" not in projector
    revealed = client.post(
        f"/admin/events/{event_id}/auctions/3/reveal",
        data={"csrf_token": csrf_of(projector)},
        follow_redirects=False,
    )
    assert revealed.headers["location"] == f"/admin/events/{event_id}/projector/3"
    projector = client.get(revealed.headers["location"]).text
    assert "Место не присуждено" in projector  # no bids: the place stays unawarded
    assert 'id="reveal-next"' not in projector  # nothing left to reveal


def test_participant_pages_name_columns_and_show_normalised_codes(
    client: TestClient, event_with_play
):
    """The organiser's list says "Комбинации" (not the participant's "Мои комбинации"),
    and the take log shows a typed code in its normalised form (app.events.codes)."""
    event_id, _ = event_with_play
    admin_login(client)
    listing = client.get(f"/admin/events/{event_id}/participants").text
    assert "<th>Комбинации</th>" in listing
    assert "Мои комбинации" not in listing
    detail = client.get(f"/admin/events/{event_id}/participants/31").text
    # Participant 31 typed "/t/NOT-A-CODE": the log shows NOTACODE.
    assert ">NOTACODE<" in detail
    assert "NOT-A-CODE" not in detail


def test_joker_is_named_in_the_page_language(client: TestClient, session: Session):
    event = make_event(session)
    pavel = make_participant(session, event, "41")
    session.commit()
    phone = TestClient(client.app)
    phone.get(f"/p/{pavel.access_token}")
    phone.get(f"/t/{event_cp_code(event, 'JK1')}")
    russian = phone.get("/me").text
    assert "Джокер" in russian
    phone.cookies.set("lang", "en")
    assert "Joker" in phone.get("/me").text


def test_participant_page_forms_refuse_bad_input(client: TestClient, event_with_play):
    """Issue 14: a time out of range once in UTC is `bad_time`; NUL in a void reason or a
    key name is 422; nothing is stored and nothing answers 500."""
    event_id, _ = event_with_play
    admin_login(client)
    url = f"/admin/events/{event_id}/participants/31"
    page = client.get(url).text
    token = csrf_of(page)
    take_id = re.findall(r'name="take_id" value="(\d+)"', page)[0]
    old = client.post(
        f"{url}/takes", data={"code": "X", "taken_at": "0001-01-01T00:30", "csrf_token": token},
        follow_redirects=False,
    )  # fmt: skip
    assert "error=bad_time" in old.headers["location"]
    void = client.post(
        f"{url}/void", data={"take_id": take_id, "reason": "a\x00b", "csrf_token": token}
    )
    key = client.post(
        f"/admin/events/{event_id}/keys", data={"name": "Fix\x00", "csrf_token": token}
    )
    assert (void.status_code, key.status_code) == (422, 422)
    state = client.get(f"/api/v1/events/{event_id}/participants/31/state").json()
    assert sorted(state["hand"]) == ["2S", "3S", "4S"]
    assert client.get(f"/api/v1/events/{event_id}/integration-keys").json() == []
