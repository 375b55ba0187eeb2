"""The migrations build the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect

from app.core.db import make_engine
from app.health import migration_heads
from app.models import Base
from tests.conftest import PG_SKIP_REASON, alembic_config, make_settings, test_database_url


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_engine(request: pytest.FixtureRequest, tmp_path) -> Engine:
    if request.param == "sqlite":
        engine = make_engine(make_settings(f"sqlite:///{tmp_path / 'migrations.db'}"))
    else:
        url = test_database_url()
        if url is None:
            pytest.skip(PG_SKIP_REASON)
        request.getfixturevalue("pg_engine")  # the shared database exists and is at head
        engine = make_engine(make_settings(url))
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "base")
    yield engine
    with engine.begin() as connection:  # leave the shared database at head for other tests
        command.upgrade(alembic_config(connection), "head")
    engine.dispose()


def _schema_diff(engine: Engine) -> list:
    with engine.connect() as connection:
        return compare_metadata(MigrationContext.configure(connection), Base.metadata)


def _tables(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def test_single_head() -> None:
    assert len(migration_heads()) == 1


def test_upgrade_matches_models_and_downgrade_works(empty_engine: Engine) -> None:
    assert _tables(empty_engine) == set()
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
    assert _tables(empty_engine) == set(Base.metadata.tables)
    assert _schema_diff(empty_engine) == []

    with empty_engine.begin() as connection:
        command.downgrade(alembic_config(connection), "base")
    assert _tables(empty_engine) == set()

    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
    assert _schema_diff(empty_engine) == []
