"""Health probes, problem responses for framework errors, organiser auth."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.testclient import TestClient

from app.callers import OrganiserDep
from app.main import create_app
from tests.conftest import ADMIN_TOKEN, migrate


def test_healthz(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert len(response.headers["x-request-id"]) == 32


def test_request_id_is_echoed(client: TestClient) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"


def test_readyz_on_migrated_database(client: TestClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert body["revision"] == sorted(client.app.state.migration_heads)


def test_readyz_reports_pending_migrations(tmp_path) -> None:
    from tests.conftest import make_settings

    settings = make_settings(f"sqlite:///{tmp_path / 'empty.db'}")
    with TestClient(create_app(settings)) as client:
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "migrations_pending"
        migrate(client.app.state.engine)
        assert client.get("/readyz").status_code == 200


def test_docs_and_redoc_are_served_by_the_app(client: TestClient) -> None:
    import re

    for page in ("/docs", "/redoc"):
        html = client.get(page)
        assert html.status_code == 200
        # Every asset comes from this service (no CDN) and no script is inline (CSP 'self').
        sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html.text)
        assert sources and all(s.startswith("/") for s in sources), sources
        assert "<script>" not in html.text
        for source in sources:
            assert client.get(source).status_code == 200, source
    bundle = client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").text
    assert "5.32.0" in bundle[:2000] or '"5.32.0"' in bundle  # Swagger UI 5 reads OpenAPI 3.1
    schema = client.get("/openapi.json").json()
    assert schema["openapi"].startswith("3.1")
    assert "/healthz" in schema["paths"]


def test_404_is_a_problem(client: TestClient) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "not_found"
    assert body["status"] == 404
    assert set(body) >= {"type", "title", "status", "detail", "code"}


def test_405_is_a_problem(client: TestClient) -> None:
    response = client.post("/healthz")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def _app_with_probe_routes(settings, engine):
    app = create_app(settings, engine)
    router = APIRouter()

    @router.get("/probe/organiser")
    def organiser_only(_: OrganiserDep) -> dict[str, bool]:
        return {"ok": True}

    @router.get("/probe/crash")
    def crash() -> None:
        raise RuntimeError("secret internal detail")

    @router.get("/probe/number/{n}")
    def number(n: int) -> dict[str, int]:
        return {"n": n}

    app.include_router(router)
    return app


def test_organiser_auth(settings, engine) -> None:
    with TestClient(_app_with_probe_routes(settings, engine)) as client:
        missing = client.get("/probe/organiser")
        assert missing.status_code == 401
        assert missing.json()["code"] == "unauthorized"
        assert missing.headers["www-authenticate"] == "Bearer"
        wrong = client.get("/probe/organiser", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        basic = client.get("/probe/organiser", headers={"Authorization": f"Basic {ADMIN_TOKEN}"})
        assert basic.status_code == 401
        ok = client.get("/probe/organiser", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert ok.status_code == 200


def test_500_and_422_are_problems_without_traceback(settings, engine) -> None:
    app = _app_with_probe_routes(settings, engine)
    with TestClient(app, raise_server_exceptions=False) as client:
        crash = client.get("/probe/crash")
        assert crash.status_code == 500
        assert crash.headers["content-type"] == "application/problem+json"
        assert crash.json()["code"] == "internal_error"
        assert "secret internal detail" not in crash.text
        assert "Traceback" not in crash.text
        invalid = client.get("/probe/number/abc")
        assert invalid.status_code == 422
        body = invalid.json()
        assert body["code"] == "validation_error"
        assert body["errors"][0]["loc"] == ["path", "n"]


def test_invalid_json_body_is_a_clear_problem(client: TestClient) -> None:
    response = client.post(
        "/api/v1/poker/evaluate",
        content=b"{garbage",
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_error"
    assert body["detail"] == "The request body is not valid JSON."


def test_serve_turns_off_uvicorn_access_log(monkeypatch, tmp_path) -> None:
    """uvicorn's access log would print secret paths (/p/{token}); ours redacts them."""
    import uvicorn

    from app import cli
    from app.core.config import get_settings

    calls: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: calls.append(kwargs))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'serve.db'}")
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ADMIN_TOKEN", ADMIN_TOKEN)
    get_settings.cache_clear()
    try:
        monkeypatch.setattr(cli, "load_demo_if_empty", lambda *a, **k: None, raising=False)
        cli.main(["serve", "--port", "8999"])
    finally:
        get_settings.cache_clear()
    assert calls and calls[0]["access_log"] is False
