"""Validated input types shared by every schema, path and form of the service.

Whatever a client sends must either fit the database columns and the standard
library or be refused with 422 before it reaches them (issue 14):

- **Text a person reads** (names, hints, categories, notes, key names): NUL and
  lone surrogates are refused; other control characters except tab are removed
  (a line break becomes a space); leading and trailing white space is trimmed;
  the length is checked after that (`Name`, `ShortText`, `LongText`, …).
- **Machine strings** (codes, external ids, sources, source ids): NUL and lone
  surrogates are refused; nothing else is changed (`Code`, `Identifier`).
- **Timestamps**: an ISO 8601 time with an offset, converted to UTC, within
  `MIN_TIME`…`MAX_TIME` (`UTCTime`), so the value, its local time and day
  arithmetic around it never leave Python's or the database's range.
- **Integers used in queries**: within PostgreSQL's `integer` (int4) range
  (`PathId` for path parameters, `DbInt` in bodies, `FormId` in forms).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Path, Query
from pydantic import AfterValidator, AwareDatetime, Field, StringConstraints

INT4_MAX = 2_147_483_647
"""The largest value of an `integer` column on PostgreSQL (SQLite's is 2**63 - 1)."""

MIN_TIME = datetime(1900, 1, 1, tzinfo=UTC)
MAX_TIME = datetime(3000, 1, 1, tzinfo=UTC)
"""Accepted timestamps: `MIN_TIME <= t < MAX_TIME` (UTC)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 control characters and DEL, except tab; line breaks are handled apart.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


def refuse_unstorable(value: str) -> str:
    """`value` unchanged, or ValueError if it holds NUL (U+0000) or a lone surrogate,
    which neither PostgreSQL nor UTF-8 can store."""
    if "\x00" in value:
        raise ValueError("must not contain the NUL character (U+0000)")
    if _SURROGATE.search(value):
        raise ValueError("must be valid Unicode (no lone surrogate)")
    return value


def clean_text(value: str) -> str:
    """Text for people: unstorable characters refused (`refuse_unstorable`), line breaks
    made spaces, other control characters except tab removed, ends trimmed."""
    value = refuse_unstorable(value)
    value = _CONTROL.sub("", _LINE_BREAK.sub(" ", value))
    return value.strip()


def _external_id(value: str) -> str:
    if "/" in value:
        raise ValueError("must not contain '/'")
    return value


def to_utc(value: datetime) -> datetime:
    """`value` (aware) in UTC; ValueError if out of range (`MIN_TIME`…`MAX_TIME`) or if
    it cannot be converted (a time that would leave years 1…9999 in UTC)."""
    try:
        value = value.astimezone(UTC)
    except OverflowError:
        raise ValueError("is out of range once converted to UTC") from None
    if not MIN_TIME <= value < MAX_TIME:
        raise ValueError(f"must be from {MIN_TIME:%Y-%m-%d} to before {MAX_TIME:%Y-%m-%d} (UTC)")
    return value


def _text_type(min_length: int, max_length: int) -> StringConstraints:
    return StringConstraints(min_length=min_length, max_length=max_length)


_CLEAN = AfterValidator(clean_text)
_STORABLE = AfterValidator(refuse_unstorable)
_FOLD = AfterValidator(lambda value: " ".join(value.split()))  # inner runs of spaces: one

# Text a person reads (cleaned, then the length checked).
Name = Annotated[str, _CLEAN, _text_type(1, 200)]  # event and participant names
PlayerName = Annotated[str, _CLEAN, _text_type(1, 60)]  # a seat's name in the games
ShortText = Annotated[str, _CLEAN, _text_type(0, 64)]  # a participant's category
NamePart = Annotated[str, _CLEAN, _FOLD, _text_type(0, 100)]  # given/family name, club
KeyName = Annotated[str, _CLEAN, _text_type(1, 120)]  # an integration key's name
Hint = Annotated[str, _CLEAN, _text_type(0, 2000)]  # a CP's public hint
Note = Annotated[str, _CLEAN, _text_type(0, 1000)]  # a correction's note
Reason = Annotated[str, _CLEAN, _text_type(1, 1000)]  # a void's reason

# Machine strings (refused if unstorable, otherwise as sent).
Code = Annotated[str, _STORABLE, _text_type(1, 512)]  # a code as scanned or typed, or a QR URL
DeckCode = Annotated[str, _STORABLE, _text_type(0, 200)]  # a code given with a deck
Source = Annotated[str, _STORABLE, _text_type(1, 64)]  # the device or system of a take
SourceId = Annotated[str, _STORABLE, _text_type(1, 128)]  # a take's id within its source
ExternalIdRef = Annotated[str, _STORABLE, _text_type(1, 64)]  # a participant's external id

ExternalId = Annotated[str, _CLEAN, _text_type(1, 64), AfterValidator(_external_id)]
"""A participant's external id (bib number) as given to a new participant: cleaned, no '/'."""


def _control_card(value: str) -> str:
    if not (value.isascii() and value.isdigit()):
        raise ValueError("must be the punching card's number (digits only)")
    return value


ControlCard = Annotated[str, _CLEAN, _text_type(1, 12), AfterValidator(_control_card)]
"""A punching card's number (SPORTident, Emit, SFR…): 1 to 12 digits, as MeOS and
SportOrg read it."""

UTCTime = Annotated[AwareDatetime, AfterValidator(to_utc)]
"""An ISO 8601 time with an offset, as an aware UTC datetime within MIN_TIME…MAX_TIME."""

PathId = Annotated[int, Path(ge=1, le=INT4_MAX)]
PageNumber = Annotated[int, Query(ge=1, le=100_000, description="page, 1 = the first")]
"""`?page=N` of a paged page (1-based)."""
"""An integer path parameter (ids, CP numbers, auction places): 1…INT4_MAX, else 422."""

DbInt = Annotated[int, Field(ge=1, le=INT4_MAX)]
"""An id in a request body (e.g. a combination id): 1…INT4_MAX."""

FormId = Annotated[int, Field(ge=1, le=INT4_MAX)]
"""An id in a page's form (`Annotated[FormId, Form()]`): 1…INT4_MAX."""
