"""Unit tests of the pure auction rules (RULES.md §1.4, I-7 to I-10). Values by hand."""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime, timedelta

import pytest

from app.auctions import rules
from app.auctions.rules import (
    BidRefused,
    CeremonyOrderError,
    CombinationFacts,
    SealedBid,
    ceremony_order,
    check_bid,
    check_can_open,
    check_can_undo,
    commitment,
    commitment_string,
    decide_round,
    draw_lots,
    rank_bids,
)

OPENS = datetime(2026, 6, 12, 9, 0, tzinfo=UTC)
CLOSES = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)


# ------------------------------------------------------------------ order


def test_ceremony_order_lowest_place_first() -> None:
    assert ceremony_order(3) == [3, 2, 1]
    assert ceremony_order(5) == [5, 4, 3, 2, 1]
    assert ceremony_order(1) == [1]
    with pytest.raises(ValueError):
        ceremony_order(0)


def test_third_place_opens_first() -> None:
    check_can_open(3, {}, 3)
    with pytest.raises(CeremonyOrderError) as info:
        check_can_open(1, {}, 3)
    assert info.value.code == "auction_out_of_order"
    with pytest.raises(CeremonyOrderError) as info:
        check_can_open(1, {3: "closed"}, 3)  # 2nd place comes before 1st
    assert info.value.code == "auction_out_of_order"


def test_open_refuses_while_another_is_open_or_twice() -> None:
    with pytest.raises(CeremonyOrderError) as info:
        check_can_open(2, {3: "open"}, 3)
    assert info.value.code == "auction_in_progress"
    with pytest.raises(CeremonyOrderError) as info:
        check_can_open(3, {3: "open"}, 3)
    assert info.value.code == "auction_already_open"
    with pytest.raises(CeremonyOrderError) as info:
        check_can_open(3, {3: "closed"}, 3)
    assert info.value.code == "auction_already_closed"
    check_can_open(2, {3: "closed"}, 3)
    check_can_open(1, {3: "closed", 2: "closed"}, 3)


def test_undo_only_the_last_close_before_the_next_opens() -> None:
    check_can_undo(3, {3: "closed"}, 3)
    check_can_undo(2, {3: "closed", 2: "closed"}, 3)
    with pytest.raises(CeremonyOrderError) as info:
        check_can_undo(3, {3: "closed", 2: "open"}, 3)
    assert info.value.code == "undo_too_late"
    with pytest.raises(CeremonyOrderError) as info:
        check_can_undo(3, {3: "closed", 2: "closed"}, 3)
    assert info.value.code == "undo_too_late"
    with pytest.raises(CeremonyOrderError) as info:
        check_can_undo(2, {3: "closed", 2: "open"}, 3)
    assert info.value.code == "auction_not_closed"


# ------------------------------------------------------------- eligibility


def _check(**overrides) -> None:
    values = {
        "auction_status": "open",
        "bidder": "7",
        "combination": CombinationFacts(11, "7", OPENS + timedelta(hours=2)),
        "opens_at": OPENS,
        "closes_at": CLOSES,
        "used_combinations": set(),
        "winners": set(),
        "round_eligible": None,
    }
    values.update(overrides)
    check_bid(**values)


def _code(**overrides) -> tuple[str, int]:
    with pytest.raises(BidRefused) as info:
        _check(**overrides)
    return info.value.code, info.value.status


def test_an_eligible_bid_passes() -> None:
    _check()
    _check(round_eligible={"7", "8"})
    _check(combination=CombinationFacts(11, "7", OPENS))  # the opening instant counts


def test_each_eligibility_rule_has_its_code() -> None:
    assert _code(auction_status="pending") == ("auction_not_open", 409)
    assert _code(auction_status="closed") == ("auction_closed", 409)
    assert _code(winners={"7"}) == ("bidder_already_won", 409)
    assert _code(round_eligible={"8", "9"}) == ("not_in_tie_break", 409)
    assert _code(combination=None) == ("combination_not_found", 422)
    assert _code(combination=CombinationFacts(11, "8", OPENS)) == ("combination_not_yours", 422)
    before = CombinationFacts(11, "7", OPENS - timedelta(seconds=1))
    assert _code(combination=before) == ("combination_outside_course_hours", 422)
    at_close = CombinationFacts(11, "7", CLOSES)  # the course is closed at closes_at
    assert _code(combination=at_close) == ("combination_outside_course_hours", 422)
    assert _code(used_combinations={11}) == ("combination_used", 409)


# ------------------------------------------------------------- commitments


def test_commitment_is_sha256_of_the_documented_string() -> None:
    parts = {
        "event_id": 4,
        "place": 3,
        "round_number": 1,
        "bidder": "B-17",
        "combination_id": 250,
        "nonce": "00ff",
    }
    text = "rogaine-auction-bid/v1|event=4|place=3|round=1|bidder=B-17|combination=250|nonce=00ff"
    assert commitment_string(**parts) == text
    assert commitment(**parts) == hashlib.sha256(text.encode()).hexdigest()
    assert commitment(**{**parts, "nonce": "00fe"}) != commitment(**parts)


# ----------------------------------------------------------------- ranking


def _bid(bid_id: int, bidder: str, strength: tuple[int, ...]) -> SealedBid:
    return SealedBid(bid_id, bidder, 100 + bid_id, strength)


def test_rank_bids_competition_ranking() -> None:
    ranked = rank_bids(
        [_bid(1, "a", (3, 9)), _bid(2, "b", (5, 2)), _bid(3, "c", (3, 9)), _bid(4, "d", (1, 14))]
    )
    assert [(r.bid.bidder, r.rank) for r in ranked] == [("b", 1), ("a", 2), ("c", 2), ("d", 4)]


def _no_left(_bidder: str) -> bool:
    return False


def _seed() -> int:
    return 42


def test_round_one_without_bids_leaves_the_place_unawarded() -> None:
    outcome = decide_round([], round_eligible=None, has_combination_left=_no_left, lots_seed=_seed)
    assert (outcome.resolution, outcome.winner, outcome.decided) == ("no_bids", None, True)


def test_strongest_bid_wins() -> None:
    outcome = decide_round(
        [_bid(1, "a", (3,)), _bid(2, "b", (4,))],
        round_eligible=None,
        has_combination_left=_no_left,
        lots_seed=_seed,
    )
    assert (outcome.resolution, outcome.winner, outcome.tie) == ("strongest", "b", False)


def test_tie_opens_a_tie_break_for_tied_bidders_who_can_rebid() -> None:
    bids = [_bid(1, "a", (6, 14)), _bid(2, "b", (6, 14)), _bid(3, "c", (6, 14)), _bid(4, "d", (2,))]
    outcome = decide_round(
        bids,
        round_eligible=None,
        has_combination_left=lambda b: b in {"a", "c", "d"},
        lots_seed=_seed,
    )
    assert outcome.resolution == "tie_break"
    assert outcome.tied == ["a", "b", "c"]
    assert outcome.tie_break_bidders == ["a", "c"]  # b has nothing left and loses; d not tied
    assert outcome.winner is None and not outcome.decided


def test_tie_with_one_bidder_able_to_rebid_goes_to_them() -> None:
    outcome = decide_round(
        [_bid(1, "a", (6,)), _bid(2, "b", (6,))],
        round_eligible=None,
        has_combination_left=lambda b: b == "b",
        lots_seed=_seed,
    )
    assert (outcome.resolution, outcome.winner, outcome.tied) == (
        "only_bidder_left",
        "b",
        ["a", "b"],
    )


def test_tie_nobody_can_rebid_draws_lots_with_the_seed() -> None:
    calls: list[int] = []

    def seed() -> int:
        calls.append(1)
        return 2024

    outcome = decide_round(
        [_bid(1, "x2", (6,)), _bid(2, "x1", (6,))],
        round_eligible=None,
        has_combination_left=_no_left,
        lots_seed=seed,
    )
    assert outcome.resolution == "lots" and calls == [1]
    assert outcome.lots is not None
    assert outcome.lots.seed == 2024 and outcome.lots.candidates == ["x1", "x2"]
    # the documented recipe
    assert outcome.winner == random.Random(2024).choice(["x1", "x2"]) == outcome.lots.winner


def test_tie_break_round_without_bids_draws_lots_among_its_eligible() -> None:
    outcome = decide_round(
        [], round_eligible=["b", "a"], has_combination_left=_no_left, lots_seed=_seed
    )
    assert outcome.resolution == "lots"
    assert outcome.lots is not None and outcome.lots.candidates == ["a", "b"]
    assert outcome.winner == random.Random(42).choice(["a", "b"])


def test_tie_break_round_with_one_bid_wins_and_repeated_tie_repeats() -> None:
    one = decide_round(
        [_bid(5, "a", (1,))],
        round_eligible=["a", "b"],
        has_combination_left=_no_left,
        lots_seed=_seed,
    )
    assert (one.resolution, one.winner) == ("strongest", "a")
    again = decide_round(
        [_bid(5, "a", (4, 3)), _bid(6, "b", (4, 3))],
        round_eligible=["a", "b"],
        has_combination_left=lambda _b: True,
        lots_seed=_seed,
    )
    assert again.resolution == "tie_break" and again.tie_break_bidders == ["a", "b"]


def test_draw_lots_is_reproducible_and_needs_candidates() -> None:
    assert draw_lots(["b", "a", "c"], 7) == draw_lots(["c", "b", "a"], 7)
    assert draw_lots(["solo"], 1).winner == "solo"
    with pytest.raises(ValueError):
        draw_lots([], 1)
    assert rules.AUCTION_STATUSES == ("pending", "open", "closed")
