"""Request dependencies shared by every domain: settings, the session, the bearer token.

Use the `Annotated` aliases in routes: `SessionDep`, `SettingsDep`; who is calling:
`app.core.principal` (`OrganiserDep`, `accepts(...)`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.db import transaction


async def get_settings_dep(request: Request) -> Settings:
    """The app's settings. `async` because it does no I/O: a `def` dependency would cost
    a worker-thread hop on every request that declares it (issue 24)."""
    return request.app.state.settings


# Worker threads of Starlette's thread pool (anyio's default limiter) that run `def` routes.
THREAD_POOL_SIZE = 40
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def database_concurrency(settings: Settings) -> int:
    """How many requests of one process may hold a database session at the same time.

    SQLite: 4 (every transaction takes the write lock, they run one at a time
    anyway). PostgreSQL: the connection pool (pool size + overflow after the connection
    budget, `Settings.pool_size`), at most 32,
    always below the thread pool's 40 threads.
    """
    if settings.is_sqlite:
        return 4
    return max(1, min(settings.pool_size + settings.pool_overflow, THREAD_POOL_SIZE - 8))


def database_slots(app: object) -> asyncio.Semaphore:
    """The semaphore of this process's database slots (`database_concurrency`), one per
    event loop. Whoever opens a session on the request path holds a slot meanwhile."""
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = asyncio.Semaphore(
            database_concurrency(app.state.settings)  # type: ignore[attr-defined]
        )
    return gate


async def database_gate(request: Request) -> AsyncIterator[None]:
    """Admit a request to the database only when one of the process's slots is free.

    The wait happens on the event loop, not in a worker thread. Without it a
    burst larger than the thread pool deadlocks a process: every thread blocks
    waiting for a pooled connection (or SQLite's write lock) held by requests
    that in turn wait for a free thread to run their next dependency or route,
    until the 30 s timeouts turn them all into errors. Per-process and in memory
    by design: it limits this process's own threads, nothing shared.
    """
    async with database_slots(request.app):
        yield


def get_session(
    request: Request, _gate: Annotated[None, Depends(database_gate, scope="function")]
) -> Iterator[Session]:
    """One session per request: committed when the route returns, rolled back if it raises.

    Opened only once the request passed `database_gate`.
    """
    with transaction(request.app.state.sessionmaker) as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
# scope="function": the commit happens before the response is sent, so a failed
# commit becomes a 500 problem instead of a success the client already received.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
