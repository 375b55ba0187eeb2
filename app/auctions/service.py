"""The award ceremony's commands: open, bid, withdraw, close, reveal, undo, correct
(RULES.md §1.4, I-7 to I-10, I-21). What anybody may see of the bids is
`app.auctions.views`' (the observer); this module never reads a sealed column itself.

Each operation `x` comes as three functions (pokerkit's pattern): `verify_x(...)` raises
the domain error that `x` would raise now (the checks are written once, there);
`can_x(...)` answers the same question as a bool (the pages show only the buttons it
allows); `x(...)` calls `verify_x` under its locks and then does the work.

Every state change locks what it changes (the event row for ceremony steps, the
auction row for bids and the close: SELECT ... FOR UPDATE on PostgreSQL) and is
recorded in the audit trail. Services flush, never commit. Before a round
closes nothing here returns a bid's combination, and the audit entries of bids
carry only receipts, so the organiser's audit view cannot unseal them either.
A close decides a round; only `reveal` makes its decision public, step by step;
`undo_close` works only while nothing of the round is revealed; afterwards
`correct_round` voids bids with a reason and decides the round again, its bids frozen.
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
from app.auctions import rules, views
from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.auctions.rules import AuctionStatus, RoundStatus
from app.auctions.shapes import (
    AuctionView,
    BidReceipt,
    CloseResult,
    CorrectionResult,
    LotsView,
    RevealedBidView,
    RevealResult,
    RoundResult,
    TieBreakView,
    WithdrawalView,
)
from app.core import chain, livelog
from app.core.audit import record
from app.core.db import utcnow
from app.core.errors import AppError, Conflict, Forbidden, NotFound, Unprocessable
from app.core.principal import Principal
from app.events import rules as event_rules
from app.events import service as event_service
from app.events.models import Event, Participant
from app.feed.models import Combination

__all__ = ["CORRECTION_ACTION"]

# The audit action of a correction (RULES.md I-21): an audit entry that decides a result,
# like `auction.lots` (both in app.core.audit.DECIDING_ACTIONS: chained).
CORRECTION_ACTION = "auction.correct"


def _allowed(verify: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """True when `verify(*args, **kwargs)` raises no domain error (the `can_x` functions)."""
    try:
        verify(*args, **kwargs)
    except AppError:
        return False
    return True


_check_place = views.check_place
_status = views.status_of
_statuses = views.statuses


def ceremony_over(session: Session, event: Event) -> bool:
    """True when the auction of every place is closed (the last one decided)."""
    statuses = _statuses(session, event.id)
    return all(
        statuses.get(place) == AuctionStatus.CLOSED
        for place in rules.ceremony_order(event.award_places)
    )


def ceremony_finished(session: Session, event: Event) -> bool:
    """True when every auction is closed and every closed round fully revealed (RULES.md
    I-21): only then are the results public and the event `finished`."""
    return ceremony_over(session, event) and not views.unrevealed_places(session, event.id)


# ------------------------------------------------------------------------ open


def verify_open_auction(
    session: Session, event: Event, place: int, *, now: datetime | None = None
) -> None:
    """Raise unless the organiser may open the auction for `place` at `now` (UTC, default
    the clock): 404 `auction_not_found` (no such place), 409 `course_still_open` (the
    course window has not ended), and the ceremony-order problems of
    `rules.check_can_open` (lowest place first, one auction at a time; RULES.md §1.4),
    409 `reveal_pending` (an earlier auction is not fully revealed: its winner, who may
    not bid again, is not public yet; RULES.md I-21)."""
    _check_place(event, place)
    phase = event_rules.course_phase(event.opens_at, event.closes_at, now or utcnow())
    if phase != event_rules.COURSE_CLOSED:
        raise Conflict(
            f"The course closes at {event_service.zoned_time(event, event.closes_at)} "
            f"({event.closes_at.astimezone(UTC).isoformat()}); auctions open after that.",
            code="course_still_open",
        )
    rules.check_can_open(place, _statuses(session, event.id), event.award_places)
    unrevealed = views.unrevealed_places(session, event.id)
    if unrevealed:
        raise Conflict(
            f"The auction for place {unrevealed[0]} is closed but not fully revealed; "
            "reveal it before the next auction opens (RULES.md I-21).",
            code="reveal_pending",
        )


def can_open_auction(session: Session, event: Event, place: int) -> bool:
    """True when `verify_open_auction` raises nothing now."""
    return _allowed(verify_open_auction, session, event, place)


def open_auction(
    session: Session, event: Event, place: int, caller: Principal, *, now: datetime | None = None
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
    session.add(
        AuctionRound(auction_id=auction.id, number=1, status=RoundStatus.OPEN, opened_at=now)
    )
    session.flush()
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.open",
        subject=f"place {place}",
        details={"place": place, "round": 1},
    )
    livelog.changed(session, event.id, "auction", place, stage=True)
    return views.auction_view(session, event, place, caller)


# ------------------------------------------------------------------------ bids


def _bidder(
    session: Session, event: Event, caller: Principal, external_id: str | None
) -> Participant:
    if caller.participant_id is not None:
        if external_id is not None and external_id != caller.external_id:
            raise Forbidden("A participant may only bid for themselves.", code="not_your_bid")
        participant = session.get(Participant, caller.participant_id)
        assert participant is not None  # the caller's row, loaded by its lookup
        return participant
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
    `auction_closed`, `round_closed`; 409 `tie_break_not_revealed`: a tie-break round
    takes bids, and closes, only once the round that opened it is fully revealed, so
    that everybody knows who tied, RULES.md I-9, I-21)."""
    rules.check_round_open(_status(auction), auction.current_round if auction else 0, round_number)
    assert auction is not None
    current = repo.get_round(session, auction.id, auction.current_round)
    assert current is not None and current.status == RoundStatus.OPEN
    if current.number > 1:
        previous = repo.get_round(session, auction.id, current.number - 1)
        if previous is not None and not views.fully_revealed(previous):
            raise rules.BidRefused(
                f"The tie-break round {current.number} opens once round {previous.number} "
                "is fully revealed.",
                code="tie_break_not_revealed",
            )
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
    caller: Principal,
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
    session: Session, event: Event, place: int, caller: Principal, *, participant: str | None = None
) -> bool:
    """True when `verify_bidder` raises nothing: the bid form may be shown."""
    return _allowed(verify_bidder, session, event, place, caller, participant=participant)


def verify_place_bid(
    session: Session,
    event: Event,
    place: int,
    caller: Principal,
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
    caller: Principal,
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
    caller: Principal,
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
    livelog.changed(session, event.id, "auction", place)  # a bid count: no stage moved
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
    cards = list(combination.cards)
    bid = repo.new_bid(
        auction_id=plan.auction.id,
        round_id=plan.round.id,
        participant_id=plan.bidder.id,
        combination_id=combination.id,
        cards=cards,
        nonce=nonce,
        receipt=receipt,
        placed_by=actor,
        created_at=now,
    )
    content = chain.bid_content(
        round_number=plan.round.number,
        combination_hash=repo.take_hash(session, combination.id),
        cards=cards,
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
    session: Session,
    event: Event,
    place: int,
    caller: Principal,
    bid_id: int,
    *,
    lock: bool = False,
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
    if not caller.is_organiser and caller.participant_id != bid.participant_id:
        raise Forbidden("Only the bidder or the organiser may withdraw a bid.", code="not_your_bid")
    auction, current = _open_round(session, auction)
    if bid.round_id != current.id:
        raise rules.BidRefused("That bid belongs to a closed round.", code="round_closed")
    if repo.withdrawal_of(session, bid.id) is not None:
        raise rules.BidRefused("That bid was already replaced or withdrawn.", code="bid_not_live")
    return auction, bid, current


def can_withdraw_bid(
    session: Session, event: Event, place: int, caller: Principal, bid_id: int
) -> bool:
    """True when `verify_withdraw_bid` raises nothing now."""
    return _allowed(verify_withdraw_bid, session, event, place, caller, bid_id)


def withdraw_bid(
    session: Session, event: Event, place: int, caller: Principal, bid_id: int
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
    livelog.changed(session, event.id, "auction", place)
    return {"bid_id": bid.id, "status": "withdrawn"}


def allowed_bid_steps(
    session: Session, event: Event, view: AuctionView, caller: Principal
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
    `auction_closed` / `tie_break_not_revealed`."""
    _check_place(event, place)
    return _open_round(session, repo.get_auction(session, event.id, place, lock=lock))


def can_close_auction(session: Session, event: Event, place: int) -> bool:
    """True when `verify_close_auction` raises nothing now."""
    return _allowed(verify_close_auction, session, event, place)


def close_auction(
    session: Session, event: Event, place: int, caller: Principal, *, lots_seed: int | None = None
) -> CloseResult:
    """Close the open round of auction `place` and decide it (RULES.md §1.4, I-9, I-21).

    The live bids are ranked under the event's preset (`event.hand_ranking`);
    the outcome follows `rules.decide_round`. When it decides the place the
    auction closes (winner or unawarded); on a tie with two or more tied bidders
    able to rebid, a tie-break round opens for them and the auction stays open (it
    takes bids once this round is fully revealed). Lots use `lots_seed` or a fresh
    random seed; seed and result are recorded. The decision is public only as far
    as `reveal` publishes it; the organiser gets all of it here, in the `CloseRead`
    shape. Raises what `verify_close_auction` raises.
    """
    _check_place(event, place)
    repo.lock_event(session, event.id)
    auction, current = verify_close_auction(session, event, place, lock=True)
    ext = repo.external_ids(session, event.id)
    sealed, revealed = views.open_envelopes(session, event, current, ext)
    outcome = _decide(session, event, current, sealed, ext, lots_seed)
    result = _round_result(outcome, revealed, current.number)
    now = utcnow()
    current.status = RoundStatus.CLOSED
    current.closed_at = now
    current.revealed, current.revealed_at = 0, None
    _settle(session, auction, current, outcome, result, sealed, ext, now)
    session.flush()
    _record_close(session, event, place, caller.actor, current.number, auction.status, result)
    livelog.changed(session, event.id, "auction", place, stage=True)
    return _close_result(place, auction, current.number, outcome, result)


def _close_result(
    place: int, auction: Auction, number: int, outcome: rules.RoundOutcome, result: RoundResult
) -> CloseResult:
    return {
        "place": place,
        "status": AuctionStatus(auction.status),
        "round": number,
        "winner": outcome.winner,
        "tie": outcome.tie,
        "resolution": outcome.resolution,
        "tied": outcome.tied,
        "tie_break": result["tie_break"],
        "lots": result["lots"],
        "bids": result["bids"],
    }


def _settle(
    session: Session,
    auction: Auction,
    current: AuctionRound,
    outcome: rules.RoundOutcome,
    result: RoundResult,
    sealed: list[rules.SealedBid],
    ext: dict[int, str],
    now: datetime,
) -> None:
    """Store the decision of closed round `current`: the place awarded (or unawarded), or
    a tie-break round opened for the tied bidders who can rebid."""
    current.resolution = outcome.resolution
    repo.set_decision(current, result)
    if outcome.decided:
        _award(session, auction, outcome, sealed, ext, now)
    else:
        _open_tie_break_round(session, auction, outcome, ext, now)


def _decide(
    session: Session,
    event: Event,
    current: AuctionRound,
    sealed: list[rules.SealedBid],
    ext: dict[int, str],
    lots_seed: int | None,
) -> rules.RoundOutcome:
    """`rules.decide_round` on the round's sealed bids: a tied bidder can rebid when a
    usable combination is left once this round's bids are used up."""
    used = repo.used_combination_ids(session, event.id) | {b.combination_id for b in sealed}
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
    auction.winner_participant_id = None
    auction.winner_combination_id = None
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
    auction.status = AuctionStatus.OPEN
    auction.closed_at = None
    auction.winner_participant_id = None
    auction.winner_combination_id = None
    auction.current_round += 1
    session.add(
        AuctionRound(
            auction_id=auction.id,
            number=auction.current_round,
            status=RoundStatus.OPEN,
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
    *,
    action: str = "auction.close",
    extra: dict[str, Any] | None = None,
) -> None:
    """The audit entries of a close (or a correction, `action`): `auction.close`, and
    `auction.lots` / `auction.tie_break_open` when lots were drawn / a tie-break round
    opened."""
    subject = f"place {place}"
    details: dict[str, Any] = {
        "place": place,
        "round": number,
        "auction_status": auction_status,
        **(extra or {}),
        **result,
        # the full decision is in the round's result; here, compactly, what proves it:
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

    log(action, details)
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
    earlier = [
        r for r in reversed(repo.rounds_of(session, auction.id)) if r.status == RoundStatus.CLOSED
    ]
    return views.combination_of_bidder(earlier, winner)


# ---------------------------------------------------------------------- reveal


def verify_reveal(
    session: Session, event: Event, place: int, *, lock: bool = False
) -> tuple[Auction, AuctionRound]:
    """Raise unless a step of auction `place` is left to reveal; return the auction and
    its round being revealed (the first closed round not fully revealed). Raises 404
    `auction_not_found`, 409 `nothing_to_reveal` (nothing closed, or all revealed)."""
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place, lock=lock)
    rnd = views.round_to_reveal(session, auction)
    if auction is None or rnd is None:
        raise Conflict(
            f"The auction for place {place} has no closed round left to reveal.",
            code="nothing_to_reveal",
        )
    return auction, rnd


def can_reveal(session: Session, event: Event, place: int) -> bool:
    """True when `verify_reveal` raises nothing now."""
    return _allowed(verify_reveal, session, event, place)


def reveal(
    session: Session, event: Event, place: int, caller: Principal, *, everything: bool = False
) -> RevealResult:
    """Reveal the next step of auction `place`'s closed round (organiser; RULES.md I-21):
    its counted bids from the weakest to the strongest, one a step, then the outcome
    (ranks, winner, tie-break, lots or no winner); `everything` reveals every step left.
    The progress is stored on the round (`revealed`, `revealed_at` at the last step) and
    recorded in the audit trail (`auction.reveal`). Once a step is revealed the close can
    no longer be undone (`undo_close`). Returns the round as everyone now sees it
    (`views.reveal_view`). Raises what `verify_reveal` raises."""
    _check_place(event, place)
    repo.lock_event(session, event.id)
    _, rnd = verify_reveal(session, event, place, lock=True)
    state = views.reveal_state(rnd)
    rnd.revealed = state.steps if everything else state.revealed + 1
    if rnd.revealed >= state.steps:
        rnd.revealed_at = utcnow()
    session.flush()
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.reveal",
        subject=f"place {place}",
        details={
            "place": place,
            "round": rnd.number,
            "revealed": rnd.revealed,
            "steps": state.steps,
            "all": everything,
        },
    )
    livelog.changed(session, event.id, "auction", place, stage=True)
    return views.reveal_view(session, event, place, rnd)


# ------------------------------------------------------------------------ undo


def _undo_too_late_after_reveal(rnd: AuctionRound) -> None:
    if rnd.revealed > 0:
        raise Conflict(
            f"Round {rnd.number} has already been revealed in part; its close can no longer "
            "be undone (RULES.md I-21). A correction (…/rounds/{n}/correct) can void a bid "
            "and decide the round again.",
            code="undo_after_reveal",
        )


def verify_undo_close(
    session: Session, event: Event, place: int, *, lock: bool = False
) -> tuple[Auction, AuctionRound | None]:
    """Raise unless the last close of auction `place` may be undone now; return the
    auction and, when that close opened a tie-break round, that round (to remove).

    Undoable only while nothing of the closed round is revealed (RULES.md I-21): an
    open tie-break round without bids, or the last closed auction while the next is
    still pending (`rules.check_can_undo`). Raises 404 `auction_not_found`, 409
    `undo_after_reveal` (a step of the closed round is revealed), `nothing_to_undo`
    (the tie-break round has bids), `auction_not_closed`, `undo_too_late`."""
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place, lock=lock)
    if auction is not None and auction.status == AuctionStatus.OPEN and auction.current_round > 1:
        current = repo.get_round(session, auction.id, auction.current_round)
        tied = repo.get_round(session, auction.id, auction.current_round - 1)
        assert current is not None and tied is not None
        _undo_too_late_after_reveal(tied)
        if repo.bids_in_round(session, current.id) > 0:
            raise Conflict(
                "The tie-break round already has bids; its opening cannot be undone.",
                code="nothing_to_undo",
            )
        return auction, current
    rules.check_can_undo(place, _statuses(session, event.id), event.award_places)
    assert auction is not None
    last = repo.get_round(session, auction.id, auction.current_round)
    assert last is not None
    _undo_too_late_after_reveal(last)
    return auction, None


def can_undo_close(session: Session, event: Event, place: int) -> bool:
    """True when `verify_undo_close` raises nothing now."""
    return _allowed(verify_undo_close, session, event, place)


def undo_close(session: Session, event: Event, place: int, caller: Principal) -> AuctionView:
    """Undo the last close of auction `place` (organiser): only while nothing of that
    round is revealed and until the next auction opens (RULES.md I-21).

    - A closed auction reopens its last round: the decision and the winner are
      cleared and the round takes bids again (its bids stay in, still sealed).
    - An auction whose last close opened a tie-break round (which cannot have bids
      before the tied round is revealed): the tie-break round is removed and the tied
      round reopens.
    The undone decision stays in the audit trail (`auction.undo_close`).
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
    undone = views.decision(previous)
    previous.status = RoundStatus.OPEN
    previous.closed_at = None
    previous.resolution = None
    previous.revealed, previous.revealed_at = 0, None
    repo.set_decision(previous, None)
    session.flush()
    record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="auction.undo_close",
        subject=f"place {place}",
        details={"place": place, "round": previous.number, "undone": undone},
    )
    livelog.changed(session, event.id, "auction", place, stage=True)
    return views.auction_view(session, event, place, caller)


# ------------------------------------------------------------------- correction


@dataclass(frozen=True)
class CorrectionPlan:
    """What `verify_correct_round` checked: the auction, the closed round to decide again,
    the tie-break round its close opened (to remove; it has no bid), the bids to void."""

    auction: Auction
    round: AuctionRound
    tie_break: AuctionRound | None
    voided: list[Bid]


def _tie_break_to_remove(session: Session, auction: Auction, number: int) -> AuctionRound | None:
    """The tie-break round that closing round `number` opened (still open, no bid), or None
    when `number` is the auction's current round. Raises 409 `correction_not_possible`
    when a later round has bids or was closed."""
    if auction.current_round == number:
        return None
    tie_break = repo.get_round(session, auction.id, number + 1)
    if (
        auction.current_round != number + 1
        or tie_break is None
        or tie_break.status != RoundStatus.OPEN
        or repo.bids_in_round(session, tie_break.id) > 0
    ):
        raise Conflict(
            f"Round {number} is not the latest decided round of this auction (a later "
            "round has bids or is closed); it can no longer be corrected.",
            code="correction_not_possible",
        )
    return tie_break


def _check_later_auctions_pending(session: Session, event: Event, place: int) -> None:
    """Raise 409 `correction_too_late` when an auction after `place` in the ceremony
    order has opened (RULES.md I-21)."""
    order = rules.ceremony_order(event.award_places)
    statuses = _statuses(session, event.id)
    for later in order[order.index(place) + 1 :]:
        if statuses.get(later, AuctionStatus.PENDING) != AuctionStatus.PENDING:
            raise Conflict(
                f"The auction for place {later} has already opened; the auction for place "
                f"{place} can no longer be corrected.",
                code="correction_too_late",
            )


def verify_correct_round(
    session: Session,
    event: Event,
    place: int,
    number: int,
    void_bids: list[int],
    *,
    lock: bool = False,
) -> CorrectionPlan:
    """Raise unless round `number` of auction `place` may be corrected now (RULES.md I-21);
    return the plan. Correctable: the auction's latest decided round (closed, and the
    auction closed with it, or the tie-break round it opened still without a bid) while
    the next auction is still pending, voiding counted bids of that round.

    Raises 404 `auction_not_found` / `round_not_found`, 409 `round_not_closed`,
    `correction_not_possible` (a later round of this auction has bids or was closed),
    `correction_too_late` (the next auction has opened), 422 `bid_not_counted` (a bid
    that is not counted in that round)."""
    _check_place(event, place)
    auction = repo.get_auction(session, event.id, place, lock=lock)
    rnd = repo.get_round(session, auction.id, number) if auction else None
    if auction is None or rnd is None:
        raise NotFound(
            f"The auction for place {place} has no round {number}.", code="round_not_found"
        )
    if rnd.status != RoundStatus.CLOSED:
        raise Conflict(
            f"Round {number} is still open; it takes bids (no correction needed).",
            code="round_not_closed",
        )
    tie_break = _tie_break_to_remove(session, auction, number)
    _check_later_auctions_pending(session, event, place)
    counted = {b.id: b for b in repo.live_bids(session, rnd.id)}
    missing = [bid_id for bid_id in void_bids if bid_id not in counted]
    if missing:
        raise Unprocessable(
            f"Bid {missing[0]} is not a counted bid of round {number} of place {place}.",
            code="bid_not_counted",
            bid_ids=missing,
        )
    return CorrectionPlan(auction, rnd, tie_break, [counted[b] for b in sorted(set(void_bids))])


def _record_correction(
    session: Session,
    event: Event,
    place: int,
    caller: Principal,
    plan: CorrectionPlan,
    result: RoundResult,
    reason: str,
    replaced: object,
) -> None:
    """Audit `CORRECTION_ACTION` for `plan`: the reason, the voided bids (id, external
    id, receipt) and the decision replaced."""
    named = repo.external_ids_of(session, [b.participant_id for b in plan.voided])
    _record_close(
        session,
        event,
        place,
        caller.actor,
        plan.round.number,
        plan.auction.status,
        result,
        action=CORRECTION_ACTION,
        extra={
            "reason": reason,
            "voided": [[b.id, named[b.participant_id], b.receipt] for b in plan.voided],
            "replaced": replaced,
        },
    )


def correct_round(
    session: Session,
    event: Event,
    place: int,
    number: int,
    caller: Principal,
    *,
    reason: str,
    void_bids: list[int],
    lots_seed: int | None = None,
) -> CorrectionResult:
    """Correct a decided round after its reveal (organiser; RULES.md I-21): void the
    bids `void_bids` (e.g. one recorded for the wrong participant) with `reason`, and
    decide the round again among its remaining bids, frozen as they were (nobody may bid
    in it again). Each voided bid gets an append-only withdrawal row, reason
    `correction`, chained like any withdrawal. A tie-break round the first decision
    opened (still without bids) is removed; the new decision may open one, or draw lots
    (`lots_seed`). The reveal keeps its progress (`rules.revealed_after_correction`):
    a shown outcome is replaced by the new one at once. Recorded in the audit trail as
    `CORRECTION_ACTION` with the reason, the voided bids and the decision replaced.
    Raises what `verify_correct_round` raises."""
    _check_place(event, place)
    repo.lock_event(session, event.id)
    plan = verify_correct_round(session, event, place, number, void_bids, lock=True)
    auction, rnd = plan.auction, plan.round
    before = views.reveal_state(rnd)
    replaced = views.decision(rnd)
    for bid in plan.voided:
        _withdraw(session, auction, bid, "correction", caller.actor)
    if plan.tie_break is not None:
        session.delete(plan.tie_break)
        session.flush()
        auction.current_round = number
    ext = repo.external_ids(session, event.id)
    sealed, revealed = views.open_envelopes(session, event, rnd, ext)
    outcome = _decide(session, event, rnd, sealed, ext, lots_seed)
    result = _round_result(outcome, revealed, number)
    now = utcnow()
    _settle(session, auction, rnd, outcome, result, sealed, ext, now)
    voided_ids = [b.id for b in plan.voided]
    rnd.revealed = rules.revealed_after_correction(before.order, before.revealed, voided_ids)
    rnd.revealed_at = now if rnd.revealed >= rules.reveal_steps(len(sealed)) else None
    session.flush()
    _record_correction(session, event, place, caller, plan, result, reason, replaced)
    livelog.changed(session, event.id, "auction", place, stage=True)
    return {
        **_close_result(place, auction, number, outcome, result),
        "reason": reason,
        "voided": voided_ids,
        "revealed": rnd.revealed,
        "steps": rules.reveal_steps(len(sealed)),
    }
