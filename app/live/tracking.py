"""Bump the live version in the transaction that changes what the live pages show.

Installed once on SQLAlchemy's `Session` class (importing `app.live` does it), so every
code path that changes an auction, a round, a bid, a withdrawal or the event's status or
course window is covered without calling anything:

- `before_flush` notes the topics the flushed objects touch (`session.info`);
- `before_commit` bumps `live_version` of each such event (an upsert that row-locks it,
  taken last, after the locks of the change itself) and inserts one `live_change` row per
  topic; on PostgreSQL it also queues `pg_notify('rogaine_live', '<event>:<version>')`
  (with `:stage` when an auction's or round's stage moved, not only a bid count),
  which PostgreSQL delivers only if the transaction commits;
- `after_commit` wakes this process's streams (`app.live.hub.wake_local`); a rollback
  forgets the noted topics.

Changes written with bulk Core statements bypass `before_flush`: none of the tracked
tables is written that way today.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy import func, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core.db import utcnow
from app.events.models import Event
from app.live.models import LiveChange, LiveVersion

CHANNEL = "rogaine_live"
STAGE_FLAG = ":stage"  # a notification's suffix: a stage moved (send it at once)
EVENT_FIELDS = ("status", "opens_at", "closes_at")
_PENDING = "live_pending"  # session.info: {"topics": set, "auctions": set, "bids": set}
_COMMITTED = "live_committed"  # session.info: [(event_id, version, a stage moved)]


def _pending(session: Session) -> dict[str, set[Any]]:
    return session.info.setdefault(
        _PENDING, {"topics": set(), "auctions": set(), "bids": set(), "stage": set()}
    )


AUCTION_STAGE = ("status", "current_round")  # a bid moves the chain columns only
ROUND_STAGE = ("status", "revealed", "revealed_at")


def _stage_moved(session: Session, obj: Any) -> bool:
    """True when `obj` changes a stage the phones show (an auction's status or round, a
    round's status or reveal steps), not only a bid count: such a change is sent at once
    (`app.live.hub`: no waiting for the next refresh interval)."""
    from sqlalchemy import inspect

    if not isinstance(obj, Auction | AuctionRound):
        return False
    if obj in session.new:
        return True
    names = AUCTION_STAGE if isinstance(obj, Auction) else ROUND_STAGE
    state = inspect(obj)
    return any(state.attrs[name].history.has_changes() for name in names)


def _event_changed(session: Session, event: Event) -> bool:
    from sqlalchemy import inspect

    state = inspect(event)
    return any(state.attrs[name].history.has_changes() for name in EVENT_FIELDS)


def _note(session: Session, _context: Any, _instances: Any) -> None:
    """before_flush: remember which live topics the pending objects change."""
    pending = None
    for obj in (*session.new, *session.dirty, *session.deleted):
        if isinstance(obj, Auction):
            if obj.event_id is not None and obj.place is not None:
                pending = pending or _pending(session)
                pending["topics"].add((obj.event_id, "auction", obj.place))
                if _stage_moved(session, obj):
                    pending["stage"].add(True)
        elif isinstance(obj, AuctionRound | Bid):
            if obj.auction_id is not None:
                pending = pending or _pending(session)
                pending["auctions"].add(obj.auction_id)
                if _stage_moved(session, obj):
                    pending["stage"].add(True)
        elif isinstance(obj, BidWithdrawal):
            pending = pending or _pending(session)
            pending["bids"].add(obj.bid_id)
        elif isinstance(obj, Event) and obj in session.dirty and _event_changed(session, obj):
            pending = pending or _pending(session)
            pending["topics"].add((obj.id, "event", 0))
            pending["stage"].add(True)


def bump(session: Session, event_id: int) -> int:
    """Increase the event's live version by one (row-locked until commit); the new version.

    Used by `before_commit`; a caller may also use it for a change it wants pushed."""
    values = {"event_id": event_id, "version": 1}
    dialect = session.get_bind().dialect.name
    factory = pg_insert if dialect == "postgresql" else sqlite_insert
    statement = (
        factory(LiveVersion)
        .values(**values)
        .on_conflict_do_update(
            index_elements=[LiveVersion.event_id],
            set_={"version": LiveVersion.version + 1},
        )
        .returning(LiveVersion.version)
    )
    return int(session.execute(statement).scalar_one())


def _write(session: Session) -> None:
    """before_commit: bump the version of each changed event and log its topics."""
    if session.new or session.dirty or session.deleted:
        session.flush()
    pending = session.info.pop(_PENDING, None)
    if not pending:
        return
    topics: set[tuple[int, str, int]] = set(pending["topics"])
    if pending["auctions"]:
        rows = session.execute(
            select(Auction.event_id, Auction.place).where(Auction.id.in_(pending["auctions"]))
        )
        topics.update((e, "auction", p) for e, p in rows)
    if pending["bids"]:
        rows = session.execute(
            select(Auction.event_id, Auction.place)
            .join(Bid, Bid.auction_id == Auction.id)
            .where(Bid.id.in_(pending["bids"]))
        )
        topics.update((e, "auction", p) for e, p in rows)
    committed = []
    now = utcnow()
    postgres = session.get_bind().dialect.name == "postgresql"
    stage = bool(pending["stage"])
    flag = STAGE_FLAG if stage else ""
    for event_id in sorted({t[0] for t in topics}):
        version = bump(session, event_id)
        session.execute(
            insert(LiveChange),
            [
                {"event_id": e, "version": version, "topic": t, "place": p, "changed_at": now}
                for e, t, p in sorted(topics)
                if e == event_id
            ],
        )
        if postgres:
            session.execute(select(func.pg_notify(CHANNEL, f"{event_id}:{version}{flag}")))
        committed.append((event_id, version, stage))
    session.info[_COMMITTED] = committed


def _after_commit(session: Session) -> None:
    committed = session.info.pop(_COMMITTED, None)
    if committed:
        from app.live.hub import wake_local

        for event_id, version, stage in committed:
            wake_local(event_id, version, stage)


def _forget(session: Session, *_args: Any) -> None:
    session.info.pop(_PENDING, None)
    session.info.pop(_COMMITTED, None)


def install() -> None:
    """Register the listeners on `Session` (idempotent)."""
    if sa_event.contains(Session, "before_flush", _note):
        return
    sa_event.listen(Session, "before_flush", _note)
    sa_event.listen(Session, "before_commit", _write)
    sa_event.listen(Session, "after_commit", _after_commit)
    sa_event.listen(Session, "after_rollback", _forget)
