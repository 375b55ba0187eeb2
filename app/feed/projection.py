"""The projection of the take log: the fold of the rules over each participant's takes.

Three ways to keep it, one set of parts:

- `apply_new_takes`: takes just inserted, in field-time order after the participant's
  last take, are applied incrementally to the stored state (a late one replays the
  participant);
- `replay_participant`: one participant replayed from the log, their rows rewritten;
- `replay_event` / `rebuild_event`: every participant of an event, in bulk.

All three build their rows with the same builders (`outcome_change`, `state_values`,
`combination_values`) and fold with the same `fold_participant`; `outcome_change` is the
one place where a changed outcome keeps its previous one (RULES.md I-4). Services flush,
never commit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.core import audit
from app.core.db import utcnow
from app.events.models import Event, Participant
from app.feed import repository as repo
from app.feed import rules
from app.feed.deck import Deck, course_of, load_deck
from app.feed.freeze import ensure_feed_open
from app.feed.models import Combination, ParticipantState, TakeOutcome

VOIDED = "voided"  # reason shown for a take an organiser voided (an extension of API.md)

Head = tuple[int, str]  # a participant's chain head `(log_seq, log_head)` (app.core.chain)


# -- the rows ---------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class OutcomeChange:
    """A take's `take_outcome` row (`values`, every column) and how it differs from the
    stored one: `changed` (outcome or reason), `stopped_counting` / `started_counting`
    (went from `counted` to `rejected` / the reverse)."""

    values: dict[str, Any]
    changed: bool = False
    stopped_counting: bool = False
    started_counting: bool = False


def outcome_change(
    outcome: rules.Outcome, participant_id: int, old: Any | None, now: datetime
) -> OutcomeChange:
    """The new row of `outcome` against `old`, the stored row (anything with `outcome`,
    `reason`, `previous_outcome`, `previous_reason`, `changed_at`; None: a new take).

    RULES.md I-4: a take whose outcome or reason changes keeps the old one in
    `previous_outcome` / `previous_reason` with `changed_at` = `now` (UTC), so the
    change is visible in the participant's log; an unchanged take keeps its history.
    """
    history: tuple[str | None, str | None, datetime | None] = (None, None, None)
    changed = stopped = started = False
    if old is not None:
        if (old.outcome, old.reason) != (outcome.outcome, outcome.reason):
            history, changed = (old.outcome, old.reason, now), True
            if old.outcome != outcome.outcome:
                stopped = old.outcome == rules.COUNTED
                started = outcome.outcome == rules.COUNTED
        else:
            history = (old.previous_outcome, old.previous_reason, old.changed_at)
    values = {
        "take_id": outcome.take_id,
        "participant_id": participant_id,
        "kind": outcome.kind,
        "outcome": outcome.outcome,
        "reason": outcome.reason,
        "card": outcome.card,
        "checkpoint_id": outcome.checkpoint_id,
        "deal": outcome.deal,
        "round": outcome.round,
        "previous_outcome": history[0],
        "previous_reason": history[1],
        "changed_at": history[2],
    }
    return OutcomeChange(values, changed, stopped, started)


def combination_values(
    combination: rules.SavedCombination, event_id: int, participant_id: int
) -> dict[str, Any]:
    """The columns of a `combination` row."""
    return {
        "id": combination.id,
        "event_id": event_id,
        "participant_id": participant_id,
        "cards": list(combination.cards),
        "category": combination.category,
        "deal": combination.deal,
        "saved_at": combination.saved_at,
    }


def tallies(
    state: rules.PlayState,
    outcomes: Iterable[rules.Outcome],
    before: Mapping[str, Any] | None = None,
) -> dict[str, int]:
    """The tallies of a `participant_state` row (`repo.TALLIES`): `hand_cards` (cards held
    unsaved in `state`, RULES.md I-3), and `takes`, `unknown_codes` (not voided) and
    `hand_full` (refusals, I-1) counted over `outcomes`, added to those of `before` (the
    stored row, for outcomes of new takes only; None: `outcomes` are all of them)."""
    found = rules.outcome_counts(outcomes, voided_reason=VOIDED)
    if before is not None:
        for name in ("takes", "unknown_codes", "hand_full"):
            found[name] += int(before.get(name) or 0)
    return {"hand_cards": len(state.hand), **found}


def state_values(
    participant_id: int,
    event_id: int,
    state: rules.PlayState,
    last: rules.TakeIn | None,
    head: tuple[int, str | None] | None,
    now: datetime,
    counted: Mapping[str, int],
) -> dict[str, Any]:
    """The columns of a `participant_state` row: the state after `last` (the
    participant's last take in field order, None: no live take), their chain's head
    `(log_seq, log_head)` (None: leave it as stored; no `log_*` key) and the tallies
    `counted` (`tallies`)."""
    values = {
        "participant_id": participant_id,
        "event_id": event_id,
        "state": state.to_json(),
        "last_taken_at": last.taken_at if last else None,
        "last_take_id": last.take_id if last else None,
        "updated_at": now,
        **counted,
    }
    if head is not None:
        values["log_seq"], values["log_head"] = head
    return values


# -- the fold of one participant ---------------------------------------------------------------


@dataclass(frozen=True)
class Fold:
    """A participant replayed from the log: the final `state`, every take's outcome by take
    id (voided ones `rejected`/`voided`), and the last live take in field order."""

    state: rules.PlayState
    outcomes: dict[int, rules.Outcome]
    last: rules.TakeIn | None


def fold_participant(
    deck: Deck, course: rules.Course, logged: Sequence[Any], existing: Mapping[int, Any]
) -> Fold:
    """Replay one participant's `logged` takes (`repo.takes_of_participant` rows: `id`,
    `code`, `source`, `taken_at`, `device_taken_at`, `voided`) under `course` (RULES.md
    I-4: field time from `deck.field_time`). Voided takes are left out of the fold and
    keep where they stood (`voided_outcome` of their `existing` row)."""
    live = [
        rules.TakeIn(t.id, t.code, deck.field_time(t.source, t.taken_at, t.device_taken_at))
        for t in logged
        if not t.voided
    ]
    state, outcomes = rules.replay(live, course)
    by_id = {outcome.take_id: outcome for outcome in outcomes}
    for take in logged:
        if take.voided:
            by_id[take.id] = voided_outcome(take.id, take.code, existing.get(take.id), course)
    last = max(live, key=rules.field_order) if live else None
    return Fold(state, by_id, last)


def _record_outcome_changes(session: Session, event_id: int, external_id: str, n: int) -> None:
    """The `feed.outcomes_changed` audit entry of a participant with `n` changed takes."""
    audit.record(
        session,
        event_id=event_id,
        actor="system",
        action="feed.outcomes_changed",
        subject=f"participant:{external_id}",
        details={"changed": n},
    )


# -- incremental apply -------------------------------------------------------------------------


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
    head: Head | None = None,
) -> dict[int, rules.Outcome]:
    """Apply takes just inserted into the log for `participant` (already locked).

    `row` is the participant's stored state (`repo.states_of`: `state`,
    `last_taken_at`, `last_take_id`, `log_seq`, `log_head`; None before their first
    take), `save_codes` their save codes and `head` their chain's new head after
    these takes (`ingest`; None: unchanged). In field-time order after the participant's
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
    now = utcnow()
    result: dict[int, rules.Outcome] = {}
    for take in ordered:
        state, outcome = rules.apply_take(state, take, course)
        result[take.take_id] = outcome
        writes.outcomes.append(outcome_change(outcome, participant.id, None, now).values)
    for combination in state.combinations:
        if combination.id in result:
            values = combination_values(combination, participant.event_id, participant.id)
            writes.combinations.append(Combination(**values))
    if head is None:
        head = (row["log_seq"], row["log_head"]) if row else (0, None)  # type: ignore[assignment]
    counted = tallies(state, (result[take.take_id] for take in ordered), row)
    values = state_values(
        participant.id, participant.event_id, state, ordered[-1], head, now, counted
    )
    (writes.updated_states if row is not None else writes.states).append(values)
    return result


# -- one participant -----------------------------------------------------------------------------


def replay_participant(
    session: Session, deck: Deck, participant: Participant, *, head: Head | None = None
) -> tuple[dict[int, rules.Outcome], int]:
    """Replay `participant` (already locked) from the log and rewrite their projection
    (with `head`, their chain's new `(log_seq, log_head)`, when rows were just appended).

    Voided takes are left out of the fold; their outcome is `rejected`/`voided`.
    A take whose outcome or reason changes keeps the old one in
    `previous_outcome`/`previous_reason` with `changed_at` (RULES.md I-4: the
    change is visible in the participant's log; `outcome_change`). Combinations are
    kept by id (the save take's id), so an unchanged combination keeps its row.
    Returns (outcomes by take id, number of takes whose outcome changed).
    """
    course = course_of(session, deck, participant.id)
    logged = repo.takes_of_participant(session, participant.id)
    existing = repo.outcomes_of_participant(session, participant.id)
    fold = fold_participant(deck, course, logged, existing)
    now = utcnow()
    changed = _rewrite_outcomes(session, participant.id, fold.outcomes, existing, now)
    _rewrite_combinations(session, participant, fold.state)
    stored = session.get(ParticipantState, participant.id, populate_existing=True)
    if stored is None:
        stored = ParticipantState(participant_id=participant.id, event_id=participant.event_id)
        session.add(stored)
    counted = tallies(fold.state, fold.outcomes.values())
    values = state_values(
        participant.id, participant.event_id, fold.state, fold.last, head, now, counted
    )
    for column, value in values.items():
        setattr(stored, column, value)
    session.flush()
    if changed:
        _record_outcome_changes(session, participant.event_id, participant.external_id, changed)
    return fold.outcomes, changed


def _rewrite_outcomes(
    session: Session,
    participant_id: int,
    outcomes: Mapping[int, rules.Outcome],
    existing: Mapping[int, TakeOutcome],
    now: datetime,
) -> int:
    """Write the outcome rows of one participant's replay (ORM rows: kept by take id);
    returns how many takes changed outcome or reason."""
    changed = 0
    for take_id, outcome in outcomes.items():
        row = existing.get(take_id)
        change = outcome_change(outcome, participant_id, row, now)
        if row is None:
            session.add(TakeOutcome(**change.values))
            continue
        changed += change.changed
        for column, value in change.values.items():
            setattr(row, column, value)
    return changed


def _rewrite_combinations(
    session: Session, participant: Participant, state: rules.PlayState
) -> None:
    """Make the participant's combination rows those of `state` (kept by id)."""
    stored = repo.combinations_of(session, participant.id)
    wanted = {combination.id: combination for combination in state.combinations}
    for combination_id, row in stored.items():
        if combination_id not in wanted:
            session.delete(row)
    for combination_id, combination in wanted.items():
        values = combination_values(combination, participant.event_id, participant.id)
        row = stored.get(combination_id)
        if row is None:
            session.add(Combination(**values))
        else:
            for column in ("cards", "category", "deal", "saved_at"):
                setattr(row, column, values[column])


# -- the whole event -------------------------------------------------------------------------------


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


@dataclass
class _EventRows:
    """The projection rows of an event being rebuilt, and the counts of its summary."""

    now: datetime
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    states: list[dict[str, Any]] = field(default_factory=list)
    combinations: list[dict[str, Any]] = field(default_factory=list)
    takes: int = 0
    changed: int = 0
    stopped: int = 0
    started: int = 0
    changed_by_participant: dict[str, int] = field(default_factory=dict)

    def add(
        self,
        event_id: int,
        participant: tuple[int, str],
        fold: Fold,
        existing: Mapping[int, Any],
        head: tuple[int, str | None],
    ) -> None:
        """Add the rows of one participant's `fold` (`participant`: id, external id)."""
        participant_id, external_id = participant
        n = 0
        for take_id, outcome in fold.outcomes.items():
            change = outcome_change(outcome, participant_id, existing.get(take_id), self.now)
            self.outcomes.append(change.values)
            n += change.changed
            self.stopped += change.stopped_counting
            self.started += change.started_counting
        self.combinations.extend(
            combination_values(combination, event_id, participant_id)
            for combination in fold.state.combinations
        )
        self.states.append(
            state_values(
                participant_id,
                event_id,
                fold.state,
                fold.last,
                head,
                self.now,
                tallies(fold.state, fold.outcomes.values()),
            )
        )
        self.takes += len(fold.outcomes)
        self.changed += n
        if n:
            self.changed_by_participant[external_id] = n


def _event_logs(
    session: Session, event_id: int
) -> tuple[dict[int, list[Any]], dict[int, tuple[int, str]]]:
    """The event's takes by participant (`repo.takes_of_event` rows, field-time order) and
    each participant's chain head (app.core.chain: the last of their take and void links)."""
    logged: dict[int, list[Any]] = defaultdict(list)
    heads: dict[int, tuple[int, str]] = {}
    for row in repo.takes_of_event(session, event_id):
        logged[row.participant_id].append(row)
        if row.log_seq is not None and row.log_seq > heads.get(row.participant_id, (0, ""))[0]:
            heads[row.participant_id] = (row.log_seq, row.log_hash)
    for participant_id, seq, digest in repo.void_links_of_event(session, event_id):
        if seq > heads.get(participant_id, (0, ""))[0]:
            heads[participant_id] = (seq, digest)
    return logged, heads


def replay_event(session: Session, event: Event, *, actor: str) -> ReplaySummary:
    """Replay every participant of `event` from the log (RULES.md I-4), in bulk.

    Set-based: the event's CPs, save codes, participants, takes (with voids, in
    participant / `taken_at` / id order) and stored outcomes are read with a
    handful of queries; every participant is replayed in memory by the pure
    rules engine (`fold_participant`); then the event's projection rows
    (take outcomes, participant states, combinations) are deleted and written
    again with bulk inserts, in the caller's transaction. The result is the one
    `replay_participant` gives participant by participant (the same row builders):
    voided takes are `rejected`/`voided` where they stood; a take whose outcome or
    reason changed keeps the old one in `previous_outcome`/`previous_reason` with
    `changed_at` (and a `feed.outcomes_changed` audit entry per participant); an
    unchanged take keeps its change history. Returns the `ReplaySummary`. Each
    participant's chain head (app.core.chain) is recomputed from the log rows and
    written with the state. On a consistent projection nothing changes. 409
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
    logged, heads = _event_logs(session, event.id)
    rows = _EventRows(utcnow())
    for participant_id, external_id in participants:
        course = deck.course(save_codes.get(participant_id, ()))
        fold = fold_participant(deck, course, logged[participant_id], existing)
        head = heads.get(participant_id, (0, None))
        rows.add(event.id, (participant_id, external_id), fold, existing, head)
    _write_event_rows(session, event, rows)
    audit.record(
        session,
        event_id=event.id,
        actor=actor,
        action="feed.rebuild",
        subject=f"event:{event.id}",
        details={"participants": len(participants), "takes": rows.takes, "changed": rows.changed},
    )
    session.flush()
    return ReplaySummary(
        participants=len(participants),
        takes=rows.takes,
        changed_outcomes=rows.changed,
        changed_participants=len(rows.changed_by_participant),
        stopped_counting=rows.stopped,
        started_counting=rows.started,
    )


def _write_event_rows(session: Session, event: Event, rows: _EventRows) -> None:
    """Replace the event's projection by `rows` (bulk DELETE / INSERT) and record the
    participants whose outcomes changed."""
    # Loaded projection objects would be stale after the bulk DELETE / INSERT.
    for obj in list(session.identity_map.values()):
        if isinstance(obj, (TakeOutcome, ParticipantState, Combination)):
            session.expunge(obj)
    repo.delete_projection_of_event(session, event.id)
    repo.insert_projection(session, rows.outcomes, rows.states, rows.combinations)
    for external_id, n in rows.changed_by_participant.items():
        _record_outcome_changes(session, event.id, external_id, n)
