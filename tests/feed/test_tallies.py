"""The participants' tallies that the dashboard sums (issue 24): kept by every feed write
(new takes, late takes replayed, voids, the rebuild), equal to what the log says."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.events.models import Event
from app.feed import views as feed_views
from app.flows.dashboard import dashboard_numbers
from tests.factories import make_participant
from tests.feed.conftest import World, at

NOW = datetime(2026, 6, 12, 12, 0, tzinfo=UTC)  # 3 h into the course (the rate is 0)


def deliver(client: TestClient, admin: dict, world: World, takes: list[tuple]) -> list[dict]:
    body = {
        "takes": [
            {"participant": who, "code": code, "taken_at": at(minute).isoformat(),
             "source": f"phone-{who}", "source_id": f"{who}-{minute}"}
            for who, code, minute in takes
        ]
    }  # fmt: skip
    response = client.post(f"/api/v1/events/{world.id}/takes", json=body, headers=admin)
    assert response.status_code == 200, response.text
    return response.json()["results"]


def numbers(session: Session, world: World) -> dict:
    session.expire_all()
    event = session.get(Event, world.id)
    found = dashboard_numbers(session, event, NOW)
    # the same counts from the log itself (the former, linear computation)
    warnings = feed_views.warnings(session, event, now=NOW)
    assert found["takes_total"] == feed_views.log(session, event, limit=1).total
    assert found["unsaved_hands"] == len(warnings.unsaved_hands)
    assert found["unknown_codes"] == len(warnings.unknown_codes)
    assert found["hand_full"] == sum(w.count for w in warnings.hand_full)
    session.rollback()
    return found


def test_tallies_follow_takes_refusals_voids_late_takes_and_the_rebuild(
    client: TestClient, admin: dict, session: Session, world: World
) -> None:
    make_participant(session, session.get(Event, world.id), "103", "Carol")  # no take
    session.commit()
    # Alice: five spades (a full hand, unsaved), two more refused as hand_full (RULES.md
    # I-1), one code that is no checkpoint's
    alice = [("101", world.cp(f"{rank}S"), minute) for minute, rank in enumerate("23456", 1)]
    alice += [("101", world.cp("7S"), 6), ("101", world.cp("8S"), 7), ("101", "NOPE", 8)]
    # Bob: two hearts and an unknown code that the organiser will void
    bob = [("102", world.cp("2H"), 1), ("102", world.cp("3H"), 2), ("102", "WHAT", 3)]
    results = deliver(client, admin, world, alice + bob)
    assert [r["reason"] for r in results] == [None] * 5 + ["hand_full"] * 2 + [
        "unknown_code",
        None,
        None,
        "unknown_code",
    ]
    assert numbers(session, world) == {
        "participants": 3, "takes_total": 11, "takes_per_minute": 0.0,
        "unsaved_hands": 2, "unknown_codes": 2, "hand_full": 2,
    }  # fmt: skip

    void = client.post(
        f"/api/v1/events/{world.id}/takes/{results[-1]['take_id']}/void",
        json={"reason": "scanned the car park"},
        headers=admin,
    )
    assert void.status_code == 200, void.text
    # a void is a replay of Bob: his unknown code no longer counts, his take does
    assert numbers(session, world)["unknown_codes"] == 1

    # Bob's late take (field time before his last one): replayed from the log
    deliver(client, admin, world, [("102", world.cp("4H"), 0.5)])
    after_late = numbers(session, world)
    assert after_late == {
        "participants": 3, "takes_total": 12, "takes_per_minute": 0.0,
        "unsaved_hands": 2, "unknown_codes": 1, "hand_full": 2,
    }  # fmt: skip

    rebuilt = client.post(f"/api/v1/events/{world.id}/rebuild", headers=admin)
    assert rebuilt.status_code == 200, rebuilt.text
    assert numbers(session, world) == after_late
