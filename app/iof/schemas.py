"""Response bodies of the IOF exchange (the report of a CourseData import)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

NotCpReason = Literal[
    "start",
    "finish",
    "crossing_point",
    "end_of_marked_route",
    "not_a_number",
    "duplicate",
    "not_in_deck",
]


class PlacedCp(BaseModel):
    """A CP the file placed: its number and new WGS84 position (degrees)."""

    number: int
    lat: float
    lon: float


class CpWithoutPositionInFile(BaseModel):
    """A CP the file names without a `Position` (lat/lng): it stays where it was.
    `map_position` is true when the file has only a position on the printed map."""

    number: int
    line: int
    map_position: bool


class NotACpRead(BaseModel):
    """A control of the file that is not a CP of the deck, and why: `reason`, and `by`
    what the file said so ("type" of the control, "course" = a `CourseControl type`,
    "id" = a start/finish id as MeOS names them, "number" = a number not in the deck
    or given twice, "unmarked" = for `not_a_number` only: neither a type nor a course
    marks the control, and its id is neither a number nor MeOS's S…/F…)."""

    id: str
    line: int
    reason: NotCpReason
    by: Literal["type", "course", "id", "number", "unmarked"]


class CourseDataReport(BaseModel):
    """What a CourseData import did: `placed` CPs (moved to the file's positions),
    `no_position` CPs the file names without coordinates (unchanged), `not_cps` the
    file's controls that are no CP and why, `not_in_file` the deck's CPs the file does
    not name, and `without_position` the deck's CPs that have no position now."""

    placed: list[PlacedCp]
    no_position: list[CpWithoutPositionInFile]
    not_cps: list[NotACpRead]
    not_in_file: list[int]
    without_position: list[int]
