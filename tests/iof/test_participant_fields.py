"""Name parts, club, punching card and person/team of a participant (issue 28) through
the JSON API and the CSV import: kept as given, the name "Given Family"."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.auctions.test_api import ok, problem
from tests.factories import make_event

FIELDS = ("name", "kind", "given_name", "family_name", "club", "control_card", "category")


def _fields(p: dict) -> tuple:
    return tuple(p[f] for f in FIELDS)


@pytest.fixture
def url(session: Session) -> str:
    event = make_event(session)
    session.commit()
    return f"/api/v1/events/{event.id}/participants"


def test_create_with_parts_club_and_card(client: TestClient, admin: dict, url: str) -> None:
    body = {"given_name": " Hans  Peter ", "family_name": "von Bülow", "club": "OK Linné",
            "control_card": "8123456", "external_id": "7"}  # fmt: skip
    created = ok(client.post(url, json=body, headers=admin), 201)
    assert _fields(created) == (
        "Hans Peter von Bülow", "person", "Hans Peter", "von Bülow", "OK Linné", "8123456", None
    )  # fmt: skip
    read = ok(client.get(f"{url}/7", headers=admin))
    assert _fields(read) == _fields(created)
    assert "access_token" not in read


@pytest.mark.parametrize(
    "body, field",
    [
        ({"kind": "team", "name": "Лоси", "given_name": "Пётр"}, "body"),
        ({"given_name": "Анна", "family_name": "Петрова", "name": "Анна П."}, "body"),
        ({"name": "x", "control_card": "SI-1234"}, "control_card"),
        ({"name": "x", "control_card": "1234567890123"}, "control_card"),
        ({"name": "x", "kind": "club"}, "kind"),
        ({"club": "x"}, "body"),  # no name at all
    ],
)
def test_create_refuses_parts_that_do_not_fit(
    client: TestClient, admin: dict, url: str, body: dict, field: str
) -> None:
    response = client.post(url, json=body, headers=admin)
    problem(response, 422, "validation_error")
    assert field in response.json()["errors"][0]["loc"]
    assert ok(client.get(url, headers=admin))["participants"] == []


def test_patch_renames_by_parts_and_drops_them_for_a_whole_name(
    client: TestClient, admin: dict, url: str
) -> None:
    ok(client.post(url, json={"given_name": "Анна", "family_name": "Петрова", "external_id": "1"},
                   headers=admin), 201)  # fmt: skip
    patched = ok(client.patch(f"{url}/1", json={"given_name": "Анна Мария"}, headers=admin))
    assert _fields(patched)[:4] == ("Анна Мария Петрова", "person", "Анна Мария", "Петрова")
    patched = ok(
        client.patch(f"{url}/1", json={"club": "Азимут", "control_card": "2044"}, headers=admin)
    )
    assert (patched["name"], patched["club"], patched["control_card"]) == (
        "Анна Мария Петрова", "Азимут", "2044"
    )  # fmt: skip
    patched = ok(client.patch(f"{url}/1", json={"name": "Аня"}, headers=admin))
    assert _fields(patched)[:4] == ("Аня", "person", None, None)  # one piece again
    patched = ok(client.patch(f"{url}/1", json={"kind": "team", "club": None}, headers=admin))
    assert _fields(patched)[:5] == ("Аня", "team", None, None, None)
    refused = client.patch(f"{url}/1", json={"family_name": "Петрова"}, headers=admin)
    problem(refused, 422, "validation_error")  # a team has no family name
    problem(client.patch(f"{url}/1", json={"kind": None}, headers=admin), 422, "validation_error")
    assert ok(client.get(f"{url}/1", headers=admin))["kind"] == "team"


def test_csv_import_takes_the_new_columns(client: TestClient, admin: dict, url: str) -> None:
    text = (
        "external_id;kind;name;given_name;family_name;club;control_card;category\n"
        "1;;;Hans Peter;von Bülow;OK Linné;8123456;M21\n"
        "T1;team;Команда «Лось»;;;Вектор;7001;MW\n"
        "3;;Просто Имя;;;;;\n"
    )
    response = client.post(
        f"{url}/import", content=text.encode(), headers={**admin, "content-type": "text/csv"}
    )
    created = ok(response, 201)["participants"]
    assert [_fields(p) for p in created] == [
        ("Hans Peter von Bülow", "person", "Hans Peter", "von Bülow", "OK Linné", "8123456",
         "M21"),
        ("Команда «Лось»", "team", None, None, "Вектор", "7001", "MW"),
        ("Просто Имя", "person", None, None, None, None, None),
    ]  # fmt: skip


def test_csv_import_names_bad_new_cells_by_row(client: TestClient, admin: dict, url: str) -> None:
    text = (
        "name,kind,given_name,control_card\nЛоси,team,Пётр,\nАнна,crew,,\nОлег,,,12ab\n,,,\n,,,5\n"
    )
    response = client.post(
        f"{url}/import", content=text.encode(), headers={**admin, "content-type": "text/csv"}
    )
    problem(response, 422, "csv_invalid")
    assert [(e["row"], e["field"]) for e in response.json()["errors"]] == [
        (2, "name"),  # a team with a given name
        (3, "kind"),
        (4, "control_card"),
        (6, "name"),  # a card but no name (row 5 is blank and skipped)
    ]
    assert ok(client.get(url, headers=admin))["participants"] == []
