"""The flows' SQL: reads that join several domains' tables for the event's log chains
(`app.flows.log_chain`: stored heads, every chained row to recompute, the identity check).

Each function is one query for one event (`event_id`); rows are returned as SQLAlchemy
`Row`s (attribute access by column name) or ORM rows, in no particular order unless
stated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core.audit import DECIDING_ACTIONS, AuditEntry
from app.events.models import Participant, ParticipantIdentity
from app.feed.models import ParticipantState, SourceClock, Take, TakeVoid


def participant_heads(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(external_id, log_seq, log_head)` of each participant with a chained take."""
    return session.execute(
        select(Participant.external_id, ParticipantState.log_seq, ParticipantState.log_head)
        .join(Participant, Participant.id == ParticipantState.participant_id)
        .where(ParticipantState.event_id == event_id, ParticipantState.log_seq > 0)
    ).all()


def auction_heads(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(place, log_seq, log_head)` of each auction with a chained bid."""
    return session.execute(
        select(Auction.place, Auction.log_seq, Auction.log_head).where(
            Auction.event_id == event_id, Auction.log_seq > 0
        )
    ).all()


def take_rows(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """Every take of the event with the columns its chain link hashes."""
    return session.execute(
        select(
            Take.id, Take.participant_id, Take.source, Take.source_id, Take.code, Take.taken_at,
            Take.received_at, Take.recorded_by, Take.payload, Take.device_taken_at,
            Take.clock_offset_seconds, Take.log_seq, Take.log_prev, Take.log_hash,
        ).where(Take.event_id == event_id)
    ).all()  # fmt: skip


def void_rows(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """Every void of the event's takes, with its take's participant and hash (`take_hash`)."""
    return session.execute(
        select(
            TakeVoid.id, Take.participant_id, Take.log_hash.label("take_hash"), TakeVoid.reason,
            TakeVoid.voided_by, TakeVoid.voided_at, TakeVoid.log_seq, TakeVoid.log_prev,
            TakeVoid.log_hash,
        ).join(Take, Take.id == TakeVoid.take_id).where(Take.event_id == event_id)
    ).all()  # fmt: skip


def bid_rows(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(Bid, round number)` of every bid in the event's auctions."""
    return session.execute(
        select(Bid, AuctionRound.number)
        .join(AuctionRound, AuctionRound.id == Bid.round_id)
        .join(Auction, Auction.id == Bid.auction_id)
        .where(Auction.event_id == event_id)
    ).all()


def withdrawal_rows(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(BidWithdrawal, auction id)` of every withdrawal in the event's auctions."""
    return session.execute(
        select(BidWithdrawal, Bid.auction_id)
        .join(Bid, Bid.id == BidWithdrawal.bid_id)
        .join(Auction, Auction.id == Bid.auction_id)
        .where(Auction.event_id == event_id)
    ).all()


def source_clocks(session: Session, event_id: int) -> Sequence[SourceClock]:
    """The event's source clock rows (the `clocks` chain)."""
    return session.execute(
        select(SourceClock).where(SourceClock.event_id == event_id)
    ).scalars().all()  # fmt: skip


def deciding_entries(session: Session, event_id: int) -> Sequence[AuditEntry]:
    """The event's audit entries of the `decisions` chain (a deciding action, or chained)."""
    return session.execute(
        select(AuditEntry).where(
            AuditEntry.event_id == event_id,
            AuditEntry.action.in_(DECIDING_ACTIONS) | AuditEntry.log_hash.is_not(None),
        )
    ).scalars().all()  # fmt: skip


def identity_rows(session: Session, event_id: int) -> Sequence[ParticipantIdentity]:
    """The event's participant identity rows (the `identities` chain)."""
    return session.execute(
        select(ParticipantIdentity).where(ParticipantIdentity.event_id == event_id)
    ).scalars().all()  # fmt: skip


def participant_identities(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(id, external_id, name, category)` of the event's participants, by external id."""
    return session.execute(
        select(Participant.id, Participant.external_id, Participant.name, Participant.category)
        .where(Participant.event_id == event_id)
        .order_by(Participant.external_id)
    ).all()


def participant_chain_states(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(id, external_id, log_seq or 0, log_head)` of every participant of the event."""
    return session.execute(
        select(
            Participant.id, Participant.external_id,
            func.coalesce(ParticipantState.log_seq, 0), ParticipantState.log_head,
        )
        .outerjoin(ParticipantState, ParticipantState.participant_id == Participant.id)
        .where(Participant.event_id == event_id)
    ).all()  # fmt: skip


def auction_chain_states(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(id, place, log_seq, log_head)` of every auction of the event."""
    return session.execute(
        select(Auction.id, Auction.place, Auction.log_seq, Auction.log_head).where(
            Auction.event_id == event_id
        )
    ).all()
