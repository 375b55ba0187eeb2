"""Migration 0013 chains the source clocks, deciding audit entries and identities already
stored, so an upgraded event verifies, and a later edit of one of them is named."""

from __future__ import annotations

from datetime import timedelta

from alembic import command
from sqlalchemy import Engine, column, select, table
from sqlalchemy.orm import Session

from app.core import chain
from app.core.audit import AuditEntry
from app.core.models import EventChain
from app.events.models import Event, ParticipantIdentity
from app.feed.models import SourceClock
from app.flows import log_chain
from tests.conftest import alembic_config
from tests.test_migrations import CLOSES, OPENS, empty_engine  # noqa: F401

LOTS = {"place": 3, "round": 1, "seed": 7, "candidates": ["101", "102"], "winner": "102"}


def test_0013_chains_clocks_lots_and_identities(empty_engine: Engine) -> None:  # noqa: F811
    at = OPENS + timedelta(hours=1)
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0012_auction_reveal")
        connection.execute(Event.__table__.insert(), {
            "id": 1, "name": "E", "opens_at": OPENS, "closes_at": CLOSES, "timezone": "UTC",
            "hand_ranking": "seed", "save_codes_per_participant": 10, "award_places": 3,
            "status": "ceremony", "created_at": OPENS,
        })  # fmt: skip
        # the participant table as 0012 has it (later revisions add columns)
        participant_0012 = table("participant", *(column(c) for c in (
            "id", "event_id", "external_id", "name", "category", "access_token_hash",
            "created_at")))  # fmt: skip
        connection.execute(participant_0012.insert(), [
            {"id": 8, "event_id": 1, "external_id": "102", "name": "B", "category": "M21",
             "access_token_hash": "b" * 64, "created_at": at},
            {"id": 7, "event_id": 1, "external_id": "101", "name": "A", "category": None,
             "access_token_hash": "a" * 64, "created_at": OPENS},
        ])  # fmt: skip
        # only the columns 0012 has (not the whole model)
        clock = {"event_id": 1, "source": "watch", "set_by": "organiser"}
        connection.execute(SourceClock.__table__.insert(), [
            {**clock, "id": 2, "offset_seconds": -300.0, "set_at": at},
            {**clock, "id": 3, "offset_seconds": None, "set_at": at + timedelta(minutes=5)},
        ])  # fmt: skip
        entry = {"event_id": 1, "actor": "organiser", "subject": "place 3",
                 "created_at": CLOSES + timedelta(hours=1)}  # fmt: skip
        connection.execute(AuditEntry.__table__.insert(), [
            {**entry, "id": 4, "action": "auction.close", "details": {}},
            {**entry, "id": 5, "action": "auction.lots", "details": LOTS},
        ])  # fmt: skip
        command.upgrade(alembic_config(connection), "head")

    with Session(empty_engine) as session:
        clocks = session.scalars(select(SourceClock).order_by(SourceClock.id)).all()
        assert [(c.log_seq, c.offset_seconds) for c in clocks] == [(1, -300.0), (2, None)]
        assert clocks[0].log_prev == chain.GENESIS and clocks[1].log_prev == clocks[0].log_hash
        assert clocks[0].log_hash == chain.row_hash(
            chain.SOURCE_CLOCK, 1, chain.GENESIS,
            [("source", "watch"), ("offset_seconds", "-300.0"), ("set_by", "organiser"),
             ("set_at", OPENS + timedelta(hours=1))],
        )  # fmt: skip
        close, lots = session.scalars(select(AuditEntry).order_by(AuditEntry.id)).all()
        assert (close.log_seq, lots.log_seq, lots.log_prev) == (None, 1, chain.GENESIS)
        assert lots.log_hash == chain.row_hash(chain.DECISION, 1, chain.GENESIS, [
            ("action", "auction.lots"), ("actor", "organiser"), ("subject", "place 3"),
            ("details", LOTS), ("created_at", CLOSES + timedelta(hours=1))])  # fmt: skip
        identities = session.scalars(
            select(ParticipantIdentity).order_by(ParticipantIdentity.log_seq)
        ).all()
        assert [(i.participant_id, i.log_seq, i.change, i.name, i.category, i.changed_by)
                for i in identities] == [(7, 1, "create", "A", None, "migration"),
                                         (8, 2, "create", "B", "M21", "migration")]  # fmt: skip
        heads = {h.name: (h.log_seq, h.log_head) for h in session.scalars(select(EventChain))}
        assert heads == {
            "clocks": (2, clocks[1].log_hash), "decisions": (1, lots.log_hash),
            "identities": (2, identities[1].log_hash),
        }  # fmt: skip
        event = session.get(Event, 1)
        report = log_chain.verify(session, event)
        assert (report["ok"], report["clocks"], report["decisions"], report["identities"]) == (
            True, 2, 1, 2)  # fmt: skip
        assert report["head"] == log_chain.head(session, event)["head"] == chain.event_head(
            [], [], [("clocks", 2, clocks[1].log_hash), ("decisions", 1, lots.log_hash),
                     ("identities", 2, identities[1].log_hash)])  # fmt: skip
