"""Request and response bodies of event setup (separate from the ORM models)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from app.core.errors import InputProblem
from app.core.types import (
    ControlCard,
    DeckCode,
    ExternalId,
    Hint,
    Name,
    NamePart,
    ShortText,
    UTCTime,
)
from app.events.rules import participant_name

HandRanking = Literal["seed", "classic"]
StatusValue = Literal["draft", "course_open", "course_closed", "ceremony", "finished"]
"""The JSON values of `app.events.rules.EventStatus` (the status itself), in its order."""


def check_timezone(value: str) -> str:
    """`value` if it names a known IANA time zone, else ValueError."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise InputProblem(
            "unknown_timezone",
            f"unknown time zone {value!r} (use an IANA name like Europe/Moscow)",
            zone=value,
        ) from exc
    return value


class EventCreate(BaseModel):
    """A new event. Times are ISO 8601 with an offset (naive times are refused)."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    opens_at: UTCTime
    closes_at: UTCTime
    timezone: str = Field(
        max_length=64, description="IANA time zone of the event, e.g. Europe/Moscow"
    )
    hand_ranking: HandRanking = "seed"
    save_codes_per_participant: int = Field(default=10, ge=1, le=50)
    award_places: int = Field(default=3, ge=1, le=20)

    @field_validator("timezone")
    @classmethod
    def _tz(cls, value: str) -> str:
        return check_timezone(value)

    @field_validator("closes_at")
    @classmethod
    def _window(cls, value: datetime, info: ValidationInfo) -> datetime:
        opens_at = info.data.get("opens_at")
        if opens_at is not None and value <= opens_at:
            raise InputProblem("window_order", "closes_at must be after opens_at")
        return value


class EventUpdate(BaseModel):
    """Changes to an event; omitted fields stay as they are."""

    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    opens_at: UTCTime | None = None
    closes_at: UTCTime | None = None
    timezone: str | None = Field(default=None, max_length=64)
    hand_ranking: HandRanking | None = None
    save_codes_per_participant: int | None = Field(default=None, ge=1, le=50)
    award_places: int | None = Field(default=None, ge=1, le=20)

    @field_validator("timezone")
    @classmethod
    def _tz(cls, value: str | None) -> str | None:
        return None if value is None else check_timezone(value)


class EventPublic(BaseModel):
    """An event as anyone sees it: the course window in UTC and in local time."""

    id: int
    name: str
    opens_at: datetime
    closes_at: datetime
    opens_at_local: datetime
    closes_at_local: datetime
    timezone: str
    hand_ranking: HandRanking
    save_codes_per_participant: int
    award_places: int
    status: StatusValue
    checkpoint_count: int
    participant_count: int
    created_at: datetime


class EventRead(EventPublic):
    """The organiser's view: also the shuffle seed (the seed reveals the whole deal)."""

    deck_seed: int | None


class EventStatusChange(BaseModel):
    """Move the event forward: draft → course_open → course_closed → ceremony → finished."""

    model_config = ConfigDict(extra="forbid")

    status: StatusValue


class CheckpointIn(BaseModel):
    """One CP of an explicit deck. `card` in any spelling of API.md; codes optional."""

    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1, le=9999)
    card: str = Field(min_length=1, max_length=16)
    lat: float | None = Field(default=None, ge=-90, le=90)
    lon: float | None = Field(default=None, ge=-180, le=180)
    hint: Hint = ""
    code: DeckCode | None = None
    discard_code: Annotated[DeckCode, Field(max_length=64)] | None = None


class DeckPut(BaseModel):
    """The whole deck: distinct cards of the 54, distinct CP numbers."""

    model_config = ConfigDict(extra="forbid")

    checkpoints: list[CheckpointIn] = Field(min_length=1, max_length=54)


class ShuffleRequest(BaseModel):
    """Deal a shuffled deck; `seed` null draws a random seed (recorded on the event)."""

    model_config = ConfigDict(extra="forbid")

    # strict: `true`/`false`, `1.0` or `"5"` are 422, never seed 1 or 0.
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1, strict=True)


class CheckpointUpdate(BaseModel):
    """Edit a CP's public description; omitted fields stay."""

    model_config = ConfigDict(extra="forbid")

    lat: float | None = Field(default=None, ge=-90, le=90)
    lon: float | None = Field(default=None, ge=-180, le=180)
    hint: Hint | None = None


class CheckpointPublic(BaseModel):
    """What everyone may see of a CP before the start (RULES.md §1.1)."""

    number: int
    lat: float | None
    lon: float | None
    hint: str


class CheckpointRead(CheckpointPublic):
    """The organiser's view of a CP, secrets included."""

    card: str
    card_display: str
    code: str
    discard_code: str
    take_url: str


class DeckRead(BaseModel):
    """The organiser's view of the deck; `deck_seed` is null for an explicit deck."""

    deck_seed: int | None
    checkpoints: list[CheckpointRead]


class PublicCheckpoints(BaseModel):
    """The public CP list: no card, CP code or discard code (RULES.md §1.1)."""

    checkpoints: list[CheckpointPublic]


ParticipantKind = Literal["person", "team"]


def _blank_to_none(data: object, fields: tuple[str, ...]) -> object:
    """Empty or blank optional texts (a form's empty field) read as absent."""
    if isinstance(data, dict):
        return {
            key: (None if key in fields and isinstance(value, str) and not value.strip() else value)
            for key, value in data.items()
        }
    return data


_OPTIONAL_TEXTS = ("given_name", "family_name", "club", "control_card")


class ParticipantCreate(BaseModel):
    """A new participant, a person or a team; texts are cleaned (`app.core.types`).

    A person may come with `given_name` and `family_name` (then `name` may be left out:
    it is "Given Family", `rules.participant_name`); `club` and `control_card` (the
    punching card's number) are kept for the IOF files.
    """

    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    external_id: ExternalId | None = None
    category: ShortText | None = None
    kind: ParticipantKind = "person"
    given_name: NamePart | None = None
    family_name: NamePart | None = None
    club: NamePart | None = None
    control_card: ControlCard | None = None

    @model_validator(mode="before")
    @classmethod
    def _blanks(cls, data: object) -> object:
        return _blank_to_none(data, _OPTIONAL_TEXTS)

    @model_validator(mode="after")
    def _name(self) -> ParticipantCreate:
        self.name = participant_name(self.name, self.kind, self.given_name, self.family_name)
        return self


class ParticipantUpdate(BaseModel):
    """Changes to a participant; omitted fields stay; null clears `category`, `club`,
    `control_card` and the name parts. Changing `given_name`/`family_name` renames the
    person "Given Family"; changing only `name` drops the parts (the name then is one
    piece). `kind` changes between person and team."""

    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    external_id: ExternalId | None = None
    category: ShortText | None = None
    kind: ParticipantKind | None = None
    given_name: NamePart | None = None
    family_name: NamePart | None = None
    club: NamePart | None = None
    control_card: ControlCard | None = None


class ParticipantRead(BaseModel):
    """The organiser's view of a participant: save codes (for printing), never the token."""

    id: int
    external_id: str
    name: str
    category: str | None
    kind: ParticipantKind = "person"
    given_name: str | None = None
    family_name: str | None = None
    club: str | None = None
    control_card: str | None = None
    save_codes: list[str]
    created_at: datetime


class ParticipantCreated(ParticipantRead):
    """A participant with its access token: shown once, at creation or re-issue."""

    access_token: str
    personal_url: str


class ParticipantList(BaseModel):
    participants: list[ParticipantRead]


class ParticipantsCreated(BaseModel):
    participants: list[ParticipantCreated]


class AccessTokenIssued(BaseModel):
    """A newly issued access token; the previous one stops working."""

    external_id: str
    access_token: str
    personal_url: str
