"""Service configuration: one pydantic-settings class, read from the environment and `.env`."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATA_DIR = Path("data")
SQLITE_FILE = "rogaine.db"
ADMIN_TOKEN_MIN_LENGTH = 32  # characters, in production
PLACEHOLDER_SECRETS = {"", "changeme", "change-me", "secret", "admin"}


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
    db_pool_size: int = 10
    db_max_overflow: int = 20
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
        if self.environment == "production":
            if self.admin_token is None or self.admin_token.lower() in PLACEHOLDER_SECRETS:
                raise ValueError("ADMIN_TOKEN must be set to a real secret in production")
            if len(self.admin_token) < ADMIN_TOKEN_MIN_LENGTH:
                raise ValueError(
                    f"ADMIN_TOKEN must be at least {ADMIN_TOKEN_MIN_LENGTH} characters "
                    "in production"
                )
        return self

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
