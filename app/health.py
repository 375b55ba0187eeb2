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


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "Database unreachable or not migrated"}})
def readyz(request: Request) -> JSONResponse:
    """The database is reachable and its schema is at the migration head."""
    engine: Engine = request.app.state.engine
    try:
        current = database_revisions(engine)
    except Exception as exc:  # any driver error means "not ready"
        return problem_response(
            503, "database_unavailable", f"Database unreachable: {exc.__class__.__name__}"
        )
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
