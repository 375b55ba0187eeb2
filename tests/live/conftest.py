"""Live channel tests reuse the browser tests' uvicorn fixture (function-scoped).

The browser tests of the live pages live in tests/web, beside the one session-scoped
Chromium: importing `browser` here too would start a second Playwright in the same
thread, which Playwright's sync API refuses for every later browser test."""

from tests.web.conftest import live_server  # noqa: F401
