"""Unit tests of the pure rules engine (RULES.md §1.1–1.2, I-1, I-2, I-4).

Expected values are worked out by hand from RULES.md; the comments say how.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from app.feed import rules
from app.feed.rules import CheckpointRef, Course, PlayState, TakeIn, apply_take, replay
from tests.factories import DECK

OPENS = datetime(2026, 6, 12, 9, 0, tzinfo=UTC)
CLOSES = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)


def _category(cards) -> str:
    # A stand-in for the evaluator: the engine only passes the category through.
    return "cat:" + "".join(sorted(cards))


COURSE = Course(
    opens_at=OPENS,
    closes_at=CLOSES,
    checkpoints={f"CP{card}": CheckpointRef(n, n, card) for n, card in enumerate(DECK, start=1)},
    discards={f"D{card}": CheckpointRef(n, n, card) for n, card in enumerate(DECK, start=1)},
    save_codes=frozenset({"SAVE1", "SAVE2", "SAVE3"}),
    categorise=_category,
)


def run(*codes: str, course: Course = COURSE):
    """Replay `codes` one minute apart from the opening; returns (state, outcomes)."""
    takes = [TakeIn(i, code, OPENS + timedelta(minutes=i)) for i, code in enumerate(codes, start=1)]
    return replay(takes, course)


def reasons(outcomes) -> list[str | None]:
    return [o.reason for o in outcomes]


def test_worked_example_of_the_seed():
    # RULES.md §1.2: Q♥ Q♦ Q♣ 10♠ A♣, discard 10♠ A♣ (round 2), take K♦ 5♣,
    # discard K♦ 5♣ (round 3), take joker and A♠, a third discard is refused,
    # the save gives Q♥ Q♦ Q♣ A♠ Joker.
    state, outcomes = run(
        "CPQH", "CPQD", "CPQC", "CPTS", "CPAC",
        "DTS", "DAC",
        "CPKD", "CP5C",
        "DKD", "D5C",
        "CPJK1", "CPAS",
        "DQH",
        "SAVE1",
    )  # fmt: skip
    assert reasons(outcomes) == [None] * 13 + ["no_discards_left", None]
    assert [o.round for o in outcomes[:5]] == [1] * 5
    assert [o.round for o in outcomes[5:10]] == [2, 2, 2, 2, 3]
    assert outcomes[13].round == 3
    assert state.hand == ()
    assert state.deal == 2 and state.round == 1
    (combination,) = state.combinations
    assert combination.id == 15
    assert set(combination.cards) == {"QH", "QD", "QC", "AS", "JK1"}
    assert combination.deal == 1
    assert len(state.taken) == 9


def test_sixth_card_is_hand_full_and_counts_when_taken_again_later():
    # I-1: the 6th card take does not count and does not consume the CP.
    state, outcomes = run("CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "CP7S", "D2S", "CP7S")
    assert [o.outcome for o in outcomes] == ["counted"] * 5 + ["rejected", "counted", "counted"]
    assert outcomes[5].reason == "hand_full"
    assert outcomes[5].card == "7S"
    assert state.hand == ("3S", "4S", "5S", "6S", "7S")
    assert state.round == 2


def test_duplicate_of_a_card_in_hand_discarded_or_saved():
    state, outcomes = run(
        "CP2S", "CP2S",  # in hand
        "CP3S", "CP4S", "CP5S", "CP6S", "D6S", "CP6S",  # discarded
        "CP7S", "SAVE1", "CP2S",  # saved
    )  # fmt: skip
    assert reasons(outcomes) == [
        None, "duplicate", None, None, None, None, None, "duplicate", None, None, "duplicate",
    ]  # fmt: skip
    assert state.hand == ()


def test_discard_only_at_a_decision_point():
    # I-2: the hand must hold 5 when the discard step begins.
    _, outcomes = run("CP2S", "CP3S", "D2S")
    assert reasons(outcomes) == [None, None, "hand_not_full"]


def test_several_discards_before_the_next_card_take_are_one_step():
    state, outcomes = run("CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "D2S", "D3S", "D4S")
    assert reasons(outcomes) == [None] * 8
    assert state.round == 2 and state.discard_steps == 1
    assert state.hand == ("5S", "6S")
    # After the next card take the step is over: with 4 cards the hand is not full.
    _, outcomes = run("CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "D2S", "D3S", "CP7S", "D4S")
    assert outcomes[-1].reason == "hand_not_full"


def test_discard_step_continues_across_rejected_takes():
    # A rejected take has no effect, so it does not end the discard step.
    _, outcomes = run("CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "D2S", "CP3S", "BOGUS", "D3S")
    assert reasons(outcomes) == [None] * 6 + ["duplicate", "unknown_code", None]


def test_card_not_in_hand():
    _, outcomes = run("CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "DAH", "D2S", "D2S")
    # AH never taken; 2S discarded, then its code again.
    assert reasons(outcomes) == [None] * 5 + ["card_not_in_hand", None, "card_not_in_hand"]


def test_no_discards_left_in_round_three():
    _, outcomes = run(
        "CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "D2S",
        "CP7S", "D3S",
        "CP8S", "D4S",
    )  # fmt: skip
    assert reasons(outcomes)[-1] == "no_discards_left"
    assert outcomes[-1].round == 3


def test_save_rules():
    state, outcomes = run(
        "SAVE1",  # empty hand
        "CP2S", "CP3S", "CP4S", "CP5S", "CP6S",
        "SAVE1",  # the code stayed unused, now it saves
        "CP7S", "CP8S", "CP9S", "CPTS", "CPJS",
        "SAVE1",  # used
        "SAVE2",
        "SOMEONEELSESAVE",
    )  # fmt: skip
    assert reasons(outcomes) == (
        ["hand_not_full"] + [None] * 6 + [None] * 5 + ["code_already_used", None, "unknown_code"]
    )
    assert [c.id for c in state.combinations] == [7, 14]
    assert state.deal == 3
    assert state.used_save_codes == ("SAVE1", "SAVE2")
    assert outcomes[6].deal == 1 and outcomes[7].deal == 2


def test_outside_course_hours_is_checked_first():
    takes = [
        TakeIn(1, "CP2S", OPENS - timedelta(seconds=1)),
        TakeIn(2, "CP3S", OPENS),
        TakeIn(3, "CP4S", CLOSES),
        TakeIn(4, "nothing", CLOSES + timedelta(hours=1)),
    ]
    state, outcomes = replay(takes, COURSE)
    assert reasons(outcomes) == ["outside_course_hours", None, "outside_course_hours"] * 1 + [
        "outside_course_hours"
    ]
    assert [o.kind for o in outcomes] == ["card", "card", "card", "unknown"]
    assert state.hand == ("3S",)


def test_classification_normalises_codes():
    _, outcomes = run("cp-2s", " Cp 3S ", "https://rogaine.example/t/cp4s", "d-2s")
    assert [o.kind for o in outcomes] == ["card", "card", "card", "discard"]
    assert reasons(outcomes) == [None, None, None, "hand_not_full"]


def test_field_time_order_then_receipt_order():
    # I-4: the take with the earlier field time is applied first whatever its id.
    t = OPENS + timedelta(hours=1)
    takes = [
        TakeIn(2, "CP3S", t),
        TakeIn(1, "CP2S", t + timedelta(seconds=1)),
        TakeIn(3, "CP4S", t),
    ]
    state, outcomes = replay(takes, COURSE)
    assert [o.take_id for o in outcomes] == [2, 3, 1]
    assert state.hand == ("3S", "4S", "2S")


def test_state_round_trips_through_json_and_incremental_equals_replay():
    codes = ["CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "D2S", "CP7S", "SAVE1", "CP8S"]
    full, _ = run(*codes)
    state = PlayState()
    for i, code in enumerate(codes, start=1):
        stored = json.loads(json.dumps(state.to_json()))
        state, _ = apply_take(
            PlayState.from_json(stored), TakeIn(i, code, OPENS + timedelta(minutes=i)), COURSE
        )
    assert state == full
    assert PlayState.from_json(json.loads(json.dumps(full.to_json()))) == full


def test_reasons_list_matches_api():
    assert set(rules.REASONS) == {
        "outside_course_hours", "hand_full", "duplicate", "hand_not_full",
        "no_discards_left", "card_not_in_hand", "code_already_used", "unknown_code",
    }  # fmt: skip


@pytest.mark.parametrize("discarded", [1, 5])
def test_discard_one_to_five(discarded):
    cards = ["2S", "3S", "4S", "5S", "6S"]
    state, outcomes = run(*[f"CP{c}" for c in cards], *[f"D{c}" for c in cards[:discarded]])
    assert reasons(outcomes) == [None] * (5 + discarded)
    assert len(state.hand) == 5 - discarded


def test_a_rejected_save_does_not_end_the_discard_step():
    # Hand of 5, discard 2♠ (step 1, round 2), a save is refused (4 cards), then the
    # discard of 3♠ belongs to the same step: still round 2, one step used.
    state, outcomes = run("CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "D2S", "SAVE1", "D3S")
    assert reasons(outcomes)[-2:] == ["hand_not_full", None]
    assert (state.round, state.discard_steps) == (2, 1)
    assert state.used_save_codes == ()


def test_a_save_ends_the_deal_and_resets_the_discard_steps():
    # Two discard steps in deal 1, save; in deal 2 a full hand may discard again.
    _, outcomes = run(
        "CP2S", "CP3S", "CP4S", "CP5S", "CP6S", "D2S", "CP7S", "D3S", "CP8S", "SAVE1",
        "CP9S", "CPTS", "CPJS", "CPQS", "CPKS", "D9S",
    )  # fmt: skip
    assert reasons(outcomes) == [None] * 16
    assert (outcomes[-1].deal, outcomes[-1].round) == (2, 2)
