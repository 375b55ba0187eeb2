"""Group commit for the field feed: concurrent deliveries (and scans) share one transaction.

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

Phone scans (`POST /api/v1/scan`, what phones send one at a time) are grouped the
same way (`ScanBatcher`): the transaction looks up each scan's token, reads its
body (401 before 422, as before) and stores the scans of each event with one
`ingest.scan_many`; each scan gets its own result or its own problem (401, 422,
429 `too_many_unknown_codes`, 409 `feed_closed`).

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
from typing import Any, TypeVar

import anyio.to_thread
from pydantic import ValidationError

from app.core.deps import database_slots
from app.core.errors import NotFound, Unauthorized
from app.events.deps import PARTICIPANT_TOKEN_DETAIL, participants_by_tokens
from app.events.models import Participant
from app.feed import freeze
from app.feed import ingest as feed_ingest
from app.feed import keys as key_service
from app.feed.schemas import ScanCreate, TakeResult

Answer = Any  # a request's result, or the BaseException that refuses it


@dataclass(eq=False)
class Delivery:
    """One `POST …/takes` request waiting for its results."""

    credentials: key_service.FeedCredentials
    body: bytes
    items: Sequence[Any]
    future: asyncio.Future[list[TakeResult]]
    sent_at: datetime | None = None  # the device's clock when it sent the delivery
    clock_tolerance: timedelta = feed_ingest.CLOCK_TOLERANCE  # FEED_CLOCK_TOLERANCE_SECONDS

    @property
    def size(self) -> int:
        """Its number of takes (a batch holds up to FEED_BATCH_MAX_TAKES)."""
        return len(self.items)


class GroupCommit:
    """The queues of one process (one event loop) by key; `store_batch` stores a batch in
    one transaction and answers each request (its result or its own error)."""

    def __init__(self, app: Any) -> None:
        settings = app.state.settings
        self.app = app
        self.max_takes: int = settings.feed_batch_max_takes
        self.concurrency: int = settings.feed_batch_concurrency
        self.queues: defaultdict[int, deque[Any]] = defaultdict(deque)
        self.flushers: defaultdict[int, int] = defaultdict(int)
        self.tasks: set[asyncio.Task[None]] = set()

    def store_batch(self, key: int, batch: list[Any]) -> list[Any]:
        """One transaction for `batch` (requests of `key`): an answer per request (its
        result or the error that refuses it alone); raises when the transaction fails."""
        raise NotImplementedError

    async def _enqueue(self, key: int, request: Any) -> Any:
        """Queue `request` (with its `future` and `size`) under `key`; its answer."""
        self.queues[key].append(request)
        if self.flushers[key] < self.concurrency:
            self.flushers[key] += 1
            task = asyncio.create_task(self._flush(key))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return await request.future

    def _next_batch(self, queue: deque[Any]) -> list[Any]:
        """The oldest requests, up to `max_takes` takes (always at least one request)."""
        batch = [queue.popleft()]
        size = batch[0].size
        while queue and size + queue[0].size <= self.max_takes:
            request = queue.popleft()
            batch.append(request)
            size += request.size
        return batch

    async def _flush(self, key: int) -> None:
        queue = self.queues[key]
        try:
            while queue:
                batch = self._next_batch(queue)
                async with database_slots(self.app):
                    answers = await anyio.to_thread.run_sync(self._store_or_split, key, batch)
                for request, answer in zip(batch, answers, strict=True):
                    if request.future.done():  # the client went away: nothing to tell
                        continue
                    if isinstance(answer, BaseException):
                        request.future.set_exception(answer)
                    else:
                        request.future.set_result(answer)
        finally:
            self.flushers[key] -= 1
            if not self.flushers[key] and not queue:
                del self.flushers[key]
                del self.queues[key]

    def _store_or_split(self, key: int, batch: list[Any]) -> list[Any]:
        """`store_batch`; if its transaction fails, each request in one of its own."""
        try:
            return self.store_batch(key, batch)
        except Exception as exc:
            if len(batch) == 1:
                return [exc]
        answers: list[Any] = []
        for request in batch:
            try:
                answers.extend(self.store_batch(key, [request]))
            except Exception as exc:
                answers.append(exc)
        return answers


GroupCommitT = TypeVar("GroupCommitT", bound=GroupCommit)


class FeedBatcher(GroupCommit):
    """Deliveries (`POST …/takes`) by event id."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.clock_tolerance = timedelta(seconds=app.state.settings.feed_clock_tolerance_seconds)

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
        delivery = Delivery(credentials, body, items, future, sent_at, self.clock_tolerance)
        return await self._enqueue(event_id, delivery)

    def store_batch(self, key: int, batch: list[Any]) -> list[Any]:
        return store(self.app.state.sessionmaker, key, batch)


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


@dataclass(eq=False)
class ScanRequest:
    """One `POST /api/v1/scan` waiting for its answer: the bearer token, the body as sent
    (validated once the token is known: 401 before 422) and the server's clock when it
    came in (the take's time)."""

    token: str
    body: bytes
    received_at: datetime
    future: asyncio.Future[TakeResult]
    size: int = 1


class ScanBatcher(GroupCommit):
    """Phone scans of every event in one queue (a scan's event is known only once its
    token is looked up, in the transaction)."""

    async def scan(self, token: str, body: bytes, received_at: datetime) -> TakeResult:
        """Store the scan in `body` (`ScanCreate`) of the participant whose access token is
        `token`, taken at `received_at` (aware UTC); its result as the participant may see
        it (`ingest.scan_many`).

        Raises what the scan alone would raise: Unauthorized (a token of no participant),
        pydantic's ValidationError (the body), 429 `too_many_unknown_codes` or the take's
        problem (`ingest.scan_many`), or an unexpected error of its own."""
        future: asyncio.Future[TakeResult] = asyncio.get_running_loop().create_future()
        return await self._enqueue(0, ScanRequest(token, body, received_at, future))

    def store_batch(self, key: int, batch: list[Any]) -> list[Any]:
        settings = self.app.state.settings
        return store_scans(
            self.app.state.sessionmaker, batch, settings.scan_unknown_codes_per_minute
        )


def store_scans(
    sessionmaker: Any, batch: Sequence[ScanRequest], unknown_per_minute: int
) -> list[Answer]:
    """One transaction for `batch`: find each scan's participant by its access token (all
    in one query, `participants_by_tokens`) and read its body, then store each event's scans
    (`ingest.scan_many`, the event read FOR SHARE with its freeze) and commit.

    Returns, per scan, its result or the error that refuses it alone (Unauthorized,
    ValidationError, AppError). Raises when the transaction fails (nothing stored)."""
    answers: list[Any] = [None] * len(batch)
    with sessionmaker() as session:
        participants = participants_by_tokens(session, {request.token for request in batch})
        by_event: defaultdict[int, list[tuple[int, feed_ingest.PhoneScan]]] = defaultdict(list)
        for index, request in enumerate(batch):
            found = _phone_scan(participants.get(request.token), request)
            if isinstance(found, Exception):
                answers[index] = found
            else:
                by_event[found.participant.event_id].append((index, found))
        for event_id, scans in sorted(by_event.items()):
            loaded = freeze.load_event_for_feed(session, event_id)
            assert loaded is not None  # a participant's event (a foreign key)
            event, frozen = loaded
            results = feed_ingest.scan_many(
                session, event, [scan for _, scan in scans],
                unknown_per_minute=unknown_per_minute, frozen=frozen,
            )  # fmt: skip
            for (index, _), result in zip(scans, results, strict=True):
                answers[index] = result
        session.commit()
    return answers


def _phone_scan(
    participant: Participant | None, request: ScanRequest
) -> feed_ingest.PhoneScan | Exception:
    """The scan of `request` by `participant` (the one its token names), or why it is
    refused: Unauthorized (no participant has its token), ValidationError (its body is no
    `ScanCreate`)."""
    if participant is None:
        return Unauthorized(PARTICIPANT_TOKEN_DETAIL)
    try:
        body = ScanCreate.model_validate_json(request.body)
    except ValidationError as exc:
        return exc
    return feed_ingest.PhoneScan(participant, body.code, body.source_id, request.received_at)


def scan_batcher(app: Any) -> ScanBatcher:
    """The app's scan batcher of the running event loop (`feed_batcher`'s rule)."""
    return _of_loop(app, "scan_batchers", ScanBatcher)


def feed_batcher(app: Any) -> FeedBatcher:
    """The app's batcher of the running event loop (a process has one loop; tests may run
    several)."""
    return _of_loop(app, "feed_batchers", FeedBatcher)


def _of_loop(app: Any, name: str, kind: type[GroupCommitT]) -> GroupCommitT:
    """`app.state.<name>`'s `kind` of the running event loop (made on first use)."""
    batchers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] | None = getattr(
        app.state, name, None
    )
    if batchers is None:
        batchers = weakref.WeakKeyDictionary()
        setattr(app.state, name, batchers)
    loop = asyncio.get_running_loop()
    batcher = batchers.get(loop)
    if batcher is None:
        batcher = batchers[loop] = kind(app)
    return batcher
