"""Our IOF exports as SportOrg, MeOS and ooresults read them (tests/iof/readers.py
reimplements each program's parsing from its public source): every value below is what
the program would show, worked out by hand from the participants and the deck."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from lxml import etree
from sqlalchemy.orm import Session

from tests.auctions.test_api import ok
from tests.factories import make_event
from tests.iof import readers
from tests.iof.test_iof import valid

OPENS = datetime(2026, 6, 13, 9, 0, tzinfo=UTC)  # 12:00 in Moscow (the factory's zone)

PARTICIPANTS = [
    {"given_name": "Hans Peter", "family_name": "von Bülow", "external_id": "7",
     "club": "OK Linné", "control_card": "8123456", "category": "M21"},
    {"given_name": "Анна", "family_name": "Петрова", "external_id": "12",
     "club": "Азимут", "category": "Ж21"},
    {"name": "Команда «Лось»", "kind": "team", "external_id": "T1", "club": "Азимут",
     "control_card": "7001", "category": "MW"},
    {"name": "Ёжики", "kind": "team", "external_id": "T2"},
    {"name": "Просто Имя", "external_id": "B9"},
]  # fmt: skip


@pytest.fixture
def event_id(client: TestClient, admin: dict, session: Session) -> int:
    event = make_event(session, opens_at=OPENS, closes_at=OPENS + timedelta(hours=6))
    session.commit()
    for body in PARTICIPANTS:
        ok(client.post(f"/api/v1/events/{event.id}/participants", json=body, headers=admin), 201)
    return event.id


def _get(client: TestClient, admin: dict, event_id: int, name: str) -> bytes:
    response = client.get(f"/api/v1/events/{event_id}/iof/{name}", headers=admin)
    assert response.status_code == 200
    valid(response.content)  # and IOF.xsd
    return response.content


def test_course_data_as_the_programs_read_it(client: TestClient, admin: dict, event_id: int):
    data = _get(client, admin, event_id, "course-data.xml")
    numbers = [str(n) for n in range(1, 55)]
    assert readers.sportorg_courses(data) == [
        {"name": "Poker rogaine", "length": 0, "controls": numbers}
    ]
    meos = readers.meos_course_data(data)
    assert meos["controls"][7] == (55.007, 37.007) and len(meos["controls"]) == 54
    assert (meos["starts"], meos["finishes"]) == ([], [])
    assert meos["courses"] == [
        {"name": "Poker rogaine", "length": 0, "controls": list(range(1, 55))}
    ]
    assert readers.ooresults_courses(data) == [
        {"name": "Poker rogaine", "length": 0.0, "controls": numbers}
    ]


def test_entry_list_as_the_programs_read_it(client: TestClient, admin: dict, event_id: int):
    data = _get(client, admin, event_id, "entry-list.xml")
    # clubs numbered in sorted order: OK Linné 1, Азимут 2; classes M21 1, MW 2, Ж21 3
    none = {"id": "0", "name": "Poker rogaine"}
    assert readers.sportorg_entries(data) == [  # SportOrg reads the persons of a mixed file
        {"family": "von Bülow", "given": "Hans Peter", "card": 8123456,
         "organisation": {"id": "1", "name": "OK Linné"}, "group": {"id": "1", "name": "M21"}},
        {"family": "Петрова", "given": "Анна", "card": 0,
         "organisation": {"id": "2", "name": "Азимут"}, "group": {"id": "3", "name": "Ж21"}},
        {"family": "Просто Имя", "given": "", "card": 0, "organisation": None, "group": none},
    ]  # fmt: skip
    meos = readers.meos_entries(data)
    assert meos["runners"] == [
        {"name": "von Bülow, Hans Peter", "card": 8123456, "club": "OK Linné",
         "class": "M21", "class_id": 1},
        {"name": "Петрова, Анна", "card": 0, "club": "Азимут", "class": "Ж21", "class_id": 3},
        {"name": "Просто Имя, ", "card": 0, "club": None, "class": "Poker rogaine",
         "class_id": 0},
    ]  # fmt: skip
    assert meos["teams"] == [
        {"name": "Команда «Лось»", "club": "Азимут", "class": "MW", "cards": [7001]},
        {"name": "Ёжики", "club": None, "class": "Poker rogaine", "cards": []},
    ]
    assert readers.ooresults_entries(data) == [
        {"last_name": "von Bülow", "first_name": "Hans Peter", "club": "OK Linné",
         "chip": "8123456", "class_": "M21"},
        {"last_name": "Петрова", "first_name": "Анна", "club": "Азимут", "chip": "",
         "class_": "Ж21"},
        {"last_name": "Просто Имя", "first_name": None, "club": "", "chip": "",
         "class_": "Poker rogaine"},
    ]  # fmt: skip


def test_sportorg_reads_an_entry_list_of_teams_only(
    client: TestClient, admin: dict, session: Session
) -> None:
    """Without persons SportOrg reads the teams' members: the team with a card comes as
    a member named as the team; the team without one has no member to read."""
    event = make_event(session)
    session.commit()
    for body in PARTICIPANTS[2:4]:
        ok(client.post(f"/api/v1/events/{event.id}/participants", json=body, headers=admin), 201)
    data = _get(client, admin, event.id, "entry-list.xml")
    assert readers.sportorg_entries(data) == [
        {"family": "Команда «Лось»", "given": "", "card": 7001,
         "organisation": {"id": "1", "name": "Азимут"}, "group": {"id": "1", "name": "MW"}},
    ]  # fmt: skip


def test_result_list_as_the_programs_read_it(client: TestClient, admin: dict, event_id: int):
    data = _get(client, admin, event_id, "result-list.xml")
    group = {"id": "1", "name": "Poker rogaine"}
    rows = readers.sportorg_results(data)
    # nobody placed yet: by external id (as text: "12" < "7"); a team is a person result
    # named as the team
    assert [(r["family"], r["given"], r["bib"], r["card"], r["status"]) for r in rows] == [
        ("Петрова", "Анна", 12, 0, "DidNotStart"),
        ("von Bülow", "Hans Peter", 7, 8123456, "DidNotStart"),
        ("Просто Имя", "", 0, 0, "DidNotStart"),  # "B9" is no number: no BibNumber
        ("Команда «Лось»", "", 0, 7001, "DidNotStart"),
        ("Ёжики", "", 0, 0, "DidNotStart"),
    ]
    assert {r["start"] for r in rows} == {"12:00:00"}  # the opening, in Moscow time
    assert {str(r["group"]) for r in rows} == {str(group)}
    assert rows[1]["organisation"] == {"id": "1", "name": "OK Linné"}
    results = readers.ooresults_results(data)
    assert [(r["last_name"], r["first_name"], r["club"], r["chip"]) for r in results] == [
        ("Петрова", "Анна", "Азимут", ""),
        ("von Bülow", "Hans Peter", "OK Linné", "8123456"),
        ("Просто Имя", None, "", ""),
        ("Команда «Лось»", None, "Азимут", "7001"),
        ("Ёжики", None, "", ""),
    ]
    assert {r["start"] for r in results} == {OPENS}


def test_the_readers_refuse_what_the_old_exports_lacked(
    client: TestClient, admin: dict, event_id: int
) -> None:
    """The reimplementations fail where the programs fail: a course without `Length`, a
    class without `Id`, a result without `StartTime` (our exports before issue 28)."""
    courses = _get(client, admin, event_id, "course-data.xml").replace(b"<Length>0</Length>", b"")
    with pytest.raises(readers.ReaderFailed, match="Length"):
        readers.sportorg_courses(courses)
    results = _get(client, admin, event_id, "result-list.xml")
    document = etree.fromstring(results)
    class_id = document.find("i:ClassResult/i:Class/i:Id", {"i": readers.NS["iof"]})
    class_id.getparent().remove(class_id)
    without_id = etree.tostring(document)
    with pytest.raises(readers.ReaderFailed, match="Id"):
        readers.sportorg_results(without_id)
    without_start = results.replace(b"<StartTime>", b"<FinishTime>").replace(
        b"</StartTime>", b"</FinishTime>"
    )
    with pytest.raises(readers.ReaderFailed, match="StartTime"):
        readers.sportorg_results(without_start)
