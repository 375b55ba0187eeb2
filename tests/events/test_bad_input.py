"""Bad input is 422 (or 404), never a database error (issue 14 items 2–4): integer path
parameters beyond the column's range, NUL in text, control characters, dates out of range.
Each test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.events.conftest import EVENT_BODY
from tests.factories import make_event, make_participant

INT4_OVER = 2**31  # beyond PostgreSQL's integer
INT8_OVER = 2**63  # beyond SQLite's integer


@pytest.mark.parametrize("number", [INT4_OVER, INT8_OVER])
def test_integer_path_parameters_beyond_the_columns(
    client: TestClient, admin: dict[str, str], event_id: int, number: int
) -> None:
    base = f"/api/v1/events/{event_id}"
    requests = [
        ("GET", f"/api/v1/events/{number}"),
        ("GET", f"{base}/checkpoints/{number}/qr.svg"),
        ("PATCH", f"{base}/checkpoints/{number}"),
        ("POST", f"{base}/takes/{number}/void"),
        ("POST", f"{base}/integration-keys/{number}/revoke"),
        ("GET", f"{base}/auctions/{number}"),
        ("DELETE", f"{base}/auctions/1/bids/{number}"),
        ("GET", f"/api/v1/games/{number}"),
        ("POST", f"/api/v1/events/{number}/takes"),
    ]
    for method, url in requests:
        response = client.request(method, url, headers=admin, json={"reason": "x", "takes": []})
        assert response.status_code in (404, 422), (url, response.status_code)
        assert response.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize(
    "path, body",
    [
        ("", {"name": "A\x00"}),
        ("", {"name": "A", "external_id": "7\x00"}),
        ("", {"name": "A", "category": "M\x00"}),
        ("", {"name": "A" * 201}),
        ("/import", None),
    ],
)
def test_nul_and_length_in_participants(
    client: TestClient, admin: dict[str, str], event_id: int, path: str, body: dict | None
) -> None:
    url = f"/api/v1/events/{event_id}/participants{path}"
    if body is None:  # the CSV import: the same types, the error names the row
        response = client.post(url, content=b"name\nA\x00B\n", headers=admin)
        assert response.json()["errors"] == [
            {"row": 2, "field": "name", "msg": "Value error, must not contain the NUL "
             "character (U+0000)"}
        ]  # fmt: skip
    else:
        response = client.post(url, json=body, headers=admin)
        assert response.json()["code"] == "validation_error"
    assert response.status_code == 422
    assert client.get(f"/api/v1/events/{event_id}/participants", headers=admin).json() == {
        "participants": []
    }


def test_nul_in_event_hint_key_and_game_names(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    base = f"/api/v1/events/{event_id}"
    refused = [
        client.post("/api/v1/events", json={**EVENT_BODY, "name": "Rogaine\x00"}, headers=admin),
        client.patch(base, json={"name": "\x00"}, headers=admin),
        client.patch(f"{base}/checkpoints/1", json={"hint": "pine\x00"}, headers=admin),
        client.post(f"{base}/integration-keys", json={"name": "Fix\x00Point"}, headers=admin),
        client.post("/api/v1/games", json={"module": "poker-dice", "players": ["A\x00", "B"]}),
    ]
    for response in refused:
        assert (response.status_code, response.json()["code"]) == (422, "validation_error")
    assert client.get(base).json()["name"] == EVENT_BODY["name"]
    assert client.get(f"{base}/checkpoints").json()["checkpoints"][0]["hint"] == "near a pine 1"


def test_text_people_read_is_cleaned(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    response = client.post(
        f"/api/v1/events/{event_id}/participants",
        json={"name": "  Anna\x07 Petrova\r\n", "external_id": " 7\x1b ", "category": "W\tM"},
        headers=admin,
    )
    assert response.status_code == 201
    created = response.json()
    assert (created["name"], created["external_id"], created["category"]) == (
        "Anna Petrova",
        "7",
        "W\tM",
    )


@pytest.mark.parametrize(
    "field, value",
    [("opens_at", "0001-01-01T00:30:00+01:00"), ("closes_at", "9999-12-31T23:59:59-01:00")],
)
def test_event_dates_out_of_range(
    client: TestClient, admin: dict[str, str], event_id: int, field: str, value: str
) -> None:
    created = client.post("/api/v1/events", json={**EVENT_BODY, field: value}, headers=admin)
    patched = client.patch(f"/api/v1/events/{event_id}", json={field: value}, headers=admin)
    for response in (created, patched):
        assert (response.status_code, response.json()["code"]) == (422, "validation_error")
        assert response.json()["errors"][0]["loc"] == ["body", field]
    assert (
        client.get(f"/api/v1/events/{event_id}").json()[field]
        == {
            "opens_at": "2026-06-12T09:00:00Z",
            "closes_at": "2026-06-13T03:00:00Z",
        }[field]
    )


def test_nul_in_path_and_query_strings(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    base = f"/api/v1/events/{event_id}"
    for url in (
        f"{base}/participants/7%00",
        f"{base}/participants/7%00/state",
        f"{base}/takes?participant=7%00",
        f"{base}/takes?reason=hand_full%00",
        f"{base}/takes?source=app%00",
    ):
        response = client.get(url, headers=admin)
        assert (response.status_code, response.json()["code"]) == (422, "validation_error"), url


def test_nul_in_a_checkpoint_link(client: TestClient, session: Session) -> None:
    event = make_event(session)
    person = make_participant(session, event, "7")
    session.commit()
    client.get(f"/p/{person.access_token}")  # the participant's cookie
    response = client.get("/t/ABC%00DEF", follow_redirects=False)
    assert (response.status_code, response.json()["code"]) == (422, "validation_error")
