"""The organiser's IOF XML page and the participants page with IOF files (issue 28):
the CourseData upload answers its report on the page, is CSRF-protected, and a file
refused as a whole says why in the page language; the add form keeps name parts."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.events.models import Checkpoint, Participant
from tests.factories import make_event
from tests.web.test_setup_pages import fresh, post
from tests.web.test_signin import admin_login

CORPUS = Path(__file__).resolve().parent.parent / "data" / "iof" / "corpus"


@pytest.fixture
def desk(client: TestClient) -> TestClient:
    """The signed-in organiser."""
    admin_login(client)
    return client


def _xml(name: str) -> dict:
    return {"file": (name, (CORPUS / name).read_bytes(), "application/xml")}


def _text(page: str, element_id: str) -> str:
    """The text of the list item `element_id` of the page."""
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</li>', page, re.S)
    assert match, element_id
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", match.group(1))).split())


def test_the_iof_page_offers_the_upload_and_the_downloads(desk: TestClient, session: Session):
    event = make_event(session)
    session.commit()
    page = desk.get(f"/admin/events/{event.id}/iof")
    assert page.status_code == 200
    assert f'href="/admin/events/{event.id}/iof" aria-current="page"' in page.text
    assert f'action="/admin/events/{event.id}/iof/course-data"' in page.text
    for name in ("course-data.xml", "entry-list.xml", "result-list.xml"):
        assert f'href="/api/v1/events/{event.id}/iof/{name}"' in page.text
        assert desk.get(f"/api/v1/events/{event.id}/iof/{name}").status_code == 200  # cookie


def test_a_course_data_upload_shows_its_report(desk: TestClient, session: Session):
    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/iof"
    desk.get("/lang/en")
    page = post(desk, f"{url}/course-data", url, files=_xml("course_untyped_start_finish.xml"))
    assert page.status_code == 200
    assert _text(page.text, "report-placed") == "CPs placed at the file's positions: 3"
    assert _text(page.text, "report-not-in-file").startswith(
        "CPs of the deck not in the file: 51: 1, 2, 3,"
    )
    assert _text(page.text, "report-without-position") == (
        "CPs of the deck without a position now: 0"
    )
    rows = re.findall(
        r"<tr><td class=\"mono\">([^<]+)</td><td>(\d+)</td><td>([^<]+)</td>", page.text
    )
    assert rows == [
        ("S1", "15", "start · a course says so (CourseControl)"),
        ("60", "32", "no such CP in the deck · by its number"),
        ("F1", "36", "finish · a course says so (CourseControl)"),
    ]
    fresh(session)
    cp31 = session.scalar(select(Checkpoint).filter_by(event_id=event.id, number=31))
    assert (cp31.lat, cp31.lon) == (55.531, 37.531)


def test_the_report_in_russian(desk: TestClient, session: Session):
    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/iof"
    page = post(desk, f"{url}/course-data", url, files=_xml("course_map_positions_only.xml"))
    assert _text(page.text, "report-placed") == "КП размещено по координатам файла: 0"
    assert _text(page.text, "report-no-position") == (
        "КП в файле без координат (остались на месте): 3: 5 (только позиция на карте), "
        "6 (только позиция на карте), 7"
    )


def test_the_upload_needs_the_csrf_token(desk: TestClient, session: Session):
    event = make_event(session)
    session.commit()
    response = desk.post(
        f"/admin/events/{event.id}/iof/course-data",
        data={"csrf_token": "forged"},
        files=_xml("course_partial_meos.xml"),
    )
    assert response.status_code == 403
    fresh(session)
    cp1 = session.scalar(select(Checkpoint).filter_by(event_id=event.id, number=1))
    assert (cp1.lat, cp1.lon) == (pytest.approx(55.001), pytest.approx(37.001))


@pytest.mark.parametrize(
    "page_path, action, file, headline, reason",
    [
        (
            "iof",
            "iof/course-data",
            "competitor_list.xml",
            "The CourseData was not read; no CP was moved:",
            "The file is CompetitorList, not CourseData.",
        ),
        (
            "participants",
            "participants/import",
            "competitor_list.xml",
            "The IOF XML file has errors; nobody was added:",
            "The file is CompetitorList, not EntryList.",
        ),
        (
            "participants",
            "participants/import",
            "entries_windows1251.xml",
            "The IOF XML file has errors; nobody was added:",
            "The file is encoded in windows-1251; save it as UTF-8 (or UTF-16 with a BOM).",
        ),
    ],
)
def test_a_file_refused_as_a_whole_says_why_on_the_page(
    desk: TestClient,
    session: Session,
    page_path: str,
    action: str,
    file: str,
    headline: str,
    reason: str,
):
    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/{page_path}"
    desk.get("/lang/en")
    page = post(desk, f"/admin/events/{event.id}/{action}", url, files=_xml(file))
    assert page.url.path == url
    assert headline in page.text
    assert re.findall(r"<td>([^<]+)</td><td>([^<]+)</td></tr>", page.text.split("row-errors")[1])[
        0
    ] == ("file", reason)
    fresh(session)
    assert session.scalars(select(Participant)).all() == []


def test_a_utf16_entry_list_on_the_participants_page(desk: TestClient, session: Session):
    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/participants"
    page = post(desk, f"{url}/import", url, files=_xml("entries_utf16.xml"))
    assert "Участники загружены." in page.text
    assert "Бегущие по лесу" in page.text and "9000123" in page.text
    fresh(session)
    olga = session.scalars(select(Participant)).one()
    assert (olga.given_name, olga.family_name, olga.club, olga.control_card) == (
        "Ольга", "Сидорова", "Бегущие по лесу", "9000123"
    )  # fmt: skip


def test_the_add_form_keeps_name_parts_club_and_card(desk: TestClient, session: Session):
    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/participants"
    form = {
        "kind": "person",
        "name": "",
        "given_name": "Hans Peter",
        "family_name": "von Bülow",
        "club": "OK Linné",
        "control_card": "8123456",
        "external_id": "",
        "category": "",
    }
    page = post(desk, url, url, data=form)
    assert "Участник добавлен." in page.text
    refused = post(desk, url, url, data={**form, "control_card": "SI-1"})
    assert refused.url.path == url and 'value="SI-1"' in refused.text  # sent back to fix
    fresh(session)
    [hans] = session.scalars(select(Participant)).all()
    assert (hans.name, hans.kind, hans.given_name, hans.family_name, hans.club) == (
        "Hans Peter von Bülow", "person", "Hans Peter", "von Bülow", "OK Linné"
    )  # fmt: skip
    assert hans.control_card == "8123456"


def test_the_report_says_how_each_control_was_known(desk: TestClient, session: Session):
    """Every `by` of the report in both languages, each true to what decided it: "STA1"
    (untyped, in no course) is no number and not MeOS's S…/F…, so its text must not
    claim MeOS's naming; "S" is a start by that naming; "Finish" typed; a course's
    start; a number twice; a number not in the deck."""
    event = make_event(session)
    session.commit()
    xml = b"""<?xml version="1.0" encoding="UTF-8"?>
<CourseData xmlns="http://www.orienteering.org/datastandard/3.0" iofVersion="3.0">
  <Event><Name>x</Name></Event>
  <RaceCourseData>
    <Control><Id>STA1</Id></Control>
    <Control><Id>S</Id></Control>
    <Control type="Finish"><Id>FIN</Id></Control>
    <Control><Id>3</Id><Position lng="37.3" lat="55.3"/></Control>
    <Control><Id>3</Id><Position lng="37.4" lat="55.4"/></Control>
    <Control><Id>99</Id><Position lng="37.9" lat="55.9"/></Control>
    <Control><Id>K</Id></Control>
    <Course><Name>c</Name>
      <CourseControl type="Start"><Control>K</Control></CourseControl>
      <CourseControl><Control>3</Control></CourseControl>
    </Course>
  </RaceCourseData>
</CourseData>"""
    url = f"/admin/events/{event.id}/iof"
    expected = {
        "ru": [
            ("STA1", "5", "номер не число · ни тип, ни дистанция не говорят, что это, "
             "и это не S…/F… как у MeOS"),
            ("S", "6", "старт · по имени, как пишет MeOS (S…, F…)"),
            ("FIN", "7", "финиш · так помечен сам пункт (type)"),
            ("3", "9", "номер уже был выше · по номеру"),
            ("99", "10", "такого КП нет в колоде · по номеру"),
            ("K", "11", "старт · так он стоит в дистанции (CourseControl)"),
        ],
        "en": [
            ("STA1", "5", "its id is not a number · neither its type nor a course says "
             "what it is, and it is not MeOS's S…/F…"),
            ("S", "6", "start · by its id, as MeOS names them (S…, F…)"),
            ("FIN", "7", "finish · the control's type says so"),
            ("3", "9", "the number came earlier in the file · by its number"),
            ("99", "10", "no such CP in the deck · by its number"),
            ("K", "11", "start · a course says so (CourseControl)"),
        ],
    }  # fmt: skip
    for lang in ("ru", "en"):
        desk.get(f"/lang/{lang}")
        files = {"file": ("c.xml", xml, "application/xml")}
        page = post(desk, f"{url}/course-data", url, files=files)
        rows = re.findall(
            r"<tr><td class=\"mono\">([^<]+)</td><td>(\d+)</td><td>([^<]+)</td>", page.text
        )
        assert [(i, n, html.unescape(w)) for i, n, w in rows] == expected[lang]


def _error_rows(page: str) -> list[tuple[str, ...]]:
    table = page.split("row-errors")[1].split("</table>")[0]
    header = tuple(html.unescape(h) for h in re.findall(r"<th>([^<]+)</th>", table))
    cells = [
        tuple(html.unescape(c) for c in re.findall(r"<td>([^<]*)</td>", row))
        for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    ]
    return [header, *cells]


def test_entry_list_errors_name_entries_and_csv_errors_rows(desk: TestClient, session: Session):
    """An EntryList imported twice: its three entries' ids are taken. The page names
    them by entry (and the file's line), not "row"; a CSV keeps "row"."""
    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/participants"
    assert (
        "Участники загружены."
        in post(desk, f"{url}/import", url, files=_xml("entries_persons_sportorg.xml")).text
    )
    again = post(desk, f"{url}/import", url, files=_xml("entries_persons_sportorg.xml"))
    header, *rows = _error_rows(again.text)
    assert header == ("Запись", "Поле", "Что не так")
    assert [row[0] for row in rows] == [
        "запись 1 (строка файла 8)",
        "запись 2 (строка файла 28)",
        "запись 3 (строка файла 46)",
    ]
    desk.get("/lang/en")
    again = post(desk, f"{url}/import", url, files=_xml("entries_persons_sportorg.xml"))
    header, *rows = _error_rows(again.text)
    assert header == ("Entry", "Field", "Problem")
    assert [row[0] for row in rows] == [
        "entry 1 (line 8 of the file)",
        "entry 2 (line 28 of the file)",
        "entry 3 (line 46 of the file)",
    ]
    csv = {"file": ("p.csv", b"name,external_id\n\xd0\x90,101\n", "text/csv")}
    header, *rows = _error_rows(post(desk, f"{url}/import", url, files=csv).text)
    assert (header[0], [row[0] for row in rows]) == ("Row", ["row 2"])


def test_course_data_errors_name_the_control(desk: TestClient, session: Session):
    """A CourseData whose second control is out of range: refused, and the page names
    the control (the second `Control` element, line 6), not a "row"."""
    event = make_event(session)
    session.commit()
    xml = b"""<?xml version="1.0" encoding="UTF-8"?>
<CourseData xmlns="http://www.orienteering.org/datastandard/3.0" iofVersion="3.0">
  <Event><Name>x</Name></Event>
  <RaceCourseData>
    <Control><Id>1</Id><Position lng="37.1" lat="55.1"/></Control>
    <Control><Id>2</Id><Position lng="37.2" lat="95.2"/></Control>
  </RaceCourseData>
</CourseData>"""
    url = f"/admin/events/{event.id}/iof"
    desk.get("/lang/en")
    page = post(desk, f"{url}/course-data", url, files={"file": ("c.xml", xml, "text/xml")})
    header, *rows = _error_rows(page.text)
    assert header[0] == "Control"
    assert [row[0] for row in rows] == ["control 2 (line 6 of the file)"]
