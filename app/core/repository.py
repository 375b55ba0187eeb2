"""The core's SQL: the live versions, the sign-in guard's rows, the organiser members'
look-ups and the heads of the event-level chains (bulk loads: `bulk_repository`).

Each function is the statement (or two) its caller ran before; the caller keeps the
logic: `app.core.livelog` (when to bump), `app.core.guard` (throttle arithmetic,
session ids), `app.core.members` (tokens), `app.core.ledger` (the chain's links).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.core.models import (
    AuthFailure,
    EventChain,
    LiveChange,
    LiveVersion,
    OrganiserMember,
    OrganiserSession,
)


def _insert_of(session: Session) -> Callable[..., Any]:
    """PostgreSQL's or SQLite's `insert` (both have ON CONFLICT), by the session's bind."""
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


# -- live versions (app.core.livelog) -----------------------------------------------------------


def bump_live_version(session: Session, event_id: int) -> int:
    """Increase the event's live version by one (an upsert that row-locks it until
    commit); the new version."""
    statement = (
        _insert_of(session)(LiveVersion)
        .values(event_id=event_id, version=1)
        .on_conflict_do_update(
            index_elements=[LiveVersion.event_id],
            set_={"version": LiveVersion.version + 1},
        )
        .returning(LiveVersion.version)
    )
    return int(session.execute(statement).scalar_one())


def add_live_changes(session: Session, rows: Sequence[dict]) -> None:
    """Insert `live_change` rows (dicts of its columns): one executemany INSERT."""
    session.execute(insert(LiveChange), list(rows))


def notify(session: Session, channel: str, payload: str) -> None:
    """PostgreSQL: `pg_notify(channel, payload)`, delivered when the transaction commits."""
    session.execute(select(func.pg_notify(channel, payload)))


# -- the sign-in guard (app.core.guard) ---------------------------------------------------------


def failures_since(session: Session, clients: Collection[str], since: datetime) -> dict[str, int]:
    """`{client: failures after UTC since}` of those of `clients` with any (one query)."""
    rows = session.execute(
        select(AuthFailure.client, func.count())
        .where(AuthFailure.client.in_(list(clients)), AuthFailure.failed_at > since)
        .group_by(AuthFailure.client)
    )
    return {client: count for client, count in rows}


def failure_time(session: Session, client: str, since: datetime, skip: int) -> datetime | None:
    """When `client` failed for the (`skip` + 1)-th time after UTC `since` (oldest first);
    None when it did not fail that often."""
    return session.scalar(
        select(AuthFailure.failed_at)
        .where(AuthFailure.client == client, AuthFailure.failed_at > since)
        .order_by(AuthFailure.failed_at)
        .offset(skip)
        .limit(1)
    )


def add_failure(
    session: Session, client: str, path: str, now: datetime, purge_to: datetime
) -> None:
    """Delete the failures (of any client) at or before UTC `purge_to`, then add one of
    `client` on `path` at UTC `now`."""
    session.execute(delete(AuthFailure).where(AuthFailure.failed_at <= purge_to))
    session.add(AuthFailure(client=client, path=path, failed_at=now))


def purge_sessions(session: Session, now: datetime) -> None:
    """Delete the organiser sessions expired at UTC `now`."""
    session.execute(delete(OrganiserSession).where(OrganiserSession.expires_at <= now))


def delete_session(session: Session, sid_hash: str) -> None:
    """Delete the organiser session whose id hashes to `sid_hash` (none: nothing)."""
    session.execute(delete(OrganiserSession).where(OrganiserSession.sid_hash == sid_hash))


def delete_member_sessions(session: Session, member_id: int) -> None:
    """Delete every organiser session of member `member_id`."""
    session.execute(delete(OrganiserSession).where(OrganiserSession.member_id == member_id))


def live_session(session: Session, sid_hash: str, now: datetime) -> tuple[int, int | None] | None:
    """(row id, member id or None for the owner) of the organiser session whose id hashes
    to `sid_hash` and has not expired at UTC `now`; None without one."""
    row = session.execute(
        select(OrganiserSession.id, OrganiserSession.member_id).where(
            OrganiserSession.sid_hash == sid_hash, OrganiserSession.expires_at > now
        )
    ).first()
    return None if row is None else (row.id, row.member_id)


# -- organiser members (app.core.members, app.flows.team) -----------------------------------------


def live_member_by_token_hash(session: Session, token_hash: str) -> OrganiserMember | None:
    """The member (not revoked) whose token hashes to `token_hash`, or None."""
    return session.scalar(
        select(OrganiserMember).where(
            OrganiserMember.token_hash == token_hash, OrganiserMember.revoked_at.is_(None)
        )
    )


def members_of(session: Session, event_id: int) -> Sequence[OrganiserMember]:
    """The event's members, the live ones first, each group in the order they were added."""
    return session.scalars(
        select(OrganiserMember)
        .where(OrganiserMember.event_id == event_id)
        .order_by(OrganiserMember.revoked_at.is_not(None), OrganiserMember.id)
    ).all()


# -- the heads of the event-level chains (app.core.ledger) -------------------------------------


def lock_chain_head(session: Session, event_id: int, name: str) -> tuple[int, str | None]:
    """Lock the head row of the event's chain `name` (inserted first when missing, ON
    CONFLICT DO NOTHING; then SELECT … FOR UPDATE); its (seq, head)."""
    session.execute(
        _insert_of(session)(EventChain.__table__)
        .values(event_id=event_id, name=name, log_seq=0, log_head=None)
        .on_conflict_do_nothing()
    )
    seq, head = session.execute(
        select(EventChain.log_seq, EventChain.log_head)
        .where(EventChain.event_id == event_id, EventChain.name == name)
        .with_for_update()
    ).one()
    return seq, head


def set_chain_head(session: Session, event_id: int, name: str, seq: int, head: str | None) -> None:
    """Store the head of the event's chain `name`: an UPDATE, or (no row yet) an insert."""
    found = session.execute(
        update(EventChain)
        .where(EventChain.event_id == event_id, EventChain.name == name)
        .values(log_seq=seq, log_head=head)
    )
    if found.rowcount == 0:  # type: ignore[attr-defined]
        session.add(EventChain(event_id=event_id, name=name, log_seq=seq, log_head=head))
        session.flush()


def chain_heads(session: Session, event_id: int) -> dict[str, tuple[int, str | None]]:
    """`{name: (seq, head)}` of the event's stored event-level chain heads."""
    rows = session.execute(
        select(EventChain.name, EventChain.log_seq, EventChain.log_head).where(
            EventChain.event_id == event_id
        )
    ).all()
    return {name: (seq, head) for name, seq, head in rows}
