"""The award ceremony: open, bid, withdraw, close, undo, verify, results (RULES.md §1.4).

Every state change locks what it changes (the event row for ceremony steps, the
auction row for bids and the close: SELECT ... FOR UPDATE on PostgreSQL) and is
recorded in the audit trail. Services flush, never commit. Before a round
closes nothing here returns a bid's combination, and the audit entries of bids
carry only receipts, so the organiser's audit view cannot unseal them either.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from app.auctions import repository as repo
from app.auctions import rules
from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core import chain, csvfiles
from app.core.audit import record
from app.core.db import utcnow
from app.core.errors import Conflict, Forbidden, NotFound, Unprocessable
from app.events import service as event_service
from app.events.models import Event, Participant
from app.feed.models import Combination
from app.poker.cards import display
from app.poker.evaluator import evaluate


@dataclass(frozen=True)
class Caller:
    """Who is asking: the organiser, a participant of the event, or anybody."""

    organiser: bool
    participant: Participant | None = None

    @property
    def actor(self) -> str:
        if self.organiser:
            return "organiser"
        if self.participant is not None:
            return f"participant:{self.participant.external_id}"
        return "anonymous"


def _category_name(value: Any) -> str:
    return str(getattr(value, "value", value))


def _check_place(event: Event, place: int) -> None:
    if not 1 <= place <= event.award_places:
        raise NotFound(
            f"Event {event.id} awards places 1 to {event.award_places}; there is no place {place}.",
            code="auction_not_found",
        )


def _local_time(event: Event, moment: datetime) -> str:
    return event_service.local_time(event, moment)


def _statuses(session: Session, event_id: int) -> dict[int, str]:
    return {place: a.status for place, a in repo.auctions_of_event(session, event_id).items()}


def ceremony_over(session: Session, event: Event) -> bool:
    """True when the auction of every place is closed (the last one decided)."""
    statuses = _statuses(session, event.id)
    return all(
        statuses.get(place) == "closed" for place in rules.ceremony_order(event.award_places)
    )


def _combination_json(combination_id: int, cards: list[str], ranking: str) -> dict[str, Any]:
    value = evaluate(cards, ranking)
    return {
        "id": combination_id,
        "cards": list(cards),
        "display": [display(card) for card in cards],
        "category": _category_name(value.category),
        "description": value.description,
    }


# ------------------------------------------------------------------------ open


def open_auction(session: Session, event: Event, place: int, caller: Caller) -> dict[str, Any]:
    """Open the auction for `place` (organiser). Round 1 starts, open to every participant
    who has not won a place.

    Raises 404 `auction_not_found` (no such place), 409 `course_still_open` (the
    course window has not ended), and the ceremony-order problems of
    `rules.check_can_open` (lowest place first, one auction at a time).
    """
    _check_place(event, place)
    repo.lock_event(session, event.id)
    now = utcnow()
    if now < event.closes_at:
        raise Conflict(
            f"The course closes at {_local_time(event, event.closes_at)} "
            f"({event.closes_at.astimezone(UTC).isoformat()}); auctions open after that.",
            code="course_still_open",
        )
    rules.check_can_open(place, _statuses(session, event.id), event.award_places)
    auction = repo.get_auction(session, event.id, place)
    if auction is None:
        auction = Auction(event_id=event.id, place=place)
        session.add(auction)
    auction.status = "open"
    auction.current_round = 1
    auction.opened_at = now
    if event.feed_frozen_at is None:
        # The ceremony begins: the feed is frozen (an UPDATE of the locked event row, so a
        # delivery waiting for that lock sees it; app.feed.service.feed_frozen).
        event.feed_frozen_at = now
    session.flush()
    session.add(AuctionRound(auction_id=auction.id, number=1, status="open", opened_at=now))
    session.flush()
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.open",
        subject=f"place {place}",
        details={"place": place, "round": 1},
    )
    return auction_view(session, event, place, caller)


# ------------------------------------------------------------------------ bids


def _bidder(session: Session, event: Event, caller: Caller, external_id: str | None) -> Participant:
    if caller.participant is not None and not caller.organiser:
        if external_id is not None and external_id != caller.participant.external_id:
            raise Forbidden("A participant may only bid for themselves.", code="not_your_bid")
        return caller.participant
    if external_id is None:
        raise Unprocessable(
            "`participant` is required when the organiser bids.", code="participant_required"
        )
    participant = repo.participant_by_external_id(session, event.id, external_id)
    if participant is None:
        raise Unprocessable(
            f"No participant {external_id!r} in this event.", code="participant_not_found"
        )
    return participant


def _open_round(
    session: Session, auction: Auction | None, round_number: int | None
) -> AuctionRound:
    status = "pending" if auction is None else auction.status
    if status == "pending":
        raise rules.BidRefused("This auction has not been opened yet.", code="auction_not_open")
    if status == "closed":
        raise rules.BidRefused("This auction is closed.", code="auction_closed")
    assert auction is not None
    if round_number is not None and round_number != auction.current_round:
        raise rules.BidRefused(
            f"Round {round_number} is not the open round (round {auction.current_round} is).",
            code="round_closed",
        )
    current = repo.get_round(session, auction.id, auction.current_round)
    assert current is not None and current.status == "open"
    return current


def place_bid(
    session: Session,
    event: Event,
    place: int,
    caller: Caller,
    *,
    participant: str | None,
    combination_id: int,
    round_number: int | None = None,
) -> dict[str, Any]:
    """Put one combination into the open round of auction `place` (RULES.md I-7).

    A second bid of the same participant in the same round replaces the first
    (the old bid gets a `replaced` withdrawal row; nothing is deleted). Returns
    `{bid_id, receipt, place, round, replaced_bid_id}`; the receipt commits to
    (event, place, round, bidder, combination, a secret nonce) — RULES.md I-10.
    Raises the problems of `rules.check_bid`, 403 `not_your_bid`, 422
    `participant_not_found` / `participant_required`, 409 `round_closed`.
    """
    _check_place(event, place)
    bidder = _bidder(session, event, caller, participant)
    auction = repo.get_auction(session, event.id, place, lock=True)
    current = _open_round(session, auction, round_number)
    assert auction is not None
    combination = repo.combination_in_event(session, event.id, combination_id)
    facts = None
    if combination is not None:
        # only "whose is it" matters: the bidder's own, or somebody else's
        owner = (
            bidder.external_id
            if combination.participant_id == bidder.id
            else f"participant #{combination.participant_id}"
        )
        facts = rules.CombinationFacts(combination.id, owner, combination.saved_at)
    winners = repo.external_ids_of(session, repo.winner_ids(session, event.id))
    eligible = None
    if current.eligible is not None:
        eligible = set(repo.external_ids_of(session, current.eligible).values())
    rules.check_bid(
        auction_status=auction.status,
        bidder=bidder.external_id,
        combination=facts,
        opens_at=event.opens_at,
        closes_at=event.closes_at,
        used_combinations={combination_id}
        if repo.combination_is_used(session, event.id, combination_id)
        else set(),
        winners=set(winners.values()),
        round_eligible=eligible,
    )
    assert combination is not None
    previous = repo.live_bid_of(session, current.id, bidder.id)
    nonce = secrets.token_hex(16)
    receipt = rules.commitment(
        event_id=event.id,
        place=place,
        round_number=current.number,
        bidder=bidder.external_id,
        combination_id=combination.id,
        nonce=nonce,
    )
    now = utcnow()
    bid = Bid(
        auction_id=auction.id,
        round_id=current.id,
        participant_id=bidder.id,
        combination_id=combination.id,
        cards=list(combination.cards),
        nonce=nonce,
        receipt=receipt,
        placed_by=caller.actor,
        created_at=now,
    )
    _chain(
        auction,
        bid,
        chain.BID,
        chain.bid_content(
            round_number=current.number,
            combination_hash=repo.take_hash(session, combination.id),
            cards=bid.cards,
            nonce=nonce,
            receipt=receipt,
            placed_by=caller.actor,
            created_at=now,
        ),
    )
    session.add(bid)
    session.flush()
    if previous is not None:
        _withdraw(session, auction, previous, "replaced", caller.actor, replaced_by=bid)
    # The audit entry carries the receipt only: the combination stays sealed.
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.bid_replace" if previous is not None else "auction.bid",
        subject=f"place {place}",
        details={
            "place": place,
            "round": current.number,
            "participant": bidder.external_id,
            "bid_id": bid.id,
            "receipt": receipt,
            "replaced_bid_id": previous.id if previous is not None else None,
        },
    )
    return {
        "bid_id": bid.id,
        "receipt": receipt,
        "place": place,
        "round": current.number,
        "replaced_bid_id": previous.id if previous is not None else None,
    }


def _chain(auction: Auction, row: Bid | BidWithdrawal, tag: str, content: Any) -> None:
    """Append `row` to the auction's hash chain (app.core.chain; the auction row is locked)."""
    row.log_seq, row.log_prev, row.log_hash = chain.next_link(
        auction.log_seq, auction.log_head, tag, content
    )
    auction.log_seq, auction.log_head = row.log_seq, row.log_hash


def _withdraw(
    session: Session,
    auction: Auction,
    bid: Bid,
    reason: str,
    actor: str,
    *,
    replaced_by: Bid | None = None,
) -> None:
    """Store a withdrawal of `bid` (`replaced` by `replaced_by`, or `withdrawn`), chained."""
    now = utcnow()
    row = BidWithdrawal(
        bid_id=bid.id,
        reason=reason,
        replaced_by_bid_id=replaced_by.id if replaced_by else None,
        withdrawn_by=actor,
        created_at=now,
    )
    content = chain.withdrawal_content(
        bid_hash=bid.log_hash or "",
        reason=reason,
        replaced_by_hash=replaced_by.log_hash if replaced_by else None,
        withdrawn_by=actor,
        created_at=now,
    )
    _chain(auction, row, chain.BID_WITHDRAWAL, content)
    session.add(row)
    session.flush()


def withdraw_bid(
    session: Session, event: Event, place: int, caller: Caller, bid_id: int
) -> dict[str, Any]:
    """Withdraw a live bid before the close (RULES.md I-7): organiser, or the bidder.

    Raises 404 `bid_not_found`, 403 `not_your_bid`, 409 `auction_not_open` /
    `auction_closed` / `round_closed` (the bid's round is over), 409
    `bid_not_live` (already replaced or withdrawn).
    """
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place, lock=True)
    bid = repo.get_bid(session, bid_id)
    if auction is None or bid is None or bid.auction_id != auction.id:
        raise NotFound(f"No bid {bid_id} in the auction for place {place}.", code="bid_not_found")
    if not caller.organiser and (
        caller.participant is None or caller.participant.id != bid.participant_id
    ):
        raise Forbidden("Only the bidder or the organiser may withdraw a bid.", code="not_your_bid")
    current = _open_round(session, auction, None)
    if bid.round_id != current.id:
        raise rules.BidRefused("That bid belongs to a closed round.", code="round_closed")
    if repo.withdrawal_of(session, bid.id) is not None:
        raise rules.BidRefused("That bid was already replaced or withdrawn.", code="bid_not_live")
    _withdraw(session, auction, bid, "withdrawn", caller.actor)
    ext = repo.external_ids_of(session, [bid.participant_id])
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.bid_withdraw",
        subject=f"place {place}",
        details={
            "place": place,
            "round": current.number,
            "bid_id": bid.id,
            "participant": ext.get(bid.participant_id),
            "receipt": bid.receipt,
        },
    )
    return {"bid_id": bid.id, "status": "withdrawn"}


# ----------------------------------------------------------------------- close


def _usable_combination_ids(
    event: Event, combinations: list[Combination], used: set[int]
) -> list[int]:
    """The combinations that may still be bid: saved while the course was open
    (`[opens_at, closes_at)`) and not yet put into any auction (RULES.md §1.4)."""
    return [
        c.id
        for c in combinations
        if c.id not in used and event.opens_at <= c.saved_at < event.closes_at
    ]


def usable_combination_ids(session: Session, event: Event, participant_id: int) -> set[int]:
    """Ids of the participant's combinations that may still be bid (`_usable_combination_ids`:
    saved inside the course window, never bid before). Pages list these as bid choices."""
    used = repo.used_combination_ids(session, event.id)
    return set(_usable_combination_ids(event, repo.combinations_of(session, participant_id), used))


def close_auction(
    session: Session, event: Event, place: int, caller: Caller, *, lots_seed: int | None = None
) -> dict[str, Any]:
    """Close the open round of auction `place` and reveal it (RULES.md §1.4, I-9).

    The live bids are ranked under the event's preset (`event.hand_ranking`);
    the outcome follows `rules.decide_round`. When it decides the place the
    auction closes (winner or unawarded); on a tie with two or more tied bidders
    able to rebid, a tie-break round opens for them and the auction stays open.
    Lots use `lots_seed` or a fresh random seed; seed and result are recorded.
    Returns the `CloseRead` shape. Raises 409 `auction_not_open` / `auction_closed`.
    """
    _check_place(event, place)
    repo.lock_event(session, event.id)
    auction = repo.get_auction(session, event.id, place, lock=True)
    current = _open_round(session, auction, None)
    assert auction is not None
    ext = repo.external_ids(session, event.id)
    bids = repo.live_bid_rows(session, current.id)
    # the combination as it stands now (the feed may have replayed); the bid's snapshot
    # if the projection no longer has it
    stored = repo.combination_cards(session, (b.combination_id for b in bids))
    snapshots = repo.bid_cards(session, (b.id for b in bids if b.combination_id not in stored))
    sealed: list[rules.SealedBid] = []
    revealed: dict[int, dict[str, Any]] = {}
    for bid in bids:
        cards = list(stored.get(bid.combination_id) or snapshots[bid.id])
        value = evaluate(cards, event.hand_ranking)
        sealed.append(
            rules.SealedBid(
                bid.id, ext[bid.participant_id], bid.combination_id, tuple(value.strength)
            )
        )
        revealed[bid.id] = {
            "bid_id": bid.id,
            "participant": ext[bid.participant_id],
            "round": current.number,
            "combination": {
                "id": bid.combination_id,
                "cards": cards,
                "display": [display(card) for card in cards],
                "category": _category_name(value.category),
                "description": value.description,
            },
            "receipt": bid.receipt,
            "nonce": bid.nonce,
        }
    used = repo.used_combination_ids(session, event.id) | {b.combination_id for b in bids}
    by_external = {v: k for k, v in ext.items()}

    def has_combination_left(bidder: str) -> bool:
        mine = repo.combinations_of(session, by_external[bidder])
        return bool(_usable_combination_ids(event, mine, used))

    def seed() -> int:
        return lots_seed if lots_seed is not None else secrets.randbits(63)

    outcome = rules.decide_round(
        sealed,
        round_eligible=None if current.eligible is None else [ext[p] for p in current.eligible],
        has_combination_left=has_combination_left,
        lots_seed=seed,
    )
    now = utcnow()
    ranked_bids = [{**revealed[r.bid.bid_id], "rank": r.rank} for r in outcome.ranked]
    lots = None
    if outcome.lots is not None:
        lots = {
            "seed": outcome.lots.seed,
            "candidates": outcome.lots.candidates,
            "winner": outcome.lots.winner,
        }
    tie_break = None
    if not outcome.decided:
        tie_break = {"round": current.number + 1, "eligible": outcome.tie_break_bidders}
    result = {
        "resolution": outcome.resolution,
        "winner": outcome.winner,
        "tied": outcome.tied,
        "tie_break": tie_break,
        "lots": lots,
        "bids": ranked_bids,
    }
    current.status = "closed"
    current.closed_at = now
    current.resolution = outcome.resolution
    current.result = result
    if outcome.decided:
        auction.status = "closed"
        auction.closed_at = now
        if outcome.winner is not None:
            auction.winner_participant_id = by_external[outcome.winner]
            auction.winner_combination_id = _winner_combination_id(
                session, auction, outcome.winner, sealed
            )
    else:
        auction.current_round = current.number + 1
        session.add(
            AuctionRound(
                auction_id=auction.id,
                number=current.number + 1,
                status="open",
                opened_at=now,
                eligible=sorted(by_external[b] for b in outcome.tie_break_bidders),
            )
        )
    session.flush()
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.close",
        subject=f"place {place}",
        details={
            "place": place,
            "round": current.number,
            "auction_status": auction.status,
            **result,
            # the full reveal is in the round's result; here, compactly, what proves it:
            # [bid id, bidder, combination id, rank, nonce]
            "bids": [
                [b["bid_id"], b["participant"], b["combination"]["id"], b["rank"], b["nonce"]]
                for b in ranked_bids
            ],
        },
    )
    if lots is not None:
        record(
            session,
            event_id=event.id,
            actor=caller.actor,
            action="auction.lots",
            subject=f"place {place}",
            details={"place": place, "round": current.number, **lots},
        )
    if tie_break is not None:
        record(
            session,
            event_id=event.id,
            actor=caller.actor,
            action="auction.tie_break_open",
            subject=f"place {place}",
            details={"place": place, **tie_break},
        )
    return {
        "place": place,
        "status": auction.status,
        "round": current.number,
        "winner": outcome.winner,
        "tie": outcome.tie,
        "resolution": outcome.resolution,
        "tied": outcome.tied,
        "tie_break": tie_break,
        "lots": lots,
        "bids": ranked_bids,
    }


def _winner_combination_id(
    session: Session, auction: Auction, winner: str, sealed: list[rules.SealedBid]
) -> int | None:
    """The winner's combination: their bid in this round, else in the latest earlier round
    (a tie-break round nobody bid in is decided by lots among the earlier tie)."""
    for bid in sealed:
        if bid.bidder == winner:
            return bid.combination_id
    for rnd in reversed(repo.rounds_of(session, auction.id)):
        for shown in (rnd.result or {}).get("bids", []):
            if shown["participant"] == winner:
                return shown["combination"]["id"]
    return None


# ------------------------------------------------------------------------ undo


def undo_close(session: Session, event: Event, place: int, caller: Caller) -> dict[str, Any]:
    """Undo the last close of auction `place` (organiser), only until the next auction opens.

    - A closed auction reopens its last round: the revealed result and the winner
      are cleared and the round takes bids again (already revealed bids stay in).
    - An auction whose last close opened a tie-break round that has no bid yet:
      the tie-break round is removed and the tied round reopens.
    The undone result stays in the audit trail (`auction.undo_close`).
    Raises 409 `auction_not_closed`, `undo_too_late`, `nothing_to_undo`.
    """
    _check_place(event, place)
    repo.lock_event(session, event.id)
    auction = repo.get_auction(session, event.id, place, lock=True)
    statuses = _statuses(session, event.id)
    if auction is not None and auction.status == "open" and auction.current_round > 1:
        current = repo.get_round(session, auction.id, auction.current_round)
        assert current is not None
        if repo.bids_in_round(session, current.id) > 0:
            raise Conflict(
                "The tie-break round already has bids; its opening cannot be undone.",
                code="nothing_to_undo",
            )
        previous = repo.get_round(session, auction.id, auction.current_round - 1)
        assert previous is not None
        session.delete(current)
        session.flush()
        undone = previous.result
    else:
        rules.check_can_undo(place, statuses, event.award_places)
        assert auction is not None
        previous = repo.get_round(session, auction.id, auction.current_round)
        assert previous is not None
        undone = previous.result
        auction.status = "open"
        auction.closed_at = None
        auction.winner_participant_id = None
        auction.winner_combination_id = None
    auction.current_round = previous.number
    previous.status = "open"
    previous.closed_at = None
    previous.resolution = None
    previous.result = None
    session.flush()
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.undo_close",
        subject=f"place {place}",
        details={"place": place, "round": previous.number, "undone": undone},
    )
    return auction_view(session, event, place, caller)


# ------------------------------------------------------------------------ read


def _round_json(
    session: Session, rnd: AuctionRound, ext: dict[int, str], caller: Caller
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "number": rnd.number,
        "status": rnd.status,
        "eligible": None if rnd.eligible is None else [ext[p] for p in rnd.eligible],
    }
    if rnd.status == "open":
        bidders = repo.live_bidder_ids(session, rnd.id)
        data["bid_count"] = len(bidders)
        if caller.organiser:
            data["bidders"] = sorted(ext[p] for p in bidders)
        return data
    result = rnd.result or {}
    data.update(
        bid_count=len(result.get("bids", [])),
        resolution=rnd.resolution,
        winner=result.get("winner"),
        tied=result.get("tied", []),
        lots=result.get("lots"),
        bids=result.get("bids", []),
    )
    return data


def auction_view(session: Session, event: Event, place: int, caller: Caller) -> dict[str, Any]:
    """The auction as `caller` may see it (sealed until each round closes, RULES.md I-7).

    Open round: everyone gets `bid_count`; the organiser also `bidders` (external
    ids, never combinations); a participant also `my_bid` (their own live bid).
    Closed rounds: every live bid revealed with its combination and rank; `bids`
    lists the revealed bids of every closed round (round by round, each marked
    with its `round`). `bid_count` is the open round's sealed bids, or, with no
    round open, all revealed bids. `tie` and `resolution` are those of the latest
    close (so a closed auction reads as its close response did).
    """
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place)
    if auction is None:
        return {
            "place": place,
            "status": "pending",
            "round": None,
            "bid_count": 0,
            "bidders": [] if caller.organiser else None,
        }
    round_rows = repo.rounds_of(session, auction.id)
    if caller.organiser:  # the open round's bidders are named to the organiser only
        ext = repo.external_ids(session, event.id)
    else:  # only whom this view names: cost independent of the event's size
        named = [p for r in round_rows for p in (r.eligible or [])]
        ext = repo.external_ids_of(session, [*named, auction.winner_participant_id or 0])
    rounds = [_round_json(session, r, ext, caller) for r in round_rows]
    current = next((r for r in rounds if r["number"] == auction.current_round), None)
    closed = [r for r in rounds if r["status"] == "closed"]
    last = closed[-1] if closed else None
    live = current is not None and current["status"] == "open"
    view: dict[str, Any] = {
        "place": place,
        "status": auction.status,
        "round": auction.current_round,
        # open round: its sealed bids so far; otherwise every revealed bid of every round
        "bid_count": current["bid_count"] if live else sum(r["bid_count"] for r in closed),
        "winner": ext.get(auction.winner_participant_id) if auction.winner_participant_id else None,
        # as the latest close reported it: the top of the last closed round tied
        "tie": bool(last and last.get("tied")),
        "resolution": last.get("resolution") if last else None,
        "rounds": rounds,
    }
    if current is not None and current["status"] == "open":
        if caller.organiser:
            view["bidders"] = current.get("bidders", [])
        elif caller.participant is not None:
            rnd = repo.get_round(session, auction.id, auction.current_round)
            assert rnd is not None
            mine = repo.live_bid_of(session, rnd.id, caller.participant.id)
            if mine is not None:
                view["my_bid"] = {
                    "bid_id": mine.id,
                    "receipt": mine.receipt,
                    "round": rnd.number,
                    "combination": _combination_json(
                        mine.combination_id, mine.cards, event.hand_ranking
                    ),
                }
    view["bids"] = [b for r in closed for b in r["bids"]]
    return view


def ceremony_view(session: Session, event: Event, caller: Caller) -> dict[str, Any]:
    """Every auction in ceremony order (lowest place first) as `caller` may see it, with
    `open` (the place open now, or None) and `next` (the place that may open next, or None
    when the ceremony is over or an auction is open)."""
    statuses = _statuses(session, event.id)
    order = rules.ceremony_order(event.award_places)
    open_place = next((p for p in order if statuses.get(p) == "open"), None)
    next_place = None
    if open_place is None:
        next_place = next((p for p in order if statuses.get(p, "pending") == "pending"), None)
    return {
        "open": open_place,
        "next": next_place,
        "auctions": [auction_view(session, event, place, caller) for place in order],
    }


def verify_receipt(session: Session, event: Event, place: int, receipt: str) -> dict[str, Any]:
    """Check a receipt against the revealed bid (RULES.md I-10); open to anyone.

    Recomputes sha256 of `rules.commitment_string` with the revealed nonce.
    Raises 404 `receipt_not_found`, 409 `round_not_closed` (the nonce is still secret).
    Replaced and withdrawn bids are confirmed as not counted, without their content.
    """
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place)
    bid = repo.bid_by_receipt(session, auction.id, receipt.strip().lower()) if auction else None
    if auction is None or bid is None:
        raise NotFound("No bid with that receipt in this auction.", code="receipt_not_found")
    rnd = session.get(AuctionRound, bid.round_id)
    assert rnd is not None
    base = {"receipt": bid.receipt, "event_id": event.id, "place": place, "round": rnd.number}
    if rnd.status != "closed":
        raise Conflict(
            "The round of this bid is not closed yet; its nonce is still secret.",
            code="round_not_closed",
        )
    withdrawal = repo.withdrawal_of(session, bid.id)
    if withdrawal is not None:
        return {**base, "counted": False, "status": withdrawal.reason}
    ext = repo.external_ids(session, event.id)
    parts = {
        "event_id": event.id,
        "place": place,
        "round_number": rnd.number,
        "bidder": ext[bid.participant_id],
        "combination_id": bid.combination_id,
        "nonce": bid.nonce,
    }
    text = rules.commitment_string(**parts)
    digest = rules.commitment(**parts)
    shown = next((b for b in (rnd.result or {}).get("bids", []) if b["bid_id"] == bid.id), None)
    return {
        **base,
        "counted": True,
        "status": "revealed",
        "valid": digest == bid.receipt,
        "bidder": parts["bidder"],
        "combination_id": bid.combination_id,
        "nonce": bid.nonce,
        "commitment_string": text,
        "sha256": digest,
        "combination": shown["combination"] if shown else None,
        "rank": shown["rank"] if shown else None,
    }


def results(session: Session, event: Event) -> dict[str, Any]:
    """Final results: each place (podium order 1, 2, 3) and every auction's revealed rounds."""
    ext = repo.external_ids(session, event.id)
    names = repo.participant_names(session, event.id)
    auctions = repo.auctions_of_event(session, event.id)
    places: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    caller = Caller(organiser=False)
    for place in range(1, event.award_places + 1):
        auction = auctions.get(place)
        status = auction.status if auction else "pending"
        entry: dict[str, Any] = {
            "place": place,
            "status": status,
            "awarded": False,
            "participant": None,
            "name": None,
            "combination": None,
            "category": None,
            "resolution": None,
        }
        if auction is not None and auction.status == "closed":
            last = repo.get_round(session, auction.id, auction.current_round)
            result = (last.result if last else None) or {}
            entry["resolution"] = result.get("resolution")
            if auction.winner_participant_id is not None:
                entry.update(
                    awarded=True,
                    participant=ext.get(auction.winner_participant_id),
                    name=names.get(auction.winner_participant_id),
                )
                winning = _winning_combination(session, auction)
                if winning is not None:
                    entry["combination"] = winning
                    entry["category"] = winning["category"]
        places.append(entry)
    for place in rules.ceremony_order(event.award_places):
        auction = auctions.get(place)
        if auction is None:
            history.append({"place": place, "status": "pending", "rounds": []})
            continue
        rounds = [_round_json(session, r, ext, caller) for r in repo.rounds_of(session, auction.id)]
        history.append(
            {
                "place": place,
                "status": auction.status,
                "rounds": [r for r in rounds if r["status"] == "closed"],
            }
        )
    return {
        "event_id": event.id,
        "hand_ranking": event.hand_ranking,
        "places": places,
        "auctions": history,
    }


def _winning_combination(session: Session, auction: Auction) -> dict[str, Any] | None:
    """The combination that won the place: the winner's bid in the deciding round."""
    for rnd in reversed(repo.rounds_of(session, auction.id)):
        for bid in (rnd.result or {}).get("bids", []):
            if bid["combination"]["id"] == auction.winner_combination_id:
                return bid["combination"]
    return None


CSV_COLUMNS = [
    "place",
    "round",
    "participant",
    "name",
    "combination_id",
    "cards",
    "category",
    "description",
    "rank",
    "result",
    "log_head",
]


def results_csv(session: Session, event: Event, *, log_head: str = "") -> str:
    """The results as CSV: one row per revealed bid (`result` winner/lost), plus one row
    per place without a revealed winning bid (`result` unawarded or pending). Every row
    ends with `log_head`, the event head over the take and bid logs when the file was made
    (app.flows.log_chain), so a kept file can be checked against an archive later. Text
    cells are neutralised against formula injection (`app.core.csvfiles.write`)."""
    data = results(session, event)
    names = repo.participant_names(session, event.id)
    by_external = {v: k for k, v in repo.external_ids(session, event.id).items()}
    winners = {p["place"]: p["participant"] for p in data["places"]}
    winning = {p["place"]: (p["combination"] or {}).get("id") for p in data["places"]}
    rows: list[list[object]] = []
    for auction in data["auctions"]:
        place = auction["place"]
        for rnd in auction["rounds"]:
            for bid in rnd["bids"] or []:
                won = (
                    winners.get(place) == bid["participant"]
                    and winning.get(place) == bid["combination"]["id"]
                )
                rows.append(
                    [
                        place,
                        rnd["number"],
                        bid["participant"],
                        names.get(by_external.get(bid["participant"], -1), ""),
                        bid["combination"]["id"],
                        " ".join(bid["combination"]["cards"]),
                        bid["combination"]["category"],
                        bid["combination"]["description"],
                        bid["rank"],
                        "winner" if won else "lost",
                        log_head,
                    ]
                )
        if auction["status"] != "closed" or winners.get(place) is None:
            status = "unawarded" if auction["status"] == "closed" else auction["status"]
            rows.append([place, "", "", "", "", "", "", "", "", status, log_head])
    return csvfiles.write(CSV_COLUMNS, rows)
