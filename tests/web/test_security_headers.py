"""Security headers on every response (app.core.headers): CSP, nosniff, referrer, HSTS."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.main import create_app
from tests.conftest import make_settings
from tests.factories import make_event
from tests.web.conftest import WAIT_MS, screenshot

STRICT = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def test_every_kind_of_response_carries_the_headers(client: TestClient, admin, session: Session):
    event = make_event(session)
    session.commit()
    responses = {
        "page": client.get("/admin/login"),
        "api": client.get(f"/api/v1/events/{event.id}"),
        "problem": client.get("/api/v1/events/999999"),
        "static": client.get("/static/app.css"),
        "redirect": client.get("/admin", follow_redirects=False),
    }
    assert [r.status_code for r in responses.values()] == [200, 200, 404, 200, 303]
    for kind, response in responses.items():
        assert response.headers["content-security-policy"] == STRICT, kind
        assert response.headers["x-content-type-options"] == "nosniff", kind
        assert response.headers["referrer-policy"] == "same-origin", kind
        assert "strict-transport-security" not in response.headers, kind  # http BASE_URL


def test_the_projector_may_be_framed_by_this_origin_only(client: TestClient, admin):
    response = client.get("/admin/events/1/projector/3", headers=admin)
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'self'" in policy and "script-src 'self';" in policy


def test_docs_get_a_policy_that_lets_swagger_ui_start(client: TestClient):
    for path in ("/docs", "/redoc"):
        policy = client.get(path).headers["content-security-policy"]
        assert "script-src 'self' 'unsafe-inline'" in policy
        assert "frame-ancestors 'none'" in policy


def test_hsts_when_the_base_url_is_https(engine):
    url = engine.url.render_as_string(hide_password=False)
    app = create_app(make_settings(url, base_url="https://poker.example"), engine)
    with TestClient(app) as client:
        assert client.get("/healthz").headers["strict-transport-security"] == "max-age=31536000"


@pytest.mark.browser
def test_docs_work_under_their_policy(live_server, desk):
    # desk reports any CSP violation in the console (tests/web/conftest.py: csp_watch).
    page = desk.new_page()
    page.goto(f"{live_server.url}/docs")
    # Swagger UI 5 renders the OpenAPI 3.1 schema under the docs policy: the API's title
    # (never Swagger UI 4's "Unable to render this definition" notice).
    page.wait_for_selector(".swagger-ui .info", timeout=WAIT_MS)
    assert page.locator(".swagger-ui .version-pragma").count() == 0
    screenshot(page, "docs-1280")
