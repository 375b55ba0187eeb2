"""Event setup: events, the deck of checkpoints, participants and their codes.

Services `flush()`, never `commit()`; organiser changes are written to the audit
trail. Every code is stored in its normalised form (`codes.normalize_code`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core import audit, iof, livelog
from app.core.db import utcnow
from app.core.errors import Conflict, NotFound, Unprocessable
from app.core.principal import ORGANISER
from app.core.security import hash_token, new_token, seal_token, unseal_token
from app.events import identity, repository, rules
from app.events.codes import (
    MIN_CODE_BITS,
    code_strength_bits,
    new_cp_code,
    normalize_code,
    unique_short_code,
)
from app.events.formats import (
    CHECKPOINT_COLUMNS,
    PARTICIPANT_COLUMNS,
    DeckRow,
    ParticipantRow,
    parse_checkpoints_csv,
    parse_participants_csv,
)
from app.events.models import Checkpoint, Event, Participant
from app.events.qr import personal_url, take_url
from app.events.rules import EventStatus
from app.events.schemas import (
    AccessTokenIssued,
    CheckpointPublic,
    CheckpointRead,
    CheckpointUpdate,
    EventCreate,
    EventPublic,
    EventRead,
    EventUpdate,
    ParticipantCreate,
    ParticipantCreated,
    ParticipantRead,
    ParticipantUpdate,
)
from app.poker.cards import DECK, CardError, display, parse_card

ORGANISER_ACTOR = ORGANISER.actor
"""The default `actor` of the organiser's commands (callers pass `principal.actor`)."""
JOKERS = ("JK1", "JK2")
MIN_GIVEN_CP_CODE = 8
MIN_GIVEN_SHORT_CODE = 3

# Builds one error item of a 422 problem's `errors` list: (item index, field, message).
Locate = Callable[[int, str, str], dict[str, Any]]


def json_locator(collection: str) -> Locate:
    """Errors located like FastAPI's: `loc = ["body", collection, index, field]`."""

    def locate(index: int, field: str, msg: str) -> dict[str, Any]:
        return {"loc": ["body", collection, str(index), field], "msg": msg, "type": "value_error"}

    return locate


def row_locator(rows: Sequence[int]) -> Locate:
    """Errors naming the CSV row (header = row 1) and the column."""

    def locate(index: int, field: str, msg: str) -> dict[str, Any]:
        return {"row": rows[index], "field": field, "msg": msg}

    return locate


# --- events ---------------------------------------------------------------------------


def status_at(event: Event, now: datetime | None = None) -> str:
    """The status to show and decide on at `now` (default the server's clock, aware UTC):
    `course_open` past `closes_at` is `course_closed` (`rules.effective_status`)."""
    return rules.effective_status(event.status, event.closes_at, now or utcnow())


def event_read(session: Session, event: Event) -> EventRead:
    """The event with its window in UTC and in local time of its IANA `timezone`; the
    status as of now (`status_at`)."""
    zone = ZoneInfo(event.timezone)
    return EventRead(
        id=event.id,
        name=event.name,
        opens_at=event.opens_at.astimezone(UTC),
        closes_at=event.closes_at.astimezone(UTC),
        opens_at_local=event.opens_at.astimezone(zone),
        closes_at_local=event.closes_at.astimezone(zone),
        timezone=event.timezone,
        hand_ranking=event.hand_ranking,  # type: ignore[arg-type]
        save_codes_per_participant=event.save_codes_per_participant,
        award_places=event.award_places,
        status=status_at(event),  # type: ignore[arg-type]
        deck_seed=event.deck_seed,
        checkpoint_count=repository.checkpoint_count(session, event.id),
        participant_count=repository.participant_count(session, event.id),
        created_at=event.created_at,
    )


def event_public(session: Session, event: Event) -> EventPublic:
    """The event as anyone may see it (no shuffle seed: it would reveal the deal)."""
    return EventPublic.model_validate(event_read(session, event).model_dump(exclude={"deck_seed"}))


def create_event(session: Session, data: EventCreate, actor: str = ORGANISER_ACTOR) -> Event:
    """A new event in status `draft`; times stored in UTC."""
    event = Event(
        name=data.name,
        opens_at=data.opens_at.astimezone(UTC),
        closes_at=data.closes_at.astimezone(UTC),
        timezone=data.timezone,
        hand_ranking=data.hand_ranking,
        save_codes_per_participant=data.save_codes_per_participant,
        award_places=data.award_places,
        status=EventStatus.DRAFT,
    )
    session.add(event)
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="event.create",
        subject=f"event:{event.id}",
        details=data.model_dump(mode="json"),
    )
    return event


def update_event(
    session: Session, event: Event, data: EventUpdate, actor: str = ORGANISER_ACTOR
) -> Event:
    """Apply the given fields.

    Raises Unprocessable (`validation_error`, 422) when the resulting window does
    not close after it opens; Conflict `participants_exist` (409) when the number
    of save codes changes after participants got theirs.
    """
    changes = data.model_dump(exclude_unset=True)
    for field in ("name", "opens_at", "closes_at", "timezone", "hand_ranking"):
        if field in changes and changes[field] is None:
            raise Unprocessable(
                f"{field} cannot be null.",
                errors=[{"loc": ["body", field], "msg": "may not be null", "type": "value_error"}],
            )
    opens_at = changes.get("opens_at", event.opens_at)
    closes_at = changes.get("closes_at", event.closes_at)
    if closes_at <= opens_at:
        raise Unprocessable(
            "closes_at must be after opens_at.",
            errors=[
                {
                    "loc": ["body", "closes_at"],
                    "msg": "closes_at must be after opens_at",
                    "type": "window_order",
                }
            ],
        )
    count = changes.get("save_codes_per_participant")
    if (
        count is not None
        and count != event.save_codes_per_participant
        and repository.participant_count(session, event.id)
    ):
        raise Conflict(
            "Participants already have their save codes; the number cannot change now.",
            code="participants_exist",
        )
    window = (event.opens_at, event.closes_at)
    for field, value in changes.items():
        if isinstance(value, datetime):
            value = value.astimezone(UTC)
        if value is not None:
            setattr(event, field, value)
    session.flush()
    if (event.opens_at, event.closes_at) != window:  # the pages show the course window
        livelog.changed(session, event.id, "event", stage=True)
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="event.update",
        subject=f"event:{event.id}",
        details=data.model_dump(mode="json", exclude_unset=True),
    )
    return event


def change_status(
    session: Session, event: Event, status: str, actor: str = ORGANISER_ACTOR
) -> Event:
    """Move the event forward to `status` (later statuses may be skipped to).

    Raises Conflict `status_not_forward` (409) for the current or an earlier
    status, and `deck_missing` (409) when leaving `draft` without any CP. The check is
    on the stored status, so `course_closed` stores a course that closed by the clock;
    the refusal names the status as read (`status_at`).
    """
    if not rules.is_forward(event.status, status):
        raise Conflict(
            f"The event is {status_at(event)}; it can only move forward, not to {status}.",
            code="status_not_forward",
        )
    if event.status == EventStatus.DRAFT and not repository.checkpoint_count(session, event.id):
        raise Conflict("Set the deck of checkpoints first.", code="deck_missing")
    previous, event.status = event.status, status
    session.flush()
    livelog.changed(session, event.id, "event", stage=True)
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="event.status",
        subject=f"event:{event.id}",
        details={"from": previous, "to": status},
    )
    return event


def record_status(session: Session, event: Event, status: str, *, actor: str, cause: str) -> Event:
    """Set the status as a consequence of another step (`cause`, e.g. `auction.open`),
    without the organiser's forward-only check: the ceremony moves the event to
    `ceremony` and `finished`, and an undone last close back to `ceremony`.
    Recorded as `event.status` with the cause; a no-op when the status is already set."""
    if event.status == status:
        return event
    previous, event.status = event.status, status
    session.flush()
    livelog.changed(session, event.id, "event", stage=True)
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="event.status",
        subject=f"event:{event.id}",
        details={"from": previous, "to": status, "cause": cause},
    )
    return event


def event_zone(event: Event) -> ZoneInfo:
    """The event's IANA zone (`event.timezone`); UTC when the name is unknown or invalid."""
    try:
        return ZoneInfo(event.timezone)
    except (ZoneInfoNotFoundError, ValueError, TypeError, OSError):
        return ZoneInfo("UTC")


def local_time(event: Event, moment: datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """`moment` (aware) in the event's zone (`event_zone`), formatted by strftime `fmt`;
    "" when `moment` is None. For messages; the pages format with `app.web.dates`."""
    return moment.astimezone(event_zone(event)).strftime(fmt) if moment else ""


def zoned_time(event: Event, moment: datetime) -> str:
    """`moment` in the event's zone with its names, for messages, e.g.
    "2026-06-13 06:00 MSK (Europe/Moscow)" (UTC when the zone is unknown)."""
    return f"{local_time(event, moment, '%Y-%m-%d %H:%M %Z')} ({event_zone(event).key})"


# --- checkpoints ----------------------------------------------------------------------


def checkpoint_public(checkpoint: Checkpoint) -> CheckpointPublic:
    """What anyone may see: number, coordinates, hint (never card or codes)."""
    return CheckpointPublic(
        number=checkpoint.number, lat=checkpoint.lat, lon=checkpoint.lon, hint=checkpoint.hint
    )


def checkpoint_read(checkpoint: Checkpoint, base_url: str) -> CheckpointRead:
    """The organiser's view: card, secret code, discard code and the take URL."""
    return CheckpointRead(
        number=checkpoint.number,
        lat=checkpoint.lat,
        lon=checkpoint.lon,
        hint=checkpoint.hint,
        card=checkpoint.card,
        card_display=display(checkpoint.card),
        code=checkpoint.code,
        discard_code=checkpoint.discard_code,
        take_url=take_url(base_url, checkpoint.code),
    )


def get_checkpoint(session: Session, event: Event, number: int) -> Checkpoint:
    """The CP `number` of the event; NotFound `checkpoint_not_found`."""
    checkpoint = repository.checkpoint_by_number(session, event.id, number)
    if checkpoint is None:
        raise NotFound(f"The event has no CP {number}.", code="checkpoint_not_found")
    return checkpoint


def _parse_cards(rows: Sequence[DeckRow], locate: Locate) -> tuple[list[str | None], list]:
    """Canonical cards of `rows` (None where unreadable) and the errors.

    A generic joker spelling (`JK`, `Joker`, `🃏`…) takes the first joker not
    spelled explicitly (`JK1`/`JK2`) elsewhere in the deck (API.md: two generic
    spellings are the two jokers).
    """
    errors: list[dict[str, Any]] = []
    cards: list[str | None] = []
    generic: list[int] = []
    for index, row in enumerate(rows):
        try:
            card = parse_card(row.card)
        except CardError as exc:
            errors.append(locate(index, "card", f"not a card of the deck: {row.card!r} ({exc})"))
            cards.append(None)
            continue
        if card in JOKERS and not row.card.strip().endswith(("1", "2")):
            generic.append(index)
        cards.append(card)
    explicit = {cards[i] for i in range(len(rows)) if i not in generic and cards[i] in JOKERS}
    free = [joker for joker in JOKERS if joker not in explicit]
    for index in generic:
        cards[index] = free.pop(0) if free else cards[index]
    return cards, errors


def _check_given_code(
    raw: str | None, field: str, minimum: int, index: int, locate: Locate, errors: list
) -> str | None:
    if raw is None:
        return None
    code = normalize_code(raw)
    if len(code) < minimum or not code.isascii() or not code.isalnum():
        errors.append(
            locate(index, field, f"must be at least {minimum} letters or digits (A–Z, 0–9)")
        )
        return None
    return code


def _check_strength(codes: Sequence[str | None], locate: Locate, errors: list) -> None:
    """Refuse given CP codes weaker than MIN_CODE_BITS (`codes.code_strength_bits`): the
    offline deck can be searched for them (issue 26 point 5). Generated codes have 120."""
    given = [code for code in codes if code]
    for index, code in enumerate(codes):
        if not code:
            continue
        bits = code_strength_bits(code, given)
        if bits < MIN_CODE_BITS:
            errors.append(
                locate(index, "code", f"is too weak: about {bits:.0f} bits, at least "
                       f"{MIN_CODE_BITS} needed (e.g. 16 random letters and digits, not a "
                       "series); leave it empty to have one generated")
            )  # fmt: skip


def _validate_deck(
    session: Session, event: Event, rows: Sequence[DeckRow], locate: Locate
) -> tuple[list[str], list[str | None], list[str | None]]:
    """Cards and given codes of a deck; raises Unprocessable `deck_invalid` listing every error.

    Checks: each card is one of the 54 and appears once; CP numbers are unique;
    given codes are well-formed, distinct from each other and from the event's
    save codes, and CP codes are not used by another event.
    """
    cards, errors = _parse_cards(rows, locate)
    seen_numbers: dict[int, int] = {}
    seen_cards: dict[str, int] = {}
    for index, (row, card) in enumerate(zip(rows, cards, strict=True)):
        if row.number in seen_numbers:
            errors.append(locate(index, "number", f"CP {row.number} appears twice"))
        seen_numbers.setdefault(row.number, index)
        if card is not None:
            if card in seen_cards:
                errors.append(locate(index, "card", f"{display(card)} appears twice in the deck"))
            seen_cards.setdefault(card, index)
    codes = [
        _check_given_code(row.code, "code", MIN_GIVEN_CP_CODE, i, locate, errors)
        for i, row in enumerate(rows)
    ]
    discard_codes = [
        _check_given_code(row.discard_code, "discard_code", MIN_GIVEN_SHORT_CODE, i, locate, errors)
        for i, row in enumerate(rows)
    ]
    _check_strength(codes, locate, errors)
    save_codes = repository.save_codes(session, event.id)
    elsewhere = repository.cp_codes_elsewhere(session, event.id, [c for c in codes if c])
    used: dict[str, int] = {}
    for field, given in (("code", codes), ("discard_code", discard_codes)):
        for index, code in enumerate(given):
            if code is None:
                continue
            if code in used or code in save_codes:
                errors.append(locate(index, field, "is already another code of this event"))
            elif field == "code" and code in elsewhere:
                errors.append(locate(index, field, "is already used by another event"))
            used.setdefault(code, index)
    if errors:
        raise Unprocessable(
            f"The deck has {len(errors)} error(s); nothing was changed.",
            code="deck_invalid",
            errors=errors,
        )
    return [card for card in cards if card is not None], codes, discard_codes


def _replace_deck(
    session: Session,
    event: Event,
    rows: Sequence[DeckRow],
    cards: Sequence[str],
    codes: Sequence[str | None],
    discard_codes: Sequence[str | None],
) -> list[Checkpoint]:
    """Replace the event's CPs. A CP number that existed keeps its codes unless new ones
    are given (printed QR codes stay valid); missing codes are generated."""
    previous = {
        cp.number: (cp.code, cp.discard_code) for cp in repository.checkpoints(session, event.id)
    }
    for checkpoint in repository.checkpoints(session, event.id):
        session.delete(checkpoint)
    session.flush()

    # Given codes win; a CP number that existed keeps its old codes unless another CP
    # claims them explicitly; the rest are generated.
    claimed = {code for code in [*codes, *discard_codes] if code}
    chosen: list[list[str | None]] = []
    for row, code, discard_code in zip(rows, codes, discard_codes, strict=True):
        old_code, old_discard = previous.get(row.number, (None, None))
        if code is None and old_code not in claimed:
            code = old_code
        if discard_code is None and old_discard not in claimed:
            discard_code = old_discard
        chosen.append([code, discard_code])
    taken = repository.save_codes(session, event.id) | {c for pair in chosen for c in pair if c}
    result = []
    for row, card, pair in zip(rows, cards, chosen, strict=True):
        code = pair[0] or new_cp_code()
        discard_code = pair[1] or unique_short_code(taken)
        checkpoint = Checkpoint(
            event_id=event.id,
            number=row.number,
            card=card,
            code=code,
            discard_code=discard_code,
            lat=row.lat,
            lon=row.lon,
            hint=row.hint,
        )
        session.add(checkpoint)
        result.append(checkpoint)
    session.flush()
    return sorted(result, key=lambda cp: cp.number)


def set_deck(
    session: Session,
    event: Event,
    rows: Sequence[DeckRow],
    locate: Locate,
    actor: str = ORGANISER_ACTOR,
    action: str = "checkpoints.put",
) -> list[Checkpoint]:
    """Set the deck explicitly (JSON `PUT` or CSV import): all rows or nothing.

    Raises Unprocessable `deck_invalid` (422, `errors` naming each item/row and field).
    Clears `event.deck_seed`. Callers check first that no take is recorded
    (`app.flows.event_setup.set_deck`: Conflict `deck_in_play`).
    """
    cards, codes, discard_codes = _validate_deck(session, event, rows, locate)
    checkpoints = _replace_deck(session, event, rows, cards, codes, discard_codes)
    event.deck_seed = None
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action=action,
        subject=f"event:{event.id}",
        details={"checkpoints": len(checkpoints)},
    )
    return checkpoints


_COLUMN_ORDER = {
    column: index for index, column in enumerate(CHECKPOINT_COLUMNS + PARTICIPANT_COLUMNS)
}


def _row_order(error: dict[str, Any]) -> tuple[int, int]:
    """CSV errors by row, then by column as the file lays them out."""
    return (int(error["row"]), _COLUMN_ORDER.get(str(error["field"]), len(_COLUMN_ORDER)))


def import_checkpoints_csv(
    session: Session, event: Event, text: str, actor: str = ORGANISER_ACTOR
) -> list[Checkpoint]:
    """Set the deck from CSV `number, card, lat, lon, hint` (header row first).

    All or nothing: Unprocessable `csv_invalid` (422) with `errors` =
    [{"row", "field", "msg"}] for every bad field, row order. Callers check first that no
    take is recorded (`app.flows.event_setup`: Conflict `deck_in_play`).
    """
    parsed, errors = parse_checkpoints_csv(text)
    rows = [row for _, row in parsed]
    locate = row_locator([line for line, _ in parsed])
    if rows:
        try:
            _validate_deck(session, event, rows, locate)
        except Unprocessable as exc:
            errors.extend(exc.extra["errors"])
    if errors:
        raise Unprocessable(
            f"The CSV has {len(errors)} error(s); nothing was changed.",
            code="csv_invalid",
            errors=sorted(errors, key=_row_order),
        )
    return set_deck(session, event, rows, locate, actor, action="checkpoints.import")


def shuffle_deck(
    session: Session, event: Event, seed: int | None, actor: str = ORGANISER_ACTOR
) -> list[Checkpoint]:
    """Deal a shuffled deck from `seed` (a random one when None), recorded as `deck_seed`.

    Existing CPs keep their numbers, coordinates, hints and codes and get new
    cards; without CPs, CPs 1–54 are created (no coordinates). Same seed, same
    deal (`rules.deal`). Callers check first that no take is recorded
    (`app.flows.event_setup.shuffle_deck`: Conflict `deck_in_play`).
    """
    if seed is None:
        seed = secrets.randbelow(2**63)
    existing = repository.checkpoints(session, event.id)
    if existing:
        rows = [
            DeckRow(number=cp.number, card="", lat=cp.lat, lon=cp.lon, hint=cp.hint)
            for cp in existing
        ]
    else:
        rows = [DeckRow(number=number, card="") for number in range(1, len(DECK) + 1)]
    dealt = rules.deal(seed, [row.number for row in rows])
    cards = [dealt[row.number] for row in rows]
    nothing: list[str | None] = [None] * len(rows)
    checkpoints = _replace_deck(session, event, rows, cards, nothing, nothing)
    event.deck_seed = seed
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="checkpoints.shuffle",
        subject=f"event:{event.id}",
        details={"seed": seed, "checkpoints": len(checkpoints)},
    )
    return checkpoints


def update_checkpoint(
    session: Session,
    event: Event,
    number: int,
    data: CheckpointUpdate,
    actor: str = ORGANISER_ACTOR,
) -> Checkpoint:
    """Edit a CP's coordinates or hint (allowed at any time: nothing secret changes)."""
    checkpoint = get_checkpoint(session, event, number)
    changes = data.model_dump(exclude_unset=True)
    for field, value in changes.items():
        if field == "hint" and value is None:
            value = ""
        setattr(checkpoint, field, value)
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="checkpoint.update",
        subject=f"checkpoint:{number}",
        details=data.model_dump(mode="json", exclude_unset=True),
    )
    return checkpoint


def public_rows(session: Session, event: Event) -> list[dict[str, Any]]:
    """The public CP list as plain rows (number, lat, lon, hint)."""
    return [checkpoint_public(cp).model_dump() for cp in repository.checkpoints(session, event.id)]


# --- participants ---------------------------------------------------------------------


@dataclass
class NewParticipant:
    """A participant just created or re-issued, with the token only known now."""

    participant: Participant
    access_token: str
    save_codes: list[str]


PARTICIPANT_FIELDS = ("kind", "given_name", "family_name", "club", "control_card")


def _fields(participant: Participant) -> dict[str, Any]:
    """The participant's identity as the API shows it (no token, no save codes)."""
    return {
        "id": participant.id,
        "external_id": participant.external_id,
        "name": participant.name,
        "category": participant.category,
        **{field: getattr(participant, field) for field in PARTICIPANT_FIELDS},
        "created_at": participant.created_at,
    }


def participant_read(session: Session, participant: Participant) -> ParticipantRead:
    codes = repository.save_codes_by_participant(session, participant.event_id, participant.id)
    return ParticipantRead(**_fields(participant), save_codes=codes.get(participant.id, []))


def participant_reads(session: Session, event: Event) -> list[ParticipantRead]:
    """Every participant of the event with their save codes (organiser only)."""
    codes = repository.save_codes_by_participant(session, event.id)
    return [
        ParticipantRead(**_fields(p), save_codes=codes.get(p.id, []))
        for p in repository.participants(session, event.id)
    ]


def participant_created(new: NewParticipant, base_url: str) -> ParticipantCreated:
    return ParticipantCreated(
        **_fields(new.participant),
        save_codes=new.save_codes,
        access_token=new.access_token,
        personal_url=personal_url(base_url, new.access_token),
    )


def participant_row(data: ParticipantCreate) -> ParticipantRow:
    """The row of a participant given as JSON or a page's form (`ParticipantCreate`
    already named them, `rules.participant_name`)."""
    return ParticipantRow(
        data.name or "",
        data.external_id,
        data.category,
        data.kind,
        data.given_name or None,
        data.family_name or None,
        data.club or None,
        data.control_card,
    )


def get_participant(session: Session, event: Event, external_id: str) -> Participant:
    """The participant `external_id` of the event; NotFound `participant_not_found`."""
    participant = repository.participant_by_external_id(session, event.id, external_id)
    if participant is None:
        raise NotFound(
            f"The event has no participant {external_id!r}.", code="participant_not_found"
        )
    return participant


def _next_external_ids(existing: set[str], count: int) -> list[str]:
    """`count` bib-like ids: numbers after the highest numeric id in use, skipping used ones."""
    numbers = [int(value) for value in existing if value.isdigit()]
    current = max(numbers, default=0)
    result = []
    while len(result) < count:
        current += 1
        if str(current) not in existing:
            result.append(str(current))
    return result


def _external_id_errors(
    session: Session, event: Event, rows: Sequence[ParticipantRow], locate: Locate
) -> list[dict[str, Any]]:
    """An error for each `external_id` already in the event or repeated in `rows`."""
    existing = repository.external_ids(session, event.id)
    errors = []
    given: set[str] = set()
    for index, row in enumerate(rows):
        if row.external_id is None:
            continue
        if row.external_id in existing:
            errors.append(locate(index, "external_id", f"{row.external_id!r} is already taken"))
        elif row.external_id in given:
            errors.append(locate(index, "external_id", f"{row.external_id!r} appears twice"))
        given.add(row.external_id)
    return errors


def create_participants(
    session: Session,
    event: Event,
    rows: Sequence[ParticipantRow],
    locate: Locate,
    actor: str = ORGANISER_ACTOR,
    action: str = "participant.create",
) -> list[NewParticipant]:
    """Create participants, each with an access token (stored hashed) and the event's
    number of save codes, unique in the event and distinct from every CP code and
    discard code. All or nothing: raises Unprocessable `participants_invalid` with
    every duplicate `external_id` (in the rows or already in the event).

    Rows without `external_id` are numbered after the highest numeric id in use. The
    event's participant numbers are locked first (`lock_participant_numbers`), so
    concurrent creations, in any process, never pick the same number; rows are
    written with two bulk INSERTs (participants, save codes).
    """
    repository.lock_participant_numbers(session, event.id)
    errors = _external_id_errors(session, event, rows, locate)
    if errors:
        raise Unprocessable(
            f"{len(errors)} error(s); no participant was created.",
            code="participants_invalid",
            errors=errors,
        )
    participants, tokens = _insert_participants(session, event, rows)
    identity.record(session, event.id, participants, "create", actor)
    codes = _insert_save_codes(session, event, participants)
    created = [
        NewParticipant(p, token, own)
        for p, token, own in zip(participants, tokens, codes, strict=True)
    ]
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action=action,
        subject=f"event:{event.id}",
        details={"external_ids": [new.participant.external_id for new in created]},
    )
    return created


def _insert_participants(
    session: Session, event: Event, rows: Sequence[ParticipantRow]
) -> tuple[list[Participant], list[str]]:
    """One bulk INSERT of the rows (missing external ids numbered after the highest
    numeric one in use); the participants and their new access tokens, in row order."""
    used = repository.external_ids(session, event.id) | {
        row.external_id for row in rows if row.external_id
    }
    generated = iter(_next_external_ids(used, sum(row.external_id is None for row in rows)))
    tokens = [new_token() for _ in rows]
    now = utcnow()
    values = [
        {
            "event_id": event.id,
            "external_id": row.external_id or next(generated),
            "name": row.name,
            "category": row.category,
            **{field: getattr(row, field) for field in PARTICIPANT_FIELDS},
            "access_token_hash": hash_token(token),
            "created_at": now,
        }
        for row, token in zip(rows, tokens, strict=True)
    ]
    try:
        participants = repository.insert_participants(session, values)
    except IntegrityError as exc:  # only if the lock was bypassed: never a 500
        raise Conflict("An external id is already taken.", code="external_id_taken") from exc
    return participants, tokens


def _insert_save_codes(
    session: Session, event: Event, participants: Sequence[Participant]
) -> list[list[str]]:
    """The event's number of save codes for each participant, unique in the event and
    distinct from every CP and discard code; one bulk INSERT."""
    taken = repository.checkpoint_codes(session, event.id) | repository.save_codes(
        session, event.id
    )
    codes = [
        [unique_short_code(taken) for _ in range(event.save_codes_per_participant)]
        for _ in participants
    ]
    repository.insert_save_codes(
        session,
        [
            {"event_id": event.id, "participant_id": p.id, "position": position, "code": code}
            for p, own in zip(participants, codes, strict=True)
            for position, code in enumerate(own, start=1)
        ],
    )
    return codes


def import_participants_csv(
    session: Session, event: Event, text: str, actor: str = ORGANISER_ACTOR
) -> list[NewParticipant]:
    """Create participants from CSV `name, external_id, category` (header row first).

    All or nothing: Unprocessable `csv_invalid` (422) with `errors` =
    [{"row", "field", "msg"}] (blank names, bad or duplicate external ids, also ids
    a concurrent import took first: the numbers are locked before they are checked).
    """
    parsed, errors = parse_participants_csv(text)
    rows = [row for _, row in parsed]
    locate = row_locator([line for line, _ in parsed])
    repository.lock_participant_numbers(session, event.id)  # then read the ids in use
    errors.extend(_external_id_errors(session, event, rows, locate))
    if errors:
        raise Unprocessable(
            f"The CSV has {len(errors)} error(s); no participant was created.",
            code="csv_invalid",
            errors=sorted(errors, key=_row_order),
        )
    return create_participants(session, event, rows, locate, actor, "participant.import")


def import_participants_iof(
    session: Session, event: Event, data: bytes, actor: str = ORGANISER_ACTOR
) -> list[NewParticipant]:
    """Create participants from an IOF XML 3.0 EntryList (persons and teams; see
    `app.core.iof.parse_entry_list` for how an entry becomes a participant).

    All or nothing, like the CSV import: Unprocessable `iof_invalid` (422) with `errors`
    = [{"row", "element", "line", "field", "msg"}] (`row` counts the entries from 1,
    `line` is the XML line) for a malformed file, bad entries, or ids already taken
    or repeated.
    """
    try:
        entries, errors = iof.parse_entry_list(data)
    except iof.IofError as exc:
        raise Unprocessable(str(exc), code="iof_invalid", errors=exc.errors) from exc

    def locate(index: int, field: str, msg: str) -> dict[str, Any]:
        entry = entries[index]
        return {
            "row": entry.row,
            "element": entry.kind,
            "line": entry.line,
            "field": field,
            "msg": msg,
        }

    rows = [
        ParticipantRow(
            entry.name,
            entry.external_id,
            entry.category,
            "team" if entry.kind == "TeamEntry" else "person",
            entry.given_name,
            entry.family_name,
            entry.club,
            entry.control_card,
        )
        for entry in entries
    ]
    repository.lock_participant_numbers(session, event.id)  # then read the ids in use
    errors.extend(_external_id_errors(session, event, rows, locate))
    if errors:
        raise Unprocessable(
            f"The EntryList has {len(errors)} error(s); no participant was created.",
            code="iof_invalid",
            errors=sorted(errors, key=lambda error: int(error["row"])),  # type: ignore[call-overload]
        )
    return create_participants(session, event, rows, locate, actor, "participant.import")


def create_participant(
    session: Session, event: Event, row: ParticipantRow, actor: str = ORGANISER_ACTOR
) -> NewParticipant:
    """One participant (see `create_participants`); a taken `external_id` is Conflict
    `external_id_taken` (409), also when a concurrent request took it first."""
    repository.lock_participant_numbers(session, event.id)
    if row.external_id is not None and repository.participant_by_external_id(
        session, event.id, row.external_id
    ):
        raise Conflict(
            f"External id {row.external_id!r} is already taken.", code="external_id_taken"
        )
    return create_participants(session, event, [row], json_locator("participant"), actor)[0]


def _renamed(participant: Participant, changes: dict[str, Any]) -> dict[str, Any]:
    """The changes of a PATCH with the name rule applied (`rules.participant_name`):
    new name parts rename the person "Given Family"; a new `name` alone drops the parts
    (the name is one piece again); a person made a team drops its parts. Unprocessable
    (422) for null `name`, `external_id` or `kind`, or parts that do not fit."""
    if any(changes.get(key, "") is None for key in ("name", "external_id", "kind")):
        raise Unprocessable(
            "name, external_id and kind cannot be null.",
            errors=[
                {
                    "loc": ["body"],
                    "msg": "name/external_id/kind may not be null",
                    "type": "value_error",
                }
            ],
        )
    changes = {k: (v or None) if k in PARTICIPANT_FIELDS[1:] else v for k, v in changes.items()}
    parts_given = bool({"given_name", "family_name"} & changes.keys())
    kind = changes.get("kind", participant.kind)
    if not parts_given and ("name" in changes or kind == "team"):
        changes.update(given_name=None, family_name=None)
    given = changes.get("given_name", participant.given_name)
    family = changes.get("family_name", participant.family_name)
    if parts_given:
        try:
            whole = None if (given or family) else participant.name  # both parts cleared
            name = rules.participant_name(changes.get("name") or whole, kind, given, family)
        except ValueError as exc:
            field = "name" if kind != "team" else "kind"
            raise Unprocessable(
                str(exc),
                errors=[{"loc": ["body", field], "msg": str(exc), "type": "value_error"}],
            ) from exc
        changes["name"] = name
    return changes


def update_participant(
    session: Session,
    event: Event,
    participant: Participant,
    data: ParticipantUpdate,
    actor: str = ORGANISER_ACTOR,
) -> Participant:
    """Rename, recategorise or renumber a participant; a taken `external_id` is Conflict
    `external_id_taken` (409)."""
    changes = _renamed(participant, data.model_dump(exclude_unset=True))
    new_id = changes.get("external_id")
    if new_id is not None:
        repository.lock_participant_numbers(session, event.id)
    if (
        new_id is not None
        and new_id != participant.external_id
        and repository.participant_by_external_id(session, event.id, new_id)
    ):
        raise Conflict(f"External id {new_id!r} is already taken.", code="external_id_taken")
    before = participant.external_id
    shown = (participant.external_id, participant.name, participant.category)
    for field, value in changes.items():
        setattr(participant, field, value)
    try:
        session.flush()
    except IntegrityError as exc:  # only if the lock was bypassed: never a 500
        raise Conflict(
            f"External id {new_id!r} is already taken.", code="external_id_taken"
        ) from exc
    # the row as it now is (a concurrent edit of another field committed first is kept)
    session.refresh(participant)
    if (participant.external_id, participant.name, participant.category) != shown:
        identity.record(session, event.id, [participant], "update", actor)
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="participant.update",
        subject=f"participant:{before}",
        details=data.model_dump(mode="json", exclude_unset=True),
    )
    return participant


def delete_participant(
    session: Session, event: Event, participant: Participant, actor: str = ORGANISER_ACTOR
) -> None:
    """Delete a participant and their save codes. Callers check first that no take of
    theirs is recorded (`app.flows.event_setup.delete_participant`: Conflict
    `participant_has_takes`; the take log is never deleted)."""
    external_id = participant.external_id
    identity.record(session, event.id, [participant], "delete", actor)
    repository.delete_save_codes(session, participant.id)
    session.delete(participant)
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="participant.delete",
        subject=f"participant:{external_id}",
    )


def reissue_token(
    session: Session,
    event: Event,
    participant: Participant,
    actor: str = ORGANISER_ACTOR,
    *,
    seal_with: str | None = None,
) -> NewParticipant:
    """A new access token for a participant; the previous one stops working at once.
    `seal_with` (SECRET_KEY): keep it sealed for a later re-print (`card_token`)."""
    token = new_token()
    participant.access_token_hash = hash_token(token)
    participant.access_token_sealed = seal_token(seal_with, token) if seal_with else None
    session.flush()
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="participant.reissue_token",
        subject=f"participant:{participant.external_id}",
    )
    codes = repository.save_codes_by_participant(session, event.id, participant.id)
    return NewParticipant(participant, token, codes.get(participant.id, []))


def seal_tokens(session: Session, created: Sequence[NewParticipant], secret: str) -> None:
    """Keep each new participant's token sealed with `secret` (SECRET_KEY), so the first
    print of their card shows the link already given out (by the API's answer, the add
    form or the demo) instead of issuing a new one (`card_token`; issue 26 point 7)."""
    sealed = {new.participant.id: seal_token(secret, new.access_token) for new in created}
    repository.set_sealed_tokens(session, sealed)
    for new in created:
        new.participant.access_token_sealed = sealed[new.participant.id]


def card_token(
    session: Session, event: Event, participant: Participant, secret: str, *, reissue: bool
) -> NewParticipant:
    """The token to print on a participant's card (issue 26 point 7): the one sealed at an
    earlier print when it is still the participant's (a second print after a paper jam
    keeps every link); otherwise, or with `reissue`, a new one (`reissue_token`, sealed
    with `secret`)."""
    token = None if reissue else unseal_token(secret, participant.access_token_sealed)
    if token is None or hash_token(token) != participant.access_token_hash:
        return reissue_token(session, event, participant, seal_with=secret)
    codes = repository.save_codes_by_participant(session, event.id, participant.id)
    return NewParticipant(participant, token, codes.get(participant.id, []))


def card_tokens(
    session: Session,
    event: Event,
    participants: Sequence[Participant],
    secret: str,
    *,
    reissue: bool,
) -> tuple[list[NewParticipant], list[str]]:
    """`card_token` of each participant (in order), and the external ids whose link this
    print renewed (a first print of a token never sealed, or `reissue`): their links
    given out earlier stop working, which the printed sheet says."""
    before = {p.id: p.access_token_hash for p in participants}
    issued = [card_token(session, event, p, secret, reissue=reissue) for p in participants]
    renewed = [
        n.participant.external_id
        for n in issued
        if hash_token(n.access_token) != before[n.participant.id]
    ]
    return issued, renewed


def token_issued(new: NewParticipant, base_url: str) -> AccessTokenIssued:
    return AccessTokenIssued(
        external_id=new.participant.external_id,
        access_token=new.access_token,
        personal_url=personal_url(base_url, new.access_token),
    )


# -- reads for the routers and pages (the SQL is in app.events.repository) --------------------


def list_events(session: Session) -> Sequence[Event]:
    """Every event, by id (`repository.list_events`)."""
    return repository.list_events(session)


def checkpoints(session: Session, event_id: int) -> Sequence[Checkpoint]:
    """The event's checkpoints by number (`repository.checkpoints`)."""
    return repository.checkpoints(session, event_id)


def participants(session: Session, event_id: int) -> Sequence[Participant]:
    """The event's participants by id (`repository.participants`)."""
    return repository.participants(session, event_id)
