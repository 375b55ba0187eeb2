"""The hall screen's data (issue 29 item 2): the event as the hall may watch it.

What it shows and nothing more (RULES.md I-7, I-21; no card, no code, no sealed bid):
the course window and the time to its close, participants out on the course and
finished, takes per 10 minutes, CPs by how often their card was taken (number and
hint), the combinations saved in total (no categories: they would tell bidders what
they are up against), the auctions' steps and the podium once revealed (through
`app.auctions.views`, the only reader of the sealed columns).

Cost (issue 24): a fixed number of aggregate queries whatever the event's size (the
participants' tallies for the counts, one range count for the chart, one grouped count
for the CPs (and the 54 CPs), two small queries for the auctions' stages), and one computation per
process and event every `CACHE_SECONDS` (`HallCache`) however many screens watch.

"Finished": a rogaine has a floating start and no finish punch (RULES.md §1.1), so a
participant who has taken at least once is *out on the course* until `QUIET` passes
without a take from them (field time), then *finished*; after the close everyone who
took is finished.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.auctions import rules as auction_rules
from app.auctions import views as auction_views
from app.core.db import utcnow
from app.core.principal import Principal
from app.events import rules as event_rules
from app.events.models import Event
from app.feed.rules import COUNTED
from app.flows import repository

BUCKET = timedelta(minutes=10)  # one bar of the takes chart
BUCKETS = 12  # bars shown: the last two hours of the course
QUIET = timedelta(minutes=60)  # no take for this long: finished (see the module's doc)
CACHE_SECONDS = 2.0  # one computation per process and event at most this often


def hall_access(principal: Principal, event: Event) -> bool:
    """May `principal` watch the hall screen of `event`? The organiser always; anybody
    when the owner made it public (`event.hall_public`). The one place this is decided
    (the page, its data and its live stream ask here; a role table may add kinds)."""
    return principal.is_organiser or bool(event.hall_public)


def bucket_edges(event: Event, now: datetime) -> list[datetime]:
    """The edges (UTC) of the chart's bars: 10-minute buckets aligned to the opening,
    the last `BUCKETS` up to the one holding `now` (or the close); empty before the
    opening. `len(edges) - 1` bars."""
    end = min(now, event.closes_at)
    if end <= event.opens_at:
        return []
    current = int((end - event.opens_at) / BUCKET)  # index of the bucket holding `end`
    if event.opens_at + current * BUCKET == event.closes_at:
        current -= 1  # the close itself starts no bucket
    first = max(0, current - BUCKETS + 1)
    return [event.opens_at + k * BUCKET for k in range(first, current + 2)]


def takes_per_bucket(session: Session, event_id: int, edges: list[datetime]) -> list[int]:
    """Takes recorded (field time, any outcome) in each `[edges[i], edges[i+1])`: one
    statement on the `(event_id, taken_at)` index."""
    if len(edges) < 2:
        return []
    return repository.takes_per_range(session, event_id, edges)


def participant_counts(session: Session, event: Event, now: datetime) -> dict[str, int]:
    """`participants` (registered), `on_course` and `finished` (see the module's doc),
    from the participants' tallies in one statement."""
    closed = now >= event.closes_at
    total, out, done = repository.participant_tallies(session, event.id, now - QUIET, closed)
    return {"participants": total, "on_course": 0 if closed else out, "finished": done}


def checkpoint_counts(session: Session, event_id: int) -> list[dict[str, Any]]:
    """Every CP of the event with how often its card was taken (counted card takes),
    the most taken first: `number`, `hint`, `taken`. Never the card or a code. One
    grouped count over the card outcomes (one pass: a join per CP would scan them once
    per CP on SQLite), then the event's CPs."""
    taken = repository.card_takes_per_checkpoint(session, event_id, COUNTED)
    rows = repository.checkpoint_hints(session, event_id)
    found = [{"number": n, "hint": hint or "", "taken": taken.get(i, 0)} for i, n, hint in rows]
    return sorted(found, key=lambda cp: (-cp["taken"], cp["number"]))


def combinations_saved(session: Session, event_id: int) -> int:
    """Combinations saved in the event, in total (no categories)."""
    return repository.combination_count(session, event_id)


def ceremony_steps(session: Session, event: Event) -> list[dict[str, Any]]:
    """Each auction in ceremony order as the public sees its stage: `place`, `status`
    (pending | open | closed), `round`, `revealing` and `revealed` (steps shown so far
    of the round being revealed). Two small queries, no bid read
    (`auction_views.public_stages`)."""
    steps = []
    for place, stage in auction_views.public_stages(session, event).items():
        parts = stage.split(":")
        steps.append(
            {
                "place": place,
                "status": parts[0],
                "round": None if parts[1] == "None" else int(parts[1]),
                "revealing": len(parts) > 2,
                "revealed": int(parts[2]) if len(parts) > 2 else None,
            }
        )
    return steps


def podium(session: Session, event: Event, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The places awarded and fully revealed (`auction_views.results`, the public
    results): `place`, `name`, `category`. Read only once an auction is closed."""
    if not any(s["status"] == auction_rules.AuctionStatus.CLOSED for s in steps):
        return []
    places = auction_views.results(session, event)["places"]
    return [
        {"place": p["place"], "name": p["name"], "category": p["category"]}
        for p in places
        if p["awarded"]
    ]


def hall_data(session: Session, event: Event, now: datetime) -> dict[str, Any]:
    """The hall screen at `now` (aware UTC): `event` (name, status, phase, `opens_at`,
    `closes_at` ISO UTC), the participant counts, `chart` (`start` of each bar ISO UTC,
    `takes` per bar, `minutes` per bar), `checkpoints`, `combinations`, `ceremony`
    (steps) and `podium`. `seconds_left` is set by `with_clock`."""
    edges = bucket_edges(event, now)
    steps = ceremony_steps(session, event)
    return {
        "event": {
            "id": event.id,
            "name": event.name,
            "status": event.status,
            "opens_at": event.opens_at.isoformat(),
            "closes_at": event.closes_at.isoformat(),
        },
        **participant_counts(session, event, now),
        "chart": {
            "minutes": int(BUCKET.total_seconds() // 60),
            "start": [edge.isoformat() for edge in edges[:-1]],
            "takes": takes_per_bucket(session, event.id, edges),
        },
        "checkpoints": checkpoint_counts(session, event.id),
        "combinations": combinations_saved(session, event.id),
        "ceremony": steps,
        "podium": podium(session, event, steps),
    }


def with_clock(data: dict[str, Any], event: Event, now: datetime) -> dict[str, Any]:
    """`data` with the course `phase` (before | open | closed) and `seconds_left` (to the
    opening before it, to the close while open, 0 after) at `now`."""
    phase = event_rules.course_phase(event.opens_at, event.closes_at, now)
    target = {event_rules.COURSE_BEFORE: event.opens_at, event_rules.COURSE_OPEN: event.closes_at}
    moment = target.get(phase)
    left = max(0, int((moment - now).total_seconds())) if moment else 0
    return {**data, "phase": phase, "seconds_left": left}


@dataclass
class HallCache:
    """One computation of an event's hall data per process every `ttl` seconds (and at
    once after a live change: `version` is part of the key), shared by every screen."""

    ttl: float = CACHE_SECONDS
    entries: dict[int, tuple[float, int, dict[str, Any]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, session: Session, event: Event, version: int, now: datetime) -> dict[str, Any]:
        """The hall data of `event` at live `version`, computed at most every `ttl` s."""
        clock = time.monotonic()
        with self.lock:
            found = self.entries.get(event.id)
        if found is None or found[1] != version or clock - found[0] >= self.ttl:
            found = (clock, version, hall_data(session, event, now))
            with self.lock:
                self.entries[event.id] = found
        return with_clock(found[2], event, now)


def cache_for(state: Any) -> HallCache:
    """The process's hall cache, kept on the app's `state` (`app.state.hall_cache`)."""
    cache = getattr(state, "hall_cache", None)
    if cache is None:
        cache = state.hall_cache = HallCache()
    return cache


def access_by_id(session: Session, event_id: int, principal: Principal) -> bool:
    """`hall_access` for the event `event_id`. Raises LookupError when it does not exist."""
    event = session.get(Event, event_id)
    if event is None:
        raise LookupError(event_id)
    return hall_access(principal, event)


def snapshot(session: Session, event_id: int, cache: HallCache, version: int) -> dict[str, Any]:
    """The hall data of event `event_id` now (the live stream's `hall` message), through
    the process's `cache`; {} when the event is gone."""
    event = session.get(Event, event_id)
    if event is None:
        return {}
    return {**cache.get(session, event, version, utcnow()), "version": version}
