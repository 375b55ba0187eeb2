"""IOF XML 3.0 documents: CourseData and ResultList out, EntryList and CourseData in.

Pure functions (no database, no clock: the creation time is an argument) built on
lxml. The IOF Data Standard 3.0 (schema `IOF.xsd`, namespace `IOF_NS`) is what
MeOS, SportOrg, QuickEvent, OResults and OFeed exchange; every document written here
validates against it (tests/iof). What goes out carries no secret: CourseData names
each CP by its number and position only (never its card or code, RULES.md I-1), and
the ResultList shows the combinations that won places, which the ceremony revealed.

Parsing never trusts the file: no DTD, no entity expansion, no network, and every
problem of an entry is collected as `{"row", "element", "line", "field", "msg"}`
(`row` counts the entries from 1 in file order, `line` is the XML source line).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from lxml import etree

IOF_NS = "http://www.orienteering.org/datastandard/3.0"
#: Our extension elements (the winning combination in a ResultList).
EXTENSION_NS = "urn:rogaine-poker:iof-extension:1"
CREATOR = "Rogaine Poker"
ID_TYPE = "RogainePoker"
MAX_NAME = 200
MAX_ID = 64
MAX_CATEGORY = 64

_NSMAP = {None: IOF_NS}


class IofError(ValueError):
    """The file is not an IOF XML 3.0 document of the expected kind.

    `errors` lists what was wrong, each `{"row", "element", "line", "field", "msg"}`.
    """

    def __init__(self, message: str, errors: list[dict[str, object]] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []


# --- what goes out ---------------------------------------------------------------------


@dataclass(frozen=True)
class ControlPosition:
    """A CP as course-setting tools see it: its number (the IOF control id) and WGS84
    position in degrees (None when the organiser has not placed it yet)."""

    number: int
    lat: float | None
    lon: float | None


@dataclass(frozen=True)
class Combination:
    """A winning combination as the ceremony revealed it (canonical card codes)."""

    cards: Sequence[str]
    category: str
    description: str


@dataclass(frozen=True)
class Standing:
    """One participant in a ResultList: `place` 1..N if an auction awarded them one
    (with the `combination` that won it), else None. `started` is False for a
    participant with no take at all (IOF status DidNotStart)."""

    external_id: str
    name: str
    category: str | None
    started: bool
    place: int | None = None
    combination: Combination | None = None


def _q(tag: str) -> str:
    return f"{{{IOF_NS}}}{tag}"


def _sub(parent: etree._Element, tag: str, text: object | None = None, **attrib: str):
    element = etree.SubElement(parent, _q(tag), attrib)
    if text is not None:
        element.text = str(text)
    return element


def _root(tag: str, created_at: datetime, **attrib: str) -> etree._Element:
    return etree.Element(
        _q(tag),
        {"iofVersion": "3.0", "createTime": created_at.isoformat(), "creator": CREATOR, **attrib},
        nsmap=_NSMAP,
    )


def _event(
    parent: etree._Element,
    event_id: int,
    name: str,
    opens_at: datetime | None = None,
    closes_at: datetime | None = None,
) -> None:
    event = _sub(parent, "Event")
    _sub(event, "Id", event_id, type=ID_TYPE)
    _sub(event, "Name", name)
    for tag, moment in (("StartTime", opens_at), ("EndTime", closes_at)):
        if moment is not None:
            when = _sub(event, tag)
            _sub(when, "Date", moment.date().isoformat())
            _sub(when, "Time", moment.timetz().isoformat())


def _serialise(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _coordinate(value: float) -> str:
    return f"{value:.7f}".rstrip("0").rstrip(".")


def course_data(
    event_id: int,
    event_name: str,
    controls: Iterable[ControlPosition],
    created_at: datetime,
    course_name: str = "Poker rogaine",
) -> bytes:
    """CourseData (IOF XML 3.0, UTF-8 bytes) of the event's CPs.

    Each CP is a `Control` whose `Id` is its number, with a `Position` when it has
    coordinates; one score course holds them all as `CourseControl`s with
    `randomOrder="true"` (visited in any order). Cards and codes never appear.
    `created_at` is an aware datetime (the file's `createTime`).
    """
    controls = sorted(controls, key=lambda control: control.number)
    root = _root("CourseData", created_at)
    _event(root, event_id, event_name)
    race = _sub(root, "RaceCourseData")
    for control in controls:
        element = _sub(race, "Control")
        _sub(element, "Id", control.number)
        if control.lat is not None and control.lon is not None:
            _sub(element, "Position", lng=_coordinate(control.lon), lat=_coordinate(control.lat))
    if len(controls) >= 2:  # the schema wants at least two course controls
        course = _sub(race, "Course")
        _sub(course, "Name", course_name)
        for control in controls:
            course_control = _sub(course, "CourseControl", type="Control", randomOrder="true")
            _sub(course_control, "Control", control.number)
    return _serialise(root)


def _split_name(name: str) -> tuple[str, str]:
    """(given, family): the first word is the given name, the rest the family name; a
    single word (a team's name, say) is a family name with an empty given name."""
    words = name.split(maxsplit=1)
    if len(words) < 2:
        return "", name
    return words[0], words[1]


def _combination_extension(result: etree._Element, place: int, combination: Combination) -> None:
    extensions = _sub(result, "Extensions")
    element = etree.SubElement(
        extensions,
        f"{{{EXTENSION_NS}}}Combination",
        {"place": str(place), "category": combination.category},
        nsmap={"rp": EXTENSION_NS},
    )
    for card in combination.cards:
        etree.SubElement(element, f"{{{EXTENSION_NS}}}Card").text = card
    etree.SubElement(element, f"{{{EXTENSION_NS}}}Description").text = combination.description


def result_list(
    event_id: int,
    event_name: str,
    opens_at: datetime,
    closes_at: datetime,
    standings: Iterable[Standing],
    created_at: datetime,
    complete: bool,
    class_name: str = "Poker rogaine",
) -> bytes:
    """ResultList (IOF XML 3.0, UTF-8 bytes) of the award ceremony.

    One class holds the whole event (the podium is event-wide): the place winners
    first with `Position` 1..N and their winning combination as an extension element
    `rp:Combination` (`rp` = `EXTENSION_NS`: `place`, `category`, `rp:Card` codes,
    `rp:Description`), then everyone else unplaced (`Status` OK without `Position`,
    or DidNotStart with no take at all), by external id. `complete` is False while
    auctions remain to be run (`status="Snapshot"`, else "Complete").
    """
    root = _root("ResultList", created_at, status="Complete" if complete else "Snapshot")
    _event(root, event_id, event_name, opens_at, closes_at)
    class_result = _sub(root, "ClassResult")
    _sub(_sub(class_result, "Class"), "Name", class_name)
    ordered = sorted(
        standings,
        key=lambda s: (s.place is None, s.place or 0, s.external_id),
    )
    for standing in ordered:
        person_result = _sub(class_result, "PersonResult")
        person = _sub(person_result, "Person")
        _sub(person, "Id", standing.external_id, type=ID_TYPE)
        given, family = _split_name(standing.name)
        name = _sub(person, "Name")
        _sub(name, "Family", family)
        _sub(name, "Given", given)
        result = _sub(person_result, "Result")
        _sub(result, "BibNumber", standing.external_id)
        if standing.place is not None:
            _sub(result, "Position", standing.place)
        _sub(result, "Status", "OK" if standing.started else "DidNotStart")
        if standing.place is not None and standing.combination is not None:
            _combination_extension(result, standing.place, standing.combination)
    return _serialise(root)


# --- what comes in ----------------------------------------------------------------------


@dataclass
class Entry:
    """One entry of an EntryList: a person or a team, as a participant of ours."""

    row: int
    line: int
    kind: str
    name: str
    external_id: str | None = None
    category: str | None = None
    errors: list[dict[str, object]] = field(default_factory=list)


def looks_like_xml(data: bytes) -> bool:
    """Whether uploaded bytes are XML rather than CSV: the first character after a
    BOM and white space is `<` (no CSV header starts so)."""
    return data.lstrip(b"\xef\xbb\xbf").lstrip()[:1] == b"<"


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def parse_document(data: bytes, expected: str) -> etree._Element:
    """The root element of an IOF XML 3.0 document of kind `expected` (e.g.
    "EntryList"). Raises IofError when the bytes are not well-formed XML, declare a
    DTD, or hold another document."""
    if b"<!DOCTYPE" in data[:4096] or b"<!ENTITY" in data:
        raise IofError("The XML must not declare a DTD or entities.")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise IofError(f"The file is not well-formed XML: {exc.msg}.") from exc
    if root.tag != _q(expected):
        found = etree.QName(root).localname if isinstance(root.tag, str) else "?"
        raise IofError(f"Expected an IOF XML 3.0 {expected} (namespace {IOF_NS}), found {found!r}.")
    return root


def _text(element: etree._Element | None, path: str) -> str:
    if element is None:
        return ""
    found = element.find(path, namespaces={"i": IOF_NS})
    return " ".join((found.text or "").split()) if found is not None else ""


def _clean(value: str) -> str:
    """Text as a person reads it: control characters dropped, white space folded."""
    kept = "".join(ch for ch in value if ch == "\t" or (ch >= " " and ch != "\x7f"))
    return " ".join(kept.split())


def _entry(kind: str, row: int, element: etree._Element) -> Entry:
    if kind == "PersonEntry":
        person = element.find("i:Person", namespaces={"i": IOF_NS})
        name = _clean(f"{_text(person, 'i:Name/i:Given')} {_text(person, 'i:Name/i:Family')}")
        external_id = _text(element, "i:Id") or _text(person, "i:Id")
    else:
        name = _clean(_text(element, "i:Name"))
        external_id = _text(element, "i:Id")
    entry = Entry(
        row=row,
        line=element.sourceline or 0,
        kind=kind,
        name=name,
        external_id=_clean(external_id) or None,
        category=_clean(_text(element, "i:Class/i:Name")) or None,
    )

    def error(field_name: str, msg: str) -> None:
        entry.errors.append(
            {"row": row, "element": kind, "line": entry.line, "field": field_name, "msg": msg}
        )

    if not entry.name:
        error("name", "has no name (Person/Name/Given and Family, or the team's Name)")
    elif len(entry.name) > MAX_NAME:
        error("name", f"is longer than {MAX_NAME} characters")
    if entry.external_id is not None and (
        len(entry.external_id) > MAX_ID or "/" in entry.external_id
    ):
        error("external_id", f"Id must be at most {MAX_ID} characters, without '/'")
    if entry.category is not None and len(entry.category) > MAX_CATEGORY:
        error("category", f"Class/Name is longer than {MAX_CATEGORY} characters")
    return entry


def parse_entry_list(data: bytes) -> tuple[list[Entry], list[dict[str, object]]]:
    """EntryList → (entries, errors) in file order, teams then persons as the schema
    orders them.

    A `PersonEntry` becomes a participant named "Given Family" with the entry's `Id`
    (else the person's first `Id`) as `external_id`; a `TeamEntry` a participant named
    as the team with the entry's `Id`; the first `Class/Name` is the category. An
    entry without an id gets a generated number later, as in the CSV import. Raises
    IofError for a file that is not an EntryList or has no entries.
    """
    root = parse_document(data, "EntryList")
    entries: list[Entry] = []
    for element in root:
        if not isinstance(element.tag, str):
            continue
        kind = etree.QName(element).localname
        if element.tag in (_q("PersonEntry"), _q("TeamEntry")):
            entries.append(_entry(kind, len(entries) + 1, element))
    if not entries:
        raise IofError("The EntryList has no PersonEntry or TeamEntry.")
    errors = [error for entry in entries for error in entry.errors]
    return entries, errors


@dataclass(frozen=True)
class ParsedControl:
    """A control read from a CourseData: its entry number, XML line and position."""

    row: int
    line: int
    control: ControlPosition


def parse_course_data(data: bytes) -> tuple[list[ParsedControl], list[dict[str, object]]]:
    """CourseData → (ordinary controls with their positions, errors), from the first
    RaceCourseData. Start, finish and other special controls are left out; a control
    whose `Id` is not a positive whole number is an error (our CP numbers are)."""
    root = parse_document(data, "CourseData")
    race = root.find("i:RaceCourseData", namespaces={"i": IOF_NS})
    controls: list[ParsedControl] = []
    errors: list[dict[str, object]] = []
    if race is None:
        raise IofError("The CourseData has no RaceCourseData.")
    row = 0
    for element in race.findall("i:Control", namespaces={"i": IOF_NS}):
        if element.get("type", "Control") != "Control":
            continue
        row += 1
        line = element.sourceline or 0
        identifier = _text(element, "i:Id")
        position = element.find("i:Position", namespaces={"i": IOF_NS})
        try:
            number = int(identifier)
            if number < 1:
                raise ValueError
        except ValueError:
            errors.append(
                {
                    "row": row,
                    "element": "Control",
                    "line": line,
                    "field": "number",
                    "msg": f"Id {identifier!r} is not a CP number",
                }
            )
            continue
        lat = lon = None
        if position is not None:
            try:
                lat, lon = float(position.get("lat", "")), float(position.get("lng", ""))
                if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                    raise ValueError
            except ValueError:
                errors.append(
                    {
                        "row": row,
                        "element": "Control",
                        "line": line,
                        "field": "lat",
                        "msg": "Position needs lat in -90..90 and lng in -180..180",
                    }
                )
                continue
        controls.append(ParsedControl(row, line, ControlPosition(number, lat, lon)))
    return controls, errors
