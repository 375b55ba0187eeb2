"""The event's log chains across the feed and the ceremony: the head and `verify`.

The take log (takes, manual takes, voids) is chained per participant and the bid
log (bids, withdrawals) per auction (`app.core.chain`). The chain heads are kept
with the participant's state (`participant_state.log_seq/log_head`) and on the
auction row (`auction.log_seq/log_head`), written under the same row locks that
serialise the writes, so the event head is read without recomputing anything;
`verify` recomputes every chain from the rows themselves and checks it against
those heads.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core import chain
from app.core.db import utcnow
from app.events.models import Event, Participant
from app.feed.models import ParticipantState, Take, TakeVoid


@dataclass(frozen=True)
class Heads:
    """Chain heads of an event: `(external_id, seq, head)` and `(place, seq, head)`."""

    participants: list[tuple[str, int, str]]
    auctions: list[tuple[int, int, str]]

    @property
    def head(self) -> str:
        return chain.event_head(self.participants, self.auctions)

    @property
    def takes(self) -> int:
        """Rows in the take chains (takes, manual takes and voids)."""
        return sum(seq for _, seq, _ in self.participants)

    @property
    def bids(self) -> int:
        """Rows in the bid chains (bids and withdrawals)."""
        return sum(seq for _, seq, _ in self.auctions)


def stored_heads(session: Session, event_id: int) -> Heads:
    """The chain heads kept with the participants' states and on the auction rows (two
    indexed queries; one row per participant with a take)."""
    participants = session.execute(
        select(Participant.external_id, ParticipantState.log_seq, ParticipantState.log_head)
        .join(Participant, Participant.id == ParticipantState.participant_id)
        .where(ParticipantState.event_id == event_id, ParticipantState.log_seq > 0)
    ).all()
    return Heads([(e, s, h or "") for e, s, h in participants], _auction_heads(session, event_id))


def _auction_heads(session: Session, event_id: int) -> list[tuple[int, int, str]]:
    auctions = session.execute(
        select(Auction.place, Auction.log_seq, Auction.log_head).where(
            Auction.event_id == event_id, Auction.log_seq > 0
        )
    ).all()
    return [(p, s, h or "") for p, s, h in auctions]


# The frozen events' take chain heads and their last event head, by (event id, created_at,
# feed_frozen_at): once the feed is frozen (the ceremony) no take, void or replay can
# change the take chains, so the ceremony's pages read and hash them once per process
# and bid change instead of once per request (issue 24).
_Frozen = tuple[list[tuple[str, int, str]], list[tuple[int, int, str]], str]
_FROZEN_HEADS: dict[tuple[int, str, str], _Frozen] = {}
_FROZEN_KEEP = 32  # events remembered per process


def _frozen_key(event: Event) -> tuple[int, str, str] | None:
    if event.feed_frozen_at is None:
        return None
    return (event.id, str(event.created_at), event.feed_frozen_at.isoformat())


def event_heads(session: Session, event: Event) -> tuple[Heads, str]:
    """`stored_heads` of `event` and the event head over them; while the event's feed is
    frozen the take chains' part is remembered (`_FROZEN_HEADS`) and the head is hashed
    again only when an auction's chain moved."""
    key = _frozen_key(event)
    remembered = _FROZEN_HEADS.get(key) if key else None
    if remembered is None:
        heads = stored_heads(session, event.id)
    else:
        heads = Heads(remembered[0], _auction_heads(session, event.id))
        if heads.auctions == remembered[1]:
            return heads, remembered[2]
    value = heads.head
    if key is not None:
        if key not in _FROZEN_HEADS and len(_FROZEN_HEADS) >= _FROZEN_KEEP:
            _FROZEN_HEADS.pop(next(iter(_FROZEN_HEADS)))
        _FROZEN_HEADS[key] = (heads.participants, heads.auctions, value)
    return heads, value


def head(session: Session, event: Event, *, now: datetime | None = None) -> dict[str, Any]:
    """`{"head", "takes", "bids", "at"}`: the event head (64 hex digits), the rows of the take
    chains (takes and voids) and of the bid chains (bids and withdrawals) it covers, and
    the UTC time it was read. Public: hashes and counts only (the bid count is public)."""
    heads, value = event_heads(session, event)
    return {"head": value, "takes": heads.takes, "bids": heads.bids, "at": now or utcnow()}


def fix_head(session: Session, event: Event, *, now: datetime | None = None) -> dict[str, Any]:
    """Store the event head on the event row (`event.final_log_head`) and return it: called
    when the last auction closed and the event became `finished`, when the feed is frozen
    and no bid can change any more (RULES.md: the ceremony's combinations must not change).
    Shape as `head`, with `at` as an ISO 8601 UTC string (a JSON column)."""
    heads = stored_heads(session, event.id)  # read afresh: the value kept for good
    at = (now or utcnow()).isoformat()
    value = {"head": heads.head, "takes": heads.takes, "bids": heads.bids, "at": at}
    event.final_log_head = value
    session.flush()
    return event.final_log_head


def unfix_head(session: Session, event: Event) -> None:
    """Clear the stored head: an undone last close makes the event `ceremony` again."""
    event.final_log_head = None
    session.flush()


def final_head(event: Event) -> dict[str, Any] | None:
    """The head fixed at the finish (`fix_head`), or None while the event is not `finished`.
    Reads the event row only: its cost does not grow with the number of participants."""
    return event.final_log_head if event.status == "finished" else None


def shown_head(session: Session, event: Event) -> dict[str, Any]:
    """The head a page or a file prints: the one fixed at the finish when there is one,
    otherwise `head` read now (before the finish, or an event finished before the column)."""
    return final_head(event) or head(session, event)


# -- recomputing every chain -------------------------------------------------------------------


def take_links(
    session: Session, event_id: int
) -> tuple[dict[int, list[chain.Link]], dict[int, str]]:
    """Every participant's take chain as stored, by participant id (rows in `log_seq`
    order, unchained rows last), and the stored hash of every take by id."""
    takes = session.execute(
        select(
            Take.id, Take.participant_id, Take.source, Take.source_id, Take.code, Take.taken_at,
            Take.received_at, Take.recorded_by, Take.payload, Take.device_taken_at,
            Take.clock_offset_seconds, Take.log_seq, Take.log_prev, Take.log_hash,
        ).where(Take.event_id == event_id)
    ).all()  # fmt: skip
    voids = session.execute(
        select(
            TakeVoid.id, Take.participant_id, Take.log_hash.label("take_hash"), TakeVoid.reason,
            TakeVoid.voided_by, TakeVoid.voided_at, TakeVoid.log_seq, TakeVoid.log_prev,
            TakeVoid.log_hash,
        ).join(Take, Take.id == TakeVoid.take_id).where(Take.event_id == event_id)
    ).all()  # fmt: skip
    rows: dict[int, list[tuple[Any, chain.Link]]] = defaultdict(list)
    for t in takes:
        content = chain.take_content(
            source=t.source, source_id=t.source_id, code=t.code, taken_at=t.taken_at,
            received_at=t.received_at, recorded_by=t.recorded_by, payload=t.payload,
            device_taken_at=t.device_taken_at, clock_offset_seconds=t.clock_offset_seconds,
        )  # fmt: skip
        link = chain.Link(f"take {t.id}", chain.TAKE, t.log_seq, t.log_prev, t.log_hash, content)
        rows[t.participant_id].append(((t.log_seq is None, t.log_seq or 0, 0, t.id), link))
    for v in voids:
        content = chain.void_content(
            take_hash=v.take_hash or "", reason=v.reason, voided_by=v.voided_by,
            voided_at=v.voided_at,
        )  # fmt: skip
        link = chain.Link(
            f"take_void {v.id}", chain.TAKE_VOID, v.log_seq, v.log_prev, v.log_hash, content
        )
        rows[v.participant_id].append(((v.log_seq is None, v.log_seq or 0, 1, v.id), link))
    links = {pid: [link for _, link in sorted(entries)] for pid, entries in rows.items()}
    return links, {t.id: t.log_hash or "" for t in takes}


def bid_links(
    session: Session, event_id: int, take_hashes: dict[int, str]
) -> dict[int, list[chain.Link]]:
    """Every auction's bid chain as stored, by auction id (`log_seq` order)."""
    bids = session.execute(
        select(Bid, AuctionRound.number)
        .join(AuctionRound, AuctionRound.id == Bid.round_id)
        .join(Auction, Auction.id == Bid.auction_id)
        .where(Auction.event_id == event_id)
    ).all()
    bid_hash = {bid.id: bid.log_hash or "" for bid, _ in bids}
    withdrawals = session.execute(
        select(BidWithdrawal, Bid.auction_id)
        .join(Bid, Bid.id == BidWithdrawal.bid_id)
        .join(Auction, Auction.id == Bid.auction_id)
        .where(Auction.event_id == event_id)
    ).all()
    rows: dict[int, list[tuple[Any, chain.Link]]] = defaultdict(list)
    for bid, number in bids:
        content = chain.bid_content(
            round_number=number, combination_hash=take_hashes.get(bid.combination_id, ""),
            cards=bid.sealed_cards, nonce=bid.sealed_nonce, receipt=bid.receipt,
            placed_by=bid.placed_by, created_at=bid.created_at,
        )  # fmt: skip
        link = chain.Link(
            f"bid {bid.id}", chain.BID, bid.log_seq, bid.log_prev, bid.log_hash, content
        )
        rows[bid.auction_id].append(((bid.log_seq is None, bid.log_seq or 0, 0, bid.id), link))
    for w, auction_id in withdrawals:
        content = chain.withdrawal_content(
            bid_hash=bid_hash.get(w.bid_id, ""), reason=w.reason,
            replaced_by_hash=bid_hash.get(w.replaced_by_bid_id) if w.replaced_by_bid_id else None,
            withdrawn_by=w.withdrawn_by, created_at=w.created_at,
        )  # fmt: skip
        link = chain.Link(
            f"bid_withdrawal {w.id}", chain.BID_WITHDRAWAL, w.log_seq, w.log_prev, w.log_hash,
            content,
        )  # fmt: skip
        rows[auction_id].append(((w.log_seq is None, w.log_seq or 0, 1, w.id), link))
    return {aid: [link for _, link in sorted(entries)] for aid, entries in rows.items()}


def _check(
    chain_name: str, links: Sequence[chain.Link], seq: int, head_hash: str | None
) -> dict[str, Any] | None:
    """The first mismatch of one chain, or of its stored head against its last row."""
    mismatch = chain.first_mismatch(links)
    if mismatch is not None:
        return {
            "chain": chain_name, "row": mismatch.label, "seq": mismatch.seq,
            "problem": mismatch.problem,
        }  # fmt: skip
    last = links[-1] if links else None
    if (last.seq if last else 0) != seq or (last.hash if last else None) != head_hash:
        # rows were removed from the end of the chain (or the head was edited)
        return {"chain": chain_name, "row": last.label if last else None,
                "seq": last.seq if last else 0, "problem": "head"}  # fmt: skip
    return None


def verify(session: Session, event: Event) -> dict[str, Any]:
    """Recompute every chain of the event and compare it with the stored rows and heads.

    Returns `{"ok", "head", "takes", "bids", "chains", "first_mismatch"}`:
    `head`/`takes`/`bids` as recomputed from the rows (`head` equals `…/log/head`
    when `ok`); `first_mismatch` is None or `{"chain": "participant <external_id>" |
    "auction <place>", "row": "take 17" | "take_void 3" | "bid 4" | "bid_withdrawal 2",
    "seq", "problem"}` with `problem` one of `chain.first_mismatch`'s or `head` (the
    chain's stored head is not its last row: rows were removed), chains checked in the
    head's order (participants by external id, then auctions by place).
    """
    takes, take_hashes = take_links(session, event.id)
    bids = bid_links(session, event.id, take_hashes)
    participants = session.execute(
        select(
            Participant.id, Participant.external_id,
            func.coalesce(ParticipantState.log_seq, 0), ParticipantState.log_head,
        )
        .outerjoin(ParticipantState, ParticipantState.participant_id == Participant.id)
        .where(Participant.event_id == event.id)
    ).all()  # fmt: skip
    auctions = session.execute(
        select(Auction.id, Auction.place, Auction.log_seq, Auction.log_head).where(
            Auction.event_id == event.id
        )
    ).all()
    first: dict[str, Any] | None = None
    heads = Heads([], [])
    for pid, external_id, seq, head_hash in sorted(participants, key=lambda p: p[1]):
        links = takes.get(pid, [])
        if first is None:
            first = _check(f"participant {external_id}", links, seq, head_hash)
        if links:
            heads.participants.append((external_id, len(links), links[-1].hash or ""))
    for aid, place, seq, head_hash in sorted(auctions, key=lambda a: a.place):
        links = bids.get(aid, [])
        if first is None:
            first = _check(f"auction {place}", links, seq, head_hash)
        if links:
            heads.auctions.append((place, len(links), links[-1].hash or ""))
    return {
        "ok": first is None,
        "head": heads.head,
        "takes": heads.takes,
        "bids": heads.bids,
        "chains": len(heads.participants) + len(heads.auctions),
        "first_mismatch": first,
    }
