"""The one place where CSV files are decoded, read and written (imports and exports).

- **Decoding**: UTF-8 (a BOM is allowed) or UTF-16 with its BOM, else 422
  `csv_not_utf8`.
- **Reading**: `,` or `;` separated (`;` when the header has `;` and no `,`), rows
  numbered as a spreadsheet shows them (the header is row 1). A file the `csv`
  module cannot parse (a bare CR inside an unquoted field, …) is 422 `csv_invalid`
  with `errors: [{"row", "field", "msg"}]`; more than `max_rows` data rows is 422
  `csv_too_large`.
- **Formula injection** (OWASP "CSV Injection"): a text cell that a spreadsheet
  would run as a formula, one beginning with `=`, `+`, `-`, `@`, tab or CR, is
  written with a leading `'`. Numbers (`int`, `float` cells) are written as they
  are, so `-12.5` stays a number. So that every text survives the round trip, a
  text of quotes followed by such a character gets one more quote, and reading
  removes one quote from a cell of that form: importing our own export restores
  the original text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from app.core.errors import Unprocessable

MAX_CSV_BYTES = 2_000_000
"""The largest CSV (or IOF XML) upload read, in bytes: above it 413 `payload_too_large`."""

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def decode(data: bytes) -> str:
    """The text of an uploaded CSV file (UTF-8, optional BOM; UTF-16 with its BOM, as
    spreadsheets save "Unicode text"); 422 `csv_not_utf8`."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) and not data.startswith(b"\xff\xfe\x00\x00"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise Unprocessable(
                f"The CSV starts as UTF-16 but is not UTF-16 text (byte {exc.start}).",
                code="csv_not_utf8",
            ) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unprocessable(
            f"The CSV must be UTF-8 text (byte {exc.start} is not).", code="csv_not_utf8"
        ) from exc


def _looks_like_formula(text: str) -> bool:
    return text.lstrip("'").startswith(FORMULA_TRIGGERS)


def neutralise(text: str) -> str:
    """`text` as a CSV cell no spreadsheet runs as a formula: `'` + text when it begins
    with `=`, `+`, `-`, `@`, tab or CR (after any leading quotes); else unchanged."""
    return "'" + text if _looks_like_formula(text) else text


def restore(cell: str) -> str:
    """The text `neutralise` was given: one leading `'` less on a neutralised cell."""
    if cell.startswith("'") and _looks_like_formula(cell[1:]):
        return cell[1:]
    return cell


class Number(str):
    """A number already formatted as text (e.g. a coordinate with 6 decimals): written as
    it is, never neutralised."""


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, str) and not isinstance(value, Number):
        return neutralise(value)
    return value


def write(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV text (`,`, `\\n` line ends): `header`, then `rows`. Text cells are neutralised
    (`neutralise`); numbers (`int`, `float`, `Number`) are written as they are; None is
    empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return out.getvalue()


def read(text: str, *, max_rows: int) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """(header lower-cased and stripped, [(row number, cells)]) of the non-blank rows.

    Cells are stripped and `restore`d. Raises Unprocessable `csv_invalid` (a row the
    CSV reader cannot parse, with its row number) and `csv_too_large` (more than
    `max_rows` data rows).
    """
    text = text.lstrip("\ufeff")
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if ";" in first_line and "," not in first_line else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    try:
        for values in reader:
            if header is None:
                header = [value.strip().lower() for value in values]
                continue
            cells = [restore(value.strip()) for value in values]
            if not any(cells):
                continue
            if len(rows) >= max_rows:
                raise Unprocessable(
                    f"At most {max_rows} rows per file.", code="csv_too_large", max_rows=max_rows
                )
            rows.append((reader.line_num, cells))
    except csv.Error as exc:
        row = reader.line_num or 1
        raise Unprocessable(
            f"The CSV cannot be read at row {row}: {exc}.",
            code="csv_invalid",
            errors=[{"row": row, "field": "", "msg": _reader_message(exc)}],
        ) from exc
    return header or [], rows


def _reader_message(exc: csv.Error) -> str:
    message = str(exc)
    if "new-line character" in message:
        return "a line break inside an unquoted field (quote the field, or remove the CR)"
    return message
