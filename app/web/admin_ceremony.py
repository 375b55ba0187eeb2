"""The ceremony page's organiser steps (issue 16): only the next auction may open (and
only after the close), the one close that can be undone, and the bid on behalf of a
participant (who may bid now, and that participant's usable combinations, both from
the auctions service's rules).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from sqlalchemy.orm import Session

from app.auctions import repository as auction_repo
from app.auctions import service as auction_service
from app.core.db import utcnow
from app.events import repository as events_repo
from app.events import service as events_service
from app.events.models import Event
from app.feed import service as feed_service


def _undoable(views: list[dict[str, Any]]) -> int | None:
    """The place whose last close may be undone (`auction_service.undo_close`): an open
    tie-break round without bids, else the last closed auction while the next is pending."""
    for view in views:
        if view["status"] == "open":
            return view["place"] if (view["round"] or 1) > 1 and not view["bid_count"] else None
    closed = [i for i, view in enumerate(views) if view["status"] == "closed"]
    return views[closed[-1]]["place"] if closed else None


def _bidders(session: Session, event: Event, view: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(external id, name) of those who may bid in the open round: not a winner
    (RULES.md I-8); in a tie-break round, the tied bidders only (I-9)."""
    if view is None:
        return []
    winners = set(
        auction_repo.external_ids_of(session, auction_repo.winner_ids(session, event.id)).values()
    )
    current = next((r for r in view.get("rounds", []) if r["number"] == view["round"]), None)
    eligible = current.get("eligible") if current else None
    return [
        (p.external_id, p.name)
        for p in events_repo.participants(session, event.id)
        if p.external_id not in winners and (eligible is None or p.external_id in eligible)
    ]


def ceremony_context(
    session: Session, event: Event, views: list[dict[str, Any]], chosen: str | None
) -> dict[str, Any]:
    """What the ceremony page adds to the auctions' views: `course_open` with the closing
    time in event time, `next_place` (the one auction that may open), `undo_place`, the
    open auction's `bidders`, the `chosen` bidder and their usable combinations."""
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
        state = feed_service.participant_state(session, participant, as_participant=False)
        usable = [c for c in state.combinations if c.id in ids]
    return {
        "course_open": utcnow() < event.closes_at,
        "closes_local": events_service.local_time(event, event.closes_at),
        "next_place": next_place,
        "undo_place": _undoable(views),
        "open_place": open_view["place"] if open_view else None,
        "bidders": bidders,
        "chosen": chosen if chosen_name else None,
        "chosen_name": chosen_name,
        "usable": usable,
    }


def ceremony_url(event: Event, participant: str | None = None) -> str:
    url = f"/admin/events/{event.id}/ceremony"
    return f"{url}?participant={quote(participant)}" if participant else url
