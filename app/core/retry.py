"""Database contention and outages answered as problems, never as 500s (issue 24).

`DatabaseRetryMiddleware` runs a request again, on a fresh session, when its transaction
was chosen as a deadlock victim (SQLSTATE `40P01`) or lost a serialization conflict
(`40001`), or when SQLite's write lock stayed busy, or when a pooled connection turned
out dropped by the server (no pre-ping, `DB_POOL_PRE_PING`): the database rolled
everything of that attempt back, so running it again is what a client would do anyway. The request
body is kept as it is read, so a POST runs again with the same bytes. After
`ATTEMPTS` tries the answer is 503 `database_busy` (with `Retry-After`); a database that
cannot be reached (refused or lost connection, an exhausted pool) is 503
`database_unavailable`. A response that has already started is never run again (the
error then propagates as before).
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from sqlalchemy import exc as sa_exc
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.problems import problem_response

log = logging.getLogger(__name__)

ATTEMPTS = 4  # the first try and three retries
BACKOFF_SECONDS = (0.01, 0.05)  # drawn per retry, times the retry's number
RETRY_AFTER_SECONDS = 1
RETRYABLE_STATES = frozenset({"40P01", "40001", "55P03"})  # deadlock, serialization, lock
UNAVAILABLE_STATES = ("08", "57P01", "57P02")  # connection lost, server shutting down
TRANSIENT_STATES = frozenset({"57P03", "53300"})  # starting up; no connection slot left


def sqlstate(error: BaseException) -> str | None:
    """The SQLSTATE of a driver error wrapped by SQLAlchemy (psycopg's `sqlstate`,
    psycopg2's `pgcode`), or None (SQLite, or not a database error)."""
    orig = getattr(error, "orig", None)
    return getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)


def classify(error: BaseException) -> str | None:
    """`"busy"` (worth running again: deadlock victim, serialization failure, SQLite's
    lock), `"stale"` (a pooled connection the server had dropped: SQLAlchemy renewed
    the pool; or the server has no connection slot left: worth running again),
    `"unavailable"` (the database cannot be reached, or the pool is exhausted) or None
    (any other error: not this middleware's business)."""
    if isinstance(error, sa_exc.TimeoutError):  # the connection pool stayed empty
        return "unavailable"
    if not isinstance(error, sa_exc.DBAPIError):
        return None
    if error.connection_invalidated:  # no pre-ping (DB_POOL_PRE_PING): found in use
        return "stale"
    state = sqlstate(error)
    if state in TRANSIENT_STATES:  # worth another try, then "unavailable"
        return "stale"
    if state in RETRYABLE_STATES:
        return "busy"
    if state is not None and state.startswith(UNAVAILABLE_STATES):
        return "unavailable"
    if isinstance(error, sa_exc.OperationalError):
        if "database is locked" in str(error.orig):  # SQLite's busy timeout ran out
            return "busy"
        if state is None:  # psycopg: refused or lost connection (no SQLSTATE)
            return "unavailable"
    if isinstance(error, sa_exc.InterfaceError):
        return "unavailable"
    return None


class _Replay:
    """The request's `receive`, recording the body so that a retry reads it again."""

    def __init__(self, receive: Receive) -> None:
        self.receive = receive
        self.recorded: list[Message] = []
        self.complete = False

    def attempt(self) -> Receive:
        """A `receive` for one attempt: the recorded messages, then the client's."""
        replay = list(self.recorded)

        async def receive() -> Message:
            if replay:
                return replay.pop(0)
            if self.complete:  # the whole body was replayed: wait as a server would
                return await self.receive()
            message = await self.receive()
            if message["type"] == "http.request":
                self.recorded.append(message)
                self.complete = not message.get("more_body", False)
            return message

        return receive


class DatabaseRetryMiddleware:
    """ASGI middleware: retry deadlock victims and serialization failures, answer 503
    problems for a busy or unreachable database (see the module)."""

    def __init__(self, app: ASGIApp, attempts: int = ATTEMPTS) -> None:
        self.app = app
        self.attempts = attempts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        replay = _Replay(receive)
        for attempt in range(1, self.attempts + 1):
            started = False

            async def send_once(message: Message) -> None:
                nonlocal started
                started = True
                await send(message)

            try:
                await self.app(scope, replay.attempt(), send_once)
                return
            except Exception as error:
                kind = classify(error)
                if kind is None or started:
                    raise
                if kind in ("busy", "stale") and attempt < self.attempts:
                    log.info("database busy on %s (attempt %d); retrying", scope["path"], attempt)
                    await asyncio.sleep(random.uniform(*BACKOFF_SECONDS) * attempt)
                    continue
                log.warning("database %s on %s %s", kind, scope["method"], scope["path"])
                await _problem(kind)(scope, receive, send)
                return


def _problem(kind: str) -> Any:
    if kind == "busy":  # "stale" to the end: the database keeps dropping connections
        return problem_response(
            503,
            "database_busy",
            "The database is busy with concurrent changes; nothing was stored. Try again.",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    return problem_response(
        503,
        "database_unavailable",
        "The database cannot be reached; nothing was stored. Try again later.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS * 5)},
    )
