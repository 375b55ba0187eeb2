"""Deployment files: compose stack, Dockerfile, .env.example and README agree with Settings."""

from __future__ import annotations

import re

import yaml

from app.core.config import Settings
from tests.conftest import ROOT


def test_compose_services() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "app"}
    db = services["db"]
    assert db["image"] == "postgres:16"
    assert "pgdata:/var/lib/postgresql/data" in db["volumes"]
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert "pgdata" in compose["volumes"]
    app = services["app"]
    assert app["build"] == "."
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert app["ports"] == ["8000:8000"]
    env = app["environment"]
    assert env["DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@db:5432/" in env["DATABASE_URL"]
    assert {"ADMIN_TOKEN", "BASE_URL", "ENVIRONMENT"} <= set(env)


def test_dockerfile_runs_migrations_as_non_root() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.\d+-slim", dockerfile, re.M)
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.M)
    assert "alembic upgrade head" in dockerfile
    assert "--proxy-headers" in dockerfile


def test_every_setting_is_documented() -> None:
    example = (ROOT / ".env.example").read_text()
    readme = (ROOT / "README.md").read_text()
    for name in Settings.model_fields:
        variable = name.upper()
        assert re.search(rf"^#? ?{variable}=", example, re.M), f"{variable} not in .env.example"
        assert f"`{variable}`" in readme, f"{variable} not in README's configuration table"


def test_env_example_leaves_derived_settings_unset() -> None:
    """Copied to `.env`, the example must not pin what DATA_DIR, HOST and PORT derive:
    the SQLite file follows DATA_DIR and `make run` sets BASE_URL from HOST:PORT only
    when BASE_URL is unset."""
    example = (ROOT / ".env.example").read_text()
    for variable in ("DATABASE_URL", "BASE_URL"):
        assert not re.search(rf"^{variable}=", example, re.M), f"{variable} is set"
        assert re.search(rf"^# {variable}=", example, re.M), f"{variable} has no example"
