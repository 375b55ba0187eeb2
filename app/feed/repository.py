"""Queries of the field feed. The take log is only ever inserted into."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import RowMapping, Select, bindparam, delete, exists, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.core import audit, bulk_repository
from app.events.models import Checkpoint, Event, Participant, SaveCode
from app.feed.models import (
    Combination,
    IntegrationKey,
    ParticipantState,
    SourceClock,
    Take,
    TakeOutcome,
    TakeVoid,
)


def checkpoints_of_event(session: Session, event_id: int) -> Sequence[Any]:
    """Rows `(id, number, card, code, discard_code)` of the event's CPs (plain rows: fast)."""
    return session.execute(_CHECKPOINTS, {"event_id": event_id}).all()


_CHECKPOINTS = select(
    Checkpoint.id,
    Checkpoint.number,
    Checkpoint.card,
    Checkpoint.code,
    Checkpoint.discard_code,
).where(Checkpoint.event_id == bindparam("event_id"))


def save_codes_of(session: Session, participant_id: int) -> list[str]:
    return list(
        session.scalars(select(SaveCode.code).where(SaveCode.participant_id == participant_id))
    )


def participants_by_external_id(
    session: Session, event_id: int, external_ids: Iterable[str]
) -> dict[str, Participant]:
    ids = sorted(set(external_ids))
    found: dict[str, Participant] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = session.scalars(
            select(Participant).where(
                Participant.event_id == event_id, Participant.external_id.in_(chunk)
            )
        )
        found.update({p.external_id: p for p in rows})
    return found


def lock_participants_by_external_id(
    session: Session, event_id: int, external_ids: Iterable[str]
) -> dict[str, Participant]:
    """The event's participants with these external ids, row-locked in id order.

    One query for up to 500 participants (the lock is taken in `ORDER BY id`
    order); larger sets are looked up first and then locked by `lock_participants`.
    Read the participants' states with a later statement (`states_of`): on
    PostgreSQL only a statement that starts after the lock is granted sees what
    the previous holder committed.
    """
    ids = sorted(set(external_ids))
    if len(ids) > 500:
        found = participants_by_external_id(session, event_id, ids)
        lock_participants(session, (p.id for p in found.values()))
        return found
    if not ids:
        return {}
    rows = session.scalars(_LOCK_BY_EXTERNAL_ID, {"event_id": event_id, "ids": ids})
    return {p.external_id: p for p in rows}


_LOCK_BY_EXTERNAL_ID = (
    select(Participant)
    .where(
        Participant.event_id == bindparam("event_id"),
        Participant.external_id.in_(bindparam("ids", expanding=True)),
    )
    .order_by(Participant.id)
    .with_for_update(key_share=True)
)


# the tallies of a `participant_state` row (`ParticipantState`), written with the state
TALLIES = ("hand_cards", "takes", "unknown_codes", "hand_full")


def states_of(session: Session, participant_ids: Iterable[int]) -> dict[int, RowMapping]:
    """The stored states (`state`, `last_taken_at`, `last_take_id`, the chain head
    `log_seq`, `log_head`, and the `TALLIES`) of these participants, as plain rows by participant id
    (absent: no take yet). Read after the participants' lock: the heads are current."""
    ids = sorted(set(participant_ids))
    found: dict[int, RowMapping] = {}
    for start in range(0, len(ids), 500):
        rows = session.execute(_STATES, {"ids": ids[start : start + 500]}).mappings()
        found.update({row["participant_id"]: row for row in rows})
    return found


_STATES = select(
    ParticipantState.participant_id,
    ParticipantState.state,
    ParticipantState.last_taken_at,
    ParticipantState.last_take_id,
    ParticipantState.log_seq,
    ParticipantState.log_head,
    *(getattr(ParticipantState, name) for name in TALLIES),
).where(ParticipantState.participant_id.in_(bindparam("ids", expanding=True)))


def insert_outcomes(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Insert `take_outcome` rows (an executemany of one cached statement)."""
    if rows:
        session.connection().execute(insert(TakeOutcome.__table__), list(rows))


def save_states(
    session: Session, *, new: Sequence[dict[str, Any]], existing: Sequence[dict[str, Any]]
) -> None:
    """Write participants' projected states: INSERT the `new`, UPDATE the `existing`.

    Each row: `participant_id`, `event_id`, `state`, `last_taken_at`,
    `last_take_id`, `updated_at`, `log_seq`, `log_head` and the `TALLIES`. Core
    executemany statements, no ORM object:
    the caller holds the participants' locks, and no ParticipantState object of
    theirs is loaded in the session (`states_of` returns plain rows).
    """
    connection = session.connection()
    if new:
        connection.execute(insert(ParticipantState.__table__), list(new))
    if existing:
        connection.execute(
            _UPDATE_STATE,
            [
                {"pid": row["participant_id"], **{k: row[k] for k in _STATE_VALUES}}
                for row in existing
            ],
        )


_STATE_TABLE = ParticipantState.__table__
# what an UPDATE sets
_STATE_VALUES = (
    "state", "last_taken_at", "last_take_id", "updated_at", "log_seq", "log_head", *TALLIES,
)  # fmt: skip
_UPDATE_STATE = (
    update(_STATE_TABLE)
    .where(_STATE_TABLE.c.participant_id == bindparam("pid"))
    .values({name: bindparam(name) for name in _STATE_VALUES})
)


def save_codes_by_participant(
    session: Session, participant_ids: Iterable[int]
) -> dict[int, list[str]]:
    ids = sorted(set(participant_ids))
    found: dict[int, list[str]] = {pid: [] for pid in ids}
    for start in range(0, len(ids), 500):
        rows = session.execute(
            select(SaveCode.participant_id, SaveCode.code).where(
                SaveCode.participant_id.in_(ids[start : start + 500])
            )
        )
        for participant_id, code in rows:
            found[participant_id].append(code)
    return found


def lock_participants(session: Session, participant_ids: Iterable[int]) -> None:
    """Row-lock the participants (PostgreSQL `SELECT … FOR NO KEY UPDATE`: the rows that
    point at a participant, such as a bid, stay insertable), in id order.

    Locking in a fixed order keeps two batches that share participants from
    deadlocking. On SQLite the clause is not rendered: the write transaction
    (`BEGIN IMMEDIATE`) already serialises writers.
    """
    ids = sorted(set(participant_ids))
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        session.execute(
            select(Participant.id)
            .where(Participant.id.in_(chunk))
            .order_by(Participant.id)
            .with_for_update(key_share=True)
        ).all()


def logged_source_keys(
    session: Session, event_id: int, keys: Iterable[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Which of these `(source, source_id)` pairs are already in the event's take log."""
    wanted = set(keys)
    source_ids = sorted({source_id for _, source_id in wanted})
    found: set[tuple[str, str]] = set()
    for start in range(0, len(source_ids), 500):
        rows = session.execute(
            _LOGGED_KEYS, {"event_id": event_id, "ids": source_ids[start : start + 500]}
        )
        found.update(
            (source, source_id) for source, source_id in rows if (source, source_id) in wanted
        )
    return found


_LOGGED_KEYS = select(Take.source, Take.source_id).where(
    Take.event_id == bindparam("event_id"),
    Take.source_id.in_(bindparam("ids", expanding=True)),
)


INSERT_CHUNK = 500  # rows per INSERT statement (9 parameters each)
_INSERT_TAKES: dict[str, Any] = {}  # dialect name -> the statement (built once: its SQL is cached)


def _insert_takes_statement(dialect: str) -> Any:
    statement = _INSERT_TAKES.get(dialect)
    if statement is None:
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        statement = _INSERT_TAKES[dialect] = (
            insert(Take)
            .on_conflict_do_nothing(index_elements=["event_id", "source", "source_id"])
            .returning(Take.id, Take.source, Take.source_id)
        )
    return statement


def insert_takes(session: Session, rows: Sequence[dict[str, Any]]) -> dict[tuple[str, str], int]:
    """Insert takes (an executemany that SQLAlchemy sends as multi-row INSERTs); the
    ids of those stored, by `(source, source_id)`. A row whose `(event, source,
    source_id)` is already in the log (or earlier in `rows`) is not stored and is
    absent from the result. The statement is built once per dialect, so its
    compiled SQL comes from SQLAlchemy's cache (a per-request multi-row
    `.values([...])` would be compiled anew on every delivery)."""
    if not rows:
        return {}
    connection = session.connection()
    statement = _insert_takes_statement(connection.dialect.name)
    stored: dict[tuple[str, str], int] = {}
    for start in range(0, len(rows), INSERT_CHUNK):
        chunk = rows[start : start + INSERT_CHUNK]
        result = connection.execute(statement, list(chunk) if len(chunk) > 1 else chunk[0])
        for take_id, source, source_id in result:
            stored[(source, source_id)] = take_id
    return stored


def take_by_source(session: Session, event_id: int, source: str, source_id: str) -> Take | None:
    return session.scalar(
        select(Take).where(
            Take.event_id == event_id, Take.source == source, Take.source_id == source_id
        )
    )


def takes_of_participant(session: Session, participant_id: int) -> Sequence[Any]:
    """Every take of a participant as `takes_of_event` rows, in field-time order (I-4)."""
    return session.execute(
        _TAKE_ROWS.where(Take.participant_id == participant_id).order_by(Take.taken_at, Take.id)
    ).all()


def is_voided(session: Session, take_id: int) -> bool:
    """Whether an organiser voided the take (a `take_void` row exists)."""
    return session.scalar(select(TakeVoid.id).where(TakeVoid.take_id == take_id)) is not None


def outcomes_of_participant(session: Session, participant_id: int) -> dict[int, TakeOutcome]:
    rows = session.scalars(select(TakeOutcome).where(TakeOutcome.participant_id == participant_id))
    return {row.take_id: row for row in rows}


def outcomes_by_take(session: Session, take_ids: Iterable[int]) -> dict[int, TakeOutcome]:
    ids = sorted(set(take_ids))
    found: dict[int, TakeOutcome] = {}
    for start in range(0, len(ids), 500):
        rows = session.scalars(
            select(TakeOutcome).where(TakeOutcome.take_id.in_(ids[start : start + 500]))
        )
        found.update({row.take_id: row for row in rows})
    return found


def combinations_of(session: Session, participant_id: int) -> dict[int, Combination]:
    rows = session.scalars(select(Combination).where(Combination.participant_id == participant_id))
    return {row.id: row for row in rows}


def participant_ids_with_takes(session: Session, event_id: int) -> list[int]:
    return list(
        session.scalars(
            select(Take.participant_id)
            .where(Take.event_id == event_id)
            .distinct()
            .order_by(Take.participant_id)
        )
    )


def count_unknown_phone_takes(session: Session, participant_id: int, since: datetime) -> int:
    """Phone takes of unknown codes received since `since` (the scan rate limit)."""
    return (
        session.scalar(
            select(func.count())
            .select_from(Take)
            .join(TakeOutcome, TakeOutcome.take_id == Take.id)
            .where(
                Take.participant_id == participant_id,
                Take.source == "phone",
                Take.received_at >= since,
                TakeOutcome.kind == "unknown",
            )
        )
        or 0
    )


def oldest_unknown_phone_take(
    session: Session, participant_id: int, since: datetime
) -> datetime | None:
    return session.scalar(
        select(func.min(Take.received_at))
        .join(TakeOutcome, TakeOutcome.take_id == Take.id)
        .where(
            Take.participant_id == participant_id,
            Take.source == "phone",
            Take.received_at >= since,
            TakeOutcome.kind == "unknown",
        )
    )


def _log_query(event_id: int) -> Select[Any]:
    """Takes of an event with outcome, void and participant."""
    return (
        select(Take, TakeOutcome, TakeVoid, Participant)
        .join(Participant, Participant.id == Take.participant_id)
        .outerjoin(TakeOutcome, TakeOutcome.take_id == Take.id)
        .outerjoin(TakeVoid, TakeVoid.take_id == Take.id)
        .where(Take.event_id == event_id)
    )


def log_page(
    session: Session,
    event_id: int,
    *,
    filters: dict[str, Any],
    limit: int,
    offset: int,
) -> tuple[int, Sequence[Any]]:
    """(total, rows `(Take, TakeOutcome | None, TakeVoid | None, Participant)`) of the
    event's take log in stored-time order, filtered, one page (`limit`, `offset`).

    `filters` (each optional, None: no filter): `participant` (external id),
    `checkpoint_id`, `kind`, `outcome`, `reason`, `source`, `taken_from` (inclusive),
    `taken_to` (exclusive), `take_id`.
    """
    query = _log_query(event_id)
    columns = {
        "participant": Participant.external_id,
        "checkpoint_id": TakeOutcome.checkpoint_id,
        "kind": TakeOutcome.kind,
        "outcome": TakeOutcome.outcome,
        "reason": TakeOutcome.reason,
        "source": Take.source,
        "take_id": Take.id,
    }
    for name, column in columns.items():
        if filters.get(name) is not None:
            query = query.where(column == filters[name])
    if filters.get("taken_from") is not None:
        query = query.where(Take.taken_at >= filters["taken_from"])
    if filters.get("taken_to") is not None:
        query = query.where(Take.taken_at < filters["taken_to"])
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.execute(query.order_by(Take.taken_at, Take.id).limit(limit).offset(offset))
    return total, rows.all()


def checkpoint_id_by_number(session: Session, event_id: int, number: int) -> int | None:
    """The id of the event's CP number `number` (None: no such CP)."""
    return session.scalar(
        select(Checkpoint.id).where(Checkpoint.event_id == event_id, Checkpoint.number == number)
    )


def log_of_participant(
    session: Session, participant_id: int
) -> Sequence[tuple[Take, TakeOutcome | None, TakeVoid | None]]:
    """Rows `(Take, TakeOutcome | None, TakeVoid | None)` of the participant's takes, in
    stored-time order."""
    return session.execute(
        select(Take, TakeOutcome, TakeVoid)
        .outerjoin(TakeOutcome, TakeOutcome.take_id == Take.id)
        .outerjoin(TakeVoid, TakeVoid.take_id == Take.id)
        .where(Take.participant_id == participant_id)
        .order_by(Take.taken_at, Take.id)
    ).all()  # type: ignore[return-value]


def count_save_codes(session: Session, participant_id: int) -> int:
    """How many save codes the participant was given."""
    return (
        session.scalar(
            select(func.count())
            .select_from(SaveCode)
            .where(SaveCode.participant_id == participant_id)
        )
        or 0
    )


def cards_of_card_takes(
    session: Session, participant_id: int, *, except_reasons: Sequence[str]
) -> set[str]:
    """The cards of the participant's card takes whose reason is none of `except_reasons`
    (a counted take has no reason)."""
    rows = session.scalars(
        select(TakeOutcome.card).where(
            TakeOutcome.participant_id == participant_id,
            TakeOutcome.kind == "card",
            TakeOutcome.card.is_not(None),
            *(TakeOutcome.reason.is_distinct_from(reason) for reason in except_reasons),
        )
    )
    return set(rows)


def feed_audit_entries(session: Session, event_id: int) -> list[audit.AuditEntry]:
    """The event's audit entries of the feed (`feed.*` actions), oldest first."""
    return list(
        session.scalars(
            select(audit.AuditEntry)
            .where(audit.AuditEntry.event_id == event_id, audit.AuditEntry.action.like("feed.%"))
            .order_by(audit.AuditEntry.id)
        )
    )


def takes_with_reason_by_participant(session: Session, event_id: int, reason: str) -> Sequence[Any]:
    """Rows `(external_id, name, count)`: participants with takes refused for `reason`,
    by external id."""
    return session.execute(
        select(Participant.external_id, Participant.name, func.count())
        .select_from(TakeOutcome)
        .join(Participant, Participant.id == TakeOutcome.participant_id)
        .where(Participant.event_id == event_id, TakeOutcome.reason == reason)
        .group_by(Participant.external_id, Participant.name)
        .order_by(Participant.external_id)
    ).all()


def unknown_code_takes(
    session: Session, event_id: int, *, except_reason: str, limit: int, offset: int = 0
) -> Sequence[Any]:
    """Rows `(Take, Participant)`: takes of codes that matched nothing whose reason is not
    `except_reason`, in stored-time order, at most `limit` from `offset`. Read from the
    unknown outcomes (`ix_take_outcome_kind`), not from every take of the event."""
    return session.execute(
        select(Take, Participant)
        .select_from(TakeOutcome)
        .join(Take, Take.id == TakeOutcome.take_id)
        .join(Participant, Participant.id == Take.participant_id)
        .where(
            TakeOutcome.kind == "unknown",
            TakeOutcome.reason.is_distinct_from(except_reason),
            # unary + keeps SQLite from walking the event's takes by their time index
            (Take.event_id + 0) == event_id,
        )
        .order_by(Take.taken_at, Take.id)
        .limit(limit)
        .offset(offset)
    ).all()


def takes_dated_after_receipt(session: Session, event_id: int) -> Sequence[Any]:
    """Rows `(Take, Participant)`: takes whose `taken_at` is later than `received_at`, in
    stored-time order (the caller applies its margin: interval arithmetic is not
    portable SQL)."""
    return session.execute(
        select(Take, Participant)
        .join(Participant, Participant.id == Take.participant_id)
        .where(Take.event_id == event_id, Take.taken_at > Take.received_at)
        .order_by(Take.taken_at, Take.id)
    ).all()


def event_tallies(session: Session, event_id: int, since: datetime) -> dict[str, int]:
    """The dashboard's counters in one statement, whatever the event's size: participants,
    takes since `since` (UTC, field time; the `(event_id, taken_at)` index) and the
    sums of the participants' tallies (`TALLIES`: takes, unknown codes, hand_full
    refusals, participants holding unsaved cards)."""
    participants = (
        select(func.count()).select_from(Participant).where(Participant.event_id == event_id)
    ).scalar_subquery()
    recent = (
        select(func.count())
        .select_from(Take)
        .where(Take.event_id == event_id, Take.taken_at >= since)
    ).scalar_subquery()
    s = ParticipantState
    row = session.execute(
        select(
            participants,
            recent,
            func.coalesce(func.sum(s.takes), 0),
            func.coalesce(func.sum(s.unknown_codes), 0),
            func.coalesce(func.sum(s.hand_full), 0),
            func.count(s.participant_id).filter(s.hand_cards > 0),
        ).where(s.event_id == event_id)
    ).one()
    names = ("participants", "recent", "takes", "unknown_codes", "hand_full", "unsaved_hands")
    return {name: int(value or 0) for name, value in zip(names, row, strict=True)}


def states_with(
    session: Session, event_id: int, tally: str, *, limit: int, offset: int = 0
) -> list[tuple[ParticipantState, Participant]]:
    """Rows `(ParticipantState, Participant)` whose `tally` (one of `TALLIES`) is above 0,
    by external id, `limit` from `offset`: a page of a warning list."""
    column = getattr(ParticipantState, tally)
    rows = session.execute(
        select(ParticipantState, Participant)
        .join(Participant, Participant.id == ParticipantState.participant_id)
        .where(ParticipantState.event_id == event_id, column > 0)
        .order_by(Participant.external_id)
        .limit(limit)
        .offset(offset)
    ).all()
    return [(state, participant) for state, participant in rows]


def states_of_event(session: Session, event_id: int) -> list[tuple[ParticipantState, Participant]]:
    rows = session.execute(
        select(ParticipantState, Participant)
        .join(Participant, Participant.id == ParticipantState.participant_id)
        .where(ParticipantState.event_id == event_id)
        .order_by(Participant.external_id)
    ).all()
    return [(state, participant) for state, participant in rows]


# -- the event rebuild (set-based: a handful of queries for the whole event) ------------------


def integration_keys(session: Session, event_id: int) -> Sequence[IntegrationKey]:
    """The event's integration keys, revoked ones too, in creation order."""
    return session.scalars(
        select(IntegrationKey)
        .where(IntegrationKey.event_id == event_id)
        .order_by(IntegrationKey.id)
    ).all()


def live_integration_key(session: Session, key_hash: str) -> IntegrationKey | None:
    """The integration key (of any event) with this hash, unless it is revoked."""
    return session.scalar(
        select(IntegrationKey).where(
            IntegrationKey.key_hash == key_hash, IntegrationKey.revoked_at.is_(None)
        )
    )


def event_has_takes(session: Session, event_id: int) -> bool:
    """True once any take of the event is recorded (voided ones count: the log keeps them)."""
    return bool(session.scalar(select(exists().where(Take.event_id == event_id))))


def participant_has_takes(session: Session, participant_id: int) -> bool:
    """True once any take of the participant is recorded (voided ones count)."""
    return bool(session.scalar(select(exists().where(Take.participant_id == participant_id))))


def participants_with_takes(session: Session, event_id: int) -> list[tuple[int, str]]:
    """Rows `(id, external_id)` of the event's participants that have a take, by id."""
    # Correlated on the participant only (its index on `take`): planned well even when
    # the tables have no statistics yet (a bulk load in this transaction).
    has_take = select(Take.id).where(Take.participant_id == Participant.id).exists()
    rows = session.execute(
        select(Participant.id, Participant.external_id)
        .where(Participant.event_id == event_id, has_take)
        .order_by(Participant.id)
    ).all()
    return [(row.id, row.external_id) for row in rows]


def save_codes_of_event(session: Session, event_id: int) -> dict[int, list[str]]:
    """Save codes of every participant of the event, by participant id (one query)."""
    found: dict[int, list[str]] = defaultdict(list)
    rows = session.execute(
        select(SaveCode.participant_id, SaveCode.code)
        .join(Participant, Participant.id == SaveCode.participant_id)
        .where(Participant.event_id == event_id)
    )
    for participant_id, code in rows:
        found[participant_id].append(code)
    return found


def void_links_of_event(session: Session, event_id: int) -> Sequence[Any]:
    """Rows `(participant_id, log_seq, log_hash)` of the event's chained voids (with the
    takes' own, what a rebuild needs to recompute the chain heads)."""
    return session.execute(
        select(Take.participant_id, TakeVoid.log_seq, TakeVoid.log_hash)
        .join(Take, Take.id == TakeVoid.take_id)
        .where(Take.event_id == event_id, TakeVoid.log_seq.is_not(None))
    ).all()


def takes_of_event(session: Session, event_id: int) -> Sequence[Any]:
    """Rows `(id, participant_id, code, taken_at, source, device_taken_at, voided, log_seq,
    log_hash)` of every take of the event.

    Ordered by participant, then field time (RULES.md I-4: `taken_at`, then id);
    `voided` is True when an organiser voided the take. Plain rows (fast).
    """
    return session.execute(
        _TAKE_ROWS.where(Take.event_id == event_id).order_by(
            Take.participant_id, Take.taken_at, Take.id
        )
    ).all()


_TAKE_ROWS = select(
    Take.id,
    Take.participant_id,
    Take.code,
    Take.taken_at,
    Take.source,
    Take.device_taken_at,
    TakeVoid.id.is_not(None).label("voided"),
    Take.log_seq,
    Take.log_hash,
).outerjoin(TakeVoid, TakeVoid.take_id == Take.id)


def outcomes_of_event(session: Session, event_id: int) -> dict[int, Any]:
    """The stored outcome rows of the event's takes, by take id (plain rows)."""
    rows = session.execute(
        select(
            TakeOutcome.take_id,
            TakeOutcome.kind,
            TakeOutcome.outcome,
            TakeOutcome.reason,
            TakeOutcome.card,
            TakeOutcome.checkpoint_id,
            TakeOutcome.deal,
            TakeOutcome.round,
            TakeOutcome.previous_outcome,
            TakeOutcome.previous_reason,
            TakeOutcome.changed_at,
        )
        .join(Take, Take.id == TakeOutcome.take_id)
        .where(Take.event_id == event_id)
    )
    return {row.take_id: row for row in rows}


def delete_projection_of_event(session: Session, event_id: int) -> None:
    """Delete the event's projection rows: take outcomes, participant states, combinations.

    Bulk DELETEs (the ORM identity map is not synchronised: the caller expunges
    loaded projection objects first). The logs (`take`, `take_void`) are untouched.
    """
    of_event = select(Participant.id).where(Participant.event_id == event_id)
    quiet = {"synchronize_session": False}
    session.execute(
        delete(TakeOutcome).where(TakeOutcome.participant_id.in_(of_event)),
        execution_options=quiet,
    )
    session.execute(
        delete(ParticipantState).where(ParticipantState.event_id == event_id),
        execution_options=quiet,
    )
    session.execute(
        delete(Combination).where(Combination.event_id == event_id), execution_options=quiet
    )


def insert_projection(
    session: Session,
    outcomes: list[dict[str, Any]],
    states: list[dict[str, Any]],
    combinations: list[dict[str, Any]],
) -> None:
    """Bulk-insert projection rows (dicts keyed by column name, every row of a table with
    the same keys): `app.core.bulk_repository.insert_rows` (COPY on PostgreSQL,
    executemany else)."""
    for model, rows in (
        (TakeOutcome, outcomes),
        (ParticipantState, states),
        (Combination, combinations),
    ):
        bulk_repository.insert_rows(session, model.__table__, rows)


# -- the freeze at the ceremony ---------------------------------------------------------------


def event_freeze(session: Session, event_id: int) -> tuple[str, datetime | None]:
    """The event row's `(status, feed_frozen_at)`, read FOR SHARE (`freeze.feed_frozen`)."""
    status, frozen_at = session.execute(_FROZEN, {"event_id": event_id}).one()
    return status, frozen_at


_FROZEN = (
    select(Event.status, Event.feed_frozen_at)
    .where(Event.id == bindparam("event_id"))
    .with_for_update(read=True)
)


def event_for_feed(session: Session, event_id: int) -> Event | None:
    """The event, read FOR SHARE and refreshed (`freeze.load_event_for_feed`)."""
    return session.execute(_EVENT_FOR_FEED, {"event_id": event_id}).scalar_one_or_none()


_EVENT_FOR_FEED = (
    select(Event)
    .where(Event.id == bindparam("event_id"))
    .with_for_update(read=True)
    .execution_options(populate_existing=True)
)


# -- device clocks ---------------------------------------------------------------------------


_SOURCE_CLOCKS = (  # built once: read on every feed transaction (`deck.load_deck`)
    select(SourceClock.source, SourceClock.offset_seconds)
    .where(SourceClock.event_id == bindparam("event_id"))
    .order_by(SourceClock.id)
)


def source_clocks(session: Session, event_id: int) -> dict[str, float]:
    """The organiser's offsets of the event's sources (seconds), by source: the latest
    `source_clock` row of each source; a source whose latest row clears it is absent."""
    rows = session.execute(_SOURCE_CLOCKS, {"event_id": event_id})
    latest = {source: offset for source, offset in rows}
    return {source: offset for source, offset in latest.items() if offset is not None}


def participant_ids_of_source(session: Session, event_id: int, source: str) -> list[int]:
    """The participants that have a take of `source` in the event, by id."""
    return list(
        session.scalars(
            select(Take.participant_id)
            .where(Take.event_id == event_id, Take.source == source)
            .distinct()
            .order_by(Take.participant_id)
        )
    )


def corrected_sources(session: Session, event_id: int) -> Sequence[Any]:
    """Rows `(source, takes, min_offset, max_offset)`: the sources with takes whose
    clock was corrected at receipt (`clock_offset_seconds` set)."""
    return session.execute(
        select(
            Take.source,
            func.count().label("takes"),
            func.min(Take.clock_offset_seconds).label("min_offset"),
            func.max(Take.clock_offset_seconds).label("max_offset"),
        )
        .where(Take.event_id == event_id, Take.clock_offset_seconds.is_not(None))
        .group_by(Take.source)
        .order_by(Take.source)
    ).all()


def participants_by_source(
    session: Session, event_id: int, sources: Iterable[str]
) -> dict[str, list[str]]:
    """External ids of the participants with takes of each of `sources`."""
    wanted = sorted(set(sources))
    found: dict[str, list[str]] = defaultdict(list)
    if not wanted:
        return found
    rows = session.execute(
        select(Take.source, Participant.external_id)
        .join(Participant, Participant.id == Take.participant_id)
        .where(Take.event_id == event_id, Take.source.in_(wanted))
        .distinct()
        .order_by(Take.source, Participant.external_id)
    )
    for source, external_id in rows:
        found[source].append(external_id)
    return found
