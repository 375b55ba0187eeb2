"""The ceremony page's organiser steps (issue 16): each auction's buttons are the steps the
auctions service allows now (`can_open_auction`, `can_close_auction`, `can_undo_close`:
only the next auction may open, and only after the close; the one close that can be
undone), and the bid on behalf of a participant (who may bid now, `rules.may_bid`, and
that participant's usable combinations, `usable_combination_ids`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.auctions import repository as auction_repo
from app.auctions import rules as auction_rules
from app.auctions import service as auction_service
from app.auctions.shapes import AuctionView, current_eligible
from app.core.db import utcnow
from app.events import repository as events_repo
from app.events import service as events_service
from app.events.models import Event
from app.feed import views as feed_views


def allowed_steps(session: Session, event: Event, views: list[AuctionView]) -> dict[int, dict]:
    """place -> {"open", "close", "undo": bool}: the organiser's buttons the service's
    `can_x` functions allow now (the page shows no other)."""
    return {
        view["place"]: {
            "open": auction_service.can_open_auction(session, event, view["place"]),
            "close": auction_service.can_close_auction(session, event, view["place"]),
            "undo": auction_service.can_undo_close(session, event, view["place"]),
        }
        for view in views
    }


def _bidders(session: Session, event: Event, view: AuctionView | None) -> list[tuple[str, str]]:
    """(external id, name) of those who may bid in the open round (`rules.may_bid`: not
    a winner, RULES.md I-8; in a tie-break round, the tied bidders only, I-9)."""
    if view is None:
        return []
    winners = set(
        auction_repo.external_ids_of(session, auction_repo.winner_ids(session, event.id)).values()
    )
    eligible = current_eligible(view)
    return [
        (p.external_id, p.name)
        for p in events_repo.participants(session, event.id)
        if auction_rules.may_bid(
            auction_status=view["status"],
            bidder=p.external_id,
            winners=winners,
            round_eligible=eligible,
        )
    ]


def ceremony_context(
    session: Session, event: Event, views: list[AuctionView], chosen: str | None
) -> dict[str, Any]:
    """What the ceremony page adds to the auctions' views: `course_open` with the closing
    time in event time, `next_place` (the auction next in order), `allowed` (each place's
    open / close / undo buttons, `allowed_steps`), the open auction's `bidders`, the
    `chosen` bidder and their usable combinations."""
    open_view = next((v for v in views if v["status"] == "open"), None)
    next_place = None
    if open_view is None:
        next_place = next((v["place"] for v in views if v["status"] == "pending"), None)
    bidders = _bidders(session, event, open_view)
    chosen_name, usable = None, []
    if chosen and chosen in dict(bidders):
        participant = events_service.get_participant(session, event, chosen)
        chosen_name = participant.name
        ids = auction_service.usable_combination_ids(session, event, participant.id)
        state = feed_views.participant_state(session, participant, as_participant=False)
        usable = feed_views.usable_combinations(state, ids)
    return {
        "course_open": utcnow() < event.closes_at,
        "closes_local": events_service.local_time(event, event.closes_at),
        "next_place": next_place,
        "allowed": allowed_steps(session, event, views),
        "open_place": open_view["place"] if open_view else None,
        "bidders": bidders,
        "chosen": chosen if chosen_name else None,
        "chosen_name": chosen_name,
        "usable": usable,
    }
