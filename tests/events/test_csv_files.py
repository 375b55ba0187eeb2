"""CSV imports and exports (issue 14 items 5 and 7): unreadable rows and bad encodings are
422 problems naming the row, the participants import has a row limit, and every export
neutralises formula-like text cells (OWASP) while an import of our own export restores
the text."""

from __future__ import annotations

import csv
import io

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.csvfiles import neutralise, restore
from app.events import formats
from tests.auctions.test_api import CLOSES, OPENS, ok
from tests.events.conftest import EVENT_BODY, full_deck
from tests.factories import make_combination, make_event, make_participant

CSV = {"Content-Type": "text/csv"}


@pytest.mark.parametrize(
    "path, text, row",
    [
        ("participants/import", "name,external_id\nA\rB,78\n", 2),
        ("checkpoints/import", "number,card,lat,lon,hint\n1,AS,,,pine\n2,K\rS,,,lake\n", 3),
        ("takes/import", "participant,code,taken_at\n1,A\rB,2026-06-12T12:00:00+03:00\n", 2),
    ],
)
def test_bare_cr_in_an_unquoted_field_names_the_row(
    client: TestClient, admin: dict[str, str], event_id: int, path: str, text: str, row: int
) -> None:
    response = client.post(
        f"/api/v1/events/{event_id}/{path}", content=text.encode(), headers={**admin, **CSV}
    )
    assert (response.status_code, response.json()["code"]) == (422, "csv_invalid")
    assert [e["row"] for e in response.json()["errors"]] == [row]


@pytest.mark.parametrize("path", ["participants/import", "checkpoints/import", "takes/import"])
def test_invalid_utf8_is_csv_not_utf8_everywhere(
    client: TestClient, admin: dict[str, str], event_id: int, path: str
) -> None:
    body = b"participant,code,taken_at,name,number,card\nA\xff,x,2026-06-12T12:00:00+03:00\n"
    response = client.post(f"/api/v1/events/{event_id}/{path}", content=body, headers=admin)
    assert (response.status_code, response.json()["code"]) == (422, "csv_not_utf8")


def test_participants_import_row_limit(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    text = "name\n" + "A\n" * (formats.MAX_PARTICIPANT_ROWS + 1)
    response = client.post(
        f"/api/v1/events/{event_id}/participants/import",
        content=text.encode(),
        headers={**admin, **CSV},
    )
    assert (response.status_code, response.json()["code"]) == (422, "csv_too_large")
    assert client.get(f"/api/v1/events/{event_id}/participants", headers=admin).json() == {
        "participants": []
    }


def test_neutralise_and_restore_are_inverse() -> None:
    texts = ["=1+1", "+7", "-cmd", "@SUM(A1)", "\tx", "\rx", "'=x", "''@x", "'plain", "a=b", ""]
    assert [neutralise(t) for t in texts] == [
        "'=1+1", "'+7", "'-cmd", "'@SUM(A1)", "'\tx", "'\rx", "''=x", "'''@x", "'plain", "a=b", "",
    ]  # fmt: skip
    assert [restore(neutralise(t)) for t in texts] == texts


def test_checkpoint_exports_neutralise_text_and_keep_negative_numbers(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    deck = full_deck()
    hints = ['=HYPERLINK("http://x")', "+1", "-2 m from the pine", "@SUM(A1)", "'=quoted"]
    for cp, hint in zip(deck, hints, strict=False):
        cp["hint"] = hint
    deck[0].update(lat=-12.5, lon=-70.25)
    base = f"/api/v1/events/{event_id}"
    ok(client.put(f"{base}/checkpoints", json={"checkpoints": deck}, headers=admin))

    for path in ("checkpoints.csv", "checkpoints/export.csv"):
        text = client.get(f"{base}/{path}", headers=admin).text
        rows = list(csv.DictReader(io.StringIO(text)))
        assert [row["hint"] for row in rows[:5]] == [
            "'=HYPERLINK(\"http://x\")", "'+1", "'-2 m from the pine", "'@SUM(A1)", "''=quoted",
        ]  # fmt: skip
        assert (rows[0]["lat"], rows[0]["lon"]) == ("-12.5", "-70.25")
        assert text.split("\n")[1].startswith("1,")

    exported = client.get(f"{base}/checkpoints/export.csv", headers=admin).content
    other = ok(client.post("/api/v1/events", json=EVENT_BODY, headers=admin), 201)["id"]
    imported = client.post(
        f"/api/v1/events/{other}/checkpoints/import", content=exported, headers={**admin, **CSV}
    )
    assert imported.status_code == 200, imported.text
    again = client.get(f"/api/v1/events/{other}/checkpoints").json()["checkpoints"]
    assert [cp["hint"] for cp in again[:5]] == hints
    assert (again[0]["lat"], again[0]["lon"]) == (-12.5, -70.25)


def test_participant_import_restores_neutralised_cells(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    text = "name,external_id,category\n'=Anna,'-7,'@W\n"
    response = client.post(
        f"/api/v1/events/{event_id}/participants/import",
        content=text.encode(),
        headers={**admin, **CSV},
    )
    assert response.status_code == 201, response.text
    (created,) = response.json()["participants"]
    assert (created["name"], created["external_id"], created["category"]) == ("=Anna", "-7", "@W")


def test_auction_results_csv_neutralises_names(
    client: TestClient, admin: dict[str, str], session: Session
) -> None:
    event = make_event(session, opens_at=OPENS, closes_at=CLOSES)
    person = make_participant(session, event, "-1", "=cmd|' /C calc'!A0")
    combination = make_combination(session, event, person, ["9S", "9H", "9D", "9C", "2C"])
    session.commit()
    auction = f"/api/v1/events/{event.id}/auctions/3"
    ok(client.post(f"{auction}/open", headers=admin))
    body = {"participant": "-1", "combination_id": combination.id}
    ok(client.post(f"{auction}/bids", json=body, headers=admin), 201)
    ok(client.post(f"{auction}/close", headers=admin))
    ok(client.post(f"{auction}/reveal", headers=admin, json={"all": True}))
    text = client.get(f"/api/v1/events/{event.id}/auctions/results.csv").text
    row = next(csv.DictReader(io.StringIO(text)))
    assert (row["participant"], row["name"]) == ("'-1", "'=cmd|' /C calc'!A0")
    assert (row["place"], row["combination_id"], row["rank"]) == ("3", str(combination.id), "1")
