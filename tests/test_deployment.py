"""Deployment files: compose stack, Dockerfile, .env.example and README agree with Settings."""

from __future__ import annotations

import re

import yaml

from app.core.config import Settings
from tests.conftest import ROOT


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_services() -> None:
    spec = compose()
    services = spec["services"]
    assert set(services) == {"db", "migrate", "app1", "app2", "proxy"}
    db = services["db"]
    assert db["image"] == "postgres:16"
    assert "pgdata:/var/lib/postgresql/data" in db["volumes"]
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert "pgdata" in spec["volumes"]
    assert services["migrate"]["command"] == ["alembic", "upgrade", "head"]
    for name in ("app1", "app2"):
        app = services[name]
        assert app["build"] == "."
        assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        env = app["environment"]
        assert env["DATABASE_URL"].startswith("postgresql+psycopg://")
        assert "@db:5432/" in env["DATABASE_URL"]
        assert {"ADMIN_TOKEN", "BASE_URL", "ENVIRONMENT"} <= set(env)
        assert env["BASE_URL"].startswith("https://")
        assert env["MIGRATE_AT_START"] == "0"  # the migrate service ran once before them
        assert env["APP_HOSTS"] == "2"


def test_only_the_proxy_is_published_and_only_it_is_trusted() -> None:
    services = compose()["services"]
    published = {name for name, service in services.items() if "ports" in service}
    assert published == {"proxy"}
    assert services["proxy"]["ports"] == ["80:80", "443:443"]
    assert services["proxy"]["image"].startswith("caddy:")
    proxy_address = services["proxy"]["networks"]["backend"]["ipv4_address"]
    for name in ("app1", "app2"):
        trusted = services[name]["environment"]["FORWARDED_ALLOW_IPS"]
        assert trusted == proxy_address
        assert "*" not in trusted
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy app1:8000 app2:8000" in caddyfile
    assert "tls {$TLS:internal}" in caddyfile and "{$DOMAIN:localhost}" in caddyfile
    assert "trusted_proxies" not in caddyfile  # Caddy overwrites a client's X-Forwarded-For


def test_dockerfile_runs_migrations_as_non_root() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.\d+-slim", dockerfile, re.M)
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.M)
    assert "alembic upgrade head" in dockerfile
    assert "--proxy-headers" in dockerfile


def test_dockerfile_trusts_forwarded_headers_from_the_proxy_only() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    instructions = [line for line in dockerfile.splitlines() if not line.startswith("#")]
    assert not any("*" in line for line in instructions)
    assert '--forwarded-allow-ips \\"${FORWARDED_ALLOW_IPS:-127.0.0.1}\\"' in dockerfile
    assert '--workers \\"${WORKERS:-1}\\"' in dockerfile


def test_every_setting_is_documented() -> None:
    example = (ROOT / ".env.example").read_text()
    table = (ROOT / "docs" / "configuration.md").read_text()
    for name in Settings.model_fields:
        variable = name.upper()
        assert re.search(rf"^#? ?{variable}=", example, re.M), f"{variable} not in .env.example"
        assert f"`{variable}`" in table, f"{variable} not in docs/configuration.md"


def test_env_example_leaves_derived_settings_unset() -> None:
    """Copied to `.env`, the example must not pin what DATA_DIR, HOST and PORT derive:
    the SQLite file follows DATA_DIR and `make run` sets BASE_URL from HOST:PORT only
    when BASE_URL is unset."""
    example = (ROOT / ".env.example").read_text()
    for variable in ("DATABASE_URL", "BASE_URL"):
        assert not re.search(rf"^{variable}=", example, re.M), f"{variable} is set"
        assert re.search(rf"^# {variable}=", example, re.M), f"{variable} has no example"
