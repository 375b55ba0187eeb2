"""Liar's Poker 2.0 hold'em (RULES.md §2): scoring and scripted hands.

Every expected value below is worked out by hand from RULES.md; the comments show
the working. Serials without zeros have no zero-jokers, so their value is simply
the digit at the declared position.
"""

from __future__ import annotations

import pytest

from app.games.base import IllegalAction, InvalidOptions
from app.games.liars_holdem import (
    LiarsHoldem,
    base_number,
    best_hand,
    check_serial,
    compute_pots,
    reachable,
    strength_of,
)

GAME = LiarsHoldem()


# -- base number and the zero shift (RULES.md §2.2, I-12) ------------------------


def test_base_number_is_the_digit_at_the_position() -> None:
    assert base_number("1234567", 1) == 1
    assert base_number("1234567", 3) == 3
    assert base_number("1234567", 7) == 7


def test_zero_at_the_position_shifts_right() -> None:
    # Position 3 of 1204567 is 0 → the first non-zero to its right is 4 (position 4).
    assert base_number("1204567", 3) == 4
    # Position 2 of 1000009 is 0 → 0, 0, 0, 0 then 9 at position 7.
    assert base_number("1000009", 2) == 9


def test_zero_shift_wraps_to_position_one() -> None:
    # Position 5 of 1234000: positions 5, 6, 7 are 0 → continue at position 1 → 1.
    assert base_number("1234000", 5) == 1
    # Position 7 of 0000050: 0 at 7, then positions 1..5 are 0, position 6 is 5.
    assert base_number("0000050", 7) == 5


def test_seven_zeros_is_not_a_banknote() -> None:
    with pytest.raises(ValueError):
        check_serial("0000000")
    with pytest.raises(ValueError):
        check_serial("123456")  # six digits
    with pytest.raises(ValueError):
        check_serial("12345a7")


# -- zero-jokers and the ring --------------------------------------------------


def test_zero_jokers_and_the_ring() -> None:
    # 9012345 at position 1: base 9, one zero → 8, 9 (natural) or 9+1 = 1 on the ring.
    assert reachable("9012345", 1) == {8: False, 9: True, 1: False}
    # 1023456 at position 1: base 1, one zero → 1−1 = 9, 1 (natural) or 2.
    assert reachable("1023456", 1) == {9: False, 1: True, 2: False}
    # Two zeros: 5 ± 2 → 3..7.
    assert set(reachable("5001234", 1)) == {3, 4, 5, 6, 7}
    # The position's own zero counts as a joker too: 1204567 at 3 → base 4, one zero.
    assert set(reachable("1204567", 3)) == {3, 4, 5}


def test_ring_shift_makes_sets_across_nine_and_one() -> None:
    # Bases 9, 9 and 1 with a zero on the 1-banknote: 1−1 = 9 → set of 9s (modified).
    hand = best_hand(["9111111", "9222222", "1034567"], 1)
    assert hand.category == "set" and hand.values == [9, 9, 9]
    assert hand.natural is False


def test_straights_do_not_wrap() -> None:
    # 8-9-1 is not a straight: high card 9, 8, 1.
    assert strength_of([8, 9, 1], True) == [0, 9, 8, 1, 1]
    hand = best_hand(["8111111", "9222222", "1333333"], 1)
    assert hand.category == "high_card" and hand.values == [9, 8, 1]


# -- categories, ordering and kickers (RULES.md §2.3) -----------------------------


def test_every_category() -> None:
    assert best_hand(["9123456", "5123456", "2123456"], 1).category == "high_card"
    assert best_hand(["7123456", "7234561", "3456712"], 1).category == "pair"
    assert best_hand(["4123456", "5234561", "6345612"], 1).category == "straight"
    assert best_hand(["2123456", "2234561", "2345612"], 1).category == "set"


def test_category_order() -> None:
    lowest_set = strength_of([1, 1, 1], True)
    top_straight = strength_of([7, 8, 9], True)
    lowest_straight = strength_of([1, 2, 3], True)
    top_pair = strength_of([9, 9, 8], True)
    lowest_pair = strength_of([1, 1, 2], True)
    top_high = strength_of([9, 8, 6], True)
    assert lowest_set > top_straight > lowest_straight > top_pair > lowest_pair > top_high
    assert strength_of([9, 9, 9], True) > lowest_set  # sets 1-1-1 .. 9-9-9


def test_kickers_and_high_cards() -> None:
    # Pairs: the pair first, then the kicker: 7,7,5 > 7,7,2 and 8,8,1 > 7,7,9.
    assert strength_of([7, 7, 5], True) > strength_of([7, 7, 2], True)
    assert strength_of([8, 8, 1], True) > strength_of([7, 7, 9], True)
    # High card: highest, then next, then last.
    assert strength_of([9, 5, 3], True) > strength_of([9, 5, 2], True)
    assert strength_of([9, 6, 1], True) > strength_of([9, 5, 4], True)
    # Straights by their top; equal hands are equal (split).
    assert strength_of([4, 5, 6], True) > strength_of([3, 4, 5], True)
    assert strength_of([3, 5, 9], True) == strength_of([9, 3, 5], True)


def test_natural_beats_modified_before_kickers() -> None:
    """RULES.md I-13: natural 7,7,2 beats modified 7,7,5."""
    natural = best_hand(["7111111", "7222222", "2333333"], 1)
    assert (natural.category, natural.values, natural.natural) == ("pair", [7, 7, 2], True)
    # 8022222 has base 8 and one zero: 8−1 = 7 pairs the 7; 5 is the kicker. The natural
    # reading (8, 7, 5) is only high card, so the best is the modified pair 7,7,5.
    modified = best_hand(["7111111", "8022222", "5333333"], 1)
    assert (modified.category, modified.values, modified.natural) == ("pair", [7, 7, 5], False)
    assert natural.strength > modified.strength
    # The natural rule does not beat a better category or better defining numbers.
    assert strength_of([8, 8, 2], False) > strength_of([7, 7, 9], True)
    assert strength_of([2, 2, 2], False) > strength_of([7, 8, 9], True)


def test_a_natural_kicker_is_kept_when_shifting_would_spend_a_joker() -> None:
    # 7,7 + a kicker with base 4 and a zero: natural 7,7,4 beats modified 7,7,5.
    hand = best_hand(["7111111", "7222222", "4033333"], 1)
    assert (hand.values, hand.natural, hand.strength) == ([7, 7, 4], True, [1, 7, 1, 4])


# -- best 3 of 5 -----------------------------------------------------------------


def test_board_only_hand() -> None:
    # Own banknotes 1 and 2, board 9, 9, 9: the board alone is a set of 9s.
    hand = best_hand(["1234567", "2345678", "9111111", "9222222", "9333333"], 1)
    assert hand.category == "set" and hand.values == [9, 9, 9]
    assert sorted(hand.serials) == ["9111111", "9222222", "9333333"]


def test_best_three_of_five_with_own_banknotes() -> None:
    # Own 5, 5 and board 5, 1, 2: set of 5s beats the board's straight? No straight on
    # the board (5, 1, 2); best is set 5-5-5 using both own banknotes.
    hand = best_hand(["5111111", "5222222", "5333333", "1444444", "2666666"], 1)
    assert hand.values == [5, 5, 5]
    assert sorted(hand.serials) == ["5111111", "5222222", "5333333"]
    # Own 3, 4 with board 5, 9, 9: straight 3-4-5 beats the pair of 9s.
    hand = best_hand(["3111111", "4111111", "5111111", "9111111", "9222222"], 1)
    assert (hand.category, hand.values) == ("straight", [5, 4, 3])


def test_zero_jokers_shift_only_their_own_banknote() -> None:
    # 9001111: base 9, two zeros → 7, 8, 9, 1, 2. 5111111 and 7111111 have no zeros.
    # Best: 9 − 2 = 7 pairs the 7, kicker 5 (modified). If the zeros could shift the 5
    # to 6, 5-6-7 would be a straight; they cannot.
    hand = best_hand(["9001111", "5111111", "7111111"], 1)
    assert (hand.category, hand.values, hand.natural) == ("pair", [7, 7, 5], False)
    assert hand.serials == ["9001111", "7111111", "5111111"]  # in the order of `values`


def test_pots_from_contributions() -> None:
    # Contributions 10 (folded), 38, 40, 40: main 10+38+38+38 = 124 for seats 1-3,
    # side 2+2 = 4 for seats 2 and 3.
    pots = compute_pots([10, 38, 40, 40], [False, True, True, True])
    assert pots == [{"amount": 124, "eligible": [1, 2, 3]}, {"amount": 4, "eligible": [2, 3]}]


# -- options ---------------------------------------------------------------------


def test_options_are_checked() -> None:
    names = ["A", "B", "C"]
    for bad in (
        {"buy_in": 12, "rake": 12},  # ante = 12 − 12 = 0
        {"buy_in": 12, "rake": 2, "ante": 5},  # 5 + 2 ≠ 12
        {"first_button": 3},
        {"deck": ["1234567", "1234567"]},
        {"deck": ["0000000"]},
        {"stacks": [10, 10]},
        {"blinds": 5},
    ):
        with pytest.raises(InvalidOptions):
            GAME.new_initial_state(names, bad, 1)
    with pytest.raises(InvalidOptions):
        GAME.new_initial_state(["A", "B"], {}, 1)
    state = GAME.new_initial_state(names, {"ante": 5, "rake": 1}, 1)
    assert (state.settings.buy_in, state.settings.ante) == (6, 5)


# -- scripted hands --------------------------------------------------------------


def play(state, *steps) -> None:
    """Apply (seat, action) steps, checking each seat is the one to act."""
    for seat, action in steps:
        assert state.current_players() == [seat], (seat, action, state.current_players())
        state.apply_action(seat, action)


def stacks(state) -> list[int]:
    return [p["stack"] for p in state.view(None)["players"]]


def test_four_player_hand_with_all_in_and_side_pot() -> None:
    # Seats A0 B1 C2 D3, A deals. Stacks 100, 40, 100, 100; buy-in 12 = rake 2 + ante 10.
    # Dealing order from the dealer's left: B, C, D, A, then B, C, D, A, flop, turn, river.
    deck = [
        "9111111", "2111111", "7111111", "4111111",  # first banknotes of B C D A
        "9222222", "3222222", "8222222", "4222222",  # second banknotes
        "9333333", "1444444", "5555555",  # flop, turn, river
    ]  # fmt: skip
    options = {"stacks": [100, 40, 100, 100], "buy_in": 12, "rake": 2, "deck": deck}
    state = GAME.new_initial_state(["A", "B", "C", "D"], options, 0)
    # Buy-ins: 88, 28, 88, 88 left; 4 antes of 10 in the pot; the rake is 4 × 2 = 8.
    assert stacks(state) == [88, 28, 88, 88]
    assert state.view(None)["pots"] == [{"amount": 40, "eligible": [0, 1, 2, 3]}]
    assert state.view(None)["rake_total"] == 8
    play(state, (0, {"type": "declare", "position": 1}))
    # B (left of the dealer) made the forced bet of one ante: 28 − 10 = 18.
    assert stacks(state) == [88, 18, 88, 88]
    assert state.legal_actions(2)[2] == {"type": "raise", "min": 20, "max": 88}
    play(
        state,
        (2, {"type": "raise", "amount": 30}),
        (3, {"type": "call"}),
        (0, {"type": "fold"}),
        (1, {"type": "all_in"}),  # 10 + 18 = 28 < 30: all-in for less
    )
    # In the pot: A 10, B 10 + 28 = 38, C 40, D 40. Main pot 10 + 38 × 3 = 124 for B, C, D;
    # side pot 2 + 2 = 4 for C and D.
    view = state.view(None)
    assert view["street"] == "flop" and [b["serial"] for b in view["board"]] == ["9333333"]
    assert view["pots"] == [
        {"amount": 124, "eligible": [1, 2, 3]},
        {"amount": 4, "eligible": [2, 3]},
    ]
    play(
        state,
        (2, {"type": "bet", "amount": 20}),  # C 58 → 38
        (3, {"type": "call"}),  # D 58 → 38
        (2, {"type": "check"}),  # turn
        (3, {"type": "check"}),
        (2, {"type": "check"}),  # river
        (3, {"type": "bet", "amount": 38}),  # D all-in
        (2, {"type": "fold"}),
    )
    # D's 38 was not called: it goes back. Left: B 38 and D 60 in, C 60 folded, A 10.
    # Main pot 10 + 38 × 3 = 124 (B, D); side pot 22 + 22 = 44 (D alone).
    assert state.view(None)["pots"] == [
        {"amount": 124, "eligible": [1, 3]},
        {"amount": 44, "eligible": [3]},
    ]
    assert state.view(None)["phase"] == "showdown"
    play(state, (1, {"type": "reveal"}), (3, {"type": "reveal"}))
    last = state.view(None)["last_hand"]
    # B: 9, 9 + board 9 → set of 9s. D: 7, 8 + board 9 → straight 7-8-9. B takes the main
    # pot; D the side pot.
    assert last["returned"] == [{"seat": 3, "amount": 38}]
    assert [(p["amount"], p["winners"]) for p in last["pots"]] == [(124, [1]), (44, [3])]
    best = {r["seat"]: r["best"] for r in last["revealed"]}
    assert best[1]["category"] == "set" and best[3]["category"] == "straight"
    # Stacks after the hand: A 88, B 124, C 38, D 38 + 44 = 82 (332 + rake 8 = 340 ✓);
    # the next hand has started: button to B, buy-ins of 12 paid.
    view = state.view(None)
    assert (view["hand"], view["button"], view["phase"]) == (2, 1, "declare")
    assert stacks(state) == [76, 112, 26, 70]
    assert state.current_players() == [1]


def three_player_game(holes_and_board: list[str], **options):
    """Seats 0, 1, 2 with seat 1 dealing; buy-in 12 = rake 1 + ante 11; stacks 100."""
    opts = {"starting_stack": 100, "buy_in": 12, "rake": 1, "first_button": 1}
    opts["deck"] = holes_and_board
    opts.update(options)
    state = GAME.new_initial_state(["A", "B", "C"], opts, 0)
    # Deal from the dealer's left: seats 2, 0, 1, twice; then flop, turn, river.
    play(state, (1, {"type": "declare", "position": 1}))
    # Forced bet by seat 2 (11); seat 0 calls, seat 1 (dealer) folds, seat 2 checks;
    # then three streets of checks, seat 2 first. Pot: antes 33 + 11 + 11 = 55.
    play(state, (0, {"type": "call"}), (1, {"type": "fold"}), (2, {"type": "check"}))
    for _ in range(3):
        play(state, (2, {"type": "check"}), (0, {"type": "check"}))
    assert state.view(None)["pots"] == [{"amount": 55, "eligible": [0, 2]}]
    return state


def test_split_pot_gives_the_odd_chip_clockwise_from_the_dealer() -> None:
    """RULES.md I-14: both play the board's set of 9s; 55 = 27 + 27 + 1 odd chip.

    The dealer is seat 1, so the first winner clockwise is seat 2 (not seat 0)."""
    deck = [
        "1111111", "3333333", "5555555",  # seats 2, 0, 1
        "2222222", "4444444", "6666666",
        "9111111", "9222222", "9333333",  # the board: set of 9s for everyone
    ]  # fmt: skip
    state = three_player_game(deck)
    play(state, (2, {"type": "reveal"}), (0, {"type": "reveal"}))
    last = state.view(None)["last_hand"]
    assert last["pots"][0]["winners"] == [2, 0]
    shares = {s["seat"]: s["amount"] for s in last["pots"][0]["shares"]}
    assert shares == {2: 28, 0: 27}
    # Before the next buy-ins: seat 0 77 + 27 = 104, seat 1 88, seat 2 77 + 28 = 105;
    # after them (12 each): 92, 76, 93.
    assert stacks(state) == [92, 76, 93]


def test_a_refusing_player_gets_nothing() -> None:
    # Seat 2 holds 9, 9 (set with the board's 9), seat 0 only 3, 4 → straight 3-4-5.
    deck = [
        "9111111", "3333333", "6666666",  # seats 2, 0, 1
        "9222222", "4444444", "7777777",
        "9333333", "5111111", "1222222",
    ]  # fmt: skip
    state = three_player_game(deck)
    play(state, (2, {"type": "refuse"}), (0, {"type": "reveal"}))
    last = state.view(None)["last_hand"]
    assert last["refused"] == [2]
    assert last["pots"][0]["winners"] == [0]
    assert [r["seat"] for r in last["revealed"]] == [0]
    # Seat 0: 77 + 55 = 132, then the next buy-in 12 → 120. Seat 2: 77 − 12 = 65.
    assert stacks(state) == [120, 76, 65]
    # Seat 2's refused banknotes are never shown.
    assert "9111111" not in str(state.view(None)) and "9111111" not in str(state.view(0))


def test_a_pot_nobody_reveals_for_is_forfeited() -> None:
    deck = [
        "9111111", "3333333", "6666666",
        "9222222", "4444444", "7777777",
        "9333333", "5111111", "1222222",
    ]  # fmt: skip
    state = three_player_game(deck)
    play(state, (2, {"type": "refuse"}), (0, {"type": "refuse"}))
    view = state.view(None)
    assert view["last_hand"]["forfeited"] == 55 and view["forfeited_total"] == 55


def test_busted_players_leave_and_the_game_ends() -> None:
    # Stacks 12, 12, 100: seats 0 and 1 are all-in with their buy-in (ante 10 each).
    # Seat 1 (left of the dealer) cannot make the forced bet; seat 2 faces no bet that
    # anyone could call, so the board is dealt out and the hand goes to the showdown.
    deck = [
        "1111111", "9111111", "2111111",  # seats 1, 2, 0
        "1222222", "9222222", "2222222",
        "9333333", "5111111", "6222222",
    ]  # fmt: skip
    options = {"stacks": [12, 12, 100], "deck": deck}
    state = GAME.new_initial_state(["A", "B", "C"], options, 0)
    play(state, (0, {"type": "declare", "position": 1}))
    assert state.view(None)["phase"] == "showdown"
    play(state, (1, {"type": "reveal"}), (2, {"type": "reveal"}), (0, {"type": "reveal"}))
    # Seat 2's set of 9s takes the 30 of antes: 88 + 30 = 118; seats 0 and 1 are out.
    assert state.is_over()
    result = state.result()
    assert result["winner"] == 2
    assert [(s["seat"], s["stack"], s["place"]) for s in result["standings"]] == [
        (2, 118, 1),
        (0, 0, 2),
        (1, 0, 2),
    ]
    assert result["rake_total"] == 6
    assert [p["status"] for p in state.view(None)["players"]] == ["out", "out", "finished"]


def test_minimum_bets_and_raises() -> None:
    """RULES.md I-15: bets and raises at least one ante; a raise at least the last one."""
    state = GAME.new_initial_state(["A", "B", "C", "D"], {}, 5)  # ante 10, stacks 988
    play(state, (0, {"type": "declare", "position": 4}))
    with pytest.raises(IllegalAction) as caught:
        state.apply_action(2, {"type": "raise", "amount": 19})
    assert {"type": "raise", "min": 20, "max": 988} in caught.value.legal_actions
    play(state, (2, {"type": "raise", "amount": 35}))  # a raise of 25
    # The next raise must be by at least 25 more: to 60.
    assert {"type": "raise", "min": 60, "max": 988} in state.legal_actions(3)
    play(state, (3, {"type": "call"}), (0, {"type": "fold"}), (1, {"type": "call"}))
    # Flop: nobody has bet; a bet is at least one ante.
    assert {"type": "bet", "min": 10, "max": 953} in state.legal_actions(1)
    with pytest.raises(IllegalAction):
        state.apply_action(1, {"type": "bet", "amount": 9})


def test_a_short_all_in_does_not_reopen_the_raising() -> None:
    # Seat 3 has 40 (28 after the buy-in). Seat 2 raises to 20, seat 3 all-in to 28
    # (an 8 raise, less than the 10 minimum), seat 0 and seat 1 call, seat 2 may call
    # but not raise again.
    options = {"stacks": [100, 100, 100, 40]}
    state = GAME.new_initial_state(["A", "B", "C", "D"], options, 3)
    play(
        state,
        (0, {"type": "declare", "position": 2}),
        (2, {"type": "raise", "amount": 20}),
        (3, {"type": "all_in"}),
        (0, {"type": "call"}),
        (1, {"type": "call"}),
    )
    assert state.legal_actions(2) == [
        {"type": "fold"},
        {"type": "call", "amount": 8},
    ]


def test_hidden_banknotes_stay_hidden_and_deck_option_is_not_public() -> None:
    deck = [f"{i}{i}{i}{i}{i}{i}{i}" for i in range(1, 10)] + ["1234567", "7654321"]
    state = GAME.new_initial_state(["A", "B", "C", "D"], {"deck": deck}, 0)
    play(state, (0, {"type": "declare", "position": 1}))
    # Dealt to seat 1 first: 1111111 and 5555555.
    assert [b["serial"] for b in state.view(1)["players"][1]["banknotes"]] == [
        "1111111",
        "5555555",
    ]
    assert state.view(2)["players"][1]["banknotes"] is None
    assert "1111111" not in str(state.view(None))
    assert GAME.public_options({"deck": deck, "rake": 1}) == {"rake": 1, "deck_size": 11}


def test_physical_deck_runs_out_and_the_dealer_supplies_the_hand() -> None:
    deck = [f"{i}{i}{i}{i}{i}{i}{i}" for i in range(1, 10)]  # one hand: 2 × 3 + 3 = 9
    state = GAME.new_initial_state(["A", "B", "C"], {"deck": deck}, 0)
    assert state.legal_actions(0) == [{"type": "declare", "min": 1, "max": 7}]
    play(state, (0, {"type": "declare", "position": 1}))
    play(state, (2, {"type": "fold"}), (0, {"type": "fold"}))
    # Seat 1 (the forced bet) won by folds; hand 2: the nine banknotes are used, seat 1 deals.
    assert state.legal_actions(1) == [{"type": "declare", "min": 1, "max": 7, "deck_needed": 9}]
    with pytest.raises(IllegalAction):
        state.apply_action(1, {"type": "declare", "position": 1})
    hand = [f"{i}{i}{i}{i}{i}{i}1" for i in range(1, 10)]
    state.apply_action(1, {"type": "declare", "position": 1, "deck": hand})
    assert state.view(None)["phase"] == "betting"
