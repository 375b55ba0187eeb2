"""IOF XML 3.0 documents: CourseData, EntryList and ResultList out; EntryList and
CourseData in.

Pure functions (no database, no clock: the creation time is an argument) built on
lxml. The IOF Data Standard 3.0 (schema `IOF.xsd`, namespace `IOF_NS`) is what
MeOS, SportOrg, QuickEvent, ooresults and OFeed exchange; every document written here
validates against it and is read by the parsers of SportOrg, MeOS and ooresults
(tests/iof reimplements what each of them requires; docs/iof.md lists it). What goes
out carries no secret: CourseData names each CP by its number and position only
(never its card or code, RULES.md I-1), and the ResultList shows the combinations that
won places, which the ceremony revealed.

Parsing never trusts the file: no DTD, no entity expansion, no network. A file is
UTF-8 (with or without a byte order mark) or UTF-16 with a byte order mark; anything
else is refused naming its encoding (`decode_text`). A whole-file refusal is an
`IofError` whose one error item is `{"field": "file", "msg", "type": "iof_<reason>",
"values"}` (the pages translate `type`); a problem of one entry or control is
`{"row", "element", "line", "field", "msg"}` (`row` counts the entries from 1 in file
order, `line` is the XML source line).
"""

from __future__ import annotations

import re
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
MAX_NAME_PART = 100
MAX_CLUB = 100
MAX_ID = 64
MAX_CATEGORY = 64
MAX_CONTROL_CARD = 12
#: The class of everyone in a ResultList, and of participants without a category in an
#: EntryList (there with `Class/Id` "0", which reads back as "no category").
DEFAULT_CLASS = "Poker rogaine"
NO_CLASS_ID = "0"
PERSON = "person"
TEAM = "team"

_NSMAP = {None: IOF_NS}
_NS = {"i": IOF_NS}


class IofError(ValueError):
    """The file is not an IOF XML 3.0 document of the expected kind.

    `errors` lists what was wrong: entry problems `{"row", "element", "line", "field",
    "msg"}`, or for a whole-file refusal (`reason` given) one item `{"field": "file",
    "msg", "type": "iof_<reason>", "values"}`.
    """

    def __init__(
        self,
        message: str,
        errors: list[dict[str, object]] | None = None,
        *,
        reason: str | None = None,
        values: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.errors = errors or []
        if not self.errors and reason:
            self.errors = [
                {
                    "field": "file",
                    "msg": message,
                    "type": f"iof_{reason}",
                    "values": {key: str(value) for key, value in (values or {}).items()},
                }
            ]


def full_name(given: str | None, family: str | None) -> str:
    """A person's name as the service shows it: "Given Family" (either may be empty)."""
    return " ".join(part for part in (given, family) if part)


# --- encodings --------------------------------------------------------------------------

# (byte order mark, name shown, codec of what follows it); UTF-32 LE before UTF-16 LE
# (same first bytes).
_BOMS = (
    (b"\xef\xbb\xbf", "UTF-8", "utf-8"),
    (b"\xff\xfe\x00\x00", "UTF-32", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "UTF-32", "utf-32-be"),
    (b"\xff\xfe", "UTF-16", "utf-16-le"),
    (b"\xfe\xff", "UTF-16", "utf-16-be"),
)
_DECLARATION = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_TEXT_DECLARATION = re.compile(r"""^(\s*<\?xml[^>]*?encoding\s*=\s*)(["'])[^"']*\2""")
_UTF8_NAMES = {"utf-8", "utf8"}


def _encoding_refused(name: str, message: str) -> IofError:
    return IofError(message, reason="encoding", values={"encoding": name})


def decode_text(data: bytes) -> str:
    """The text of an uploaded XML file: UTF-8 (a byte order mark allowed, a declared
    encoding must then be UTF-8) or UTF-16 with a byte order mark.

    Raises IofError (`reason` "encoding", naming it) for UTF-32, UTF-16 without a byte
    order mark, a declared other encoding (windows-1251, ISO-8859-1, …) or bytes that
    contradict the byte order mark; `reason` "not_utf8" for undeclared bytes that are
    not UTF-8.
    """
    for bom, name, codec in _BOMS:
        if data.startswith(bom):
            if name == "UTF-32":
                raise _encoding_refused(name, "The file is UTF-32; save it as UTF-8 or UTF-16.")
            try:
                return data[len(bom) :].decode(codec)
            except UnicodeDecodeError as exc:
                raise _encoding_refused(
                    name, f"The file starts as {name} but is not {name} text (byte {exc.start})."
                ) from exc
    if data[:2] in (b"<\x00", b"\x00<"):
        raise _encoding_refused(
            "UTF-16 without BOM",
            "The file is UTF-16 without BOM (byte order mark); save it as UTF-8 or with one.",
        )
    declared = _DECLARATION.match(data[:200])
    if declared and declared.group(1).decode().lower() not in _UTF8_NAMES:
        name = declared.group(1).decode()
        raise _encoding_refused(name, f"The file is encoded in {name}; save it as UTF-8.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IofError(
            f"The file is not UTF-8 text (byte {exc.start} is not); save it as UTF-8.",
            reason="not_utf8",
            values={"byte": exc.start},
        ) from exc


def looks_like_xml(data: bytes) -> bool:
    """Whether uploaded bytes are XML rather than CSV: after a byte order mark (UTF-8,
    UTF-16, UTF-32) and white space the first character is `<` (no CSV header starts
    so); UTF-16 without a byte order mark counts too, so that it is refused as XML."""
    if data[:2] in (b"<\x00", b"\x00<"):
        return True
    for bom, _name, codec in _BOMS:
        if data.startswith(bom):
            head = data[len(bom) : len(bom) + 256]
            return head.decode(codec, errors="ignore").lstrip().startswith("<")
    return data.lstrip()[:1] == b"<"


def _utf8_document(text: str) -> bytes:
    """`text` as UTF-8 bytes whose XML declaration (if any) says UTF-8 (line numbers
    unchanged)."""
    return _TEXT_DECLARATION.sub(r'\1"UTF-8"', text, count=1).encode("utf-8")


# --- what goes out ---------------------------------------------------------------------


@dataclass(frozen=True)
class ControlPosition:
    """A CP as course-setting tools see it: its number (the IOF control id) and WGS84
    position in degrees (None when the organiser has not placed it yet)."""

    number: int
    lat: float | None
    lon: float | None


@dataclass(frozen=True)
class Competitor:
    """A participant as the IOF files carry it: a person (`given_name`/`family_name`
    when they came apart, else only `name`) or a team (`name`), with club, punching card
    (`control_card`, digits) and category when known."""

    external_id: str
    name: str
    kind: str = PERSON
    given_name: str | None = None
    family_name: str | None = None
    club: str | None = None
    control_card: str | None = None
    category: str | None = None

    def name_parts(self) -> tuple[str, str]:
        """(Given, Family) as written to a file: the parts as they came; a team's name, or
        a name that came in one piece, whole as Family (never split at a guess)."""
        if self.kind == PERSON and (self.given_name or self.family_name):
            return self.given_name or "", self.family_name or ""
        return "", self.name


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

    competitor: Competitor
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
    """The `Event` element: id, name and, when given, `StartTime`/`EndTime` as a date and
    a time of day in the moment's own offset (aware datetimes in the event's time zone:
    `Date` "2026-06-01", `Time` "10:00:00+03:00"; IOF's xsd:time takes the offset, a
    zone's name alone would drop it)."""
    event = _sub(parent, "Event")
    _sub(event, "Id", event_id, type=ID_TYPE)
    _sub(event, "Name", name)
    for tag, moment in (("StartTime", opens_at), ("EndTime", closes_at)):
        if moment is not None:  # the local date; the time with its offset ("10:00:00+03:00")
            date, _, time = moment.isoformat(timespec="seconds").partition("T")
            when = _sub(event, tag)
            _sub(when, "Date", date)
            _sub(when, "Time", time)


def _serialise(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _coordinate(value: float) -> str:
    return f"{value:.7f}".rstrip("0").rstrip(".")


def course_data(
    event_id: int,
    event_name: str,
    controls: Iterable[ControlPosition],
    created_at: datetime,
    course_name: str = DEFAULT_CLASS,
) -> bytes:
    """CourseData (IOF XML 3.0, UTF-8 bytes) of the event's CPs.

    Each CP is a `Control` whose `Id` is its number, with a `Position` when it has
    coordinates; one score course holds them all as `CourseControl type="Control"`
    with `randomOrder="true"` (visited in any order) and `Length` 0 (a score course has
    no set length; SportOrg needs the element). Cards and codes never appear.
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
        _sub(course, "Length", 0)
        for control in controls:
            course_control = _sub(course, "CourseControl", type="Control", randomOrder="true")
            _sub(course_control, "Control", control.number)
    return _serialise(root)


def _numbered(values: Iterable[str | None]) -> dict[str, int]:
    """1..N for the distinct non-empty `values` in sorted order (clubs, categories): the
    numeric ids MeOS and SportOrg need, stable for the same set of values."""
    return {value: index for index, value in enumerate(sorted({v for v in values if v}), 1)}


def _person(parent: etree._Element, competitor: Competitor, with_id: bool = False) -> None:
    person = _sub(parent, "Person")
    if with_id:
        _sub(person, "Id", competitor.external_id, type=ID_TYPE)
    given, family = competitor.name_parts()
    name = _sub(person, "Name")
    _sub(name, "Family", family)
    _sub(name, "Given", given)


def _organisation(parent: etree._Element, club: str | None, club_ids: dict[str, int]) -> None:
    if club:
        organisation = _sub(parent, "Organisation")
        _sub(organisation, "Id", club_ids[club])
        _sub(organisation, "Name", club)


def _class(parent: etree._Element, category: str | None, class_ids: dict[str, int]) -> None:
    element = _sub(parent, "Class")
    if category:
        _sub(element, "Id", class_ids[category])
        _sub(element, "Name", category)
    else:
        _sub(element, "Id", NO_CLASS_ID, type=ID_TYPE)
        _sub(element, "Name", DEFAULT_CLASS)


def _team_entry(root: etree._Element, team: Competitor, clubs: dict, classes: dict) -> None:
    entry = _sub(root, "TeamEntry")
    _sub(entry, "Id", team.external_id)
    _sub(entry, "Name", team.name)
    _organisation(entry, team.club, clubs)
    if team.control_card:  # the team's card, carried by a member named as the team
        member = _sub(entry, "TeamEntryPerson")
        _person(member, team)
        _sub(member, "ControlCard", team.control_card)
    _class(entry, team.category, classes)


def _person_entry(root: etree._Element, person: Competitor, clubs: dict, classes: dict) -> None:
    entry = _sub(root, "PersonEntry")
    _sub(entry, "Id", person.external_id)
    _person(entry, person)
    _organisation(entry, person.club, clubs)
    if person.control_card:
        _sub(entry, "ControlCard", person.control_card)
    _class(entry, person.category, classes)


def entry_list(
    event_id: int,
    event_name: str,
    opens_at: datetime,
    competitors: Iterable[Competitor],
    created_at: datetime,
) -> bytes:
    """EntryList (IOF XML 3.0, UTF-8 bytes) of the participants, read back by
    `parse_entry_list` as the same participants.

    Teams are `TeamEntry` (`Id` = external id, `Name`; a punching card rides on one
    `TeamEntryPerson` named as the team), persons `PersonEntry` (`Id`, `Person/Name`
    Given and Family as they came, else the whole name as Family); `Organisation` with
    a numeric `Id` when there is a club, `ControlCard`, and always a `Class` with a
    numeric `Id` (SportOrg needs one): the category, or `Id` "0" "Poker rogaine" for
    none. Schema order: the teams, then the persons, each in the given order.
    """
    competitors = list(competitors)
    clubs = _numbered(c.club for c in competitors)
    classes = _numbered(c.category for c in competitors)
    root = _root("EntryList", created_at)
    _event(root, event_id, event_name, opens_at)
    for team in (c for c in competitors if c.kind == TEAM):
        _team_entry(root, team, clubs, classes)
    for person in (c for c in competitors if c.kind != TEAM):
        _person_entry(root, person, clubs, classes)
    return _serialise(root)


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


def _person_result(
    class_result: etree._Element, standing: Standing, start: datetime, clubs: dict[str, int]
) -> None:
    competitor = standing.competitor
    person_result = _sub(class_result, "PersonResult")
    _person(person_result, competitor, with_id=True)
    _organisation(person_result, competitor.club, clubs)
    result = _sub(person_result, "Result")
    if competitor.external_id.isdigit():  # SportOrg reads the bib as a number
        _sub(result, "BibNumber", competitor.external_id)
    _sub(result, "StartTime", start.isoformat(timespec="seconds"))
    if standing.place is not None:
        _sub(result, "Position", standing.place)
    _sub(result, "Status", "OK" if standing.started else "DidNotStart")
    if competitor.control_card:
        _sub(result, "ControlCard", competitor.control_card)
    if standing.place is not None and standing.combination is not None:
        _combination_extension(result, standing.place, standing.combination)


def result_list(
    event_id: int,
    event_name: str,
    opens_at: datetime,
    closes_at: datetime,
    standings: Iterable[Standing],
    created_at: datetime,
    complete: bool,
    class_name: str = DEFAULT_CLASS,
) -> bytes:
    """ResultList (IOF XML 3.0, UTF-8 bytes) of the award ceremony.

    One class (`Id` 1) holds the whole event (the podium is event-wide): the place
    winners first with `Position` 1..N and their winning combination as an extension
    element `rp:Combination` (`rp` = `EXTENSION_NS`: `place`, `category`, `rp:Card`
    codes, `rp:Description`), then everyone else unplaced (`Status` OK without
    `Position`, or DidNotStart with no take at all), by external id. Each result has
    the course's opening as `StartTime` (a mass start; `opens_at` as given, with its
    offset), `BibNumber` when the external id is a number, the club and the punching
    card. A team is a `PersonResult` with its whole name as Family: SportOrg and
    ooresults read only person results. `complete` is False while auctions remain to
    be run (`status="Snapshot"`, else "Complete").
    """
    standings = sorted(
        standings,
        key=lambda s: (s.place is None, s.place or 0, s.competitor.external_id),
    )
    clubs = _numbered(s.competitor.club for s in standings)
    root = _root("ResultList", created_at, status="Complete" if complete else "Snapshot")
    _event(root, event_id, event_name, opens_at, closes_at)
    class_result = _sub(root, "ClassResult")
    element = _sub(class_result, "Class")
    _sub(element, "Id", 1, type=ID_TYPE)
    _sub(element, "Name", class_name)
    for standing in standings:
        _person_result(class_result, standing, opens_at, clubs)
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
    given_name: str | None = None
    family_name: str | None = None
    club: str | None = None
    control_card: str | None = None
    errors: list[dict[str, object]] = field(default_factory=list)


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
    "EntryList"), read from UTF-8 or UTF-16 bytes (`decode_text`). Raises IofError
    with a `reason`: "encoding"/"not_utf8", "dtd" (a DTD or entity declared),
    "not_xml" (not well-formed), "namespace" (the right element outside the IOF 3.0
    namespace: IOF 2.0, say), "wrong_document" (another document)."""
    text = decode_text(data)
    if "<!DOCTYPE" in text[:4096] or "<!ENTITY" in text:
        raise IofError("The XML must not declare a DTD or entities.", reason="dtd")
    try:
        root = etree.fromstring(_utf8_document(text), parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise IofError(
            f"The file is not well-formed XML: {exc.msg}.",
            reason="not_xml",
            values={"detail": exc.msg},
        ) from exc
    if root.tag == _q(expected):
        return root
    found = etree.QName(root).localname if isinstance(root.tag, str) else "?"
    if found == expected:
        raise IofError(
            f"Expected an IOF XML 3.0 {expected} (namespace {IOF_NS}), found {found!r} "
            "in another namespace (IOF XML 2.0?).",
            reason="namespace",
            values={"expected": expected},
        )
    raise IofError(
        f"Expected an IOF XML 3.0 {expected} (namespace {IOF_NS}), found {found!r}.",
        reason="wrong_document",
        values={"expected": expected, "found": found},
    )


def _text(element: etree._Element | None, path: str) -> str:
    if element is None:
        return ""
    found = element.find(path, namespaces=_NS)
    return " ".join((found.text or "").split()) if found is not None else ""


def _clean(value: str) -> str:
    """Text as a person reads it: control characters dropped, white space folded."""
    kept = "".join(ch for ch in value if ch == "\t" or (ch >= " " and ch != "\x7f"))
    return " ".join(kept.split())


def _category(element: etree._Element) -> str | None:
    """The entry's first class name; our own "no category" class (`Id` "0" named
    `DEFAULT_CLASS`) reads as None."""
    category = _clean(_text(element, "i:Class/i:Name")) or None
    if category == DEFAULT_CLASS and _text(element, "i:Class/i:Id") == NO_CLASS_ID:
        return None
    return category


def _read_entry(kind: str, row: int, element: etree._Element) -> Entry:
    entry = Entry(row=row, line=element.sourceline or 0, kind=kind, name="")
    if kind == "PersonEntry":
        person = element.find("i:Person", namespaces=_NS)
        entry.given_name = _clean(_text(person, "i:Name/i:Given")) or None
        entry.family_name = _clean(_text(person, "i:Name/i:Family")) or None
        entry.name = full_name(entry.given_name, entry.family_name)
        external_id = _text(element, "i:Id") or _text(person, "i:Id")
        card = _text(element, "i:ControlCard")
    else:
        entry.name = _clean(_text(element, "i:Name"))
        external_id = _text(element, "i:Id")
        card = _text(element, "i:TeamEntryPerson/i:ControlCard")
    entry.external_id = _clean(external_id) or None
    entry.category = _category(element)
    entry.club = _clean(_text(element, "i:Organisation/i:Name")) or None
    entry.control_card = _clean(card) or None
    return entry


def _check_entry(entry: Entry) -> None:
    """Collect the entry's problems in `entry.errors` (names, id, category, club, card)."""

    def error(field_name: str, msg: str) -> None:
        entry.errors.append(
            {
                "row": entry.row,
                "element": entry.kind,
                "line": entry.line,
                "field": field_name,
                "msg": msg,
            }
        )

    if not entry.name:
        error("name", "has no name (Person/Name/Given and Family, or the team's Name)")
    elif len(entry.name) > MAX_NAME:
        error("name", f"is longer than {MAX_NAME} characters")
    for field_name, value in (("given_name", entry.given_name), ("family_name", entry.family_name)):
        if value is not None and len(value) > MAX_NAME_PART:
            error(field_name, f"is longer than {MAX_NAME_PART} characters")
    if entry.external_id is not None and (
        len(entry.external_id) > MAX_ID or "/" in entry.external_id
    ):
        error("external_id", f"Id must be at most {MAX_ID} characters, without '/'")
    if entry.category is not None and len(entry.category) > MAX_CATEGORY:
        error("category", f"Class/Name is longer than {MAX_CATEGORY} characters")
    if entry.club is not None and len(entry.club) > MAX_CLUB:
        error("club", f"Organisation/Name is longer than {MAX_CLUB} characters")
    if entry.control_card is not None and not valid_control_card(entry.control_card):
        error("control_card", f"ControlCard must be 1 to {MAX_CONTROL_CARD} digits")


def valid_control_card(value: str) -> bool:
    """A punching card number (SPORTident, Emit, SFR…): 1 to `MAX_CONTROL_CARD` ASCII
    digits, as MeOS and SportOrg read it (a number)."""
    return value.isascii() and value.isdigit() and len(value) <= MAX_CONTROL_CARD


def parse_entry_list(data: bytes) -> tuple[list[Entry], list[dict[str, object]]]:
    """EntryList → (entries, errors) in file order, teams then persons as the schema
    orders them.

    A `PersonEntry` becomes a person named "Given Family" keeping both parts, with the
    entry's `Id` (else the person's first `Id`) as `external_id`; a `TeamEntry` a team
    named by its `Name` with the entry's `Id`. The first `Class/Name` is the category
    (our "no category" class reads as None), `Organisation/Name` the club, the
    `ControlCard` (a team's: its first member's) the punching card. An entry without
    an id gets a generated number later, as in the CSV import. Raises IofError for a
    file that is not an EntryList (see `parse_document`) or has no entries (`reason`
    "no_entries").
    """
    root = parse_document(data, "EntryList")
    entries: list[Entry] = []
    for element in root:
        if element.tag in (_q("PersonEntry"), _q("TeamEntry")):
            entry = _read_entry(etree.QName(element).localname, len(entries) + 1, element)
            _check_entry(entry)
            entries.append(entry)
    if not entries:
        raise IofError("The EntryList has no PersonEntry or TeamEntry.", reason="no_entries")
    errors = [error for entry in entries for error in entry.errors]
    return entries, errors


# CourseControl/Control types that are not visited controls, as the report names them.
SPECIAL_CONTROLS = {
    "Start": "start",
    "Finish": "finish",
    "CrossingPoint": "crossing_point",
    "EndOfMarkedRoute": "end_of_marked_route",
}
# Ids that name a start or finish by the convention of MeOS and ooresults ("S", "S1",
# "F", "F2"), used when neither the control nor a course says what it is.
_START_ID = re.compile(r"^S\d*$", re.IGNORECASE)
_FINISH_ID = re.compile(r"^F\d*$", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedControl:
    """A control read from a CourseData that may be a CP: its number, its `Control`
    element's index (`row`, 0 when only a course names it) and XML line, its WGS84
    position (None when the file has none), and whether it has a `MapPosition`."""

    row: int
    line: int
    control: ControlPosition
    map_position: bool = False


@dataclass(frozen=True)
class NotACp:
    """A control of the file that is no CP: its `Id`, XML line, `reason` ("start",
    "finish", "crossing_point", "end_of_marked_route", "not_a_number", "duplicate";
    the service adds "not_in_deck") and what said so (`by`: "type" of the control,
    "course" (a `CourseControl type`), "id" (MeOS's S/F names: a start or finish only),
    "number" (a number twice or not in the deck), "unmarked" (not_a_number: neither a
    type nor a course marks it, and its id is no number nor MeOS's S…/F…))."""

    identifier: str
    line: int
    reason: str
    by: str


@dataclass
class CourseDataReading:
    """What a CourseData holds for us: the controls that may be CPs, the others with
    why, and per-control `errors` (an invalid position)."""

    controls: list[ParsedControl] = field(default_factory=list)
    not_cps: list[NotACp] = field(default_factory=list)
    errors: list[dict[str, object]] = field(default_factory=list)


def _course_roles(race: etree._Element) -> tuple[dict[str, str], dict[str, int]]:
    """({control id: special role} from the courses' `CourseControl type`, {id: XML
    line} of every control the courses name)."""
    roles: dict[str, str] = {}
    named: dict[str, int] = {}
    for course_control in race.iterfind("i:Course/i:CourseControl", namespaces=_NS):
        role = SPECIAL_CONTROLS.get(course_control.get("type", "Control"))
        for control in course_control.iterfind("i:Control", namespaces=_NS):
            identifier = " ".join((control.text or "").split())
            named.setdefault(identifier, control.sourceline or 0)
            if role:
                roles.setdefault(identifier, role)
    return roles, named


def _position(element: etree._Element) -> tuple[float | None, float | None]:
    """(lat, lon) of a control's `Position`, (None, None) without one; ValueError when
    it is not lat in -90..90 and lng in -180..180."""
    position = element.find("i:Position", namespaces=_NS)
    if position is None:
        return None, None
    lat, lon = float(position.get("lat", "")), float(position.get("lng", ""))
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise ValueError
    return lat, lon


def _classify(identifier: str, control_type: str, roles: dict[str, str]) -> NotACp | int:
    """The CP number of a control id, or why it is not a CP (without its line)."""
    if control_type in SPECIAL_CONTROLS:
        return NotACp(identifier, 0, SPECIAL_CONTROLS[control_type], "type")
    if identifier in roles:
        return NotACp(identifier, 0, roles[identifier], "course")
    if identifier.isascii() and identifier.isdigit() and int(identifier) >= 1:
        return int(identifier)
    if _START_ID.match(identifier):
        return NotACp(identifier, 0, "start", "id")
    if _FINISH_ID.match(identifier):
        return NotACp(identifier, 0, "finish", "id")
    return NotACp(identifier, 0, "not_a_number", "unmarked")


def _read_control(
    reading: CourseDataReading, row: int, element: etree._Element, roles: dict[str, str]
) -> None:
    line = element.sourceline or 0
    identifier = _text(element, "i:Id")
    kind = _classify(identifier, element.get("type", "Control"), roles)
    if isinstance(kind, NotACp):
        reading.not_cps.append(NotACp(identifier, line, kind.reason, kind.by))
        return
    if any(parsed.control.number == kind for parsed in reading.controls):
        reading.not_cps.append(NotACp(identifier, line, "duplicate", "number"))
        return
    try:
        lat, lon = _position(element)
    except ValueError:
        reading.errors.append(
            {
                "row": row,
                "element": "Control",
                "line": line,
                "field": "lat",
                "msg": "Position needs lat in -90..90 and lng in -180..180",
            }
        )
        return
    map_position = element.find("i:MapPosition", namespaces=_NS) is not None
    control = ControlPosition(kind, lat, lon)
    reading.controls.append(ParsedControl(row, line, control, map_position))


def parse_course_data(data: bytes) -> CourseDataReading:
    """CourseData → the controls of its first RaceCourseData that may be CPs (an `Id`
    that is a whole number ≥ 1), with their `Position` (lat/lng) if any, and the others
    with why they are not CPs.

    A start, finish, crossing point or end of marked route is recognised as the IOF
    standard marks it: by the control's `type`, or by a course's `CourseControl
    type="Start"/"Finish"/…` naming its id (the IOF's own examples, Purple Pen,
    ooresults); failing both, ids "S…"/"F…" are a start/finish as MeOS names them.
    A number that a course names but no `Control` element defines is a CP without a
    position (ooresults writes courses only). The same number twice: the second is
    "duplicate". Raises IofError for a file that is not a CourseData or has no
    RaceCourseData (`reason` "no_race").
    """
    root = parse_document(data, "CourseData")
    race = root.find("i:RaceCourseData", namespaces=_NS)
    if race is None:
        raise IofError("The CourseData has no RaceCourseData.", reason="no_race")
    roles, named = _course_roles(race)
    reading = CourseDataReading()
    defined: set[str] = set()
    for row, element in enumerate(race.iterfind("i:Control", namespaces=_NS), start=1):
        defined.add(_text(element, "i:Id"))
        _read_control(reading, row, element, roles)
    for identifier, line in named.items():
        if identifier in defined:
            continue
        kind = _classify(identifier, "Control", roles)
        if isinstance(kind, NotACp):
            reading.not_cps.append(NotACp(identifier, line, kind.reason, kind.by))
        elif all(parsed.control.number != kind for parsed in reading.controls):
            reading.controls.append(ParsedControl(0, line, ControlPosition(kind, None, None)))
    return reading
