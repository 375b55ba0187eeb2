"""The migrations build the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect, select
from sqlalchemy.orm import Session

from app.auctions.models import Auction
from app.core.db import make_engine
from app.events.models import Event
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


OPENS = datetime(2026, 6, 12, 9, 0, tzinfo=UTC)
CLOSES = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)


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


def test_0006_freezes_the_feed_of_events_whose_auctions_were_opened(empty_engine: Engine) -> None:
    """Migration 0006 copies the earliest auction opening into `event.feed_frozen_at`;
    an event whose auctions never opened stays unfrozen."""
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0005")
        # Typed inserts (the tables' own column types), naming only columns 0005 has.
        event_row = {
            "name": "E",
            "opens_at": OPENS,
            "closes_at": CLOSES,
            "timezone": "UTC",
            "hand_ranking": "seed",
            "save_codes_per_participant": 10,
            "award_places": 3,
            "status": "course_closed",
        }
        connection.execute(
            Event.__table__.insert(), [{"id": 1, **event_row}, {"id": 2, **event_row}]
        )
        connection.execute(
            Auction.__table__.insert(),
            [
                {
                    "event_id": 1,
                    "place": 3,
                    "status": "closed",
                    "opened_at": CLOSES + timedelta(hours=2),
                },
                {
                    "event_id": 1,
                    "place": 2,
                    "status": "closed",
                    "opened_at": CLOSES + timedelta(hours=1),
                },
                {"event_id": 2, "place": 3, "status": "pending", "opened_at": None},
            ],
        )
        command.upgrade(alembic_config(connection), "0006")
    with Session(empty_engine) as session:  # only columns 0006 has (not the whole model)
        rows = session.execute(select(Event.id, Event.feed_frozen_at)).all()
        frozen = {event_id: frozen_at for event_id, frozen_at in rows}
    assert frozen == {1: CLOSES + timedelta(hours=1), 2: None}
