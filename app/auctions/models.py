"""Award auctions: one auction per event and place, its rounds, and the bid log.

`Auction` and `AuctionRound` are state (status, outcome) and change at open,
close and undo. `Bid` and `BidWithdrawal` are logs: rows are inserted, never
updated or deleted; a participant's live bid in a round is their latest bid
without a withdrawal (RULES.md I-7), so the audit trail keeps every replaced
and withdrawn bid.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class Auction(Base):
    """The auction for one place of an event: pending -> open -> closed (undo: closed -> open)."""

    __tablename__ = "auction"
    __table_args__ = (
        UniqueConstraint("event_id", "place"),
        CheckConstraint("status IN ('pending', 'open', 'closed')", name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    place: Mapped[int]
    status: Mapped[str] = mapped_column(String(16), default="pending")
    current_round: Mapped[int] = mapped_column(default=0)
    winner_participant_id: Mapped[int | None] = mapped_column(
        ForeignKey("participant.id", ondelete="SET NULL")
    )
    winner_combination_id: Mapped[int | None]
    opened_at: Mapped[datetime | None]
    closed_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The head of the auction's bid chain (app.core.chain): rows so far and the last hash.
    log_seq: Mapped[int] = mapped_column(server_default="0")
    log_head: Mapped[str | None] = mapped_column(String(64))


class AuctionRound(Base):
    """Round 1 of an auction, or a tie-break round (RULES.md I-9).

    `eligible` is None in round 1 (every participant who has not won), else the
    participant ids of the tied bidders allowed to bid. `sealed_result` (column
    `result`) is the decision written at the close (ranked bids, tie, lots), cleared by
    an undo, rewritten by a correction; it is secret until revealed and read for output
    only by `app.auctions.views` (RULES.md I-21). `revealed` counts the reveal steps
    taken since the close (the counted bids from the weakest to the strongest, then the
    outcome); `revealed_at` is set when the last step is taken (fully revealed).
    """

    __tablename__ = "auction_round"
    __table_args__ = (
        UniqueConstraint("auction_id", "number"),
        CheckConstraint("status IN ('open', 'closed')", name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    auction_id: Mapped[int] = mapped_column(ForeignKey("auction.id", ondelete="CASCADE"))
    number: Mapped[int]
    status: Mapped[str] = mapped_column(String(16), default="open")
    eligible: Mapped[list[int] | None] = mapped_column(JSON)
    resolution: Mapped[str | None] = mapped_column(String(20))
    sealed_result: Mapped[dict[str, Any] | None] = mapped_column("result", JSON)
    opened_at: Mapped[datetime] = mapped_column(default=utcnow)
    closed_at: Mapped[datetime | None]
    revealed: Mapped[int] = mapped_column(server_default="0")
    revealed_at: Mapped[datetime | None]


class Bid(Base):
    """One sealed bid as placed (the log). Never updated or deleted.

    `combination_id` is the id of the save take (`Combination.id`); it is not a
    foreign key because the combination projection may be rebuilt by a replay.
    `sealed_cards` (column `cards`) is a snapshot of the combination when the bid was
    placed; `sealed_nonce` (column `nonce`) stays secret until the bid is revealed;
    `receipt` is the commitment (`app.auctions.rules.commitment`). Both secrets are read
    for output only by `app.auctions.views` (tests/test_architecture_views.py).
    """

    __tablename__ = "bid"
    __table_args__ = (
        Index("ix_bid_round_id_participant_id", "round_id", "participant_id"),
        Index("ix_bid_receipt", "receipt"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    auction_id: Mapped[int] = mapped_column(
        ForeignKey("auction.id", ondelete="CASCADE"), index=True
    )
    round_id: Mapped[int] = mapped_column(ForeignKey("auction_round.id", ondelete="CASCADE"))
    participant_id: Mapped[int] = mapped_column(ForeignKey("participant.id", ondelete="CASCADE"))
    combination_id: Mapped[int]
    sealed_cards: Mapped[list[str]] = mapped_column("cards", JSON)
    sealed_nonce: Mapped[str] = mapped_column("nonce", String(64))
    receipt: Mapped[str] = mapped_column(String(64))
    placed_by: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The auction's hash chain of bids and withdrawals (app.core.chain).
    log_seq: Mapped[int | None]
    log_prev: Mapped[str | None] = mapped_column(String(64))
    log_hash: Mapped[str | None] = mapped_column(String(64))


WITHDRAWAL_REASONS = ("replaced", "withdrawn", "correction")


class BidWithdrawal(Base):
    """A bid taken back: before the close "replaced" (by a newer bid) or "withdrawn"; after
    the close only "correction" (the organiser voids it with a reason, recorded in the
    audit trail, and the round is decided again: RULES.md I-21)."""

    __tablename__ = "bid_withdrawal"
    __table_args__ = (
        CheckConstraint("reason IN ('replaced', 'withdrawn', 'correction')", name="reason"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    bid_id: Mapped[int] = mapped_column(ForeignKey("bid.id", ondelete="CASCADE"), unique=True)
    reason: Mapped[str] = mapped_column(String(16))
    replaced_by_bid_id: Mapped[int | None] = mapped_column(ForeignKey("bid.id", ondelete="CASCADE"))
    withdrawn_by: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    log_seq: Mapped[int | None]
    log_prev: Mapped[str | None] = mapped_column(String(64))
    log_hash: Mapped[str | None] = mapped_column(String(64))
