"""Browser test fixtures: a real uvicorn server on a free port and Debian's Chromium.

`live_server` serves the app on 127.0.0.1 with the test database of `engine` (a
migrated SQLite copy, and PostgreSQL too when TEST_DATABASE_URL is set). Browser
tests are marked `browser` and skip, with the reason, when /usr/bin/chromium is
missing (.ci/run installs it).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from sqlalchemy import Engine

from app.main import create_app
from tests.conftest import ROOT, make_settings

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "test-artifacts"
# Waits are deadlines for a condition, not speed limits: on a loaded CI machine a page may
# take long; a generous deadline costs time only when something is broken.
WAIT_S = 120.0
WAIT_MS = int(WAIT_S * 1000)  # Playwright counts milliseconds
AXE_SKIP = "axe-core (axe.min.js from the PyPI package axe-playwright-python) is not installed"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveServer:
    url: str
    engine: Engine


@pytest.fixture
def live_server(engine: Engine) -> Iterator[LiveServer]:
    """The app under uvicorn in a background thread, on this test's database."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    settings = make_settings(engine.url.render_as_string(hide_password=False), base_url=url)
    config = uvicorn.Config(
        create_app(settings, engine), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S  # bounded wait for the socket
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    yield LiveServer(url, engine)
    server.should_exit = True
    thread.join(timeout=WAIT_S)


class Chromium:
    """The process's one headless Chromium, launched when a test first asks for it and
    stopped as soon as the next test does not (`pytest_runtest_teardown` below).

    A live sync Playwright marks the thread's asyncio loop as running (its dispatcher
    greenlet runs the loop), so while one is open `asyncio.run()` fails with "cannot be
    called from a running event loop" and another `sync_playwright()` with "using
    Playwright Sync API inside the asyncio loop". The browser tests of a file (and
    neighbouring browser files) share one launch; every other test meets no loop, in
    any order and on any pytest-xdist worker.
    """

    def __init__(self) -> None:
        self._playwright = None
        self._browser = None

    def get(self):
        """The running Chromium (`playwright.sync_api.Browser`), launched if needed."""
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
            )
        return self._browser

    def stop(self) -> None:
        """Close Chromium and stop Playwright (and its event loop); a no-op when stopped."""
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


CHROMIUM_SESSION = Chromium()


@pytest.fixture
def browser():
    """The headless Chromium (Debian's /usr/bin/chromium) shared by consecutive browser
    tests; see `Chromium` for why it does not outlive them."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing: apt-get install chromium (.ci/run does)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    return CHROMIUM_SESSION.get()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After a test's fixtures are torn down (its browser contexts closed), stop Chromium
    unless the next test asks for it too."""
    try:
        return (yield)
    finally:
        if nextitem is None or "browser" not in nextitem.fixturenames:
            CHROMIUM_SESSION.stop()


def pytest_sessionfinish() -> None:
    """Stop Chromium if a run ended early (`-x`, ^C) with a browser test."""
    CHROMIUM_SESSION.stop()


def new_context(browser, **options):
    """`browser.new_context(**options)` whose pages wait up to WAIT_MS for selectors,
    clicks and navigations (Playwright's own default is 30 s)."""
    context = browser.new_context(**options)
    context.set_default_timeout(WAIT_MS)
    context.set_default_navigation_timeout(WAIT_MS)
    return context


CSP_MESSAGE = "Content Security Policy"
EXTERNAL_LOAD = re.compile(r"Loading the \w+ 'https://(?!127\.0\.0\.1|localhost)")


@contextmanager
def csp_watch(context) -> Iterator[list[str]]:
    """Collect the console messages of every page of `context` that report a blocked
    resource, inline script or style (Chromium: "... violates the following Content
    Security Policy directive ..."); the test fails when there is one."""
    reported: list[str] = []

    def note(message) -> None:
        # A blocked load from another origin is the CSP doing its job (no CDN at run time;
        # ReDoc's sidebar logo comes from its CDN), not a broken page.
        if CSP_MESSAGE in message.text and not EXTERNAL_LOAD.match(message.text):
            reported.append(message.text)

    context.on("console", note)
    yield reported
    assert reported == [], f"CSP violations in the browser console: {reported}"


@pytest.fixture
def phone(browser):
    """A 360 px wide phone-like browser context (its own cookies), without service workers:
    the server-rendered pages (a phone without the offline mode; see test_browser_offline)."""
    context = new_context(
        browser,
        viewport={"width": 360, "height": 780},
        device_scale_factor=1,
        service_workers="block",
    )
    with csp_watch(context):
        yield context
    context.close()


@pytest.fixture
def desk(browser):
    """A 1280 px wide laptop browser context (its own cookies)."""
    context = new_context(browser, viewport={"width": 1280, "height": 800}, service_workers="block")
    with csp_watch(context):
        yield context
    context.close()


def wait_until(page, expression: str, timeout: float = WAIT_S) -> None:
    """Poll the JavaScript `expression` until it is truthy (AssertionError after `timeout`
    seconds). Unlike `page.wait_for_function`, whose string predicates are `eval`ed in
    the page, `page.evaluate` is not refused by the pages' CSP (no 'unsafe-eval')."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        page.wait_for_timeout(100)


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ (gitignored) and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def axe_script() -> Path | None:
    """axe.min.js as bundled by the PyPI package axe-playwright-python (no network)."""
    try:
        import axe_playwright_python
    except ImportError:
        return None
    path = Path(axe_playwright_python.__file__).parent / "axe.min.js"
    return path if path.exists() else None


def axe_violations(page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[dict]:
    """Run axe-core in the page; the violations of the given impacts (id, impact, nodes)."""
    script = axe_script()
    if script is None:  # the scenario still runs; only the accessibility check is left out
        warnings.warn(AXE_SKIP, stacklevel=2)
        return []
    page.evaluate(script.read_text(encoding="utf-8"))  # not a <script> tag: the CSP forbids it
    result = page.evaluate("async () => await axe.run(document)")
    found = [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [n["html"][:120] for n in v["nodes"][:3]],
        }
        for v in result["violations"]
        if v["impact"] in impacts
    ]
    if found:
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "axe-violations.json").write_text(json.dumps(found, indent=2))
    return found


# Page steps shared by the browser scenarios (test_browser_event, _course_ceremony, _scenario).


def check_page(page, name: str) -> None:
    """Screenshots at 1280 and 360 px, no serious or critical axe-core violation and no
    horizontal scrolling at 360 px; the page is left at 1280 px."""
    screenshot(page, f"{name}-1280")
    assert axe_violations(page) == [], name
    page.set_viewport_size({"width": 360, "height": 780})
    screenshot(page, f"{name}-360")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, name
    page.set_viewport_size({"width": 1280, "height": 800})


def sign_in_organiser(page, url: str, token: str) -> None:
    """Sign in on the organiser's login form that `url` redirects to; back on `url` after."""
    page.goto(url)
    page.fill("#token", token)
    page.get_by_role("button", name="Войти").click()
    page.wait_for_url(lambda address: "/admin/login" not in address)
    page.wait_for_load_state("load")  # the whole page parsed: counts of its parts are final


def confirm_code(page, code: str, button: str) -> None:
    """Type a code on the phone's "my game", check it, then confirm on the confirmation page."""
    page.goto(page.url.split("/me")[0].split("/t/")[0] + "/me")
    page.fill("#code", code)
    page.get_by_role("button", name="Проверить код").click()
    assert page.locator("h1").inner_text() == "Подтвердите"
    page.get_by_role("button", name=button).click()


def reveal_everything(page) -> None:
    """Press the projector's "show next" (a form: the server reveals the next step, RULES.md
    I-21) until it goes away; the step revealed last, which the page names in
    [data-reveal-latest], lies inside the 800 px screen each time."""
    button = page.locator("#reveal-next")
    for _ in range(30):
        if button.count() == 0:
            return
        button.click()
        page.wait_for_load_state()
        latest = page.locator("[data-reveal-latest]").get_attribute("data-reveal-latest")
        box = page.locator(f"#{latest}").bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 400) <= 800
    raise AssertionError("the reveal did not end")


def confirm_close(page) -> None:
    """On the ceremony page: "Закрыть аукцион…", then "Да, закрыть аукцион" on the
    confirmation page that says what will happen (the close leads to the projector)."""
    page.get_by_role("button", name="Закрыть аукцион…").click()
    assert "Что произойдёт" in page.inner_text("main")
    page.get_by_role("button", name="Да, закрыть аукцион").click()
