"""Queries of the event domain: events, checkpoints, participants, save codes, the
participants' identity log."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence

from sqlalchemy import Integer, cast, delete, func, insert, select, update
from sqlalchemy.orm import Session

from app.events.models import Checkpoint, Event, Participant, ParticipantIdentity, SaveCode


def list_events(session: Session) -> Sequence[Event]:
    return session.scalars(select(Event).order_by(Event.id)).all()


def event_ids(session: Session) -> list[int]:
    """The ids of every event, ascending."""
    return list(session.scalars(select(Event.id).order_by(Event.id)))


def count_events(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Event)) or 0


def checkpoint_count(session: Session, event_id: int) -> int:
    return (
        session.scalar(
            select(func.count()).select_from(Checkpoint).where(Checkpoint.event_id == event_id)
        )
        or 0
    )


def participant_count(session: Session, event_id: int) -> int:
    return (
        session.scalar(
            select(func.count()).select_from(Participant).where(Participant.event_id == event_id)
        )
        or 0
    )


def checkpoints(session: Session, event_id: int) -> Sequence[Checkpoint]:
    """The event's CPs by number."""
    return session.scalars(
        select(Checkpoint).where(Checkpoint.event_id == event_id).order_by(Checkpoint.number)
    ).all()


def checkpoint_by_number(session: Session, event_id: int, number: int) -> Checkpoint | None:
    return session.scalar(
        select(Checkpoint).where(Checkpoint.event_id == event_id, Checkpoint.number == number)
    )


def cp_codes_elsewhere(session: Session, event_id: int, codes: Sequence[str]) -> set[str]:
    """Those of `codes` already used as CP codes by other events (CP codes are unique)."""
    if not codes:
        return set()
    return set(
        session.scalars(
            select(Checkpoint.code).where(
                Checkpoint.code.in_(list(codes)), Checkpoint.event_id != event_id
            )
        )
    )


def save_codes(session: Session, event_id: int) -> set[str]:
    """Every save code of the event."""
    return set(session.scalars(select(SaveCode.code).where(SaveCode.event_id == event_id)))


def checkpoint_codes(session: Session, event_id: int) -> set[str]:
    """Every CP code and discard code of the event."""
    rows = session.execute(
        select(Checkpoint.code, Checkpoint.discard_code).where(Checkpoint.event_id == event_id)
    ).all()
    return {code for row in rows for code in row}


def participants(session: Session, event_id: int) -> Sequence[Participant]:
    return session.scalars(
        select(Participant).where(Participant.event_id == event_id).order_by(Participant.id)
    ).all()


def participant_by_external_id(
    session: Session, event_id: int, external_id: str
) -> Participant | None:
    return session.scalar(
        select(Participant).where(
            Participant.event_id == event_id, Participant.external_id == external_id
        )
    )


def participant_by_token_hash(session: Session, token_hash: str) -> Participant | None:
    """The participant (of any event) whose personal-link token has this hash, or None."""
    return session.scalar(select(Participant).where(Participant.access_token_hash == token_hash))


def participants_by_token_hashes(
    session: Session, token_hashes: Collection[str]
) -> list[Participant]:
    """The participants (of any events) whose personal-link tokens have these hashes (one
    query; a hash of no participant is simply absent)."""
    if not token_hashes:
        return []
    rows = session.scalars(
        select(Participant).where(Participant.access_token_hash.in_(set(token_hashes)))
    )
    return list(rows)


PARTICIPANT_LOCK_CLASS = 14
"""First key of the PostgreSQL advisory lock on an event's participant numbers."""


def lock_participant_numbers(session: Session, event_id: int) -> None:
    """Serialise, across processes, the transactions that create or renumber the event's
    participants until this transaction ends (PostgreSQL `pg_advisory_xact_lock`; SQLite's
    `BEGIN IMMEDIATE` already serialises writers). Read the event's external ids with a
    later statement, so that what the previous holder committed is seen. Unlike a lock on
    the event row it does not hold up the feed, which reads that row FOR SHARE."""
    if session.get_bind().dialect.name != "postgresql":
        return
    lock = func.pg_advisory_xact_lock(
        cast(PARTICIPANT_LOCK_CLASS, Integer), cast(event_id, Integer)
    )
    session.execute(select(lock))


def external_ids(session: Session, event_id: int) -> set[str]:
    return set(
        session.scalars(select(Participant.external_id).where(Participant.event_id == event_id))
    )


def insert_participants(session: Session, values: Sequence[dict]) -> list[Participant]:
    """Insert participants (every column but `id`) with one bulk INSERT; returns them in
    input order as Participant objects with their ids (not attached to the session)."""
    if not values:
        return []
    table = Participant.__table__
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    ids = session.scalars(statement, list(values)).all()
    return [Participant(id=id_, **row) for id_, row in zip(ids, values, strict=True)]


def set_sealed_tokens(session: Session, sealed: dict[int, str]) -> None:
    """Store `participant.access_token_sealed` by participant id (one bulk UPDATE by
    primary key)."""
    if sealed:
        session.execute(
            update(Participant),
            [{"id": pid, "access_token_sealed": value} for pid, value in sealed.items()],
        )


def insert_save_codes(session: Session, values: Sequence[dict]) -> None:
    """Insert save codes (every column but `id`) with one bulk INSERT."""
    if values:
        session.execute(insert(SaveCode.__table__), list(values))


def save_codes_by_participant(
    session: Session, event_id: int, participant_id: int | None = None
) -> dict[int, list[str]]:
    """{participant id: save codes in position order} for the event (or one participant)."""
    result: dict[int, list[str]] = defaultdict(list)
    query = select(SaveCode.participant_id, SaveCode.code).where(SaveCode.event_id == event_id)
    if participant_id is not None:
        query = query.where(SaveCode.participant_id == participant_id)
    rows = session.execute(query.order_by(SaveCode.participant_id, SaveCode.position)).all()
    for participant_id, code in rows:
        result[participant_id].append(code)
    return result


def delete_save_codes(session: Session, participant_id: int) -> None:
    session.execute(delete(SaveCode).where(SaveCode.participant_id == participant_id))


def insert_identities(session: Session, values: Sequence[dict]) -> None:
    """Insert `participant_identity` rows (dicts of its columns) with one bulk INSERT."""
    if values:
        session.execute(insert(ParticipantIdentity.__table__), list(values))
