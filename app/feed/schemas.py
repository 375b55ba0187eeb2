"""Request and response bodies of the field feed (API.md: feed, scan, state)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from app.core.types import Code, ExternalIdRef, KeyName, Note, Reason, Source, SourceId, UTCTime

MAX_BATCH = 1000


def _text(value: Any) -> Any:
    """External ids and source ids may arrive as numbers; they are text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class TakeCreate(BaseModel):
    """One take of the feed. `taken_at` must carry a UTC offset (a naive time is refused)
    and lie in `app.core.types.MIN_TIME`…`MAX_TIME` once in UTC; no text may hold NUL."""

    participant: ExternalIdRef = Field(description="external_id")
    code: Code = Field(description="the code as scanned or typed")
    taken_at: UTCTime
    source: Source = Field(description="the device or system")
    source_id: SourceId = Field(description="unique within the source")

    _coerce = field_validator("participant", "source_id", mode="before")(_text)


class TakesBatchCreate(BaseModel):
    """`{"takes": [...], "sent_at"?}`, at most 1000 items. Items are validated one by one,
    so a bad item gets an error result and never rejects the others."""

    takes: list[Any] = Field(max_length=MAX_BATCH)
    sent_at: UTCTime | None = Field(
        default=None,
        description="The device's clock when it sent the batch. When it differs from the "
        "server clock by more than FEED_CLOCK_TOLERANCE_SECONDS, the takes' times are "
        "corrected by that offset (`device_taken_at` and `clock_offset_seconds` keep it).",
    )


class ItemError(BaseModel):
    """The error of one batch item: an RFC 9457 problem object (as the problem
    responses, `app.core.problems.problem_body`) plus `fields` (the invalid fields)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    fields: list[dict[str, Any]] = []


class TakeResult(BaseModel):
    """The result of one delivered take (API.md), in input order.

    `status`: `accepted` (stored now), `duplicate_delivery` (this source and
    source id were stored before: nothing new is stored and the original take's
    current outcome is returned) or `error` (the item was not stored; see `error`).
    """

    source_id: str | None
    status: Literal["accepted", "duplicate_delivery", "error"]
    take_id: int | None = None
    kind: Literal["card", "discard", "save", "unknown"] | None = None
    outcome: Literal["counted", "rejected"] | None = None
    reason: str | None = None
    card: str | None = None
    card_display: str | None = None
    discard_code: str | None = None
    row: int | None = None
    error: ItemError | None = None


class TakesBatchRead(BaseModel):
    results: list[TakeResult]


class ScanCreate(BaseModel):
    """A phone scan. `source_id` lets a phone retry safely; generated when absent."""

    code: Code
    source_id: SourceId | None = None


class ManualTakeCreate(BaseModel):
    """An organiser's correction: a take that is missing from the feed (e.g. a paper card)."""

    participant: ExternalIdRef
    code: Code
    taken_at: UTCTime
    note: Note = ""
    source_id: SourceId | None = None

    _coerce = field_validator("participant", "source_id", mode="before")(_text)


class VoidCreate(BaseModel):
    reason: Reason


class PreviousOutcome(BaseModel):
    outcome: str
    reason: str | None
    changed_at: datetime | None


class StateTake(BaseModel):
    """One take in a participant's log, with its current outcome."""

    take_id: int
    code: str
    kind: str
    taken_at: datetime = Field(description="field time (a device clock corrected)")
    received_at: datetime
    source: str
    device_taken_at: datetime | None = Field(
        default=None, description="the device's time as sent, when its clock was corrected"
    )
    clock_offset_seconds: float | None = Field(
        default=None,
        description="the correction applied (field time − device time): the organiser's "
        "offset of the source, else the batch's `received_at − sent_at`",
    )
    outcome: str
    reason: str | None
    card: str | None
    card_display: str | None
    checkpoint: int | None
    deal: int
    round: int
    voided: bool
    previous: PreviousOutcome | None = None


class CombinationRead(BaseModel):
    id: int
    cards: list[str]
    cards_display: list[str]
    category: str
    description: str | None
    description_ru: str | None = None
    deal: int
    saved_at: datetime


class ParticipantStateRead(BaseModel):
    """A participant's state (API.md) plus the counters the field app shows."""

    participant: str
    name: str
    hand: list[str]
    hand_display: list[str]
    deal: int
    round: int
    discards_left: int
    discarding: bool = Field(
        False,
        description="A discard step is in progress: more discard codes may follow before "
        "the next card take (RULES.md §1.2 rule 4).",
    )
    save_codes_left: int
    checkpoints_taken: int
    combinations: list[CombinationRead]
    takes: list[StateTake]


class LogItem(StateTake):
    participant: str
    source_id: str
    recorded_by: str
    void_reason: str | None = None


class LogRead(BaseModel):
    total: int
    items: list[LogItem]


class UnsavedHand(BaseModel):
    participant: str
    name: str
    hand: list[str]
    deal: int
    round: int


class HandFullWarning(BaseModel):
    participant: str
    name: str
    count: int


class UnknownCodeWarning(BaseModel):
    participant: str
    name: str
    take_id: int
    code: str
    taken_at: datetime
    source: str


class FutureTakeWarning(BaseModel):
    """A take dated in the future: `taken_at` later than the server clock at receipt
    (`received_at`) + 5 min. It is stored and counted as any take; a device clock is wrong."""

    participant: str
    name: str
    take_id: int
    source: str
    source_id: str
    taken_at: datetime
    received_at: datetime


class DeviceClockWarning(BaseModel):
    """A source (device) whose clock was off: `corrected_takes` stored with a corrected
    time (offsets from `min_offset_seconds` to `max_offset_seconds`), and/or an organiser's
    offset in force (`organiser_offset_seconds`)."""

    source: str
    corrected_takes: int
    min_offset_seconds: float | None
    max_offset_seconds: float | None
    organiser_offset_seconds: float | None
    participants: list[str]


class SourceClockUpdate(BaseModel):
    """`{"offset_seconds"}`: field time = device time + offset (seconds; null clears it)."""

    offset_seconds: float | None = Field(ge=-7 * 86400, le=7 * 86400, allow_inf_nan=False)


class SourceClockRead(BaseModel):
    """The offset set for a source and what the replay of its participants changed."""

    source: str
    offset_seconds: float | None
    set_by: str
    set_at: datetime
    participants: int
    takes: int
    changed_outcomes: int


class WarningsRead(BaseModel):
    """Event warnings: hands never saved (RULES.md I-3), hand_full takes, unknown codes,
    takes dated in the future."""

    course_closed: bool
    unsaved_hands: list[UnsavedHand]
    hand_full: list[HandFullWarning]
    unknown_codes: list[UnknownCodeWarning]
    future_takes: list[FutureTakeWarning] = []
    device_clocks: list[DeviceClockWarning] = []


class RebuildRead(BaseModel):
    participants: int
    takes: int
    changed_outcomes: int


class CorrectionRead(BaseModel):
    id: int
    action: str
    actor: str
    subject: str | None
    details: dict[str, Any]
    created_at: datetime


class IntegrationKeyCreate(BaseModel):
    name: KeyName
    require_signature: bool = False


class IntegrationKeyRead(BaseModel):
    id: int
    event_id: int
    name: str
    prefix: str
    require_signature: bool
    created_at: datetime
    revoked_at: datetime | None


class IntegrationKeyCreated(IntegrationKeyRead):
    key: str = Field(description="shown once; the service keeps only its hash")


class ImportRead(BaseModel):
    stored: int
    duplicates: int
    errors: int
    results: list[TakeResult]
