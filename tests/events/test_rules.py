"""Pure parts of event setup: code generation, the status order, the deal, file formats."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from typing import get_args

import pytest

from app.events.codes import (
    SHORT_CODE_ALPHABET,
    new_cp_code,
    new_short_code,
    normalize_code,
    unique_short_code,
)
from app.events.formats import parse_checkpoints_csv
from app.events.rules import EventStatus, course_phase, deal, effective_status, is_forward
from app.events.schemas import StatusValue
from tests.factories import DECK


def test_cp_code_has_120_random_bits_and_survives_normalisation() -> None:
    code = new_cp_code()
    assert len(code) == 24
    assert len(base64.b32decode(code)) == 15  # 15 bytes = 120 bits >= 96
    assert normalize_code(code.lower()) == code
    assert normalize_code(f"https://rogaine.example/t/{code.lower()}") == code
    assert new_cp_code() != code


def test_short_codes() -> None:
    code = new_short_code()
    assert len(code) == 6
    assert set(code) <= set(SHORT_CODE_ALPHABET)
    assert normalize_code(code.lower()) == code
    taken = {code}
    fresh = unique_short_code(taken)
    assert fresh != code
    assert taken == {code, fresh}


@pytest.mark.parametrize(
    ("current", "target", "forward"),
    [
        ("draft", "course_open", True),
        ("draft", "finished", True),
        ("course_open", "course_closed", True),
        ("ceremony", "finished", True),
        ("course_open", "draft", False),
        ("finished", "ceremony", False),
        ("ceremony", "ceremony", False),
    ],
)
def test_status_moves_forward_only(current: str, target: str, forward: bool) -> None:
    assert is_forward(current, target) is forward


def test_deal_uses_numbers_in_ascending_order() -> None:
    # CPs 30, 10, 20: the lowest number gets the first card of the shuffled deck.
    full = deal(5, range(1, 55))
    partial = deal(5, [30, 10, 20])
    assert partial == {10: full[1], 20: full[2], 30: full[3]}
    assert sorted(full.values()) == sorted(DECK)


def test_deal_refuses_bad_numbers() -> None:
    with pytest.raises(ValueError):
        deal(1, range(1, 56))
    with pytest.raises(ValueError):
        deal(1, [1, 1])


def test_csv_lat_and_lon_go_together() -> None:
    rows, errors = parse_checkpoints_csv("number,card,lat,lon\n1,AS,55.1,\n")
    assert rows == []
    assert errors == [{"row": 2, "field": "lon", "msg": "lat and lon must be given together"}]


def test_the_status_follows_the_clock_past_the_closing() -> None:
    """A stored `course_open` reads as `course_closed` from `closes_at` on (inclusive);
    no other status moves by the clock (the organiser starts the course and ceremony)."""
    closes = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)  # 06:00 in Moscow
    second = timedelta(seconds=1)
    assert effective_status("course_open", closes, closes - second) == "course_open"
    assert effective_status("course_open", closes, closes) == "course_closed"
    assert effective_status("course_open", closes, closes + timedelta(days=30)) == "course_closed"
    for status in ("draft", "course_closed", "ceremony", "finished"):
        assert effective_status(status, closes, closes + second) == status
        assert effective_status(status, closes, closes - second) == status


def test_course_phase_is_the_half_open_window():
    # RULES.md §1.1: [opens_at, closes_at); one second on either side of each edge
    opens = datetime(2026, 6, 13, 6, 0, tzinfo=UTC)
    closes = datetime(2026, 6, 13, 9, 0, tzinfo=UTC)
    second = timedelta(seconds=1)
    phases = [
        course_phase(opens, closes, now)
        for now in (opens - second, opens, closes - second, closes, closes + second)
    ]
    assert phases == ["before", "open", "open", "closed", "closed"]


def test_the_schemas_status_values_are_the_status_enums_values_in_order() -> None:
    # one name per thing: `EventStatus` (rules) is the status, `StatusValue` its JSON values
    assert get_args(StatusValue) == (
        "draft",
        "course_open",
        "course_closed",
        "ceremony",
        "finished",
    )
    assert tuple(EventStatus) == get_args(StatusValue)
