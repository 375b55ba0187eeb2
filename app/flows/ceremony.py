"""The ceremony's steps that move the event's status (auctions → events).

Opening the first auction moves the event to `ceremony`; the close that decides the
last auction moves it to `finished`; undoing that close moves it back to `ceremony`.
The auction rules themselves stay in `app.auctions.service`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.auctions import service as auction_service
from app.events import rules as event_rules
from app.events import service as event_service
from app.events.models import Event
from app.flows import log_chain

CEREMONY, FINISHED = "ceremony", "finished"


def open_auction(
    session: Session, event: Event, place: int, caller: auction_service.Caller
) -> dict[str, Any]:
    """`auction_service.open_auction`, then the event moves on to `ceremony` (when it was
    earlier). Raises what opening raises (409 `course_still_open` naming the closing time
    in event time, the ceremony-order problems); nothing moves then."""
    view = auction_service.open_auction(session, event, place, caller)
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
) -> dict[str, Any]:
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
) -> dict[str, Any]:
    """`auction_service.undo_close`; a `finished` event goes back to `ceremony` (its last
    auction is open again) and its fixed head is cleared (`log_chain.unfix_head`)."""
    view = auction_service.undo_close(session, event, place, caller)
    if event.status == FINISHED and not auction_service.ceremony_over(session, event):
        event_service.record_status(
            session, event, CEREMONY, actor=caller.actor, cause="auction.undo_close"
        )
        log_chain.unfix_head(session, event)
    return view
