"""Schemas of the log-chain and archive endpoints (app.flows.log_chain, app.flows.archive)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class LogHeadRead(BaseModel):
    """The event head: one SHA-256 over every chain head (app.core.chain.event_head)."""

    head: str = Field(description="64 lowercase hex digits")
    version: int = Field(description="2: over every chain (1: takes and bids only)")
    takes: int = Field(description="rows of the take chains: takes, manual takes, voids")
    bids: int = Field(description="rows of the bid chains: bids and withdrawals")
    clocks: int = Field(description="rows of the source clock chain (organiser's offsets)")
    decisions: int = Field(description="rows of the deciding audit entries' chain (lots)")
    identities: int = Field(description="rows of the participants' identity chain")
    at: datetime = Field(description="when the head was read (UTC)")


class ChainMismatch(BaseModel):
    chain: str = Field(
        description='"participant <external_id>", "auction <place>", "clocks", "decisions" '
        'or "identities"'
    )
    row: str | None = Field(
        description='"take 17", "take_void 3", "bid 4", "bid_withdrawal 2", "source_clock 5", '
        '"audit_entry 8", "participant_identity 6", "participant 7"'
    )
    seq: int | None
    problem: str = Field(
        description="not_chained, seq, prev, hash (the row was edited), head (rows removed "
        "from the end) or identity (a participant row differs from its latest identity row)"
    )


class LogVerifyRead(BaseModel):
    """Every chain recomputed from the rows: `ok`, the recomputed head, the first mismatch."""

    ok: bool
    head: str
    version: int
    takes: int
    bids: int
    clocks: int
    decisions: int
    identities: int
    chains: int
    first_mismatch: ChainMismatch | None


class ArchiveImported(BaseModel):
    """A restored event and what was checked against its archive."""

    event_id: int
    head: str = Field(description="the archive's head, verified (of its `version`)")
    takes: int
    bids: int
    version: int = Field(description="the archive's version (1: before migration 0013)")
    unproven: list[str] = Field(
        description="what the archive cannot prove was not edited (version 1: source clock "
        "offsets, deciding audit entries, identities; chained at import as the file has them)"
    )
    participants: int = Field(description="participants with a replayed state")
    combinations: int
