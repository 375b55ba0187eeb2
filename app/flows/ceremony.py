"""The ceremony's steps that reach beyond the auctions (auctions → events, feed).

Opening the first auction freezes the feed (`event.feed_frozen_at`) and moves the event
to `ceremony`. The event is `finished` once every auction is decided and every closed
round fully revealed (RULES.md I-21: a close decides, a reveal publishes; the status is
public, so it must not tell a decided auction from a tie before the reveal): the reveal
that completes the last auction moves it to `finished` and fixes the event head over
the take and bid logs on the event row; a correction that reopens an auction (a new
tie-break round) moves it back to `ceremony`, and one that changes the bid log of a
finished event fixes the head again. The auction rules themselves stay in
`app.auctions.service`, which writes neither the event's status nor the feed's state.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.auctions import service as auction_service
from app.auctions.shapes import AuctionView, CloseResult, CorrectionResult, RevealResult
from app.core.db import utcnow
from app.core.principal import Principal
from app.events import rules as event_rules
from app.events import service as event_service
from app.events.models import Event
from app.events.rules import EventStatus
from app.flows import log_chain

CEREMONY, FINISHED = EventStatus.CEREMONY, EventStatus.FINISHED


def open_auction(session: Session, event: Event, place: int, caller: Principal) -> AuctionView:
    """`auction_service.open_auction`; the ceremony begins: the feed is frozen (its
    results rest on the combinations) and the event moves on to `ceremony` (when it was
    earlier). Raises what opening raises (409 `course_still_open` naming the closing time
    in event time, the ceremony-order problems, `reveal_pending`); nothing moves then."""
    now = utcnow()
    view = auction_service.open_auction(session, event, place, caller, now=now)
    freeze_feed(event, now)
    if event_rules.is_forward(event.status, CEREMONY):
        event_service.record_status(
            session, event, CEREMONY, actor=caller.actor, cause="auction.open"
        )
    return view


def close_auction(
    session: Session, event: Event, place: int, caller: Principal, *, lots_seed: int | None = None
) -> CloseResult:
    """`auction_service.close_auction` (the event finishes only at the end of the reveal)."""
    result = auction_service.close_auction(session, event, place, caller, lots_seed=lots_seed)
    settle_status(session, event, caller, cause="auction.close")
    return result


def reveal(
    session: Session, event: Event, place: int, caller: Principal, *, everything: bool = False
) -> RevealResult:
    """`auction_service.reveal`; the step that completes the last auction's reveal moves
    the event to `finished` and fixes its head (`settle_status`)."""
    result = auction_service.reveal(session, event, place, caller, everything=everything)
    settle_status(session, event, caller, cause="auction.reveal")
    return result


def undo_close(session: Session, event: Event, place: int, caller: Principal) -> AuctionView:
    """`auction_service.undo_close` (possible only before any reveal, so never after the
    finish; `settle_status` keeps the status right all the same)."""
    view = auction_service.undo_close(session, event, place, caller)
    settle_status(session, event, caller, cause="auction.undo_close")
    return view


def correct_round(
    session: Session,
    event: Event,
    place: int,
    number: int,
    caller: Principal,
    *,
    reason: str,
    void_bids: list[int],
    lots_seed: int | None = None,
) -> CorrectionResult:
    """`auction_service.correct_round`; the event's status and fixed head follow
    (`settle_status`): the voided bids' withdrawal rows change the bid log's head."""
    result = auction_service.correct_round(
        session,
        event,
        place,
        number,
        caller,
        reason=reason,
        void_bids=void_bids,
        lots_seed=lots_seed,
    )
    settle_status(session, event, caller, cause=auction_service.CORRECTION_ACTION, refix=True)
    return result


def settle_status(
    session: Session, event: Event, caller: Principal, *, cause: str, refix: bool = False
) -> None:
    """`finished` (with the head fixed, `log_chain.fix_head`) when every auction is decided
    and revealed (`auction_service.ceremony_finished`); back to `ceremony` (head cleared)
    when a `finished` event is no longer so. `refix`: fix the head again when the event
    stays finished (the bid log changed)."""
    done = auction_service.ceremony_finished(session, event)
    if done and event.status != FINISHED:
        event_service.record_status(session, event, FINISHED, actor=caller.actor, cause=cause)
        log_chain.fix_head(session, event)
    elif done and refix:
        log_chain.fix_head(session, event)
    elif not done and event.status == FINISHED:
        event_service.record_status(session, event, CEREMONY, actor=caller.actor, cause=cause)
        log_chain.unfix_head(session, event)


def freeze_feed(event: Event, now: datetime) -> None:
    """Freeze the feed at `now` (UTC) unless it is frozen already: an UPDATE of the event
    row that opening an auction has locked FOR UPDATE, so a delivery waiting for that
    lock reads the frozen row (`app.feed.freeze.feed_frozen`)."""
    if event.feed_frozen_at is None:
        event.feed_frozen_at = now
