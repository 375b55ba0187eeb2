"""The award ceremony's rules (RULES.md §1.4, I-7 to I-10), pure.

No database, no HTTP, no clock: the service hands in plain values (who bid
what, which combinations are used, who has won) and gets decisions back. The
only randomness is the lot draw, from a `random.Random` seeded by the caller,
so a recorded seed replays the draw exactly.

Vocabulary:
- an *auction* is one place (3rd, 2nd, 1st by default), auctioned from the
  lowest place to the highest (`ceremony_order`);
- an auction has *rounds*: round 1 is open to every eligible participant;
  round n + 1 is a tie-break round open only to the tied bidders of round n
  who still have an unused combination (RULES.md I-9);
- a *bid* puts one combination "into the hat"; its *receipt* is a SHA-256
  commitment to the bid (RULES.md I-10, `commitment`).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from app.core.errors import AppError


class AuctionStatus(StrEnum):
    """An auction's status (a `str`, so views and JSON read "pending" / "open" / "closed")."""

    PENDING = "pending"
    OPEN = "open"
    CLOSED = "closed"


class RoundStatus(StrEnum):
    """A round's status: bids are taken while "open"; "closed" once decided."""

    OPEN = "open"
    CLOSED = "closed"


AUCTION_STATUSES = tuple(AuctionStatus)
ROUND_STATUSES = tuple(RoundStatus)
COMMITMENT_VERSION = "rogaine-auction-bid/v1"

Resolution = Literal["strongest", "no_bids", "tie_break", "only_bidder_left", "lots"]


class BidRefused(AppError):
    """A bid or withdrawal the rules do not allow now (409 or 422, stable `code`)."""

    status, code = 409, "bid_refused"


class CeremonyOrderError(AppError):
    """Opening, closing or undoing an auction out of the ceremony's order (409)."""

    status, code = 409, "auction_out_of_order"


# --------------------------------------------------------------------------- order


def ceremony_order(award_places: int) -> list[int]:
    """Places in the order they are auctioned: lowest first, e.g. 3 -> [3, 2, 1] (RULES.md §1.4)."""
    if award_places < 1:
        raise ValueError("an event awards at least one place")
    return list(range(award_places, 0, -1))


def check_can_open(place: int, statuses: dict[int, str], award_places: int) -> None:
    """Raise unless auction `place` may open now.

    `statuses` maps place -> "pending" | "open" | "closed" (missing = pending).
    Rules: only a pending auction opens (`auction_already_open`,
    `auction_already_closed`); no other auction is open (`auction_in_progress`);
    every lower place (auctioned earlier) is closed (`auction_out_of_order`).
    """
    status = statuses.get(place, AuctionStatus.PENDING)
    if status == AuctionStatus.OPEN:
        raise CeremonyOrderError(
            f"The auction for place {place} is already open.", code="auction_already_open"
        )
    if status == AuctionStatus.CLOSED:
        raise CeremonyOrderError(
            f"The auction for place {place} is already closed.", code="auction_already_closed"
        )
    for other in ceremony_order(award_places):
        if other == place:
            break
        other_status = statuses.get(other, AuctionStatus.PENDING)
        if other_status == AuctionStatus.OPEN:
            raise CeremonyOrderError(
                f"The auction for place {other} is still open; close it first.",
                code="auction_in_progress",
            )
        if other_status != AuctionStatus.CLOSED:
            raise CeremonyOrderError(
                f"Places are auctioned from the lowest to the highest: "
                f"the auction for place {other} comes before place {place}.",
                code="auction_out_of_order",
            )


def check_can_undo(place: int, statuses: dict[int, str], award_places: int) -> None:
    """Raise unless the close of auction `place` may be undone.

    Only the last closed auction, and only until the next one opens: `place`
    is closed and every later place (higher) is still pending
    (`auction_not_closed`, `undo_too_late`).
    """
    if statuses.get(place, AuctionStatus.PENDING) != AuctionStatus.CLOSED:
        raise CeremonyOrderError(
            f"The auction for place {place} is not closed.", code="auction_not_closed"
        )
    order = ceremony_order(award_places)
    for later in order[order.index(place) + 1 :]:
        if statuses.get(later, AuctionStatus.PENDING) != AuctionStatus.PENDING:
            raise CeremonyOrderError(
                f"The auction for place {later} has already opened; the close of place "
                f"{place} can no longer be undone.",
                code="undo_too_late",
            )


# ------------------------------------------------------------------ eligibility


@dataclass(frozen=True)
class CombinationFacts:
    """What eligibility needs to know about one combination."""

    id: int
    owner: str  # external_id of the participant who saved it
    saved_at: datetime


def check_auction_open(auction_status: str) -> None:
    """Raise `BidRefused` unless the auction is open: `auction_not_open` before the open,
    `auction_closed` after the close (409). Bids, withdrawals and the close need it."""
    if auction_status == AuctionStatus.PENDING:
        raise BidRefused("This auction has not been opened yet.", code="auction_not_open")
    if auction_status == AuctionStatus.CLOSED:
        raise BidRefused("This auction is closed.", code="auction_closed")


def check_round_open(auction_status: str, current_round: int, round_number: int | None) -> None:
    """Raise unless the auction is open (`check_auction_open`) and `round_number`, when
    given (a screen's stale round), is its current round (`round_closed`, 409)."""
    check_auction_open(auction_status)
    if round_number is not None and round_number != current_round:
        raise BidRefused(
            f"Round {round_number} is not the open round (round {current_round} is).",
            code="round_closed",
        )


def check_bidder(
    *,
    auction_status: str,
    bidder: str,
    winners: Collection[str],
    round_eligible: Collection[str] | None,
) -> None:
    """Raise `BidRefused` unless `bidder` may bid in the open round at all (409):
    the auction is open (`check_auction_open`), the bidder has not won an earlier
    auction (`bidder_already_won`, RULES.md I-8), and in a tie-break round is one
    of the tied bidders (`not_in_tie_break`, I-9). `round_eligible` is None in round 1."""
    check_auction_open(auction_status)
    if bidder in winners:
        raise BidRefused(
            "This participant has already won a place and takes no part in later auctions.",
            code="bidder_already_won",
        )
    if round_eligible is not None and bidder not in round_eligible:
        raise BidRefused(
            "Only the tied bidders may bid in this tie-break round.", code="not_in_tie_break"
        )


def may_bid(
    *,
    auction_status: str,
    bidder: str,
    winners: Collection[str],
    round_eligible: Collection[str] | None,
) -> bool:
    """True when `check_bidder` raises nothing for these values."""
    try:
        check_bidder(
            auction_status=auction_status,
            bidder=bidder,
            winners=winners,
            round_eligible=round_eligible,
        )
    except BidRefused:
        return False
    return True


def saved_in_course(saved_at: datetime, opens_at: datetime, closes_at: datetime) -> bool:
    """True when a combination saved at `saved_at` was saved while the course was open:
    opens_at <= saved_at < closes_at (UTC datetimes; RULES.md §1.4)."""
    return opens_at <= saved_at < closes_at


def usable_combination_ids(
    combinations: Iterable[tuple[int, datetime]],
    *,
    opens_at: datetime,
    closes_at: datetime,
    used_combinations: Collection[int],
) -> list[int]:
    """The combinations, as (id, saved_at) pairs, that may still be bid: saved while the
    course was open (`saved_in_course`) and never put into a closed round
    (`used_combinations`), in the given order (RULES.md §1.4). `check_combination`
    refuses exactly the others."""
    return [
        combination_id
        for combination_id, saved_at in combinations
        if combination_id not in used_combinations
        and saved_in_course(saved_at, opens_at, closes_at)
    ]


def check_combination(
    *,
    bidder: str,
    combination: CombinationFacts | None,
    opens_at: datetime,
    closes_at: datetime,
    used_combinations: Collection[int],
) -> None:
    """Raise `BidRefused` unless `bidder` may put `combination` into a bid:
    - it exists in this event (`combination_not_found`), 422;
    - it is the bidder's own (`combination_not_yours`), 422;
    - it was saved while the course was open (`saved_in_course`;
      `combination_outside_course_hours`), 422;
    - it was not bid in a closed round, of this auction or an earlier one
      (`combination_used`), 409.
    """
    if combination is None:
        raise BidRefused(
            "No such combination in this event.", code="combination_not_found", status=422
        )
    if combination.owner != bidder:
        raise BidRefused(
            "That combination is not this participant's.", code="combination_not_yours", status=422
        )
    if not saved_in_course(combination.saved_at, opens_at, closes_at):
        raise BidRefused(
            "That combination was not saved while the course was open.",
            code="combination_outside_course_hours",
            status=422,
        )
    if combination.id in used_combinations:
        raise BidRefused(
            "That combination was already put into a closed auction and is used up.",
            code="combination_used",
        )


def check_bid(
    *,
    auction_status: str,
    bidder: str,
    combination: CombinationFacts | None,
    opens_at: datetime,
    closes_at: datetime,
    used_combinations: Collection[int],
    winners: Collection[str],
    round_eligible: Collection[str] | None,
) -> None:
    """Raise `BidRefused` unless `bidder` may bid `combination` in the open round now
    (RULES.md §1.4, I-7 to I-9): `check_bidder` (auction open, not a winner, tied
    bidders only in a tie-break round; 409), then `check_combination` (exists, own,
    saved in course hours: 422; not used up: 409), in that order.
    `round_eligible` is None in round 1 (everybody who has not won may bid).
    """
    check_bidder(
        auction_status=auction_status,
        bidder=bidder,
        winners=winners,
        round_eligible=round_eligible,
    )
    check_combination(
        bidder=bidder,
        combination=combination,
        opens_at=opens_at,
        closes_at=closes_at,
        used_combinations=used_combinations,
    )


# ----------------------------------------------------------------- commitments


def commitment_string(
    *, event_id: int, place: int, round_number: int, bidder: str, combination_id: int, nonce: str
) -> str:
    """The canonical text a receipt commits to (RULES.md I-10).

    `rogaine-auction-bid/v1|event=<event_id>|place=<place>|round=<round>|`
    `bidder=<external_id>|combination=<combination_id>|nonce=<nonce>`,
    integers in decimal, the nonce as the lowercase hex string it was revealed as.
    """
    return (
        f"{COMMITMENT_VERSION}|event={event_id}|place={place}|round={round_number}"
        f"|bidder={bidder}|combination={combination_id}|nonce={nonce}"
    )


def commitment(**parts: Any) -> str:
    """The receipt: lowercase hex SHA-256 of the UTF-8 `commitment_string(**parts)`."""
    return hashlib.sha256(commitment_string(**parts).encode("utf-8")).hexdigest()


# --------------------------------------------------------------------- ranking


@dataclass(frozen=True)
class SealedBid:
    """A bid that counts at the close: who, which combination, and its strength.

    `strength` is the evaluator's comparable value (higher is stronger; equal
    strength is a tie) under the event's ranking preset (RULES.md I-5).
    """

    bid_id: int
    bidder: str
    combination_id: int
    strength: tuple[Any, ...]


@dataclass(frozen=True)
class RankedBid:
    bid: SealedBid
    rank: int  # 1 = strongest; equal strengths share a rank (1, 1, 3, ...)


def rank_bids(bids: Iterable[SealedBid]) -> list[RankedBid]:
    """Bids strongest first with competition ranks (ties share, the next rank skips).

    Equal strengths are listed by bidder then bid id, so the order is stable.
    """
    ordered = sorted(bids, key=lambda b: (b.bidder, b.bid_id))
    ordered.sort(key=lambda b: b.strength, reverse=True)
    ranked: list[RankedBid] = []
    for position, bid in enumerate(ordered, start=1):
        if ranked and ranked[-1].bid.strength == bid.strength:
            ranked.append(RankedBid(bid, ranked[-1].rank))
        else:
            ranked.append(RankedBid(bid, position))
    return ranked


# ----------------------------------------------------------------- the close


@dataclass(frozen=True)
class Lots:
    """A recorded lot draw: anyone can replay it with `draw_lots(candidates, seed)`."""

    seed: int
    candidates: list[str]
    winner: str


def draw_lots(candidates: Collection[str], seed: int) -> Lots:
    """Draw one winner among `candidates` (RULES.md I-9), reproducibly.

    Recipe: sort the external ids as strings, then
    `random.Random(seed).choice(sorted_ids)` (Python's Mersenne Twister).
    """
    if not candidates:
        raise ValueError("lots need at least one candidate")
    ordered = sorted(set(candidates))
    return Lots(seed=seed, candidates=ordered, winner=random.Random(seed).choice(ordered))


@dataclass(frozen=True)
class RoundOutcome:
    """What closing one round decides.

    - `resolution`: "strongest" (one best bid wins), "no_bids" (round 1 without
      bids: the place is unawarded), "tie_break" (a new round for
      `tie_break_bidders`; the auction stays open), "only_bidder_left" (one
      tied bidder can still bid, the others have no combination left and lose),
      "lots" (nobody can rebid: `lots` decided).
    - `winner`: external id, or None (unawarded, or a tie-break round follows).
    - `tied`: the bidders tied for the top (empty without a tie).
    """

    resolution: Resolution
    ranked: list[RankedBid]
    winner: str | None
    tied: list[str] = field(default_factory=list)
    tie_break_bidders: list[str] = field(default_factory=list)
    lots: Lots | None = None

    @property
    def decided(self) -> bool:
        """True when the auction closes (a winner, or the place unawarded)."""
        return self.resolution != "tie_break"

    @property
    def tie(self) -> bool:
        return bool(self.tied)


def decide_round(
    bids: Sequence[SealedBid],
    *,
    round_eligible: Collection[str] | None,
    has_combination_left: Callable[[str], bool],
    lots_seed: Callable[[], int],
) -> RoundOutcome:
    """Close one round (RULES.md §1.4, I-9).

    `bids` are the round's live bids (one per bidder, replaced and withdrawn
    ones excluded). `round_eligible` is None in round 1, else the bidders
    allowed in this tie-break round. `has_combination_left(bidder)` tells
    whether the bidder still holds an unused, eligible combination once this
    round's bids are used up. `lots_seed()` is called only when lots are drawn.

    - Round 1 without bids: the place is unawarded ("no_bids").
    - One strongest bid: it wins ("strongest").
    - Several bids tie for the top: those with a combination left hold a
      tie-break round; with exactly one such bidder that bidder wins
      ("only_bidder_left"), with none lots are drawn among the tied ("lots").
    - A tie-break round in which nobody bids: nobody could or would rebid, so
      lots are drawn among that round's eligible bidders (abstaining in a
      tie-break round loses it, like having no combination left).
    """
    ranked = rank_bids(bids)
    if not ranked:
        if round_eligible is None:
            return RoundOutcome("no_bids", ranked, None)
        lots = draw_lots(round_eligible, lots_seed())
        return RoundOutcome("lots", ranked, lots.winner, tied=lots.candidates, lots=lots)
    top = [r.bid.bidder for r in ranked if r.rank == 1]
    if len(top) == 1:
        return RoundOutcome("strongest", ranked, top[0])
    tied = sorted(top)
    can_rebid = [bidder for bidder in tied if has_combination_left(bidder)]
    if len(can_rebid) >= 2:
        return RoundOutcome("tie_break", ranked, None, tied=tied, tie_break_bidders=can_rebid)
    if len(can_rebid) == 1:
        return RoundOutcome("only_bidder_left", ranked, can_rebid[0], tied=tied)
    lots = draw_lots(tied, lots_seed())
    return RoundOutcome("lots", ranked, lots.winner, tied=tied, lots=lots)


# ---------------------------------------------------------------------- reveal


def reveal_steps(bid_count: int) -> int:
    """How many reveal steps a closed round has (RULES.md I-21): one per counted bid, from
    the weakest to the strongest, then one for the outcome (winner, tie-break, lots or
    no winner). A round without bids has its outcome step only."""
    return bid_count + 1


def reveal_order(bids: Iterable[tuple[int, str, int]]) -> list[int]:
    """The bid ids of a closed round, as (bid id, bidder, rank) with rank 1 the
    strongest, in the order they are revealed: the weakest first, equal ranks by
    bidder (external id)."""
    return [bid_id for bid_id, _, _ in sorted(bids, key=lambda b: (-b[2], b[1], b[0]))]


def revealed_bid_ids(order: Sequence[int], revealed: int) -> set[int]:
    """The bids shown after `revealed` steps of a round revealed in `order`."""
    return set(order[: max(0, min(revealed, len(order)))])


def outcome_revealed(bid_count: int, revealed: int) -> bool:
    """True when the outcome step of a round with `bid_count` counted bids is taken: the
    round is fully revealed."""
    return revealed >= reveal_steps(bid_count)


def revealed_after_correction(order: Sequence[int], revealed: int, voided: Collection[int]) -> int:
    """The reveal steps a corrected round keeps (RULES.md I-21): the revealed bids that
    still count (a correction does not reorder the others, so they are again the
    weakest ones) and, when the outcome was shown, the new outcome at once."""
    shown = [bid_id for bid_id in order[: min(revealed, len(order))] if bid_id not in voided]
    return len(shown) + (1 if outcome_revealed(len(order), revealed) else 0)
