"""The live channel: a per-process hub that re-reads the database when woken (`hub`),
PostgreSQL LISTEN/NOTIFY wake-ups across processes (`listener`) and the SSE endpoint.
The versions are bumped by the write paths themselves (`app.core.livelog.changed`)."""
