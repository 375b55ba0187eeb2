"""Schemas of the log-chain and archive endpoints (app.flows.log_chain, app.flows.archive)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class LogHeadRead(BaseModel):
    """The event head: one SHA-256 over every chain head (app.core.chain.event_head)."""

    head: str = Field(description="64 lowercase hex digits")
    takes: int = Field(description="rows of the take chains: takes, manual takes, voids")
    bids: int = Field(description="rows of the bid chains: bids and withdrawals")
    at: datetime = Field(description="when the head was read (UTC)")


class ChainMismatch(BaseModel):
    chain: str = Field(description='"participant <external_id>" or "auction <place>"')
    row: str | None = Field(description='"take 17", "take_void 3", "bid 4", "bid_withdrawal 2"')
    seq: int | None
    problem: str = Field(description="not_chained, seq, prev, hash (the row was edited) or head")


class LogVerifyRead(BaseModel):
    """Every chain recomputed from the rows: `ok`, the recomputed head, the first mismatch."""

    ok: bool
    head: str
    takes: int
    bids: int
    chains: int
    first_mismatch: ChainMismatch | None


class ArchiveImported(BaseModel):
    """A restored event and what was checked against its archive."""

    event_id: int
    head: str
    takes: int
    bids: int
    participants: int = Field(description="participants with a replayed state")
    combinations: int
