"""What SportOrg, MeOS and ooresults require of an IOF XML 3.0 file, reimplemented from
their public source (read, not copied) so that the tests can read our exports as they do.

- **SportOrg** (sportorg/pysport, `sportorg/libs/iof/parser.py` and
  `sportorg/modules/iof/iof_xml.py`; Python, `xml.etree`): an element "with content"
  is one with children (the parser tests elements for truth, which is their child
  count). CourseData: each `Course` needs `Name` and an integer `Length`; each
  `CourseControl` a `type` attribute and a `Control`. EntryList: persons are read when
  the first `PersonEntry` has children, else teams' `TeamEntryPerson`s (each then
  needs a `Person`); every entry needs a `Class` with children whose `Id` and `Name`
  it reads (otherwise the group of an entry is undefined and the import fails); an
  `Organisation` with children needs `Id` and `Name`; `Person/Name/Family` and
  `Given` must exist; `ControlCard` is read as an integer. ResultList: `Class/Id` is
  required; each `PersonResult` needs `Person/Name/Family`, `Given`, `Result/Status`
  and `Result/StartTime` (its text, an ISO time whose part after "T" is the clock
  time); `BibNumber` and `ControlCard` are read as integers.
- **MeOS** (melinsoftware/meos, `code/iof30interface.cpp`; C++): `Control/Id`
  starting with "S" is a start, with "F" a finish (the control's `type` is not read),
  else a whole number > 0 (otherwise the control is skipped); `Position lat/lng`.
  `Course`: `Name`, `Length` (integer), `CourseControl type` Start/Finish/else a
  control with its `Control` number. `PersonEntry`: the runner is named
  "Family, Given" (first two given names), `ControlCard` an integer;
  `Organisation` counts only with a name starting with a letter or digit and a
  non-zero `Id`; `Class/Id` an integer (0: found by name). `TeamEntry` needs `Name`.
  Numbers are read like C's `atoi` (no digits: 0).
- **ooresults** (rgarus/ooresults, `ooresults/plugins/iof_*.py`; Python, lxml): the
  file must validate against IOF.xsd and have the expected root; `Event/Name` is
  required. EntryList: `PersonEntry/Person/Name/Family` and `Given` (teams are not
  read), `Organisation/Name`, `ControlCard`, `Class/Name`. CourseData: `Course/Name`,
  `Length`/`Climb` as numbers, `CourseControl` of type Control (the default) give the
  control codes. ResultList: `Class/Name`; per `PersonResult` the names, `Status`
  (one of the IOF statuses), `StartTime`/`FinishTime` as ISO times, `Time` an integer.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime
from functools import cache
from pathlib import Path

from lxml import etree

NS = {"iof": "http://www.orienteering.org/datastandard/3.0"}
XSD = Path(__file__).resolve().parent.parent / "data" / "iof" / "IOF.xsd"


class ReaderFailed(Exception):
    """The program would fail on this file (its parser raises)."""


def _has_content(element: ET.Element | None) -> bool:
    return element is not None and len(element) > 0


def _text(element: ET.Element | None, path: str) -> str:
    if element is None:
        raise ReaderFailed(f"no parent for {path}")
    found = element.find(path, NS)
    if found is None:
        raise ReaderFailed(f"{path} is missing")
    return found.text or ""


def _int(value: str | None, what: str) -> int:
    try:
        return int(value or "")
    except ValueError as exc:
        raise ReaderFailed(f"{what} {value!r} is not an integer") from exc


# --- SportOrg ---------------------------------------------------------------------------


def sportorg_courses(data: bytes) -> list[dict]:
    """SportOrg's CourseData import: [{name, length, controls: [codes of type Control]}]."""
    root = ET.fromstring(data)
    courses = []
    for course in root.find("iof:RaceCourseData", NS).findall("iof:Course", NS):
        controls = []
        for course_control in course.findall("iof:CourseControl", NS):
            if "type" not in course_control.attrib:
                raise ReaderFailed("CourseControl without type")
            code = _text(course_control, "iof:Control")
            if course_control.attrib["type"] == "Control":
                controls.append(code)
        courses.append(
            {
                "name": _text(course, "iof:Name"),
                "length": _int(_text(course, "iof:Length"), "Course/Length"),
                "controls": controls,
            }
        )
    return courses


def _sportorg_organisation(element: ET.Element) -> dict | None:
    org = element.find("iof:Organisation", NS)
    if not _has_content(org):
        return None
    return {"id": _text(org, "iof:Id"), "name": _text(org, "iof:Name")}


def _sportorg_group(element: ET.Element) -> dict:
    group = element.find("iof:Class", NS)
    if not _has_content(group):
        raise ReaderFailed("an entry without a Class: its group is undefined")
    return {"id": _text(group, "iof:Id"), "name": _text(group, "iof:Name")}


def _sportorg_person(person: ET.Element | None) -> dict:
    if person is None:
        raise ReaderFailed("Person is missing")
    name = person.find("iof:Name", NS)
    return {"family": _text(name, "iof:Family"), "given": _text(name, "iof:Given")}


def _card(element: ET.Element) -> int:
    card = element.find("iof:ControlCard", NS)
    return _int(card.text, "ControlCard") if card is not None and card.text else 0


def sportorg_entries(data: bytes) -> list[dict]:
    """SportOrg's EntryList import: persons (or, in a file of teams only, the teams'
    members) with family, given, organisation, group and card."""
    root = ET.fromstring(data)
    entries = []
    if _has_content(root.find("iof:PersonEntry", NS)):
        for entry in root.findall("iof:PersonEntry", NS):
            entries.append(
                {
                    **_sportorg_person(entry.find("iof:Person", NS)),
                    "organisation": _sportorg_organisation(entry),
                    "group": _sportorg_group(entry),
                    "card": _card(entry),
                }
            )
    elif _has_content(root.find("iof:TeamEntry", NS)):
        for team in root.findall("iof:TeamEntry", NS):
            organisation = _sportorg_organisation(team)
            group = _sportorg_group(team)
            for member in team.findall("iof:TeamEntryPerson", NS):
                person = _sportorg_person(member.find("iof:Person", NS))
                entries.append(
                    {**person, "organisation": organisation, "group": group, "card": _card(member)}
                )
    return entries


def _clock(value: str) -> str:
    """SportOrg's reading of an ISO time: the part after "T", cut at "+"."""
    if value.find("T") <= 0:
        return "00:00:00"
    clock = value[value.find("T") + 1 :]
    clock = clock[: clock.find("+")] if clock.find("+") > 0 else clock
    if not re.fullmatch(r"\d\d:\d\d:\d\d(\.\d+)?", clock):
        raise ReaderFailed(f"StartTime {value!r} is not hh:mm:ss after the T")
    return clock


def sportorg_results(data: bytes) -> list[dict]:
    """SportOrg's ResultList import: persons with group, bib, start clock time, status."""
    root = ET.fromstring(data)
    results = []
    for class_result in root.findall("iof:ClassResult", NS):
        group = class_result.find("iof:Class", NS)
        group_id, group_name = _text(group, "iof:Id"), _text(group, "iof:Name")
        if not _has_content(class_result.find("iof:PersonResult", NS)):
            continue
        for person_result in class_result.findall("iof:PersonResult", NS):
            result = person_result.find("iof:Result", NS)
            bib = result.find("iof:BibNumber", NS)
            results.append(
                {
                    **_sportorg_person(person_result.find("iof:Person", NS)),
                    "organisation": _sportorg_organisation(person_result),
                    "group": {"id": group_id, "name": group_name},
                    "bib": _int(bib.text, "BibNumber") if bib is not None else 0,
                    "start": _clock(_text(result, "iof:StartTime")),
                    "status": _text(result, "iof:Status"),
                    "card": _card(result),
                }
            )
    return results


# --- MeOS --------------------------------------------------------------------------------


def _atoi(value: str | None) -> int:
    match = re.match(r"\s*([+-]?\d+)", value or "")
    return int(match.group(1)) if match else 0


def _meos_text(element: ET.Element | None, path: str) -> str:
    found = element.find(path, NS) if element is not None else None
    return (found.text or "").strip() if found is not None else ""


def meos_course_data(data: bytes) -> dict:
    """MeOS's CourseData import: {"controls": {code: (lat, lng)}, "starts", "finishes",
    "courses": [{name, length, controls: [codes]}]}."""
    root = ET.fromstring(data)
    race = root.find("iof:RaceCourseData", NS)
    read = {"controls": {}, "starts": [], "finishes": [], "courses": []}
    for control in race.findall("iof:Control", NS):
        identifier = _meos_text(control, "iof:Id")
        if not identifier:
            continue
        if identifier[0] == "S":
            read["starts"].append(identifier)
        elif identifier[0] == "F":
            read["finishes"].append(identifier)
        elif _atoi(identifier) > 0:
            position = control.find("iof:Position", NS)
            where = (
                (float(position.get("lat", 0)), float(position.get("lng", 0)))
                if position is not None
                else None
            )
            read["controls"][_atoi(identifier)] = where
    for course in race.findall("iof:Course", NS):
        codes = [
            _atoi(_meos_text(cc, "iof:Control"))
            for cc in course.findall("iof:CourseControl", NS)
            if cc.get("type") not in ("Start", "Finish")
        ]
        read["courses"].append(
            {
                "name": _meos_text(course, "iof:Name"),
                "length": _atoi(_meos_text(course, "iof:Length")),
                "controls": codes,
            }
        )
    return read


def _meos_club(element: ET.Element) -> str | None:
    org = element.find("iof:Organisation", NS)
    if org is None:
        return None
    name = _meos_text(org, "iof:Name")
    if not name or not name[0].isalnum() or _atoi(_meos_text(org, "iof:Id")) == 0:
        return None
    return name


def meos_entries(data: bytes) -> dict:
    """MeOS's EntryList import: {"runners": [{name "Family, Given", card, club,
    class}], "teams": [{name, club, class, runners}]}."""
    root = ET.fromstring(data)
    runners = []
    for entry in root.findall("iof:PersonEntry", NS):
        name = entry.find("iof:Person/iof:Name", NS)
        given = " ".join(_meos_text(name, "iof:Given").split()[:2])
        runners.append(
            {
                "name": f"{_meos_text(name, 'iof:Family')}, {given}",
                "card": _atoi(_meos_text(entry, "iof:ControlCard")),
                "club": _meos_club(entry),
                "class": _meos_text(entry, "iof:Class/iof:Name"),
                "class_id": _atoi(_meos_text(entry, "iof:Class/iof:Id")),
            }
        )
    teams = []
    for entry in root.findall("iof:TeamEntry", NS):
        name = _meos_text(entry, "iof:Name")
        if not name:
            continue  # MeOS skips a team without a name
        cards = [
            _atoi(_meos_text(m, "iof:ControlCard"))
            for m in entry.findall("iof:TeamEntryPerson", NS)
        ]
        teams.append(
            {
                "name": name,
                "club": _meos_club(entry),
                "class": _meos_text(entry, "iof:Class/iof:Name"),
                "cards": cards,
            }
        )
    return {"runners": runners, "teams": teams}


# --- ooresults ----------------------------------------------------------------------------


@cache
def _schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(XSD)))


def _ooresults_root(data: bytes, kind: str) -> etree._Element:
    root = etree.XML(data)
    if not _schema().validate(root):
        raise ReaderFailed(str(_schema().error_log.last_error))
    if root.tag != "{" + NS["iof"] + "}" + kind:
        raise ReaderFailed(f"Root element is {root.tag} but should be {kind}")
    if root.find("Event/Name", namespaces={None: NS["iof"]}) is None:
        raise ReaderFailed("Event/Name is missing")
    return root


def _o(element: etree._Element, path: str) -> etree._Element | None:
    return element.find(path, namespaces={None: NS["iof"]})


def _o_text(element: etree._Element, path: str) -> str | None:
    found = _o(element, path)
    if found is None:
        raise ReaderFailed(f"{path} is missing")
    return found.text


def ooresults_entries(data: bytes) -> list[dict]:
    """ooresults' EntryList import: persons only, {last_name, first_name, club, chip, class_}."""
    root = _ooresults_root(data, "EntryList")
    entries = []
    for entry in root.findall("PersonEntry", namespaces={None: NS["iof"]}):
        club, card, cls = (_o(entry, p) for p in ("Organisation/Name", "ControlCard", "Class/Name"))
        entries.append(
            {
                "last_name": _o_text(entry, "Person/Name/Family"),
                "first_name": _o_text(entry, "Person/Name/Given"),
                "club": club.text if club is not None else "",
                "chip": card.text if card is not None else "",
                "class_": cls.text if cls is not None else "",
            }
        )
    return entries


def ooresults_courses(data: bytes) -> list[dict]:
    """ooresults' CourseData import: [{name, length, controls}] of the first race."""
    root = _ooresults_root(data, "CourseData")
    race = root.findall("RaceCourseData", namespaces={None: NS["iof"]})[0]
    courses = []
    for course in race.findall("Course", namespaces={None: NS["iof"]}):
        length = _o(course, "Length")
        controls = [
            cc.findall("Control", namespaces={None: NS["iof"]})[0].text
            for cc in course.findall("CourseControl", namespaces={None: NS["iof"]})
            if cc.get("type", default="Control") == "Control"
        ]
        courses.append(
            {
                "name": _o_text(course, "Name"),
                "length": float(length.text) if length is not None else None,
                "controls": controls,
            }
        )
    return courses


OORESULTS_STATUSES = {
    "OK", "Finished", "MissingPunch", "Disqualified", "DidNotFinish", "Active", "Inactive",
    "OverTime", "SportingWithdrawal", "NotCompeting", "Moved", "MovedUp", "DidNotStart",
    "DidNotEnter", "Cancelled",
}  # fmt: skip


def ooresults_results(data: bytes) -> list[dict]:
    """ooresults' ResultList import: persons with class, club, chip, status, start."""
    root = _ooresults_root(data, "ResultList")
    results = []
    for class_result in root.findall("ClassResult", namespaces={None: NS["iof"]}):
        class_name = _o_text(class_result, "Class/Name")
        for person_result in class_result.findall("PersonResult", namespaces={None: NS["iof"]}):
            result = _o(person_result, "Result")
            status = _o_text(result, "Status")
            if status not in OORESULTS_STATUSES:
                raise ReaderFailed(f"unknown status {status!r}")
            start = _o(result, "StartTime")
            club, card = _o(person_result, "Organisation/Name"), _o(result, "ControlCard")
            results.append(
                {
                    "last_name": _o_text(person_result, "Person/Name/Family"),
                    "first_name": _o_text(person_result, "Person/Name/Given"),
                    "class_": class_name,
                    "club": club.text if club is not None else "",
                    "chip": card.text if card is not None else "",
                    "status": status,
                    "start": datetime.fromisoformat(start.text) if start is not None else None,
                }
            )
    return results
