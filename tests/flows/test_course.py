"""Closing the course safely (issue 16): `POST …/course/close`, the `replay` summary of a
window or ranking change, its preview (`dry_run`) that stores nothing, the status moves
and the ceremony order. Expected values are worked out by hand from RULES.md §1.1
(only takes inside `[opens_at, closes_at)` count) and §1.4 (3rd, 2nd, then 1st place).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.audit import AuditEntry
from app.events.models import Event
from tests.factories import event_cp_code, make_event, make_participant

CARDS_A = ["2S", "3S", "4S", "5S", "6S"]
CARDS_B = ["2H", "3H", "4H", "5H", "6H"]


def world(session: Session, *, opens_at: datetime, closes_at: datetime):
    event = make_event(session, opens_at=opens_at, closes_at=closes_at)
    anna = make_participant(session, event, "1", name="Anna")
    boris = make_participant(session, event, "2", name="Boris")
    session.commit()
    plain = SimpleNamespace(id=event.id)  # no ORM object: reading one would lock SQLite
    session.rollback()
    return plain, anna, boris


def deliver(client: TestClient, admin: dict, event, items: list[tuple[str, str, datetime]]):
    """Takes (participant, code, taken_at) through the field feed; all must be stored."""
    takes = [
        {
            "participant": who,
            "code": code,
            "taken_at": moment.isoformat(),
            "source": "sportident",
            "source_id": f"s{i}-{who}-{moment.timestamp()}",
        }
        for i, (who, code, moment) in enumerate(items)
    ]
    response = client.post(f"/api/v1/events/{event.id}/takes", json={"takes": takes}, headers=admin)
    assert response.status_code == 200, response.text
    return [r["outcome"] for r in response.json()["results"]]


def outcomes(client: TestClient, admin: dict, event_id: int, who: str) -> list[str | None]:
    state = client.get(f"/api/v1/events/{event_id}/participants/{who}/state", headers=admin)
    return [t["reason"] for t in state.json()["takes"]]


def audit_count(session: Session, event_id: int) -> int:
    count = session.scalar(
        select(func.count()).select_from(AuditEntry).where(AuditEntry.event_id == event_id)
    )
    session.rollback()  # SQLite: end the read transaction, which holds the write lock
    return count


@pytest.fixture
def played(client: TestClient, admin: dict, session: Session):
    """Course open from 1 h ago for 17 h. Anna: 5 cards at opening + 1..5 min and a save at
    +6 min (6 takes). Boris: 3 cards at +10..12 min and 2 at +40, +41 min (5 takes)."""
    now = datetime.now(UTC)
    opens = (now - timedelta(hours=1)).replace(microsecond=0)
    event, anna, _ = world(session, opens_at=opens, closes_at=opens + timedelta(hours=18))
    a = [
        ("1", event_cp_code(event, c), opens + timedelta(minutes=1 + i))
        for i, c in enumerate(CARDS_A)
    ]
    a.append(("1", anna.save_codes[0], opens + timedelta(minutes=6)))
    b = [
        ("2", event_cp_code(event, c), opens + timedelta(minutes=10 + i))
        for i, c in enumerate(CARDS_B[:3])
    ]
    b += [
        ("2", event_cp_code(event, c), opens + timedelta(minutes=37 + i))
        for i, c in enumerate(CARDS_B[3:], 3)
    ]
    assert deliver(client, admin, event, a + b) == ["counted"] * 11
    return event, opens


def test_a_window_change_answers_the_replay_summary(client, admin, played, session):
    event, opens = played
    base = f"/api/v1/events/{event.id}"
    # Closing at +30 min: Boris's 2 takes at +40, +41 min fall outside; Anna's 6 stay.
    new_close = (opens + timedelta(minutes=30)).isoformat()
    response = client.patch(base, json={"closes_at": new_close}, headers=admin)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["replay"] == {
        "participants": 2,
        "takes": 11,
        "changed_outcomes": 2,
        "changed_participants": 1,
        "stopped_counting": 2,
        "started_counting": 0,
    }
    assert body["dry_run"] is False
    assert outcomes(client, admin, event.id, "2") == [None] * 3 + ["outside_course_hours"] * 2
    # A ranking change replays too; no outcome depends on the preset here.
    ranked = client.patch(base, json={"hand_ranking": "classic"}, headers=admin).json()
    assert ranked["replay"]["takes"] == 11 and ranked["replay"]["changed_outcomes"] == 0
    # A change that moves neither window nor preset has no replay.
    assert client.patch(base, json={"name": "Renamed"}, headers=admin).json()["replay"] is None


def test_a_preview_computes_the_summary_and_stores_nothing(client, admin, played, session):
    event, opens = played
    base = f"/api/v1/events/{event.id}"
    before_audit = audit_count(session, event.id)
    before_event = client.get(base, headers=admin).json()
    new_close = (opens + timedelta(minutes=11, seconds=30)).isoformat()
    # Closing at +11.5 min: Boris's takes at +12, +40, +41 min stop counting: 3 of 1 participant.
    preview = client.patch(f"{base}?dry_run=true", json={"closes_at": new_close}, headers=admin)
    assert preview.status_code == 200, preview.text
    body = preview.json()
    assert body["dry_run"] is True
    assert body["closes_at"] == (opens + timedelta(minutes=11, seconds=30)).isoformat().replace(
        "+00:00", "Z"
    )
    assert body["replay"]["changed_outcomes"] == 3
    assert body["replay"]["stopped_counting"] == 3
    assert body["replay"]["changed_participants"] == 1
    # Nothing stored: the event, every outcome and the audit trail are as before.
    assert client.get(base, headers=admin).json() == before_event
    assert outcomes(client, admin, event.id, "2") == [None] * 5
    assert audit_count(session, event.id) == before_audit
    # Applying it gives exactly the preview's summary.
    applied = client.patch(base, json={"closes_at": new_close}, headers=admin).json()
    assert applied["replay"] == body["replay"]
    assert audit_count(session, event.id) > before_audit


def test_close_the_course_now(client, admin, session):
    now = datetime.now(UTC)
    event, *_ = world(
        session, opens_at=now - timedelta(hours=1), closes_at=now + timedelta(hours=5)
    )
    # Anna's 5 takes 30..26 min ago; Boris's device clock runs 2-4 min ahead (future takes
    # within the tolerance, counted while the course is open).
    a = [
        ("1", event_cp_code(event, c), now - timedelta(minutes=30 - i))
        for i, c in enumerate(CARDS_A)
    ]
    b = [
        ("2", event_cp_code(event, c), now + timedelta(minutes=2 + i))
        for i, c in enumerate(CARDS_B[:3])
    ]
    assert deliver(client, admin, event, a + b) == ["counted"] * 8
    url = f"/api/v1/events/{event.id}/course/close"
    before_audit = audit_count(session, event.id)
    preview = client.post(f"{url}?dry_run=true", headers=admin)
    assert preview.status_code == 200, preview.text
    assert preview.json()["replay"]["stopped_counting"] == 3
    assert preview.json()["status"] == "course_closed"
    assert client.get(f"/api/v1/events/{event.id}", headers=admin).json()["status"] == "course_open"
    assert audit_count(session, event.id) == before_audit

    before = datetime.now(UTC)
    response = client.post(url, headers=admin)
    after = datetime.now(UTC)
    assert response.status_code == 200, response.text
    body = response.json()
    closes_at = datetime.fromisoformat(body["closes_at"])
    assert before - timedelta(seconds=1) <= closes_at <= after
    assert body["status"] == "course_closed"
    # Boris's 3 takes are after the close: 3 changed outcomes of 1 participant of 2.
    assert body["replay"] == {
        "participants": 2,
        "takes": 8,
        "changed_outcomes": 3,
        "changed_participants": 1,
        "stopped_counting": 3,
        "started_counting": 0,
    }
    assert outcomes(client, admin, event.id, "1") == [None] * 5
    assert outcomes(client, admin, event.id, "2") == ["outside_course_hours"] * 3
    again = client.post(url, headers=admin)
    assert again.status_code == 409
    assert again.json()["code"] == "course_already_closed"
    local = closes_at.astimezone(timezone(timedelta(hours=3)))  # Moscow: UTC+3, no DST
    assert f"{local:%Y-%m-%d %H:%M} MSK (Europe/Moscow)" in again.json()["detail"]
    assert client.post(url).status_code == 401


def test_closing_before_the_opening_is_refused(client, admin, session):
    opens = datetime(2030, 6, 12, 9, 0, tzinfo=UTC)  # 12:00 in Moscow
    event, *_ = world(session, opens_at=opens, closes_at=opens + timedelta(hours=18))
    for response in (
        client.post(f"/api/v1/events/{event.id}/course/close", headers=admin),
        client.post(
            f"/api/v1/events/{event.id}/status", json={"status": "course_closed"}, headers=admin
        ),
    ):
        assert response.status_code == 409, response.text
        assert response.json()["code"] == "course_not_opened"
        assert "2030-06-12 12:00 MSK (Europe/Moscow)" in response.json()["detail"]


def test_status_course_closed_while_open_closes_the_course_now(client, admin, session):
    now = datetime.now(UTC)
    event, *_ = world(
        session, opens_at=now - timedelta(hours=1), closes_at=now + timedelta(hours=5)
    )
    assert deliver(
        client, admin, event, [("1", event_cp_code(event, "2S"), now + timedelta(minutes=3))]
    ) == ["counted"]
    response = client.post(
        f"/api/v1/events/{event.id}/status", json={"status": "course_closed"}, headers=admin
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "course_closed"
    assert datetime.fromisoformat(body["closes_at"]) <= datetime.now(UTC)
    assert body["replay"]["stopped_counting"] == 1
    # Auctions may open right away: the course is closed.
    assert (
        client.post(f"/api/v1/events/{event.id}/auctions/3/open", headers=admin).status_code == 200
    )


def test_the_ceremony_order_and_the_status_moves(client, admin, session):
    now = datetime.now(UTC)
    closes = datetime(2030, 6, 13, 3, 0, tzinfo=UTC)  # 06:00 in Moscow
    event, *_ = world(session, opens_at=now - timedelta(hours=1), closes_at=closes)
    base = f"/api/v1/events/{event.id}"

    def post(path: str, **kwargs: Any):
        return client.post(f"{base}{path}", headers=admin, **kwargs)

    still_open = post("/auctions/3/open")
    assert still_open.status_code == 409
    assert still_open.json()["code"] == "course_still_open"
    assert "2030-06-13 06:00 MSK (Europe/Moscow)" in still_open.json()["detail"]
    assert post("/course/close").status_code == 200
    for place in (2, 1):  # 3rd place first (RULES.md §1.4)
        refused = post(f"/auctions/{place}/open")
        assert refused.status_code == 409
        assert refused.json()["code"] == "auction_out_of_order"
    assert client.get(base, headers=admin).json()["status"] == "course_closed"
    assert post("/auctions/3/open").status_code == 200
    assert client.get(base, headers=admin).json()["status"] == "ceremony"
    # The feed is frozen: no window change, not even a preview, and no second close.
    for response in (
        client.patch(base, json={"closes_at": closes.isoformat()}, headers=admin),
        client.patch(f"{base}?dry_run=true", json={"hand_ranking": "classic"}, headers=admin),
    ):
        assert response.status_code == 409 and response.json()["code"] == "feed_closed"
    assert post("/course/close").json()["code"] == "course_already_closed"
    assert post("/auctions/2/open").json()["code"] == "auction_in_progress"
    for place in (3, 2, 1):
        if place != 3:
            assert post(f"/auctions/{place}/open").status_code == 200
        closed = post(f"/auctions/{place}/close")
        assert closed.status_code == 200 and closed.json()["status"] == "closed"
        # decided, not yet revealed: still the ceremony (RULES.md I-21)
        assert client.get(base, headers=admin).json()["status"] == "ceremony"
        if place == 1:
            # Undoing the last close (nothing revealed yet) reopens place 1.
            assert post("/auctions/1/undo").status_code == 200
            assert client.get(base, headers=admin).json()["status"] == "ceremony"
            assert post("/auctions/1/close").status_code == 200
        assert post(f"/auctions/{place}/reveal", json={"all": True}).status_code == 200
        expected = "finished" if place == 1 else "ceremony"
        assert client.get(base, headers=admin).json()["status"] == expected


def test_the_status_reads_closed_once_the_window_has_passed(client, admin, session):
    """Nobody pressed "close now": past `closes_at` the API and the pages say
    `course_closed` (derived at read time, nothing stored by a read); the next status
    write stores it, without moving the window or replaying takes."""
    now = datetime.now(UTC)
    event, *_ = world(
        session, opens_at=now - timedelta(hours=5), closes_at=now - timedelta(minutes=1)
    )
    event_id = event.id

    def stored_status() -> str:
        status = session.scalar(select(Event.status).where(Event.id == event_id))
        session.rollback()  # no open read: it would lock SQLite for the app
        return status

    assert client.get(f"/api/v1/events/{event_id}", headers=admin).json()["status"] == (
        "course_closed"
    )
    listed = client.get("/api/v1/events", headers=admin).json()
    assert [e["status"] for e in listed if e["id"] == event_id] == ["course_closed"]
    assert stored_status() == "course_open"  # a read stores nothing

    response = client.post(
        f"/api/v1/events/{event_id}/status", json={"status": "course_closed"}, headers=admin
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "course_closed"
    closes = datetime.fromisoformat(response.json()["closes_at"])
    assert closes == now - timedelta(minutes=1)  # unchanged: the course closed by itself
    assert response.json()["replay"] is None  # nothing replayed: the window did not move
    assert stored_status() == "course_closed"
