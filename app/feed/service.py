"""The field feed: store every delivery, apply the rules, keep the state projection.

Every delivered take is inserted into the append-only `take` log first; then the
participant's rules state (`app.feed.rules`) is advanced. A take that arrives in
field-time order is applied incrementally to the stored state; a late one
(earlier `taken_at` than the participant's last take) replays that participant
from their log and rewrites their projection (RULES.md I-4). Concurrent
deliveries for one participant are serialised by a row lock on the participant
(`lock_participants`). Services flush, never commit.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError
from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from app.core import audit, chain, csvfiles
from app.core.db import utcnow
from app.core.errors import (
    AppError,
    Conflict,
    NotFound,
    TooManyRequests,
    Unprocessable,
)
from app.core.problems import problem_body
from app.events.codes import normalize_code
from app.events.models import Checkpoint, Event, Participant, SaveCode
from app.feed import repository as repo
from app.feed import rules
from app.feed.models import (
    Combination,
    ParticipantState,
    SourceClock,
    Take,
    TakeOutcome,
    TakeVoid,
)
from app.feed.schemas import (
    CombinationRead,
    DeviceClockWarning,
    FutureTakeWarning,
    HandFullWarning,
    ItemError,
    LogItem,
    LogRead,
    ParticipantStateRead,
    PreviousOutcome,
    SourceClockRead,
    StateTake,
    TakeCreate,
    TakeResult,
    UnknownCodeWarning,
    UnsavedHand,
    WarningsRead,
)

VOIDED = "voided"  # reason shown for a take an organiser voided (an extension of API.md)
PHONE_SOURCE = "phone"
ORGANISER_SOURCE = "organiser"
RATE_WINDOW = timedelta(minutes=1)
FUTURE_MARGIN = timedelta(minutes=5)  # a take dated later than receipt + this is a warning
CLOCK_TOLERANCE = timedelta(seconds=30)  # default of Settings.feed_clock_tolerance_seconds
MAX_CLOCK_OFFSET = timedelta(days=7)  # a device clock further off than this is not corrected


# -- cards ---------------------------------------------------------------------------------


def display(card: str | None) -> str | None:
    """The display form of a canonical card code (`Q♥`, `10♠`, `Joker`)."""
    if card is None:
        return None
    from app.poker.cards import display as poker_display

    return poker_display(card)


def categoriser(ranking: str) -> Callable[[Sequence[str]], str]:
    """The category name of a 5-card hand under `ranking` (the poker evaluator)."""
    from app.poker.evaluator import evaluate

    def categorise(cards: Sequence[str]) -> str:
        return evaluate(list(cards), ranking=ranking).category

    return categorise


def voided_outcome(take_id: int, code: str, old: Any, course: rules.Course) -> rules.Outcome:
    """The outcome of a voided take: rejected as `voided`, keeping where it stood.

    `old` is its previous outcome row (kind, card, checkpoint_id, deal, round), if any;
    without one the code is classified afresh and deal/round are 0.
    """
    if old is not None:
        return rules.Outcome(
            take_id, old.kind, rules.REJECTED, VOIDED, old.card, old.checkpoint_id,
            old.deal, old.round,
        )  # fmt: skip
    kind, cp, _ = course.classify(code)
    card, cp_id = (cp.card, cp.checkpoint_id) if cp else (None, None)
    return rules.Outcome(take_id, kind, rules.REJECTED, VOIDED, card, cp_id, 0, 0)


def by_strength(combinations: Iterable[Any], ranking: str) -> list[Any]:
    """Combinations (anything with `cards` and `id`) from the strongest to the weakest
    under `ranking` (RULES.md §1.3, the poker evaluator); equal ones by id (saved first)."""
    from app.poker.evaluator import evaluate

    def key(combination: Any) -> tuple[Any, ...]:
        strength = evaluate(list(combination.cards), ranking=ranking).strength
        return tuple(-level for level in strength), combination.id

    return sorted(combinations, key=key)


def describe(cards: Sequence[str], ranking: str) -> tuple[str, str]:
    """The English and Russian descriptions of a saved 5-card combination (RULES.md §1.3)."""
    from app.poker.evaluator import evaluate

    value = evaluate(list(cards), ranking=ranking)
    return value.description, value.description_ru


# -- the deck of an event --------------------------------------------------------------------


@dataclass
class Deck:
    """An event's codes, loaded once per request: what `rules.Course` needs."""

    event: Event
    checkpoints: dict[str, rules.CheckpointRef]
    discards: dict[str, rules.CheckpointRef]
    numbers: dict[int, int]  # checkpoint id -> CP number
    discard_codes: dict[int, str]  # checkpoint id -> discard code
    categorise: Callable[[Sequence[str]], str]
    clocks: dict[str, float] = field(default_factory=dict)  # source -> organiser's offset (s)

    def field_time(
        self, source: str, taken_at: datetime, device_taken_at: datetime | None
    ) -> datetime:
        """A take's field time (UTC, RULES.md I-4): `taken_at` as stored (a device clock
        corrected at receipt already), or, when the organiser set an offset for `source`
        (`set_source_clock`), the device time (`device_taken_at`, else `taken_at`) plus
        that offset. The log is never edited: the time is derived each time."""
        offset = self.clocks.get(source)
        if offset is None:
            return taken_at
        try:
            return (device_taken_at or taken_at) + timedelta(seconds=offset)
        except OverflowError:  # a device time at the end of the calendar: as stored
            return taken_at

    def card_or_discard(self, code: str) -> rules.CheckpointRef | None:
        """The CP whose code or discard code `code` is, else None."""
        normalised = normalize_code(code)
        return self.checkpoints.get(normalised) or self.discards.get(normalised)

    def course(self, save_codes: Iterable[str]) -> rules.Course:
        return rules.Course(
            opens_at=self.event.opens_at,
            closes_at=self.event.closes_at,
            checkpoints=self.checkpoints,
            discards=self.discards,
            save_codes=frozenset(normalize_code(code) for code in save_codes),
            categorise=self.categorise,
        )


def load_deck(session: Session, event: Event) -> Deck:
    """The event's CPs and its sources' clock offsets as a `Deck` (two queries)."""
    checkpoints: dict[str, rules.CheckpointRef] = {}
    discards: dict[str, rules.CheckpointRef] = {}
    numbers: dict[int, int] = {}
    discard_codes: dict[int, str] = {}
    # Codes are stored normalised (app.events.service), so they are keys as they are.
    for cp_id, number, card, code, discard_code in repo.checkpoints_of_event(session, event.id):
        ref = rules.CheckpointRef(cp_id, number, card)
        checkpoints[code] = ref
        discards[discard_code] = ref
        numbers[cp_id] = number
        discard_codes[cp_id] = discard_code
    return Deck(
        event,
        checkpoints,
        discards,
        numbers,
        discard_codes,
        categoriser(event.hand_ranking),
        repo.source_clocks(session, event.id),
    )


def course_of(session: Session, deck: Deck, participant_id: int) -> rules.Course:
    return deck.course(repo.save_codes_of(session, participant_id))


# -- applying takes ------------------------------------------------------------------------


def _outcome_values(outcome: rules.Outcome, participant_id: int) -> dict[str, Any]:
    """The columns of a new `take_outcome` row."""
    return {
        "take_id": outcome.take_id,
        "participant_id": participant_id,
        "kind": outcome.kind,
        "outcome": outcome.outcome,
        "reason": outcome.reason,
        "card": outcome.card,
        "checkpoint_id": outcome.checkpoint_id,
        "deal": outcome.deal,
        "round": outcome.round,
    }


def _outcome_row(outcome: rules.Outcome, participant_id: int) -> TakeOutcome:
    return TakeOutcome(**_outcome_values(outcome, participant_id))


def _combination_row(
    combination: rules.SavedCombination, event_id: int, participant_id: int
) -> Combination:
    return Combination(
        id=combination.id,
        event_id=event_id,
        participant_id=participant_id,
        cards=list(combination.cards),
        category=combination.category,
        deal=combination.deal,
        saved_at=combination.saved_at,
    )


def _store_state(
    session: Session,
    row: ParticipantState | None,
    participant: Participant,
    state: rules.PlayState,
    last: rules.TakeIn | None,
    head: tuple[int, str] | None = None,
) -> None:
    """Write a participant's state row; `head`: their chain's new `(log_seq, log_head)`
    (None: unchanged)."""
    if row is None:
        row = ParticipantState(participant_id=participant.id, event_id=participant.event_id)
        session.add(row)
    if head is not None:
        row.log_seq, row.log_head = head
    row.state = state.to_json()
    row.last_taken_at = last.taken_at if last else None
    row.last_take_id = last.take_id if last else None
    row.updated_at = utcnow()


@dataclass
class ProjectionWrites:
    """Rows that incremental applies of one delivery leave to write, all at once."""

    outcomes: list[dict[str, Any]] = field(default_factory=list)
    states: list[dict[str, Any]] = field(default_factory=list)  # new: INSERT
    updated_states: list[dict[str, Any]] = field(default_factory=list)  # existing: UPDATE
    combinations: list[Combination] = field(default_factory=list)

    def write(self, session: Session) -> None:
        """Insert/update everything collected (a few executemany statements), then flush."""
        repo.insert_outcomes(session, self.outcomes)
        repo.save_states(session, new=self.states, existing=self.updated_states)
        session.add_all(self.combinations)
        session.flush()


def apply_new_takes(
    session: Session,
    deck: Deck,
    participant: Participant,
    new: Sequence[rules.TakeIn],
    *,
    row: Mapping[str, Any] | None,
    save_codes: Sequence[str],
    writes: ProjectionWrites,
    head: tuple[int, str] | None = None,
) -> dict[int, rules.Outcome]:
    """Apply takes just inserted into the log for `participant` (already locked).

    `row` is the participant's stored state (`repo.states_of`: `state`,
    `last_taken_at`, `last_take_id`, `log_seq`, `log_head`; None before their first
    take), `save_codes` their save codes and `head` their chain's new head after
    these takes (`_chained_take_rows`; None: unchanged). In field-time order after the participant's
    last take: applied incrementally to the stored state, its rows collected
    in `writes` (the caller writes them all at once). Otherwise (a late take):
    the participant is replayed from the log (RULES.md I-4) and rewritten at
    once. Returns the outcomes of `new` by take id.
    """
    ordered = sorted(new, key=rules.field_order)
    last_key = (row["last_taken_at"], row["last_take_id"]) if row and row["last_taken_at"] else None
    if last_key is not None and rules.field_order(ordered[0]) <= last_key:
        outcomes, _ = replay_participant(session, deck, participant, head=head)
        return {take.take_id: outcomes[take.take_id] for take in ordered}

    course = deck.course(save_codes)
    state = rules.PlayState.from_json(row["state"] if row else None)
    result: dict[int, rules.Outcome] = {}
    for take in ordered:
        state, outcome = rules.apply_take(state, take, course)
        result[take.take_id] = outcome
        writes.outcomes.append(_outcome_values(outcome, participant.id))
    for combination in state.combinations:
        if combination.id in result:
            writes.combinations.append(
                _combination_row(combination, participant.event_id, participant.id)
            )
    last = ordered[-1]
    if head is None:
        head = (row["log_seq"], row["log_head"]) if row else (0, None)  # type: ignore[assignment]
    assert head is not None
    values = {
        "participant_id": participant.id,
        "event_id": participant.event_id,
        "state": state.to_json(),
        "last_taken_at": last.taken_at,
        "last_take_id": last.take_id,
        "updated_at": utcnow(),
        "log_seq": head[0],
        "log_head": head[1],
    }
    (writes.updated_states if row is not None else writes.states).append(values)
    return result


def replay_participant(
    session: Session, deck: Deck, participant: Participant, *, head: tuple[int, str] | None = None
) -> tuple[dict[int, rules.Outcome], int]:
    """Replay `participant` (already locked) from the log and rewrite their projection
    (with `head`, their chain's new `(log_seq, log_head)`, when rows were just appended).

    Voided takes are left out of the fold; their outcome is `rejected`/`voided`.
    A take whose outcome or reason changes keeps the old one in
    `previous_outcome`/`previous_reason` with `changed_at` (RULES.md I-4: the
    change is visible in the participant's log). Combinations are kept by id
    (the save take's id), so an unchanged combination keeps its row.
    Returns (outcomes by take id, number of takes whose outcome changed).
    """
    course = course_of(session, deck, participant.id)
    logged = repo.takes_of_participant(session, participant.id)
    live = [
        rules.TakeIn(t.id, t.code, deck.field_time(t.source, t.taken_at, t.device_taken_at))
        for t, void in logged
        if void is None
    ]
    state, outcomes = rules.replay(live, course)
    by_id = {outcome.take_id: outcome for outcome in outcomes}
    existing = repo.outcomes_of_participant(session, participant.id)
    for take, void in logged:
        if void is None:
            continue
        by_id[take.id] = voided_outcome(take.id, take.code, existing.get(take.id), course)

    now = utcnow()
    changed = 0
    for take_id, outcome in by_id.items():
        row = existing.get(take_id)
        if row is None:
            session.add(_outcome_row(outcome, participant.id))
            continue
        if (row.outcome, row.reason) != (outcome.outcome, outcome.reason):
            row.previous_outcome, row.previous_reason = row.outcome, row.reason
            row.changed_at = now
            changed += 1
        row.kind, row.outcome, row.reason = outcome.kind, outcome.outcome, outcome.reason
        row.card, row.checkpoint_id = outcome.card, outcome.checkpoint_id
        row.deal, row.round = outcome.deal, outcome.round

    stored = repo.combinations_of(session, participant.id)
    wanted = {combination.id: combination for combination in state.combinations}
    for combination_id, row in stored.items():
        if combination_id not in wanted:
            session.delete(row)
    for combination_id, combination in wanted.items():
        row = stored.get(combination_id)
        if row is None:
            session.add(_combination_row(combination, participant.event_id, participant.id))
        else:
            row.cards, row.category = list(combination.cards), combination.category
            row.deal, row.saved_at = combination.deal, combination.saved_at

    last = max(live, key=rules.field_order) if live else None
    stored_state = session.get(ParticipantState, participant.id, populate_existing=True)
    _store_state(session, stored_state, participant, state, last, head)
    session.flush()
    if changed:
        audit.record(
            session,
            event_id=participant.event_id,
            actor="system",
            action="feed.outcomes_changed",
            subject=f"participant:{participant.external_id}",
            details={"changed": changed},
        )
    return by_id, changed


# -- the freeze at the ceremony -----------------------------------------------------------------

FEED_CLOSED = "feed_closed"
FROZEN_STATUSES = ("ceremony", "finished")


def feed_frozen(session: Session, event: Event) -> bool:
    """True once the ceremony has begun: the event is `ceremony`/`finished`, or an
    auction of the event has been opened (`event.feed_frozen_at`: its results rest on
    the combinations).

    Both are read from the event row FOR SHARE (PostgreSQL). Opening an auction locks
    that row FOR UPDATE and writes `feed_frozen_at` to it, so a delivery either
    commits before the auction opens or, having waited for the lock, reads the
    updated row and sees the feed frozen (a value from another table read in the
    same statement would come from the snapshot taken before the wait).
    """
    status, frozen_at = session.execute(_FROZEN, {"event_id": event.id}).one()
    return is_frozen(status, frozen_at)


def is_frozen(status: str, feed_frozen_at: datetime | None) -> bool:
    """The freeze rule on an event row's `status` and `feed_frozen_at` (`feed_frozen`)."""
    return status in FROZEN_STATUSES or feed_frozen_at is not None


_FROZEN = (
    select(Event.status, Event.feed_frozen_at)
    .where(Event.id == bindparam("event_id"))
    .with_for_update(read=True)
)


def load_event_for_feed(session: Session, event_id: int) -> tuple[Event, bool] | None:
    """The event, read FOR SHARE (as `feed_frozen` reads it), and whether its feed is
    frozen; None when there is no such event. One statement for both."""
    event = session.execute(_EVENT_FOR_FEED, {"event_id": event_id}).scalar_one_or_none()
    return None if event is None else (event, is_frozen(event.status, event.feed_frozen_at))


_EVENT_FOR_FEED = (
    select(Event)
    .where(Event.id == bindparam("event_id"))
    .with_for_update(read=True)
    .execution_options(populate_existing=True)
)


def feed_closed_error() -> Conflict:
    return Conflict(
        "The feed is closed: the ceremony has begun (an auction was opened), so takes, "
        "corrections and replays can no longer change the combinations.",
        code=FEED_CLOSED,
    )


def ensure_feed_open(session: Session, event: Event) -> None:
    """Raise Conflict `feed_closed` (409) once the ceremony has begun (`feed_frozen`)."""
    if feed_frozen(session, event):
        raise feed_closed_error()


# -- delivering takes ------------------------------------------------------------------------


def _item_error(
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
    return _item_error(
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
    FOR SHARE in this transaction (`load_event_for_feed`); None: read it here
    (`feed_frozen`).

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
    results: list[TakeResult | None] = [None] * len(items)
    valid: list[tuple[int, TakeCreate]] = []
    for index, raw in enumerate(items):
        try:
            valid.append((index, TakeCreate.model_validate(raw)))
        except ValidationError as exc:
            results[index] = _invalid_take(raw, exc)

    participants = repo.lock_participants_by_external_id(
        session, event.id, (item.participant for _, item in valid)
    )
    accepted: list[tuple[int, TakeCreate, Participant]] = []
    for index, item in valid:
        participant = participants.get(item.participant)
        if participant is None:
            results[index] = _item_error(
                item.source_id,
                404,
                "participant_not_found",
                f"No participant {item.participant!r} in this event.",
            )
        else:
            accepted.append((index, item, participant))

    deck = load_deck(session, event)
    new: dict[int, list[rules.TakeIn]] = defaultdict(list)
    by_participant: dict[int, Participant] = {}
    stored: dict[int, int] = {}  # item index -> take id
    duplicates: dict[int, int] = {}
    if accepted and (feed_frozen(session, event) if frozen is None else frozen):
        # The ceremony has begun: nothing new is stored; a redelivery still answers
        # `duplicate_delivery` (idempotency).
        closed = feed_closed_error()
        still: list[tuple[int, TakeCreate, Participant]] = []
        for index, item, participant in accepted:
            original = repo.take_by_source(session, event.id, item.source, item.source_id)
            if original is None:
                results[index] = _item_error(item.source_id, 409, closed.code, closed.detail)
            else:
                duplicates[index] = original.id
                still.append((index, item, participant))
        accepted = still
    to_store = [(index, item, participant) for index, item, participant in accepted
                if index not in duplicates]  # fmt: skip
    offsets = {index: clock_offset(received_at, sent[index], clock_tolerance)
               for index, _, _ in to_store}  # fmt: skip
    times = {index: _corrected_time(item.taken_at, offsets[index])
             for index, item, _ in to_store}  # fmt: skip
    # After the lock: the states (and chain heads) the previous lock holder committed.
    states = repo.states_of(session, (participant.id for _, _, participant in to_store))
    rows, heads = _chained_take_rows(
        session, event, to_store, senders, received_at, payloads, states, times
    )
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
            duplicates[index] = original.id
            continue
        claimed.add(key)
        stored[index] = take_id
        by_participant[participant.id] = participant
        row = times[index]
        field_time = deck.field_time(item.source, row["taken_at"], row["device_taken_at"])
        new[participant.id].append(rules.TakeIn(take_id, item.code, field_time))

    outcomes: dict[int, rules.Outcome] = {}
    # Save codes are needed only to classify codes that are neither CP nor discard codes.
    save_codes = repo.save_codes_by_participant(
        session,
        [
            participant_id
            for participant_id, takes in new.items()
            if any(deck.card_or_discard(take.code) is None for take in takes)
        ],
    )
    writes = ProjectionWrites()
    for participant_id, takes in new.items():
        outcomes.update(
            apply_new_takes(
                session,
                deck,
                by_participant[participant_id],
                takes,
                row=states.get(participant_id),
                save_codes=save_codes.get(participant_id, ()),
                writes=writes,
                head=heads.get(participant_id),
            )
        )
    writes.write(session)

    originals = repo.outcomes_by_take(session, duplicates.values())
    for index, item, _ in accepted:
        if index in stored:
            take_id = stored[index]
            results[index] = _result(deck, item.source_id, "accepted", take_id, outcomes[take_id])
        else:
            take_id = duplicates[index]
            results[index] = _result(
                deck, item.source_id, "duplicate_delivery", take_id, originals[take_id]
            )
    return [result for result in results if result is not None]


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

    A new `source_clock` row (a log: the takes are never edited); every take of the
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
    row = SourceClock(
        event_id=event.id, source=source, offset_seconds=offset_seconds, set_by=actor, set_at=now
    )
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


def _chained_take_rows(
    session: Session,
    event: Event,
    to_store: Sequence[tuple[int, TakeCreate, Participant]],
    senders: Sequence[str],
    received_at: datetime,
    payloads: Sequence[dict[str, Any]] | None,
    states: Mapping[int, Any],
    times: Mapping[int, dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[int, tuple[int, str]]]:
    """The `take` rows to insert, each appended to its participant's hash chain
    (app.core.chain; the participants are locked and their heads current). A
    `(source, source_id)` already in the log, or earlier in the batch, gets no row:
    it is a redelivery. `states`: the participants' stored states with their chain heads
    (`repo.states_of`, read after the lock); `times`: each item's time columns
    (`_corrected_time`: field time, and the device time and offset of a corrected clock).
    Returns the rows and each participant's new
    head `(log_seq, log_head)` (written with their state)."""
    logged = repo.logged_source_keys(
        session, event.id, ((item.source, item.source_id) for _, item, _ in to_store)
    )
    rows: list[dict[str, Any]] = []
    heads: dict[int, tuple[int, str]] = {}
    for index, item, participant in to_store:
        key = (item.source, item.source_id)
        if key in logged:
            continue
        logged.add(key)
        payload = payloads[index] if payloads else item.model_dump(mode="json")
        content = chain.take_content(
            source=item.source,
            source_id=item.source_id,
            code=item.code,
            received_at=received_at,
            recorded_by=senders[index],
            payload=payload,
            **times[index],
        )
        if participant.id in heads:
            seq, head = heads[participant.id]
        else:
            state = states.get(participant.id)
            seq, head = (state["log_seq"], state["log_head"]) if state else (0, None)
        seq, prev, digest = chain.next_link(seq, head, chain.TAKE, content)
        heads[participant.id] = (seq, digest)
        rows.append(
            {
                "event_id": event.id,
                "participant_id": participant.id,
                "source": item.source,
                "source_id": item.source_id,
                "code": item.code,
                **times[index],
                "received_at": received_at,
                "recorded_by": senders[index],
                "payload": payload,
                "log_seq": seq,
                "log_prev": prev,
                "log_hash": digest,
            }
        )
    return rows, heads


# -- phones -----------------------------------------------------------------------------------


def seen_cards(session: Session, participant_id: int) -> set[str]:
    """Cards the participant has seen: those of CPs they took while the course was open
    (not `hand_full` takes: the CP was not consumed and its card stays hidden, I-1).

    Only these cards are ever shown to the participant (a discard code of
    another CP must not reveal that CP's card).
    """
    rows = session.scalars(
        select(TakeOutcome.card).where(
            TakeOutcome.participant_id == participant_id,
            TakeOutcome.kind == "card",
            TakeOutcome.card.is_not(None),
            TakeOutcome.reason.is_distinct_from(rules.OUTSIDE_COURSE_HOURS),
            TakeOutcome.reason.is_distinct_from(rules.HAND_FULL),
            TakeOutcome.reason.is_distinct_from(VOIDED),
        )
    )
    return set(rows)


def for_participant(result: TakeResult, seen: set[str]) -> TakeResult:
    """The result as the participant's device shows it.

    RULES.md I-1: a `hand_full` take does not consume the CP, so its card is
    not revealed: `outcome` `rejected`, `reason` `hand_full`, no card and no
    discard code (the phone page explains "hand full"). Cards the participant
    has not seen are never shown.
    """
    data = result.model_dump()
    if result.reason == rules.HAND_FULL:
        data["card"] = data["card_display"] = data["discard_code"] = None
    if result.card is not None and result.card not in seen:
        data["card"] = data["card_display"] = data["discard_code"] = None
    if result.kind != "card" or result.reason == rules.OUTSIDE_COURSE_HOURS:
        data["discard_code"] = None
    return TakeResult(**data)


def scan(
    session: Session,
    participant: Participant,
    code: str,
    *,
    source_id: str | None,
    unknown_per_minute: int,
    now: datetime | None = None,
) -> TakeResult:
    """A take from the participant's phone at the server's clock (source `phone`).

    Code guessing is rate limited: when `unknown_per_minute` phone takes of
    unknown codes were received in the last minute (counted in the database,
    so every app process sees the same count), another unknown code gets 429
    `too_many_unknown_codes` and nothing is stored. Known codes (a CP or discard
    code of the event, one of the participant's own save codes: `Course.classify`)
    always go through.
    """
    now = now or utcnow()
    event = session.get(Event, participant.event_id)
    assert event is not None
    repo.lock_participants(session, [participant.id])
    since = now - RATE_WINDOW
    if (
        repo.count_unknown_phone_takes(session, participant.id, since) >= unknown_per_minute
        and course_of(session, load_deck(session, event), participant.id).classify(code)[0]
        == "unknown"
    ):
        oldest = repo.oldest_unknown_phone_take(session, participant.id, since) or now
        retry = max(1, int((oldest + RATE_WINDOW - now).total_seconds()) + 1)
        raise TooManyRequests(
            f"Too many unknown codes in the last minute; try again in {retry} s.",
            code="too_many_unknown_codes",
            headers={"Retry-After": str(retry)},
        )
    item = {
        "participant": participant.external_id,
        "code": code,
        "taken_at": now,
        "source": PHONE_SOURCE,
        "source_id": source_id or uuid.uuid4().hex,
    }
    (result,) = ingest(
        session, event, [item], recorded_by=f"participant:{participant.external_id}",
        received_at=now,
    )  # fmt: skip
    _raise_if_error(result)
    return for_participant(result, seen_cards(session, participant.id))


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
    if session.scalar(select(TakeVoid.id).where(TakeVoid.take_id == take_id)) is not None:
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
    return log(session, event, take_id=take_id).items[0]


def _raise_if_error(result: TakeResult) -> None:
    """A single take (scan, manual take) that was not stored is refused as a whole with
    its item problem: 409 `feed_closed`, 422 `invalid_take` (with `errors`, the invalid
    fields), 404 `participant_not_found`."""
    if result.error is not None:
        extra = {"errors": result.error.fields} if result.error.fields else {}
        raise AppError(
            result.error.detail, code=result.error.code, status=result.error.status, **extra
        )


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


def corrections(session: Session, event: Event) -> list[audit.AuditEntry]:
    """The audit trail of the feed: voids, added takes, rebuilds, replays that changed outcomes."""
    return list(
        session.scalars(
            select(audit.AuditEntry)
            .where(audit.AuditEntry.event_id == event.id, audit.AuditEntry.action.like("feed.%"))
            .order_by(audit.AuditEntry.id)
        )
    )


@dataclass(frozen=True)
class ReplaySummary:
    """What a replay of an event's feed did (`replay_event`).

    `participants` / `takes`: those replayed (every participant with a take, every
    take); `changed_outcomes`: takes whose outcome or reason changed;
    `changed_participants`: participants with such a take; `stopped_counting` /
    `started_counting`: takes that went from `counted` to `rejected` / the reverse.
    """

    participants: int = 0
    takes: int = 0
    changed_outcomes: int = 0
    changed_participants: int = 0
    stopped_counting: int = 0
    started_counting: int = 0


def rebuild_event(session: Session, event: Event, *, actor: str) -> tuple[int, int, int]:
    """`replay_event` as (participants, takes, takes whose outcome changed)."""
    summary = replay_event(session, event, actor=actor)
    return summary.participants, summary.takes, summary.changed_outcomes


def replay_event(session: Session, event: Event, *, actor: str) -> ReplaySummary:
    """Replay every participant of `event` from the log (RULES.md I-4), in bulk.

    Set-based: the event's CPs, save codes, participants, takes (with voids, in
    participant / `taken_at` / id order) and stored outcomes are read with a
    handful of queries; every participant is replayed in memory by the pure
    rules engine (`app.feed.rules.replay`); then the event's projection rows
    (take outcomes, participant states, combinations) are deleted and written
    again with bulk inserts, in the caller's transaction. The result is the one
    `replay_participant` gives participant by participant: voided takes are
    `rejected`/`voided` where they stood; a take whose outcome or reason changed
    keeps the old one in `previous_outcome`/`previous_reason` with `changed_at`
    (and a `feed.outcomes_changed` audit entry per participant); an unchanged
    take keeps its change history. Returns the `ReplaySummary`. Each participant's chain
    head (app.core.chain) is recomputed from the log rows and written with the state.
    On a consistent projection nothing changes. 409
    `feed_closed` once the ceremony has begun (the auction results rest on the
    combinations as they are).
    """
    ensure_feed_open(session, event)
    session.flush()
    deck = load_deck(session, event)
    participants = repo.participants_with_takes(session, event.id)
    repo.lock_participants(session, (pid for pid, _ in participants))
    save_codes = repo.save_codes_of_event(session, event.id)
    existing = repo.outcomes_of_event(session, event.id)
    logged: dict[int, list[Any]] = defaultdict(list)
    heads: dict[int, tuple[int, str]] = {}  # each chain's last row (app.core.chain)
    for row in repo.takes_of_event(session, event.id):
        logged[row.participant_id].append(row)
        if row.log_seq is not None and row.log_seq > heads.get(row.participant_id, (0, ""))[0]:
            heads[row.participant_id] = (row.log_seq, row.log_hash)
    for participant_id, seq, digest in repo.void_links_of_event(session, event.id):
        if seq > heads.get(participant_id, (0, ""))[0]:
            heads[participant_id] = (seq, digest)

    now = utcnow()
    outcome_rows: list[dict[str, Any]] = []
    state_rows: list[dict[str, Any]] = []
    combination_rows: list[dict[str, Any]] = []
    takes = changed = stopped = started = 0
    changed_by_participant: dict[str, int] = {}
    for participant_id, external_id in participants:
        course = deck.course(save_codes.get(participant_id, ()))
        rows = logged[participant_id]
        live = [
            rules.TakeIn(t.id, t.code, deck.field_time(t.source, t.taken_at, t.device_taken_at))
            for t in rows
            if not t.voided
        ]
        state, outcomes = rules.replay(live, course)
        by_id = {outcome.take_id: outcome for outcome in outcomes}
        for take in rows:
            if not take.voided:
                continue
            by_id[take.id] = voided_outcome(take.id, take.code, existing.get(take.id), course)
        n = 0
        for take_id, outcome in by_id.items():
            old = existing.get(take_id)
            previous: tuple[str | None, str | None, datetime | None] = (None, None, None)
            if old is not None:
                if (old.outcome, old.reason) != (outcome.outcome, outcome.reason):
                    previous = (old.outcome, old.reason, now)
                    n += 1
                    if old.outcome != outcome.outcome:
                        stopped += old.outcome == rules.COUNTED
                        started += outcome.outcome == rules.COUNTED
                else:
                    previous = (old.previous_outcome, old.previous_reason, old.changed_at)
            outcome_rows.append(
                {
                    **_outcome_values(outcome, participant_id),
                    "previous_outcome": previous[0],
                    "previous_reason": previous[1],
                    "changed_at": previous[2],
                }
            )
        combination_rows.extend(
            {
                "id": combination.id,
                "event_id": event.id,
                "participant_id": participant_id,
                "cards": list(combination.cards),
                "category": combination.category,
                "deal": combination.deal,
                "saved_at": combination.saved_at,
            }
            for combination in state.combinations
        )
        last = max(live, key=rules.field_order) if live else None
        state_rows.append(
            {
                "participant_id": participant_id,
                "event_id": event.id,
                "state": state.to_json(),
                "last_taken_at": last.taken_at if last else None,
                "last_take_id": last.take_id if last else None,
                "updated_at": now,
                "log_seq": heads.get(participant_id, (0, None))[0],
                "log_head": heads.get(participant_id, (0, None))[1],
            }
        )
        takes += len(by_id)
        changed += n
        if n:
            changed_by_participant[external_id] = n

    # Loaded projection objects would be stale after the bulk DELETE / INSERT.
    for obj in list(session.identity_map.values()):
        if isinstance(obj, (TakeOutcome, ParticipantState, Combination)):
            session.expunge(obj)
    repo.delete_projection_of_event(session, event.id)
    repo.insert_projection(session, outcome_rows, state_rows, combination_rows)
    for external_id, n in changed_by_participant.items():
        audit.record(
            session,
            event_id=event.id,
            actor="system",
            action="feed.outcomes_changed",
            subject=f"participant:{external_id}",
            details={"changed": n},
        )
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="feed.rebuild",
        subject=f"event:{event.id}",
        details={"participants": len(participants), "takes": takes, "changed": changed},
    )
    session.flush()
    return ReplaySummary(
        participants=len(participants),
        takes=takes,
        changed_outcomes=changed,
        changed_participants=len(changed_by_participant),
        stopped_counting=stopped,
        started_counting=started,
    )


# -- reading ----------------------------------------------------------------------------------


def _previous(outcome: TakeOutcome | None) -> PreviousOutcome | None:
    if outcome is None or outcome.previous_outcome is None:
        return None
    return PreviousOutcome(
        outcome=outcome.previous_outcome,
        reason=outcome.previous_reason,
        changed_at=outcome.changed_at,
    )


def _take_fields(
    take: Take,
    outcome: TakeOutcome | None,
    void: TakeVoid | None,
    deck: Deck,
    seen: set[str] | None,
) -> dict[str, Any]:
    card = outcome.card if outcome else None
    checkpoint = (
        deck.numbers.get(outcome.checkpoint_id) if outcome and outcome.checkpoint_id else None
    )
    if (
        seen is not None
        and card is not None
        and (card not in seen or (outcome is not None and outcome.reason == rules.HAND_FULL))
    ):  # the participant's view: a hand_full take reveals no card (I-1)
        hand_full = outcome is not None and outcome.reason == rules.HAND_FULL
        # The CP number of a hand_full take stays: the participant stood at that CP, and a
        # number tells nothing of its card (CP numbers are public).
        card, checkpoint = None, checkpoint if hand_full else None
    source_offset = deck.clocks.get(take.source)
    return {
        "take_id": take.id,
        "code": take.code,
        "kind": outcome.kind if outcome else "unknown",
        "taken_at": deck.field_time(take.source, take.taken_at, take.device_taken_at),
        "device_taken_at": take.device_taken_at
        or (take.taken_at if source_offset is not None else None),
        "clock_offset_seconds": source_offset
        if source_offset is not None
        else take.clock_offset_seconds,
        "received_at": take.received_at,
        "source": take.source,
        "outcome": outcome.outcome if outcome else rules.REJECTED,
        "reason": outcome.reason if outcome else None,
        "card": card,
        "card_display": display(card),
        "checkpoint": checkpoint,
        "deal": outcome.deal if outcome else 0,
        "round": outcome.round if outcome else 0,
        "voided": void is not None,
        "previous": _previous(outcome),
    }


def participant_state(
    session: Session, participant: Participant, *, as_participant: bool
) -> ParticipantStateRead:
    """A participant's state (API.md) with their whole log in field-time order.

    `as_participant`: the participant's own view — cards of CPs they have not
    taken are never shown (a discard code typed for another CP shows no card).
    """
    event = session.get(Event, participant.event_id)
    assert event is not None
    deck = load_deck(session, event)
    row = session.get(ParticipantState, participant.id)
    state = rules.PlayState.from_json(row.state if row else None)
    seen = seen_cards(session, participant.id) if as_participant else None
    rows = session.execute(
        select(Take, TakeOutcome, TakeVoid)
        .outerjoin(TakeOutcome, TakeOutcome.take_id == Take.id)
        .outerjoin(TakeVoid, TakeVoid.take_id == Take.id)
        .where(Take.participant_id == participant.id)
        .order_by(Take.taken_at, Take.id)
    ).all()
    takes = sorted(
        (StateTake(**_take_fields(t, o, v, deck, seen)) for t, o, v in rows),
        key=lambda take: (take.taken_at, take.take_id),
    )  # field time: a source's clock offset may reorder (RULES.md I-4)
    combinations = sorted(
        repo.combinations_of(session, participant.id).values(), key=lambda c: (c.saved_at, c.id)
    )
    save_codes = (
        session.scalar(
            select(func.count())
            .select_from(SaveCode)
            .where(SaveCode.participant_id == participant.id)
        )
        or 0
    )
    return ParticipantStateRead(
        participant=participant.external_id,
        name=participant.name,
        hand=list(state.hand),
        hand_display=[display(card) or card for card in state.hand],
        deal=state.deal,
        round=state.round,
        discards_left=rules.MAX_DISCARD_STEPS - state.discard_steps,
        discarding=state.in_discard_step,
        save_codes_left=save_codes - len(state.used_save_codes),
        checkpoints_taken=len(state.taken),
        combinations=[
            CombinationRead(
                id=c.id,
                cards=list(c.cards),
                cards_display=[display(card) or card for card in c.cards],
                category=c.category,
                description=english,
                description_ru=russian,
                deal=c.deal,
                saved_at=c.saved_at,
            )
            for c in combinations
            for english, russian in [describe(c.cards, event.hand_ranking)]
        ],
        takes=takes,
    )


def log(
    session: Session,
    event: Event,
    *,
    participant: str | None = None,
    checkpoint: int | None = None,
    kind: str | None = None,
    outcome: str | None = None,
    reason: str | None = None,
    source: str | None = None,
    taken_from: datetime | None = None,
    taken_to: datetime | None = None,
    take_id: int | None = None,
    limit: int = 200,
    offset: int = 0,
) -> LogRead:
    """The organiser's view of the take log, filtered; field-time order.

    `checkpoint` is the CP number (card takes and discards of that CP);
    `taken_from` inclusive, `taken_to` exclusive (aware datetimes).
    """
    deck = load_deck(session, event)
    query = repo.log_query(event.id)
    if participant is not None:
        query = query.where(Participant.external_id == participant)
    if checkpoint is not None:
        cp_id = session.scalar(
            select(Checkpoint.id).where(
                Checkpoint.event_id == event.id, Checkpoint.number == checkpoint
            )
        )
        if cp_id is None:  # no such CP: no take of it (not "takes of no CP")
            return LogRead(total=0, items=[])
        query = query.where(TakeOutcome.checkpoint_id == cp_id)
    if kind is not None:
        query = query.where(TakeOutcome.kind == kind)
    if outcome is not None:
        query = query.where(TakeOutcome.outcome == outcome)
    if reason is not None:
        query = query.where(TakeOutcome.reason == reason)
    if source is not None:
        query = query.where(Take.source == source)
    if taken_from is not None:
        query = query.where(Take.taken_at >= taken_from)
    if taken_to is not None:
        query = query.where(Take.taken_at < taken_to)
    if take_id is not None:
        query = query.where(Take.id == take_id)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.execute(query.order_by(Take.taken_at, Take.id).limit(limit).offset(offset)).all()
    items = [
        LogItem(
            **_take_fields(t, o, v, deck, None),
            participant=p.external_id,
            source_id=t.source_id,
            recorded_by=t.recorded_by,
            void_reason=v.reason if v else None,
        )
        for t, o, v, p in rows
    ]
    return LogRead(total=total, items=items)


def warnings(session: Session, event: Event, *, now: datetime | None = None) -> WarningsRead:
    """Event warnings for the organiser.

    - `unsaved_hands`: participants holding cards that were never saved; at the
      close these hands are not combinations (RULES.md I-3);
    - `hand_full`: participants with takes refused as `hand_full` (I-1), with counts;
    - `unknown_codes`: takes of codes that matched nothing (not voided);
    - `future_takes`: takes whose `taken_at` is later than `received_at` (the
      server clock at receipt) + 5 min: stored and processed, but a clock is wrong.
    """
    now = now or utcnow()
    unsaved = []
    for row, participant in repo.states_of_event(session, event.id):
        state = rules.PlayState.from_json(row.state)
        if state.hand:
            unsaved.append(
                UnsavedHand(
                    participant=participant.external_id,
                    name=participant.name,
                    hand=list(state.hand),
                    deal=state.deal,
                    round=state.round,
                )
            )
    hand_full_rows = session.execute(
        select(Participant.external_id, Participant.name, func.count())
        .select_from(TakeOutcome)
        .join(Participant, Participant.id == TakeOutcome.participant_id)
        .where(Participant.event_id == event.id, TakeOutcome.reason == rules.HAND_FULL)
        .group_by(Participant.external_id, Participant.name)
        .order_by(Participant.external_id)
    ).all()
    unknown_rows = session.execute(
        select(Take, Participant)
        .join(TakeOutcome, TakeOutcome.take_id == Take.id)
        .join(Participant, Participant.id == Take.participant_id)
        .where(
            Take.event_id == event.id,
            TakeOutcome.kind == "unknown",
            TakeOutcome.reason.is_distinct_from(VOIDED),
        )
        .order_by(Take.taken_at, Take.id)
        .limit(1000)
    ).all()
    ahead_rows = session.execute(
        select(Take, Participant)
        .join(Participant, Participant.id == Take.participant_id)
        .where(Take.event_id == event.id, Take.taken_at > Take.received_at)
        .order_by(Take.taken_at, Take.id)
    ).all()  # the 5-minute margin in Python: interval arithmetic is not portable SQL
    future = [
        FutureTakeWarning(
            participant=p.external_id,
            name=p.name,
            take_id=t.id,
            source=t.source,
            source_id=t.source_id,
            taken_at=t.taken_at,
            received_at=t.received_at,
        )
        for t, p in ahead_rows
        if t.taken_at > t.received_at + FUTURE_MARGIN
    ][:1000]
    return WarningsRead(
        course_closed=now >= event.closes_at,
        future_takes=future,
        device_clocks=device_clock_warnings(session, event),
        unsaved_hands=unsaved,
        hand_full=[HandFullWarning(participant=e, name=n, count=c) for e, n, c in hand_full_rows],
        unknown_codes=[
            UnknownCodeWarning(
                participant=p.external_id,
                name=p.name,
                take_id=t.id,
                code=t.code,
                taken_at=t.taken_at,
                source=t.source,
            )
            for t, p in unknown_rows
        ],
    )


def device_clock_warnings(session: Session, event: Event) -> list[DeviceClockWarning]:
    """The sources (devices) whose clocks were off: takes corrected at receipt (a batch's
    `sent_at` beyond the tolerance), or an organiser's offset set for the source; with
    the offsets seen, the offset in force and the participants concerned."""
    corrected = {row.source: row for row in repo.corrected_sources(session, event.id)}
    clocks = repo.source_clocks(session, event.id)
    sources = sorted(set(corrected) | set(clocks))
    participants = repo.participants_by_source(session, event.id, sources)
    found = []
    for source in sources:
        row = corrected.get(source)
        found.append(
            DeviceClockWarning(
                source=source,
                corrected_takes=row.takes if row else 0,
                min_offset_seconds=row.min_offset if row else None,
                max_offset_seconds=row.max_offset if row else None,
                organiser_offset_seconds=clocks.get(source),
                participants=participants.get(source, []),
            )
        )
    return found


# -- CSV import -------------------------------------------------------------------------------

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
