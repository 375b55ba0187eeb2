"""Events: creation, validation, local time, updates and the status machine."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.audit import AuditEntry
from tests.events.conftest import EVENT_BODY


def test_create_event_stores_utc_and_shows_local_time(
    client: TestClient, admin: dict[str, str]
) -> None:
    response = client.post("/api/v1/events", json=EVENT_BODY, headers=admin)
    assert response.status_code == 201
    body = response.json()
    # Moscow is UTC+3 all year: 12:00 local on 12 June is 09:00 UTC.
    assert body["opens_at"] == "2026-06-12T09:00:00Z"
    assert body["closes_at"] == "2026-06-13T03:00:00Z"
    assert body["opens_at_local"] == "2026-06-12T12:00:00+03:00"
    assert body["closes_at_local"] == "2026-06-13T06:00:00+03:00"
    assert body["timezone"] == "Europe/Moscow"
    assert body["status"] == "draft"
    # Defaults of the issue: seed ranking, 10 save codes, 3 places.
    assert body["hand_ranking"] == "seed"
    assert body["save_codes_per_participant"] == 10
    assert body["award_places"] == 3
    assert body["deck_seed"] is None
    assert body["checkpoint_count"] == 0


def test_local_time_follows_daylight_saving(client: TestClient, admin: dict[str, str]) -> None:
    body = {
        **EVENT_BODY,
        "timezone": "Europe/Warsaw",
        "opens_at": "2026-01-10T09:00:00Z",  # winter: CET, UTC+1
        "closes_at": "2026-07-10T09:00:00Z",  # summer: CEST, UTC+2
    }
    event = client.post("/api/v1/events", json=body, headers=admin).json()
    assert event["opens_at_local"] == "2026-01-10T10:00:00+01:00"
    assert event["closes_at_local"] == "2026-07-10T11:00:00+02:00"


def test_create_event_options(client: TestClient, admin: dict[str, str]) -> None:
    body = {
        **EVENT_BODY,
        "hand_ranking": "classic",
        "save_codes_per_participant": 4,
        "award_places": 5,
    }
    event = client.post("/api/v1/events", json=body, headers=admin).json()
    assert (event["hand_ranking"], event["save_codes_per_participant"], event["award_places"]) == (
        "classic",
        4,
        5,
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"closes_at": "2026-06-12T11:00:00+03:00"}, "closes_at"),  # before opening
        ({"closes_at": "2026-06-12T12:00:00+03:00"}, "closes_at"),  # equal to opening
        ({"opens_at": "2026-06-12T12:00:00"}, "opens_at"),  # no offset
        ({"closes_at": "not a time"}, "closes_at"),
        ({"timezone": "Europe/Atlantis"}, "timezone"),
        ({"timezone": "+03:00"}, "timezone"),
        ({"hand_ranking": "lowball"}, "hand_ranking"),
        ({"save_codes_per_participant": 0}, "save_codes_per_participant"),
        ({"award_places": 0}, "award_places"),
        ({"name": ""}, "name"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_create_event_validation(
    client: TestClient, admin: dict[str, str], change: dict, field: str
) -> None:
    response = client.post("/api/v1/events", json={**EVENT_BODY, **change}, headers=admin)
    assert response.status_code == 422
    problem = response.json()
    assert response.headers["content-type"].startswith("application/problem+json")
    assert problem["code"] == "validation_error"
    assert ["body", field] in [error["loc"][:2] for error in problem["errors"]]
    assert client.get("/api/v1/events", headers=admin).json() == []


def test_organiser_token_required(client: TestClient) -> None:
    assert client.post("/api/v1/events", json=EVENT_BODY).status_code == 401
    assert client.get("/api/v1/events").status_code == 401
    wrong = {"Authorization": "Bearer wrong"}
    assert client.post("/api/v1/events", json=EVENT_BODY, headers=wrong).status_code == 401


def test_get_event_public_hides_seed(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    client.post(f"/api/v1/events/{event_id}/checkpoints/shuffle", json={"seed": 7}, headers=admin)
    public = client.get(f"/api/v1/events/{event_id}")
    assert public.status_code == 200
    assert public.json()["name"] == EVENT_BODY["name"]
    assert "deck_seed" not in public.json()
    organiser = client.get(f"/api/v1/events/{event_id}", headers=admin).json()
    assert organiser["deck_seed"] == 7
    assert organiser["checkpoint_count"] == 54
    assert [e["id"] for e in client.get("/api/v1/events", headers=admin).json()] == [event_id]


def test_unknown_event_is_404(client: TestClient, admin: dict[str, str]) -> None:
    response = client.get("/api/v1/events/999", headers=admin)
    assert response.status_code == 404
    assert response.json()["code"] == "event_not_found"


def test_update_event(client: TestClient, admin: dict[str, str], event_id: int, session) -> None:
    response = client.patch(
        f"/api/v1/events/{event_id}",
        json={"name": "Renamed", "closes_at": "2026-06-13T09:00:00+03:00", "award_places": 2},
        headers=admin,
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["closes_at"], body["award_places"]) == (
        "Renamed",
        "2026-06-13T06:00:00Z",
        2,
    )
    assert body["opens_at"] == "2026-06-12T09:00:00Z"  # unchanged
    actions = session.scalars(select(AuditEntry.action).order_by(AuditEntry.id)).all()
    assert actions == ["event.create", "event.update"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"closes_at": "2026-06-12T10:00:00+03:00"}, "closes_at"),  # before the stored opening
        ({"opens_at": "2026-06-13T07:00:00+03:00"}, "closes_at"),  # after the stored closing
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"opens_at": "2026-06-12T12:00:00"}, "opens_at"),
    ],
)
def test_update_event_validation(
    client: TestClient, admin: dict[str, str], event_id: int, change: dict, field: str
) -> None:
    response = client.patch(f"/api/v1/events/{event_id}", json=change, headers=admin)
    assert response.status_code == 422
    assert ["body", field] in [error["loc"][:2] for error in response.json()["errors"]]
    event = client.get(f"/api/v1/events/{event_id}", headers=admin).json()
    assert event["opens_at"] == "2026-06-12T09:00:00Z"
    assert event["timezone"] == "Europe/Moscow"


def test_save_code_count_fixed_once_participants_exist(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    client.post(f"/api/v1/events/{event_id}/participants", json={"name": "A"}, headers=admin)
    response = client.patch(
        f"/api/v1/events/{event_id}", json={"save_codes_per_participant": 5}, headers=admin
    )
    assert response.status_code == 409
    assert response.json()["code"] == "participants_exist"


def test_status_moves_forward_only(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    url = f"/api/v1/events/{event_id}/status"
    # Stored as course_open; the window (June 2026) has passed, so it reads as closed.
    assert client.post(url, json={"status": "course_open"}, headers=admin).json()["status"] == (
        "course_closed"
    )
    for backwards in ("draft", "course_open"):
        response = client.post(url, json={"status": backwards}, headers=admin)
        assert response.status_code == 409
        assert response.json()["code"] == "status_not_forward"
        assert response.json()["detail"].startswith("The event is course_closed;")
    # Skipping forward is allowed.
    assert client.post(url, json={"status": "ceremony"}, headers=admin).json()["status"] == (
        "ceremony"
    )
    assert client.post(url, json={"status": "finished"}, headers=admin).status_code == 200
    assert client.post(url, json={"status": "ceremony"}, headers=admin).status_code == 409
    assert client.post(url, json={"status": "paused"}, headers=admin).status_code == 422
    assert client.post(url, json={"status": "finished"}).status_code == 401


def test_leaving_draft_needs_a_deck(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    response = client.post(
        f"/api/v1/events/{event_id}/status", json={"status": "course_open"}, headers=admin
    )
    assert response.status_code == 409
    assert response.json()["code"] == "deck_missing"


def test_moving_the_window_replays_recorded_takes(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    base = f"/api/v1/events/{event_id}"
    client.post(f"{base}/participants", json={"name": "A", "external_id": "7"}, headers=admin)
    take = {
        "participant": "7",
        "code": deck[0]["code"],
        "taken_at": "2026-06-12T13:00:00+03:00",  # one hour after the opening
        "source": "test",
        "source_id": "1",
    }
    result = client.post(f"{base}/takes", json={"takes": [take]}, headers=admin).json()
    assert result["results"][0]["outcome"] == "counted"
    # The organiser moves the opening to 14:00: the 13:00 take no longer counts (§1.1).
    response = client.patch(base, json={"opens_at": "2026-06-12T14:00:00+03:00"}, headers=admin)
    assert response.status_code == 200
    state = client.get(f"{base}/participants/7/state", headers=admin).json()
    assert state["hand"] == []
    assert [(t["outcome"], t["reason"]) for t in state["takes"]] == [
        ("rejected", "outside_course_hours")
    ]


def test_local_time_is_the_one_formatter_of_event_times() -> None:
    from datetime import UTC, datetime

    from app.events.models import Event
    from app.events.service import local_time, zoned_time

    moment = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)  # Moscow is UTC+3: 06:00 local
    moscow, nowhere = Event(timezone="Europe/Moscow"), Event(timezone="Nowhere/Atlantis")
    assert local_time(moscow, moment) == "2026-06-13 06:00"
    assert local_time(moscow, moment, "%d.%m %H:%M") == "13.06 06:00"
    assert local_time(moscow, None) == ""
    assert zoned_time(moscow, moment) == "2026-06-13 06:00 MSK (Europe/Moscow)"
    assert zoned_time(nowhere, moment) == "2026-06-13 03:00 UTC (UTC)"  # unknown zone: UTC
