"""Phone scans, participant state views and secrecy (API.md scan/state; RULES.md I-1)."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.feed.models import Take
from app.main import create_app
from tests.conftest import make_settings


def bearer(participant) -> dict[str, str]:
    return {"Authorization": f"Bearer {participant.access_token}"}


def scan(client, participant, code, **extra):
    return client.post("/api/v1/scan", json={"code": code, **extra}, headers=bearer(participant))


def test_scan_counts_at_the_server_clock(client, open_world):
    w, a = open_world, open_world.alice
    response = scan(client, a, w.cp("KH"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "accepted"
    assert (body["kind"], body["outcome"], body["reason"]) == ("card", "counted", None)
    assert body["card"] == "KH" and body["card_display"] == "K♥"
    assert body["discard_code"] == "DKH"
    me = client.get("/api/v1/me/state", headers=bearer(a)).json()
    assert me["hand"] == ["KH"]
    assert me["takes"][0]["source"] == "phone"


def test_hand_full_reveals_no_card_to_the_participant(client, admin, open_world):
    # RULES.md I-1: the 6th card take does not consume the CP, so the participant must
    # not learn its card (7♦) nor its discard code (D7D); the organiser sees the truth.
    w, a = open_world, open_world.alice
    for card in ["2D", "3D", "4D", "5D", "6D"]:
        assert scan(client, a, w.cp(card)).json()["outcome"] == "counted"
    response = scan(client, a, w.cp("7D"))
    sixth = response.json()
    assert (sixth["outcome"], sixth["reason"]) == ("rejected", "hand_full")
    assert sixth["card"] is None and sixth["card_display"] is None
    assert sixth["discard_code"] is None
    me = client.get("/api/v1/me/state", headers=bearer(a))
    own = client.get(f"/api/v1/events/{w.id}/participants/201/state", headers=bearer(a))
    full = [t for t in me.json()["takes"] if t["reason"] == "hand_full"]
    assert len(full) == 1 and full[0]["outcome"] == "rejected"
    for text in (json.dumps(r.json(), ensure_ascii=False) for r in (response, me, own)):
        # The card's code ("7D" outside the scanned CP code), display form, discard code.
        assert "7♦" not in text and "D7D" not in text
        assert '"7D"' not in text
    log = client.get(
        f"/api/v1/events/{w.id}/takes", params={"reason": "hand_full"}, headers=admin
    ).json()
    assert log["total"] == 1
    assert (log["items"][0]["outcome"], log["items"][0]["card"]) == ("rejected", "7D")


def test_scan_redelivery_with_a_source_id(client, open_world, session):
    w, a = open_world, open_world.alice
    first = scan(client, a, w.cp("9C"), source_id="phone-1").json()
    again = scan(client, a, w.cp("9C"), source_id="phone-1").json()
    assert again["status"] == "duplicate_delivery"
    assert again["take_id"] == first["take_id"]
    assert session.scalar(select(func.count()).select_from(Take)) == 1
    session.commit()


def test_participant_never_sees_cards_of_cps_not_taken(client, open_world):
    w, a = open_world, open_world.alice
    # A discard code of a CP Alice never took: rejected, and its card is not shown.
    body = scan(client, a, w.discard("AS")).json()
    assert (body["kind"], body["reason"]) == ("discard", "card_not_in_hand")
    assert body["card"] is None and body["card_display"] is None
    # Bob's save code is just an unknown code to Alice.
    body = scan(client, a, w.bob.save_codes[0]).json()
    assert (body["kind"], body["reason"]) == ("unknown", "unknown_code")
    me = client.get("/api/v1/me/state", headers=bearer(a)).json()
    assert [t["card"] for t in me["takes"]] == [None, None]
    assert [t["checkpoint"] for t in me["takes"]] == [None, None]
    assert w.bob.save_codes[1] not in str(me)


def test_state_endpoint_authorisation(client, admin, open_world):
    w, a, b = open_world, open_world.alice, open_world.bob
    url = f"/api/v1/events/{w.id}/participants/{a.external_id}/state"
    assert client.get(url).status_code == 401
    assert client.get(url, headers=bearer(a)).status_code == 200
    other = client.get(url, headers=bearer(b))
    assert other.status_code == 403 and other.json()["code"] == "not_your_state"
    assert client.get(url, headers=admin).status_code == 200
    missing = client.get(f"/api/v1/events/{w.id}/participants/nobody/state", headers=admin)
    assert missing.status_code == 404
    assert client.get("/api/v1/me/state").status_code == 401
    assert client.post("/api/v1/scan", json={"code": "x"}).status_code == 401


def test_guessing_codes_is_rate_limited_in_the_database(engine, open_world, session):
    # 3 unknown codes a minute allowed: the 4th scan is refused (429) and not stored.
    # A second app (another process in production) shares the count via the database.
    settings = make_settings(
        engine.url.render_as_string(hide_password=False), scan_unknown_codes_per_minute=3
    )
    first, second = create_app(settings, engine), create_app(settings, engine)
    a = open_world.alice
    with TestClient(first) as one, TestClient(second) as two:
        for client, guess in [(one, "G1"), (two, "G2"), (one, "G3")]:
            assert scan(client, a, guess).json()["reason"] == "unknown_code"
        refused = scan(two, a, "G4")
        assert refused.status_code == 429
        assert refused.json()["code"] == "too_many_unknown_codes"
        assert int(refused.headers["retry-after"]) >= 1
        # Bob's save code is an unknown code to Alice: refused too.
        assert scan(one, a, open_world.bob.save_codes[0]).status_code == 429
        # Known codes always go through: a real CP code, a discard code, her own save code.
        assert scan(one, a, open_world.cp("2H")).json()["outcome"] == "counted"
        # (a discard with 1 card in hand is judged by the rules: the hand is not full)
        discard = scan(two, a, open_world.discard("2H")).json()
        assert (discard["kind"], discard["reason"]) == ("discard", "hand_not_full")
        own_save = scan(one, a, a.save_codes[0].lower()).json()
        assert (own_save["kind"], own_save["reason"]) == ("save", "hand_not_full")
        # Bob is not affected.
        assert scan(one, open_world.bob, open_world.cp("2H")).json()["outcome"] == "counted"
    # 3 unknown codes + Alice's CP, discard and save code + Bob's CP; no refused one.
    assert session.scalar(select(func.count()).select_from(Take)) == 7
    session.commit()


def test_scan_of_an_empty_code(client, open_world):
    assert scan(client, open_world.alice, "").status_code == 422
    # Spaces only: normalised to nothing, which matches no code.
    assert scan(client, open_world.alice, " ").json()["reason"] == "unknown_code"
