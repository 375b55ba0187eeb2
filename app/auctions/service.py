"""The award ceremony: open, bid, withdraw, close, undo, verify, results (RULES.md §1.4).

Each operation `x` comes as three functions (pokerkit's pattern): `verify_x(...)` raises
the domain error that `x` would raise now (the checks are written once, there);
`can_x(...)` answers the same question as a bool (the pages show only the buttons it
allows); `x(...)` calls `verify_x` under its locks and then does the work.

Every state change locks what it changes (the event row for ceremony steps, the
auction row for bids and the close: SELECT ... FOR UPDATE on PostgreSQL) and is
recorded in the audit trail. Services flush, never commit. Before a round
closes nothing here returns a bid's combination, and the audit entries of bids
carry only receipts, so the organiser's audit view cannot unseal them either.
Cross-domain steps (the event's status, the feed's freeze) are `app.flows.ceremony`'s.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from app.auctions import repository as repo
from app.auctions import rules
from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.auctions.rules import AuctionStatus
from app.auctions.shapes import (
    AuctionHistory,
    AuctionView,
    BidReceipt,
    CeremonyView,
    CloseResult,
    CombinationView,
    LotsView,
    MyBidView,
    PlaceResult,
    Results,
    RevealedBidView,
    RoundResult,
    RoundView,
    TieBreakView,
    WithdrawalView,
)
from app.core import chain, csvfiles
from app.core.audit import record
from app.core.db import utcnow
from app.core.errors import AppError, Conflict, Forbidden, NotFound, Unprocessable
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


def _allowed(verify: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """True when `verify(*args, **kwargs)` raises no domain error (the `can_x` functions)."""
    try:
        verify(*args, **kwargs)
    except AppError:
        return False
    return True


def _category_name(value: Any) -> str:
    return str(getattr(value, "value", value))


def _check_place(event: Event, place: int) -> None:
    if not 1 <= place <= event.award_places:
        raise NotFound(
            f"Event {event.id} awards places 1 to {event.award_places}; there is no place {place}.",
            code="auction_not_found",
        )


def _status(auction: Auction | None) -> AuctionStatus:
    return AuctionStatus.PENDING if auction is None else AuctionStatus(auction.status)


def _statuses(session: Session, event_id: int) -> dict[int, str]:
    return {place: a.status for place, a in repo.auctions_of_event(session, event_id).items()}


def ceremony_over(session: Session, event: Event) -> bool:
    """True when the auction of every place is closed (the last one decided)."""
    statuses = _statuses(session, event.id)
    return all(
        statuses.get(place) == AuctionStatus.CLOSED
        for place in rules.ceremony_order(event.award_places)
    )


def _combination_json(combination_id: int, cards: list[str], ranking: str) -> CombinationView:
    value = evaluate(cards, ranking)
    return {
        "id": combination_id,
        "cards": list(cards),
        "display": [display(card) for card in cards],
        "category": _category_name(value.category),
        "description": value.description,
    }


# ------------------------------------------------------------------------ open


def verify_open_auction(
    session: Session, event: Event, place: int, *, now: datetime | None = None
) -> None:
    """Raise unless the organiser may open the auction for `place` at `now` (UTC, default
    the clock): 404 `auction_not_found` (no such place), 409 `course_still_open` (the
    course window has not ended), and the ceremony-order problems of
    `rules.check_can_open` (lowest place first, one auction at a time; RULES.md §1.4)."""
    _check_place(event, place)
    if (now or utcnow()) < event.closes_at:
        raise Conflict(
            f"The course closes at {event_service.local_time(event, event.closes_at)} "
            f"({event.closes_at.astimezone(UTC).isoformat()}); auctions open after that.",
            code="course_still_open",
        )
    rules.check_can_open(place, _statuses(session, event.id), event.award_places)


def can_open_auction(session: Session, event: Event, place: int) -> bool:
    """True when `verify_open_auction` raises nothing now."""
    return _allowed(verify_open_auction, session, event, place)


def open_auction(
    session: Session, event: Event, place: int, caller: Caller, *, now: datetime | None = None
) -> AuctionView:
    """Open the auction for `place` (organiser) at `now` (UTC, default the clock): round 1
    starts, open to every participant who has not won a place. Locks the event row.

    Raises what `verify_open_auction` raises. The feed's freeze and the event's status
    are `app.flows.ceremony.open_auction`'s (the entry point of the API and the pages).
    """
    _check_place(event, place)
    repo.lock_event(session, event.id)
    now = now or utcnow()
    verify_open_auction(session, event, place, now=now)
    auction = repo.get_auction(session, event.id, place)
    if auction is None:
        auction = Auction(event_id=event.id, place=place)
        session.add(auction)
    auction.status = AuctionStatus.OPEN
    auction.current_round = 1
    auction.opened_at = now
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
    session: Session, auction: Auction | None, round_number: int | None = None
) -> tuple[Auction, AuctionRound]:
    """The auction and its open round (`rules.check_round_open`: 409 `auction_not_open`,
    `auction_closed`, `round_closed`)."""
    rules.check_round_open(_status(auction), auction.current_round if auction else 0, round_number)
    assert auction is not None
    current = repo.get_round(session, auction.id, auction.current_round)
    assert current is not None and current.status == "open"
    return auction, current


@dataclass(frozen=True)
class BidPlan:
    """What `verify_place_bid` checked: the bidder, the auction, its open round and the
    combination to bid (None when only the bidder was checked, `verify_bidder`)."""

    bidder: Participant
    auction: Auction
    round: AuctionRound
    combination: Combination | None = None


def verify_bidder(
    session: Session,
    event: Event,
    place: int,
    caller: Caller,
    *,
    participant: str | None = None,
    round_number: int | None = None,
    lock: bool = False,
) -> BidPlan:
    """Raise unless the bidder (`caller`'s participant, or `participant` for the
    organiser) may bid in the open round of auction `place` at all; return the plan.

    Raises 404 `auction_not_found`, 403 `not_your_bid`, 422 `participant_required` /
    `participant_not_found`, 409 `round_closed` and `rules.check_bidder`'s problems
    (auction not open, `bidder_already_won` I-8, `not_in_tie_break` I-9). `lock` locks
    the auction row (the bid itself)."""
    _check_place(event, place)
    bidder = _bidder(session, event, caller, participant)
    auction, current = _open_round(
        session, repo.get_auction(session, event.id, place, lock=lock), round_number
    )
    winners = repo.external_ids_of(session, repo.winner_ids(session, event.id))
    eligible = None
    if current.eligible is not None:
        eligible = set(repo.external_ids_of(session, current.eligible).values())
    rules.check_bidder(
        auction_status=auction.status,
        bidder=bidder.external_id,
        winners=set(winners.values()),
        round_eligible=eligible,
    )
    return BidPlan(bidder, auction, current)


def can_bid(
    session: Session, event: Event, place: int, caller: Caller, *, participant: str | None = None
) -> bool:
    """True when `verify_bidder` raises nothing: the bid form may be shown."""
    return _allowed(verify_bidder, session, event, place, caller, participant=participant)


def verify_place_bid(
    session: Session,
    event: Event,
    place: int,
    caller: Caller,
    *,
    participant: str | None,
    combination_id: int,
    round_number: int | None = None,
    lock: bool = False,
) -> BidPlan:
    """Raise unless the bid may be placed now (RULES.md §1.4, I-7 to I-9): what
    `verify_bidder` raises, then `rules.check_combination`'s problems (422
    `combination_not_found` / `combination_not_yours` /
    `combination_outside_course_hours`, 409 `combination_used`). Returns the plan."""
    plan = verify_bidder(
        session, event, place, caller, participant=participant, round_number=round_number, lock=lock
    )
    combination = repo.combination_in_event(session, event.id, combination_id)
    facts = None
    if combination is not None:
        # only "whose is it" matters: the bidder's own, or somebody else's
        owner = (
            plan.bidder.external_id
            if combination.participant_id == plan.bidder.id
            else f"participant #{combination.participant_id}"
        )
        facts = rules.CombinationFacts(combination.id, owner, combination.saved_at)
    used = repo.combination_is_used(session, event.id, combination_id)
    rules.check_combination(
        bidder=plan.bidder.external_id,
        combination=facts,
        opens_at=event.opens_at,
        closes_at=event.closes_at,
        used_combinations={combination_id} if used else set(),
    )
    return BidPlan(plan.bidder, plan.auction, plan.round, combination)


def can_place_bid(
    session: Session,
    event: Event,
    place: int,
    caller: Caller,
    *,
    participant: str | None,
    combination_id: int,
) -> bool:
    """True when `verify_place_bid` raises nothing now."""
    return _allowed(
        verify_place_bid,
        session,
        event,
        place,
        caller,
        participant=participant,
        combination_id=combination_id,
    )


def place_bid(
    session: Session,
    event: Event,
    place: int,
    caller: Caller,
    *,
    participant: str | None,
    combination_id: int,
    round_number: int | None = None,
) -> BidReceipt:
    """Put one combination into the open round of auction `place` (RULES.md I-7).

    A second bid of the same participant in the same round replaces the first
    (the old bid gets a `replaced` withdrawal row; nothing is deleted). Returns
    `{bid_id, receipt, place, round, replaced_bid_id}`; the receipt commits to
    (event, place, round, bidder, combination, a secret nonce) — RULES.md I-10.
    Raises what `verify_place_bid` raises (checked with the auction row locked).
    """
    plan = verify_place_bid(
        session,
        event,
        place,
        caller,
        participant=participant,
        combination_id=combination_id,
        round_number=round_number,
        lock=True,
    )
    previous = repo.live_bid_of(session, plan.round.id, plan.bidder.id)
    bid = _seal_bid(session, event, place, plan, caller.actor)
    if previous is not None:
        _withdraw(session, plan.auction, previous, "replaced", caller.actor, replaced_by=bid)
    replaced_bid_id = previous.id if previous is not None else None
    # The audit entry carries the receipt only: the combination stays sealed.
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.bid_replace" if previous is not None else "auction.bid",
        subject=f"place {place}",
        details={
            "place": place,
            "round": plan.round.number,
            "participant": plan.bidder.external_id,
            "bid_id": bid.id,
            "receipt": bid.receipt,
            "replaced_bid_id": replaced_bid_id,
        },
    )
    return {
        "bid_id": bid.id,
        "receipt": bid.receipt,
        "place": place,
        "round": plan.round.number,
        "replaced_bid_id": replaced_bid_id,
    }


def _seal_bid(session: Session, event: Event, place: int, plan: BidPlan, actor: str) -> Bid:
    """Store the bid of `plan` with a fresh nonce and its receipt (RULES.md I-10), chained."""
    combination = plan.combination
    assert combination is not None
    nonce = secrets.token_hex(16)
    receipt = rules.commitment(
        event_id=event.id,
        place=place,
        round_number=plan.round.number,
        bidder=plan.bidder.external_id,
        combination_id=combination.id,
        nonce=nonce,
    )
    now = utcnow()
    bid = Bid(
        auction_id=plan.auction.id,
        round_id=plan.round.id,
        participant_id=plan.bidder.id,
        combination_id=combination.id,
        cards=list(combination.cards),
        nonce=nonce,
        receipt=receipt,
        placed_by=actor,
        created_at=now,
    )
    content = chain.bid_content(
        round_number=plan.round.number,
        combination_hash=repo.take_hash(session, combination.id),
        cards=bid.cards,
        nonce=nonce,
        receipt=receipt,
        placed_by=actor,
        created_at=now,
    )
    _chain(plan.auction, bid, chain.BID, content)
    session.add(bid)
    session.flush()
    return bid


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


# -------------------------------------------------------------------- withdraw


def verify_withdraw_bid(
    session: Session, event: Event, place: int, caller: Caller, bid_id: int, *, lock: bool = False
) -> tuple[Auction, Bid, AuctionRound]:
    """Raise unless `caller` may withdraw bid `bid_id` now (RULES.md I-7); return the
    auction, the bid and the open round. Raises 404 `bid_not_found`, 403 `not_your_bid`
    (only the organiser or the bidder), 409 `auction_not_open` / `auction_closed` /
    `round_closed` (the bid's round is over), 409 `bid_not_live` (replaced or withdrawn)."""
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place, lock=lock)
    bid = repo.get_bid(session, bid_id)
    if auction is None or bid is None or bid.auction_id != auction.id:
        raise NotFound(f"No bid {bid_id} in the auction for place {place}.", code="bid_not_found")
    if not caller.organiser and (
        caller.participant is None or caller.participant.id != bid.participant_id
    ):
        raise Forbidden("Only the bidder or the organiser may withdraw a bid.", code="not_your_bid")
    auction, current = _open_round(session, auction)
    if bid.round_id != current.id:
        raise rules.BidRefused("That bid belongs to a closed round.", code="round_closed")
    if repo.withdrawal_of(session, bid.id) is not None:
        raise rules.BidRefused("That bid was already replaced or withdrawn.", code="bid_not_live")
    return auction, bid, current


def can_withdraw_bid(
    session: Session, event: Event, place: int, caller: Caller, bid_id: int
) -> bool:
    """True when `verify_withdraw_bid` raises nothing now."""
    return _allowed(verify_withdraw_bid, session, event, place, caller, bid_id)


def withdraw_bid(
    session: Session, event: Event, place: int, caller: Caller, bid_id: int
) -> WithdrawalView:
    """Withdraw a live bid before the close (RULES.md I-7): organiser, or the bidder.
    Raises what `verify_withdraw_bid` raises (checked with the auction row locked)."""
    auction, bid, current = verify_withdraw_bid(session, event, place, caller, bid_id, lock=True)
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


def allowed_bid_steps(
    session: Session, event: Event, view: AuctionView, caller: Caller
) -> dict[str, bool]:
    """The bid buttons a page may show `caller` (a participant) for the auction `view`:
    `may_bid` (`can_bid`, asked only while the auction is open) and `may_withdraw`
    (`can_withdraw_bid` of their sealed bid `my_bid`, when they have one)."""
    place = view["place"]
    mine = view.get("my_bid")
    return {
        "may_bid": view["status"] == AuctionStatus.OPEN and can_bid(session, event, place, caller),
        "may_withdraw": mine is not None
        and can_withdraw_bid(session, event, place, caller, mine["bid_id"]),
    }


def usable_combination_ids(session: Session, event: Event, participant_id: int) -> set[int]:
    """Ids of the participant's combinations that may still be bid
    (`rules.usable_combination_ids`: saved inside the course window, never put into a
    closed round). Pages list these as bid choices."""
    used = repo.used_combination_ids(session, event.id)
    return set(_usable(event, repo.combinations_of(session, participant_id), used))


def _usable(event: Event, combinations: list[Combination], used: set[int]) -> list[int]:
    return rules.usable_combination_ids(
        ((c.id, c.saved_at) for c in combinations),
        opens_at=event.opens_at,
        closes_at=event.closes_at,
        used_combinations=used,
    )


# ----------------------------------------------------------------------- close


def verify_close_auction(
    session: Session, event: Event, place: int, *, lock: bool = False
) -> tuple[Auction, AuctionRound]:
    """Raise unless the open round of auction `place` may be closed now; return the
    auction and that round. Raises 404 `auction_not_found`, 409 `auction_not_open` /
    `auction_closed`."""
    _check_place(event, place)
    return _open_round(session, repo.get_auction(session, event.id, place, lock=lock))


def can_close_auction(session: Session, event: Event, place: int) -> bool:
    """True when `verify_close_auction` raises nothing now."""
    return _allowed(verify_close_auction, session, event, place)


def close_auction(
    session: Session, event: Event, place: int, caller: Caller, *, lots_seed: int | None = None
) -> CloseResult:
    """Close the open round of auction `place` and reveal it (RULES.md §1.4, I-9).

    The live bids are ranked under the event's preset (`event.hand_ranking`);
    the outcome follows `rules.decide_round`. When it decides the place the
    auction closes (winner or unawarded); on a tie with two or more tied bidders
    able to rebid, a tie-break round opens for them and the auction stays open.
    Lots use `lots_seed` or a fresh random seed; seed and result are recorded.
    Returns the `CloseRead` shape. Raises what `verify_close_auction` raises.
    """
    _check_place(event, place)
    repo.lock_event(session, event.id)
    auction, current = verify_close_auction(session, event, place, lock=True)
    ext = repo.external_ids(session, event.id)
    bids = repo.live_bid_rows(session, current.id)
    sealed, revealed = _reveal(session, event, current, bids, ext)
    outcome = _decide(session, event, current, sealed, bids, ext, lots_seed)
    result = _round_result(outcome, revealed, current.number)
    now = utcnow()
    _close_round(current, outcome, result, now)
    if outcome.decided:
        _award(session, auction, outcome, sealed, ext, now)
    else:
        _open_tie_break_round(session, auction, outcome, ext, now)
    session.flush()
    _record_close(session, event, place, caller.actor, current.number, auction.status, result)
    return {
        "place": place,
        "status": AuctionStatus(auction.status),
        "round": current.number,
        "winner": outcome.winner,
        "tie": outcome.tie,
        "resolution": outcome.resolution,
        "tied": outcome.tied,
        "tie_break": result["tie_break"],
        "lots": result["lots"],
        "bids": result["bids"],
    }


def _reveal(
    session: Session,
    event: Event,
    current: AuctionRound,
    bids: list[Bid],
    ext: dict[int, str],
) -> tuple[list[rules.SealedBid], dict[int, RevealedBidView]]:
    """The round's live bids as the rules rank them and as they are revealed. The
    combination as it stands now (the feed may have replayed); the bid's snapshot if
    the projection no longer has it."""
    stored = repo.combination_cards(session, (b.combination_id for b in bids))
    snapshots = repo.bid_cards(session, (b.id for b in bids if b.combination_id not in stored))
    sealed: list[rules.SealedBid] = []
    revealed: dict[int, RevealedBidView] = {}
    for bid in bids:
        cards = list(stored.get(bid.combination_id) or snapshots[bid.id])
        value = evaluate(cards, event.hand_ranking)
        bidder = ext[bid.participant_id]
        sealed.append(rules.SealedBid(bid.id, bidder, bid.combination_id, tuple(value.strength)))
        revealed[bid.id] = {
            "bid_id": bid.id,
            "participant": bidder,
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
    return sealed, revealed


def _decide(
    session: Session,
    event: Event,
    current: AuctionRound,
    sealed: list[rules.SealedBid],
    bids: list[Bid],
    ext: dict[int, str],
    lots_seed: int | None,
) -> rules.RoundOutcome:
    """`rules.decide_round` on the round's sealed bids: a tied bidder can rebid when a
    usable combination is left once this round's bids are used up."""
    used = repo.used_combination_ids(session, event.id) | {b.combination_id for b in bids}
    by_external = {v: k for k, v in ext.items()}

    def has_combination_left(bidder: str) -> bool:
        return bool(_usable(event, repo.combinations_of(session, by_external[bidder]), used))

    def seed() -> int:
        return lots_seed if lots_seed is not None else secrets.randbits(63)

    return rules.decide_round(
        sealed,
        round_eligible=None if current.eligible is None else [ext[p] for p in current.eligible],
        has_combination_left=has_combination_left,
        lots_seed=seed,
    )


def _round_result(
    outcome: rules.RoundOutcome, revealed: dict[int, RevealedBidView], number: int
) -> RoundResult:
    """What the close stores on the round and reports: the bids ranked, the lots drawn,
    the tie-break round opened (numbered `number + 1`)."""
    lots: LotsView | None = None
    if outcome.lots is not None:
        lots = {
            "seed": outcome.lots.seed,
            "candidates": outcome.lots.candidates,
            "winner": outcome.lots.winner,
        }
    tie_break: TieBreakView | None = None
    if not outcome.decided:
        tie_break = {"round": number + 1, "eligible": outcome.tie_break_bidders}
    return {
        "resolution": outcome.resolution,
        "winner": outcome.winner,
        "tied": outcome.tied,
        "tie_break": tie_break,
        "lots": lots,
        "bids": [{**revealed[r.bid.bid_id], "rank": r.rank} for r in outcome.ranked],
    }


def _close_round(
    current: AuctionRound, outcome: rules.RoundOutcome, result: RoundResult, now: datetime
) -> None:
    current.status = "closed"
    current.closed_at = now
    current.resolution = outcome.resolution
    current.result = dict(result)


def _award(
    session: Session,
    auction: Auction,
    outcome: rules.RoundOutcome,
    sealed: list[rules.SealedBid],
    ext: dict[int, str],
    now: datetime,
) -> None:
    """The outcome decided the place: the auction closes, with its winner (or unawarded)."""
    auction.status = AuctionStatus.CLOSED
    auction.closed_at = now
    if outcome.winner is not None:
        by_external = {v: k for k, v in ext.items()}
        auction.winner_participant_id = by_external[outcome.winner]
        auction.winner_combination_id = _winner_combination_id(
            session, auction, outcome.winner, sealed
        )


def _open_tie_break_round(
    session: Session,
    auction: Auction,
    outcome: rules.RoundOutcome,
    ext: dict[int, str],
    now: datetime,
) -> None:
    """A tie with two or more tied bidders able to rebid: the next round opens for them
    (RULES.md I-9); the auction stays open."""
    by_external = {v: k for k, v in ext.items()}
    auction.current_round += 1
    session.add(
        AuctionRound(
            auction_id=auction.id,
            number=auction.current_round,
            status="open",
            opened_at=now,
            eligible=sorted(by_external[b] for b in outcome.tie_break_bidders),
        )
    )


def _record_close(
    session: Session,
    event: Event,
    place: int,
    actor: str,
    number: int,
    auction_status: str,
    result: RoundResult,
) -> None:
    """The audit entries of a close: `auction.close`, and `auction.lots` /
    `auction.tie_break_open` when lots were drawn / a tie-break round opened."""
    subject = f"place {place}"
    details: dict[str, Any] = {
        "place": place,
        "round": number,
        "auction_status": auction_status,
        **result,
        # the full reveal is in the round's result; here, compactly, what proves it:
        # [bid id, bidder, combination id, rank, nonce]
        "bids": [
            [b["bid_id"], b["participant"], b["combination"]["id"], b.get("rank"), b["nonce"]]
            for b in result["bids"]
        ],
    }

    def log(action: str, details: dict[str, Any]) -> None:
        record(
            session, event_id=event.id, actor=actor, action=action, subject=subject, details=details
        )

    log("auction.close", details)
    if result["lots"] is not None:
        log("auction.lots", {"place": place, "round": number, **result["lots"]})
    if result["tie_break"] is not None:
        log("auction.tie_break_open", {"place": place, **result["tie_break"]})


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


def verify_undo_close(
    session: Session, event: Event, place: int, *, lock: bool = False
) -> tuple[Auction, AuctionRound | None]:
    """Raise unless the last close of auction `place` may be undone now; return the
    auction and, when that close opened a tie-break round, that round (to remove).

    Undoable: an open tie-break round without bids, or the last closed auction while
    the next is still pending (`rules.check_can_undo`). Raises 404 `auction_not_found`,
    409 `nothing_to_undo` (the tie-break round has bids), `auction_not_closed`,
    `undo_too_late`."""
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place, lock=lock)
    if auction is not None and auction.status == AuctionStatus.OPEN and auction.current_round > 1:
        current = repo.get_round(session, auction.id, auction.current_round)
        assert current is not None
        if repo.bids_in_round(session, current.id) > 0:
            raise Conflict(
                "The tie-break round already has bids; its opening cannot be undone.",
                code="nothing_to_undo",
            )
        return auction, current
    rules.check_can_undo(place, _statuses(session, event.id), event.award_places)
    assert auction is not None
    return auction, None


def can_undo_close(session: Session, event: Event, place: int) -> bool:
    """True when `verify_undo_close` raises nothing now."""
    return _allowed(verify_undo_close, session, event, place)


def undo_close(session: Session, event: Event, place: int, caller: Caller) -> AuctionView:
    """Undo the last close of auction `place` (organiser), only until the next auction opens.

    - A closed auction reopens its last round: the revealed result and the winner
      are cleared and the round takes bids again (already revealed bids stay in).
    - An auction whose last close opened a tie-break round that has no bid yet:
      the tie-break round is removed and the tied round reopens.
    The undone result stays in the audit trail (`auction.undo_close`).
    Raises what `verify_undo_close` raises.
    """
    _check_place(event, place)
    repo.lock_event(session, event.id)
    auction, tie_break = verify_undo_close(session, event, place, lock=True)
    if tie_break is not None:
        session.delete(tie_break)
        session.flush()
        auction.current_round -= 1
    else:
        auction.status = AuctionStatus.OPEN
        auction.closed_at = None
        auction.winner_participant_id = None
        auction.winner_combination_id = None
    previous = repo.get_round(session, auction.id, auction.current_round)
    assert previous is not None
    undone = previous.result
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
) -> RoundView:
    data: RoundView = {
        "number": rnd.number,
        "status": rnd.status,
        "eligible": None if rnd.eligible is None else [ext[p] for p in rnd.eligible],
        "bid_count": 0,
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


def _named(
    session: Session, event: Event, auction: Auction, rounds: list[AuctionRound], caller: Caller
) -> dict[int, str]:
    """participant id -> external id of those a view of `auction` names."""
    if caller.organiser:  # the open round's bidders are named to the organiser only
        return repo.external_ids(session, event.id)
    # only whom this view names: cost independent of the event's size
    named = [p for r in rounds for p in (r.eligible or [])]
    return repo.external_ids_of(session, [*named, auction.winner_participant_id or 0])


def _my_bid(session: Session, event: Event, auction: Auction, caller: Caller) -> MyBidView | None:
    """The caller's live bid in the open round (a participant sees their own only)."""
    if caller.participant is None:
        return None
    rnd = repo.get_round(session, auction.id, auction.current_round)
    assert rnd is not None
    mine = repo.live_bid_of(session, rnd.id, caller.participant.id)
    if mine is None:
        return None
    combination = _combination_json(mine.combination_id, mine.cards, event.hand_ranking)
    return {
        "bid_id": mine.id,
        "receipt": mine.receipt,
        "round": rnd.number,
        "combination": combination,
    }


def auction_view(session: Session, event: Event, place: int, caller: Caller) -> AuctionView:
    """The auction as `caller` may see it (sealed until each round closes, RULES.md I-7).

    Open round: everyone gets `bid_count`; the organiser also `bidders` (external
    ids, never combinations); a participant also `my_bid` (their own live bid).
    Closed rounds: every live bid revealed with its combination and rank; `bids`
    lists the revealed bids of every closed round (round by round, each marked
    with its `round`). `bid_count` is the open round's sealed bids, or, with no
    round open, all revealed bids. `tie` and `resolution` are those of the latest
    close (so a closed auction reads as its close response did).
    Raises 404 `auction_not_found` (no such place).
    """
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place)
    if auction is None:
        bidders: list[str] | None = [] if caller.organiser else None
        return {
            "place": place,
            "status": AuctionStatus.PENDING,
            "round": None,
            "bid_count": 0,
            "bidders": bidders,
        }
    round_rows = repo.rounds_of(session, auction.id)
    ext = _named(session, event, auction, round_rows, caller)
    rounds = [_round_json(session, r, ext, caller) for r in round_rows]
    current = next((r for r in rounds if r["number"] == auction.current_round), None)
    closed = [r for r in rounds if r["status"] == "closed"]
    last = closed[-1] if closed else None
    live = current is not None and current["status"] == "open"
    view: AuctionView = {
        "place": place,
        "status": AuctionStatus(auction.status),
        "round": auction.current_round,
        # open round: its sealed bids so far; otherwise every revealed bid of every round
        "bid_count": current["bid_count"] if live else sum(r["bid_count"] for r in closed),
        "winner": ext.get(auction.winner_participant_id) if auction.winner_participant_id else None,
        # as the latest close reported it: the top of the last closed round tied
        "tie": bool(last and last.get("tied")),
        "resolution": last.get("resolution") if last else None,
        "rounds": rounds,
    }
    if live and caller.organiser:
        assert current is not None
        view["bidders"] = current.get("bidders", [])
    elif live:
        mine = _my_bid(session, event, auction, caller)
        if mine is not None:
            view["my_bid"] = mine
    view["bids"] = [b for r in closed for b in r.get("bids", [])]
    return view


def ceremony_view(session: Session, event: Event, caller: Caller) -> CeremonyView:
    """Every auction in ceremony order (lowest place first) as `caller` may see it, with
    `open` (the place open now, or None) and `next` (the place that may open next, or None
    when the ceremony is over or an auction is open)."""
    statuses = _statuses(session, event.id)
    order = rules.ceremony_order(event.award_places)
    open_place = next((p for p in order if statuses.get(p) == AuctionStatus.OPEN), None)
    next_place = None
    if open_place is None:
        next_place = next(
            (p for p in order if statuses.get(p, AuctionStatus.PENDING) == AuctionStatus.PENDING),
            None,
        )
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


def results(session: Session, event: Event) -> Results:
    """Final results: each place (podium order 1, 2, 3) and every auction's revealed rounds."""
    ext = repo.external_ids(session, event.id)
    names = repo.participant_names(session, event.id)
    auctions = repo.auctions_of_event(session, event.id)
    places = [
        _place_result(session, place, auctions.get(place), ext, names)
        for place in range(1, event.award_places + 1)
    ]
    history: list[AuctionHistory] = []
    caller = Caller(organiser=False)
    for place in rules.ceremony_order(event.award_places):
        auction = auctions.get(place)
        if auction is None:
            history.append({"place": place, "status": AuctionStatus.PENDING, "rounds": []})
            continue
        rounds = [_round_json(session, r, ext, caller) for r in repo.rounds_of(session, auction.id)]
        closed = [r for r in rounds if r["status"] == "closed"]
        history.append({"place": place, "status": _status(auction), "rounds": closed})
    return {
        "event_id": event.id,
        "hand_ranking": event.hand_ranking,
        "places": places,
        "auctions": history,
    }


def _place_result(
    session: Session,
    place: int,
    auction: Auction | None,
    ext: dict[int, str],
    names: dict[int, str],
) -> PlaceResult:
    """One place of `results`: its winner, name, winning combination and resolution."""
    entry: PlaceResult = {
        "place": place,
        "status": _status(auction),
        "awarded": False,
        "participant": None,
        "name": None,
        "combination": None,
        "category": None,
        "resolution": None,
    }
    if auction is None or auction.status != AuctionStatus.CLOSED:
        return entry
    last = repo.get_round(session, auction.id, auction.current_round)
    entry["resolution"] = ((last.result if last else None) or {}).get("resolution")
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
    return entry


def _winning_combination(session: Session, auction: Auction) -> CombinationView | None:
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
