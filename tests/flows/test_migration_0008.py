"""Migration 0008 (log chains) chains the rows already stored, so an upgraded event verifies."""

from __future__ import annotations

from datetime import timedelta

from alembic import command
from sqlalchemy import Engine, column, select, table
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core import chain
from app.events.models import Event
from app.feed.models import ParticipantState, Take, TakeVoid
from app.flows import log_chain
from tests.conftest import alembic_config
from tests.test_migrations import CLOSES, OPENS, empty_engine  # noqa: F401


def test_0008_chains_stored_takes_voids_bids_and_withdrawals(empty_engine: Engine) -> None:  # noqa: F811
    at = OPENS + timedelta(hours=1)
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0006")
        connection.execute(Event.__table__.insert(), {
            "id": 1, "name": "E", "opens_at": OPENS, "closes_at": CLOSES, "timezone": "UTC",
            "hand_ranking": "seed", "save_codes_per_participant": 10, "award_places": 3,
            "status": "ceremony", "created_at": OPENS,
        })  # fmt: skip
        columns = ("id", "event_id", "external_id", "name", "access_token_hash", "created_at")
        participant_0006 = table("participant", *(column(c) for c in columns))
        connection.execute(participant_0006.insert(), {
            "id": 7, "event_id": 1, "external_id": "101", "name": "A",
            "access_token_hash": "a" * 64, "created_at": OPENS,
        })  # fmt: skip
        take = {"event_id": 1, "participant_id": 7, "source": "gps", "recorded_by": "organiser",
                "payload": {"participant": "101"}}  # fmt: skip
        connection.execute(Take.__table__.insert(), [
            {**take, "id": 11, "source_id": "a", "code": "SAVE1", "taken_at": at,
             "received_at": at},
            {**take, "id": 10, "source_id": "b", "code": "CP2", "taken_at": at,
             "received_at": at + timedelta(minutes=1)},
        ])  # fmt: skip
        connection.execute(ParticipantState.__table__.insert(), {
            "participant_id": 7, "event_id": 1, "state": {}, "updated_at": at,
        })  # fmt: skip
        connection.execute(TakeVoid.__table__.insert(), {
            "id": 1, "take_id": 10, "reason": "typo", "voided_by": "organiser",
            "voided_at": at + timedelta(minutes=2),
        })  # fmt: skip
        connection.execute(Auction.__table__.insert(), {
            "id": 1, "event_id": 1, "place": 3, "status": "open", "current_round": 1,
            "created_at": at,
        })  # fmt: skip
        connection.execute(AuctionRound.__table__.insert(), {
            "id": 1, "auction_id": 1, "number": 1, "status": "open", "opened_at": at,
        })  # fmt: skip
        bid = {"auction_id": 1, "round_id": 1, "participant_id": 7, "combination_id": 11,
               "cards": ["QH"], "nonce": "n", "receipt": "r", "placed_by": "organiser"}  # fmt: skip
        connection.execute(Bid.__table__.insert(), [
            {**bid, "id": 1, "created_at": CLOSES},
            {**bid, "id": 2, "created_at": CLOSES + timedelta(seconds=1)},
        ])  # fmt: skip
        connection.execute(BidWithdrawal.__table__.insert(), {
            "id": 1, "bid_id": 1, "reason": "replaced", "replaced_by_bid_id": 2,
            "withdrawn_by": "organiser", "created_at": CLOSES + timedelta(seconds=1),
        })  # fmt: skip
        command.upgrade(alembic_config(connection), "head")

    with Session(empty_engine) as session:
        first = session.get(Take, 11)  # received first: seq 1 of participant 101's chain
        assert (first.log_seq, first.log_prev) == (1, chain.GENESIS)
        assert first.log_hash == chain.row_hash(chain.TAKE, 1, chain.GENESIS, chain.take_content(
            source="gps", source_id="a", code="SAVE1", taken_at=at, received_at=at,
            recorded_by="organiser", payload={"participant": "101"},
        ))  # fmt: skip
        void = session.get(TakeVoid, 1)
        state = session.get(ParticipantState, 7)
        assert (void.log_seq, state.log_seq, state.log_head) == (3, 3, void.log_hash)
        assert [b.log_seq for b in session.scalars(select(Bid).order_by(Bid.id))] == [1, 2]
        assert session.get(BidWithdrawal, 1).log_seq == 3
        report = log_chain.verify(session, session.get(Event, 1))
        # (at head, migration 0013 also chained the participant's identity: a third chain)
        assert (report["ok"], report["takes"], report["bids"], report["chains"]) == (
            True, 3, 3, 3
        )  # fmt: skip
        assert report["identities"] == 1
