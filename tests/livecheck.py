"""Test-only oracle: every transaction that changes what the live pages show names it.

The write paths call `app.core.livelog.changed` themselves (no listener bumps versions in
the app). This checker, installed on SQLAlchemy's `Session` class for the test run only
(`tests/conftest.py`), watches the flushed objects the way the live pages see them (an
auction, its rounds, bids and withdrawals; the event's status and course window) and
fails the commit of a transaction that changed one of those topics (or moved a stage)
without noting it: a write path that forgot its note fails every test that takes it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core import livelog
from app.events.models import Event

EVENT_FIELDS = ("status", "opens_at", "closes_at")
AUCTION_STAGE = ("status", "current_round")  # a bid moves the chain columns only
ROUND_STAGE = ("status", "revealed", "revealed_at")
_SEEN = "livecheck_seen"


def _changed(obj: Any, names: tuple[str, ...]) -> bool:
    state = inspect(obj)
    return any(state.attrs[name].history.has_changes() for name in names)


def _stage_moved(session: Session, obj: Any) -> bool:
    if not isinstance(obj, Auction | AuctionRound):
        return False
    if obj in session.new:
        return True
    return _changed(obj, AUCTION_STAGE if isinstance(obj, Auction) else ROUND_STAGE)


def _seen(session: Session) -> dict[str, set[Any]]:
    return session.info.setdefault(
        _SEEN, {"topics": set(), "auctions": set(), "bids": set(), "stage": set()}
    )


def _watch(session: Session, _context: Any, _instances: Any) -> None:
    """before_flush: what the flushed objects change for the live pages."""
    for obj in (*session.new, *session.dirty, *session.deleted):
        if isinstance(obj, Auction) and obj.event_id is not None and obj.place is not None:
            _seen(session)["topics"].add((obj.event_id, "auction", obj.place))
        elif isinstance(obj, AuctionRound | Bid) and obj.auction_id is not None:
            _seen(session)["auctions"].add(obj.auction_id)
        elif isinstance(obj, BidWithdrawal):
            _seen(session)["bids"].add(obj.bid_id)
        elif isinstance(obj, Event) and obj in session.dirty and _changed(obj, EVENT_FIELDS):
            _seen(session)["topics"].add((obj.id, "event", 0))
            _seen(session)["stage"].add(True)
        if _stage_moved(session, obj):
            _seen(session)["stage"].add(True)


def _topics(session: Session, seen: dict[str, set[Any]]) -> set[tuple[int, str, int]]:
    topics = set(seen["topics"])
    if seen["auctions"]:
        rows = session.execute(
            select(Auction.event_id, Auction.place).where(Auction.id.in_(seen["auctions"]))
        )
        topics.update((e, "auction", p) for e, p in rows)
    if seen["bids"]:
        rows = session.execute(
            select(Auction.event_id, Auction.place)
            .join(Bid, Bid.auction_id == Auction.id)
            .where(Bid.id.in_(seen["bids"]))
        )
        topics.update((e, "auction", p) for e, p in rows)
    return topics


def _check(session: Session) -> None:
    """before_commit: every seen topic (and a moved stage) was noted by the write path."""
    if session.new or session.dirty or session.deleted:
        session.flush()
    seen = session.info.pop(_SEEN, None)
    if not seen:
        return
    noted, stage = livelog.noted(session)
    missing = _topics(session, seen) - noted
    assert not missing, f"live change not noted (app.core.livelog.changed): {sorted(missing)}"
    assert stage or not seen["stage"], "a stage moved but livelog.changed(stage=True) was not"


def _forget(session: Session, *_args: Any) -> None:
    session.info.pop(_SEEN, None)


def install() -> None:
    """Watch every Session of the test run (idempotent)."""
    if sa_event.contains(Session, "before_flush", _watch):
        return
    sa_event.listen(Session, "before_flush", _watch)
    sa_event.listen(Session, "before_commit", _check)
    sa_event.listen(Session, "after_rollback", _forget)
