"""Queries of the auctions domain (all SQL lives here)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.auctions.rules import AuctionStatus, RoundStatus
from app.events.models import Event, Participant
from app.feed.models import Combination, Take


def lock_event(session: Session, event_id: int) -> Event:
    """The event row, locked FOR NO KEY UPDATE on PostgreSQL (SQLite: the write transaction
    is already exclusive). Serialises ceremony steps: open, close, undo, and conflicts
    with the feed's FOR SHARE read of the freeze. Not FOR UPDATE: that would also block
    the foreign-key checks (FOR KEY SHARE) of every row inserted for the event, such
    as a bid's audit entry, whose transaction already holds the auction row the step
    waits for next: the deadlock of issue 24 (lock order: event, then auction)."""
    query = select(Event).where(Event.id == event_id).with_for_update(key_share=True)
    return session.execute(query).scalar_one()


def get_auction(
    session: Session, event_id: int, place: int, *, lock: bool = False
) -> Auction | None:
    """The auction of `place`, or None when it was never opened.

    `lock=True` takes the row lock (SELECT ... FOR NO KEY UPDATE) that serialises bids,
    withdrawals and the close of this auction across app processes; it leaves the
    foreign-key checks of rows pointing at the auction free (`lock_event`).
    """
    query = select(Auction).where(Auction.event_id == event_id, Auction.place == place)
    if lock:
        query = query.with_for_update(key_share=True).execution_options(populate_existing=True)
        return session.execute(query).scalar_one_or_none()
    return session.scalar(query)


def auctions_of_event(session: Session, event_id: int) -> dict[int, Auction]:
    """Every auction row of the event by place."""
    rows = session.scalars(select(Auction).where(Auction.event_id == event_id))
    return {auction.place: auction for auction in rows}


def rounds_of(session: Session, auction_id: int) -> list[AuctionRound]:
    """The auction's rounds, round 1 first."""
    return list(
        session.scalars(
            select(AuctionRound)
            .where(AuctionRound.auction_id == auction_id)
            .order_by(AuctionRound.number)
        )
    )


def round_by_id(session: Session, round_id: int) -> AuctionRound | None:
    return session.get(AuctionRound, round_id)


def round_stages(session: Session, event_id: int) -> dict[int, list[tuple[Any, ...]]]:
    """auction id -> (number, status, revealed, revealed_at) of its rounds, round 1 first:
    the reveal progress of every auction of the event, in one query (no decision read)."""
    rows = session.execute(
        select(
            AuctionRound.auction_id,
            AuctionRound.number,
            AuctionRound.status,
            AuctionRound.revealed,
            AuctionRound.revealed_at,
        )
        .join(Auction, Auction.id == AuctionRound.auction_id)
        .where(Auction.event_id == event_id)
        .order_by(AuctionRound.auction_id, AuctionRound.number)
    )
    found: dict[int, list[tuple[Any, ...]]] = {}
    for auction_id, *rest in rows:
        found.setdefault(auction_id, []).append(tuple(rest))
    return found


def places_being_revealed(session: Session, event_id: int) -> list[int]:
    """Places whose auction has a closed round not fully revealed (`revealed_at` unset)."""
    rows = session.scalars(
        select(Auction.place)
        .join(AuctionRound, AuctionRound.auction_id == Auction.id)
        .where(
            Auction.event_id == event_id,
            AuctionRound.status == RoundStatus.CLOSED,
            AuctionRound.revealed_at.is_(None),
        )
        .distinct()
    )
    return sorted(rows)


def set_decision(rnd: AuctionRound, result: dict[str, Any] | None) -> None:
    """Store (or clear, None) what a close decided on the round (`sealed_result`)."""
    rnd.sealed_result = None if result is None else dict(result)


def new_bid(**columns: Any) -> Bid:
    """A bid row with its sealed `cards` and `nonce` (the caller chains and adds it)."""
    cards, nonce = columns.pop("cards"), columns.pop("nonce")
    return Bid(sealed_cards=list(cards), sealed_nonce=nonce, **columns)


def get_round(session: Session, auction_id: int, number: int) -> AuctionRound | None:
    return session.scalar(
        select(AuctionRound).where(
            AuctionRound.auction_id == auction_id, AuctionRound.number == number
        )
    )


def _live():
    return (
        select(Bid)
        .outerjoin(BidWithdrawal, BidWithdrawal.bid_id == Bid.id)
        .where(BidWithdrawal.id.is_(None))
    )


def live_bids(session: Session, round_id: int) -> list[Bid]:
    """The bids of a round that count: neither replaced nor withdrawn (RULES.md I-7)."""
    return list(session.scalars(_live().where(Bid.round_id == round_id).order_by(Bid.id)))


def live_bidder_ids(session: Session, round_id: int) -> list[int]:
    """Participant ids with a live bid in the round (what the organiser may see: who)."""
    query = (
        select(Bid.participant_id)
        .outerjoin(BidWithdrawal, BidWithdrawal.bid_id == Bid.id)
        .where(BidWithdrawal.id.is_(None), Bid.round_id == round_id)
    )
    return list(session.scalars(query))


def live_bid_rows(session: Session, round_id: int) -> list[Any]:
    """The live bids of a round as light rows (id, participant_id, combination_id, receipt,
    sealed_nonce), for the close of a large auction (`app.auctions.views` reads them)."""
    query = (
        select(Bid.id, Bid.participant_id, Bid.combination_id, Bid.receipt, Bid.sealed_nonce)
        .outerjoin(BidWithdrawal, BidWithdrawal.bid_id == Bid.id)
        .where(BidWithdrawal.id.is_(None), Bid.round_id == round_id)
        .order_by(Bid.id)
    )
    return list(session.execute(query))


def combination_cards(session: Session, ids: Iterable[int]) -> dict[int, list[str]]:
    """combination id -> its current cards, for the combinations that exist."""
    ids = list(set(ids))
    found: dict[int, list[str]] = {}
    for start in range(0, len(ids), 1000):
        chunk = ids[start : start + 1000]
        query = select(Combination.id, Combination.cards).where(Combination.id.in_(chunk))
        found.update({row[0]: row[1] for row in session.execute(query)})
    return found


def bid_cards(session: Session, bid_ids: Iterable[int]) -> dict[int, list[str]]:
    """bid id -> the combination's cards as snapshotted when the bid was placed."""
    ids = list(set(bid_ids))
    if not ids:
        return {}
    return {
        row[0]: row[1]
        for row in session.execute(select(Bid.id, Bid.sealed_cards).where(Bid.id.in_(ids)))
    }


def live_bid_of(session: Session, round_id: int, participant_id: int) -> Bid | None:
    """The participant's live bid in a round, or None."""
    return session.scalar(
        _live().where(Bid.round_id == round_id, Bid.participant_id == participant_id)
    )


def bids_in_round(session: Session, round_id: int) -> int:
    """How many bid rows (live or not) a round has ever had."""
    return len(session.scalars(select(Bid.id).where(Bid.round_id == round_id)).all())


def get_bid(session: Session, bid_id: int) -> Bid | None:
    return session.get(Bid, bid_id)


def withdrawal_of(session: Session, bid_id: int) -> BidWithdrawal | None:
    return session.scalar(select(BidWithdrawal).where(BidWithdrawal.bid_id == bid_id))


def bid_by_receipt(session: Session, auction_id: int, receipt: str) -> Bid | None:
    return session.scalar(
        select(Bid).where(Bid.auction_id == auction_id, Bid.receipt == receipt).order_by(Bid.id)
    )


def used_combination_ids(session: Session, event_id: int) -> set[int]:
    """Combinations used up: live bids in a closed round of any auction of the event."""
    rows = session.scalars(
        _live()
        .with_only_columns(Bid.combination_id)
        .join(AuctionRound, AuctionRound.id == Bid.round_id)
        .join(Auction, Auction.id == Bid.auction_id)
        .where(Auction.event_id == event_id, AuctionRound.status == RoundStatus.CLOSED)
    )
    return set(rows)


def combination_is_used(session: Session, event_id: int, combination_id: int) -> bool:
    """True when the combination was bid (live) in a closed round of the event's auctions."""
    query = (
        _live()
        .with_only_columns(Bid.id)
        .join(AuctionRound, AuctionRound.id == Bid.round_id)
        .join(Auction, Auction.id == Bid.auction_id)
        .where(
            Auction.event_id == event_id,
            AuctionRound.status == RoundStatus.CLOSED,
            Bid.combination_id == combination_id,
        )
        .limit(1)
    )
    return session.scalar(query) is not None


def winner_ids(session: Session, event_id: int) -> set[int]:
    """Participant ids that won a closed auction of the event (RULES.md I-8)."""
    rows = session.scalars(
        select(Auction.winner_participant_id).where(
            Auction.event_id == event_id,
            Auction.status == AuctionStatus.CLOSED,
            Auction.winner_participant_id.is_not(None),
        )
    )
    return set(rows)


def external_ids(session: Session, event_id: int) -> dict[int, str]:
    """participant id -> external id, for every participant of the event."""
    rows = session.execute(
        select(Participant.id, Participant.external_id).where(Participant.event_id == event_id)
    )
    return {row[0]: row[1] for row in rows}


def external_ids_of(session: Session, participant_ids: Iterable[int]) -> dict[int, str]:
    """participant id -> external id, for the given participants only."""
    ids = list(set(participant_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(Participant.id, Participant.external_id).where(Participant.id.in_(ids))
    )
    return {row[0]: row[1] for row in rows}


def named_in_auctions(session: Session, event_id: int) -> tuple[dict[int, str], dict[int, str]]:
    """(participant id -> external id, participant id -> name) of the participants the
    event's auctions can name: its bidders and winners (a tie-break's eligible are bidders
    of the tied round). Costs what the auctions hold, not the event's size."""
    bidders = (
        select(Bid.participant_id)
        .join(Auction, Auction.id == Bid.auction_id)
        .where(Auction.event_id == event_id)
    )
    winners = select(Auction.winner_participant_id).where(
        Auction.event_id == event_id, Auction.winner_participant_id.is_not(None)
    )
    rows = session.execute(
        select(Participant.id, Participant.external_id, Participant.name).where(
            Participant.id.in_(bidders.union(winners))
        )
    ).all()
    return {row[0]: row[1] for row in rows}, {row[0]: row[2] for row in rows}


def participant_names(session: Session, event_id: int) -> dict[int, str]:
    rows = session.execute(
        select(Participant.id, Participant.name).where(Participant.event_id == event_id)
    )
    return {row[0]: row[1] for row in rows}


def participant_by_external_id(
    session: Session, event_id: int, external_id: str
) -> Participant | None:
    return session.scalar(
        select(Participant).where(
            Participant.event_id == event_id, Participant.external_id == external_id
        )
    )


def combination_in_event(
    session: Session, event_id: int, combination_id: int
) -> Combination | None:
    combination = session.get(Combination, combination_id)
    if combination is None or combination.event_id != event_id:
        return None
    return combination


def combinations_of(session: Session, participant_id: int) -> list[Combination]:
    return list(
        session.scalars(
            select(Combination)
            .where(Combination.participant_id == participant_id)
            .order_by(Combination.id)
        )
    )


def take_hash(session: Session, take_id: int) -> str:
    """The chain hash (`log_hash`) of a take, e.g. of a combination's save take ("" if none)."""
    return session.scalar(select(Take.log_hash).where(Take.id == take_id)) or ""


def ceremony_rows_of(event_id: int) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """The WHERE clauses of the event's `auction_round` and `bid` rows (the archive's
    rounds and bids): `auction_id IN (the event's auction ids)` on each table."""
    auctions = select(Auction.id).where(Auction.event_id == event_id)
    rounds, bids = AuctionRound.__table__, Bid.__table__
    return rounds.c.auction_id.in_(auctions), bids.c.auction_id.in_(auctions)
