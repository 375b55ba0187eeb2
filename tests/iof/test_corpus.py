"""The hand-written corpus of tests/data/iof/corpus (shapes that the IOF's examples,
Purple Pen, MeOS, ooresults, SportOrg and Windows tools write), each with the report or
the participants worked out by hand from the file; round trips import → export → import.

The test deck (tests/factories): CPs 1..54, CP n at lat 55 + n/1000, lon 37 + n/1000.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.events.models import Checkpoint
from tests.auctions.test_api import ok, problem
from tests.factories import make_event
from tests.iof.test_iof import valid

CORPUS = Path(__file__).resolve().parent.parent / "data" / "iof" / "corpus"
ALL_CPS = set(range(1, 55))


def _file(name: str) -> bytes:
    return (CORPUS / name).read_bytes()


def _post_course_data(client: TestClient, admin: dict, event_id: int, data: bytes):
    return client.post(
        f"/api/v1/events/{event_id}/iof/course-data",
        content=data,
        headers={**admin, "content-type": "application/xml"},
    )


def _placed(report: dict) -> list[tuple[int, float, float]]:
    return [(cp["number"], cp["lat"], cp["lon"]) for cp in report["placed"]]


def test_untyped_start_and_finish_are_recognised_through_the_course(
    client: TestClient, admin: dict, session: Session
) -> None:
    """S1 and F1 have no type; the course's CourseControl type="Start"/"Finish" says
    what they are. 60 is a number, but the deck stops at 54."""
    event = make_event(session)
    session.commit()
    report = ok(
        _post_course_data(client, admin, event.id, _file("course_untyped_start_finish.xml"))
    )
    assert _placed(report) == [(31, 55.531, 37.531), (32, 55.532, 37.532), (33, -33.25, -0.5)]
    assert report["no_position"] == []
    assert report["not_cps"] == [
        {"id": "S1", "line": 15, "reason": "start", "by": "course"},
        {"id": "60", "line": 32, "reason": "not_in_deck", "by": "number"},
        {"id": "F1", "line": 36, "reason": "finish", "by": "course"},
    ]
    assert report["not_in_file"] == sorted(ALL_CPS - {31, 32, 33})
    assert report["without_position"] == []
    session.expire_all()
    cp33 = session.scalar(select(Checkpoint).filter_by(event_id=event.id, number=33))
    assert (cp33.lat, cp33.lon) == (-33.25, -0.5)


def test_map_positions_only_place_nothing_and_say_so(
    client: TestClient, admin: dict, session: Session
) -> None:
    """Purple Pen without georeference: map positions only. CPs 5, 6, 7 had no position
    before; they still have none, and the report says why."""
    event = make_event(session)
    session.query(Checkpoint).filter(
        Checkpoint.event_id == event.id, Checkpoint.number.in_([5, 6, 7])
    ).update({"lat": None, "lon": None})
    session.commit()
    report = ok(_post_course_data(client, admin, event.id, _file("course_map_positions_only.xml")))
    assert report["placed"] == []
    assert report["no_position"] == [
        {"number": 5, "line": 13, "map_position": True},
        {"number": 6, "line": 17, "map_position": True},
        {"number": 7, "line": 25, "map_position": False},
    ]
    assert report["not_cps"] == [
        {"id": "STA1", "line": 9, "reason": "start", "by": "type"},
        {"id": "CP1", "line": 21, "reason": "crossing_point", "by": "type"},
        {"id": "FIN1", "line": 28, "reason": "finish", "by": "type"},
    ]
    assert report["not_in_file"] == sorted(ALL_CPS - {5, 6, 7})
    assert report["without_position"] == [5, 6, 7]


def test_a_partial_course_places_its_cps_and_names_the_others(
    client: TestClient, admin: dict, session: Session
) -> None:
    """MeOS shape: "S" and "F" untyped and named by no course (MeOS's own names); 20 of
    the 54 CPs; "A7" is no number; CP 12 comes twice (the first position counts)."""
    event = make_event(session)
    session.commit()
    report = ok(_post_course_data(client, admin, event.id, _file("course_partial_meos.xml")))
    assert [cp["number"] for cp in report["placed"]] == list(range(1, 21))
    assert report["placed"][11] == {"number": 12, "lat": 60.12, "lon": 30.12}
    assert report["not_cps"] == [
        {"id": "S", "line": 7, "reason": "start", "by": "id"},
        {"id": "A7", "line": 28, "reason": "not_a_number", "by": "unmarked"},
        {"id": "12", "line": 29, "reason": "duplicate", "by": "number"},
        {"id": "F", "line": 30, "reason": "finish", "by": "id"},
    ]
    assert report["not_in_file"] == list(range(21, 55))
    assert report["no_position"] == report["without_position"] == []


def test_courses_without_controls_name_cps_without_positions(
    client: TestClient, admin: dict, session: Session
) -> None:
    """ooresults writes courses only: CPs 41-43 are named, none has a position."""
    event = make_event(session)
    session.commit()
    report = ok(
        _post_course_data(client, admin, event.id, _file("course_ooresults_courses_only.xml"))
    )
    assert report["placed"] == []
    assert report["no_position"] == [
        {"number": 41, "line": 20, "map_position": False},
        {"number": 42, "line": 23, "map_position": False},
        {"number": 43, "line": 26, "map_position": False},
    ]
    assert report["not_cps"] == [
        {"id": "S1", "line": 17, "reason": "start", "by": "course"},
        {"id": "F1", "line": 29, "reason": "finish", "by": "course"},
    ]
    session.expire_all()
    cp41 = session.scalar(select(Checkpoint).filter_by(event_id=event.id, number=41))
    assert (cp41.lat, cp41.lon) == (pytest.approx(55.041), pytest.approx(37.041))


# ----------------------------------------------------------------- EntryLists

FIELDS = ("external_id", "name", "kind", "given_name", "family_name", "club", "control_card")

EXPECTED = {
    "entries_persons_sportorg.xml": [
        ("101", "Hans Peter von Bülow", "person", "Hans Peter", "von Bülow",
         "OK Linné", "8123456", "M21"),
        ("102", "Анна Мария Петрова-Водкина", "person", "Анна Мария", "Петрова-Водкина",
         "КСО «Азимут»", "2044", "Ж21"),
        # no entry Id: the person's; the given name's double space folded
        ("555", "Мин Хо Ли", "person", "Мин Хо", "Ли", None, None, "M21"),
    ],
    "entries_teams_bom.xml": [
        ("T1", "Команда «Лось»", "team", None, None, "Турклуб «Вектор»", "7001", "MW"),
        ("T2", "Ёжики в тумане", "team", None, None, None, None, "MW"),
        ("201", "Jo Smith", "person", "Jo", "Smith", None, None, None),
    ],
    "entries_utf16.xml": [
        ("301", "Ольга Сидорова", "person", "Ольга", "Сидорова",
         "Бегущие по лесу", "9000123", "Ж40"),
    ],
}  # fmt: skip


def _rows(participants: list[dict]) -> list[tuple]:
    return [(*(p[f] for f in FIELDS), p["category"]) for p in participants]


def _import(client: TestClient, admin: dict, event_id: int, data: bytes, name: str = "e.xml"):
    return client.post(
        f"/api/v1/events/{event_id}/participants/import",
        files={"file": (name, data)},
        headers=admin,
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_entry_lists_keep_names_parts_clubs_and_cards(
    client: TestClient, admin: dict, session: Session, name: str
) -> None:
    event = make_event(session)
    session.commit()
    created = ok(_import(client, admin, event.id, _file(name), name), 201)["participants"]
    assert _rows(created) == EXPECTED[name]


@pytest.mark.parametrize(
    "data, kind, values",
    [
        (_file("entries_windows1251.xml"), "iof_encoding", {"encoding": "windows-1251"}),
        (
            b"\xff\xfe\x00\x00" + "<EntryList/>".encode("utf-32-le"),
            "iof_encoding",
            {"encoding": "UTF-32"},
        ),
        (
            _file("entries_utf16.xml")[2:],  # the same UTF-16 without its byte order mark
            "iof_encoding",
            {"encoding": "UTF-16 without BOM"},
        ),
        (b"<EntryList>\xe9</EntryList>", "iof_not_utf8", {"byte": "11"}),
        (
            _file("competitor_list.xml"),
            "iof_wrong_document",
            {"expected": "EntryList", "found": "CompetitorList"},
        ),
        (
            (
                "\ufeff<?xml version='1.0' encoding='UTF-16'?><!DOCTYPE x "
                "[<!ENTITY e SYSTEM 'file:///etc/passwd'>]><EntryList>&e;</EntryList>"
            ).encode("utf-16-le"),
            "iof_dtd",
            {},
        ),
    ],
    ids=[
        "windows-1251",
        "utf-32",
        "utf-16-without-bom",
        "latin-1-undeclared",
        "competitor-list",
        "dtd-in-utf-16",
    ],
)
def test_a_file_refused_as_a_whole_says_why(
    client: TestClient, admin: dict, session: Session, data: bytes, kind: str, values: dict
) -> None:
    event = make_event(session)
    session.commit()
    response = _import(client, admin, event.id, data)
    problem(response, 422, "iof_invalid")
    [error] = response.json()["errors"]
    assert (error["field"], error["type"], error["values"]) == ("file", kind, values)
    assert error["msg"] == response.json()["detail"]
    if "encoding" in values:
        assert values["encoding"] in response.json()["detail"]


def test_a_utf16_csv_is_read_as_csv(client: TestClient, admin: dict, session: Session) -> None:
    event = make_event(session)
    session.commit()
    data = "\ufeffname,external_id,club\nАнна,7,Вектор\n".encode("utf-16-le")
    created = ok(_import(client, admin, event.id, data, "p.csv"), 201)["participants"]
    assert [(p["name"], p["external_id"], p["club"]) for p in created] == [("Анна", "7", "Вектор")]


# ----------------------------------------------------------------- round trips


def test_entry_list_round_trip_gives_the_same_persons_and_teams(
    client: TestClient, admin: dict, session: Session
) -> None:
    first, second = make_event(session), make_event(session, name="Again")
    session.commit()
    for name in ("entries_teams_bom.xml", "entries_persons_sportorg.xml", "entries_utf16.xml"):
        ok(_import(client, admin, first.id, _file(name), name), 201)
    exported = client.get(f"/api/v1/events/{first.id}/iof/entry-list.xml", headers=admin)
    assert exported.status_code == 200
    valid(exported.content)
    again = ok(_import(client, admin, second.id, exported.content), 201)["participants"]
    expected = [row for name in sorted(EXPECTED) for row in EXPECTED[name]]
    assert sorted(_rows(again)) == sorted(expected)
    listed = ok(client.get(f"/api/v1/events/{first.id}/participants", headers=admin))
    assert sorted(_rows(listed["participants"])) == sorted(expected)


def test_entry_list_export_is_for_the_organiser_only(client: TestClient, session: Session) -> None:
    event = make_event(session)
    session.commit()
    response = client.get(f"/api/v1/events/{event.id}/iof/entry-list.xml")
    assert response.status_code == 401


def test_course_data_round_trip_gives_the_same_controls(
    client: TestClient, admin: dict, session: Session
) -> None:
    first, second = make_event(session), make_event(session, name="Again")
    session.query(Checkpoint).filter_by(event_id=second.id).update({"lat": None, "lon": None})
    session.commit()
    ok(_post_course_data(client, admin, first.id, _file("course_partial_meos.xml")))
    exported = client.get(f"/api/v1/events/{first.id}/iof/course-data.xml").content
    valid(exported)
    report = ok(_post_course_data(client, admin, second.id, exported))
    assert len(report["placed"]) == 54 and report["not_cps"] == []
    session.expire_all()

    def positions(event_id: int) -> list[tuple[int, float, float]]:
        return [
            (cp.number, round(cp.lat, 7), round(cp.lon, 7))
            for cp in session.scalars(
                select(Checkpoint).filter_by(event_id=event_id).order_by(Checkpoint.number)
            )
        ]

    assert positions(second.id) == positions(first.id)
    assert positions(first.id)[0] == (1, 60.01, 30.01)  # from the file
    assert positions(first.id)[20] == (21, 55.021, 37.021)  # not in the file: as it was
