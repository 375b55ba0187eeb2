"""Liveness and readiness probes."""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import Engine, text

from app.core.problems import problem_response

router = APIRouter(tags=["health"])

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def migration_heads() -> set[str]:
    """Revision ids of the migration heads shipped with this code."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return set(ScriptDirectory.from_config(config).get_heads())


def database_revisions(engine: Engine) -> set[str]:
    """Revision ids the database is at (empty set for an unmigrated database)."""
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
        return set(MigrationContext.configure(connection).get_current_heads())


REFUSALS = (
    ("too many clients", "the server has no connection slot left (max_connections)"),
    ("too many connections", "the server has no connection slot left for this role or database"),
    ("connection refused", "nothing accepts connections at its address"),
    ("the database system is starting up", "the server is starting up"),
    ("the database system is shutting down", "the server is shutting down"),
    ("password authentication failed", "it refused the credentials of DATABASE_URL"),
    ("does not exist", "the database or role of DATABASE_URL does not exist"),
)


def unavailable_detail(exc: BaseException) -> str:
    """Why the database refused us, in words an operator can act on (no URL or password).

    Known PostgreSQL refusals are named (a full server says "too many clients"); anything
    else is reported by its exception class.
    """
    message = str(exc).lower()
    known = [meaning for marker, meaning in REFUSALS if marker in message]
    if not known:
        return f"The database is unreachable ({exc.__class__.__name__})."
    meaning = known[0]
    hint = ""
    if "slot" in meaning:
        hint = (
            " Check the connection budget: (DB_MAX_CONNECTIONS - DB_RESERVED_CONNECTIONS) //"
            " (APP_HOSTS x WORKERS) per process (README, Deploying for a real event)."
        )
    return f"The database refused a connection: {meaning}.{hint}"


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "Database unreachable or not migrated"}})
def readyz(request: Request) -> JSONResponse:
    """The database is reachable and its schema is at the migration head.

    503 `database_unavailable` (with why: e.g. no connection slot left) when the
    database refuses or does not answer; 503 `migrations_pending` when its schema is
    not at the head this code ships. A load balancer sends no traffic to a host
    answering 503.
    """
    engine: Engine = request.app.state.engine
    try:
        current = database_revisions(engine)
    except Exception as exc:  # any driver error means "not ready"
        return problem_response(503, "database_unavailable", unavailable_detail(exc))
    heads = request.app.state.migration_heads
    if current != heads:
        return problem_response(
            503,
            "migrations_pending",
            f"Database is at {sorted(current) or 'no revision'}, code expects {sorted(heads)}.",
        )
    return JSONResponse(
        {"status": "ready", "database": engine.dialect.name, "revision": sorted(current)}
    )
