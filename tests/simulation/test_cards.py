"""The simulated participants' own hand reading (seed order, RULES.md §1.3)."""

from app.simulation.cards import category, strength


def test_seed_worked_example_is_four_queens() -> None:
    # RULES.md §1.2 worked example: Q♥ Q♦ Q♣ A♠ + joker is four of a kind, queens.
    assert category(["QH", "QD", "QC", "AS", "JK1"]) == "four_of_a_kind"


def test_categories_worked_by_hand() -> None:
    assert category(["AH", "AD", "AC", "AS", "JK2"]) == "five_of_a_kind"
    assert category(["7C", "7H", "7S", "JK1", "JK2"]) == "five_of_a_kind"  # I-6 by count
    assert category(["AH", "KH", "QH", "JH", "TH"]) == "royal_flush"
    assert category(["9S", "8S", "7S", "6S", "5S"]) == "straight_flush"
    assert category(["AS", "2S", "3S", "4S", "JK1"]) == "straight_flush"  # I-6: 5-high
    assert category(["TH", "TD", "TS", "8C", "8H"]) == "full_house"
    assert category(["KS", "JS", "8S", "4S", "3S"]) == "flush"
    assert category(["5D", "4H", "3S", "2D", "AD"]) == "straight"
    assert category(["QC", "KD", "AH", "2S", "3C"]) == "high_card"  # no wrap-around
    assert category(["7C", "7H", "7S", "2D", "9H"]) == "three_of_a_kind"
    assert category(["8C", "8S", "4H", "4C", "2D"]) == "two_pair"
    assert category(["9H", "9S", "2C", "5D", "7H"]) == "one_pair"
    assert category(["2C", "5D", "9H", "JK1", "JK2"]) == "three_of_a_kind"  # two jokers


def test_seed_order_puts_four_of_a_kind_above_straight_flush() -> None:
    quads = strength(["3H", "3D", "3C", "3S", "2H"])
    straight_flush = strength(["9S", "8S", "7S", "6S", "5S"])
    assert quads > straight_flush


def test_ties_inside_a_category() -> None:
    wheel = strength(["5D", "4H", "3S", "2D", "AD"])
    six_high = strength(["6D", "5H", "4S", "3D", "2C"])
    assert six_high > wheel  # the wheel's top card is the 5
    assert strength(["8C", "8S", "4H", "4C", "KD"]) > strength(["8D", "8H", "4S", "4D", "QD"])
    joker_flush = strength(["KS", "JS", "8S", "4S", "JK1"])  # joker becomes A♠
    assert joker_flush == strength(["AS", "KS", "JS", "8S", "4S"])
