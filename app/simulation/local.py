"""Running the simulation in-process: the ASGI app on a throwaway SQLite database."""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

from app.core.config import Settings
from app.core.db import make_engine

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
IN_PROCESS_TOKEN = "simulation-organiser-token-0123456789"


def migrate(engine: Engine) -> None:
    """`alembic upgrade head` on `engine` (the repository's migrations)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["configure_logger"] = False
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def import_test_client() -> type[Any]:
    """fastapi's `TestClient` class, imported without Starlette's httpx deprecation warning.

    The simulation drives the app in process through `TestClient` (sync httpx on
    the ASGI app; httpx's own `ASGITransport` is async only). Starlette >= 1.x warns
    at that import, when the `httpx2` package is missing, that "Using `httpx` with
    `starlette.testclient` is deprecated; install `httpx2` instead": a note for test
    suites that `make run` and `rogaine-poker simulate` would print to every user.
    Only that warning is silenced, only for this import; everything else still shows.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore",
            message=r"Using `httpx` with `starlette\.testclient` is deprecated",
            category=UserWarning,  # StarletteDeprecationWarning is a UserWarning
        )
        from fastapi.testclient import TestClient
    return TestClient


@contextmanager
def in_process_client(database_url: str | None = None) -> Iterator[tuple[object, str]]:
    """A `TestClient` on a fresh app and the organiser token.

    With no `database_url`, the database is a new SQLite file in a temporary
    directory, migrated to head and deleted afterwards. Request logs are quiet.
    """
    from app.main import create_app

    TestClient = import_test_client()
    with tempfile.TemporaryDirectory(prefix="rogaine-sim-") as tmp:
        url = database_url or f"sqlite:///{Path(tmp) / 'simulation.db'}"
        settings = Settings(
            _env_file=None,
            environment="test",
            database_url=url,
            admin_token=IN_PROCESS_TOKEN,
            log_level="WARNING",
            data_dir=Path(tmp),
        )
        engine = make_engine(settings)
        try:
            migrate(engine)
            with TestClient(create_app(settings, engine)) as client:
                yield client, IN_PROCESS_TOKEN
        finally:
            engine.dispose()
