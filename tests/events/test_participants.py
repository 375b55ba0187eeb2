"""Participants: creation with tokens and save codes, CRUD, CSV import, re-issue."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.security import hash_token
from app.events.codes import SHORT_CODE_ALPHABET
from app.events.models import Event, Participant, SaveCode
from app.feed.models import Take
from tests.events.conftest import EVENT_BODY


def _create(client, admin, event_id, **body):
    return client.post(f"/api/v1/events/{event_id}/participants", json=body, headers=admin)


def test_create_participant(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict], session
) -> None:
    response = _create(client, admin, event_id, name="Team Elk", category="MW")
    assert response.status_code == 201
    body = response.json()
    assert (body["name"], body["category"], body["external_id"]) == ("Team Elk", "MW", "1")
    token = body["access_token"]
    assert len(token) >= 32
    assert body["personal_url"] == f"http://testserver/p/{token}"
    codes = body["save_codes"]
    assert len(codes) == 10  # the event's default
    assert len(set(codes)) == 10
    for code in codes:
        assert len(code) == 6
        assert set(code) <= set(SHORT_CODE_ALPHABET)
    cp_codes = {cp["code"] for cp in deck} | {cp["discard_code"] for cp in deck}
    assert not set(codes) & cp_codes
    # The token is stored only as its hash.
    stored = session.scalar(select(Participant).where(Participant.id == body["id"]))
    assert stored.access_token_hash == hash_token(token)
    assert token not in {stored.access_token_hash, stored.external_id, stored.name}
    saved = session.scalars(
        select(SaveCode.code)
        .where(SaveCode.participant_id == body["id"])
        .order_by(SaveCode.position)
    ).all()
    assert saved == codes


def test_external_ids_generated_after_the_highest_number(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    assert _create(client, admin, event_id, name="A").json()["external_id"] == "1"
    assert _create(client, admin, event_id, name="B", external_id="17").json()["external_id"] == (
        "17"
    )
    assert _create(client, admin, event_id, name="C", external_id="bib-x").status_code == 201
    assert _create(client, admin, event_id, name="D").json()["external_id"] == "18"


def test_save_codes_follow_the_event_setting(client: TestClient, admin: dict[str, str]) -> None:
    event_id = client.post(
        "/api/v1/events", json={**EVENT_BODY, "save_codes_per_participant": 3}, headers=admin
    ).json()["id"]
    assert len(_create(client, admin, event_id, name="A").json()["save_codes"]) == 3


def test_save_codes_unique_across_participants(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    codes = []
    for i in range(20):
        codes += _create(client, admin, event_id, name=f"P{i}").json()["save_codes"]
    assert len(set(codes)) == 200


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "A", "external_id": ""},
        {"name": "A", "external_id": "a/b"},
        {"name": "A", "colour": "red"},
        {"name": "A" * 201},
    ],
)
def test_create_participant_validation(
    client: TestClient, admin: dict[str, str], event_id: int, body: dict
) -> None:
    response = client.post(f"/api/v1/events/{event_id}/participants", json=body, headers=admin)
    assert response.status_code == 422
    assert client.get(f"/api/v1/events/{event_id}/participants", headers=admin).json() == {
        "participants": []
    }


def test_duplicate_external_id_is_a_conflict(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    _create(client, admin, event_id, name="A", external_id="42")
    response = _create(client, admin, event_id, name="B", external_id="42")
    assert response.status_code == 409
    assert response.json()["code"] == "external_id_taken"
    # Another event may use the same number.
    other = client.post("/api/v1/events", json=EVENT_BODY, headers=admin).json()["id"]
    assert _create(client, admin, other, name="B", external_id="42").status_code == 201


def test_participant_endpoints_need_the_organiser(client: TestClient, event_id: int) -> None:
    base = f"/api/v1/events/{event_id}/participants"
    assert client.post(base, json={"name": "A"}).status_code == 401
    assert client.get(base).status_code == 401
    assert client.get(f"{base}/1").status_code == 401
    assert client.patch(f"{base}/1", json={"name": "B"}).status_code == 401
    assert client.delete(f"{base}/1").status_code == 401
    assert client.post(f"{base}/1/access-token").status_code == 401
    assert client.post(f"{base}/import", content=b"name\nA\n").status_code == 401


def test_list_and_get_show_save_codes_not_tokens(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    created = _create(client, admin, event_id, name="A", external_id="7").json()
    listed = client.get(f"/api/v1/events/{event_id}/participants", headers=admin)
    assert listed.status_code == 200
    [item] = listed.json()["participants"]
    assert item["save_codes"] == created["save_codes"]
    assert "access_token" not in item
    assert created["access_token"] not in listed.text
    got = client.get(f"/api/v1/events/{event_id}/participants/7", headers=admin).json()
    assert got == item
    missing = client.get(f"/api/v1/events/{event_id}/participants/8", headers=admin)
    assert missing.status_code == 404
    assert missing.json()["code"] == "participant_not_found"


def test_update_participant(client: TestClient, admin: dict[str, str], event_id: int) -> None:
    _create(client, admin, event_id, name="A", external_id="1", category="M")
    _create(client, admin, event_id, name="B", external_id="2")
    base = f"/api/v1/events/{event_id}/participants"
    response = client.patch(
        f"{base}/1", json={"name": "Anna", "external_id": "11", "category": None}, headers=admin
    )
    assert response.status_code == 200
    assert (response.json()["name"], response.json()["external_id"]) == ("Anna", "11")
    assert response.json()["category"] is None
    assert client.get(f"{base}/1", headers=admin).status_code == 404
    clash = client.patch(f"{base}/11", json={"external_id": "2"}, headers=admin)
    assert clash.status_code == 409
    assert clash.json()["code"] == "external_id_taken"
    assert client.patch(f"{base}/11", json={"name": None}, headers=admin).status_code == 422
    assert client.patch(f"{base}/11", json={"name": ""}, headers=admin).status_code == 422
    assert client.patch(f"{base}/11", json={"name": "  "}, headers=admin).status_code == 422
    assert client.get(f"{base}/11", headers=admin).json()["name"] == "Anna"


def test_delete_participant(
    client: TestClient, admin: dict[str, str], event_id: int, session
) -> None:
    created = _create(client, admin, event_id, name="A", external_id="5").json()
    response = client.delete(f"/api/v1/events/{event_id}/participants/5", headers=admin)
    assert response.status_code == 204
    assert client.get(f"/api/v1/events/{event_id}/participants/5", headers=admin).status_code == (
        404
    )
    left = session.scalars(select(SaveCode).where(SaveCode.participant_id == created["id"])).all()
    assert left == []


def test_participant_with_takes_cannot_be_deleted(
    client: TestClient, admin: dict[str, str], event_id: int, session
) -> None:
    created = _create(client, admin, event_id, name="A", external_id="5").json()
    event = session.get(Event, event_id)
    session.add(
        Take(
            event_id=event_id,
            participant_id=created["id"],
            source="test",
            source_id="1",
            code="WHATEVER",
            taken_at=event.opens_at,
            recorded_by="test",
        )
    )
    session.commit()
    response = client.delete(f"/api/v1/events/{event_id}/participants/5", headers=admin)
    assert response.status_code == 409
    assert response.json()["code"] == "participant_has_takes"
    assert client.get(f"/api/v1/events/{event_id}/participants/5", headers=admin).status_code == (
        200
    )


def test_reissue_access_token(
    client: TestClient, admin: dict[str, str], event_id: int, session
) -> None:
    created = _create(client, admin, event_id, name="A", external_id="5").json()
    response = client.post(f"/api/v1/events/{event_id}/participants/5/access-token", headers=admin)
    assert response.status_code == 200
    body = response.json()
    assert body["external_id"] == "5"
    assert body["access_token"] != created["access_token"]
    assert body["personal_url"] == f"http://testserver/p/{body['access_token']}"
    stored = session.get(Participant, created["id"])
    assert stored.access_token_hash == hash_token(body["access_token"])


def test_import_participants(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    _create(client, admin, event_id, name="Early", external_id="3")
    text = "name,external_id,category\nAnna,,W\nBoris,77,\nTeam Fox,,MW\n"
    response = client.post(
        f"/api/v1/events/{event_id}/participants/import",
        files={"file": ("people.csv", text.encode(), "text/csv")},
        headers=admin,
    )
    assert response.status_code == 201, response.text
    people = response.json()["participants"]
    # Generated ids continue after the highest number in use (77).
    assert [(p["name"], p["external_id"], p["category"]) for p in people] == [
        ("Anna", "78", "W"),
        ("Boris", "77", None),
        ("Team Fox", "79", "MW"),
    ]
    assert all(len(p["save_codes"]) == 10 and p["access_token"] for p in people)
    listed = client.get(f"/api/v1/events/{event_id}/participants", headers=admin).json()
    assert len(listed["participants"]) == 4


def test_import_participants_name_only_column(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    response = client.post(
        f"/api/v1/events/{event_id}/participants/import",
        content=b"Name\nAnna\nBoris\n",
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 201
    assert [p["external_id"] for p in response.json()["participants"]] == ["1", "2"]


def test_import_participants_bad_rows_store_nothing(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    _create(client, admin, event_id, name="Early", external_id="3")
    text = (
        "name,external_id,category\n"  # row 1
        "Anna,10,W\n"  # row 2
        ",11,M\n"  # row 3: no name
        "Boris,10,M\n"  # row 4: external id repeated
        "Clara,3,\n"  # row 5: external id of an existing participant
        "Dan,a/b,\n"  # row 6: bad external id
        f"Eve,,{'C' * 65}\n"  # row 7: category too long
    )
    response = client.post(
        f"/api/v1/events/{event_id}/participants/import",
        content=text.encode(),
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "csv_invalid"
    assert [(e["row"], e["field"]) for e in problem["errors"]] == [
        (3, "name"),
        (4, "external_id"),
        (5, "external_id"),
        (6, "external_id"),
        (7, "category"),
    ]
    listed = client.get(f"/api/v1/events/{event_id}/participants", headers=admin).json()
    assert [p["external_id"] for p in listed["participants"]] == ["3"]


def test_import_participants_without_name_column(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    response = client.post(
        f"/api/v1/events/{event_id}/participants/import",
        content=b"team,bib\nA,1\n",
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 422
    assert [(e["row"], e["field"]) for e in response.json()["errors"]] == [(1, "name")]
