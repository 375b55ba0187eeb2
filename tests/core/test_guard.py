"""Sign-in guard (app.core.guard): failed credentials throttled per client address in the
database, revocable organiser sessions, the production token length."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import Engine, func, select
from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session

from app.core import guard
from app.core.config import Settings
from app.core.models import AuthFailure
from app.main import create_app
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.factories import make_event, make_participant

LIMIT = 3
HERE = ("203.0.113.7", 40000)
THERE = ("198.51.100.9", 40000)
RU_PAGE = "Попробуйте снова через {seconds} с."
EN_PAGE = "Try again in {seconds} s."


def guarded_app(engine: Engine, **overrides):
    settings = make_settings(
        engine.url.render_as_string(hide_password=False),
        auth_failures_per_window=LIMIT,
        auth_failure_window_seconds=600,
        **overrides,
    )
    return create_app(settings, engine)


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match
    return match.group(1)


def login(client: TestClient, token: str):
    page = client.get("/admin/login")
    return client.post(
        "/admin/login",
        data={"token": token, "csrf_token": csrf_of(page.text), "next": "/admin"},
        follow_redirects=False,
    )


def assert_throttled(response, page: str | None = None) -> None:
    """429 with Retry-After: a problem for the API, the page in the right language for pages."""
    assert response.status_code == 429, response.text
    # 3 failures in the last 600 s: the oldest frees an attempt ~600 s after it.
    wait = int(response.headers["retry-after"])
    assert 590 <= wait <= 600
    if page is None:
        assert response.json()["code"] == "too_many_failures"
    else:
        assert response.headers["content-type"].startswith("text/html")
        assert page.format(seconds=wait) in response.text


def test_wrong_organiser_tokens_at_the_sign_in_form_are_throttled_per_address(engine: Engine):
    first, second = guarded_app(engine), guarded_app(engine)  # two processes, one database
    with TestClient(first, client=HERE) as here, TestClient(second, client=HERE) as again:
        for client in (here, again, here):
            assert "error=1" in login(client, "wrong-token").headers["location"]
        assert_throttled(login(again, "wrong-token"), RU_PAGE)
        # The right token from the throttled address is refused too (no guessing oracle).
        assert_throttled(login(here, ADMIN_TOKEN), RU_PAGE)
    with TestClient(second, client=THERE) as there:
        assert login(there, ADMIN_TOKEN).status_code == 303
        assert there.get("/admin", follow_redirects=False).status_code == 200


def test_wrong_bearer_tokens_are_throttled_and_other_addresses_still_work(engine: Engine):
    app = guarded_app(engine)
    wrong = {"Authorization": "Bearer not-the-organiser-token"}
    right = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with TestClient(app, client=HERE) as here, TestClient(app, client=THERE) as there:
        for _ in range(LIMIT):
            assert here.get("/api/v1/events", headers=wrong).status_code == 401
        assert_throttled(here.get("/api/v1/events", headers=wrong))
        assert_throttled(here.get("/api/v1/events", headers=right))
        assert there.get("/api/v1/events", headers=right).status_code == 200
        # Requests without a credential are not throttled (public endpoints, pages).
        assert here.get("/healthz").status_code == 200


def test_a_wrong_bearer_on_a_public_endpoint_counts(engine: Engine, session: Session):
    event = make_event(session)
    participant = make_participant(session, event, "101")
    session.commit()
    app = guarded_app(engine)
    url = f"/api/v1/events/{event.id}/checkpoints"
    with TestClient(app, client=HERE) as here:
        # A participant's own token is no failure on a public endpoint.
        mine = {"Authorization": f"Bearer {participant.access_token}"}
        for _ in range(LIMIT + 1):
            assert here.get(url, headers=mine).status_code == 200
        # The public view answers a wrong token (200) but counts it.
        for _ in range(LIMIT):
            assert here.get(url, headers={"Authorization": "Bearer guess"}).status_code == 200
        assert_throttled(here.get(url, headers={"Authorization": "Bearer guess"}))


def test_unknown_personal_links_are_throttled(engine: Engine, session: Session):
    event = make_event(session)
    participant = make_participant(session, event, "101")
    session.commit()
    app = guarded_app(engine)
    with TestClient(app, client=HERE) as here, TestClient(app, client=THERE) as there:
        for n in range(LIMIT):
            assert here.get(f"/p/guess-{n}").status_code == 404
        assert_throttled(here.get("/p/guess-x"), RU_PAGE)
        here.cookies.set("lang", "en")
        right = here.get(f"/p/{participant.access_token}", follow_redirects=False)
        assert_throttled(right, EN_PAGE)
        signed_in = there.get(f"/p/{participant.access_token}", follow_redirects=False)
        assert signed_in.status_code == 303


def test_wrong_integration_keys_are_throttled(engine: Engine, session: Session):
    event = make_event(session)
    session.commit()
    app = guarded_app(engine)
    url = f"/api/v1/events/{event.id}/takes"
    body = {"takes": []}
    with TestClient(app, client=HERE) as here:
        for n in range(LIMIT):
            response = here.post(url, json=body, headers={"X-Integration-Key": f"rpk_{n}"})
            assert response.status_code == 401
        assert_throttled(here.post(url, json=body, headers={"X-Integration-Key": "rpk_x"}))
    assert session.scalar(select(func.count()).select_from(AuthFailure)) == LIMIT
    session.commit()


def test_the_window_slides(session: Session):
    now = datetime(2026, 6, 13, 12, 0, tzinfo=UTC)
    window = timedelta(minutes=5)
    for minutes_ago in (6, 4, 3, 1):  # the first is outside the window
        at = now - timedelta(minutes=minutes_ago)
        guard.record_failure(session, "a", "/p/x", window=timedelta(hours=1), now=at)
    session.flush()

    def wait(limit: int, client: str = "a") -> int | None:
        return guard.retry_after(session, client, limit=limit, window=window, now=now)

    assert wait(4) is None  # 3 failures inside the window
    assert wait(3) == 60  # the one of 4 min ago leaves the window in 1 min
    assert wait(2) == 120  # two must leave: the second, 3 min ago, in 2 min
    assert wait(1, client="b") is None
    # Recording purges the failures older than the window (of every client).
    guard.record_failure(session, "b", "/p/y", window=window, now=now)
    session.flush()
    assert session.scalar(select(func.count()).select_from(AuthFailure)) == 4
    assert wait(1, client="b") == 300
    session.rollback()


def test_concurrent_checks_share_one_query(engine: Engine, session: Session):
    """Checks that wait together are answered by one counting query (issue 24), each
    with its own address's answer: HERE has LIMIT failures, THERE none."""
    now = datetime.now(UTC)
    for minutes_ago in (3, 2, 1):
        at = now - timedelta(minutes=minutes_ago)
        guard.record_failure(session, HERE[0], "/p/x", window=timedelta(hours=1), now=at)
    session.commit()
    app = guarded_app(engine)
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if "auth_failure" in statement:
            statements.append(statement)

    async def five_checks():
        checks = guard.throttle_checks(app)
        addresses = [HERE[0], THERE[0], HERE[0], THERE[0], HERE[0]]
        return await asyncio.gather(*(checks.retry_after(a) for a in addresses))

    sa_event.listen(engine, "before_cursor_execute", record)
    try:
        waits = asyncio.run(five_checks())
    finally:
        sa_event.remove(engine, "before_cursor_execute", record)
    # The oldest of HERE's 3 failures (3 min ago) frees an attempt in 600 - 180 s.
    assert all(wait is not None and 415 <= wait <= 420 for wait in waits[::2])
    assert waits[1::2] == [None, None]
    # One count for all five, one look-up of when HERE's oldest failure ages out.
    assert len(statements) == 2
    assert "count(" in statements[0]
    assert "count(" not in statements[1]


def test_logout_revokes_the_organiser_session_everywhere(engine: Engine):
    first, second = guarded_app(engine), guarded_app(engine)
    with TestClient(first) as browser:
        assert login(browser, ADMIN_TOKEN).status_code == 303
        cookie = browser.cookies.get("rp_organiser")
        with TestClient(second, cookies={"rp_organiser": cookie}) as copy:
            assert copy.get("/api/v1/events").status_code == 200
            logout_csrf = csrf_of(browser.get("/admin").text)
            browser.post("/admin/logout", data={"csrf_token": logout_csrf})
            # The old cookie, replayed in another process, no longer works.
            assert copy.get("/api/v1/events").status_code == 401
            assert copy.get("/admin", follow_redirects=False).status_code == 303


@pytest.mark.parametrize("length", [16, 31])
def test_production_refuses_an_organiser_token_shorter_than_32(length: int):
    with pytest.raises(ValidationError, match="at least 32 characters"):
        Settings(
            _env_file=None,
            environment="production",
            admin_token="k" * length,
            base_url="https://poker.example.org",
        )


def test_production_accepts_an_organiser_token_of_32():
    settings = Settings(
        _env_file=None,
        environment="production",
        admin_token="k" * 32,
        base_url="https://poker.example.org",
    )
    assert settings.admin_token == "k" * 32
