"""File formats of event setup: CSV import/export of CPs and participants, GPX.

Pure functions (no database). CSV rows are numbered as a spreadsheet shows them:
the header is row 1, the first data row is row 2. Parsing never stops at the
first bad row: every error is collected as `{"row", "field", "msg"}`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from pydantic import TypeAdapter, ValidationError

from app.core import csvfiles
from app.core.types import ControlCard, ExternalId, Hint, Name, NamePart, ShortText
from app.events.rules import PARTICIPANT_KINDS, participant_name

CHECKPOINT_COLUMNS = ("number", "card", "lat", "lon", "hint")
PUBLIC_CHECKPOINT_COLUMNS = ("number", "lat", "lon", "hint")
PARTICIPANT_COLUMNS = (
    "name",
    "external_id",
    "category",
    "kind",
    "given_name",
    "family_name",
    "club",
    "control_card",
)
MAX_CHECKPOINT_ROWS = 1000
MAX_CHECKPOINT_NUMBER = 9999
MAX_PARTICIPANT_ROWS = 10000


@dataclass
class DeckRow:
    """One CP as given (JSON item or CSV row), before deck-level checks."""

    number: int
    card: str
    lat: float | None = None
    lon: float | None = None
    hint: str = ""
    code: str | None = None
    discard_code: str | None = None


@dataclass
class ParticipantRow:
    """A participant as given (JSON, form, CSV row or IOF entry), checked field by field:
    `name` is the name shown ("Given Family" for a person given in parts)."""

    name: str
    external_id: str | None = None
    category: str | None = None
    kind: str = "person"
    given_name: str | None = None
    family_name: str | None = None
    club: str | None = None
    control_card: str | None = None


def csv_error(row: int, field: str, msg: str) -> dict[str, object]:
    return {"row": row, "field": field, "msg": msg}


NAME = TypeAdapter(Name)
EXTERNAL_ID = TypeAdapter(ExternalId)
CATEGORY = TypeAdapter(ShortText)
HINT = TypeAdapter(Hint)
NAME_PART = TypeAdapter(NamePart)
CONTROL_CARD = TypeAdapter(ControlCard)


def _valid(
    adapter: TypeAdapter[str], line: int, field: str, value: str, errors: list[dict[str, object]]
) -> str:
    """`value` validated by `adapter` (a type of `app.core.types`); on failure an error
    of `field` is added to `errors` and `value` is returned as it is."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        errors.append(csv_error(line, field, exc.errors()[0]["msg"]))
        return value


def _read(text: str, max_rows: int) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header (lower-cased) and (row number, {column: value}) for non-blank rows, read by
    `app.core.csvfiles.read` (422 `csv_invalid` for an unreadable row, `csv_too_large`)."""
    header, rows = csvfiles.read(text, max_rows=max_rows)
    return header, [
        (line, {column: (values[i] if i < len(values) else "") for i, column in enumerate(header)})
        for line, values in rows
    ]


def _float(value: str, low: float, high: float) -> float | None:
    if value == "":
        return None
    number = float(value.replace(",", "."))  # decimal comma of `;`-separated exports
    if not math.isfinite(number) or not low <= number <= high:
        raise ValueError(f"must be a number from {low:g} to {high:g}")
    return number


def parse_checkpoints_csv(text: str) -> tuple[list[tuple[int, DeckRow]], list[dict[str, object]]]:
    """CSV `number, card, lat, lon, hint` → ([(row number, DeckRow)], errors).

    Checks the header and each field's format (number a positive integer, lat in
    −90…90, lon in −180…180, empty coordinates allowed). Cards and duplicates are
    checked with the deck (service). A row with an error is left out of the result.
    """
    header, rows = _read(text, MAX_CHECKPOINT_ROWS)
    errors: list[dict[str, object]] = []
    missing = [column for column in ("number", "card") if column not in header]
    for column in missing:
        errors.append(csv_error(1, column, f"the header has no column '{column}'"))
    if missing:
        return [], errors
    if not rows:
        return [], [csv_error(2, "number", "the file has no checkpoint rows")]
    result: list[tuple[int, DeckRow]] = []
    for line, row in rows:
        row_errors: list[dict[str, object]] = []
        number = 0
        try:
            number = int(row["number"])
            if not 1 <= number <= MAX_CHECKPOINT_NUMBER:
                raise ValueError
        except ValueError:
            row_errors.append(
                csv_error(
                    line, "number", f"must be a whole number from 1 to {MAX_CHECKPOINT_NUMBER}"
                )
            )
        if not row["card"]:
            row_errors.append(csv_error(line, "card", "is required"))
        coordinates: dict[str, float | None] = {}
        for field, low, high in (("lat", -90.0, 90.0), ("lon", -180.0, 180.0)):
            try:
                coordinates[field] = _float(row.get(field, ""), low, high)
            except ValueError as exc:
                message = str(exc) if "must" in str(exc) else "must be a number"
                row_errors.append(csv_error(line, field, message))
        hint = _valid(HINT, line, "hint", row.get("hint", ""), row_errors)
        if (coordinates.get("lat") is None) != (coordinates.get("lon") is None) and not row_errors:
            row_errors.append(csv_error(line, "lon", "lat and lon must be given together"))
        errors.extend(row_errors)
        if not row_errors:
            result.append(
                (
                    line,
                    DeckRow(
                        number=number,
                        card=row["card"],
                        lat=coordinates["lat"],
                        lon=coordinates["lon"],
                        hint=hint,
                    ),
                )
            )
    return result, errors


def _participant_cells(
    line: int, row: dict[str, str], errors: list[dict[str, object]]
) -> dict[str, str | None]:
    """The optional cells of a participant row, each checked by the API's type (empty:
    None); `kind` is "person" (also empty) or "team"."""
    adapters = (
        ("external_id", EXTERNAL_ID),
        ("category", CATEGORY),
        ("given_name", NAME_PART),
        ("family_name", NAME_PART),
        ("club", NAME_PART),
        ("control_card", CONTROL_CARD),
    )
    cells: dict[str, str | None] = {}
    for column, adapter in adapters:
        value = row.get(column) or None
        cells[column] = _valid(adapter, line, column, value, errors) or None if value else None
    kind = (row.get("kind") or "person").lower()
    if kind not in PARTICIPANT_KINDS:
        errors.append(csv_error(line, "kind", "must be 'person' or 'team' (empty: person)"))
    cells["kind"] = kind
    return cells


def _participant_row(line: int, row: dict[str, str]) -> tuple[ParticipantRow | None, list]:
    errors: list[dict[str, object]] = []
    name = _valid(NAME, line, "name", row["name"], errors) if row.get("name") else None
    cells = _participant_cells(line, row, errors)
    if errors:
        return None, errors
    try:
        shown = participant_name(
            name, cells["kind"] or "", cells["given_name"], cells["family_name"]
        )
    except ValueError as exc:
        return None, [csv_error(line, "name", "is required" if not name else str(exc))]
    return ParticipantRow(shown, **cells), []  # type: ignore[arg-type]


def parse_participants_csv(
    text: str,
) -> tuple[list[tuple[int, ParticipantRow]], list[dict[str, object]]]:
    """CSV → ([(row number, ParticipantRow)], errors); columns (`PARTICIPANT_COLUMNS`)
    `name, external_id, category, kind, given_name, family_name, club, control_card`.

    `name` is required unless `given_name`/`family_name` are given (then it is "Given
    Family", `rules.participant_name`); the others may be empty or absent columns;
    `kind` is person (default) or team. Each field is checked by the type of the JSON
    API (`app.core.types`: no NUL, control characters removed, lengths, the punching
    card digits only). 422 `csv_invalid` / `csv_too_large` (`MAX_PARTICIPANT_ROWS`) for
    a file that cannot be read.
    """
    header, rows = _read(text, MAX_PARTICIPANT_ROWS)
    if not {"name", "given_name", "family_name"} & set(header):
        return [], [csv_error(1, "name", "the header has no column 'name'")]
    if not rows:
        return [], [csv_error(2, "name", "the file has no participant rows")]
    result: list[tuple[int, ParticipantRow]] = []
    errors: list[dict[str, object]] = []
    for line, row in rows:
        parsed, row_errors = _participant_row(line, row)
        errors.extend(row_errors)
        if parsed is not None:
            result.append((line, parsed))
    return result, errors


def _format_coordinate(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}".rstrip("0").rstrip(".")


def checkpoints_csv(rows: Iterable[dict[str, object]], columns: Iterable[str]) -> str:
    """CSV text with `columns` (coordinates with up to 6 decimals), header first; text
    cells neutralised against formula injection (`app.core.csvfiles.write`)."""
    columns = list(columns)

    def cell(column: str, value: object) -> object:
        if column in ("lat", "lon"):
            return csvfiles.Number(_format_coordinate(value))  # type: ignore[arg-type]
        return value

    return csvfiles.write(
        columns, ([cell(column, row[column]) for column in columns] for row in rows)
    )


def checkpoints_gpx(event_name: str, rows: Iterable[dict[str, object]]) -> str:
    """GPX 1.1 with one waypoint per CP that has coordinates: name = CP number, desc = hint."""
    gpx = ET.Element(
        "gpx",
        {
            "version": "1.1",
            "creator": "Rogaine Poker",
            "xmlns": "http://www.topografix.com/GPX/1/1",
        },
    )
    metadata = ET.SubElement(gpx, "metadata")
    ET.SubElement(metadata, "name").text = event_name
    for row in rows:
        if row["lat"] is None or row["lon"] is None:
            continue
        waypoint = ET.SubElement(
            gpx,
            "wpt",
            {"lat": _format_coordinate(row["lat"]), "lon": _format_coordinate(row["lon"])},  # type: ignore[arg-type]
        )
        ET.SubElement(waypoint, "name").text = str(row["number"])
        if row["hint"]:
            ET.SubElement(waypoint, "desc").text = str(row["hint"])
        ET.SubElement(waypoint, "sym").text = "Flag"
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(gpx, encoding="unicode") + "\n"
