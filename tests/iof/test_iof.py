"""IOF XML 3.0 exchange (API.md "Extensions": `iof/course-data.xml`,
`iof/result-list.xml`, EntryList through `participants/import`).

Every document we write is validated against the official `IOF.xsd` (tests/data/iof);
the values expected are the test deck's (tests/factories: CP n at lat 55 + n/1000,
lon 37 + n/1000) and a ceremony whose winners are worked out by hand below.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from lxml import etree
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core import iof
from app.events.models import Checkpoint, Participant
from tests.auctions.test_api import bid, build, ok, problem
from tests.factories import DECK, cp_code, discard_code, make_event, make_participant

XSD = Path(__file__).resolve().parent.parent / "data" / "iof" / "IOF.xsd"
NS = {"i": iof.IOF_NS, "rp": iof.EXTENSION_NS}


@cache
def schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(XSD)))


def valid(data: bytes) -> etree._Element:
    """The parsed document, after asserting it validates against IOF.xsd."""
    document = etree.fromstring(data)
    assert schema().validate(document), schema().error_log
    return document


# ----------------------------------------------------------------- CourseData


def test_course_data_lists_every_cp_by_number_and_position_without_cards_or_codes(
    client: TestClient, session: Session
) -> None:
    event = make_event(session)
    session.commit()
    response = client.get(f"/api/v1/events/{event.id}/iof/course-data.xml")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/xml")
    document = valid(response.content)
    controls = document.findall("i:RaceCourseData/i:Control", NS)
    assert [c.findtext("i:Id", namespaces=NS) for c in controls] == [str(n) for n in range(1, 55)]
    cp7 = controls[6].find("i:Position", NS)
    assert (cp7.get("lat"), cp7.get("lng")) == ("55.007", "37.007")
    course = document.find("i:RaceCourseData/i:Course", NS)
    assert course.findtext("i:Name", namespaces=NS) == "Poker rogaine"
    course_controls = course.findall("i:CourseControl", NS)
    assert len(course_controls) == 54
    assert {cc.get("randomOrder") for cc in course_controls} == {"true"}  # a score course
    text = response.text
    for card in DECK:  # no card's code, secret CP code or discard code anywhere
        assert f">{card}<" not in text
        assert cp_code(card) not in text
        assert f">{discard_code(card)}<" not in text


def test_course_data_we_export_imports_back_its_controls(
    client: TestClient, admin: dict, session: Session
) -> None:
    source = make_event(session)
    target = make_event(session, name="Moved")
    session.commit()
    exported = client.get(f"/api/v1/events/{source.id}/iof/course-data.xml").content

    reading = iof.parse_course_data(exported)
    assert (reading.errors, reading.not_cps) == ([], [])
    assert [(p.control.number, p.control.lat, p.control.lon) for p in reading.controls] == [
        (n, pytest.approx(55 + n / 1000), pytest.approx(37 + n / 1000)) for n in range(1, 55)
    ]

    # the target's CPs sit elsewhere; importing the source's CourseData moves them there
    session.query(Checkpoint).filter_by(event_id=target.id).update({"lat": 1.0, "lon": 2.0})
    session.commit()
    response = client.post(
        f"/api/v1/events/{target.id}/iof/course-data",
        content=exported,
        headers={**admin, "content-type": "application/xml"},
    )
    report = ok(response)
    assert [cp["number"] for cp in report["placed"]] == list(range(1, 55))
    assert report["no_position"] == report["not_cps"] == report["not_in_file"] == []
    assert report["without_position"] == []
    session.expire_all()
    cp12 = session.scalar(select(Checkpoint).filter_by(event_id=target.id, number=12))
    assert (cp12.lat, cp12.lon, cp12.card, cp12.hint) == (
        pytest.approx(55.012),
        pytest.approx(37.012),
        DECK[11],
        "hint 12",
    )


def test_course_data_import_reports_controls_that_are_not_cps(
    client: TestClient, admin: dict, session: Session
) -> None:
    event = make_event(session)
    session.commit()
    xml = f"""<?xml version="1.0" encoding="UTF-8"?>
<CourseData xmlns="{iof.IOF_NS}" iofVersion="3.0">
  <Event><Name>x</Name></Event>
  <RaceCourseData>
    <Control type="Start"><Id>S1</Id><Position lng="37.5" lat="55.5"/></Control>
    <Control><Id>3</Id><Position lng="37.3" lat="55.3"/></Control>
    <Control><Id>99</Id><Position lng="37.9" lat="55.9"/></Control>
  </RaceCourseData>
</CourseData>""".encode()
    url = f"/api/v1/events/{event.id}/iof/course-data"
    headers = {**admin, "content-type": "application/xml"}
    assert (
        client.post(url, content=xml, headers={"content-type": "application/xml"}).status_code
        == 401
    )
    report = ok(client.post(url, content=xml, headers=headers))
    assert report["placed"] == [{"number": 3, "lat": 55.3, "lon": 37.3}]
    # the start is typed; 99 is a number but no CP of the deck (line 7)
    assert report["not_cps"] == [
        {"id": "S1", "line": 5, "reason": "start", "by": "type"},
        {"id": "99", "line": 7, "reason": "not_in_deck", "by": "number"},
    ]
    assert report["not_in_file"] == [n for n in range(1, 55) if n != 3]
    session.expire_all()
    cp3 = session.scalar(select(Checkpoint).filter_by(event_id=event.id, number=3))
    assert (cp3.lat, cp3.lon) == (pytest.approx(55.3), pytest.approx(37.3))


def test_course_data_with_a_position_out_of_range_changes_nothing(
    client: TestClient, admin: dict, session: Session
) -> None:
    event = make_event(session)
    session.commit()
    xml = f"""<CourseData xmlns="{iof.IOF_NS}" iofVersion="3.0"><RaceCourseData>
<Control><Id>3</Id><Position lng="37.3" lat="55.3"/></Control>
<Control><Id>4</Id><Position lng="37.3" lat="95"/></Control>
</RaceCourseData></CourseData>""".encode()
    response = client.post(
        f"/api/v1/events/{event.id}/iof/course-data",
        content=xml,
        headers={**admin, "content-type": "application/xml"},
    )
    problem(response, 422, "iof_invalid")
    assert response.json()["errors"] == [
        {
            "row": 2,
            "element": "Control",
            "line": 3,
            "field": "lat",
            "msg": "Position needs lat in -90..90 and lng in -180..180",
        }
    ]
    session.expire_all()
    cp3 = session.scalar(select(Checkpoint).filter_by(event_id=event.id, number=3))
    assert (cp3.lat, cp3.lon) == (pytest.approx(55.003), pytest.approx(37.003))


# ----------------------------------------------------------------- EntryList

ENTRY_LIST = f"""<?xml version="1.0" encoding="UTF-8"?>
<EntryList xmlns="{iof.IOF_NS}" iofVersion="3.0" creator="Entry system">
  <Event><Name>Ночной покер</Name></Event>
  <TeamEntry>
    <Id>T17</Id>
    <Name>Лоси</Name>
    <Class><Name>MM</Name></Class>
  </TeamEntry>
  <PersonEntry>
    <Id>301</Id>
    <Person><Id type="ORIS">999</Id>
      <Name><Family>Петрова</Family><Given>Анна</Given></Name></Person>
    <Class><Name>W21</Name></Class>
  </PersonEntry>
  <PersonEntry>
    <Person><Id>302</Id><Name><Family>Орлов</Family><Given>Егор</Given></Name></Person>
  </PersonEntry>
  <PersonEntry>
    <Person><Name><Family>Без</Family><Given>Номера</Given></Name></Person>
  </PersonEntry>
</EntryList>
""".encode()


def test_entry_list_import_creates_persons_and_teams(
    client: TestClient, admin: dict, session: Session
) -> None:
    valid(ENTRY_LIST)  # the fixture itself is a valid IOF document
    event = make_event(session)
    session.commit()
    response = client.post(
        f"/api/v1/events/{event.id}/participants/import",
        content=ENTRY_LIST,
        headers={**admin, "content-type": "application/xml"},
    )
    created = ok(response, 201)["participants"]
    assert [(p["external_id"], p["name"], p["category"]) for p in created] == [
        ("T17", "Лоси", "MM"),  # a team: its entry id and name
        ("301", "Анна Петрова", "W21"),  # the entry's id wins over the person's
        ("302", "Егор Орлов", None),  # no entry id: the person's
        ("303", "Номера Без", None),  # no id: the next free number, as in the CSV import
    ]
    assert all(len(p["save_codes"]) == 10 for p in created)


def test_entry_list_as_an_uploaded_file_and_its_errors_by_entry(
    client: TestClient, admin: dict, session: Session
) -> None:
    event = make_event(session)
    session.commit()
    url = f"/api/v1/events/{event.id}/participants/import"
    ok(client.post(url, files={"file": ("entries.xml", ENTRY_LIST)}, headers=admin), 201)

    again = client.post(url, files={"file": ("entries.xml", ENTRY_LIST)}, headers=admin)
    problem(again, 422, "iof_invalid")
    assert [(e["row"], e["element"], e["line"], e["field"]) for e in again.json()["errors"]] == [
        (1, "TeamEntry", 4, "external_id"),
        (2, "PersonEntry", 9, "external_id"),
        (3, "PersonEntry", 15, "external_id"),
    ]

    nameless = ENTRY_LIST.replace("<Name>Лоси</Name>".encode(), b"<Name>  </Name>").replace(
        b"<Id>T17</Id>", b"<Id>T18</Id>"
    )
    response = client.post(url, content=nameless, headers={**admin, "content-type": "text/xml"})
    problem(response, 422, "iof_invalid")
    assert response.json()["errors"][0] == {
        "row": 1,
        "element": "TeamEntry",
        "line": 4,
        "field": "name",
        "msg": "has no name (Person/Name/Given and Family, or the team's Name)",
    }
    assert (
        session.scalar(select(Participant.external_id).where(Participant.external_id == "T18"))
        is None
    )


@pytest.mark.parametrize(
    "body, message",
    [
        (b"<EntryList", "not well-formed XML"),
        (f'<ResultList xmlns="{iof.IOF_NS}" iofVersion="3.0"/>'.encode(), "found 'ResultList'"),
        (b'<EntryList iofVersion="3.0"/>', "namespace"),
        (
            f'<EntryList xmlns="{iof.IOF_NS}" iofVersion="3.0"><Event><Name>x</Name></Event>'
            "</EntryList>".encode(),
            "no PersonEntry or TeamEntry",
        ),
        (
            b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
            b"<EntryList>&e;</EntryList>",
            "DTD",
        ),
    ],
)
def test_entry_list_that_is_not_one_is_refused(
    client: TestClient, admin: dict, session: Session, body: bytes, message: str
) -> None:
    event = make_event(session)
    session.commit()
    response = client.post(
        f"/api/v1/events/{event.id}/participants/import",
        content=body,
        headers={**admin, "content-type": "application/xml"},
    )
    problem(response, 422, "iof_invalid")
    assert message in response.json()["detail"]
    assert session.scalar(select(Participant.id).where(Participant.event_id == event.id)) is None


def test_csv_participants_import_still_works_beside_xml(
    client: TestClient, admin: dict, session: Session
) -> None:
    event = make_event(session)
    session.commit()
    response = client.post(
        f"/api/v1/events/{event.id}/participants/import",
        content="name,external_id\nАнна,7\n".encode(),
        headers={**admin, "content-type": "text/csv"},
    )
    assert [p["external_id"] for p in ok(response, 201)["participants"]] == ["7"]


# ----------------------------------------------------------------- ResultList

HANDS = {
    "A": {"A_quads": ["9S", "9H", "9D", "9C", "2C"], "A_pair": ["3S", "3H", "7D", "8C", "JS"]},
    "B": {"B_quads": ["KS", "KH", "KD", "KC", "5H"], "B_pair": ["2D", "2S", "6H", "9S", "JD"]},
    "C": {"C_full": ["QS", "QD", "QC", "4H", "4S"]},
    "D": {"D_two_pair": ["TH", "TS", "6C", "6S", "AC"]},
    "E": {},  # entered, never took a card
}


def _positions(document: etree._Element) -> list[tuple[str, str | None, str]]:
    return [
        (
            result.findtext("i:Person/i:Id", namespaces=NS),
            result.findtext("i:Result/i:Position", namespaces=NS),
            result.findtext("i:Result/i:Status", namespaces=NS),
        )
        for result in document.findall("i:ClassResult/i:PersonResult", NS)
    ]


def test_result_list_after_the_ceremony_with_places_and_winning_combinations(
    client: TestClient, admin: dict, session: Session
) -> None:
    """3rd: D's two pair beats B's pair. 2nd: C's full house beats A's pair.
    1st: B's four kings beat A's four nines. A is unplaced; E never started."""
    w = build(session, HANDS)
    url = f"/api/v1/events/{w.event_id}/iof/result-list.xml"
    for place, bids in ((3, ("B_pair", "D_two_pair")), (2, ("A_pair", "C_full"))):
        ok(client.post(w.url(place, "/open"), headers=admin))
        for combo in bids:
            ok(bid(client, admin, w, place, combo[0], combo), 201)
        ok(client.post(w.url(place, "/close"), headers=admin))
        ok(client.post(w.url(place, "/reveal"), headers=admin, json={"all": True}))

    snapshot = valid(client.get(url).content)
    assert snapshot.get("status") == "Snapshot"  # 1st place is still to be auctioned
    assert _positions(snapshot) == [
        ("C", "2", "OK"),
        ("D", "3", "OK"),
        ("A", None, "OK"),
        ("B", None, "OK"),
        ("E", None, "DidNotStart"),
    ]

    ok(client.post(w.url(1, "/open"), headers=admin))
    ok(bid(client, admin, w, 1, "A", "A_quads"), 201)
    ok(bid(client, admin, w, 1, "B", "B_quads"), 201)
    ok(client.post(w.url(1, "/close"), headers=admin))
    # decided, not revealed (RULES.md I-21): still a snapshot without the 1st place
    unrevealed = valid(client.get(url).content)
    assert unrevealed.get("status") == "Snapshot"
    assert ("B", "1", "OK") not in _positions(unrevealed)
    ok(client.post(w.url(1, "/reveal"), headers=admin, json={"all": True}))

    response = client.get(url)
    assert response.status_code == 200
    document = valid(response.content)
    assert document.get("status") == "Complete"
    assert _positions(document) == [
        ("B", "1", "OK"),
        ("C", "2", "OK"),
        ("D", "3", "OK"),
        ("A", None, "OK"),
        ("E", None, "DidNotStart"),
    ]
    first = document.find("i:ClassResult/i:PersonResult", NS)
    # a name that came in one piece is written whole as Family, never split at a guess
    assert first.findtext("i:Person/i:Name/i:Given", namespaces=NS) == ""
    assert first.findtext("i:Person/i:Name/i:Family", namespaces=NS) == "Participant B"
    combination = first.find("i:Result/i:Extensions/rp:Combination", NS)
    assert combination.get("place") == "1"
    assert combination.get("category") == "four_of_a_kind"
    assert [c.text for c in combination.findall("rp:Card", NS)] == ["KS", "KH", "KD", "KC", "5H"]
    assert combination.findtext("rp:Description", namespaces=NS)
    # losers' bids stay out of the file: only places' combinations are published
    assert document.findall(".//rp:Combination", NS).__len__() == 3


def test_result_list_before_any_auction_has_everyone_unplaced(
    client: TestClient, session: Session
) -> None:
    event = make_event(
        session,
        opens_at=datetime(2026, 6, 1, 9, tzinfo=UTC),
        closes_at=datetime(2026, 6, 1, 9, tzinfo=UTC) + timedelta(hours=6),
    )
    session.commit()
    document = valid(client.get(f"/api/v1/events/{event.id}/iof/result-list.xml").content)
    assert document.get("status") == "Snapshot"
    assert _positions(document) == []
    assert document.findtext("i:Event/i:StartTime/i:Date", namespaces=NS) == "2026-06-01"


def test_result_list_event_times_carry_the_event_offset(
    client: TestClient, session: Session
) -> None:
    """Moscow is UTC+3: the course open 09:00-15:00 UTC is 12:00-18:00 there."""
    opens = datetime(2026, 6, 1, 9, tzinfo=UTC)
    event = make_event(session, opens_at=opens, closes_at=opens + timedelta(hours=6))
    session.commit()
    document = valid(client.get(f"/api/v1/events/{event.id}/iof/result-list.xml").content)
    times = [
        (document.findtext(f"i:Event/i:{tag}/i:Date", namespaces=NS),
         document.findtext(f"i:Event/i:{tag}/i:Time", namespaces=NS))
        for tag in ("StartTime", "EndTime")
    ]  # fmt: skip
    assert times == [("2026-06-01", "12:00:00+03:00"), ("2026-06-01", "18:00:00+03:00")]


# ----------------------------------------------------------------- EntryList export


def test_entry_list_export_names_teams_persons_and_the_event_time_with_its_offset(
    client: TestClient, admin: dict, session: Session
) -> None:
    """A person in parts, a person whose name came in one piece, a team. The opening
    21:30 UTC on 31 May is 00:30 on 1 June in Moscow (UTC+3): the date is Moscow's and
    the time carries +03:00 (xsd:time allows an offset)."""
    event = make_event(
        session,
        opens_at=datetime(2026, 5, 31, 21, 30, tzinfo=UTC),
        closes_at=datetime(2026, 6, 1, 3, 30, tzinfo=UTC),
    )
    for external_id, name, fields in (
        ("1", "Анна Петрова", {"given_name": "Анна", "family_name": "Петрова"}),
        ("2", "Борис Иванов", {}),
        ("T", "Команда «Лось»", {"kind": "team", "control_card": "7001"}),
    ):
        made = make_participant(session, event, external_id, name)
        participant = session.get(Participant, made.id)
        for key, value in fields.items():
            setattr(participant, key, value)
    session.commit()
    response = client.get(f"/api/v1/events/{event.id}/iof/entry-list.xml", headers=admin)
    document = valid(response.content)
    start = document.find("i:Event/i:StartTime", NS)
    assert (start.findtext("i:Date", namespaces=NS), start.findtext("i:Time", namespaces=NS)) == (
        "2026-06-01",
        "00:30:00+03:00",
    )
    [team] = document.findall("i:TeamEntry", NS)
    assert (team.findtext("i:Id", namespaces=NS), team.findtext("i:Name", namespaces=NS)) == (
        "T",
        "Команда «Лось»",
    )
    names = [
        (entry.findtext("i:Id", namespaces=NS), [
            (part.tag.split("}")[1], part.text) for part in entry.find("i:Person/i:Name", NS)
        ])
        for entry in document.findall("i:PersonEntry", NS)
    ]  # fmt: skip
    # IOF.xsd's PersonName requires Given (minOccurs 1): a name in one piece keeps an
    # empty Given, whole as Family (SportOrg and ooresults need both elements too)
    assert names == [
        ("1", [("Family", "Петрова"), ("Given", "Анна")]),
        ("2", [("Family", "Борис Иванов"), ("Given", None)]),
    ]
    without_given = etree.fromstring(response.content)
    for given in without_given.iterfind(".//i:Given", NS):
        given.getparent().remove(given)
    assert not schema().validate(without_given)  # why it stays


# ----------------------------------------------------------------- pure parts


def test_name_parts_are_written_as_they_came() -> None:
    person = iof.Competitor("1", "Hans Peter von Bülow", "person", "Hans Peter", "von Bülow")
    assert person.name_parts() == ("Hans Peter", "von Bülow")
    assert iof.Competitor("T", "Команда «Лось»", "team").name_parts() == ("", "Команда «Лось»")
    assert iof.Competitor("2", "Анна Мария Петрова").name_parts() == ("", "Анна Мария Петрова")


def test_looks_like_xml() -> None:
    assert iof.looks_like_xml(b"\xef\xbb\xbf  \n<EntryList/>")
    assert iof.looks_like_xml("\ufeff<EntryList/>".encode("utf-16-le"))  # FF FE, then "<"
    assert iof.looks_like_xml("\ufeff <EntryList/>".encode("utf-16-be"))
    assert iof.looks_like_xml("<EntryList/>".encode("utf-16-le"))  # no BOM: refused as XML
    assert not iof.looks_like_xml(b"name,external_id\n")
    assert not iof.looks_like_xml("\ufeffname,external_id\n".encode("utf-16-le"))
