"""The live channel's version per event and its change log.

`LiveVersion` holds one number per event, bumped (row-locked) in the same
transaction as every change the live pages show, so versions are committed in
order: a reader that sees version N has every change up to N. `LiveChange` says
which topic each version changed (`auction` with its place, `event` with place 0);
a stream resuming from `Last-Event-ID: N` re-sends the current state of the topics
changed after N. Rows are only inserted (pattern: eventsourcing's `(stream, version)`
key).

No foreign key to `event`: checking one would take a KEY SHARE lock on the event row at
the end of a bid, after the auction row's lock, while a close holds the event row and waits
for that auction row: a deadlock (seen under load). Without it the bump takes one lock,
always last.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class LiveVersion(Base):
    """The latest live version of an event (0 = nothing changed yet; no row = 0)."""

    __tablename__ = "live_version"

    event_id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger, default=0)


class LiveChange(Base):
    """Topic `topic` (place `place`, 0 for the event itself) changed at `version`."""

    __tablename__ = "live_change"

    event_id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    topic: Mapped[str] = mapped_column(String(16), primary_key=True)
    place: Mapped[int] = mapped_column(primary_key=True)
    changed_at: Mapped[datetime] = mapped_column(default=utcnow)
