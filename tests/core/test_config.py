"""Settings: DATA_DIR holds the default SQLite file; an explicit DATABASE_URL wins."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from app.core.config import Settings
from app.core.db import make_engine
from tests.conftest import alembic_config


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No DATABASE_URL / DATA_DIR in the environment and no `.env` in the working directory."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_default_database_is_in_the_default_data_dir(clean_env: Path) -> None:
    assert Settings().database_url == "sqlite:///data/rogaine.db"


def test_data_dir_moves_the_sqlite_file(clean_env: Path, monkeypatch) -> None:
    monkeypatch.setenv("DATA_DIR", "/tmp/x")
    assert Settings().database_url == "sqlite:////tmp/x/rogaine.db"
    assert Settings(data_dir=Path("elsewhere")).database_url == "sqlite:///elsewhere/rogaine.db"


def test_data_dir_from_the_env_file(clean_env: Path) -> None:
    (clean_env / ".env").write_text("DATA_DIR=state\n")
    assert Settings().database_url == "sqlite:///state/rogaine.db"


def test_explicit_database_url_wins(clean_env: Path, monkeypatch) -> None:
    monkeypatch.setenv("DATA_DIR", "/tmp/x")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@h/db")
    assert Settings().database_url == "postgresql+psycopg://u@h/db"
    assert Settings(database_url="sqlite:///other.db").database_url == "sqlite:///other.db"


def test_engine_creates_the_data_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / "new" / "dir"
    engine = make_engine(Settings(_env_file=None, data_dir=data_dir))
    try:
        with engine.connect():
            pass
    finally:
        engine.dispose()
    assert (data_dir / "rogaine.db").exists()


def test_alembic_migrates_the_file_in_data_dir(clean_env: Path, monkeypatch) -> None:
    """`alembic upgrade head` (migrations/env.py) builds the database the service will open."""
    data_dir = clean_env / "state"
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    command.upgrade(alembic_config(), "head")
    engine = make_engine(Settings())
    try:
        assert inspect(engine).has_table("event")
    finally:
        engine.dispose()
    assert (data_dir / "rogaine.db").exists()
    assert not (clean_env / "data").exists()
