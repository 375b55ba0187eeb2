"""The ceremony's steps that reach beyond the auctions (auctions → events, feed).

Opening the first auction freezes the feed (`event.feed_frozen_at`) and moves the event
to `ceremony`; the close that decides the last auction moves it to `finished`; undoing
that close moves it back to `ceremony`. The auction rules themselves stay in
`app.auctions.service`, which writes neither the event's status nor the feed's state.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.auctions import service as auction_service
from app.auctions.shapes import AuctionView, CloseResult
from app.core.db import utcnow
from app.events import rules as event_rules
from app.events import service as event_service
from app.events.models import Event
from app.flows import log_chain

CEREMONY, FINISHED = "ceremony", "finished"


def open_auction(
    session: Session, event: Event, place: int, caller: auction_service.Caller
) -> AuctionView:
    """`auction_service.open_auction`; the ceremony begins: the feed is frozen (its
    results rest on the combinations) and the event moves on to `ceremony` (when it was
    earlier). Raises what opening raises (409 `course_still_open` naming the closing time
    in event time, the ceremony-order problems); nothing moves then."""
    now = utcnow()
    view = auction_service.open_auction(session, event, place, caller, now=now)
    freeze_feed(event, now)
    if event_rules.is_forward(event.status, CEREMONY):
        event_service.record_status(
            session, event, CEREMONY, actor=caller.actor, cause="auction.open"
        )
    return view


def close_auction(
    session: Session,
    event: Event,
    place: int,
    caller: auction_service.Caller,
    *,
    lots_seed: int | None = None,
) -> CloseResult:
    """`auction_service.close_auction`; when every auction is then closed the event moves
    on to `finished`, and the event head over the take and bid logs is fixed on the event
    row (`log_chain.fix_head`)."""
    result = auction_service.close_auction(session, event, place, caller, lots_seed=lots_seed)
    if auction_service.ceremony_over(session, event) and event.status != FINISHED:
        event_service.record_status(
            session, event, FINISHED, actor=caller.actor, cause="auction.close"
        )
        log_chain.fix_head(session, event)
    return result


def undo_close(
    session: Session, event: Event, place: int, caller: auction_service.Caller
) -> AuctionView:
    """`auction_service.undo_close`; a `finished` event goes back to `ceremony` (its last
    auction is open again) and its fixed head is cleared (`log_chain.unfix_head`)."""
    view = auction_service.undo_close(session, event, place, caller)
    if event.status == FINISHED and not auction_service.ceremony_over(session, event):
        event_service.record_status(
            session, event, CEREMONY, actor=caller.actor, cause="auction.undo_close"
        )
        log_chain.unfix_head(session, event)
    return view


def freeze_feed(event: Event, now: datetime) -> None:
    """Freeze the feed at `now` (UTC) unless it is frozen already: an UPDATE of the event
    row that opening an auction has locked FOR UPDATE, so a delivery waiting for that
    lock reads the frozen row (`app.feed.freeze.feed_frozen`)."""
    if event.feed_frozen_at is None:
        event.feed_frozen_at = now
