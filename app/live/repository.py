"""The live channel's SQL: the event's live version, the topics changed since a version,
participants' names, and the fallback poll's one-query read (`app.live.snapshots` builds
the messages from them); the listener's `LISTEN` (`app.live.listener`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.orm import Session

from app.core.livelog import CHANNEL
from app.core.models import LiveChange, LiveVersion
from app.events.models import Participant

if TYPE_CHECKING:
    from psycopg import AsyncConnection

Topic = tuple[str, int]  # ("auction", place) | ("event", 0)


def current_version(session: Session, event_id: int) -> int:
    """The event's live version (0 before its first change): one primary-key read."""
    return int(
        session.scalar(select(LiveVersion.version).where(LiveVersion.event_id == event_id)) or 0
    )


def changed_topics(session: Session, event_id: int, after: int) -> dict[Topic, int]:
    """Each topic changed after version `after`, with the version of its latest change."""
    rows = session.execute(
        select(LiveChange.topic, LiveChange.place, func.max(LiveChange.version))
        .where(LiveChange.event_id == event_id, LiveChange.version > after)
        .group_by(LiveChange.topic, LiveChange.place)
    )
    return {(topic, place): int(version) for topic, place, version in rows}


def names_of(session: Session, event_id: int, external_ids: Iterable[str]) -> dict[str, str]:
    """external id -> name for the given participants only (not the whole event)."""
    ids = sorted(set(external_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(Participant.external_id, Participant.name).where(
            Participant.event_id == event_id, Participant.external_id.in_(ids)
        )
    )
    return {external_id: name for external_id, name in rows}


_PARTICIPANT_VERSION = (
    select(Participant.event_id, Participant.access_token_hash, LiveVersion.version)
    .outerjoin(LiveVersion, LiveVersion.event_id == Participant.event_id)
    .where(Participant.id == bindparam("participant_id"))
)


def participant_version(connection: Connection, participant_id: int) -> tuple[int, str, int] | None:
    """(event id, access token hash, live version) of a participant in one primary-key
    query (the fallback poll's whole cost), or None when the participant is gone."""
    row = connection.execute(_PARTICIPANT_VERSION, {"participant_id": participant_id}).first()
    if row is None:
        return None
    return row[0], row[1], int(row[2] or 0)


async def listen(connection: AsyncConnection[Any]) -> None:
    """`LISTEN` to the live channel (`app.core.livelog.CHANNEL`) on `connection`, the
    listener's own async psycopg connection (autocommit)."""
    await connection.execute(f"LISTEN {CHANNEL}")
