"""CSV exports of field apps as feed items (`POST /api/v1/events/{id}/takes/csv`)."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from app.core import csvfiles
from app.core.errors import Unprocessable
from app.events.codes import normalize_code

CSV_COLUMNS = ("participant", "code", "taken_at")
MAX_CSV_ROWS = 20000


def csv_items(text: str, *, source: str) -> list[tuple[int, dict[str, Any]]]:
    """Rows of a CSV export as feed items: (row number, item). Row 1 is the header.

    Columns `participant, code, taken_at` (required), `source_id` and `source`
    (optional). Without `source_id` one is derived from the participant, the
    normalised code and the UTC time, so importing the same file twice stores
    nothing new. 422 `csv_missing_columns`, `csv_too_large`, `csv_invalid` (a row the
    CSV reader cannot parse: `app.core.csvfiles.read`).
    """
    header, rows = csvfiles.read(text, max_rows=MAX_CSV_ROWS)
    missing = [column for column in CSV_COLUMNS if column not in header]
    if missing:
        raise Unprocessable(
            f"The CSV file lacks the column(s) {', '.join(missing)} "
            f"(needs {', '.join(CSV_COLUMNS)}).",
            code="csv_missing_columns",
        )
    items = []
    for line, cells in rows:
        values = dict(zip(header, cells, strict=False))
        item: dict[str, Any] = {
            "participant": values.get("participant", ""),
            "code": values.get("code", ""),
            "taken_at": values.get("taken_at", ""),
            "source": values.get("source") or source,
            "source_id": values.get("source_id") or _derived_source_id(values),
        }
        items.append((line, item))
    return items


def _derived_source_id(values: dict[str, str]) -> str:
    """A source id from the participant, the normalised code and the instant (`csv_items`)."""
    taken_at = values.get("taken_at", "")
    try:
        parsed = datetime.fromisoformat(taken_at)
        if parsed.tzinfo is not None:  # the same instant, whatever the offset it is written in
            taken_at = repr(parsed.timestamp())
    except ValueError:
        pass
    key = "|".join(
        (values.get("participant", ""), normalize_code(values.get("code", "")), taken_at)
    )
    return "csv-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]
