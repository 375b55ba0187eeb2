"""Response shapes of the flows (extensions of API.md, "Extensions (second round)")."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.events.schemas import EventRead


class ReplayRead(BaseModel):
    """What a window or ranking change does to the recorded takes (the feed's replay)."""

    participants: int = Field(description="participants replayed (every one with a take)")
    takes: int = Field(description="takes replayed (every take of the event)")
    changed_outcomes: int = Field(description="takes whose outcome or reason changed")
    changed_participants: int = Field(description="participants with a changed take")
    stopped_counting: int = Field(description="takes that counted and no longer count")
    started_counting: int = Field(description="takes that did not count and now count")


class EventChanged(EventRead):
    """The event after a change, with `replay` when the change moved the course window or
    the ranking preset (zeros when no take is recorded), else null. `dry_run`: nothing
    was stored; the event and replay are what the change would give."""

    replay: ReplayRead | None = None
    dry_run: bool = False
