"""The seed course: deck, codes, hints and walking times."""

import random
from datetime import timedelta

from app.simulation.cards import DECK
from app.simulation.course import (
    CLUES,
    build_course,
    course_window,
    distance_km,
    possible_cards,
    walking_minutes,
)


def test_course_has_the_whole_deck_and_distinct_codes() -> None:
    course = build_course(random.Random(7))
    assert [cp.number for cp in course] == list(range(1, 55))
    assert sorted(cp.card for cp in course) == sorted(DECK)
    codes = [cp.code for cp in course] + [cp.discard_code for cp in course]
    assert len(set(codes)) == 108
    assert all(len(cp.code) == 20 and len(cp.discard_code) == 6 for cp in course)


def test_same_seed_same_course() -> None:
    assert build_course(random.Random(3)) == build_course(random.Random(3))
    assert build_course(random.Random(3)) != build_course(random.Random(4))


def test_every_hint_is_true_of_its_card() -> None:
    for seed in range(5):
        for cp in build_course(random.Random(seed)):
            assert cp.card in possible_cards(cp.hint), (cp.hint, cp.card)


def test_reading_hints() -> None:
    assert possible_cards("Knoll top.") == frozenset(DECK)
    red = possible_cards("Ditch bend. Red suit.")
    assert len(red) == 26 and "QH" in red and "QS" not in red and "JK1" not in red
    pictures = possible_cards("Pit. A picture card.")
    assert len(pictures) == 12
    not_pictures = possible_cards("Pit. Not a picture card.")
    assert len(not_pictures) == 54 - 12  # aces and jokers are not picture cards
    assert possible_cards("Ruin. A joker or an ace.") == {"JK1", "JK2", "AS", "AH", "AD", "AC"}
    assert {text for text, _ in CLUES} >= {"Red suit", "Not a joker"}


def test_course_window_is_twelve_to_six_moscow() -> None:
    opens, closes = course_window("2026-06-13")
    assert opens.isoformat() == "2026-06-13T12:00:00+03:00"
    assert closes - opens == timedelta(hours=18)


def test_distance_and_walking_time() -> None:
    # 0.01 degree of latitude is 1.112 km
    assert abs(distance_km((55.0, 37.0), (55.01, 37.0)) - 1.112) < 0.01
    rng = random.Random(1)
    day = walking_minutes(4.0, 4.0, 15, rng)  # 4 km * 1.3 / 4 km/h = 78 min + 2..12 search
    assert 80 <= day <= 90
    night = walking_minutes(4.0, 4.0, 2, rng)  # at 3 km/h: 104 min + search
    assert 106 <= night <= 116
