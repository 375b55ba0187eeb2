"""Delivering takes: store every delivery in the log, then advance the projection.

Every delivered take is inserted into the append-only `take` log first (each row
appended to its participant's hash chain, app.core.chain); then the participant's rules
state is advanced (`app.feed.projection`). Concurrent deliveries for one participant
are serialised by a row lock on the participant (`repo.lock_participants`). Also here:
the phone scan, the organiser's corrections (void a take, add a missing take) and the
device clocks (corrected at receipt; an organiser's offset per source). Services flush,
never commit.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session

from app.core import audit, chain, ledger
from app.core.db import utcnow
from app.core.errors import AppError, Conflict, NotFound, TooManyRequests
from app.core.problems import problem_body
from app.events.models import Event, Participant
from app.feed import repository as repo
from app.feed import rules, views
from app.feed.deck import Deck, course_of, display, is_card_or_discard_code, load_deck
from app.feed.freeze import (
    ensure_feed_open,
    feed_closed_error,
    feed_frozen,
    load_event_for_feed,
)
from app.feed.models import ParticipantState, SourceClock, Take, TakeOutcome, TakeVoid
from app.feed.projection import ProjectionWrites, apply_new_takes, replay_participant
from app.feed.schemas import ItemError, LogItem, SourceClockRead, TakeCreate, TakeResult

PHONE_SOURCE = "phone"
ORGANISER_SOURCE = "organiser"
RATE_WINDOW = timedelta(minutes=1)
CLOCK_TOLERANCE = timedelta(seconds=30)  # default of Settings.feed_clock_tolerance_seconds
MAX_CLOCK_OFFSET = timedelta(days=7)  # a device clock further off than this is not corrected


# -- item results ------------------------------------------------------------------------------


def item_error(
    source_id: Any, status: int, code: str, detail: str, fields: list[dict[str, Any]] | None = None
) -> TakeResult:
    """The result of an item that was not stored (`status` `error`); `error` is an
    RFC 9457 problem object (`problem_body`) with the HTTP status the item alone would get."""
    valid = isinstance(source_id, str | int) and not isinstance(source_id, bool)
    text = str(source_id)[:128] if valid else None
    error = ItemError(**problem_body(status, code, detail, fields=fields or []))
    return TakeResult(source_id=text, status="error", error=error)


def _validation_fields(exc: ValidationError) -> list[dict[str, Any]]:
    return [
        {"loc": [str(part) for part in error["loc"]], "msg": error["msg"], "type": error["type"]}
        for error in exc.errors()
    ]


def _invalid_take(raw: Any, exc: ValidationError) -> TakeResult:
    """The result of an item `TakeCreate` refused: 422 `invalid_take` with its fields."""
    source_id = raw.get("source_id") if isinstance(raw, dict) else None
    detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
    return item_error(
        source_id,
        422,
        "invalid_take",
        f"The take is not valid: {detail}",
        fields=_validation_fields(exc),
    )


def _result(
    deck: Deck, source_id: str, status: str, take_id: int, outcome: TakeOutcome | rules.Outcome
) -> TakeResult:
    """An organiser's view of a take's result: the truth, card and discard code included."""
    discard_code = None
    if outcome.kind == "card" and outcome.checkpoint_id is not None:
        discard_code = deck.discard_codes.get(outcome.checkpoint_id)
    return TakeResult(
        source_id=source_id,
        status=status,  # type: ignore[arg-type]
        take_id=take_id,
        kind=outcome.kind,  # type: ignore[arg-type]
        outcome=outcome.outcome,  # type: ignore[arg-type]
        reason=outcome.reason,
        card=outcome.card,
        card_display=display(outcome.card),
        discard_code=discard_code,
    )


def _item_problem(result: TakeResult) -> AppError | None:
    """The problem that refuses a single take (scan, manual take) that was not stored, as
    a whole: 409 `feed_closed`, 422 `invalid_take` (with `errors`, the invalid fields),
    404 `participant_not_found`; None when it was stored."""
    if result.error is None:
        return None
    extra = {"errors": result.error.fields} if result.error.fields else {}
    return AppError(
        result.error.detail, code=result.error.code, status=result.error.status, **extra
    )


def _raise_if_error(result: TakeResult) -> None:
    """Raise `_item_problem(result)`, if any."""
    if (problem := _item_problem(result)) is not None:
        raise problem


# -- a batch -----------------------------------------------------------------------------------

Item = tuple[int, TakeCreate, Participant]  # (index in the batch, the item, its participant)


@dataclass
class _Batch:
    """One delivery on its way through `ingest`: each item's result, the accepted items,
    which were stored (index -> take id) or were in the log already (index -> the
    original take id), and the new takes by participant."""

    results: list[TakeResult | None]
    accepted: list[Item] = field(default_factory=list)
    stored: dict[int, int] = field(default_factory=dict)
    duplicates: dict[int, int] = field(default_factory=dict)
    new: dict[int, list[rules.TakeIn]] = field(default_factory=lambda: defaultdict(list))
    participants: dict[int, Participant] = field(default_factory=dict)


def ingest(
    session: Session,
    event: Event,
    items: Sequence[Any],
    *,
    recorded_by: str | Sequence[str],
    received_at: datetime | None = None,
    payloads: Sequence[dict[str, Any]] | None = None,
    frozen: bool | None = None,
    sent_at: datetime | Sequence[datetime | None] | None = None,
    clock_tolerance: timedelta = CLOCK_TOLERANCE,
) -> list[TakeResult]:
    """Store and apply a batch of takes (API.md feed); one result per item, in input order.

    Each item is validated on its own (`TakeCreate`): a bad item (missing field,
    naive `taken_at`, unknown participant) gets a result with `status` `error`
    and is not stored; the others are. A `(source, source_id)` already in the
    log stores nothing and reports `duplicate_delivery` with the original
    take's current outcome (RULES.md I-4). Participants of the batch are locked
    in id order before anything is stored. `recorded_by`: who sent the takes
    (`organiser`, `key:<prefix>`, …), one for all or one per item. `frozen`:
    whether the feed is frozen, when the caller has already read the event row
    FOR SHARE in this transaction (`freeze.load_event_for_feed`); None: read it here
    (`freeze.feed_frozen`).

    Device clocks: `sent_at` is the sending device's clock when it sent its batch
    (aware UTC; one for all items or one per item, None: not given). When the
    offset `received_at − sent_at` exceeds `clock_tolerance`, every take of that
    batch is stored with `taken_at` = its device time + the offset, and keeps the
    device time (`device_taken_at`) and the offset (`clock_offset_seconds`); see
    `clock_offset`. Any batch entry point (field apps, the phone sync) passes it here.
    """
    received_at = received_at or utcnow()
    senders = [recorded_by] * len(items) if isinstance(recorded_by, str) else list(recorded_by)
    sent = [sent_at] * len(items) if not isinstance(sent_at, Sequence) else list(sent_at)
    batch = _Batch(results=[None] * len(items))
    _accept(session, event, _validate(items, batch), batch)
    deck = load_deck(session, event)
    if batch.accepted and (feed_frozen(session, event) if frozen is None else frozen):
        _refuse_new_takes(session, event, batch)
    to_store = [item for item in batch.accepted if item[0] not in batch.duplicates]
    times = {
        index: _corrected_time(
            item.taken_at, clock_offset(received_at, sent[index], clock_tolerance)
        )
        for index, item, _ in to_store
    }
    # After the lock: the states (and chain heads) the previous lock holder committed.
    states = repo.states_of(session, (participant.id for _, _, participant in to_store))
    links = _ChainLinks(event.id, senders, received_at, payloads, states)
    rows, heads = links.rows(
        repo.logged_source_keys(session, event.id, _keys(to_store)), to_store, times
    )
    _store(session, event, deck, rows, to_store, times, batch)
    outcomes = _apply(session, deck, batch, states, heads)
    return _results(session, deck, batch, outcomes)


def _validate(items: Sequence[Any], batch: _Batch) -> list[tuple[int, TakeCreate]]:
    """The items `TakeCreate` accepts, with their index; the others get their error."""
    valid: list[tuple[int, TakeCreate]] = []
    for index, raw in enumerate(items):
        try:
            valid.append((index, TakeCreate.model_validate(raw)))
        except ValidationError as exc:
            batch.results[index] = _invalid_take(raw, exc)
    return valid


def _accept(
    session: Session, event: Event, valid: list[tuple[int, TakeCreate]], batch: _Batch
) -> None:
    """Lock the items' participants (in id order) and accept the items of those found;
    the others get 404 `participant_not_found`."""
    participants = repo.lock_participants_by_external_id(
        session, event.id, (item.participant for _, item in valid)
    )
    for index, item in valid:
        participant = participants.get(item.participant)
        if participant is None:
            batch.results[index] = item_error(
                item.source_id,
                404,
                "participant_not_found",
                f"No participant {item.participant!r} in this event.",
            )
        else:
            batch.accepted.append((index, item, participant))


def _refuse_new_takes(session: Session, event: Event, batch: _Batch) -> None:
    """The ceremony has begun: nothing new is stored (409 `feed_closed`); a redelivery
    still answers `duplicate_delivery` (idempotency)."""
    closed = feed_closed_error()
    still: list[Item] = []
    for index, item, participant in batch.accepted:
        original = repo.take_by_source(session, event.id, item.source, item.source_id)
        if original is None:
            batch.results[index] = item_error(item.source_id, 409, closed.code, closed.detail)
        else:
            batch.duplicates[index] = original.id
            still.append((index, item, participant))
    batch.accepted = still


def _keys(to_store: Sequence[Item]) -> list[tuple[str, str]]:
    return [(item.source, item.source_id) for _, item, _ in to_store]


def _store(
    session: Session,
    event: Event,
    deck: Deck,
    rows: list[dict[str, Any]],
    to_store: Sequence[Item],
    times: Mapping[int, dict[str, Any]],
    batch: _Batch,
) -> None:
    """Insert the take `rows`; each item is then stored (with its field time, RULES.md I-4)
    or a redelivery of a take in the log before or earlier in this batch."""
    inserted = repo.insert_takes(session, rows)
    if len(inserted) != len(rows):
        # Another transaction stored one of these (source, source_id) after our check; the
        # chain was computed without it. Fail: the batcher retries each delivery alone.
        raise RuntimeError("a take of this delivery was stored concurrently; retry")
    claimed: set[tuple[str, str]] = set()
    for index, item, participant in to_store:
        key = (item.source, item.source_id)
        take_id = inserted.get(key)
        if take_id is None or key in claimed:  # in the log before, or earlier in this batch
            original = repo.take_by_source(session, event.id, item.source, item.source_id)
            assert original is not None
            batch.duplicates[index] = original.id
            continue
        claimed.add(key)
        batch.stored[index] = take_id
        batch.participants[participant.id] = participant
        row = times[index]
        field_time = deck.field_time(item.source, row["taken_at"], row["device_taken_at"])
        batch.new[participant.id].append(rules.TakeIn(take_id, item.code, field_time))


def _apply(
    session: Session,
    deck: Deck,
    batch: _Batch,
    states: Mapping[int, Any],
    heads: Mapping[int, tuple[int, str]],
) -> dict[int, rules.Outcome]:
    """Apply the stored takes participant by participant (`projection.apply_new_takes`)
    and write their rows at once; the outcomes by take id."""
    outcomes: dict[int, rules.Outcome] = {}
    # Save codes are needed only to classify codes that are neither CP nor discard codes.
    save_codes = repo.save_codes_by_participant(
        session,
        [
            participant_id
            for participant_id, takes in batch.new.items()
            if any(deck.card_or_discard(take.code) is None for take in takes)
        ],
    )
    writes = ProjectionWrites()
    for participant_id, takes in batch.new.items():
        outcomes.update(
            apply_new_takes(
                session,
                deck,
                batch.participants[participant_id],
                takes,
                row=states.get(participant_id),
                save_codes=save_codes.get(participant_id, ()),
                writes=writes,
                head=heads.get(participant_id),
            )
        )
    writes.write(session)
    return outcomes


def _results(
    session: Session, deck: Deck, batch: _Batch, outcomes: Mapping[int, rules.Outcome]
) -> list[TakeResult]:
    """Every item's result in input order (a redelivery: the original take's outcome)."""
    originals = repo.outcomes_by_take(session, batch.duplicates.values())
    for index, item, _ in batch.accepted:
        if index in batch.stored:
            take_id = batch.stored[index]
            batch.results[index] = _result(
                deck, item.source_id, "accepted", take_id, outcomes[take_id]
            )
        else:
            take_id = batch.duplicates[index]
            batch.results[index] = _result(
                deck, item.source_id, "duplicate_delivery", take_id, originals[take_id]
            )
    return [result for result in batch.results if result is not None]


@dataclass(frozen=True)
class _ChainLinks:
    """What the `take` rows of one delivery share (`rows`): the event, each item's sender,
    the receipt time, the payloads as given (None: each item as validated), and the
    participants' stored states with their chain heads (`repo.states_of`, read after the
    lock)."""

    event_id: int
    senders: Sequence[str]
    received_at: datetime
    payloads: Sequence[dict[str, Any]] | None
    states: Mapping[int, Any]

    def rows(
        self,
        logged: set[tuple[str, str]],
        to_store: Sequence[Item],
        times: Mapping[int, dict[str, Any]],
    ) -> tuple[list[dict[str, Any]], dict[int, tuple[int, str]]]:
        """The `take` rows to insert, each appended to its participant's hash chain
        (app.core.chain; the participants are locked and their heads current). A
        `(source, source_id)` already in the log (`logged`), or earlier in the batch,
        gets no row: it is a redelivery. `times`: each item's time columns
        (`_corrected_time`). Returns the rows and each participant's new head
        `(log_seq, log_head)` (written with their state)."""
        rows: list[dict[str, Any]] = []
        heads: dict[int, tuple[int, str]] = {}
        for index, item, participant in to_store:
            key = (item.source, item.source_id)
            if key in logged:
                continue
            logged.add(key)
            row = self._row(index, item, participant, times[index], heads)
            heads[participant.id] = (row["log_seq"], row["log_hash"])
            rows.append(row)
        return rows, heads

    def _row(
        self,
        index: int,
        item: TakeCreate,
        participant: Participant,
        time: dict[str, Any],
        heads: Mapping[int, tuple[int, str]],
    ) -> dict[str, Any]:
        """One `take` row, linked after the participant's head (this batch's, else stored)."""
        payload = self.payloads[index] if self.payloads else item.model_dump(mode="json")
        content = chain.take_content(
            source=item.source,
            source_id=item.source_id,
            code=item.code,
            received_at=self.received_at,
            recorded_by=self.senders[index],
            payload=payload,
            **time,
        )
        if participant.id in heads:
            seq, head = heads[participant.id]
        else:
            state = self.states.get(participant.id)
            seq, head = (state["log_seq"], state["log_head"]) if state else (0, None)
        seq, prev, digest = chain.next_link(seq, head, chain.TAKE, content)
        return {
            "event_id": self.event_id,
            "participant_id": participant.id,
            "source": item.source,
            "source_id": item.source_id,
            "code": item.code,
            **time,
            "received_at": self.received_at,
            "recorded_by": self.senders[index],
            "payload": payload,
            "log_seq": seq,
            "log_prev": prev,
            "log_hash": digest,
        }


# -- device clocks ---------------------------------------------------------------------------


def clock_offset(
    received_at: datetime, sent_at: datetime | None, tolerance: timedelta
) -> timedelta | None:
    """A device clock's offset `received_at − sent_at` (the server clock at receipt minus
    the device's clock when it sent the batch), when its size exceeds `tolerance`;
    None when `sent_at` is None, within the tolerance, or more than `MAX_CLOCK_OFFSET`
    off (a clock that wrong is a wrong setting, not drift: the times stay as sent and
    `future_takes` flags them). Positive: the device is slow."""
    if sent_at is None:
        return None
    offset = received_at - sent_at
    if abs(offset) <= tolerance or abs(offset) > MAX_CLOCK_OFFSET:
        return None
    return offset


def _corrected_time(device_time: datetime, offset: timedelta | None) -> dict[str, Any]:
    """The time columns of a new take: `taken_at` (field time), and with a clock
    correction the device time and the offset kept beside it."""
    try:
        corrected = device_time + offset if offset is not None else None
    except OverflowError:  # a device time at the end of the calendar: not corrected
        corrected = None
    if offset is None or corrected is None:
        return {"taken_at": device_time, "device_taken_at": None, "clock_offset_seconds": None}
    return {
        "taken_at": corrected,
        "device_taken_at": device_time,
        "clock_offset_seconds": offset.total_seconds(),
    }


def set_source_clock(
    session: Session, event: Event, source: str, offset_seconds: float | None, *, actor: str
) -> SourceClockRead:
    """Set (or with None clear) the organiser's offset of `source`'s clock, in seconds,
    and replay the participants with takes of that source.

    A new `source_clock` row (a log, chained per event: `app.core.ledger` chain `clocks`;
    the takes are never edited); every take of the
    source is then played at its device time + the offset (`Deck.field_time`,
    RULES.md I-4). 404 `source_not_found` (no take of that source in the event);
    409 `feed_closed` once the ceremony has begun.
    """
    ensure_feed_open(session, event)
    participant_ids = repo.participant_ids_of_source(session, event.id, source)
    if not participant_ids:
        raise NotFound(f"No take of source {source!r} in this event.", code="source_not_found")
    repo.lock_participants(session, participant_ids)
    now = utcnow()
    content = chain.source_clock_content(
        source=source, offset_seconds=offset_seconds, set_by=actor, set_at=now
    )
    [(seq, prev, digest)] = ledger.append(session, event.id, chain.CLOCKS, chain.SOURCE_CLOCK,
                                          [content])  # fmt: skip
    row = SourceClock(
        event_id=event.id, source=source, offset_seconds=offset_seconds, set_by=actor, set_at=now,
        log_seq=seq, log_prev=prev, log_hash=digest,
    )  # fmt: skip
    session.add(row)
    session.flush()
    deck = load_deck(session, event)
    takes = changed = 0
    for participant_id in participant_ids:
        participant = session.get(Participant, participant_id)
        assert participant is not None
        outcomes, n = replay_participant(session, deck, participant)
        takes += len(outcomes)
        changed += n
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="feed.source_clock_set",
        subject=f"source:{source}",
        details={"offset_seconds": offset_seconds, "participants": len(participant_ids),
                 "takes": takes, "changed": changed},
    )  # fmt: skip
    return SourceClockRead(
        source=source,
        offset_seconds=offset_seconds,
        set_by=actor,
        set_at=now,
        participants=len(participant_ids),
        takes=takes,
        changed_outcomes=changed,
    )


# -- phones -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PhoneScan:
    """One phone scan to store: the participant (row), the code as typed or read from the
    QR code, the phone's `source_id` (None: one is generated) and `received_at`, the
    server's clock when the request came in (aware UTC: the take's time; the phone sends
    no time of its own, RULES.md I-22)."""

    participant: Participant
    code: str
    source_id: str | None
    received_at: datetime


def scan(
    session: Session,
    participant: Participant,
    code: str,
    *,
    source_id: str | None,
    unknown_per_minute: int,
    now: datetime | None = None,
) -> TakeResult:
    """A take from the participant's phone at the server's clock (source `phone`), as the
    participant may see its result (`views.for_participant`, RULES.md I-1): `scan_many`
    of one scan, in the caller's transaction.

    Raises the scan's problem: 429 `too_many_unknown_codes`, 409 `feed_closed`, 422
    `invalid_take`, 404 `participant_not_found` (`scan_many`).
    """
    loaded = load_event_for_feed(session, participant.event_id)  # FOR SHARE, with the freeze
    assert loaded is not None
    event, frozen = loaded
    phone_scan = PhoneScan(participant, code, source_id, now or utcnow())
    (answer,) = scan_many(
        session, event, [phone_scan], unknown_per_minute=unknown_per_minute, frozen=frozen
    )
    if isinstance(answer, AppError):
        raise answer
    return answer


def scan_many(
    session: Session,
    event: Event,
    scans: Sequence[PhoneScan],
    *,
    unknown_per_minute: int,
    frozen: bool,
) -> list[TakeResult | AppError]:
    """Store the phone scans of `event` (one `ingest` for all: the group commit of
    `app.feed.batching`); per scan, in order, its result as its participant may see it
    (`views.own_result`, RULES.md I-1) or the problem that refuses it alone (nothing of
    it stored): 429 `too_many_unknown_codes`, or its item problem (`_item_problem`).
    `frozen`: the event row was read FOR SHARE in this transaction
    (`freeze.load_event_for_feed`).

    Code guessing is rate limited: when `unknown_per_minute` phone takes of unknown codes
    were received in the last minute (counted in the database, so every app process sees
    the same count; earlier scans of this call count too), another unknown code is
    refused. Known codes (a CP or discard code of the event, one of the participant's
    own save codes: `Course.classify`) always go through.
    """
    now = max(s.received_at for s in scans)
    answers: list[TakeResult | AppError | None] = list(
        _guess_refusals(session, event, scans, unknown_per_minute, now)
    )
    stored = [index for index, answer in enumerate(answers) if answer is None]
    items = [
        {
            "participant": scans[index].participant.external_id,
            "code": scans[index].code,
            "taken_at": scans[index].received_at,
            "source": PHONE_SOURCE,
            "source_id": scans[index].source_id or uuid.uuid4().hex,
        }
        for index in stored
    ]
    senders = [f"participant:{scans[index].participant.external_id}" for index in stored]
    results = (
        ingest(session, event, items, recorded_by=senders, received_at=now, frozen=frozen)
        if items
        else []
    )
    for index, result in zip(stored, results, strict=True):
        problem = _item_problem(result)
        answers[index] = problem or views.own_result(session, scans[index].participant.id, result)
    return answers  # type: ignore[return-value]  # every scan answered


def _guess_refusals(
    session: Session,
    event: Event,
    scans: Sequence[PhoneScan],
    unknown_per_minute: int,
    now: datetime,
) -> list[TooManyRequests | None]:
    """Per scan, 429 `too_many_unknown_codes` when its code is unknown (not a CP, discard
    or own save code) and `unknown_per_minute` phone takes of unknown codes came in the
    last minute, counting those earlier in `scans` (under the participants' locks);
    else None."""
    refusals: list[TooManyRequests | None] = [None] * len(scans)
    guesses = [
        i for i, s in enumerate(scans) if not is_card_or_discard_code(session, event, s.code)
    ]
    if not guesses:  # a CP's code: never limited
        return refusals
    repo.lock_participants(session, [scans[i].participant.id for i in guesses])  # id order
    since = now - RATE_WINDOW
    earlier: defaultdict[int, int] = defaultdict(int)  # unknown codes earlier in `scans`
    for index in guesses:
        participant, code = scans[index].participant, scans[index].code
        counted = repo.count_unknown_phone_takes(session, participant.id, since)
        if counted + earlier[participant.id] < unknown_per_minute:
            if len(guesses) > 1 and _is_unknown(session, event, participant, code):
                earlier[participant.id] += 1  # stored below: counts for the next ones
            continue
        if not _is_unknown(session, event, participant, code):
            continue
        oldest = repo.oldest_unknown_phone_take(session, participant.id, since) or now
        retry = max(1, int((oldest + RATE_WINDOW - now).total_seconds()) + 1)
        refusals[index] = TooManyRequests(
            f"Too many unknown codes in the last minute; try again in {retry} s.",
            code="too_many_unknown_codes",
            headers={"Retry-After": str(retry)},
        )
    return refusals


def _is_unknown(session: Session, event: Event, participant: Participant, code: str) -> bool:
    """Whether `code` is no code `participant` may use (`Course.classify`: not a CP, a
    discard or one of their save codes)."""
    return (
        course_of(session, load_deck(session, event), participant.id).classify(code)[0] == "unknown"
    )


# -- corrections ------------------------------------------------------------------------------


def void_take(session: Session, event: Event, take_id: int, reason: str, *, actor: str) -> LogItem:
    """Void a take (an organiser correction): a new `take_void` row, the take stays in the
    log; the participant is replayed. 404 `take_not_found`, 409 `take_already_voided`;
    409 `feed_closed` once the ceremony has begun."""
    take = session.get(Take, take_id)
    if take is None or take.event_id != event.id:
        raise NotFound(f"Take {take_id} does not exist in this event.", code="take_not_found")
    ensure_feed_open(session, event)
    participant = session.get(Participant, take.participant_id)
    assert participant is not None
    repo.lock_participants(session, [participant.id])
    if repo.is_voided(session, take_id):
        raise Conflict(f"Take {take_id} is already voided.", code="take_already_voided")
    voided_at = utcnow()
    content = chain.void_content(
        take_hash=take.log_hash or "", reason=reason, voided_by=actor, voided_at=voided_at
    )
    state_row = session.get(ParticipantState, participant.id, populate_existing=True)
    seq, head = (state_row.log_seq, state_row.log_head) if state_row else (0, None)
    seq, prev, digest = chain.next_link(seq, head, chain.TAKE_VOID, content)
    session.add(
        TakeVoid(
            take_id=take_id, reason=reason, voided_by=actor, voided_at=voided_at,
            log_seq=seq, log_prev=prev, log_hash=digest,
        )
    )  # fmt: skip
    session.flush()
    replay_participant(session, load_deck(session, event), participant, head=(seq, digest))
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="feed.take_voided",
        subject=f"take:{take_id}",
        details={"participant": participant.external_id, "reason": reason},
    )
    return views.log(session, event, take_id=take_id).items[0]


def add_take(
    session: Session,
    event: Event,
    *,
    participant: str,
    code: str,
    taken_at: datetime,
    note: str,
    source_id: str | None,
    actor: str,
) -> TakeResult:
    """Add a missing take (an organiser correction, e.g. from a paper backup), source
    `organiser`. 404 `participant_not_found`; 409 `feed_closed` once the ceremony began."""
    if participant not in repo.participants_by_external_id(session, event.id, [participant]):
        raise NotFound(
            f"No participant {participant!r} in this event.", code="participant_not_found"
        )
    item = {
        "participant": participant,
        "code": code,
        "taken_at": taken_at,
        "source": ORGANISER_SOURCE,
        "source_id": source_id or f"manual-{uuid.uuid4().hex}",
    }
    try:
        payload = {**TakeCreate.model_validate(item).model_dump(mode="json"), "note": note}
    except ValidationError as exc:
        _raise_if_error(_invalid_take(item, exc))
    (result,) = ingest(session, event, [item], recorded_by=actor, payloads=[payload])
    _raise_if_error(result)
    if result.status == "accepted":
        audit.record(
            session,
            event_id=event.id,
            actor=actor,
            action="feed.take_added",
            subject=f"take:{result.take_id}",
            details={
                "participant": participant,
                "taken_at": taken_at.isoformat(),
                "note": note,
                "outcome": result.outcome,
                "reason": result.reason,
            },
        )
    return result
