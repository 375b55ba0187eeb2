"""The connection budget (Settings.pool_size) and /readyz when the database refuses."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import text

from app.core.deps import database_concurrency
from app.main import create_app
from tests.conftest import make_settings
from tests.web.conftest import free_port

PG = "postgresql+psycopg://u@h/db"


def test_one_process_keeps_the_old_pool() -> None:
    settings = make_settings(PG)
    # (100 - 10) // (1 x 1) = 90 per process: the caps DB_POOL_SIZE 10 + DB_MAX_OVERFLOW 20 hold.
    assert settings.connections_per_process == 90
    assert (settings.pool_size, settings.pool_overflow) == (10, 20)
    assert database_concurrency(settings) == 30


def test_two_hosts_with_two_workers_fit_under_max_connections() -> None:
    settings = make_settings(PG, app_hosts=2, workers=2)
    # (100 - 10) // 4 = 22 per process: 1 LISTEN + pool 10 + overflow 11.
    assert settings.connections_per_process == 22
    assert (settings.pool_size, settings.pool_overflow) == (10, 11)
    # 4 processes x 22 = 88 <= 90 = max_connections - reserved.
    assert 4 * (1 + settings.pool_size + settings.pool_overflow) == 88


def test_many_processes_shrink_the_pool() -> None:
    settings = make_settings(PG, app_hosts=4, workers=4, db_max_connections=100)
    # (100 - 10) // 16 = 5: 1 LISTEN + pool 4 + overflow 0.
    assert (settings.connections_per_process, settings.pool_size, settings.pool_overflow) == (
        5,
        4,
        0,
    )
    assert database_concurrency(settings) == 4


def test_a_budget_without_room_is_refused_at_start() -> None:
    with pytest.raises(ValidationError, match=r"WORKERS 9\) = 1 connections per"):
        make_settings(PG, app_hosts=10, workers=9)  # 90 // 90 = 1: LISTEN only
    make_settings("sqlite:///x.db", app_hosts=10, workers=9)  # SQLite has no budget


def test_trusting_every_proxy_is_refused() -> None:
    with pytest.raises(ValidationError, match="FORWARDED_ALLOW_IPS must name the proxy"):
        make_settings("sqlite:///x.db", forwarded_allow_ips="*")
    assert make_settings("sqlite:///x.db").forwarded_allow_ips == "127.0.0.1"


def test_readyz_when_nothing_listens() -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nothing"
    with TestClient(create_app(make_settings(url))) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "database_unavailable"
    assert body["detail"] == (
        "The database refused a connection: nothing accepts connections at its address."
    )


def test_readyz_when_the_database_has_no_slot_left(pg_engine) -> None:
    """A role limited to 0 connections gets "too many connections" from PostgreSQL, as a
    full server answers every client."""
    role = f"full_{uuid.uuid4().hex[:8]}"
    with pg_engine.begin() as connection:
        connection.execute(text(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 0"))
    try:
        url = pg_engine.url.set(username=role, password=None)
        settings = make_settings(url.render_as_string(hide_password=False))
        with TestClient(create_app(settings)) as client:
            response = client.get("/readyz")
        assert response.status_code == 503
        body = response.json()
        assert body["code"] == "database_unavailable"
        assert body["detail"].startswith(
            "The database refused a connection: the server has no connection slot left"
        )
        assert "DB_MAX_CONNECTIONS - DB_RESERVED_CONNECTIONS" in body["detail"]
        assert role not in body["detail"]
    finally:
        with pg_engine.begin() as connection:
            connection.execute(text(f"DROP ROLE {role}"))


def test_serve_trusts_the_configured_proxy_and_runs_workers(monkeypatch, tmp_path) -> None:
    import uvicorn

    from app import cli
    from app.core.config import get_settings
    from tests.conftest import ADMIN_TOKEN

    calls: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: calls.append(kwargs))
    monkeypatch.setattr(cli, "load_demo_if_empty", lambda *a, **k: None)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'serve.db'}")
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ADMIN_TOKEN", ADMIN_TOKEN)
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.5")
    monkeypatch.setenv("WORKERS", "3")
    get_settings.cache_clear()
    try:
        cli.main(["serve", "--port", "8999"])
        cli.main(["serve", "--port", "8999", "--workers", "2"])
    finally:
        get_settings.cache_clear()
    assert [(c["forwarded_allow_ips"], c["workers"], c["proxy_headers"]) for c in calls] == [
        ("10.0.0.5", 3, True),
        ("10.0.0.5", 2, True),
    ]


def test_serve_says_phones_need_https(monkeypatch, tmp_path, capsys) -> None:
    import uvicorn

    from app import cli
    from app.core.config import get_settings
    from tests.conftest import ADMIN_TOKEN

    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    monkeypatch.setattr(cli, "load_demo_if_empty", lambda *a, **k: None)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'serve.db'}")
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ADMIN_TOKEN", ADMIN_TOKEN)
    monkeypatch.delenv("BASE_URL", raising=False)
    get_settings.cache_clear()
    try:
        cli.main(["serve", "--port", "8999"])
        assert cli.HTTPS_NOTE in capsys.readouterr().out
        monkeypatch.setenv("BASE_URL", "https://poker.example.org")
        get_settings.cache_clear()
        cli.main(["serve", "--port", "8999"])
        assert cli.HTTPS_NOTE not in capsys.readouterr().out
    finally:
        get_settings.cache_clear()
