"""Reading the feed: the participant's view, the organiser's state, log and warnings.

The participant view lives here and only here: `participant_view`, `participant_state`
with `as_participant=True`, `for_participant` and `seen_cards` are the one place that
turns stored takes and outcomes into what a participant may see (RULES.md I-1: a
`hand_full` take does not consume its CP, so its card stays hidden; cards of CPs they
have not taken are never shown). The API, the phone pages (online and offline) and the
ceremony pages call them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.core import audit
from app.core.db import utcnow
from app.events import rules as event_rules
from app.events.models import Event, Participant
from app.feed import repository as repo
from app.feed import rules
from app.feed.deck import Deck, course_of, describe, display, load_deck
from app.feed.models import Combination, ParticipantState, Take, TakeOutcome, TakeVoid
from app.feed.projection import VOIDED
from app.feed.schemas import (
    CombinationRead,
    DeviceClockWarning,
    FutureTakeWarning,
    HandFullWarning,
    LogItem,
    LogRead,
    ParticipantStateRead,
    PreviousOutcome,
    StateTake,
    TakeResult,
    UnknownCodeWarning,
    UnsavedHand,
    WarningsRead,
)

FUTURE_MARGIN = timedelta(minutes=5)  # a take dated later than receipt + this is a warning
WARNINGS_LIMIT = 1000  # rows per warning list

# Card takes whose card the participant has not seen (RULES.md I-1): outside the course
# window nothing counts, a full hand does not consume the CP, a voided take never was.
UNSEEN_REASONS = (rules.OUTSIDE_COURSE_HOURS, rules.HAND_FULL, VOIDED)


# -- the participant's view ---------------------------------------------------------------------


def seen_cards(session: Session, participant_id: int) -> set[str]:
    """Cards the participant has seen: those of CPs they took while the course was open
    (not `hand_full` takes: the CP was not consumed and its card stays hidden, I-1).

    Only these cards are ever shown to the participant (a discard code of
    another CP must not reveal that CP's card).
    """
    return repo.cards_of_card_takes(session, participant_id, except_reasons=UNSEEN_REASONS)


def for_participant(result: TakeResult, seen: set[str]) -> TakeResult:
    """The result as the participant's device shows it.

    RULES.md I-1: a `hand_full` take does not consume the CP, so its card is
    not revealed: `outcome` `rejected`, `reason` `hand_full`, no card and no
    discard code (the phone page explains "hand full"). Cards the participant
    has not seen are never shown.
    """
    data = result.model_dump()
    if _card_hidden(result.card, result.reason, seen):
        data["card"] = data["card_display"] = data["discard_code"] = None
    if result.kind != "card" or result.reason == rules.OUTSIDE_COURSE_HOURS:
        data["discard_code"] = None
    return TakeResult(**data)


def results_for_participant(
    session: Session, participant_id: int, results: Iterable[TakeResult]
) -> list[TakeResult]:
    """Results of the participant's own delivery as they may see them (`for_participant`;
    an item that was not stored is shown as it is: it names no card)."""
    seen = seen_cards(session, participant_id)
    return [
        for_participant(result, seen) if result.status != "error" else result for result in results
    ]


def own_result(session: Session, participant_id: int, result: TakeResult) -> TakeResult:
    """`for_participant` of the result of the participant's own single take (a scan),
    reading `seen_cards` only when the answer depends on it (issue 24: one statement
    less for most scans). It does not when the result names no card, is `hand_full`
    (hidden anyway, RULES.md I-1), or is a stored card take whose reason is none of
    `UNSEEN_REASONS`: that take's own outcome row makes its card a seen card."""
    if (
        result.card is None
        or result.reason == rules.HAND_FULL
        or (result.kind == "card" and result.reason not in UNSEEN_REASONS and result.take_id)
    ):
        return for_participant(result, {result.card} if result.card else set())
    return for_participant(result, seen_cards(session, participant_id))


def _card_hidden(card: str | None, reason: str | None, seen: Collection[str]) -> bool:
    """RULES.md I-1 on one take: its card is hidden from its participant when the take was
    refused as `hand_full` (the CP was not consumed) or the card is not one they have
    seen (`seen_cards`)."""
    return card is not None and (card not in seen or reason == rules.HAND_FULL)


def _hidden_card(
    card: str | None, checkpoint: int | None, outcome: TakeOutcome | None, seen: set[str]
) -> tuple[str | None, int | None]:
    """(card, CP number) of a take as its participant may see them (RULES.md I-1): a
    `hand_full` take reveals no card, nor does a take of a card they have not seen. The CP
    number of a `hand_full` take stays: the participant stood at that CP, and a number
    tells nothing of its card (CP numbers are public)."""
    reason = outcome.reason if outcome is not None else None
    if _card_hidden(card, reason, seen):
        return None, checkpoint if reason == rules.HAND_FULL else None
    return card, checkpoint


@dataclass(frozen=True)
class ParticipantView:
    """What a participant may see of their game (RULES.md I-1).

    `state`: their state and log with only the cards they have seen (`seen`);
    `hand`: each card in hand with its CP's discard code (None: no such CP);
    `discard_codes`: seen card -> its CP's discard code; `deck`: the event's deck, loaded
    once for the request (`preview` classifies typed codes with it).
    """

    participant_id: int
    state: ParticipantStateRead
    seen: frozenset[str]
    hand: list[tuple[str, str | None]]
    discard_codes: dict[str, str]
    deck: Deck

    def take_discard_code(self, take: StateTake) -> str | None:
        """The discard code shown with a take's result: a counted card take's (the
        participant holds or held that card), else None."""
        if take.kind == "card" and take.outcome == rules.COUNTED and take.card:
            return self.discard_codes.get(take.card)
        return None

    def preview(self, session: Session, code: str, at: datetime) -> CodePreview:
        """What a typed code would do if taken at `at` (UTC), as this participant may be told
        before it is recorded (RULES.md I-1, secrecy): `save` (one of their save codes),
        `discard` with the card (the discard code of a card in their hand), else `other`
        with no card and no refusal, so a preview is no oracle for CP codes or other
        participants' codes. For their own codes, `refusal` is why the feed would refuse
        it (`rules.apply_take` on the stored state, RULES.md §1.2 rules 4 and 6, I-2:
        `hand_not_full`, `no_discards_left`, `code_already_used`, `outside_course_hours`)
        or None; a take delivered later with an earlier field time could still change
        it (I-4). Two queries (their save codes, their stored state)."""
        course = course_of(session, self.deck, self.participant_id)
        kind, cp, normalised = course.classify(code)
        if kind == "discard" and cp is not None and cp.card in {card for card, _ in self.hand}:
            card = cp.card
        elif kind == "save":
            card = None
        else:
            return CodePreview("other", None, normalised, None)
        stored = repo.states_of(session, [self.participant_id]).get(self.participant_id)
        state = rules.PlayState.from_json(stored["state"] if stored else None)
        _, outcome = rules.apply_take(state, rules.TakeIn(0, code, at), course)
        refusal = None if outcome.outcome == rules.COUNTED else outcome.reason
        return CodePreview(kind, card, normalised, refusal)


@dataclass(frozen=True)
class CodePreview:
    """A typed code as its participant may be told before it is recorded
    (`ParticipantView.preview`): `kind` (`discard`, `save`, `other`), the discard's
    `card`, the `normalised` code, and the `refusal` reason of the rules, or None."""

    kind: str
    card: str | None
    normalised: str
    refusal: str | None


def participant_view(
    session: Session, participant: Participant, *, deck: Deck | None = None
) -> ParticipantView:
    """The participant's own view of their game (`ParticipantView`): their state as
    `participant_state(as_participant=True)` and the discard codes of the cards they have
    seen. The deck is loaded once (or `deck` is used)."""
    event = session.get(Event, participant.event_id)
    assert event is not None
    deck = deck or load_deck(session, event)
    seen = seen_cards(session, participant.id)
    state = _state_read(session, participant, event, deck, seen)
    by_card = deck.discard_codes_by_card() if seen else {}
    codes = {card: by_card[card] for card in seen if card in by_card}
    hand = [(card, codes.get(card)) for card in state.hand]
    return ParticipantView(participant.id, state, frozenset(seen), hand, codes, deck)


def usable_combinations(
    state: ParticipantStateRead, usable_ids: Collection[int]
) -> list[CombinationRead]:
    """The combinations of `state` that may still be bid, in saved order; `usable_ids`
    from the auctions (`auction_service.usable_combination_ids`, RULES.md §1.4)."""
    return [combination for combination in state.combinations if combination.id in usable_ids]


# -- a participant's state -------------------------------------------------------------------------


def participant_state(
    session: Session, participant: Participant, *, as_participant: bool, deck: Deck | None = None
) -> ParticipantStateRead:
    """A participant's state (API.md) with their whole log in field-time order.

    `as_participant`: the participant's own view — cards of CPs they have not
    taken are never shown (a discard code typed for another CP shows no card;
    a `hand_full` take shows no card, RULES.md I-1). `deck`: the event's, when the
    caller has loaded it.
    """
    event = session.get(Event, participant.event_id)
    assert event is not None
    deck = deck or load_deck(session, event)
    seen = seen_cards(session, participant.id) if as_participant else None
    return _state_read(session, participant, event, deck, seen)


def _state_read(
    session: Session, participant: Participant, event: Event, deck: Deck, seen: set[str] | None
) -> ParticipantStateRead:
    """`participant_state` from its parts (`seen`: None for the organiser's view)."""
    row = session.get(ParticipantState, participant.id)
    state = rules.PlayState.from_json(row.state if row else None)
    takes = sorted(
        (
            StateTake(**_take_fields(t, o, v, deck, seen))
            for t, o, v in repo.log_of_participant(session, participant.id)
        ),
        key=lambda take: (take.taken_at, take.take_id),
    )  # field time: a source's clock offset may reorder (RULES.md I-4)
    combinations = sorted(
        repo.combinations_of(session, participant.id).values(), key=lambda c: (c.saved_at, c.id)
    )
    save_codes = repo.count_save_codes(session, participant.id)
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
        combinations=[_combination_read(c, event.hand_ranking) for c in combinations],
        takes=takes,
    )


def _combination_read(combination: Combination, ranking: str) -> CombinationRead:
    english, russian = describe(combination.cards, ranking)
    return CombinationRead(
        id=combination.id,
        cards=list(combination.cards),
        cards_display=[display(card) or card for card in combination.cards],
        category=combination.category,
        description=english,
        description_ru=russian,
        deal=combination.deal,
        saved_at=combination.saved_at,
    )


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
    """A `StateTake`'s fields; `seen`: the participant's view (`_hidden_card`), None:
    the organiser's (every card)."""
    card = outcome.card if outcome else None
    checkpoint = (
        deck.numbers.get(outcome.checkpoint_id) if outcome and outcome.checkpoint_id else None
    )
    if seen is not None:
        card, checkpoint = _hidden_card(card, checkpoint, outcome, seen)
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


# -- the organiser's log, warnings and corrections -------------------------------------------


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
    checkpoint_id = None
    if checkpoint is not None:
        checkpoint_id = repo.checkpoint_id_by_number(session, event.id, checkpoint)
        if checkpoint_id is None:  # no such CP: no take of it (not "takes of no CP")
            return LogRead(total=0, items=[])
    filters = {
        "participant": participant, "checkpoint_id": checkpoint_id, "kind": kind,
        "outcome": outcome, "reason": reason, "source": source, "taken_from": taken_from,
        "taken_to": taken_to, "take_id": take_id,
    }  # fmt: skip
    total, rows = repo.log_page(session, event.id, filters=filters, limit=limit, offset=offset)
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
    Each list holds at most 1,000 rows (`unsaved_hands`, `hand_full`: all).
    """
    now = now or utcnow()
    hand_full = repo.takes_with_reason_by_participant(session, event.id, rules.HAND_FULL)
    unknown = repo.unknown_code_takes(session, event.id, except_reason=VOIDED, limit=WARNINGS_LIMIT)
    return WarningsRead(
        course_closed=event_rules.course_phase(event.opens_at, event.closes_at, now)
        == event_rules.COURSE_CLOSED,
        future_takes=_future_takes(session, event),
        device_clocks=device_clock_warnings(session, event),
        unsaved_hands=_unsaved_hands(session, event),
        hand_full=[HandFullWarning(participant=e, name=n, count=c) for e, n, c in hand_full],
        unknown_codes=[
            UnknownCodeWarning(
                participant=p.external_id,
                name=p.name,
                take_id=t.id,
                code=t.code,
                taken_at=t.taken_at,
                source=t.source,
            )
            for t, p in unknown
        ],
    )


def tallies(session: Session, event: Event, since: datetime) -> dict[str, int]:
    """The dashboard's counters from the participants' tallies, one query whatever the
    event's size (`repo.event_tallies`: `participants`, `recent` takes since `since`,
    `takes`, `unknown_codes`, `hand_full`, `unsaved_hands`)."""
    return repo.event_tallies(session, event.id, since)


def warnings_page(
    session: Session, event: Event, *, limit: int, offset: int = 0, full: bool = False
) -> WarningsRead:
    """A page of the warnings (`warnings`' lists, each `limit` rows from `offset`): the
    participants holding unsaved cards and those with `hand_full` refusals (from their
    tallies, by external id), unknown codes (stored-time order); with `full`, also the
    device clocks and future-dated takes (those read every take of the event: the
    paged warnings page only, never the dashboard)."""
    unsaved = [
        UnsavedHand(
            participant=participant.external_id,
            name=participant.name,
            hand=list(state.hand),
            deal=state.deal,
            round=state.round,
        )
        for row, participant in repo.states_with(
            session, event.id, "hand_cards", limit=limit, offset=offset
        )
        for state in [rules.PlayState.from_json(row.state)]
    ]
    hand_full = [
        HandFullWarning(participant=p.external_id, name=p.name, count=row.hand_full)
        for row, p in repo.states_with(session, event.id, "hand_full", limit=limit, offset=offset)
    ]
    unknown = repo.unknown_code_takes(
        session, event.id, except_reason=VOIDED, limit=limit, offset=offset
    )
    page = slice(offset, offset + limit)
    return WarningsRead(
        course_closed=event_rules.course_phase(event.opens_at, event.closes_at, utcnow())
        == event_rules.COURSE_CLOSED,
        unsaved_hands=unsaved,
        hand_full=hand_full,
        unknown_codes=[_unknown_warning(t, p) for t, p in unknown],
        future_takes=_future_takes(session, event)[page] if full else [],
        device_clocks=device_clock_warnings(session, event)[page] if full else [],
    )


def _unknown_warning(take: Any, participant: Any) -> UnknownCodeWarning:
    return UnknownCodeWarning(
        participant=participant.external_id,
        name=participant.name,
        take_id=take.id,
        code=take.code,
        taken_at=take.taken_at,
        source=take.source,
    )


def _unsaved_hands(session: Session, event: Event) -> list[UnsavedHand]:
    """Participants holding cards never saved (RULES.md I-3), by external id."""
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
    return unsaved


def _future_takes(session: Session, event: Event) -> list[FutureTakeWarning]:
    """Takes dated more than `FUTURE_MARGIN` after their receipt (a wrong clock)."""
    return [
        FutureTakeWarning(
            participant=p.external_id,
            name=p.name,
            take_id=t.id,
            source=t.source,
            source_id=t.source_id,
            taken_at=t.taken_at,
            received_at=t.received_at,
        )
        for t, p in repo.takes_dated_after_receipt(session, event.id)
        if t.taken_at > t.received_at + FUTURE_MARGIN
    ][:WARNINGS_LIMIT]


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


def corrections(session: Session, event: Event) -> list[audit.AuditEntry]:
    """The audit trail of the feed: voids, added takes, rebuilds, replays that changed outcomes."""
    return repo.feed_audit_entries(session, event.id)


# -- reads for the routers and pages (the SQL is in app.feed.repository) ----------------------


def states_of_event(session: Session, event_id: int) -> list[tuple[ParticipantState, Participant]]:
    """Every participant state of the event with its participant
    (`repository.states_of_event`)."""
    return repo.states_of_event(session, event_id)


def participant_ids_with_takes(session: Session, event_id: int) -> list[int]:
    """Ids of the event's participants who have a take (`repository.participant_ids_with_takes`)."""
    return repo.participant_ids_with_takes(session, event_id)


def participants_by_external_id(
    session: Session, event_id: int, external_ids: Iterable[str]
) -> dict[str, Participant]:
    """The event's participants of `external_ids`, by external id
    (`repository.participants_by_external_id`)."""
    return repo.participants_by_external_id(session, event_id, external_ids)
