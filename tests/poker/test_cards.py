"""Cards: canonical codes, every notation of API.md "Cards", display forms, errors."""

from __future__ import annotations

import pytest

from app.poker.cards import DECK, CardError, display, is_joker, parse_card, parse_hand


def test_deck_has_54_distinct_canonical_codes():
    assert len(DECK) == 54
    assert len(set(DECK)) == 54
    assert DECK[-2:] == ("JK1", "JK2")
    assert {c for c in DECK if not is_joker(c)} == {r + s for r in "23456789TJQKA" for s in "SHDC"}


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # ASCII, any case, 10 or T
        ("QH", "QH"),
        ("qh", "QH"),
        ("TS", "TS"),
        ("ts", "TS"),
        ("10S", "TS"),
        ("10s", "TS"),
        ("2C", "2C"),
        ("aD", "AD"),
        (" jh ", "JH"),
        # Unicode suits
        ("Q♥", "QH"),
        ("10♠", "TS"),
        ("A♦", "AD"),
        ("7♣", "7C"),
        ("q♥", "QH"),
        ("K♡", "KH"),
        ("9♤", "9S"),
        ("3♢", "3D"),
        ("4♧", "4C"),
        ("Q♥\ufe0f", "QH"),  # emoji variation selector
        # Russian rank letters (Т = туз = ace, К, Д = дама, В = валет), either case
        ("Т♥", "AH"),
        ("т♠", "AS"),
        ("ТS", "AS"),
        ("К♦", "KD"),
        ("кc", "KC"),
        ("Д♣", "QC"),
        ("дH", "QH"),
        ("В♠", "JS"),
        ("вd", "JD"),
        # Unicode playing-card characters
        ("🂡", "AS"),
        ("🂮", "KS"),
        ("🂭", "QS"),
        ("🂫", "JS"),
        ("🂪", "TS"),
        ("🂢", "2S"),
        ("🂱", "AH"),
        ("🂽", "QH"),
        ("🃁", "AD"),
        ("🃊", "TD"),
        ("🃑", "AC"),
        ("🃞", "KC"),
        # jokers
        ("JK1", "JK1"),
        ("jk2", "JK2"),
        ("JK", "JK1"),
        ("joker", "JK1"),
        ("JOKER", "JK1"),
        ("Дж", "JK1"),
        ("ДЖ", "JK1"),
        ("дж", "JK1"),
        ("🃏", "JK1"),
        ("🃟", "JK1"),
    ],
)
def test_parse_card_every_notation(text, code):
    assert parse_card(text) == code


def test_cyrillic_te_is_ace_and_latin_t_is_ten():
    assert parse_card("\u0422S") == "AS"  # Cyrillic capital TE
    assert parse_card("TS") == "TS"  # Latin T


def test_cyrillic_look_alike_suit_letters():
    # A Russian keyboard layout types Cyrillic С (U+0421) and Н (U+041D) for C and H.
    assert parse_card("К\u0421") == "KC"
    assert parse_card("д\u043d") == "QH"  # lowercase дама + lowercase en
    assert parse_card("10\u0421") == "TC"


@pytest.mark.parametrize("knight", ["🂬", "🂼", "🃌", "🃜"])
def test_knights_are_rejected(knight):
    with pytest.raises(CardError) as info:
        parse_card(knight)
    assert info.value.code == "invalid_card"
    assert knight in info.value.detail


@pytest.mark.parametrize(
    "text", ["", "1H", "11H", "ZH", "QX", "Q", "H", "QHH", "JK3", "1♠", "🂠", "Ж♥", "10", 12]
)
def test_invalid_cards_are_named(text):
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert info.value.code == "invalid_card"
    assert info.value.status == 422
    assert repr(text) in info.value.detail


def test_parse_hand_canonicalises_in_order():
    assert parse_hand(["Q♥", "10♠", "🂡", "дc", "2d"]) == ["QH", "TS", "AS", "QC", "2D"]


def test_two_generic_jokers_are_the_two_jokers():
    assert parse_hand(["JOKER", "Дж", "AS"]) == ["JK1", "JK2", "AS"]
    assert parse_hand(["🃏", "🃟"]) == ["JK1", "JK2"]


def test_generic_joker_takes_the_joker_not_named():
    assert parse_hand(["JK1", "JOKER"]) == ["JK1", "JK2"]
    assert parse_hand(["JOKER", "JK1"]) == ["JK2", "JK1"]


@pytest.mark.parametrize(
    ("texts", "bad"),
    [
        (["QH", "Q♥"], "Q♥"),
        (["TS", "10S"], "10S"),
        (["AS", "🂡"], "🂡"),
        (["AH", "ТH"], "ТH"),
        (["JK1", "jk1"], "jk1"),
        (["JK", "JK", "JK"], "JK"),
        (["JK1", "JK2", "Дж"], "Дж"),
    ],
)
def test_duplicate_cards_are_named(texts, bad):
    with pytest.raises(CardError) as info:
        parse_hand(texts)
    assert info.value.code == "duplicate_card"
    assert info.value.status == 422
    assert repr(bad) in info.value.detail


def test_parse_hand_reports_the_invalid_token():
    with pytest.raises(CardError) as info:
        parse_hand(["QH", "XX", "AS"])
    assert info.value.code == "invalid_card"
    assert "'XX'" in info.value.detail


def test_parse_hand_refuses_a_bare_string():
    with pytest.raises(CardError):
        parse_hand("QHASKD")


@pytest.mark.parametrize(
    ("code", "shown"),
    [("QH", "Q♥"), ("TS", "10♠"), ("2C", "2♣"), ("AD", "A♦"), ("JK1", "Joker"), ("JK2", "Joker")],
)
def test_display(code, shown):
    assert display(code) == shown


def test_display_round_trips_through_parse():
    for code in DECK[:52]:
        assert parse_card(display(code)) == code


def test_display_refuses_non_canonical():
    with pytest.raises(CardError):
        display("10H")
