"""The feed is frozen once the ceremony begins (an auction opened, or status ceremony/finished).

A late take after the auctions must not change a combination that already won a
place: new takes, corrections and replays are refused with `feed_closed`; a
redelivery of a stored take still answers `duplicate_delivery`; nothing changes.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.orm import Session

from tests.feed.conftest import CLOSES, World, at


def take(w: World, participant: str, code: str, source_id: str, minutes: float) -> dict[str, Any]:
    return {
        "participant": participant,
        "code": code,
        "taken_at": at(minutes).isoformat(),
        "source": "sportident",
        "source_id": source_id,
    }


def snapshot(client: TestClient, admin: dict, w: World) -> dict[str, Any]:
    """Everything the feed shows the organiser: states, the whole log, the audit trail."""
    base = f"/api/v1/events/{w.id}"
    return {
        "alice": client.get(f"{base}/participants/101/state", headers=admin).json(),
        "bob": client.get(f"{base}/participants/102/state", headers=admin).json(),
        "log": client.get(f"{base}/takes", headers=admin).json(),
        "corrections": client.get(f"{base}/corrections", headers=admin).json(),
    }


def frozen_world(client: TestClient, admin: dict, w: World) -> list[dict[str, Any]]:
    """Alice saves Q♥ Q♦ Q♣ Joker A♠ (four queens); Bob holds 2♥; auction 3 is opened."""
    a = w.alice
    codes = [w.cp("QH"), w.cp("QD"), w.cp("QC"), w.cp("JK1"), w.cp("AS"), a.save_codes[0]]
    items = [take(w, "101", code, f"a{i}", 10 + i) for i, code in enumerate(codes)]
    items.append(take(w, "102", w.cp("2H"), "b0", 5))
    response = client.post(f"/api/v1/events/{w.id}/takes", json={"takes": items}, headers=admin)
    assert response.status_code == 200, response.text
    opened = client.post(f"/api/v1/events/{w.id}/auctions/3/open", headers=admin)
    assert opened.status_code == 200, opened.text
    return items


def assert_feed_closed(response) -> None:
    assert response.status_code == 409, response.text
    assert response.json()["code"] == "feed_closed"


def test_a_late_take_after_an_auction_opened_is_refused(client, admin, world):
    w = world
    items = frozen_world(client, admin, w)
    before = snapshot(client, admin, w)
    assert before["alice"]["combinations"][0]["cards"] == ["QH", "QD", "QC", "JK1", "AS"]
    # The trial's late take: K♠ at minute 9, before the first queen (inside the window).
    late = take(w, "101", w.cp("KS"), "late-1", 9)
    redelivered = items[0]
    response = client.post(
        f"/api/v1/events/{w.id}/takes", json={"takes": [late, redelivered]}, headers=admin
    )
    assert response.status_code == 200, response.text
    refused, duplicate = response.json()["results"]
    assert refused["status"] == "error" and refused["error"]["code"] == "feed_closed"
    assert refused["take_id"] is None
    assert duplicate["status"] == "duplicate_delivery"
    assert (duplicate["outcome"], duplicate["card"]) == ("counted", "QH")
    assert snapshot(client, admin, w) == before


def test_csv_import_after_an_auction_opened_stores_nothing(client, admin, world):
    w = world
    frozen_world(client, admin, w)
    before = snapshot(client, admin, w)
    text = f"participant,code,taken_at\n101,{w.cp('KS')},{at(9).isoformat()}\n"
    response = client.post(
        f"/api/v1/events/{w.id}/takes/import",
        content=text.encode(),
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["stored"], body["errors"]) == (0, 1)
    assert body["results"][0]["error"]["code"] == "feed_closed"
    assert snapshot(client, admin, w) == before


def test_corrections_and_replays_after_an_auction_opened_are_refused(client, admin, world):
    w = world
    frozen_world(client, admin, w)
    before = snapshot(client, admin, w)
    base = f"/api/v1/events/{w.id}"
    first_take = before["alice"]["takes"][0]["take_id"]
    assert_feed_closed(
        client.post(f"{base}/takes/{first_take}/void", json={"reason": "late"}, headers=admin)
    )
    manual = {"participant": "101", "code": w.cp("KS"), "taken_at": at(9).isoformat()}
    assert_feed_closed(client.post(f"{base}/takes/manual", json=manual, headers=admin))
    assert_feed_closed(client.post(f"{base}/rebuild", headers=admin))
    later = (CLOSES.replace(hour=5)).isoformat()
    assert_feed_closed(client.patch(base, json={"closes_at": later}, headers=admin))
    assert_feed_closed(client.patch(base, json={"hand_ranking": "classic"}, headers=admin))
    assert client.get(base, headers=admin).json()["hand_ranking"] == "seed"
    # A change that does not replay the feed is still allowed.
    renamed = client.patch(base, json={"name": "Renamed"}, headers=admin)
    assert renamed.status_code == 200, renamed.text
    assert snapshot(client, admin, w) == before


def test_scans_are_refused_once_the_ceremony_status_is_set(client, admin, open_world):
    w, a = open_world, open_world.alice
    auth = {"Authorization": f"Bearer {a.access_token}"}
    first = client.post("/api/v1/scan", json={"code": w.cp("KH"), "source_id": "p1"}, headers=auth)
    assert first.status_code == 200, first.text
    status = client.post(
        f"/api/v1/events/{w.id}/status", json={"status": "ceremony"}, headers=admin
    )
    assert status.status_code == 200, status.text
    before = snapshot_of(client, admin, w)
    assert_feed_closed(client.post("/api/v1/scan", json={"code": w.cp("QH")}, headers=auth))
    again = client.post("/api/v1/scan", json={"code": w.cp("KH"), "source_id": "p1"}, headers=auth)
    assert again.status_code == 200, again.text
    assert again.json()["status"] == "duplicate_delivery"
    assert again.json()["take_id"] == first.json()["take_id"]
    assert snapshot_of(client, admin, w) == before


def snapshot_of(client: TestClient, admin: dict, w: World) -> dict[str, Any]:
    base = f"/api/v1/events/{w.id}"
    return {
        "alice": client.get(f"{base}/participants/201/state", headers=admin).json(),
        "log": client.get(f"{base}/takes", headers=admin).json(),
    }


def test_a_delivery_waiting_on_an_opening_auction_sees_it_open(engine, client, admin, world):
    """PostgreSQL: a delivery whose transaction starts while an auction is being opened
    waits for that transaction and then refuses its takes (`feed_closed`): it must not
    decide from a snapshot taken before the opening committed."""
    if engine.dialect.name == "sqlite":
        pytest.skip("SQLite serialises all writers: there is no such interleaving")
    from app.core.principal import ORGANISER
    from app.events.models import Event
    from app.flows.ceremony import open_auction

    opening = Session(engine)
    event = opening.get(Event, world.id)
    open_auction(opening, event, 3, ORGANISER)  # locked, not committed yet
    late = take(world, "101", world.cp("KS"), "late-1", 9)
    with ThreadPoolExecutor(max_workers=1) as pool:
        sent = pool.submit(
            client.post,
            f"/api/v1/events/{world.id}/takes",
            json={"takes": [late]},
            headers=admin,
        )
        with engine.connect() as monitor:  # wait until the delivery waits for the lock
            for _ in range(500):
                waiting = monitor.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND wait_event_type = 'Lock'"
                    )
                ).scalar_one()
                monitor.commit()
                if waiting or sent.done():
                    break
                time.sleep(0.02)
        assert waiting == 1, "the delivery did not wait for the auction's lock"
        opening.commit()
        opening.close()
        response = sent.result(timeout=30)
    assert response.status_code == 200, response.text
    (result,) = response.json()["results"]
    assert result["status"] == "error" and result["error"]["code"] == "feed_closed"
    log = client.get(f"/api/v1/events/{world.id}/takes", headers=admin).json()
    assert log["items"] == []
