"""Service configuration: one pydantic-settings class, read from the environment and `.env`."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATA_DIR = Path("data")
SQLITE_FILE = "rogaine.db"
ADMIN_TOKEN_MIN_LENGTH = 32  # characters, in production
PLACEHOLDER_SECRETS = {"", "changeme", "change-me", "secret", "admin"}
LISTEN_CONNECTIONS = 1  # per process on PostgreSQL: app.live.listener's LISTEN connection
MIN_CONNECTIONS_PER_PROCESS = LISTEN_CONNECTIONS + 1


def base_url_problems(base_url: str) -> list[str]:
    """Why printed QR codes with `base_url` would fail on a phone in the field (issue 26
    point 7): `loopback` (localhost, 127.0.0.0/8, ::1), `private` (a private, link-local or
    unspecified address, or a `.local` name), `http` (no TLS: phones refuse the camera
    and service workers). Empty: an https address on a public name."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    problems = []
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if host == "localhost" or host.endswith(".localhost") or (address and address.is_loopback):
        problems.append("loopback")
    elif host.endswith(".local") or (
        address and (address.is_private or address.is_link_local or address.is_unspecified)
    ):
        problems.append("private")
    if parts.scheme != "https":
        problems.append("http")
    return problems


class Settings(BaseSettings):
    """All settings of the service. Each field is documented in `.env.example` and README."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    environment: Literal["development", "production", "test"] = "development"
    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_DATA_DIR / SQLITE_FILE}",
        description="SQLAlchemy URL; when unset, the SQLite file DATA_DIR/rogaine.db.",
    )
    admin_token: str | None = None
    secret_key: str | None = Field(
        default=None,
        description="Key that signs session cookies; derived from ADMIN_TOKEN when unset.",
    )
    base_url: str = "http://127.0.0.1:8000"
    log_level: str = "INFO"
    log_format: Literal["text", "json"] = "text"
    cors_origins: Annotated[list[str], NoDecode] = []
    data_dir: Path = DEFAULT_DATA_DIR
    host: str = "127.0.0.1"
    port: int = 8000
    forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        description="Comma-separated addresses (or networks) of the reverse proxy whose "
        "X-Forwarded-For / X-Forwarded-Proto the app believes; never '*'.",
    )
    app_hosts: int = Field(default=1, ge=1, description="App hosts sharing the database.")
    workers: int = Field(default=1, ge=1, description="Worker processes of each app host.")
    db_max_connections: int = Field(
        default=100, ge=1, description="PostgreSQL's `max_connections`."
    )
    db_reserved_connections: int = Field(
        default=10,
        ge=0,
        description="Connections left to everything else: superusers, migrations, backups, psql.",
    )
    db_pool_size: int = Field(
        default=10, ge=1, description="At most this many connections kept per process."
    )
    db_max_overflow: int = Field(
        default=20, ge=0, description="At most this many extra connections per process."
    )
    db_pool_pre_ping: bool = Field(
        default=False,
        description="Test each pooled PostgreSQL connection with a round trip before use. "
        "Off: a connection the server dropped fails its request once (503 "
        "`database_unavailable`) and the pool is renewed; connections are recycled "
        "after DB_POOL_RECYCLE_SECONDS.",
    )
    db_pool_recycle_seconds: int = Field(default=1800, ge=-1)
    feed_batch_max_takes: int = Field(
        default=1000,
        ge=1,
        description="Takes of concurrent deliveries stored together in one transaction.",
    )
    feed_batch_concurrency: int = Field(
        default=1,
        ge=1,
        description="Transactions of combined deliveries one process runs at once per event.",
    )
    feed_clock_tolerance_seconds: float = Field(
        default=30,
        ge=0,
        description="A batch whose `sent_at` is further than this from the server clock has "
        "its takes' times corrected by the device's offset.",
    )
    phone_clock_jump_seconds: float = Field(
        default=300,
        ge=0,
        description="A phone batch whose clock offset differs from the device's previous "
        "contact by more than this is listed for the organiser's review (RULES.md I-22).",
    )
    phone_clock_review_seconds: float = Field(
        default=7200,
        ge=0,
        description="A phone batch whose clock offset is larger than this is listed for the "
        "organiser's review (RULES.md I-22).",
    )
    feed_signature_max_age_seconds: int = Field(
        default=86400,
        ge=1,
        description="How far a signed delivery's `X-Signature-Timestamp` may be from the "
        "server clock (redeliveries store nothing, so a wide window is safe).",
    )
    scan_unknown_codes_per_minute: int = Field(
        default=10,
        description="Unknown codes a participant may scan per minute before 429 (code guessing).",
    )
    auth_failures_per_window: int = Field(
        default=20,
        ge=1,
        description="Failed credentials one client address may send per window before 429.",
    )
    auth_failure_window_seconds: int = Field(
        default=300,
        ge=1,
        description="Length of the sliding window of AUTH_FAILURES_PER_WINDOW, in seconds.",
    )
    json_body_max_bytes: int = Field(
        default=1_048_576,
        ge=1,
        description="Largest JSON request body, in bytes: a larger one is refused with 413 "
        "before it is read or parsed (the archive import has its own limit).",
    )
    archive_body_max_bytes: int = Field(
        default=268_435_456,
        ge=1,
        description="Largest body of `POST /api/v1/events/import` (an event archive), in bytes.",
    )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [origin.strip() for origin in value.split(",") if origin.strip()]
        return value

    @field_validator("base_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @field_validator("database_url")
    @classmethod
    def _psycopg3(cls, value: str) -> str:
        """Route plain PostgreSQL URLs to the psycopg 3 driver."""
        for prefix in ("postgresql://", "postgres://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    @model_validator(mode="after")
    def _database_in_data_dir(self) -> Settings:
        """Without DATABASE_URL the SQLite file lives in DATA_DIR (an explicit URL wins)."""
        if "database_url" not in self.model_fields_set:
            self.database_url = f"sqlite:///{self.data_dir / SQLITE_FILE}"
        return self

    @model_validator(mode="after")
    def _refuse_placeholders(self) -> Settings:
        # https is required; a loopback or private https address (a rehearsal behind
        # `tls internal`) starts, and the print pages and the dashboard warn about it.
        if self.environment == "production" and "http" in base_url_problems(self.base_url):
            raise ValueError(
                "BASE_URL must be the public https address the phones open in production "
                f"(it is {self.base_url!r}: {', '.join(base_url_problems(self.base_url))}); "
                "every printed QR code encodes it"
            )
        if self.environment == "production":
            if self.admin_token is None or self.admin_token.lower() in PLACEHOLDER_SECRETS:
                raise ValueError("ADMIN_TOKEN must be set to a real secret in production")
            if len(self.admin_token) < ADMIN_TOKEN_MIN_LENGTH:
                raise ValueError(
                    f"ADMIN_TOKEN must be at least {ADMIN_TOKEN_MIN_LENGTH} characters "
                    "in production"
                )
        return self

    @model_validator(mode="after")
    def _refuse_any_proxy(self) -> Settings:
        if "*" in self.forwarded_allow_ips:
            raise ValueError(
                "FORWARDED_ALLOW_IPS must name the proxy's addresses, not '*': any client "
                "could then choose its own address (and dodge the sign-in throttle)"
            )
        return self

    @model_validator(mode="after")
    def _connection_budget_fits(self) -> Settings:
        if not self.is_sqlite and self.connections_per_process < MIN_CONNECTIONS_PER_PROCESS:
            raise ValueError(
                f"connection budget: (DB_MAX_CONNECTIONS {self.db_max_connections} - "
                f"DB_RESERVED_CONNECTIONS {self.db_reserved_connections}) // (APP_HOSTS "
                f"{self.app_hosts} x WORKERS {self.workers}) = "
                f"{self.connections_per_process} connections per process; each needs at "
                f"least {MIN_CONNECTIONS_PER_PROCESS} (one LISTEN, one for requests)"
            )
        return self

    @property
    def connections_per_process(self) -> int:
        """PostgreSQL connections one app process may open (its share of the budget):
        (DB_MAX_CONNECTIONS - DB_RESERVED_CONNECTIONS) // (APP_HOSTS x WORKERS)."""
        processes = self.app_hosts * self.workers
        return (self.db_max_connections - self.db_reserved_connections) // processes

    @property
    def pool_size(self) -> int:
        """Connections the pool of one process keeps: DB_POOL_SIZE, lowered to fit the
        process's share minus its one LISTEN connection (`app.live.listener`)."""
        return max(1, min(self.db_pool_size, self.connections_per_process - LISTEN_CONNECTIONS))

    @property
    def pool_overflow(self) -> int:
        """Extra connections one process may open under load: DB_MAX_OVERFLOW, lowered so
        that LISTEN + `pool_size` + overflow fit `connections_per_process`."""
        room = self.connections_per_process - LISTEN_CONNECTIONS - self.pool_size
        return max(0, min(self.db_max_overflow, room))

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def cookie_secret(self) -> str:
        """Secret for signing cookies: SECRET_KEY, else derived from the organiser token."""
        return self.secret_key or f"cookie:{self.admin_token or 'development-only'}"


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
