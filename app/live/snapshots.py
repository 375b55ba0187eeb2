"""What the live channel says, read from the database (sync; run in a worker thread).

Every message carries only what the public pages show (RULES.md I-7, I-21: a sealed
bid's combination never leaves the server before the organiser reveals it): the auction
as the observer `auction_views.auction_view` shows it to the public, the names of the
participants that view names, and the event's status and course window. The organiser's `feed`
counters are read only for organiser streams.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy.orm import Session

from app.auctions import rules as auction_rules
from app.auctions import views as auction_views
from app.core.principal import PUBLIC
from app.events.models import Event

# the live channel's reads (their SQL is in app.live.repository), offered with the messages
from app.live.repository import Topic as Topic
from app.live.repository import changed_topics as changed_topics
from app.live.repository import current_version as current_version
from app.live.repository import names_of as names_of
from app.live.repository import participant_version as participant_version


def named_in(view: dict[str, Any]) -> set[str]:
    """The external ids an auction view names (revealed bidders, winner, tie-break list)."""
    named = {b["participant"] for b in view.get("bids", [])}
    for rnd in view.get("rounds", []):
        named.update(rnd.get("eligible") or [])
        named.update(b["participant"] for b in rnd.get("bids") or [])
    if view.get("winner"):
        named.add(view["winner"])
    return named


def auction_message(session: Session, event: Event, place: int) -> dict[str, Any]:
    """`auction`: place, status, round, bid count, `revealing`, `shape` (the stage the live
    pages compare, `auction_views.stage_of`) and the public view (the decision as far as
    revealed) without its flattened `bids` (the same bids are in `rounds`)."""
    view = auction_views.auction_view(session, event, place, PUBLIC)
    stage = auction_views.stage_of(view)
    # `bids` repeats every revealed bid of `rounds` (a close with 600 bids: half the bytes
    # each phone receives); the stream sends each bid once, in its round.
    view = {key: value for key, value in view.items() if key != "bids"}
    return {
        "place": place,
        "status": view["status"],
        "round": view["round"],
        "bid_count": view["bid_count"],
        "winner": view.get("winner"),
        "revealing": bool(view.get("revealing")),
        "shape": stage,
        "view": view,
        "names": names_of(session, event.id, named_in(view)),
    }


def event_message(event: Event) -> dict[str, Any]:
    """`event`: status and course window (UTC ISO 8601)."""
    return {
        "status": event.status,
        "opens_at": event.opens_at.isoformat(),
        "closes_at": event.closes_at.isoformat(),
    }


def read_changes(
    session: Session, event_id: int, after: int | None
) -> tuple[int, list[tuple[int, str, dict[str, Any]]]]:
    """The event's version now and `(version, kind, data)` of each topic changed after
    `after` (every topic when `after` is None), oldest change first.

    Raises LookupError when the event does not exist."""
    event = session.get(Event, event_id)
    if event is None:
        raise LookupError(event_id)
    version = current_version(session, event_id)
    changed = changed_topics(session, event_id, after or 0)
    if after is None:
        for place in auction_rules.ceremony_order(event.award_places):
            changed.setdefault(("auction", place), 0)
        changed.setdefault(("event", 0), 0)
    out = []
    for (topic, place), at in sorted(changed.items(), key=lambda item: (item[1], item[0])):
        if topic == "auction":
            if place not in auction_rules.ceremony_order(event.award_places):
                continue
            out.append((at, "auction", auction_message(session, event, place)))
        else:
            out.append((at, "event", event_message(event)))
    return version, out


def feed_counters(session: Session, event_id: int) -> dict[str, Any]:
    """The dashboard's counters (organiser only), as the dashboard page shows them."""
    from app.core.db import utcnow
    from app.flows.dashboard import dashboard_numbers  # the one place these are computed

    event = session.get(Event, event_id)
    assert event is not None
    return dashboard_numbers(session, event, utcnow())


def shape(session: Session, event: Event) -> str:
    """`"place:stage;…"` of the event's auctions in ceremony order, as the live pages compare
    it with `auction` messages' `shape`: the public stage (`auction_views.public_stages`:
    status and round, and the reveal steps while a round is being revealed; `round` None
    before the auction exists). Two small queries on the auction and round rows."""
    stages = auction_views.public_stages(session, event)
    return ";".join(
        f"{place}:{stages[place]}" for place in auction_rules.ceremony_order(event.award_places)
    )


def names_in_views(
    session: Session, event_id: int, views: Iterable[dict[str, Any]]
) -> dict[str, str]:
    """external id -> name of the participants the given auction views name."""
    named: set[str] = set()
    for view in views:
        named |= named_in(view)
    return names_of(session, event_id, named)
