"""A demo event to try the service: 54 CPs in a forest, the course open now, a few runners.

Loaded by `rogaine-poker serve` (`make run`) when the database has no event, and by
`rogaine-poker demo`. The deal is a random shuffle (its seed recorded as usual); the
CP positions, place descriptions and participants are fixed. Names and hints are
written in Russian (`lang="ru"`, the default, as the pages) or English (`--lang en`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.events import service
from app.events.formats import ParticipantRow
from app.events.models import Event
from app.events.qr import personal_url
from app.events.rules import EventStatus
from app.events.schemas import EventCreate

DEMO_ACTOR = "demo"
DEMO_LANGUAGES = ("ru", "en")
DEMO_NAMES = {"ru": "Демо-рогейн: Лосиный Остров", "en": "Demo rogaine: Losiny Ostrov"}
DEMO_NAME = DEMO_NAMES["en"]
DEMO_TIMEZONE = "Europe/Moscow"
# Losiny Ostrov national park, north-east Moscow: a forest of about 7 × 4 km.
AREA_LAT = (55.845, 55.885)
AREA_LON = (37.730, 37.830)
LAYOUT_SEED = 2026  # positions and place descriptions (public anyway)
# The course opened this long before `now` and stays open 24 hours in all, so the
# simulated history of `make run` (app/simulation/history.py) has hours to play.
OPENED_AGO = timedelta(hours=6)
OPEN_FOR = timedelta(hours=24)

# (Russian, English) descriptions of a CP's place.
PLACES = (
    ("Большая ель", "Big spruce"),
    ("Изгиб ручья", "Stream bend"),
    ("Поляна, северный край", "Clearing, north edge"),
    ("Валун", "Boulder"),
    ("Конец канавы", "Ditch end"),
    ("Вершина холма", "Knoll top"),
    ("Угол забора", "Fence corner"),
    ("Перекрёсток троп", "Path junction"),
    ("Яма", "Pit"),
    ("Заросли, южный край", "Thicket, south edge"),
    ("Край болота", "Marsh edge"),
    ("Развалины избушки", "Ruined hut"),
    ("Березняк", "Birch grove"),
    ("Мостик", "Footbridge"),
    ("Выворотень", "Rootstock"),
    ("Муравейник", "Anthill"),
)

# What a hint may reveal about a card, as a predicate on the canonical code.
_PICTURES = "JQK"


def _is_joker(card: str) -> bool:
    return card.startswith("JK")


CARD_HINTS: dict[str, Callable[[str], bool]] = {
    "red suit": lambda c: not _is_joker(c) and c[1] in "HD",
    "black suit": lambda c: not _is_joker(c) and c[1] in "SC",
    "a picture card": lambda c: not _is_joker(c) and c[0] in _PICTURES,
    "not a picture card": lambda c: _is_joker(c) or c[0] not in _PICTURES,
    "not a joker": lambda c: not _is_joker(c),
    "an ace": lambda c: c[0] == "A" and not _is_joker(c),
    "a number card, 2 to 10": lambda c: not _is_joker(c) and c[0] in "23456789T",
    "higher than 8": lambda c: not _is_joker(c) and c[0] in "TJQKA",
    "no suit at all": _is_joker,
    "wild": _is_joker,
}


# The Russian wording of each statement of `CARD_HINTS`.
CARD_HINTS_RU: dict[str, str] = {
    "red suit": "красная масть",
    "black suit": "чёрная масть",
    "a picture card": "картинка (валет, дама или король)",
    "not a picture card": "не картинка",
    "not a joker": "не джокер",
    "an ace": "туз",
    "a number card, 2 to 10": "числовая карта, от 2 до 10",
    "higher than 8": "старше восьмёрки",
    "no suit at all": "без масти",
    "wild": "дикая карта",
}


def card_hint(card: str, rng: random.Random, lang: str = "en") -> str:
    """A true statement about `card` in `lang`, chosen by `rng` among those of `CARD_HINTS`
    (the same choice in both languages)."""
    true = [hint for hint, holds in CARD_HINTS.items() if holds(card)]
    chosen = rng.choice(true)
    return CARD_HINTS_RU[chosen] if lang == "ru" else chosen


@dataclass
class DemoParticipant:
    name: str
    external_id: str
    access_token: str
    personal_url: str
    save_codes: list[str]


@dataclass
class DemoEvent:
    lang: str
    event: Event
    participants: list[DemoParticipant]


# (name, external id, category, kind): two persons and two teams (IOF: PersonEntry,
# TeamEntry).
DEMO_PARTICIPANTS = {
    "ru": (
        ("Анна Петрова", "101", "Ж", "person"),
        ("Борис Иванов", "102", "М", "person"),
        ("Команда «Лось»", "103", "МЖ", "team"),
        ("Команда «Лиса»", "104", "МЖ", "team"),
    ),
    "en": (
        ("Anna Petrova", "101", "W", "person"),
        ("Boris Ivanov", "102", "M", "person"),
        ("Team Elk", "103", "MW", "team"),
        ("Team Fox", "104", "MW", "team"),
    ),
}


def load_demo(
    session: Session,
    base_url: str,
    now: datetime | None = None,
    lang: str = "ru",
    *,
    secret: str | None = None,
) -> DemoEvent:
    """Create the demo event (course open from `OPENED_AGO` before `now` for `OPEN_FOR`),
    its deck of 54 CPs with coordinates and hints, and the demo participants, named and
    described in `lang` (`ru` or `en`; ValueError otherwise). With `secret` (SECRET_KEY)
    the printed demo links are sealed, so printing the cards keeps them. Flushes only."""
    if lang not in DEMO_LANGUAGES:
        raise ValueError(f"the demo is written in {' or '.join(DEMO_LANGUAGES)}, not {lang!r}")
    now = now or utcnow()
    event = service.create_event(
        session,
        EventCreate(
            name=DEMO_NAMES[lang],
            opens_at=now - OPENED_AGO,
            closes_at=now - OPENED_AGO + OPEN_FOR,
            timezone=DEMO_TIMEZONE,
        ),
        actor=DEMO_ACTOR,
    )
    checkpoints = service.shuffle_deck(session, event, None, actor=DEMO_ACTOR)
    layout = random.Random(LAYOUT_SEED)
    for checkpoint in checkpoints:
        checkpoint.lat = round(layout.uniform(*AREA_LAT), 6)
        checkpoint.lon = round(layout.uniform(*AREA_LON), 6)
        place = layout.choice(PLACES)[0 if lang == "ru" else 1]
        checkpoint.hint = f"{place}; {card_hint(checkpoint.card, layout, lang)}"
    session.flush()
    service.change_status(session, event, EventStatus.COURSE_OPEN, actor=DEMO_ACTOR)
    created = service.create_participants(
        session,
        event,
        [
            ParticipantRow(name, external_id, category, kind)
            for name, external_id, category, kind in DEMO_PARTICIPANTS[lang]
        ],
        service.json_locator("participants"),
        actor=DEMO_ACTOR,
    )
    if secret is not None:
        service.seal_tokens(session, created, secret)
    return DemoEvent(
        lang=lang,
        event=event,
        participants=[
            DemoParticipant(
                name=new.participant.name,
                external_id=new.participant.external_id,
                access_token=new.access_token,
                personal_url=personal_url(base_url, new.access_token),
                save_codes=new.save_codes,
            )
            for new in created
        ],
    )


def describe(demo: DemoEvent, base_url: str) -> str:
    """Lines to print after loading the demo: the event, its organiser pages (each leads
    through the sign-in with the organiser token, then to the page) and the personal links."""
    pages = f"{base_url}/admin/events/{demo.event.id}"
    lines = [
        f"  Demo event {demo.event.id}: {demo.event.name} (course open now, 54 CPs)",
        f"  Sign in:               {base_url}/admin/login?next=/admin/events/{demo.event.id}",
        f"  Dashboard:             {pages}",
        f"  Checkpoints and deck:  {pages}/checkpoints",
        f"  Participants:          {pages}/participants",
        f"  Printable CP QR codes: {pages}/print/checkpoints",
        f"  Team (members, roles): {pages}/members",
        f"  Hall screen:           {base_url}/hall/{demo.event.id}",
        "  Personal links of the demo participants:",
    ]
    lines += [f"    {p.name:<14} #{p.external_id}  {p.personal_url}" for p in demo.participants]
    return "\n".join(lines)
