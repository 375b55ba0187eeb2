"""The live log: a transaction names what it changes for the live pages; at its commit
the event's live version is bumped and the change logged (the one unit-of-work hook).

A write path that changes what the live pages show (an auction, its rounds, bids and
withdrawals; the event's status or course window) calls, in its own transaction,
`changed(session, event_id, "auction", place, stage=...)` (`"event"` with place 0 for the
event). That note is the whole wiring: `changed` hooks the session once, and at commit

- `before_commit` (`_write`) bumps `LiveVersion` of each noted event (an upsert that
  row-locks it, taken last, after the locks of the change itself) and inserts one
  `LiveChange` row per topic; on PostgreSQL it also queues
  `pg_notify('rogaine_live', '<event>:<version>')` (with `:stage` when a stage moved,
  not only a bid count), which PostgreSQL delivers only if the transaction commits
  (`app.live.listener` wakes the other processes);
- `after_commit` (`_after_commit`) calls `app.live.hub.wake_local`, which reads the change
  once and hands it to each of this process's streams it concerns (the core does not
  import `app.live`: `app/wiring.py` `install` registers it with `on_commit`); a rollback
  forgets the notes.

The tables (`app.core.models`; their SQL: `app.core.repository`): `LiveVersion` holds
one number per event, bumped (row-locked) in the same transaction as every change the
live pages show, so versions are committed in order: a reader that sees version N has
every change up to N. `LiveChange` says which topic each version changed (`auction`
with its place, `event` with place 0); a stream resuming from `Last-Event-ID: N`
re-sends the current state of the topics changed after N. Rows are only inserted
(pattern: eventsourcing's `(stream, version)` key).

No foreign key to `event`: checking one would take a KEY SHARE lock on the event row at
the end of a bid, after the auction row's lock, while a close holds the event row and waits
for that auction row: a deadlock (seen under load). Without it the bump takes one lock,
always last.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session

from app.core import repository
from app.core.db import utcnow

CHANNEL = "rogaine_live"
STAGE_FLAG = ":stage"  # a notification's suffix: a stage moved (send it at once)
Topic = Literal["auction", "event"]
Waker = Callable[[int, int, bool], None]  # (event id, version, a stage moved)
_PENDING = "live_pending"  # session.info: {"topics": {(event, topic, place)}, "stage": bool}
_COMMITTED = "live_committed"  # session.info: [(event_id, version, a stage moved)]
_HOOKED = "live_hooked"  # session.info: the session's commit hooks are installed
_wakers: list[Waker] = []


def on_commit(waker: Waker) -> None:
    """Call `waker(event_id, version, stage)` after each commit that bumped a version in
    this process (idempotent; `app/wiring.py` `install` registers `app.live.hub.wake_local`,
    the only waker)."""
    if waker not in _wakers:
        _wakers.append(waker)


def changed(
    session: Session, event_id: int, topic: Topic, place: int = 0, *, stage: bool = False
) -> None:
    """Note that this transaction changes `topic` of event `event_id` (an auction's
    `place`, 0 for the event): at commit its live version is bumped and the phones woken.

    `stage`: a stage the phones show moved (an auction opened or closed, a round opened,
    closed or revealed a step, the event's status or window changed), not only a bid
    count: such a change is sent at once (`app.live.hub`: no waiting for the next refresh
    interval). Call it after the change, in the same transaction; noting twice is free.

    After the commit `_after_commit` calls `app.live.hub.wake_local` (registered by
    `app/wiring.py` `install`): the hub reads the change once and puts it in each stream's
    queue (`Hub.fan_out`)."""
    pending = session.info.get(_PENDING)
    if pending is None:
        pending = session.info[_PENDING] = {"topics": set(), "stage": False}
    pending["topics"].add((event_id, topic, place))
    pending["stage"] = pending["stage"] or stage
    if not session.info.get(_HOOKED):
        sa_event.listen(session, "before_commit", _write)
        sa_event.listen(session, "after_commit", _after_commit)
        sa_event.listen(session, "after_rollback", _forget)
        session.info[_HOOKED] = True


def noted(session: Session) -> tuple[set[tuple[int, str, int]], bool]:
    """The topics noted so far in this transaction and whether a stage moved (for tests)."""
    pending = session.info.get(_PENDING) or {"topics": set(), "stage": False}
    return set(pending["topics"]), bool(pending["stage"])


def _write(session: Session) -> None:
    """before_commit: bump the version of each noted event and log its topics."""
    pending = session.info.get(_PENDING)  # dropped after the commit (or the rollback)
    if not pending or not pending["topics"]:
        return
    if session.new or session.dirty or session.deleted:
        session.flush()
    topics: set[tuple[int, str, int]] = pending["topics"]
    committed = []
    now = utcnow()
    postgres = session.get_bind().dialect.name == "postgresql"
    stage = bool(pending["stage"])
    flag = STAGE_FLAG if stage else ""
    for event_id in sorted({t[0] for t in topics}):
        version = repository.bump_live_version(session, event_id)
        repository.add_live_changes(
            session,
            [
                {"event_id": e, "version": version, "topic": t, "place": p, "changed_at": now}
                for e, t, p in sorted(topics)
                if e == event_id
            ],
        )
        if postgres:
            repository.notify(session, CHANNEL, f"{event_id}:{version}{flag}")
        committed.append((event_id, version, stage))
    session.info[_COMMITTED] = committed


def _after_commit(session: Session) -> None:
    """after_commit: hand each bumped version to the wakers (`app.live.hub.wake_local`)."""
    session.info.pop(_PENDING, None)
    for event_id, version, stage in session.info.pop(_COMMITTED, None) or ():
        for wake in list(_wakers):
            wake(event_id, version, stage)


def _forget(session: Session, *_args: Any) -> None:
    session.info.pop(_PENDING, None)
    session.info.pop(_COMMITTED, None)
