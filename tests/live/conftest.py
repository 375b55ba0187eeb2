"""Live channel tests reuse the browser tests' uvicorn fixture."""

from tests.web.conftest import browser, desk, live_server, phone  # noqa: F401
