"""The production rehearsal (issue 27): Caddy terminating TLS (`tls internal`) in front of
two uvicorn app hosts on one PostgreSQL (`deploy/rehearsal.py`), over HTTPS.

- the client address the proxy saw reaches the sign-in throttle; a spoofed
  `X-Forwarded-For` is ignored; the count is shared by both hosts;
- a phone in Chromium (trusting Caddy's root) installs the service worker over HTTPS,
  plays offline and syncs when the network is back;
- a live stream survives `kill -9` of the host serving it: it reconnects through the
  proxy with `Last-Event-ID` to the other host and ends with the database's state.

Marked `rehearsal`; runs in `make test` when TEST_DATABASE_URL is PostgreSQL and
/usr/bin/caddy exists (`.ci/run` installs caddy and libnss3-tools). Waits are for
conditions, with generous deadlines (no timing thresholds).
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import AuthFailure, LiveVersion
from app.feed.models import Take
from deploy.rehearsal import CADDY, CERTUTIL, Rehearsal, wait_for
from tests import conftest
from tests.conftest import PG_SKIP_REASON, truncate_all
from tests.factories import make_event, make_participant
from tests.live.test_stream import ceremony_event
from tests.offline.test_offline_api import random_codes
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, screenshot

pytestmark = pytest.mark.rehearsal

FAILURES_ALLOWED = 5  # AUTH_FAILURES_PER_WINDOW of the rehearsal's hosts
DEADLINE = 120.0  # seconds, for conditions (a loaded CI machine is slow)


@pytest.fixture(scope="module")
def rehearsal(pg_engine, tmp_path_factory) -> Iterator[Rehearsal]:
    """Caddy + two hosts on the run's PostgreSQL database, for this module."""
    if conftest.test_database_url() is None:
        pytest.skip(PG_SKIP_REASON)
    if not Path(CADDY).exists():
        pytest.skip("caddy is missing: apt-get install caddy (.ci/run does)")
    truncate_all(pg_engine)
    url = pg_engine.url.render_as_string(hide_password=False)
    env = {"AUTH_FAILURES_PER_WINDOW": str(FAILURES_ALLOWED)}
    workdir = tmp_path_factory.mktemp("rehearsal")  # Caddyfile, CA, logs
    with Rehearsal(url, env=env, workdir=workdir) as running:
        yield running
    truncate_all(pg_engine)


def from_address(rehearsal: Rehearsal, address: str, **kwargs) -> httpx.Client:
    """A client of the proxy whose connections come from the loopback `address`."""
    transport = httpx.HTTPTransport(verify=rehearsal.ssl_context(), local_address=address)
    return httpx.Client(base_url=rehearsal.url, transport=transport, timeout=60, **kwargs)


def test_the_proxy_client_address_reaches_the_throttle_not_a_spoofed_one(
    rehearsal, pg_engine
) -> None:
    wrong = {"Authorization": "Bearer not-the-organiser-token"}
    right = {"Authorization": f"Bearer {rehearsal.admin_token}"}
    guesser = from_address(rehearsal, "127.0.0.3")
    victim = from_address(rehearsal, "127.0.0.2")
    served_by = set()
    for attempt in range(FAILURES_ALLOWED):
        # Each guess claims another address, the last ones the victim's.
        spoofed = "127.0.0.2" if attempt % 2 else f"203.0.113.{attempt + 1}"
        response = guesser.get("/api/v1/events", headers={**wrong, "X-Forwarded-For": spoofed})
        assert response.status_code == 401
        served_by.add(response.headers["x-served-by"])
    assert served_by == {host.address for host in rehearsal.app_hosts}  # both hosts counted
    refused = guesser.get("/api/v1/events", headers={**wrong, "X-Forwarded-For": "198.51.100.7"})
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_failures"
    # The right token from the guesser's address is refused too; the victim is not locked out.
    assert guesser.get("/api/v1/events", headers=right).status_code == 429
    assert victim.get("/api/v1/events", headers=right).status_code == 200
    with Session(pg_engine) as db:
        clients = db.scalars(select(AuthFailure.client)).all()
    assert clients == ["127.0.0.3"] * FAILURES_ALLOWED
    assert rehearsal.client().get("/").url.scheme == "https"


@dataclass
class Listener:
    """One live stream through the proxy, read by a thread (as the browser's EventSource)."""

    client: httpx.Client
    path: str
    last_event_id: str | None = None
    messages: queue.Queue = field(default_factory=queue.Queue)
    served_by: str | None = None
    opened: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)

    def start(self) -> Listener:
        threading.Thread(target=self._run, daemon=True).start()
        assert self.opened.wait(DEADLINE), "the stream did not open"
        return self

    def _run(self) -> None:
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        event, ident, data = "message", None, []
        try:
            with self.client.stream("GET", self.path, headers=headers) as response:
                self.served_by = response.headers.get("x-served-by")
                self.opened.set()
                for line in response.iter_lines():
                    if line == "" and data:
                        self.messages.put((event, ident, json.loads("\n".join(data))))
                        event, ident, data = "message", None, []
                    elif line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("id:"):
                        ident = line[3:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].lstrip())
        except httpx.HTTPError:
            pass
        finally:
            self.opened.set()
            self.ended.set()

    def until(self, predicate) -> tuple[str, str | None, dict]:
        while True:
            message = self.messages.get(timeout=DEADLINE)
            if predicate(message):
                return message


def test_a_live_stream_survives_kill_9_of_its_host(rehearsal, pg_engine) -> None:
    event_id, *_ = ceremony_event(pg_engine)
    organiser = rehearsal.client(headers={"Authorization": f"Bearer {rehearsal.admin_token}"})
    phone = rehearsal.client()
    path = f"/api/v1/events/{event_id}/live?counts=false"
    first = Listener(phone, path).start()
    assert first.until(lambda m: m[0] == "hello")[2]["version"] == 0
    last_id = first.until(lambda m: m[0] == "event")[1]
    assert last_id == "0"
    dead = next(h for h in rehearsal.app_hosts if h.address == first.served_by)

    rehearsal.kill(dead.index)  # kill -9 of the host serving the stream
    assert first.ended.wait(DEADLINE), "the proxy did not end the stream of the dead host"
    # Meanwhile the organiser opens the auction for 3rd place (the proxy retries the
    # dead host's connection on the other one).
    opened = organiser.post(f"/api/v1/events/{event_id}/auctions/3/open")
    assert opened.status_code == 200, opened.text

    # The phone reconnects as EventSource does: same URL, Last-Event-ID of its last message.
    second = Listener(phone, path, last_event_id=last_id).start()
    assert second.served_by != dead.address and second.served_by is not None
    kind, ident, data = second.until(lambda m: m[0] == "auction")
    assert (kind, data["place"], data["status"], data["round"]) == ("auction", 3, "open", 1)
    with Session(pg_engine) as db:
        version = db.scalar(select(LiveVersion.version).where(LiveVersion.event_id == event_id))
    assert ident == str(version) == "1"
    auction = organiser.get(f"/api/v1/events/{event_id}/auctions/3").json()
    assert (auction["status"], auction["round"]) == (data["status"], data["round"])

    rehearsal.start_host(dead.index)  # the host comes back; both serve again
    seen: set[str] = set()
    wait_for(
        lambda: seen.add(phone.get("/healthz").headers["x-served-by"]) or len(seen) == 2,
        "both hosts behind the proxy again",
    )


@pytest.fixture
def trusting_browser(rehearsal, tmp_path):
    """Debian's Chromium whose NSS database (in its own HOME) trusts Caddy's root."""
    if not CHROMIUM.exists() or not Path(CERTUTIL).exists():
        pytest.skip("chromium and certutil (libnss3-tools) are needed: .ci/run installs them")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    rehearsal.trust_in_nss(tmp_path)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env={"HOME": str(tmp_path)}
        )
        yield browser
        browser.close()


def takes_stored(engine, participant_id: int) -> int:
    with Session(engine) as db:
        query = select(func.count()).select_from(Take).where(Take.participant_id == participant_id)
        return db.scalar(query)


def test_a_phone_installs_the_service_worker_over_https_and_plays_offline(
    rehearsal, pg_engine, trusting_browser
) -> None:
    with Session(pg_engine) as db:
        event = make_event(db, name="Rehearsal")
        codes = random_codes(db, event)
        vera = make_participant(db, event, "77", name="Вера")
        db.commit()
    context = trusting_browser.new_context(viewport={"width": 360, "height": 780})
    page = context.new_page()
    page.goto(f"{rehearsal.url}/p/{vera.access_token}")  # a certificate error would raise
    assert page.url == f"{rehearsal.url}/me"
    page.wait_for_selector("html[data-offline=ready]", timeout=DEADLINE * 1000)
    assert page.evaluate("window.isSecureContext") is True
    assert page.evaluate("navigator.serviceWorker.controller !== null") is True
    screenshot(page, "rehearsal-360-me-ready")

    rehearsal.stop_proxy()  # the phone loses the network
    try:
        page.goto(f"{rehearsal.url}/t/{codes['QH'][0]}")
        page.wait_for_selector("#take-status")
        assert page.locator("h1").inner_text() == "Взятие засчитано"
        assert page.locator("#big-card").inner_text() == "Q♥"
        assert page.locator("#queue-count").get_attribute("data-count") == "1"
        screenshot(page, "rehearsal-360-offline-take")
        assert takes_stored(pg_engine, vera.id) == 0
    finally:
        rehearsal.start_proxy()  # the network is back: the phone's retry sends the queue
    page.wait_for_selector("#queue-count[data-count='0']", timeout=DEADLINE * 1000)
    assert takes_stored(pg_engine, vera.id) == 1
    context.close()

    # The same participant on a laptop, over HTTPS: the server has the synced take.
    laptop = trusting_browser.new_context(viewport={"width": 1280, "height": 800})
    page = laptop.new_page()
    page.goto(f"{rehearsal.url}/p/{vera.access_token}")
    page.wait_for_selector("html[data-offline=ready]", timeout=DEADLINE * 1000)
    assert page.evaluate("window.isSecureContext") is True
    assert "Рука (1 из 5)" in page.inner_text("main") and "Q♥" in page.inner_text("main")
    screenshot(page, "rehearsal-1280-me-synced")
    laptop.close()


def test_the_proxy_answers_https_only_with_its_certificate(rehearsal) -> None:
    with (
        contextlib.closing(httpx.Client(verify=True, timeout=30)) as stranger,
        pytest.raises(httpx.ConnectError),
    ):
        stranger.get(f"{rehearsal.url}/healthz")  # not trusted without Caddy's root
    assert rehearsal.client().get("/healthz").json() == {"status": "ok"}
