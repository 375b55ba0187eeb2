"""The live channel: per-event versions bumped with each change (`tracking`), a
per-process hub that re-reads the database when woken (`hub`), PostgreSQL
LISTEN/NOTIFY wake-ups across processes (`listener`) and the SSE endpoint."""

from app.live import tracking

tracking.install()
