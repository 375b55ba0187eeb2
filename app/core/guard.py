"""Sign-in guard: failed credentials are throttled per client address, organiser sessions
are rows that logout deletes. Both live in the database, so every app process sees the
same counts and the same sessions.

- **Throttle.** A request that presents a credential (an `Authorization` header,
  `X-Integration-Key`, a `token` query parameter, `POST /admin/login`, a personal link
  `/p/{token}`, a game link `/g/{token}` or an organiser member's link `/o/{token}`) is
  refused with 429 and `Retry-After`
  (seconds; a `too_many_failures` problem, or a page for page paths) while its client
  address has `AUTH_FAILURES_PER_WINDOW` failures in the last
  `AUTH_FAILURE_WINDOW_SECONDS` (a sliding window) — even when the credential is
  right: answering a right token from a throttled address would tell a guesser when
  they hit. Another address is not affected. A failure is a credentialed request
  answered 401, or one a route marks with `mark_failed` (a wrong token on the sign-in
  form, an unknown personal link, a bearer token that matches nobody on a public
  endpoint). Refused (429) requests are not counted, so an address regains
  `AUTH_FAILURES_PER_WINDOW` attempts per window.
- **Organiser sessions.** Signing in stores the SHA-256 of a random session id
  (`start_session`); the signed cookie carries the id. `POST /admin/logout` deletes
  the row (`end_session`), so the cookie stops working at once in every process.
  A session of an organiser member (issue 29, `app.core.members`) carries its
  `member_id`; revoking the member (or re-issuing its link) deletes its rows
  (`end_member_sessions`). The guard puts the request's member (its session, or its
  `om_` bearer token) on the request (`organiser_member`) for `app.web.roles`.

The client address is the ASGI `client` (behind a reverse proxy run uvicorn with
`--proxy-headers --forwarded-allow-ips=<proxy>` so it is the real address).
The tables: `AuthFailure`, `OrganiserSession` (`app.core.models`); their SQL is in
`app.core.repository`.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from fastapi import Request, Response
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core import repository
from app.core.db import utcnow
from app.core.deps import database_slots
from app.core.members import TOKEN_PREFIX as MEMBER_TOKEN_PREFIX
from app.core.members import MemberInfo, live_member, member_by_token
from app.core.models import CLIENT_MAX_LENGTH, OrganiserSession
from app.core.problems import problem_response
from app.core.security import hash_token, new_token

FAILED_FLAG = "auth_failed"
SESSION_FLAG = "organiser_session_alive"
MEMBER_FLAG = "organiser_member"
CREDENTIAL_PATH_PREFIXES = ("/p/", "/g/", "/o/")
API_PREFIXES = ("/api/",)


# -- throttle ----------------------------------------------------------------------------------


def retry_after(
    session: Session, client: str, *, limit: int, window: timedelta, now: datetime
) -> int | None:
    """Seconds until `client` may try again (None: not throttled).

    Throttled when `limit` or more failures are younger than `window` (UTC `now`);
    the wait ends when enough of them have aged out to leave one attempt.
    """
    return retry_after_many(session, [client], limit=limit, window=window, now=now)[client]


def retry_after_many(
    session: Session, clients: Collection[str], *, limit: int, window: timedelta, now: datetime
) -> dict[str, int | None]:
    """`retry_after` of each of `clients` (distinct addresses) with one counting query
    (one more per throttled client): the guard checks concurrent requests together."""
    since = now - window
    counts: dict[str, int] = dict.fromkeys(clients, 0)
    counts.update(repository.failures_since(session, counts, since))
    waits: dict[str, int | None] = {}
    for client, count in counts.items():
        if count < limit:
            waits[client] = None
            continue
        # The (count - limit + 1)-th oldest failure must age out before one attempt is free.
        freed_by = repository.failure_time(session, client, since, skip=count - limit)
        wait = ((freed_by or now) + window - now).total_seconds()
        waits[client] = max(1, math.ceil(wait))
    return waits


def record_failure(
    session: Session, client: str, path: str, *, window: timedelta, now: datetime
) -> None:
    """Store one failure of `client` at UTC `now`; failures of any client older than
    `window` are purged (the table holds at most one window of failures)."""
    repository.add_failure(session, client, path[:200], now, purge_to=now - window)


def mark_failed(request: Request) -> None:
    """Count this request as a failed credential (the guard records it with the response)."""
    request.state.auth_failed = True


# -- organiser sessions ----------------------------------------------------------------------


def start_session(
    session: Session, *, max_age: int, now: datetime | None = None, member_id: int | None = None
) -> str:
    """A new organiser session valid `max_age` seconds, of the owner or of `member_id`;
    returns its id (for the cookie).

    Expired sessions are purged here."""
    now = now or utcnow()
    repository.purge_sessions(session, now)
    sid = new_token(16)
    session.add(
        OrganiserSession(
            sid_hash=hash_token(sid),
            created_at=now,
            expires_at=now + timedelta(seconds=max_age),
            member_id=member_id,
        )
    )
    session.flush()
    return sid


def end_session(session: Session, sid: str) -> None:
    """Revoke the organiser session `sid` (logout); nothing happens for an unknown id."""
    repository.delete_session(session, hash_token(sid))


def end_member_sessions(session: Session, member_id: int) -> None:
    """Revoke every session of organiser member `member_id` (its revocation or a
    re-issued link): the rows go, so every process refuses the cookies."""
    repository.delete_member_sessions(session, member_id)


def session_alive(session: Session, sid: str, now: datetime) -> bool:
    """True while the session `sid` exists and has not expired."""
    return session_of(session, sid, now) is not None


def session_of(session: Session, sid: str, now: datetime) -> tuple[int, MemberInfo | None] | None:
    """(row id, its live member or None for the owner) of the session `sid`, or None when
    it does not exist, has expired or belongs to a revoked member."""
    row = repository.live_session(session, hash_token(sid), now)
    if row is None:
        return None
    row_id, member_id = row
    if member_id is None:
        return row_id, None
    member = live_member(session, member_id)
    return (row_id, member) if member is not None else None


def organiser_member(request: Request) -> MemberInfo | None:
    """The organiser member the guard found for this request (its live session cookie, or
    its `om_` bearer token), or None."""
    return getattr(request.state, MEMBER_FLAG, None)


def organiser_session_alive(request: Request) -> bool:
    """Whether the guard found this request's organiser session alive (False without one)."""
    return bool(getattr(request.state, SESSION_FLAG, False))


# -- the middleware ---------------------------------------------------------------------------


@contextmanager
def read_only_session(app: Any) -> Iterator[Session]:
    """A session for the guard's reads. On PostgreSQL its connection is in autocommit: the
    reads need no transaction, which saves the BEGIN and ROLLBACK round trips on every
    credentialed request (issue 24). SQLite: the app's ordinary session."""
    engine = app.state.engine
    if engine.dialect.name != "postgresql":
        with app.state.sessionmaker() as session:
            yield session
        return
    with engine.connect() as connection:
        reader = connection.execution_options(isolation_level="AUTOCOMMIT")
        with Session(bind=reader) as session:
            yield session


def presents_credential(scope: Scope) -> bool:
    """True when the request carries something that could be a guessed secret."""
    headers = dict(scope.get("headers") or [])
    if b"authorization" in headers or b"x-integration-key" in headers:
        return True
    path: str = scope.get("path", "")
    if path.startswith(CREDENTIAL_PATH_PREFIXES):
        return True
    if path == "/admin/login" and scope.get("method") == "POST":
        return True
    query: bytes = scope.get("query_string", b"")
    return query.startswith(b"token=") or b"&token=" in query


class ThrottleChecks:
    """The throttle checks of one process (one event loop), coalesced: a request waits
    for a check that starts after it arrived, and every request waiting meanwhile is
    answered by the same check (`retry_after_many`: one thread hop, one connection, one
    query for all of them) instead of one each (issue 24: a single take's cost). At low
    load a request's check starts at once; nothing waits for a timer."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.waiting: dict[str, list[asyncio.Future[int | None]]] = {}
        self.running = False

    async def retry_after(self, client: str) -> int | None:
        """`retry_after(client)` from a check started after this call (None: not
        throttled). Raises what the check raised (a database error)."""
        future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(client, []).append(future)
        if not self.running:
            self.running = True
            task = asyncio.create_task(self._run())
            _tasks.add(task)
            task.add_done_callback(_tasks.discard)
        return await future

    async def _run(self) -> None:
        try:
            while self.waiting:
                batch, self.waiting = self.waiting, {}
                try:
                    async with database_slots(self.app):
                        waits = await run_in_threadpool(self._check, list(batch))
                except Exception as exc:  # each waiting request raises it (503 or 500)
                    for futures in batch.values():
                        for future in futures:
                            if not future.done():
                                future.set_exception(exc)
                    continue
                for client, futures in batch.items():
                    for future in futures:
                        if not future.done():  # not cancelled (the client went away)
                            future.set_result(waits[client])
        finally:
            self.running = False

    def _check(self, clients: list[str]) -> dict[str, int | None]:
        settings = self.app.state.settings
        window = timedelta(seconds=settings.auth_failure_window_seconds)
        limit = settings.auth_failures_per_window
        with read_only_session(self.app) as session:
            return retry_after_many(session, clients, limit=limit, window=window, now=utcnow())


_tasks: set[asyncio.Task[None]] = set()  # running checks (asyncio keeps tasks weakly)


def throttle_checks(app: Any) -> ThrottleChecks:
    """The app's coalescing throttle checks of the running event loop (a process has one
    loop; tests may run several)."""
    per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ThrottleChecks] | None = getattr(
        app.state, "throttle_checks", None
    )
    if per_loop is None:
        per_loop = app.state.throttle_checks = weakref.WeakKeyDictionary()
    loop = asyncio.get_running_loop()
    checks = per_loop.get(loop)
    if checks is None:
        checks = per_loop[loop] = ThrottleChecks(app)
    return checks


def presents_member_token(request: Request) -> bool:
    """True when the request's bearer token is an organiser member's (`om_` prefix)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and token.strip().startswith(MEMBER_TOKEN_PREFIX)


def _organiser_of(
    session: Session, request: Request, sid: str | None, now: datetime
) -> tuple[bool, MemberInfo | None]:
    """(organiser session alive, its member) for the guard: the member of an `om_` bearer
    token wins over the cookie (a request never mixes two credentials)."""
    if presents_member_token(request):
        token = request.headers["authorization"].partition(" ")[2]
        member = member_by_token(session, token.strip())
        if member is not None:
            return False, MemberInfo(member.id, member.event_id, member.name, member.role)
    found = session_of(session, sid, now) if sid is not None else None
    if found is None:
        return False, None
    return True, found[1]


class SignInGuardMiddleware:
    """ASGI middleware: the throttle check and the organiser-session check before the
    route (one short database session under the process's database gate), the failure
    record before a failed response is sent.

    `session_id_of(request)` returns the organiser session id of a valid signed cookie
    (or None); the result of the check is `organiser_session_alive(request)`.
    `throttled_page(request, seconds)` is the pages' 429 (None: the API's problem only).
    Both are passed by `app.wiring.install`.
    """

    def __init__(
        self,
        app: ASGIApp,
        session_id_of: Callable[[Request], str | None],
        throttled_page: Callable[[Request, int], Response] | None = None,
    ) -> None:
        self.app = app
        self.session_id_of = session_id_of
        self.throttled_page = throttled_page

    def refusal(self, request: Request, wait: int) -> Response:
        """429 for a throttled address: the `throttled_page` for the pages, a
        `too_many_failures` problem for the API."""
        page = self.throttled_page
        if page is not None and not request.url.path.startswith(API_PREFIXES):
            return page(request, wait)
        return problem_response(
            429,
            "too_many_failures",
            f"Too many failed sign-in attempts from this address; try again in {wait} s.",
            headers={"Retry-After": str(wait)},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        app: Any = scope["app"]
        settings = app.state.settings
        request = Request(scope)
        client = (scope.get("client") or ("unknown", 0))[0][:CLIENT_MAX_LENGTH]
        credentialed = presents_credential(scope)
        sid = self.session_id_of(request)
        window = timedelta(seconds=settings.auth_failure_window_seconds)
        limit = settings.auth_failures_per_window
        if sid is not None or presents_member_token(request):
            # a page with an organiser cookie or a member's `om_` bearer: the throttle
            # check and the organiser (member) look-up in one session

            def check() -> tuple[int | None, bool, MemberInfo | None]:
                now = utcnow()
                with read_only_session(app) as session:
                    wait = (
                        retry_after(session, client, limit=limit, window=window, now=now)
                        if credentialed
                        else None
                    )
                    return (wait, *_organiser_of(session, request, sid, now))

            async with database_slots(app):
                wait, alive, member = await run_in_threadpool(check)
            setattr(request.state, SESSION_FLAG, alive)
            setattr(request.state, MEMBER_FLAG, member)
        else:
            wait = await throttle_checks(app).retry_after(client) if credentialed else None
        if wait is not None:
            await self.refusal(request, wait)(scope, receive, send)
            return
        if not credentialed:
            await self.app(scope, receive, send)
            return

        async def send_recording(message: Message) -> None:
            if message["type"] == "http.response.start" and (
                message["status"] == 401 or scope.get("state", {}).get(FAILED_FLAG)
            ):

                def record() -> None:
                    with app.state.sessionmaker() as session, session.begin():
                        record_failure(session, client, scope["path"], window=window, now=utcnow())

                async with database_slots(app):
                    await run_in_threadpool(record)
            await send(message)

        await self.app(scope, receive, send_recording)
