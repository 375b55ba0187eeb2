"""The event's log chains across the feed and the ceremony: the head and `verify`.

The take log (takes, manual takes, voids) is chained per participant and the bid
log (bids, withdrawals) per auction (`app.core.chain`). The chain heads are kept
with the participant's state (`participant_state.log_seq/log_head`) and on the
auction row (`auction.log_seq/log_head`), written under the same row locks that
serialise the writes, so the event head is read without recomputing anything;
`verify` recomputes every chain from the rows themselves and checks it against
those heads. Three event-level chains cover the rest of what decides a result
(`app.core.ledger`, heads in `event_chain`): `clocks` (source clock offsets),
`decisions` (deciding audit entries: the lots, corrections) and `identities` (the
participants' external ids, names, categories); `verify` also checks every
participant row against its latest identity row. The head is version 2 (over all
of them); version 1 (takes and bids only) is still computed for older fixed heads
and archives.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.core import chain, ledger
from app.core.db import utcnow
from app.events import identity
from app.events.models import Event
from app.events.rules import EventStatus
from app.flows import repository

HEAD_VERSION = 2  # `chain.event_head` with the event-level chains


@dataclass(frozen=True)
class Heads:
    """Chain heads of an event: `(external_id, seq, head)`, `(place, seq, head)` and the
    event-level chains' `(name, seq, head)`."""

    participants: list[tuple[str, int, str]]
    auctions: list[tuple[int, int, str]]
    events: list[tuple[str, int, str]] = field(default_factory=list)

    @property
    def head(self) -> str:
        """The version 2 head (every chain)."""
        return chain.event_head(self.participants, self.auctions, self.events)

    @property
    def head_v1(self) -> str:
        """The version 1 head (the take and bid chains only: archives and fixed heads
        made before migration 0013)."""
        return chain.event_head(self.participants, self.auctions)

    def rows(self, name: str) -> int:
        """Rows in the event-level chain `name` (0 when it is empty)."""
        return sum(seq for n, seq, _ in self.events if n == name)

    def counts(self) -> dict[str, int]:
        """`{"takes", "bids", "clocks", "decisions", "identities"}`: rows per kind of chain."""
        return {"takes": self.takes, "bids": self.bids,
                **{name: self.rows(name) for name in chain.EVENT_CHAINS}}  # fmt: skip

    @property
    def takes(self) -> int:
        """Rows in the take chains (takes, manual takes and voids)."""
        return sum(seq for _, seq, _ in self.participants)

    @property
    def bids(self) -> int:
        """Rows in the bid chains (bids and withdrawals)."""
        return sum(seq for _, seq, _ in self.auctions)


def stored_heads(session: Session, event_id: int) -> Heads:
    """The chain heads kept with the participants' states, on the auction rows and in
    `event_chain` (three indexed queries; one row per participant with a take)."""
    participants = repository.participant_heads(session, event_id)
    return Heads(
        [(e, s, h or "") for e, s, h in participants],
        _auction_heads(session, event_id),
        _event_chain_heads(session, event_id),
    )


def _auction_heads(session: Session, event_id: int) -> list[tuple[int, int, str]]:
    auctions = repository.auction_heads(session, event_id)
    return [(p, s, h or "") for p, s, h in auctions]


def _event_chain_heads(session: Session, event_id: int) -> list[tuple[str, int, str]]:
    events = [(n, s, h or "") for n, (s, h) in ledger.heads(session, event_id).items() if s]
    return sorted(events)


# The frozen events' take chain heads and their last event head, by (event id, created_at,
# feed_frozen_at): once the feed is frozen (the ceremony) no take, void or replay can
# change the take chains, so the ceremony's pages read and hash them once per process
# and bid change instead of once per request (issue 24). The bid chains and the
# event-level chains (clocks, decisions, identities) are read each time.
_Frozen = tuple[
    list[tuple[str, int, str]], list[tuple[int, int, str]], list[tuple[str, int, str]], str
]
_FROZEN_HEADS: dict[tuple[int, str, str], _Frozen] = {}
_FROZEN_KEEP = 32  # events remembered per process


def _frozen_key(event: Event) -> tuple[int, str, str] | None:
    if event.feed_frozen_at is None:
        return None
    return (event.id, str(event.created_at), event.feed_frozen_at.isoformat())


def event_heads(session: Session, event: Event) -> tuple[Heads, str]:
    """`stored_heads` of `event` and the event head over them; while the event's feed is
    frozen the take chains' part is remembered (`_FROZEN_HEADS`) and the head is hashed
    again only when an auction's or an event-level chain moved."""
    key = _frozen_key(event)
    remembered = _FROZEN_HEADS.get(key) if key else None
    if remembered is None:
        heads = stored_heads(session, event.id)
    else:
        heads = Heads(
            remembered[0],
            _auction_heads(session, event.id),
            _event_chain_heads(session, event.id),
        )
        if (heads.auctions, heads.events) == (remembered[1], remembered[2]):
            return heads, remembered[3]
    value = heads.head
    if key is not None:
        if key not in _FROZEN_HEADS and len(_FROZEN_HEADS) >= _FROZEN_KEEP:
            _FROZEN_HEADS.pop(next(iter(_FROZEN_HEADS)))
        _FROZEN_HEADS[key] = (heads.participants, heads.auctions, heads.events, value)
    return heads, value


def head(session: Session, event: Event, *, now: datetime | None = None) -> dict[str, Any]:
    """`{"head", "version", "takes", "bids", "clocks", "decisions", "identities", "at"}`: the
    event head (64 hex digits, `version` 2), the rows of the chains it covers (takes and
    voids; bids and withdrawals; source clock offsets; deciding audit entries; identity
    rows), and the UTC time it was read. Public: hashes and counts only."""
    heads, value = event_heads(session, event)
    return {"head": value, "version": HEAD_VERSION, **heads.counts(), "at": now or utcnow()}


def fix_head(session: Session, event: Event, *, now: datetime | None = None) -> dict[str, Any]:
    """Store the event head on the event row (`event.final_log_head`) and return it: called
    when the last auction closed and the event became `finished`, when the feed is frozen
    and no bid can change any more (RULES.md: the ceremony's combinations must not change).
    Shape as `head`, with `at` as an ISO 8601 UTC string (a JSON column)."""
    heads = stored_heads(session, event.id)  # read afresh: the value kept for good
    at = (now or utcnow()).isoformat()
    value = {"head": heads.head, "version": HEAD_VERSION, **heads.counts(), "at": at}
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
    return event.final_log_head if event.status == EventStatus.FINISHED else None


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
    takes = repository.take_rows(session, event_id)
    voids = repository.void_rows(session, event_id)
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
    bids = repository.bid_rows(session, event_id)
    bid_hash = {bid.id: bid.log_hash or "" for bid, _ in bids}
    withdrawals = repository.withdrawal_rows(session, event_id)
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


def event_links(session: Session, event_id: int) -> tuple[dict[str, list[chain.Link]], list[Any]]:
    """The event-level chains as stored (`{name: links}` in `log_seq` order, unchained
    rows last) and the identity rows (for the participants' check)."""
    clocks = repository.source_clocks(session, event_id)
    decisions = repository.deciding_entries(session, event_id)
    identities = repository.identity_rows(session, event_id)
    rows: dict[str, list[tuple[Any, chain.Link]]] = {name: [] for name in chain.EVENT_CHAINS}
    for c in clocks:
        content = chain.source_clock_content(
            source=c.source, offset_seconds=c.offset_seconds, set_by=c.set_by, set_at=c.set_at
        )
        rows[chain.CLOCKS].append(
            (c, _link(f"source_clock {c.id}", chain.SOURCE_CLOCK, c, content))
        )
    for a in decisions:
        content = chain.decision_content(
            action=a.action, actor=a.actor, subject=a.subject, details=a.details,
            created_at=a.created_at,
        )  # fmt: skip
        rows[chain.DECISIONS].append((a, _link(f"audit_entry {a.id}", chain.DECISION, a, content)))
    for i in identities:
        content = identity.content_of(vars(i))
        rows[chain.IDENTITIES].append(
            (i, _link(f"participant_identity {i.id}", chain.IDENTITY, i, content))
        )
    links = {
        name: [link for row, link in sorted(entries, key=lambda e: _order(e[0]))]
        for name, entries in rows.items()
    }
    return links, list(identities)


def _link(label: str, tag: str, row: Any, content: list[chain.Field]) -> chain.Link:
    return chain.Link(label, tag, row.log_seq, row.log_prev, row.log_hash, content)


def _order(row: Any) -> tuple[bool, int, int]:
    return (row.log_seq is None, row.log_seq or 0, row.id)


def identity_mismatch(
    session: Session, event_id: int, identities: Sequence[Any]
) -> dict[str, Any] | None:
    """The first participant (by external id) whose row differs from its latest identity
    row (external id, name, category), or has none, or whose latest row says `delete`;
    then the first identity row of a participant that is gone without a `delete`.
    `{"chain": "identities", "row": "participant 7" | "participant_identity 9", "seq",
    "problem": "identity"}`, or None."""
    latest: dict[int, Any] = {}
    for row in sorted(identities, key=_order):
        if row.participant_id is not None:
            latest[row.participant_id] = row
    participants = repository.participant_identities(session, event_id)
    for p in participants:
        row = latest.get(p.id)
        shown = (row.external_id, row.name, row.category) if row is not None else None
        if shown != (p.external_id, p.name, p.category) or row.change == "delete":
            seq = row.log_seq if row is not None else None
            return {"chain": chain.IDENTITIES, "row": f"participant {p.id}", "seq": seq,
                    "problem": "identity"}  # fmt: skip
    present = {p.id for p in participants}
    for pid, row in sorted(latest.items(), key=lambda item: _order(item[1])):
        if pid not in present and row.change != "delete":
            return {"chain": chain.IDENTITIES, "row": f"participant_identity {row.id}",
                    "seq": row.log_seq, "problem": "identity"}  # fmt: skip
    return None


def verify(session: Session, event: Event) -> dict[str, Any]:
    """Recompute every chain of the event and compare it with the stored rows and heads.

    Returns `{"ok", "head", "version", "takes", "bids", "clocks", "decisions",
    "identities", "chains", "first_mismatch"}`: `head` (version 2) and the row counts
    as recomputed from the rows (`head` equals `…/log/head` when `ok`);
    `first_mismatch` is None or `{"chain": "participant <external_id>" | "auction
    <place>" | "clocks" | "decisions" | "identities", "row": "take 17" | "take_void 3"
    | "bid 4" | "bid_withdrawal 2" | "source_clock 5" | "audit_entry 8" |
    "participant_identity 6" | "participant 7", "seq", "problem"}` with `problem` one of
    `chain.first_mismatch`'s, `head` (the chain's stored head is not its last row:
    rows were removed) or `identity` (a participant row differs from its latest identity
    row: edited outside the service), chains checked in the head's order (participants
    by external id, auctions by place, then clocks, decisions, identities).
    """
    heads, first = _verify_logs(session, event.id)
    links, identities = event_links(session, event.id)
    stored = ledger.heads(session, event.id)
    for name in chain.EVENT_CHAINS:
        seq, head_hash = stored.get(name, (0, None))
        if first is None:
            first = _check(name, links[name], seq, head_hash)
        if links[name]:
            heads.events.append((name, len(links[name]), links[name][-1].hash or ""))
    if first is None:
        first = identity_mismatch(session, event.id, identities)
    return {
        "ok": first is None,
        "head": heads.head,
        "version": HEAD_VERSION,
        **heads.counts(),
        "chains": len(heads.participants) + len(heads.auctions) + len(heads.events),
        "first_mismatch": first,
        "head_v1": heads.head_v1,
    }


def _verify_logs(session: Session, event_id: int) -> tuple[Heads, dict[str, Any] | None]:
    """The take and bid chains recomputed: their heads and the first mismatch."""
    takes, take_hashes = take_links(session, event_id)
    bids = bid_links(session, event_id, take_hashes)
    participants = repository.participant_chain_states(session, event_id)
    auctions = repository.auction_chain_states(session, event_id)
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
    return heads, first
