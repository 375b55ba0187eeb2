"""The flows' SQL: reads and writes that span several domains' tables.

- the event's log chains (`app.flows.log_chain`: stored heads, every chained row to
  recompute, the identity check);
- the event archive (`app.flows.archive`: every row of the event's tables, the state a
  replay must give back, and the updates of a restore once its rows are inserted);
- the phones' clock trust (`app.flows.device_trust`: contacts' offsets, the sync
  deadline, the organiser's review list);
- the hall screen's counts (`app.flows.hall`: takes per bar of the chart, the
  participants' tallies, card takes per CP, combinations saved).

Each function is one query for one event (`event_id`); rows are returned as SQLAlchemy
`Row`s (attribute access by column name) or ORM rows, in no particular order unless
stated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import pairwise
from typing import Any

from sqlalchemy import Row, Table, and_, bindparam, func, select, update
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core.audit import DECIDING_ACTIONS, AuditEntry
from app.events.models import Checkpoint, Event, Participant, ParticipantIdentity, SaveCode
from app.feed.models import (
    Combination,
    DeviceContact,
    IntegrationKey,
    ParticipantState,
    SourceClock,
    SyncDeadline,
    Take,
    TakeOutcome,
    TakeReview,
    TakeVoid,
)


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


# -- the event archive ------------------------------------------------------------------------


def table_rows(session: Session, table: Table, *where: Any) -> list[Mapping[str, Any]]:
    """Every column of `table`'s rows matching `where`, in id (else primary key) order."""
    order = table.c.id if "id" in table.c else next(iter(table.primary_key))
    return list(session.execute(select(table).where(*where).order_by(order)).mappings())


def event_tables(session: Session, event_id: int) -> dict[str, list[Mapping[str, Any]]]:
    """Every row of the event's own tables by archive section (`event`, `checkpoints`,
    `participants`, `participant_identities`, `save_codes`, `integration_keys`, `takes`,
    `take_voids`, `source_clocks`, `auctions`, `bid_withdrawals`, `audit`); the rounds and
    bids come through `app.auctions.views.archived_ceremony`."""
    eid = event_id
    t = {m: m.__table__ for m in (Event, Checkpoint, Participant, ParticipantIdentity,
                                  SaveCode, IntegrationKey, Take, TakeVoid, SourceClock,
                                  Auction, BidWithdrawal, AuditEntry)}  # fmt: skip
    of_event = select(Participant.id).where(Participant.event_id == eid)
    takes_of_event = select(Take.id).where(Take.event_id == eid)
    auctions_of_event = select(Auction.id).where(Auction.event_id == eid)
    bids_of_event = select(Bid.id).where(Bid.auction_id.in_(auctions_of_event))
    return {
        "event": table_rows(session, t[Event], t[Event].c.id == eid),
        "checkpoints": table_rows(session, t[Checkpoint], t[Checkpoint].c.event_id == eid),
        "participants": table_rows(session, t[Participant], t[Participant].c.event_id == eid),
        "participant_identities": table_rows(
            session, t[ParticipantIdentity], t[ParticipantIdentity].c.event_id == eid
        ),
        "save_codes": table_rows(session, t[SaveCode], t[SaveCode].c.participant_id.in_(of_event)),
        "integration_keys": table_rows(
            session, t[IntegrationKey], t[IntegrationKey].c.event_id == eid
        ),
        "takes": table_rows(session, t[Take], t[Take].c.event_id == eid),
        "take_voids": table_rows(session, t[TakeVoid], t[TakeVoid].c.take_id.in_(takes_of_event)),
        "source_clocks": table_rows(session, t[SourceClock], t[SourceClock].c.event_id == eid),
        "auctions": table_rows(session, t[Auction], t[Auction].c.event_id == eid),
        "bid_withdrawals": table_rows(
            session, t[BidWithdrawal], t[BidWithdrawal].c.bid_id.in_(bids_of_event)
        ),
        "audit": table_rows(session, t[AuditEntry], t[AuditEntry].c.event_id == eid),
    }


def external_ids(session: Session, event_id: int) -> dict[int, str]:
    """participant id → external id of every participant of the event."""
    return dict(
        session.execute(
            select(Participant.id, Participant.external_id).where(Participant.event_id == event_id)
        ).all()
    )


def participant_states(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(participant_id, state)` of every participant state of the event."""
    return session.execute(
        select(ParticipantState.participant_id, ParticipantState.state).where(
            ParticipantState.event_id == event_id
        )
    ).all()


def combination_rows(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """`(id, participant_id, cards, category, deal, saved_at)` of the event's saved
    combinations, by id."""
    return session.execute(
        select(
            Combination.id, Combination.participant_id, Combination.cards,
            Combination.category, Combination.deal, Combination.saved_at,
        ).where(Combination.event_id == event_id).order_by(Combination.id)
    ).all()  # fmt: skip


def checkpoint_numbers(session: Session, event_id: int) -> dict[int, int]:
    """checkpoint id → CP number of the event's checkpoints."""
    return dict(
        session.execute(
            select(Checkpoint.id, Checkpoint.number).where(Checkpoint.event_id == event_id)
        ).all()
    )


def outcome_rows(session: Session, event_id: int) -> Sequence[Row[Any]]:
    """Every take outcome of the event (with its last change), by take id."""
    return session.execute(
        select(
            TakeOutcome.take_id, TakeOutcome.kind, TakeOutcome.outcome, TakeOutcome.reason,
            TakeOutcome.card, TakeOutcome.checkpoint_id, TakeOutcome.deal, TakeOutcome.round,
            TakeOutcome.previous_outcome, TakeOutcome.previous_reason, TakeOutcome.changed_at,
        )
        .join(Take, Take.id == TakeOutcome.take_id)
        .where(Take.event_id == event_id)
        .order_by(TakeOutcome.take_id)
    ).all()  # fmt: skip


def set_event_status(
    session: Session, event_id: int, status: str, feed_frozen_at: datetime | None
) -> None:
    """Set a restored event's status and feed freeze (UTC) as archived."""
    session.execute(
        update(Event)
        .where(Event.id == event_id)
        .values(status=status, feed_frozen_at=feed_frozen_at)
    )


def set_round_result(session: Session, round_id: int | None, result: Any) -> None:
    """Set a restored round's decision (`auction_round.result`, JSON)."""
    rounds = AuctionRound.__table__
    session.execute(update(rounds).where(rounds.c.id == round_id).values(result=result))


def set_auction_winner(
    session: Session,
    auction_id: int | None,
    participant_id: int | None,
    combination_id: int | None,
) -> None:
    """Set a restored auction's winner (participant and combination ids, or None)."""
    session.execute(
        update(Auction)
        .where(Auction.id == auction_id)
        .values(winner_participant_id=participant_id, winner_combination_id=combination_id)
    )


def set_outcome_history(session: Session, rows: list[dict[str, Any]]) -> None:
    """Set restored take outcomes' last change, one executemany: rows of `{"tid": take id,
    "po": previous outcome, "pr": previous reason, "ca": changed_at (UTC) or None}`."""
    table = TakeOutcome.__table__
    session.connection().execute(
        update(table)
        .where(table.c.take_id == bindparam("tid"))
        .values(
            previous_outcome=bindparam("po"),
            previous_reason=bindparam("pr"),
            changed_at=bindparam("ca"),
        ),
        rows,
    )


# -- the phones' clock trust ------------------------------------------------------------------


def contact_offset_range(
    session: Session, event_id: int, source: str
) -> tuple[float | None, float | None]:
    """(lowest, highest) clock offset in seconds of the device `source`'s earlier contacts
    (None, None without one): two aggregates on `ix_device_contact_event_id_source_id`."""
    low, high = session.execute(
        select(
            func.min(DeviceContact.offset_seconds), func.max(DeviceContact.offset_seconds)
        ).where(DeviceContact.event_id == event_id, DeviceContact.source == source)
    ).one()
    return low, high


def take_times(session: Session, take_ids: Sequence[int]) -> Sequence[Row[Any]]:
    """`(id, taken_at, device_taken_at)` of the given takes (UTC)."""
    return session.execute(
        select(Take.id, Take.taken_at, Take.device_taken_at).where(Take.id.in_(take_ids))
    ).all()


def latest_sync_deadline(session: Session, event_id: int) -> datetime | None:
    """The deadline of the event's latest `sync_deadline` row (None: none, or cleared)."""
    return session.scalar(
        select(SyncDeadline.deadline)
        .where(SyncDeadline.event_id == event_id)
        .order_by(SyncDeadline.id.desc())
        .limit(1)
    )


def open_review_count(session: Session, event_id: int) -> int:
    """How many of the event's listed takes wait for a decision (one indexed count)."""
    return (
        session.scalar(
            select(func.count())
            .select_from(TakeReview)
            .where(TakeReview.event_id == event_id, TakeReview.decision.is_(None))
        )
        or 0
    )


def review_count(session: Session, event_id: int) -> int:
    """How many takes of the event were ever listed for review."""
    return (
        session.scalar(
            select(func.count()).select_from(TakeReview).where(TakeReview.event_id == event_id)
        )
        or 0
    )


def review_rows(session: Session, event_id: int, *, limit: int, offset: int) -> Sequence[Row[Any]]:
    """`(TakeReview, Take, external_id, name, TakeOutcome or None, CP number or None)` of
    the event's review list, undecided first, then by id; `limit` rows from `offset`."""
    return session.execute(
        select(
            TakeReview,
            Take,
            Participant.external_id,
            Participant.name,
            TakeOutcome,
            Checkpoint.number,
        )
        .join(Take, Take.id == TakeReview.take_id)
        .join(Participant, Participant.id == Take.participant_id)
        .outerjoin(TakeOutcome, TakeOutcome.take_id == Take.id)
        .outerjoin(Checkpoint, Checkpoint.id == TakeOutcome.checkpoint_id)
        .where(TakeReview.event_id == event_id)
        .order_by(TakeReview.decision.is_not(None), TakeReview.id)
        .limit(limit)
        .offset(offset)
    ).all()


# -- the hall screen (app.flows.hall) ---------------------------------------------------------


def takes_per_range(session: Session, event_id: int, edges: Sequence[datetime]) -> list[int]:
    """Takes of the event (field time `taken_at`, any outcome) in each
    `[edges[i], edges[i+1])` (UTC, ascending, at least two edges): one statement on the
    `(event_id, taken_at)` index."""
    columns = [
        func.count(Take.id).filter(Take.taken_at >= low, Take.taken_at < high)
        for low, high in pairwise(edges)
    ]
    row = session.execute(
        select(*columns).where(
            Take.event_id == event_id, Take.taken_at >= edges[0], Take.taken_at < edges[-1]
        )
    ).one()
    return [int(value or 0) for value in row]


def participant_tallies(
    session: Session, event_id: int, recent_since: datetime, closed: bool
) -> tuple[int, int, int]:
    """(registered participants, those with a take and one after UTC `recent_since`, the
    finished: with a take and none since, or with a take at all once `closed`), from
    the participants' tallies in one statement."""
    started = ParticipantState.takes > 0
    recent = ParticipantState.last_taken_at >= recent_since
    participants = (
        select(func.count()).select_from(Participant).where(Participant.event_id == event_id)
    ).scalar_subquery()
    on_course = func.count(ParticipantState.participant_id).filter(and_(started, recent))
    finished = func.count(ParticipantState.participant_id).filter(
        started if closed else and_(started, ~recent)
    )
    row = session.execute(
        select(participants, on_course, finished).where(ParticipantState.event_id == event_id)
    ).one()
    total, out, done = (int(value or 0) for value in row)
    return total, out, done


def card_takes_per_checkpoint(session: Session, event_id: int, outcome: str) -> dict[int, int]:
    """`{checkpoint id: card outcomes with outcome `outcome`}` of the event's CPs (those
    never taken left out): one grouped count over the card outcomes."""
    counted = session.execute(
        select(TakeOutcome.checkpoint_id, func.count())
        .join(Checkpoint, Checkpoint.id == TakeOutcome.checkpoint_id)
        .where(
            Checkpoint.event_id == event_id,
            TakeOutcome.kind == "card",
            TakeOutcome.outcome == outcome,
        )
        .group_by(TakeOutcome.checkpoint_id)
    )
    return {checkpoint_id: int(count) for checkpoint_id, count in counted}


def checkpoint_hints(session: Session, event_id: int) -> list[tuple[int, int, str | None]]:
    """(id, number, hint) of each CP of the event (no card, no code)."""
    rows = session.execute(
        select(Checkpoint.id, Checkpoint.number, Checkpoint.hint).where(
            Checkpoint.event_id == event_id
        )
    )
    return [(i, n, hint) for i, n, hint in rows]


def combination_count(session: Session, event_id: int) -> int:
    """Combinations saved in the event, in total."""
    query = select(func.count(Combination.id)).where(Combination.event_id == event_id)
    return int(session.scalar(query) or 0)
