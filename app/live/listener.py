"""PostgreSQL LISTEN/NOTIFY: wake-ups from the other app processes.

One dedicated async psycopg connection per process (per event loop) runs
`LISTEN rogaine_live`; `app.core.livelog` sends `pg_notify('rogaine_live',
'<event id>:<version>')` inside each changing transaction (delivered at commit). A
notification is only a hint: the hub re-reads the database. When the connection drops,
the listener reconnects with exponential back-off (0.5 s … 30 s) and wakes every
channel, so what was notified meanwhile is read anyway.

psycopg 3 is already the app's driver; its `AsyncConnection.notifies()` is an async
generator over notifications, so no other library (asyncpg, broadcaster) is needed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import psycopg
from sqlalchemy import make_url

from app.live import repository

log = logging.getLogger(__name__)

MAX_BACKOFF = 30.0


def conninfo(database_url: str) -> str:
    """A libpq URL for psycopg from the app's SQLAlchemy URL (`postgresql+psycopg://…`)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


def parse(payload: str) -> tuple[int, int, bool] | None:
    """`'<event id>:<version>[:stage]'` -> (event id, version, a stage moved); None for
    anything else."""
    event_id, _, rest = payload.partition(":")
    version, _, flag = rest.partition(":")
    try:
        return int(event_id), int(version), flag == "stage"
    except ValueError:
        return None


async def listen(url: str, hub: Any) -> None:
    """Forever: connect, LISTEN, wake the hub on each notification; reconnect on errors."""
    backoff = 0.5
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                await repository.listen(conn)
                backoff = 0.5
                hub.wake_all()  # whatever was committed while we were not listening
                async for notify in conn.notifies():
                    parsed = parse(notify.payload)
                    if parsed is not None:
                        hub.wake(*parsed)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("live: LISTEN connection lost (%s); retry in %.1f s", exc, backoff)
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF)


def start_listener(app: Any, hub: Any) -> asyncio.Task[None]:
    """Start the listener task of `hub` (on the running loop)."""
    task = asyncio.get_running_loop().create_task(
        listen(conninfo(app.state.settings.database_url), hub)
    )
    hub.listener = task
    return task
