"""File formats of event setup: CSV import/export of CPs and participants, GPX.

Pure functions (no database). CSV rows are numbered as a spreadsheet shows them:
the header is row 1, the first data row is row 2. Parsing never stops at the
first bad row: every error is collected as `{"row", "field", "msg"}`.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable
from dataclasses import dataclass
from xml.etree import ElementTree as ET

CHECKPOINT_COLUMNS = ("number", "card", "lat", "lon", "hint")
PUBLIC_CHECKPOINT_COLUMNS = ("number", "lat", "lon", "hint")
PARTICIPANT_COLUMNS = ("name", "external_id", "category")


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
    name: str
    external_id: str | None = None
    category: str | None = None


def csv_error(row: int, field: str, msg: str) -> dict[str, object]:
    return {"row": row, "field": field, "msg": msg}


def _read(text: str) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header (lower-cased) and (row number, {column: value}) for non-blank rows.

    The delimiter is `,` unless the header has `;` and no `,` (spreadsheet exports).
    """
    text = text.lstrip("\ufeff")
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if ";" in first_line and "," not in first_line else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] = []
    rows: list[tuple[int, dict[str, str]]] = []
    for values in reader:
        if not header:
            header = [value.strip().lower() for value in values]
            continue
        if not any(value.strip() for value in values):
            continue
        row = {
            column: (values[i].strip() if i < len(values) else "")
            for i, column in enumerate(header)
        }
        rows.append((reader.line_num, row))
    return header, rows


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
    header, rows = _read(text)
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
            if number < 1:
                raise ValueError
        except ValueError:
            row_errors.append(csv_error(line, "number", "must be a positive whole number"))
        if not row["card"]:
            row_errors.append(csv_error(line, "card", "is required"))
        coordinates: dict[str, float | None] = {}
        for field, low, high in (("lat", -90.0, 90.0), ("lon", -180.0, 180.0)):
            try:
                coordinates[field] = _float(row.get(field, ""), low, high)
            except ValueError as exc:
                message = str(exc) if "must" in str(exc) else "must be a number"
                row_errors.append(csv_error(line, field, message))
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
                        hint=row.get("hint", ""),
                    ),
                )
            )
    return result, errors


def parse_participants_csv(
    text: str,
) -> tuple[list[tuple[int, ParticipantRow]], list[dict[str, object]]]:
    """CSV `name, external_id, category` → ([(row number, ParticipantRow)], errors).

    `name` is required; `external_id` and `category` may be empty (or absent columns).
    """
    header, rows = _read(text)
    if "name" not in header:
        return [], [csv_error(1, "name", "the header has no column 'name'")]
    if not rows:
        return [], [csv_error(2, "name", "the file has no participant rows")]
    result: list[tuple[int, ParticipantRow]] = []
    errors: list[dict[str, object]] = []
    for line, row in rows:
        row_errors = []
        name = row["name"]
        external_id = row.get("external_id") or None
        category = row.get("category") or None
        if not name:
            row_errors.append(csv_error(line, "name", "is required"))
        elif len(name) > 200:
            row_errors.append(csv_error(line, "name", "is longer than 200 characters"))
        if external_id is not None and (len(external_id) > 64 or "/" in external_id):
            row_errors.append(
                csv_error(line, "external_id", "must be at most 64 characters, without '/'")
            )
        if category is not None and len(category) > 64:
            row_errors.append(csv_error(line, "category", "is longer than 64 characters"))
        errors.extend(row_errors)
        if not row_errors:
            result.append((line, ParticipantRow(name, external_id, category)))
    return result, errors


def _format_coordinate(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}".rstrip("0").rstrip(".")


def checkpoints_csv(rows: Iterable[dict[str, object]], columns: Iterable[str]) -> str:
    """CSV text with `columns` (coordinates with up to 6 decimals), header first."""
    columns = list(columns)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        values = []
        for column in columns:
            value = row[column]
            if column in ("lat", "lon"):
                value = _format_coordinate(value)  # type: ignore[arg-type]
            values.append("" if value is None else value)
        writer.writerow(values)
    return out.getvalue()


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
