"""A deadlock victim is run again; a busy or unreachable database is a 503 problem
(`app.core.retry`, issue 24)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from sqlalchemy import exc as sa_exc

from app.core.problems import install_error_handlers
from app.core.retry import ATTEMPTS, DatabaseRetryMiddleware, classify
from app.main import create_app
from tests.conftest import make_settings


class DriverError(Exception):
    def __init__(self, sqlstate: str | None, message: str = "driver error") -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def operational(sqlstate: str | None, message: str = "driver error") -> sa_exc.OperationalError:
    return sa_exc.OperationalError("SELECT 1", {}, DriverError(sqlstate, message))


def failing_app(failures: int, error: Exception) -> tuple[FastAPI, list[bytes]]:
    """An app whose POST /echo raises `error` `failures` times, then echoes its body."""
    app = FastAPI()
    install_error_handlers(app)
    app.add_middleware(DatabaseRetryMiddleware)
    bodies: list[bytes] = []

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, str]:
        bodies.append(await request.body())
        if len(bodies) <= failures:
            raise error
        return {"body": bodies[-1].decode()}

    return app, bodies


def test_a_deadlock_victim_runs_again_with_the_same_body() -> None:
    app, bodies = failing_app(2, operational("40P01", "deadlock detected"))
    response = TestClient(app).post("/echo", content=b'{"bid": 7}')
    assert response.status_code == 200
    assert response.json() == {"body": '{"bid": 7}'}
    assert bodies == [b'{"bid": 7}'] * 3  # two victims, then stored


def test_a_serialization_failure_that_persists_is_503_database_busy() -> None:
    app, bodies = failing_app(99, operational("40001", "could not serialize access"))
    response = TestClient(app, raise_server_exceptions=False).post("/echo", content=b"x")
    assert response.status_code == 503
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "database_busy"
    assert response.headers["retry-after"] == "1"
    assert len(bodies) == ATTEMPTS


def test_other_errors_are_not_retried() -> None:
    app, bodies = failing_app(1, operational("23505", "duplicate key"))
    response = TestClient(app, raise_server_exceptions=False).post("/echo", content=b"x")
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
    assert len(bodies) == 1


def test_classification() -> None:
    assert classify(operational("40P01")) == "busy"
    assert classify(operational(None, "database is locked")) == "busy"
    assert classify(operational(None, "connection refused")) == "unavailable"
    assert classify(operational("08006")) == "unavailable"
    assert classify(operational("57P01")) == "unavailable"
    assert classify(operational("53300", "sorry, too many clients already")) == "stale"
    assert classify(sa_exc.TimeoutError("QueuePool limit")) == "unavailable"
    assert classify(operational("23505")) is None
    dropped = operational(None, "server closed the connection unexpectedly")
    dropped.connection_invalidated = True
    assert classify(dropped) == "stale"
    assert classify(ValueError("x")) is None


def test_an_unreachable_database_is_503_database_unavailable() -> None:
    # port 9 (discard): nothing listens there, the connection is refused at once
    url = "postgresql+psycopg://postgres@127.0.0.1:9/nowhere?connect_timeout=5"
    app = create_app(make_settings(url))
    response = TestClient(app, raise_server_exceptions=False).get(
        "/api/v1/events", headers={"Authorization": "Bearer " + app.state.settings.admin_token}
    )
    assert response.status_code == 503, response.text
    assert response.json()["code"] == "database_unavailable"
    assert response.headers["content-type"].startswith("application/problem+json")
