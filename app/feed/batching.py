"""Group commit for the field feed: concurrent deliveries share one transaction.

Under load most of a delivery's cost is per transaction, not per take: the
checkout, the event and its CPs, the freeze check, the lock, the commit. So
`POST /events/{id}/takes` does not open a transaction per request. A delivery
joins its event's queue; while a transaction of earlier deliveries is running,
the ones that arrive wait, and the next transaction stores all of them
(`ingest.ingest` over their items, each item recorded by its own sender). At
low load a delivery runs alone at once: nothing ever waits for a timer.

Each delivery still gets exactly its own results, in its own order, after the
commit that stored them; an authorisation error is that delivery's alone. If
a combined transaction fails, its deliveries are retried one by one, so a
failure (a database error, a bug tripped by one delivery) reaches only the
delivery that causes it.

The queue lives in this process's memory only while its requests are open,
and nothing another process needs is kept there: every process batches its
own requests, and correctness rests on the database's row locks as before.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import anyio.to_thread

from app.core.deps import database_slots
from app.core.errors import NotFound
from app.feed import freeze
from app.feed import ingest as feed_ingest
from app.feed import keys as key_service
from app.feed.schemas import TakeResult

Answer = list[TakeResult] | BaseException


@dataclass(eq=False)
class Delivery:
    """One `POST …/takes` request waiting for its results."""

    credentials: key_service.FeedCredentials
    body: bytes
    items: Sequence[Any]
    future: asyncio.Future[list[TakeResult]]
    sent_at: datetime | None = None  # the device's clock when it sent the delivery
    clock_tolerance: timedelta = feed_ingest.CLOCK_TOLERANCE  # FEED_CLOCK_TOLERANCE_SECONDS


class FeedBatcher:
    """The queues of one process (one event loop): deliveries by event id."""

    def __init__(self, app: Any) -> None:
        settings = app.state.settings
        self.app = app
        self.max_takes: int = settings.feed_batch_max_takes
        self.concurrency: int = settings.feed_batch_concurrency
        self.clock_tolerance = timedelta(seconds=settings.feed_clock_tolerance_seconds)
        self.queues: defaultdict[int, deque[Delivery]] = defaultdict(deque)
        self.flushers: defaultdict[int, int] = defaultdict(int)
        self.tasks: set[asyncio.Task[None]] = set()

    async def deliver(
        self,
        event_id: int,
        credentials: key_service.FeedCredentials,
        body: bytes,
        items: Sequence[Any],
        *,
        sent_at: datetime | None = None,
    ) -> list[TakeResult]:
        """Store `items` (a delivery's takes) for `event_id`; their results, in input order.

        `sent_at`: the device's clock when it sent them (`ingest.ingest` corrects the
        takes' times when it is off by more than FEED_CLOCK_TOLERANCE_SECONDS).

        Raises what the delivery alone would raise: NotFound `event_not_found`,
        Unauthorized (`keys.feed_principal`), or an unexpected error of its own.
        """
        future: asyncio.Future[list[TakeResult]] = asyncio.get_running_loop().create_future()
        self.queues[event_id].append(
            Delivery(credentials, body, items, future, sent_at, self.clock_tolerance)
        )
        if self.flushers[event_id] < self.concurrency:
            self.flushers[event_id] += 1
            task = asyncio.create_task(self._flush(event_id))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return await future

    def _next_batch(self, queue: deque[Delivery]) -> list[Delivery]:
        """The oldest deliveries, up to `max_takes` takes (always at least one delivery)."""
        batch = [queue.popleft()]
        size = len(batch[0].items)
        while queue and size + len(queue[0].items) <= self.max_takes:
            delivery = queue.popleft()
            batch.append(delivery)
            size += len(delivery.items)
        return batch

    async def _flush(self, event_id: int) -> None:
        queue = self.queues[event_id]
        try:
            while queue:
                batch = self._next_batch(queue)
                async with database_slots(self.app):
                    answers = await anyio.to_thread.run_sync(self._store_or_split, event_id, batch)
                for delivery, answer in zip(batch, answers, strict=True):
                    if delivery.future.done():  # the client went away: nothing to tell
                        continue
                    if isinstance(answer, BaseException):
                        delivery.future.set_exception(answer)
                    else:
                        delivery.future.set_result(answer)
        finally:
            self.flushers[event_id] -= 1
            if not self.flushers[event_id] and not queue:
                del self.flushers[event_id]
                del self.queues[event_id]

    def _store_or_split(self, event_id: int, batch: list[Delivery]) -> list[Answer]:
        """`store` the batch; if its transaction fails, each delivery in one of its own."""
        try:
            return store(self.app.state.sessionmaker, event_id, batch)
        except Exception as exc:
            if len(batch) == 1:
                return [exc]
        answers: list[Answer] = []
        for delivery in batch:
            try:
                answers.extend(store(self.app.state.sessionmaker, event_id, [delivery]))
            except Exception as exc:
                answers.append(exc)
        return answers


def store(sessionmaker: Any, event_id: int, batch: Sequence[Delivery]) -> list[Answer]:
    """One transaction for `batch`: authorise each delivery, ingest all their takes, commit.

    Each delivery's `sent_at` applies to its own takes (device clocks, `ingest.ingest`;
    the tolerance is the app's setting, the same for every delivery).

    Returns, per delivery, its results (in its input order) or the error that
    refuses it alone (NotFound, Unauthorized). Raises when the transaction fails
    (nothing of it is stored then).
    """
    with sessionmaker() as session:
        loaded = freeze.load_event_for_feed(session, event_id)
        if loaded is None:
            missing = NotFound(f"Event {event_id} does not exist.", code="event_not_found")
            return [missing for _ in batch]
        event, frozen = loaded
        answers: list[Answer | None] = [None] * len(batch)
        items: list[Any] = []
        recorded_by: list[str] = []
        sent_at: list[datetime | None] = []
        owners: list[int] = []
        for index, delivery in enumerate(batch):
            try:
                principal = key_service.feed_principal(
                    session, event, delivery.credentials, delivery.body
                )
            except Exception as exc:
                answers[index] = exc
                continue
            items.extend(delivery.items)
            recorded_by.extend(principal.actor for _ in delivery.items)
            sent_at.extend(delivery.sent_at for _ in delivery.items)
            owners.extend(index for _ in delivery.items)
        results = (
            feed_ingest.ingest(
                session,
                event,
                items,
                recorded_by=recorded_by,
                frozen=frozen,
                sent_at=sent_at,
                clock_tolerance=batch[0].clock_tolerance,
            )
            if items
            else []
        )
        session.commit()
    for index in set(owners):
        answers[index] = []
    for owner, result in zip(owners, results, strict=True):
        answers[owner].append(result)  # type: ignore[union-attr]
    return [answer if answer is not None else [] for answer in answers]


def feed_batcher(app: Any) -> FeedBatcher:
    """The app's batcher of the running event loop (a process has one loop; tests may run
    several)."""
    batchers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, FeedBatcher] | None = getattr(
        app.state, "feed_batchers", None
    )
    if batchers is None:
        batchers = app.state.feed_batchers = weakref.WeakKeyDictionary()
    loop = asyncio.get_running_loop()
    batcher = batchers.get(loop)
    if batcher is None:
        batcher = batchers[loop] = FeedBatcher(app)
    return batcher
