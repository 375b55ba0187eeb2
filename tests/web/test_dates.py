"""The pages' dates (app/web/dates.py): CLDR patterns through babel.dates in the event's
zone, the same text as before the move from strftime."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

from app.web.dates import (
    DAY_TIME,
    DAY_TIME_SECONDS,
    INPUT_MINUTES,
    INPUT_SECONDS,
    TIME_SECONDS,
    event_time,
)

APP = Path(__file__).resolve().parents[2] / "app"
MOSCOW = SimpleNamespace(timezone="Europe/Moscow")  # UTC+3, no summer time since 2014
WARSAW = SimpleNamespace(timezone="Europe/Warsaw")  # UTC+2 in June (summer time)
NOWHERE = SimpleNamespace(timezone="Mars/Olympus")  # unknown: UTC
MOMENT = datetime(2026, 6, 13, 3, 4, 5, tzinfo=UTC)


def test_a_moment_in_the_event_zone_by_each_pattern():
    assert event_time(MOSCOW, MOMENT) == "2026-06-13 06:04"
    assert event_time(MOSCOW, MOMENT, DAY_TIME) == "13.06 06:04"
    assert event_time(MOSCOW, MOMENT, DAY_TIME_SECONDS) == "13.06 06:04:05"
    assert event_time(MOSCOW, MOMENT, TIME_SECONDS) == "06:04:05"
    assert event_time(MOSCOW, MOMENT, INPUT_MINUTES) == "2026-06-13T06:04"
    assert event_time(MOSCOW, MOMENT, INPUT_SECONDS) == "2026-06-13T06:04:05"


def test_the_zone_the_day_and_the_language():
    assert event_time(WARSAW, MOMENT, DAY_TIME_SECONDS) == "13.06 05:04:05"
    assert event_time(NOWHERE, MOMENT, DAY_TIME_SECONDS) == "13.06 03:04:05"
    late = datetime(2026, 6, 13, 22, 30, tzinfo=UTC)  # the next day in Moscow
    assert event_time(MOSCOW, late, DAY_TIME) == "14.06 01:30"
    assert event_time(MOSCOW, late, DAY_TIME, "en") == event_time(MOSCOW, late, DAY_TIME, "ru")
    assert event_time(MOSCOW, None) == ""


def test_no_page_formats_a_date_by_hand():
    strftime = re.compile(r"strftime|\"%[a-zA-Z][^\"]*%[a-zA-Z]")
    found = [
        str(path.relative_to(APP))
        for path in [*(APP / "web").rglob("*.py"), *(APP / "templates").rglob("*.html")]
        if strftime.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
