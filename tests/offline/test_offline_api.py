"""The offline phone's server side: encrypted deck, bundle, phone sync, PWA files.

The deck is built from real random codes (`new_cp_code`, `new_short_code`) so that a
code found in the file could not be a chance match.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.exceptions import InvalidTag
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.events.codes import new_cp_code, new_short_code
from app.events.models import Checkpoint
from app.feed.models import Take
from app.flows.offline import PLAINTEXT_BYTES, encrypt_deck, open_deck_entry, unb64url
from tests.factories import DECK, make_event, make_participant
from tests.web.test_participant_pages import signed_in, takes_of


def random_codes(session: Session, event) -> dict[str, tuple[str, str, int]]:
    """Give every CP of `event` real random codes; card -> (code, discard code, number)."""
    codes = {}
    for cp in session.scalars(select(Checkpoint).where(Checkpoint.event_id == event.id)):
        cp.code, cp.discard_code = new_cp_code(), new_short_code()
        codes[cp.card] = (cp.code, cp.discard_code, cp.number)
    session.flush()
    return codes


def test_a_deck_entry_opens_with_its_own_code_only():
    rows = [(n, card, new_cp_code(), new_short_code()) for n, card in enumerate(DECK, start=1)]
    deck = encrypt_deck(7, rows)
    number, card, code, discard = rows[11]
    assert open_deck_entry(deck, code) == {"n": number, "c": card, "d": discard}
    # as a phone reads a QR code: the whole URL, lower case
    assert open_deck_entry(deck, f"https://x.example/t/{code.lower()}")["c"] == card
    assert open_deck_entry(deck, rows[12][2])["c"] == rows[12][1]  # another code, its own CP
    assert open_deck_entry(deck, new_cp_code()) is None  # a code of no CP opens nothing
    assert open_deck_entry(deck, discard) is None  # a discard code is no key
    # An entry moved under another code's index does not open with that code.
    other_index = next(i for i, v in deck["entries"].items() if v != deck["entries"]
                       [_index(deck, code)])  # fmt: skip
    swapped = {
        **deck,
        "entries": {**deck["entries"], other_index: deck["entries"][_index(deck, code)]},
    }
    with pytest.raises(InvalidTag):
        _open_at(swapped, rows, other_index)


def _index(deck: dict, code: str) -> str:
    from app.flows.offline import deck_index

    return deck_index(code, unb64url(deck["salt"]))


def _open_at(deck: dict, rows, index: str) -> dict | None:
    code = next(r[2] for r in rows if _index(deck, r[2]) == index)
    return open_deck_entry(deck, code)


def test_the_deck_file_shows_no_card_code_or_discard_code():
    rows = [(n, card, new_cp_code(), new_short_code()) for n, card in enumerate(DECK, start=1)]
    deck = encrypt_deck(7, rows)
    text = json.dumps(deck)
    assert set(deck) == {"v", "event", "alg", "salt", "entries"}
    assert len(deck["entries"]) == 54  # the CP count (public) is all it tells
    strings = set(deck["entries"]) | set(deck["entries"].values()) | {deck["salt"], deck["alg"]}
    for _number, card, code, discard in rows:
        assert code not in text and discard not in text
        assert card not in strings and f'"{card}"' not in text
    assert "♥" not in text and "\\u2665" not in text
    # Every entry has the same length: no card is told apart by its notation (10s, jokers).
    assert {len(unb64url(v)) for v in deck["entries"].values()} == {12 + PLAINTEXT_BYTES + 16}
    # Entries are not in CP order.
    firsts = [open_deck_entry(deck, code)["n"] for _, _, code, _ in rows]
    order = {index: position for position, index in enumerate(deck["entries"])}
    by_file = sorted(range(54), key=lambda i: order[_index(deck, rows[i][2])])
    assert [firsts[i] for i in by_file] != sorted(firsts)


def test_the_bundle_is_only_for_the_signed_in_participant(client: TestClient, session: Session):
    event = make_event(session)
    codes = random_codes(session, event)
    anna = make_participant(session, event, "21")
    boris = make_participant(session, event, "22")
    session.commit()

    anonymous = client.get("/me/offline.json")
    assert anonymous.status_code == 401
    assert anonymous.json()["code"] == "not_signed_in"

    signed_in(client, anna.access_token)
    response = client.get("/me/offline.json")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "private, no-cache"
    bundle = response.json()
    assert bundle["save_codes"] == sorted(anna.save_codes)
    assert not set(boris.save_codes) & set(response.text.split('"'))
    for code, discard, _ in codes.values():
        assert code not in response.text and discard not in response.text
    qh_code, qh_discard, qh_number = codes["QH"]
    assert open_deck_entry(bundle["deck"], qh_code) == {"n": qh_number, "c": "QH", "d": qh_discard}
    assert bundle["event"]["id"] == event.id
    assert bundle["state"]["hand"] == [] and bundle["state"]["takes"] == []


def sync_body(source: str, takes: list[tuple[str, datetime, str]]) -> dict:
    return {
        "source": source,
        "sent_at": datetime.now(UTC).isoformat(),
        "takes": [
            {"code": code, "taken_at": at.isoformat(), "source_id": sid} for code, at, sid in takes
        ],
    }


def test_a_phone_batch_goes_through_the_feed_once(client: TestClient, session: Session):
    """Six CPs taken offline (the 6th into a full hand: hand_full, no card shown, I-1), a
    discard and an unknown code; sent twice: the second time nothing new is stored."""
    event = make_event(session)
    codes = random_codes(session, event)
    anna = make_participant(session, event, "21")
    session.commit()
    signed_in(client, anna.access_token)
    start = datetime.now(UTC) - timedelta(minutes=30)
    cards = ["QH", "QD", "QC", "TS", "AC", "KD"]
    takes = [(codes[c][0], start + timedelta(minutes=i), f"pwa-{i}") for i, c in enumerate(cards)]
    takes.append((codes["TS"][1], start + timedelta(minutes=7), "pwa-discard"))
    takes.append(("NOSUCHCODE", start + timedelta(minutes=8), "pwa-unknown"))
    body = sync_body("phone-0a1b2c3d", takes)

    first = client.post("/me/offline/sync", json=body)
    assert first.status_code == 200
    results = first.json()["results"]
    assert [r["status"] for r in results] == ["accepted"] * 8
    assert [(r["outcome"], r["reason"]) for r in results] == [("counted", None)] * 5 + [
        ("rejected", "hand_full"), ("counted", None), ("rejected", "unknown_code")
    ]  # fmt: skip
    assert results[0]["card"] == "QH" and results[0]["discard_code"] == codes["QH"][1]
    assert results[5]["card"] is None and results[5]["discard_code"] is None  # I-1
    state = first.json()["state"]
    assert state["hand"] == ["QH", "QD", "QC", "AC"]
    assert (state["deal"], state["round"], state["discarding"]) == (1, 2, True)
    assert {t["source"] for t in state["takes"]} == {f"phone-p{anna.id}-0a1b2c3d"}
    stored = takes_of(session, anna.id)
    assert stored == 8

    again = client.post("/me/offline/sync", json=body)
    assert [r["status"] for r in again.json()["results"]] == ["duplicate_delivery"] * 8
    assert [r["take_id"] for r in again.json()["results"]] == [r["take_id"] for r in results]
    assert takes_of(session, anna.id) == stored
    with session.get_bind().connect() as connection:  # device time is the field time
        first_take = connection.execute(
            select(Take.taken_at, Take.payload).where(Take.source_id == "pwa-0")
        ).one()
    assert first_take.taken_at == start
    assert first_take.payload["sent_at"] == body["sent_at"]


def test_a_bad_item_or_a_bad_batch_changes_nothing_else(client: TestClient, session: Session):
    event = make_event(session)
    codes = random_codes(session, event)
    anna = make_participant(session, event, "21")
    session.commit()
    signed_in(client, anna.access_token)
    now = datetime.now(UTC)
    body = sync_body("phone-0a1b2c3d", [(codes["QH"][0], now, "pwa-1")])
    body["takes"].append(
        {"code": codes["QD"][0], "taken_at": "2026-06-13T10:00:00", "source_id": "x"}
    )
    body["takes"].append("not an object")
    response = client.post("/me/offline/sync", json=body)
    statuses = [
        (r["status"], (r.get("error") or {}).get("code")) for r in response.json()["results"]
    ]
    assert statuses == [("accepted", None), ("error", "invalid_take"), ("error", "invalid_take")]
    assert takes_of(session, anna.id) == 1

    for bad in ({**body, "source": "organiser"}, {**body, "takes": "x"}):
        assert client.post("/me/offline/sync", json=bad).status_code == 422
    cross = client.post("/me/offline/sync", json=body, headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403 and cross.json()["code"] == "cross_origin"
    form = client.post("/me/offline/sync", content=json.dumps(body),
                       headers={"Content-Type": "text/plain"})  # fmt: skip
    assert form.status_code in (415, 422)
    client.cookies.clear()
    assert client.post("/me/offline/sync", json=body).status_code == 401
    assert takes_of(session, anna.id) == 1


def test_the_same_device_and_source_ids_of_two_participants_are_two_deliveries(
    client: TestClient, session: Session
):
    """Idempotency is per participant's device: Boris sending Anna's device id and source
    ids stores his own takes and learns nothing of hers."""
    event = make_event(session)
    codes = random_codes(session, event)
    anna = make_participant(session, event, "21")
    boris = make_participant(session, event, "22")
    session.commit()
    body = sync_body("phone-0a1b2c3d", [(codes["QH"][0], datetime.now(UTC), "pwa-1")])
    signed_in(client, anna.access_token)
    (hers,) = client.post("/me/offline/sync", json=body).json()["results"]
    client.cookies.clear()
    signed_in(client, boris.access_token)
    body["takes"][0]["code"] = "NOSUCHCODE"
    (his,) = client.post("/me/offline/sync", json=body).json()["results"]
    assert (hers["status"], hers["card"]) == ("accepted", "QH")
    assert (his["status"], his["reason"]) == ("accepted", "unknown_code")
    assert his["take_id"] != hers["take_id"]
    assert (takes_of(session, anna.id), takes_of(session, boris.id)) == (1, 1)


def test_another_participants_save_code_is_unknown_and_the_feed_freeze_holds(
    client: TestClient, session: Session
):
    event = make_event(session)
    anna = make_participant(session, event, "21")
    boris = make_participant(session, event, "22")
    session.commit()
    signed_in(client, anna.access_token)
    body = sync_body("phone-0a1b2c3d", [(boris.save_codes[0], datetime.now(UTC), "pwa-b")])
    (result,) = client.post("/me/offline/sync", json=body).json()["results"]
    assert (result["kind"], result["reason"]) == ("unknown", "unknown_code")
    session.execute(update(type(event)).where(type(event).id == event.id)
                    .values(feed_frozen_at=datetime.now(UTC)))  # fmt: skip
    session.commit()
    body = sync_body("phone-0a1b2c3d", [(anna.save_codes[0], datetime.now(UTC), "pwa-late")])
    (late,) = client.post("/me/offline/sync", json=body).json()["results"]
    assert late["status"] == "error" and late["error"]["code"] == "feed_closed"
    with session.get_bind().connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Take)) == 1


def test_the_pwa_files_are_served_by_the_app(client: TestClient):
    sw = client.get("/sw.js")
    assert sw.status_code == 200
    assert sw.headers["content-type"].startswith("text/javascript")
    assert sw.headers["service-worker-allowed"] == "/"
    assert sw.headers["cache-control"] == "no-cache"
    assert re.match(r'self\.ROGAINE_VERSION = "[0-9a-f]{16}";\n', sw.text)  # new assets, new worker
    manifest = client.get("/manifest.webmanifest")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    icons = manifest.json()["icons"]
    assert {icon["sizes"] for icon in icons} == {"192x192", "512x512"}
    for icon in icons:
        png = client.get(icon["src"])
        assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    shell = client.get("/me/offline")
    assert shell.status_code == 200
    assert "<script>" not in shell.text and "on" + "click" not in shell.text  # no inline code
    strings = json.loads(shell.text.split('id="offline-strings">')[1].split("</script>")[0])
    assert strings["offline.send_now"] == "Отправить сейчас"
    client.get("/lang/en")
    english = client.get("/me/offline").text.split('id="offline-strings">')[1]
    assert json.loads(english.split("</script>")[0])["offline.send_now"] == "Send now"


def test_a_phone_whose_clock_is_fast_is_corrected_by_its_sent_at(
    client: TestClient, session: Session
):
    """Issue 17 item 2 through the phone sync: the phone's clock is 7 minutes fast; a card
    taken 1 minute before the close is stamped 6 minutes after it. Corrected by the batch's
    offset (received_at − sent_at ≈ −420 s) it counts; the device time is kept."""
    now = datetime.now(UTC)
    event = make_event(
        session, opens_at=now - timedelta(hours=2), closes_at=now - timedelta(hours=1)
    )
    codes = random_codes(session, event)
    anna = make_participant(session, event, "23")
    session.commit()
    signed_in(client, anna.access_token)
    stamp = event.closes_at + timedelta(minutes=6)
    body = {
        "source": "phone-0a1b2c3d",
        "sent_at": (datetime.now(UTC) + timedelta(minutes=7)).isoformat(),
        "takes": [{"code": codes["QH"][0], "taken_at": stamp.isoformat(), "source_id": "pwa-0"}],
    }
    (result,) = client.post("/me/offline/sync", json=body).json()["results"]
    assert (result["outcome"], result["reason"], result["card"]) == ("counted", None, "QH")
    with session.get_bind().connect() as connection:
        take = connection.execute(
            select(Take.taken_at, Take.device_taken_at, Take.clock_offset_seconds).where(
                Take.source_id == "pwa-0"
            )
        ).one()
    assert take.device_taken_at == stamp
    assert take.clock_offset_seconds == pytest.approx(-420, abs=5)
    assert event.closes_at - timedelta(minutes=1, seconds=5) <= take.taken_at < event.closes_at
