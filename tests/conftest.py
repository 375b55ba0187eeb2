"""Test fixtures: the service on a migrated database, SQLite and PostgreSQL.

Every test that asks for `engine` (directly or through `client`) runs twice:
on a fresh SQLite file copied from a migrated template, and on PostgreSQL when
`TEST_DATABASE_URL` is set (skipped with the reason otherwise). The PostgreSQL
database is migrated once per run and emptied after each test.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from fastapi import FastAPI
from fastapi.testclient import TestClient
from psycopg.errors import InsufficientPrivilege
from sqlalchemy import Engine, create_engine, make_url, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.db import make_engine, make_sessionmaker
from app.main import create_app
from app.models import Base
from tests import livecheck

livecheck.install()  # a write path that forgets `app.core.livelog.changed` fails its tests

ROOT = Path(__file__).resolve().parent.parent
ADMIN_TOKEN = "test-organiser-token-0123456789"
PG_SKIP_REASON = "TEST_DATABASE_URL is not set: PostgreSQL tests need a PostgreSQL server"


@functools.cache
def test_database_url() -> str | None:
    """The PostgreSQL URL of this run, normalised to psycopg 3, or None. Under
    pytest-xdist each worker gets its own database, `<name>_<worker>` (created on first
    use on the same server): the workers' truncations never meet."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        return None
    url = Settings(database_url=url).database_url
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    base = make_url(url)
    own = base.set(database=f"{base.database}_{worker}")
    server = create_engine(base, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        exists = connection.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": own.database}
        ).first()
        if exists is None:
            connection.execute(text(f'CREATE DATABASE "{own.database}"'))
    server.dispose()
    return own.render_as_string(hide_password=False)


test_database_url.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def alembic_config(connection=None) -> Config:
    """Alembic config for the repository's migrations, optionally on a given connection."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["configure_logger"] = False
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), revision)


def make_settings(database_url: str, **overrides) -> Settings:
    values = {
        "environment": "test",
        "database_url": database_url,
        "admin_token": ADMIN_TOKEN,
        "base_url": "http://testserver",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per run; tests get copies."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    engine = make_engine(make_settings(f"sqlite:///{path}"))
    migrate(engine)
    engine.dispose()  # closing the last connection checkpoints the WAL into the file
    assert not path.with_name(path.name + "-wal").exists()
    return path


@pytest.fixture(scope="session")
def pg_engine() -> Iterator[Engine]:
    """The run's PostgreSQL database, emptied and migrated to head once."""
    url = test_database_url()
    if url is None:
        pytest.skip(PG_SKIP_REASON)
    engine = make_engine(make_settings(url))
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    migrate(engine)
    yield engine
    engine.dispose()


# The sequences owned by a column (serial: 'a', identity: 'i'), back to their start value.
RESTART_OWNED_SEQUENCES = """
SELECT setval(s.seqrelid, s.seqstart, false)
FROM pg_sequence s JOIN pg_depend d ON d.objid = s.seqrelid AND d.deptype IN ('a', 'i')
"""


def truncate_all(engine: Engine) -> None:
    """Empty every table of the models and restart their id sequences (what `TRUNCATE ...
    RESTART IDENTITY` does). DELETE, children first, with triggers off for the transaction
    (the logs' append-only triggers refuse DELETE; needs a superuser, else TRUNCATE): on
    tables of a few rows it takes milliseconds where TRUNCATE (new files for 28 tables)
    takes 0.1-1 s, and it runs twice per PostgreSQL test."""
    tables = list(reversed(Base.metadata.sorted_tables))
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("SET LOCAL session_replication_role = replica")
            connection.exec_driver_sql("".join(f'DELETE FROM "{t.name}";' for t in tables))
            connection.execute(text(RESTART_OWNED_SEQUENCES))
    except DBAPIError as error:
        if not isinstance(error.orig, InsufficientPrivilege):
            raise
        names = ", ".join(f'"{t.name}"' for t in tables)
        with engine.begin() as connection:
            connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, empty database of each backend."""
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        engine = make_engine(make_settings(f"sqlite:///{path}"))
        yield engine
        engine.dispose()
    else:
        engine = request.getfixturevalue("pg_engine")
        truncate_all(engine)
        yield engine
        truncate_all(engine)


@pytest.fixture
def database_url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


@pytest.fixture
def app(settings: Settings, engine: Engine) -> FastAPI:
    return create_app(settings, engine)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def admin() -> dict[str, str]:
    """Headers of the organiser."""
    return {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session on the test database for direct setup and checks (commit yourself)."""
    with make_sessionmaker(engine)() as db_session:
        yield db_session
