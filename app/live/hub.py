"""The live hub: from a commit to every open stream, in this module (one hub per process
and event loop).

The path of a change (README "From a bid to a phone, in two steps"):

1. `wake_local`: `app.core.livelog` calls it after each commit of this process that noted
   a change (`livelog.changed`; the waker `app/wiring.py` `install` registers: the core
   does not import this layer). The other processes' commits arrive as PostgreSQL
   notifications (`app.live.listener`), which call `Hub.wake` the same way.
2. `Hub.wake` → `Hub.fan_out`: read what changed once (`snapshots.read_changes`), encode it
   once and put it in the queue of each stream it concerns: every change for the streams
   that show bid counts (`Channel.subscribers`), a change of stage only for the phones
   (`Channel.stage_subscribers`, `?counts=false`): a bid wakes no phone's stream.
3. `Hub.stream`: one client's bytes: the changes after its resume point, then its queue,
   and the `feed` / `hall` tickers; `app/api/live.py` `live` turns it into the SSE response.

Whatever wakes the hub (a commit in this process, a notification from another, the 15 s
safety check) only says "version N exists": the hub reads every topic changed since the
version it last read, once per process, however many phones listen. Lost or duplicated
wake-ups cost nothing. The hub's memory is a cache of the database (another process
rebuilds its own), not state another process needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import operator
import random
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import anyio
from sse_starlette.event import ServerSentEvent

from app.core.deps import database_slots
from app.flows import hall as hall_flow
from app.live import snapshots

log = logging.getLogger(__name__)

SAFETY_CHECK_SECONDS = 15.0
# After a re-read, changes within this many seconds wait for the next one: a burst of bids
# becomes one read and one message per second per process (the first change after a quiet
# second, such as a close, goes out at once).
MIN_REFRESH_INTERVAL = 1.0
MAX_LIFETIME_SECONDS = 600.0  # a stream ends then; the browser reconnects (`Last-Event-ID`)
FEED_EVERY_SECONDS = 5.0  # the `feed` and `hall` tickers
RETRY_MS = (1000, 4000)  # the browser's reconnection delay, drawn per stream

_hubs: weakref.WeakSet[Hub] = weakref.WeakSet()


def wake_local(event_id: int, version: int, stage: bool = False) -> None:
    """Step 1: called by `app.core.livelog` after a commit of this process that bumped
    event `event_id` to `version` (any thread; the waker `app/wiring.py` registers):
    wake this process's hubs (`Hub.wake`; `stage`: a stage moved)."""
    for hub in list(_hubs):
        try:
            hub.loop.call_soon_threadsafe(hub.wake, event_id, version, stage)
        except RuntimeError:  # that loop is closed
            _hubs.discard(hub)


# (version, topic key "auction:3", encoded message, shape "closed:1": what a page compares,
# the compact encoding for phones)
Item = tuple[int, str, bytes, str, bytes]


def shape_of(kind: str, data: dict[str, Any]) -> str:
    """What changes a page's layout: an auction's stage (status, round and reveal steps as
    `shape` says; not its bid count), the event's status and window."""
    if kind == "auction":
        return data.get("shape") or f"{data['status']}:{data['round']}"
    return f"{data['status']}|{data['opens_at']}|{data['closes_at']}"


def encode(version: int, kind: str, data: dict[str, Any]) -> bytes:
    """One SSE message: `event: <kind>`, `id: <version>`, `data: <JSON>` (UTF-8)."""
    body = json.dumps(
        {**data, "version": version}, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return ServerSentEvent(data=body, event=kind, id=str(version)).encode()


def compact(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The phone's form of a message (`?counts=false`): each revealed bid as the phone
    page shows it (participant, round, rank, cards, category), without its receipt,
    nonce, ids and descriptions. A close with 600 bids: about a quarter of the bytes,
    which is what bounds the time until 2,000 phones have the result."""
    if kind != "auction":
        return data
    rounds = []
    for rnd in data["view"].get("rounds", []):
        bids = rnd.get("bids")
        if bids is not None:
            bids = [
                {
                    "participant": b["participant"],
                    "round": b.get("round"),
                    "rank": b.get("rank"),
                    "combination": {
                        "cards": b["combination"]["cards"],
                        "category": b["combination"]["category"],
                    },
                }
                for b in bids
            ]
            rnd = {**rnd, "bids": bids}
        rounds.append(rnd)
    return {**data, "view": {**data["view"], "rounds": rounds}, "compact": True}


class Channel:
    """The live state of one event as this process last read it."""

    def __init__(self, event_id: int) -> None:
        self.event_id = event_id
        self.version = -1  # not read yet
        self.latest: dict[tuple[str, int], tuple[int, bytes, str, bytes]] = {}
        # every change: the organiser's pages and whoever shows bid counts
        self.subscribers: set[asyncio.Queue[Item]] = set()
        # a change of stage only (`shape_of`): the phones (`?counts=false`), which a bid
        # does not concern: a burst of bids costs them nothing (issue 24)
        self.stage_subscribers: set[asyncio.Queue[Item]] = set()
        self.loading: asyncio.Lock = asyncio.Lock()
        self.refreshing = False
        self.again = False
        self.hurry = asyncio.Event()  # a stage moved: no waiting for the refresh interval

    def since(self, after: int | None) -> list[Item]:
        """Cached messages of the topics changed after version `after` (all when None),
        oldest change first."""
        items = [
            (version, f"{kind}:{place}", message, shape, short)
            for (kind, place), (version, message, shape, short) in self.latest.items()
            if after is None or version > after
        ]
        return sorted(items)


class Hub:
    """The live channels of one process and event loop."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop = asyncio.get_running_loop()
        self.channels: dict[int, Channel] = {}
        self._safety = self.loop.create_task(self._safety_checks())
        _hubs.add(self)

    async def read(self, fn: Any, *args: Any) -> Any:
        """Run `fn(session, *args)` in a worker thread inside the database gate."""

        def call() -> Any:
            with self.app.state.sessionmaker() as session:
                return fn(session, *args)

        async with database_slots(self.app):
            return await anyio.to_thread.run_sync(call)

    async def channel(self, event_id: int) -> Channel:
        """The event's channel, read from the database on first use.

        Raises LookupError when the event does not exist."""
        channel = self.channels.get(event_id)
        if channel is None:
            channel = self.channels.setdefault(event_id, Channel(event_id))
        async with channel.loading:
            if channel.version < 0:
                try:
                    version, changes = await self.read(snapshots.read_changes, event_id, None)
                except LookupError:
                    self.channels.pop(event_id, None)
                    raise
                self._store(channel, changes)
                channel.version = version
        return channel

    def _store(
        self, channel: Channel, changes: list[tuple[int, str, dict[str, Any]]]
    ) -> list[tuple[Item, bool]]:
        """Encode and cache each change once (for every stream of this process); returns
        each item with whether its stage (`shape_of`) moved."""
        out = []
        for version, kind, data in changes:
            key = (kind, int(data.get("place") or 0))
            message = encode(version, kind, data)
            short = encode(version, kind, compact(kind, data)) if kind == "auction" else message
            shape = shape_of(kind, data)
            before = channel.latest.get(key)
            channel.latest[key] = (version, message, shape, short)
            moved = before is None or before[2] != shape
            out.append(((version, f"{kind}:{key[1]}", message, shape, short), moved))
        return out

    def subscribe(self, channel: Channel, counts: bool = True) -> asyncio.Queue[Item]:
        """A queue of the channel's changes: every change, or with `counts` False only the
        changes of a stage (the bid counts alone are never put in it)."""
        queue: asyncio.Queue[Item] = asyncio.Queue()
        (channel.subscribers if counts else channel.stage_subscribers).add(queue)
        return queue

    def unsubscribe(self, channel: Channel, queue: asyncio.Queue) -> None:
        channel.subscribers.discard(queue)
        channel.stage_subscribers.discard(queue)

    def wake(self, event_id: int, version: int | None = None, stage: bool = False) -> None:
        """Something changed (version `version`, or unknown): `fan_out` when it is news; at
        once when a `stage` moved (a close, a reveal step), else at most once per
        MIN_REFRESH_INTERVAL (a burst of bids). Called by `wake_local` (this process's
        commits), `app.live.listener` (the others') and the safety check."""
        channel = self.channels.get(event_id)
        if channel is None or channel.version < 0:
            return
        if version is not None and version <= channel.version:
            return
        if channel.refreshing:
            channel.again = True
            if stage:
                channel.hurry.set()
            return
        channel.refreshing = True
        self.loop.create_task(self.fan_out(channel))

    async def fan_out(self, channel: Channel) -> None:
        """Step 2: read the channel's changes once (`snapshots.read_changes`, every topic
        changed after the version last read) and put each in the queue of every stream it
        concerns: every change for `channel.subscribers`, only a change of stage for
        `channel.stage_subscribers` (the phones). Loops while wake-ups came meanwhile,
        waiting MIN_REFRESH_INTERVAL between reads unless a stage moved."""
        try:
            while True:
                channel.again = False
                try:
                    version, changes = await self.read(
                        snapshots.read_changes, channel.event_id, channel.version
                    )
                except Exception:  # the database is away: the safety check retries
                    log.warning("live: re-reading event %s failed", channel.event_id, exc_info=True)
                    return
                if version > channel.version:
                    for item, moved in self._store(channel, changes):
                        for queue in channel.subscribers:
                            queue.put_nowait(item)
                        if moved:  # the phones: only when the stage changed
                            for queue in channel.stage_subscribers:
                                queue.put_nowait(item)
                    channel.version = version
                if not channel.again:
                    return
                if not channel.hurry.is_set():
                    # a burst of bids: one read per interval, unless a stage moves
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(channel.hurry.wait(), MIN_REFRESH_INTERVAL)
                channel.hurry.clear()
        finally:
            channel.refreshing = False

    async def stream(
        self,
        channel: Channel,
        after: int | None,
        shutdown: Any,
        *,
        organiser: bool = False,
        counts: bool = True,
        hall: hall_flow.HallCache | None = None,
    ) -> AsyncIterator[bytes]:
        """Step 3: the SSE bytes of one client: what changed after version `after` (all
        topics when None), then every change `fan_out` puts in its queue (with `counts`
        False, subscribed as a phone: no `auction` message whose stage did not move, each in
        the compact form); the organiser also gets `feed` counters when they change, a hall
        screen (`hall`: the process's cache) its `hall` data. Ends after
        MAX_LIFETIME_SECONDS or when `shutdown` (an `anyio.Event`: SIGTERM) is set."""
        loop = asyncio.get_running_loop()
        queue = self.subscribe(channel, counts)

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
            tickers = _tickers(self, channel, organiser, hall)
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
            self.unsubscribe(channel, queue)

    def wake_all(self) -> None:
        """Re-read every channel (after a lost PostgreSQL connection)."""
        for event_id in list(self.channels):
            self.wake(event_id)

    async def _safety_checks(self) -> None:
        """Every 15 s, one version read per event this process serves (not per stream or
        poll): covers a lost notification. Costs nothing per phone."""
        while True:
            await asyncio.sleep(SAFETY_CHECK_SECONDS)
            watched = [c for c in self.channels.values() if c.version >= 0]
            if not watched:
                continue
            try:
                versions = await self.read(_versions, [c.event_id for c in watched])
            except Exception:
                log.warning("live: safety check failed", exc_info=True)
                continue
            for channel in watched:
                self.wake(channel.event_id, versions.get(channel.event_id, 0))


def _versions(session: Any, event_ids: list[int]) -> dict[int, int]:
    return {e: snapshots.current_version(session, e) for e in event_ids}


def hub_for(app: Any) -> Hub:
    """This event loop's hub of `app` (created, with its PostgreSQL listener, on first use)."""
    loop = asyncio.get_running_loop()
    hubs = getattr(app.state, "live_hubs", None)
    if hubs is None:
        hubs = app.state.live_hubs = weakref.WeakKeyDictionary()
    hub = hubs.get(loop)
    if hub is None:
        hub = hubs[loop] = Hub(app)
        if not app.state.settings.is_sqlite:
            from app.live.listener import start_listener

            start_listener(app, hub)
    return hub


async def cached_version(app: Any, event_id: int) -> int | None:
    """The event's live version as this process's hub knows it (read from the database
    once, then kept current by notifications); None for an unknown event."""
    try:
        return (await hub_for(app).channel(event_id)).version
    except LookupError:
        return None


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
