"""`GET /api/v1/events/{event_id}/live`: the live pages' server-sent events.

Messages (`event:` field): `auction` (place, status, round, bid_count, winner, the public
`view` less its flattened `bids` (each bid is in its round) and the `names` it mentions),
`event` (status, course window) — each with `id:` = the event's live version of that
change, so `Last-Event-ID` (or `?since=`, for a page that knows the version it was
rendered at) resumes without loss — and `feed` (the dashboard's counters, organiser only,
no id). A comment ping every 15 s keeps proxies from closing an idle stream; a stream
ends after 10 minutes (the browser reconnects after its `retry:` delay, randomised per
stream) and within a second of SIGTERM (sse-starlette watches uvicorn's exit flag).
"""

from __future__ import annotations

import asyncio
import json
import operator
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Header, Path, Query, Request
from sse_starlette import EventSourceResponse
from sse_starlette.event import ServerSentEvent

from app.core.errors import Forbidden, NotFound
from app.core.principal import OrganiserOrPublicDep
from app.flows import hall as hall_flow
from app.live import snapshots
from app.live.hub import Channel, Hub, hub_for

router = APIRouter(prefix="/api/v1/events/{event_id}", tags=["live"])

PING_SECONDS = 15
MAX_LIFETIME_SECONDS = 600.0
FEED_EVERY_SECONDS = 5.0
RETRY_MS = (1000, 4000)  # the browser's reconnection delay, drawn per stream
SHUTDOWN_GRACE_SECONDS = 2.0  # a stream ends by itself well within this


def resume_point(last_event_id: str | None, since: int | None) -> int | None:
    """The version a client has seen: `Last-Event-ID` (a reconnection) wins over `since`."""
    if last_event_id is not None:
        try:
            return max(0, int(last_event_id.strip()))
        except ValueError:
            return None
    return since


async def messages(
    hub: Hub,
    channel: Channel,
    after: int | None,
    organiser: bool,
    shutdown: anyio.Event,
    counts: bool = True,
    hall: hall_flow.HallCache | None = None,
) -> AsyncIterator[bytes]:
    """The stream of one client: what changed after `after`, then every change as it
    comes (with `counts` False, no `auction` message whose status and round did not change:
    bid counts only; the hub does not even wake such a stream for them); the organiser
    also gets `feed` counters when they change, a hall screen (`hall`: the process's
    cache) its `hall` data."""
    loop = asyncio.get_running_loop()
    queue = hub.subscribe(channel, counts)

    async def on_shutdown() -> None:  # SIGTERM: end this stream cleanly (no cancellation)
        await shutdown.wait()
        queue.put_nowait(None)

    watcher = loop.create_task(on_shutdown())
    try:
        yield f"retry: {random.randint(*RETRY_MS)}\r\n\r\n".encode()
        # `hello` proves the stream is not buffered (the page falls back to polling without it)
        hello = json.dumps({"version": channel.version, "organiser": organiser})
        yield ServerSentEvent(data=hello, event="hello").encode()
        sent: dict[str, int] = {}
        # the client has every topic as of `after`: the cached shape of those not sent below
        shapes = {f"{kind}:{place}": item[2] for (kind, place), item in channel.latest.items()}
        for version, key, message, shape, short in channel.since(after):
            sent[key], shapes[key] = version, shape
            yield message if counts else short
        deadline = loop.time() + MAX_LIFETIME_SECONDS
        tickers = _tickers(hub, channel, organiser, hall)
        while (remaining := deadline - loop.time()) > 0:
            for ticker in tickers:
                if (message := await ticker.tick(loop.time())) is not None:
                    yield message
            wait = min(remaining, FEED_EVERY_SECONDS) if tickers else remaining
            try:
                item = await asyncio.wait_for(queue.get(), wait)
            except TimeoutError:
                continue
            if item is None:
                return
            version, key, message, shape, short = item
            if sent.get(key, -1) >= version:
                continue
            if not counts and shapes.get(key) == shape:
                continue  # only the bid count moved: this client does not show it
            sent[key], shapes[key] = version, shape
            yield message if counts else short
    finally:
        watcher.cancel()
        hub.unsubscribe(channel, queue)


class Ticker:
    """A message sent every FEED_EVERY_SECONDS when its data changed (`feed`, `hall`)."""

    def __init__(self, name: str, read: Callable[[], Awaitable[Any]], same: Callable) -> None:
        self.name, self.read, self.same = name, read, same
        self.next, self.last = 0.0, None

    async def tick(self, now: float) -> bytes | None:
        """The message when it is due and its data changed, else None."""
        if now < self.next:
            return None
        self.next = now + FEED_EVERY_SECONDS
        data = await self.read()
        if self.last is not None and self.same(data, self.last):
            return None
        self.last = data
        return ServerSentEvent(data=json.dumps(data), event=self.name).encode()


def _tickers(
    hub: Hub, channel: Channel, organiser: bool, hall: hall_flow.HallCache | None
) -> list[Ticker]:
    """The periodic messages of a stream: the organiser's `feed` counters, the hall's data
    (compared without its clock, which moves every second)."""
    tickers = []
    if organiser:
        feed = partial(hub.read, snapshots.feed_counters, channel.event_id)
        tickers.append(Ticker("feed", feed, operator.eq))
    if hall is not None:

        def hall_read() -> Awaitable[Any]:
            return hub.read(hall_flow.snapshot, channel.event_id, hall, channel.version)

        tickers.append(Ticker("hall", hall_read, _same_hall))
    return tickers


def _same_hall(a: dict[str, Any], b: dict[str, Any]) -> bool:
    clock = ("seconds_left", "phase")
    return {k: v for k, v in a.items() if k not in clock} == {
        k: v for k, v in b.items() if k not in clock
    }


@router.get(
    "/live",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "The live stream"},
        404: {"description": "No such event"},
    },
)
async def live(
    request: Request,
    caller: OrganiserOrPublicDep,
    event_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    since: Annotated[int | None, Query(ge=0, le=2**62)] = None,
    last_event_id: Annotated[str | None, Header(max_length=40)] = None,
    counts: Annotated[bool, Query(description="false: no bid-count-only updates")] = True,
    hall: Annotated[bool, Query(description="true: the hall screen's `hall` data")] = False,
) -> Any:
    """Server-sent events of the event's live pages (public; `feed` for the organiser).

    `since` / `Last-Event-ID`: the live version already seen; only the topics changed
    after it are sent first (all topics when neither is given). `counts=false` (the phone
    page, which shows no bid count): an auction's message only when its status or round
    changed, so bidding costs the waiting phones nothing, and its revealed bids in the
    compact form the phone shows (`compact: true`: participant, round, rank, cards,
    category; no receipt, nonce or ids). `hall=true` (the hall screen): also `hall`, the
    screen's data when it changed (every 5 s at most), for whom `hall_access` admits
    (403 `hall_not_public` otherwise). 404 `event_not_found`."""
    hub = hub_for(request.app)
    try:
        channel = await hub.channel(event_id)
        watch = hall and await hub.read(hall_flow.access_by_id, event_id, caller)
    except LookupError:
        raise NotFound(f"Event {event_id} not found.", code="event_not_found") from None
    if hall and not watch:
        raise Forbidden("This event's hall screen is not public.", code="hall_not_public")
    cache = hall_flow.cache_for(request.app.state) if watch else None
    after = resume_point(last_event_id, since)
    shutdown = anyio.Event()
    return EventSourceResponse(
        messages(hub, channel, after, caller.is_organiser, shutdown, counts, cache),
        ping=PING_SECONDS,
        shutdown_event=shutdown,
        shutdown_grace_period=SHUTDOWN_GRACE_SECONDS,
        send_timeout=30,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
