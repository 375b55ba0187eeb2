"""The deck: explicit PUT, shuffle from a seed, CSV import/export, public views."""

from __future__ import annotations

import csv
import io
import random
import re
from xml.etree import ElementTree as ET

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.audit import AuditEntry
from app.events.codes import SHORT_CODE_ALPHABET
from app.feed.models import Take
from tests.events.conftest import EVENT_BODY, full_deck
from tests.factories import DECK, make_participant

BASE32 = re.compile(r"^[A-Z2-7]{24}$")  # 24 base32 characters = 120 bits


def _put(client, admin, event_id, checkpoints):
    return client.put(
        f"/api/v1/events/{event_id}/checkpoints", json={"checkpoints": checkpoints}, headers=admin
    )


def test_put_full_deck_generates_codes(deck: list[dict]) -> None:
    assert [cp["number"] for cp in deck] == list(range(1, 55))
    assert [cp["card"] for cp in deck] == DECK
    assert deck[0]["card_display"] == "2♠"
    assert deck[8]["card_display"] == "10♠"
    assert deck[53]["card_display"] == "Joker"
    for cp in deck:
        assert BASE32.match(cp["code"]), cp["code"]
        assert len(cp["discard_code"]) == 6
        assert set(cp["discard_code"]) <= set(SHORT_CODE_ALPHABET)
        assert cp["take_url"] == f"http://testserver/t/{cp['code']}"
    codes = [cp["code"] for cp in deck] + [cp["discard_code"] for cp in deck]
    assert len(set(codes)) == 108
    assert deck[0]["hint"] == "near a pine 1"
    assert (deck[0]["lat"], deck[0]["lon"]) == (55.85, 37.75)


def test_short_code_alphabet_has_no_look_alikes() -> None:
    assert not set("0O1IL") & set(SHORT_CODE_ALPHABET)


def test_put_accepts_any_card_spelling_and_generic_jokers(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    spellings = ["10H", "Q♥", "td", "JK", "Joker"]
    checkpoints = [{"number": i + 1, "card": card} for i, card in enumerate(spellings)]
    response = _put(client, admin, event_id, checkpoints)
    assert response.status_code == 200, response.text
    # Two generic joker spellings are the two jokers (API.md).
    assert [cp["card"] for cp in response.json()["checkpoints"]] == ["TH", "QH", "TD", "JK1", "JK2"]


def test_put_stores_given_codes_normalised(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    checkpoints = [
        {"number": 1, "card": "AS", "code": "k7p2-xq9m 4trw-8znb", "discard_code": "xy-7k"},
        {"number": 2, "card": "KS"},
    ]
    body = _put(client, admin, event_id, checkpoints).json()["checkpoints"]
    assert (body[0]["code"], body[0]["discard_code"]) == ("K7P2XQ9M4TRW8ZNB", "XY7K")
    assert BASE32.match(body[1]["code"])


def test_put_keeps_codes_of_existing_numbers(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    moved = full_deck("moved")
    moved[0]["card"], moved[1]["card"] = moved[1]["card"], moved[0]["card"]  # swap two cards
    again = _put(client, admin, event_id, moved).json()["checkpoints"]
    assert [(cp["code"], cp["discard_code"]) for cp in again] == [
        (cp["code"], cp["discard_code"]) for cp in deck
    ]
    assert (again[0]["card"], again[1]["card"]) == ("3S", "2S")
    assert again[0]["hint"] == "moved 1"


def test_put_replaces_the_whole_deck(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    body = _put(client, admin, event_id, [{"number": 7, "card": "AH"}]).json()
    assert [(cp["number"], cp["card"]) for cp in body["checkpoints"]] == [(7, "AH")]
    assert body["deck_seed"] is None


@pytest.mark.parametrize(
    ("checkpoints", "errors"),
    [
        # duplicate card (second spelling of the same card)
        (
            [{"number": 1, "card": "QH"}, {"number": 2, "card": "Q♥"}],
            [["body", "checkpoints", "1", "card"]],
        ),
        (
            [{"number": 1, "card": "QH"}, {"number": 1, "card": "KH"}],
            [["body", "checkpoints", "1", "number"]],
        ),
        ([{"number": 1, "card": "1X"}], [["body", "checkpoints", "0", "card"]]),
        ([{"number": 1, "card": "ZZ"}, {"number": 2, "card": "11H"}], None),
        # three jokers: the third has no joker left
        (
            [
                {"number": 1, "card": "JK"},
                {"number": 2, "card": "JK"},
                {"number": 3, "card": "JK"},
            ],
            [["body", "checkpoints", "2", "card"]],
        ),
        # same given code twice, a too short code, a discard code equal to a CP code
        (
            [
                {"number": 1, "card": "AS", "code": "K7P2XQ9M4TRW8ZNB"},
                {"number": 2, "card": "KS", "code": "k7p2-xq9m-4trw-8znb"},
            ],
            [["body", "checkpoints", "1", "code"]],
        ),
        (
            [{"number": 1, "card": "AS", "code": "ab"}],
            [["body", "checkpoints", "0", "code"]],
        ),
        (
            [
                {"number": 1, "card": "AS", "code": "K7P2XQ9M4TRW8ZNB"},
                {"number": 2, "card": "KS", "discard_code": "k7p2xq9m4trw8znb"},
            ],
            [["body", "checkpoints", "1", "discard_code"]],
        ),
    ],
)
def test_put_deck_validation(
    client: TestClient,
    admin: dict[str, str],
    event_id: int,
    deck: list[dict],
    checkpoints: list[dict],
    errors: list | None,
) -> None:
    response = _put(client, admin, event_id, checkpoints)
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "deck_invalid"
    locs = [error["loc"] for error in problem["errors"]]
    if errors is None:  # two unreadable cards: both named
        assert locs == [["body", "checkpoints", "0", "card"], ["body", "checkpoints", "1", "card"]]
    else:
        assert locs == errors
    # Nothing changed.
    now = client.get(f"/api/v1/events/{event_id}/checkpoints", headers=admin).json()
    assert now["checkpoints"] == deck


@pytest.mark.parametrize(
    "item",
    [
        {"number": 0, "card": "AS"},
        {"number": 1, "card": "AS", "lat": 91},
        {"number": 1, "card": "AS", "lon": -181},
        {"number": 1, "card": "AS", "colour": "red"},
        {"number": 1},
    ],
)
def test_put_body_validation(
    client: TestClient, admin: dict[str, str], event_id: int, item: dict
) -> None:
    response = _put(client, admin, event_id, [item])
    assert response.status_code == 422
    assert response.json()["code"] == "validation_error"


def test_put_more_than_54_is_refused(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    items = [{"number": i, "card": "AS"} for i in range(1, 56)]
    assert _put(client, admin, event_id, items).status_code == 422


def test_given_code_of_another_event_is_refused(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    _put(client, admin, event_id, [{"number": 1, "card": "AS", "code": "H3WQ8VNC5KXT2MRJ"}])
    other = client.post("/api/v1/events", json=EVENT_BODY, headers=admin).json()["id"]
    response = _put(client, admin, other, [{"number": 1, "card": "AS", "code": "h3wq8vnc5kxt2mrj"}])
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "checkpoints", "0", "code"]


def test_deck_cannot_change_once_takes_exist(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict], session
) -> None:
    from app.events.models import Event

    event = session.get(Event, event_id)
    runner = make_participant(session, event, "101")
    session.add(
        Take(
            event_id=event_id,
            participant_id=runner.id,
            source="test",
            source_id="1",
            code=deck[0]["code"],
            taken_at=event.opens_at,
            recorded_by="test",
        )
    )
    session.commit()
    for response in (
        _put(client, admin, event_id, full_deck()),
        client.post(f"/api/v1/events/{event_id}/checkpoints/shuffle", json={}, headers=admin),
        client.post(
            f"/api/v1/events/{event_id}/checkpoints/import",
            content="number,card\n1,AS\n",
            headers={**admin, "Content-Type": "text/csv"},
        ),
    ):
        assert response.status_code == 409
        assert response.json()["code"] == "deck_in_play"
    # Hints may still be corrected.
    response = client.patch(
        f"/api/v1/events/{event_id}/checkpoints/1", json={"hint": "by the lake"}, headers=admin
    )
    assert response.status_code == 200
    assert response.json()["hint"] == "by the lake"


def test_shuffle_same_seed_same_deal(client: TestClient, admin: dict[str, str]) -> None:
    # Expected deal worked out from the documented procedure (rules.deal): the 54
    # canonical codes sorted, shuffled by random.Random(seed), dealt to CPs 1..54.
    expected = sorted(DECK)
    random.Random(20260612).shuffle(expected)
    deals = []
    for _ in range(2):
        event_id = client.post("/api/v1/events", json=EVENT_BODY, headers=admin).json()["id"]
        response = client.post(
            f"/api/v1/events/{event_id}/checkpoints/shuffle",
            json={"seed": 20260612},
            headers=admin,
        )
        assert response.status_code == 200
        body = response.json()
        assert body["deck_seed"] == 20260612
        deals.append([cp["card"] for cp in body["checkpoints"]])
        assert [cp["number"] for cp in body["checkpoints"]] == list(range(1, 55))
    assert deals[0] == deals[1] == expected
    assert sorted(deals[0]) == sorted(DECK)


def test_shuffle_without_seed_records_one(
    client: TestClient, admin: dict[str, str], event_id: int, session
) -> None:
    first = client.post(
        f"/api/v1/events/{event_id}/checkpoints/shuffle", json={"seed": None}, headers=admin
    ).json()
    seed = first["deck_seed"]
    assert isinstance(seed, int)
    other = client.post("/api/v1/events", json=EVENT_BODY, headers=admin).json()["id"]
    second = client.post(
        f"/api/v1/events/{other}/checkpoints/shuffle", json={"seed": seed}, headers=admin
    ).json()
    assert [cp["card"] for cp in second["checkpoints"]] == [
        cp["card"] for cp in first["checkpoints"]
    ]
    details = session.scalars(
        select(AuditEntry.details).where(AuditEntry.action == "checkpoints.shuffle")
    ).all()
    assert details[0]["seed"] == seed


def test_shuffle_keeps_positions_hints_and_codes(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    body = client.post(
        f"/api/v1/events/{event_id}/checkpoints/shuffle", json={"seed": 1}, headers=admin
    ).json()
    keep = ("number", "lat", "lon", "hint", "code", "discard_code")
    assert [{k: cp[k] for k in keep} for cp in body["checkpoints"]] == [
        {k: cp[k] for k in keep} for cp in deck
    ]
    # An explicit PUT afterwards forgets the seed.
    assert _put(client, admin, event_id, full_deck()).json()["deck_seed"] is None


def test_shuffle_validation(client: TestClient, admin: dict[str, str], event_id: int) -> None:
    url = f"/api/v1/events/{event_id}/checkpoints/shuffle"
    assert client.post(url, json={"seed": "x"}, headers=admin).status_code == 422
    assert client.post(url, json={"seed": -1}, headers=admin).status_code == 422
    assert client.post(url, json={"seed": 1}).status_code == 401


def test_get_checkpoints_organiser_and_public(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    organiser = client.get(f"/api/v1/events/{event_id}/checkpoints", headers=admin).json()
    assert organiser["checkpoints"] == deck
    public = client.get(f"/api/v1/events/{event_id}/checkpoints")
    assert public.status_code == 200
    items = public.json()["checkpoints"]
    assert items[0] == {"number": 1, "lat": 55.85, "lon": 37.75, "hint": "near a pine 1"}
    assert all(set(item) == {"number", "lat", "lon", "hint"} for item in items)
    assert len(items) == 54
    _assert_no_secrets(public.text, deck)
    wrong = client.get(
        f"/api/v1/events/{event_id}/checkpoints", headers={"Authorization": "Bearer nope"}
    )
    assert set(wrong.json()["checkpoints"][0]) == {"number", "lat", "lon", "hint"}


def _assert_no_secrets(text: str, deck: list[dict]) -> None:
    """No CP code, discard code or card of the deck appears in `text`."""
    for cp in deck:
        assert cp["code"] not in text
        assert cp["discard_code"] not in text
    assert "card" not in text
    assert "♥" not in text
    assert "JK1" not in text


def test_public_csv(client: TestClient, event_id: int, deck: list[dict]) -> None:
    response = client.get(f"/api/v1/events/{event_id}/checkpoints.csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == ["number", "lat", "lon", "hint"]
    assert rows[1] == ["1", "55.85", "37.75", "near a pine 1"]
    assert len(rows) == 55
    _assert_no_secrets(response.text, deck)


def test_public_gpx(client: TestClient, event_id: int, deck: list[dict]) -> None:
    response = client.get(f"/api/v1/events/{event_id}/checkpoints.gpx")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/gpx+xml")
    ns = {"g": "http://www.topografix.com/GPX/1/1"}
    root = ET.fromstring(response.content)
    waypoints = root.findall("g:wpt", ns)
    assert len(waypoints) == 54
    first = waypoints[0]
    assert (first.get("lat"), first.get("lon")) == ("55.85", "37.75")
    assert first.find("g:name", ns).text == "1"
    assert first.find("g:desc", ns).text == "near a pine 1"
    assert root.find("g:metadata/g:name", ns).text == EVENT_BODY["name"]
    _assert_no_secrets(response.text, deck)


def test_gpx_skips_cps_without_coordinates(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    _put(
        client,
        admin,
        event_id,
        [{"number": 1, "card": "AS"}, {"number": 2, "card": "KS", "lat": 55.1, "lon": 37.2}],
    )
    root = ET.fromstring(client.get(f"/api/v1/events/{event_id}/checkpoints.gpx").content)
    names = [e.text for e in root.iter("{http://www.topografix.com/GPX/1/1}name")]
    assert names == [EVENT_BODY["name"], "2"]


def test_export_csv_round_trips(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    assert client.get(f"/api/v1/events/{event_id}/checkpoints/export.csv").status_code == 401
    exported = client.get(f"/api/v1/events/{event_id}/checkpoints/export.csv", headers=admin)
    rows = list(csv.reader(io.StringIO(exported.text)))
    assert rows[0] == ["number", "card", "lat", "lon", "hint", "typed_code"]
    assert rows[1][:5] == ["1", "2S", "55.85", "37.75", "near a pine 1"]
    # the form printed under the QR (issue 26 point 2): 6 groups of 3
    assert re.fullmatch(r"([0-9ACEFHJKMNPRTUWXY]{3} ){5}[0-9ACEFHJKMNPRTUWXY]{3}", rows[1][5])
    assert len(rows) == 55
    other = client.post("/api/v1/events", json=EVENT_BODY, headers=admin).json()["id"]
    imported = client.post(
        f"/api/v1/events/{other}/checkpoints/import",
        content=exported.text,
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert imported.status_code == 200, imported.text
    keep = ("number", "card", "lat", "lon", "hint")
    assert [{k: cp[k] for k in keep} for cp in imported.json()["checkpoints"]] == [
        {k: cp[k] for k in keep} for cp in deck
    ]


def test_import_csv_multipart_semicolons_and_decimal_commas(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    text = "\ufeffNumber;Card;Lat;Lon;Hint\n1;10♥;55,5;37,25;red suit\n2;Дж;;;\n"
    response = client.post(
        f"/api/v1/events/{event_id}/checkpoints/import",
        files={"file": ("deck.csv", text.encode(), "text/csv")},
        headers=admin,
    )
    assert response.status_code == 200, response.text
    cps = response.json()["checkpoints"]
    assert [(cp["card"], cp["lat"], cp["lon"], cp["hint"]) for cp in cps] == [
        ("TH", 55.5, 37.25, "red suit"),
        ("JK1", None, None, ""),
    ]


def test_import_csv_bad_rows_name_row_and_field(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    text = (
        "number,card,lat,lon,hint\n"  # row 1
        "1,AS,55.1,37.1,ok\n"  # row 2
        "2,ZZ,55.1,37.1,not a card\n"  # row 3
        "3,KS,north,37.1,bad lat\n"  # row 4
        "1,QS,55.1,37.1,number again\n"  # row 5
        "\n"  # row 6 (blank, skipped)
        "x,AS,55.1,200,bad number and lon\n"  # row 7
        "8,A♠,55.1,37.1,card again\n"  # row 8
    )
    response = client.post(
        f"/api/v1/events/{event_id}/checkpoints/import",
        content=text.encode(),
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "csv_invalid"
    assert [(e["row"], e["field"]) for e in problem["errors"]] == [
        (3, "card"),
        (4, "lat"),
        (5, "number"),
        (7, "number"),
        (7, "lon"),
        (8, "card"),
    ]
    # Nothing was stored: the deck is still the one of the fixture.
    now = client.get(f"/api/v1/events/{event_id}/checkpoints", headers=admin).json()
    assert now["checkpoints"] == deck


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("num,card\n1,AS\n", [(1, "number")]),
        ("number,card\n", [(2, "number")]),
        ("", [(1, "number"), (1, "card")]),
    ],
)
def test_import_csv_header_problems(
    client: TestClient, admin: dict[str, str], event_id: int, text: str, expected: list
) -> None:
    response = client.post(
        f"/api/v1/events/{event_id}/checkpoints/import",
        content=text.encode(),
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 422
    assert [(e["row"], e["field"]) for e in response.json()["errors"]] == expected


def test_import_csv_not_utf8(client: TestClient, admin: dict[str, str], event_id: int) -> None:
    response = client.post(
        f"/api/v1/events/{event_id}/checkpoints/import",
        content="number,card,hint\n1,AS,\xe9t\xe9\n".encode("latin-1"),
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 422
    assert response.json()["code"] == "csv_not_utf8"


def test_update_checkpoint(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    url = f"/api/v1/events/{event_id}/checkpoints/5"
    response = client.patch(url, json={"lat": 55.9, "hint": "a picture card"}, headers=admin)
    assert response.status_code == 200
    body = response.json()
    assert (body["lat"], body["lon"], body["hint"], body["card"]) == (
        55.9,
        deck[4]["lon"],
        "a picture card",
        deck[4]["card"],
    )
    assert client.patch(url, json={"lat": 100}, headers=admin).status_code == 422
    assert client.patch(url, json={"hint": "x"}).status_code == 401
    missing = client.patch(f"/api/v1/events/{event_id}/checkpoints/99", json={}, headers=admin)
    assert missing.status_code == 404
    assert missing.json()["code"] == "checkpoint_not_found"


def test_given_code_equal_to_a_save_code_is_refused(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    runner = client.post(
        f"/api/v1/events/{event_id}/participants", json={"name": "A"}, headers=admin
    ).json()
    save_code = runner["save_codes"][0]
    response = _put(
        client, admin, event_id, [{"number": 1, "card": "AS", "discard_code": save_code.lower()}]
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "checkpoints", "0", "discard_code"]


def test_shuffle_seed_must_be_an_integer(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    # JSON booleans, floats and strings are not seeds (they were taken as 0 / 1 / 5).
    url = f"/api/v1/events/{event_id}/checkpoints/shuffle"
    for seed in (False, True, 1.0, "5"):
        response = client.post(url, json={"seed": seed}, headers=admin)
        assert response.status_code == 422, seed
        assert response.json()["code"] == "validation_error"
    assert client.get(f"/api/v1/events/{event_id}", headers=admin).json()["deck_seed"] is None
