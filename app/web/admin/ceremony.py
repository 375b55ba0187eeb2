"""The ceremony page's organiser steps (issue 16): each auction's buttons are the steps the
auctions service allows now (`can_open_auction`, `can_close_auction`, `can_undo_close`,
`can_reveal`: only the next auction may open, and only after the close and the reveal
of the previous one; the one close that can be undone, while nothing of it is revealed),
the bid on behalf of a participant (who may bid now, `rules.may_bid`, and that
participant's usable combinations, `usable_combination_ids`), the confirmations of a
close and an undo (what will happen), and the projector's reveal (RULES.md I-21).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.auctions import rules as auction_rules
from app.auctions import service as auction_service
from app.auctions import views as auction_views
from app.auctions.rules import AuctionStatus, RoundStatus
from app.auctions.shapes import AuctionView, RoundView, current_eligible
from app.core.db import utcnow
from app.core.principal import ORGANISER, PUBLIC
from app.events import rules as event_rules
from app.events import service as events_service
from app.events.models import Event
from app.feed import views as feed_views
from app.web.i18n import translate


def allowed_steps(session: Session, event: Event, views: list[AuctionView]) -> dict[int, dict]:
    """place -> {"open", "close", "undo", "reveal": bool}: the organiser's buttons the
    service's `can_x` functions allow now (the page shows no other)."""
    return {
        view["place"]: {
            "open": auction_service.can_open_auction(session, event, view["place"]),
            "close": auction_service.can_close_auction(session, event, view["place"]),
            "undo": auction_service.can_undo_close(session, event, view["place"]),
            "reveal": auction_service.can_reveal(session, event, view["place"]),
        }
        for view in views
    }


def _bidders(session: Session, event: Event, view: AuctionView | None) -> list[tuple[str, str]]:
    """(external id, name) of those who may bid in the open round (`rules.may_bid`: not
    a winner, RULES.md I-8; in a tie-break round, the tied bidders only, I-9)."""
    if view is None:
        return []
    winners = auction_views.winner_external_ids(session, event.id)
    eligible = current_eligible(view)
    return [
        (p.external_id, p.name)
        for p in events_service.participants(session, event.id)
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
    allowed = allowed_steps(session, event, views)
    # the round that takes bids now (a tie-break round waits for the reveal of its tie)
    open_view = next(
        (v for v in views if v["status"] == AuctionStatus.OPEN and allowed[v["place"]]["close"]),
        None,
    )
    next_place = None
    if not any(v["status"] == AuctionStatus.OPEN for v in views):
        next_place = next((v["place"] for v in views if v["status"] == AuctionStatus.PENDING), None)
    bidders = _bidders(session, event, open_view)
    chosen_name, usable = None, []
    if chosen and chosen in dict(bidders):
        participant = events_service.get_participant(session, event, chosen)
        chosen_name = participant.name
        ids = auction_service.usable_combination_ids(session, event, participant.id)
        state = feed_views.participant_state(session, participant, as_participant=False)
        usable = feed_views.usable_combinations(state, ids)
    return {
        "course_open": event_rules.course_phase(event.opens_at, event.closes_at, utcnow())
        != event_rules.COURSE_CLOSED,
        "closes_local": events_service.zoned_time(event, event.closes_at),
        "next_place": next_place,
        "allowed": allowed,
        "open_place": open_view["place"] if open_view else None,
        "bidders": bidders,
        "chosen": chosen if chosen_name else None,
        "chosen_name": chosen_name,
        "usable": usable,
    }


def _being_revealed(view: AuctionView) -> RoundView | None:
    """The organiser view's closed round not fully revealed, if any."""
    return next(
        (
            r
            for r in view.get("rounds", [])
            if r["status"] == RoundStatus.CLOSED and r.get("revealed", 0) < r.get("steps", 0)
        ),
        None,
    )


def reveal_progress(views: list[AuctionView]) -> dict[int, dict[str, int] | None]:
    """place -> {"shown", "steps"} of the round being revealed (None when none is)."""
    progress: dict[int, dict[str, int] | None] = {}
    for view in views:
        rnd = _being_revealed(view)
        progress[view["place"]] = (
            {"shown": rnd.get("revealed", 0), "steps": rnd.get("steps", 0)} if rnd else None
        )
    return progress


def confirmation(
    session: Session, event: Event, place: int, action: str, lang: str
) -> dict[str, Any]:
    """What the confirmation page of a close or an undo of auction `place` says will
    happen (title, lines, button), from the organiser's view of the auction now."""
    view = auction_views.auction_view(session, event, place, ORGANISER)
    number = view["round"] or 1
    if action == "close":
        lines = [
            translate(lang, "ceremony.close_confirm.bids", number=number, count=view["bid_count"]),
            translate(lang, "ceremony.close_confirm.stop"),
            translate(lang, "ceremony.close_confirm.reveal"),
            translate(lang, "ceremony.close_confirm.undo"),
        ]
        return {
            "title": translate(lang, "ceremony.close_confirm.title", place=place),
            "lines": lines,
            "button": translate(lang, "ceremony.close_confirm.button"),
        }
    tie_break = view["status"] == AuctionStatus.OPEN and number > 1
    reopened = number - 1 if tie_break else number
    lines = []
    if tie_break:
        lines.append(translate(lang, "ceremony.undo_confirm.tie_break", number=number))
    lines += [
        translate(lang, "ceremony.undo_confirm.reopen", number=reopened),
        translate(lang, "ceremony.undo_confirm.kept"),
    ]
    return {
        "title": translate(lang, "ceremony.undo_confirm.title", place=place),
        "lines": lines,
        "button": translate(lang, "ceremony.undo_confirm.button"),
    }


def projector_context(session: Session, event: Event, place: int) -> dict[str, Any]:
    """What the projector shows of auction `place`: exactly what the public sees
    (`auction_views.auction_view` as anybody), laid out for the hall. `history`: the
    earlier closed rounds (fully revealed: a tied round 1 stays visible during its
    tie-break, RULES.md I-9); `current`: the latest closed round shown, its revealed
    bids weakest first (`shown`), `sealed` (how many are still hidden) and `complete`
    (the outcome is revealed); `latest` the id of the element revealed last (the page
    scrolls it into view); `can_reveal` the organiser's reveal buttons."""
    view = auction_views.auction_view(session, event, place, PUBLIC)
    closed = [r for r in view.get("rounds", []) if r["status"] == RoundStatus.CLOSED]
    history = []
    for rnd in closed[:-1]:
        bids = sorted(
            rnd.get("bids") or [], key=lambda b: (-(b.get("rank") or 0), b["participant"])
        )
        history.append({"number": rnd["number"], "tied": rnd.get("tied") or [], "bids": bids})
    current = None
    latest = None
    if closed:
        rnd = closed[-1]
        complete = rnd.get("revealed", 0) >= rnd.get("steps", 0)
        bids = list(rnd.get("bids") or [])
        if complete:
            bids.sort(key=lambda b: (-(b.get("rank") or 0), b["participant"]))
        current = {
            "number": rnd["number"],
            "tied": rnd.get("tied") or [],
            "bids": bids,
            "sealed": rnd["bid_count"] - len(bids),
            "complete": complete,
        }
        if complete:
            latest = "outcome"
        elif bids:
            latest = f"bid-{len(bids)}"
    results = auction_views.results(session, event)
    podium = [p for p in results["places"] if p["awarded"]]
    return {
        "view": view,
        "history": history,
        "current": current,
        "latest": latest,
        "podium": sorted(podium, key=lambda p: p["place"]),
        "can_reveal": auction_service.can_reveal(session, event, place),
    }
