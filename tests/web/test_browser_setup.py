"""Issue 16 in Debian's Chromium: `/docs` renders the OpenAPI 3.1 schema with Swagger UI 5
and `/redoc` renders. (The setup pages are driven by the whole-event scenario in
test_browser_event.py: create, shuffle, hint, public list, CSV import, cards, settings.)
"""

from __future__ import annotations

import pytest

from tests.web.conftest import WAIT_MS, screenshot

pytestmark = pytest.mark.browser


def test_docs_render_the_openapi_schema_and_redoc_renders(live_server, desk):
    page = desk.new_page()
    page.goto(f"{live_server.url}/docs")
    operation = page.locator(".opblock-post .opblock-summary-path[data-path='/api/v1/events']")
    operation.first.wait_for(timeout=WAIT_MS)
    assert page.locator(".swagger-ui .version").first.inner_text().strip() == "0.1.0"
    assert "Unable to render this definition" not in page.inner_text("body")
    screenshot(page, "docs-swagger-1280")

    page.goto(f"{live_server.url}/redoc")
    page.locator("h2", has_text="Create Event").first.wait_for(timeout=WAIT_MS)
    assert page.locator("h1").first.inner_text().startswith("Rogaine Poker")
    screenshot(page, "docs-redoc-1280")
