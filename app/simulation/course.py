"""The course of the seed rules: 54 CPs in a forest, public hints, walking times.

`build_course(rng)` deals the deck onto CPs 1..54, places them around the
start, writes each CP's public hint (terrain plus, often, a clue about the card,
RULES.md §1.1) and draws the secret codes the organiser prints on the QR codes.
The hints' clues are the only thing a simulated participant learns about a card
before taking it; `possible_cards(hint)` is how they read one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from app.simulation.cards import DECK, PICTURE, RED, is_joker, rank, suit

TIMEZONE = "Europe/Moscow"
# The seed's course window (RULES.md §1.1): 12:00 to 06:00 the next day, local time.
DEFAULT_DATE = "2026-06-13"
START_LAT, START_LON = 55.93, 37.02  # the start/finish tent
KM_PER_DEG_LAT = 111.32
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 symbols, 5 bits each
DISCARD_ALPHABET = "ACDEFHJKMNPRTUVWXY34679"  # nothing that looks like 0/O, 1/I/l, 5/S, 8/B, 2/Z

TERRAIN = (
    "ditch bend",
    "boulder, north side",
    "small depression",
    "path junction",
    "knoll top",
    "stream crossing",
    "fallen tree",
    "clearing, east edge",
    "re-entrant",
    "pit",
    "fence corner",
    "marsh edge",
    "ruin",
    "thicket, south side",
    "spur",
    "cliff foot",
)

# Clues a hint may carry, with the card predicate each one states (matched
# case-insensitively as substrings; the order puts "not a picture" before "picture").
CLUES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("Red suit", lambda c: suit(c) in RED),
    ("Black suit", lambda c: suit(c) is not None and suit(c) not in RED),
    ("Not a picture card", lambda c: is_joker(c) or c[0] not in PICTURE),
    ("A picture card", lambda c: not is_joker(c) and c[0] in PICTURE),
    ("Ten or higher", lambda c: (rank(c) or 0) >= 10),
    ("Nine or lower", lambda c: (rank(c) or 99) <= 9),
    ("Not a joker", lambda c: not is_joker(c)),
    ("A joker or an ace", lambda c: is_joker(c) or rank(c) == 14),
)
# The same clues as the Russian demo event words them (`app.events.demo.CARD_HINTS_RU`).
CLUES_RU: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("красная масть", CLUES[0][1]),
    ("чёрная масть", CLUES[1][1]),
    ("не картинка", CLUES[2][1]),
    ("картинка (валет", CLUES[3][1]),
    ("не джокер", CLUES[6][1]),
)


@dataclass(frozen=True)
class CP:
    """One checkpoint as the organiser sets it up (card and codes are secret)."""

    number: int
    card: str
    code: str
    discard_code: str
    lat: float
    lon: float
    hint: str


@dataclass(frozen=True)
class PublicCP:
    """What everyone knows about a CP before the start: number, coordinates, hint."""

    number: int
    lat: float
    lon: float
    hint: str


def course_window(date: str = DEFAULT_DATE) -> tuple[datetime, datetime]:
    """(opens_at, closes_at) as aware datetimes in Europe/Moscow: 12:00 to 06:00 next day."""
    zone = ZoneInfo(TIMEZONE)
    day = datetime.fromisoformat(date)
    opens = day.replace(hour=12, tzinfo=zone)
    closes = (day + timedelta(days=1)).replace(hour=6, tzinfo=zone)
    return opens, closes


def _code(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def offset_km(lat: float, lon: float) -> tuple[float, float]:
    """(east, north) kilometres of a point from the start."""
    east = (lon - START_LON) * KM_PER_DEG_LAT * math.cos(math.radians(START_LAT))
    return east, (lat - START_LAT) * KM_PER_DEG_LAT


def distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance in km between two (lat, lon) points (haversine)."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def hint_for(card: str, rng: random.Random) -> str:
    """A CP's public hint: terrain, and three times in four a clue that is true of `card`."""
    terrain = rng.choice(TERRAIN).capitalize()
    true_clues = [text for text, holds in CLUES if holds(card)]
    if rng.random() < 0.25 or not true_clues:
        return f"{terrain}."
    return f"{terrain}. {rng.choice(true_clues)}."


def possible_cards(hint: str) -> frozenset[str]:
    """The cards a hint allows (every clue in it must hold); the whole deck if none."""
    text = hint.lower()
    cards = set(DECK)
    for clue, holds in (*CLUES, *CLUES_RU):
        needle = clue.lower()
        if needle in text:
            if needle == "a picture card" and "not a picture card" in text:
                continue
            cards = {c for c in cards if holds(c)}
    return frozenset(cards)


def build_course(rng: random.Random, radius_km: float = 6.0) -> list[CP]:
    """54 CPs 1..54 with a shuffled deck, coordinates within `radius_km` of the start,
    hints, secret 20-symbol CP codes (100 bits) and distinct 6-symbol discard codes."""
    cards = list(DECK)
    rng.shuffle(cards)
    discard_codes: set[str] = set()
    course = []
    for number, card in enumerate(cards, start=1):
        distance = radius_km * math.sqrt(rng.uniform(0.02, 1.0))
        bearing = rng.uniform(0, 2 * math.pi)
        north, east = distance * math.cos(bearing), distance * math.sin(bearing)
        lat = START_LAT + north / KM_PER_DEG_LAT
        lon = START_LON + east / (KM_PER_DEG_LAT * math.cos(math.radians(START_LAT)))
        discard = _code(rng, DISCARD_ALPHABET, 6)
        while discard in discard_codes:
            discard = _code(rng, DISCARD_ALPHABET, 6)
        discard_codes.add(discard)
        course.append(
            CP(
                number=number,
                card=card,
                code=_code(rng, CODE_ALPHABET, 20),
                discard_code=discard,
                lat=round(lat, 6),
                lon=round(lon, 6),
                hint=hint_for(card, rng),
            )
        )
    return course


def walking_minutes(
    distance: float, speed_kmh: float, local_hour: int, rng: random.Random
) -> float:
    """Minutes from one CP to the next: terrain factor 1.3, 25 % slower at night
    (22:00-05:00 local), plus 2-12 minutes to find the CP."""
    night = local_hour >= 22 or local_hour < 5
    speed = speed_kmh * (0.75 if night else 1.0)
    return distance * 1.3 / speed * 60 + rng.uniform(2, 12)
