"""Dates and times on the pages: `babel.dates.format_datetime` in the event's zone.

The patterns are CLDR date patterns (not C format codes); they are numeric, so a page reads the
same in every language, and the page language is passed on for Babel's locale data. An
`<input type="datetime-local">` value is the machine form `INPUT_*` (no zone, event time).
The API's and the domains' messages keep `app.events.service.zoned_time`.
"""

from __future__ import annotations

from datetime import datetime

from babel.dates import format_datetime

from app.events.models import Event
from app.events.service import event_zone

DATETIME = "yyyy-MM-dd HH:mm"  # the course window on the organiser's pages
DAY_TIME = "dd.MM HH:mm"  # a take's time and the course window on the phone
DAY_TIME_SECONDS = "dd.MM HH:mm:ss"  # a take's time in the organiser's tables
TIME_SECONDS = "HH:mm:ss"  # "now" in a message
HOURS_MINUTES = "HH:mm"  # the hall screen's chart
INPUT_MINUTES = "yyyy-MM-dd'T'HH:mm"  # <input type="datetime-local">
INPUT_SECONDS = "yyyy-MM-dd'T'HH:mm:ss"  # <input type="datetime-local" step="1">


def event_time(
    event: Event, moment: datetime | None, pattern: str = DATETIME, lang: str = "ru"
) -> str:
    """`moment` (an aware UTC datetime; a naive one is taken as UTC) in the event's zone
    (`event_zone`: UTC when its name is unknown), formatted by the CLDR `pattern` in the
    locale `lang`; "" when `moment` is None. The one date formatter of the pages."""
    if moment is None:
        return ""
    return format_datetime(moment, pattern, tzinfo=event_zone(event), locale=lang)
