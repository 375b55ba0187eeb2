"""Device clocks (issue 17 item 2): a batch's `sent_at` corrects a drifting device's
takes; an organiser's per-source offset replays them; warnings list the devices.

The course window closes at CLOSES (13 June 03:00 UTC). Times are worked out by hand:
a device 7 minutes fast that takes a card 1 minute before the close stamps it
CLOSES + 6 min; corrected by the offset −7 min it is CLOSES − 1 min, inside the window.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from app.core.db import utcnow
from app.feed.ingest import clock_offset
from tests.feed.conftest import CLOSES, World

SEVEN_MINUTES = 7 * 60


def item(w: World, participant: str, card: str, source: str, stamp: datetime) -> dict[str, Any]:
    return {
        "participant": participant,
        "code": w.cp(card),
        "taken_at": stamp.isoformat(),
        "source": source,
        "source_id": f"{source}-{card}",
    }


def deliver(client, admin, w: World, takes: list[dict], sent_at: datetime | None = None):
    body: dict[str, Any] = {"takes": takes}
    if sent_at is not None:
        body["sent_at"] = sent_at.isoformat()
    response = client.post(f"/api/v1/events/{w.id}/takes", json=body, headers=admin)
    assert response.status_code == 200, response.text
    return response.json()["results"]


def state(client, admin, w: World, participant: str) -> dict:
    response = client.get(f"/api/v1/events/{w.id}/participants/{participant}/state", headers=admin)
    assert response.status_code == 200, response.text
    return response.json()


def log_items(client, admin, w: World) -> list[dict]:
    return client.get(f"/api/v1/events/{w.id}/takes", headers=admin).json()["items"]


def set_clock(client, admin, w: World, source: str, offset: float | None):
    return client.put(
        f"/api/v1/events/{w.id}/sources/{source}/clock",
        json={"offset_seconds": offset},
        headers=admin,
    )


def parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_clock_offset_is_applied_only_beyond_the_tolerance():
    received = datetime(2026, 6, 13, 3, 0, tzinfo=CLOSES.tzinfo)
    tolerance = timedelta(seconds=30)
    assert clock_offset(received, None, tolerance) is None
    assert clock_offset(received, received - timedelta(seconds=30), tolerance) is None
    # 31 s slow: received − sent = +31 s.
    assert clock_offset(received, received - timedelta(seconds=31), tolerance) == timedelta(
        seconds=31
    )
    # 7 minutes fast: −420 s.
    assert clock_offset(received, received + timedelta(minutes=7), tolerance) == timedelta(
        seconds=-420
    )
    # Weeks off is a wrong setting, not drift: not corrected.
    assert clock_offset(received, received - timedelta(days=30), tolerance) is None


def test_a_fast_device_just_before_the_close_counts(client, admin, world):
    w = world
    stamp = CLOSES + timedelta(minutes=6)  # the device's clock, 1 real minute before the close
    fast = deliver(
        client,
        admin,
        w,
        [item(w, "101", "2S", "fixpoint-7", stamp), item(w, "101", "3S", "fixpoint-7", stamp)],
        sent_at=(before := utcnow()) + timedelta(minutes=7),
    )
    waited = (utcnow() - before).total_seconds()  # how long the server took to receive it
    assert [(r["status"], r["outcome"], r["reason"]) for r in fast] == [
        ("accepted", "counted", None),
        ("accepted", "counted", None),
    ]
    # The same stamp from a device that sends no sent_at: outside the course hours.
    (plain,) = deliver(client, admin, w, [item(w, "102", "4S", "fixpoint-8", stamp)])
    assert (plain["outcome"], plain["reason"]) == ("rejected", "outside_course_hours")

    alice = state(client, admin, w, "101")
    assert alice["hand"] == ["2S", "3S"]
    by_source = {i["source"]: i for i in log_items(client, admin, w)}
    corrected = by_source["fixpoint-7"]
    assert parse(corrected["device_taken_at"]) == stamp
    # received − sent, received between `before` and `before + waited`: 7 min fast, plus
    # however long this machine took to deliver (no tolerance that a busy machine misses).
    assert -SEVEN_MINUTES <= corrected["clock_offset_seconds"] <= -SEVEN_MINUTES + waited
    taken_at = parse(corrected["taken_at"])
    assert CLOSES - timedelta(minutes=1, seconds=5) <= taken_at < CLOSES
    assert by_source["fixpoint-8"]["device_taken_at"] is None
    assert by_source["fixpoint-8"]["clock_offset_seconds"] is None

    # Within the tolerance (20 s) nothing is corrected.
    (near,) = deliver(
        client,
        admin,
        w,
        [item(w, "102", "5S", "fixpoint-9", CLOSES - timedelta(minutes=10))],
        sent_at=utcnow() + timedelta(seconds=20),
    )
    assert near["outcome"] == "counted"
    nine = next(i for i in log_items(client, admin, w) if i["source"] == "fixpoint-9")
    assert nine["device_taken_at"] is None
    assert parse(nine["taken_at"]) == CLOSES - timedelta(minutes=10)

    # The corrected takes' chain (which hashes the raw device time and the offset too)
    # verifies as stored.
    verified = client.get(f"/api/v1/events/{w.id}/log/verify", headers=admin).json()
    assert verified["ok"] is True, verified


def test_a_redelivered_batch_stores_nothing(client, admin, world):
    w = world
    takes = [item(w, "101", "2S", "fixpoint-7", CLOSES + timedelta(minutes=6))]
    deliver(client, admin, w, takes, sent_at=utcnow() + timedelta(minutes=7))
    before = log_items(client, admin, w)
    # The device sends the same batch again, later and with another clock reading.
    again = deliver(client, admin, w, takes, sent_at=utcnow() + timedelta(minutes=2))
    assert [(r["status"], r["take_id"], r["outcome"]) for r in again] == [
        ("duplicate_delivery", before[0]["take_id"], "counted")
    ]
    assert log_items(client, admin, w) == before


def test_the_organiser_sets_a_source_clock_and_the_takes_replay(client, admin, world):
    w = world
    # Bob's device (no sent_at) is 5 minutes fast: it stamped 2♠ and 3♠, taken 3 and 1
    # minutes before the close, at CLOSES + 2 and + 4 min: both outside the course hours.
    device = "watch-5"
    deliver(
        client,
        admin,
        w,
        [
            item(w, "102", "2S", device, CLOSES + timedelta(minutes=2)),
            item(w, "102", "3S", device, CLOSES + timedelta(minutes=4)),
        ],
    )
    # Another device of Bob's, right: 4♠ at CLOSES − 2 min (between the two, in field time).
    deliver(client, admin, w, [item(w, "102", "4S", "watch-ok", CLOSES - timedelta(minutes=2))])
    assert state(client, admin, w, "102")["hand"] == ["4S"]

    response = set_clock(client, admin, w, device, -300)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["source"], body["offset_seconds"], body["participants"]) == (device, -300, 1)
    assert (body["takes"], body["changed_outcomes"]) == (3, 2)

    bob = state(client, admin, w, "102")
    # Field order now: 2♠ (CLOSES − 3), 4♠ (− 2), 3♠ (− 1).
    assert bob["hand"] == ["2S", "4S", "3S"]
    takes = {t["card"]: t for t in bob["takes"]}
    assert parse(takes["2S"]["taken_at"]) == CLOSES - timedelta(minutes=3)
    assert parse(takes["2S"]["device_taken_at"]) == CLOSES + timedelta(minutes=2)
    assert takes["2S"]["clock_offset_seconds"] == -300
    assert takes["2S"]["previous"]["reason"] == "outside_course_hours"
    assert takes["4S"]["device_taken_at"] is None
    # A rebuild of the event gives the same state (the offset is part of the log).
    rebuilt = client.post(f"/api/v1/events/{w.id}/rebuild", headers=admin).json()
    assert rebuilt["changed_outcomes"] == 0
    assert state(client, admin, w, "102")["hand"] == ["2S", "4S", "3S"]
    # A later delivery of that device is played with the offset too: 5♠ stamped
    # CLOSES + 4:30 was taken at CLOSES − 0:30, the fourth card.
    (late,) = deliver(
        client, admin, w, [item(w, "102", "5S", device, CLOSES + timedelta(minutes=4.5))]
    )
    assert (late["outcome"], late["reason"]) == ("counted", None)
    assert state(client, admin, w, "102")["hand"] == ["2S", "4S", "3S", "5S"]

    # Cleared: the takes are played at their stored times again (the log was never edited).
    cleared = set_clock(client, admin, w, device, None)
    assert cleared.status_code == 200 and cleared.json()["changed_outcomes"] == 3
    assert state(client, admin, w, "102")["hand"] == ["4S"]
    stored = {i["card"]: i for i in log_items(client, admin, w) if i["source"] == device}
    assert parse(stored["2S"]["taken_at"]) == CLOSES + timedelta(minutes=2)

    unknown = set_clock(client, admin, w, "nobody", 60)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "source_not_found")
    bad = set_clock(client, admin, w, device, 10**9)
    assert bad.status_code == 422


def test_a_source_clock_on_top_of_a_corrected_batch_uses_the_device_time(client, admin, world):
    w = world
    stamp = CLOSES + timedelta(minutes=6)
    deliver(
        client,
        admin,
        w,
        [item(w, "101", "2S", "fixpoint-7", stamp)],
        sent_at=utcnow() + timedelta(minutes=7),
    )
    # The organiser knows better: the device was 10 minutes fast. Field time = the device
    # time + (−600 s) = CLOSES − 4 min (not the stored, already corrected time − 10 min).
    assert set_clock(client, admin, w, "fixpoint-7", -600).status_code == 200
    (take,) = state(client, admin, w, "101")["takes"]
    assert parse(take["taken_at"]) == CLOSES - timedelta(minutes=4)
    assert parse(take["device_taken_at"]) == stamp
    assert take["clock_offset_seconds"] == -600


def test_warnings_list_the_devices_whose_clocks_were_off(client, admin, world):
    w = world
    stamp = CLOSES + timedelta(minutes=6)
    deliver(
        client,
        admin,
        w,
        [item(w, "101", "2S", "fixpoint-7", stamp), item(w, "102", "2H", "fixpoint-7", stamp)],
        sent_at=(before := utcnow()) + timedelta(minutes=7),
    )
    waited = (utcnow() - before).total_seconds()
    deliver(client, admin, w, [item(w, "101", "3S", "fixpoint-1", CLOSES - timedelta(hours=1))])
    deliver(client, admin, w, [item(w, "102", "3H", "watch-5", CLOSES + timedelta(minutes=1))])
    assert set_clock(client, admin, w, "watch-5", -120).status_code == 200

    response = client.get(f"/api/v1/events/{w.id}/warnings", headers=admin)
    clocks = response.json()["device_clocks"]
    assert [c["source"] for c in clocks] == ["fixpoint-7", "watch-5"]
    fixpoint, watch = clocks
    assert fixpoint["corrected_takes"] == 2
    assert -SEVEN_MINUTES <= fixpoint["min_offset_seconds"] <= -SEVEN_MINUTES + waited
    assert fixpoint["participants"] == ["101", "102"]
    assert fixpoint["organiser_offset_seconds"] is None
    assert (watch["corrected_takes"], watch["organiser_offset_seconds"]) == (0, -120)
    assert watch["participants"] == ["102"]


def test_a_source_clock_is_refused_once_the_feed_is_frozen(client, admin, world):
    w = world
    deliver(client, admin, w, [item(w, "101", "2S", "watch-5", CLOSES + timedelta(minutes=1))])
    assert (
        client.post(
            f"/api/v1/events/{w.id}/status", json={"status": "ceremony"}, headers=admin
        ).status_code
        == 200
    )
    before = state(client, admin, w, "101")
    response = set_clock(client, admin, w, "watch-5", -120)
    assert (response.status_code, response.json()["code"]) == (409, "feed_closed")
    assert state(client, admin, w, "101") == before


def test_a_bad_sent_at_refuses_the_batch_and_stores_nothing(client, admin, world):
    w = world
    takes = [item(w, "101", "2S", "fixpoint-7", CLOSES - timedelta(minutes=1))]
    for sent_at in ("2026-06-13T03:00:00", "not a time", "0999-01-01T00:00:00+00:00"):
        response = client.post(
            f"/api/v1/events/{w.id}/takes", json={"takes": takes, "sent_at": sent_at}, headers=admin
        )
        assert response.status_code == 422, response.text
    assert log_items(client, admin, w) == []
