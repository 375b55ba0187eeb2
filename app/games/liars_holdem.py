"""Liar's Poker 2.0: Texas Hold'em with banknotes (RULES.md §2, I-11..I-15).

Pure rules: no database, HTTP or clock; randomness only from the seeded RNG.

Scoring (`best_hand`, the evaluate tool):
- A banknote is a 7-digit serial. Its **base number** is the digit at the declared
  position p (1..7); a 0 there shifts right to the first digit 1–9, wrapping to
  position 1 (RULES.md I-12). A serial of seven zeros is not a banknote.
- Each 0 of the serial is a zero-joker: the banknote may take any value base+k,
  |k| <= zeros, on the ring 1..9 (9+1 = 1, 1−1 = 9; the ring is for shifting only).
- Three numbers make high card < pair < straight (1-2-3 .. 7-8-9, no wrap) < set.
  A combination is **natural** when no zero-joker is spent; natural beats modified
  after the category and its defining numbers, before the kickers (RULES.md I-13).
- `strength` lists compare lexicographically: `[category, *defining, natural, *kickers]`:
  set `[3, v, nat]`, straight `[2, top, nat]`, pair `[1, pair, nat, kicker]`,
  high card `[0, h1, h2, h3, nat]` (category 0..3, natural 1/0).

Money (options, all integers, chips):
- `starting_stack` (default 1000): each player's chips at the start (or `stacks`,
  one number per seat).
- `buy_in` (default 12): paid by every player still at the table at the start of
  **each hand**; `rake` (default 2) of it goes to the organiser (leaves play); the rest,
  the **ante** (`buy_in - rake`, at least 1), goes into the pot (RULES.md §2.4).
  `ante` may be given instead of `buy_in` (then `buy_in = ante + rake`).
  A player who cannot pay the whole buy-in pays what they have (rake first) and is all-in.
- The player left of the dealer makes the forced bet of one ante; every bet or raise
  is at least one ante and a raise at least the previous bet/raise, no limit
  otherwise (RULES.md I-15); short all-ins make side pots.
- `first_button` (default 0): the seat of the first dealer; the button then moves
  clockwise to the next player with chips. Players with no chips leave; the game is
  over when one player has chips (or the organiser ends it: the current hand is
  cancelled and its pot returned, the rake stays with the organiser).

Course of a hand: buy-ins → the dealer's `declare` (position 1..7) → 2 hidden
banknotes each (dealt one at a time clockwise from the dealer's left, twice) → the
forced bet → pre-flop betting → flop (1 board banknote) → betting → turn → betting →
river → betting → showdown: each player still in, clockwise from the dealer's left,
`reveal`s or `refuse`s; a refusing player gets nothing (RULES.md §2.4). A pot none
of whose players revealed is forfeited to the organiser. Split pots: the odd chips
go to the first winner clockwise from the dealer (RULES.md I-14).

Deck: digital play draws distinct random serials from the seeded RNG (RULES.md I-11);
`options.deck` lists real banknotes in dealing order (each hand takes the next
2×players+3: both rounds of hidden banknotes, then flop, turn, river); when it runs
short the dealer's `declare` carries this hand's `deck`.

Actions (`amount` of bet/raise is the player's total bet in this betting round
after the action, "raise to"):
`{"type": "declare", "position": 1..7, "deck"?: [serials]}`, `{"type": "check"}`,
`{"type": "call"}`, `{"type": "bet", "amount": n}`, `{"type": "raise", "amount": n}`,
`{"type": "all_in"}`, `{"type": "fold"}`, `{"type": "reveal"}`, `{"type": "refuse"}`;
the organiser's `{"type": "end"}`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from app.games.base import Action, Game, GameState, IllegalAction, InvalidOptions, register

SERIAL_LENGTH = 7
CATEGORIES = ("high_card", "pair", "straight", "set")
STREETS = ("preflop", "flop", "turn", "river")


# -- banknotes and scoring -----------------------------------------------------


def check_serial(serial: Any) -> str:
    """The serial as a 7-digit string; ValueError unless 7 digits 0-9, not all zero."""
    if not isinstance(serial, str) or len(serial) != SERIAL_LENGTH or not serial.isdigit():
        raise ValueError(f"{serial!r} is not a 7-digit serial number")
    if not serial.isascii():
        raise ValueError(f"{serial!r} is not a 7-digit serial number")
    if set(serial) == {"0"}:
        raise ValueError("a serial of seven zeros is not a valid banknote (RULES.md I-12)")
    return serial


def base_index(serial: str, position: int) -> int:
    """The 0-based index of the digit that gives the base number at `position` (1..7).

    RULES.md §2.2, I-12: the digit at the position; a 0 moves right to the first
    digit 1–9, continuing from position 1 when none is to the right.
    """
    for offset in range(SERIAL_LENGTH):
        index = (position - 1 + offset) % SERIAL_LENGTH
        if serial[index] != "0":
            return index
    raise ValueError("a serial of seven zeros has no base number")


def base_number(serial: str, position: int) -> int:
    """The base number of a banknote at declared `position` (1..7) (RULES.md I-12)."""
    return int(serial[base_index(serial, position)])


def ring(value: int) -> int:
    """A number shifted by zero-jokers back onto the ring 1..9 (9+1 = 1, 1−1 = 9)."""
    return (value - 1) % 9 + 1


def reachable(serial: str, position: int) -> dict[int, bool]:
    """Values a banknote can take at showdown → True for the natural (unshifted) one.

    Each of the serial's zeros is a joker worth +1 or −1 (RULES.md §2.2), so a
    banknote with base b and z zeros takes b+k, |k| <= z, on the ring.
    """
    base = base_number(serial, position)
    zeros = serial.count("0")
    values = {ring(base + k): False for k in range(-zeros, zeros + 1)}
    values[base] = True
    return values


@cache
def _shape(values: tuple[int, int, int]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(category, defining numbers, kickers) of three sorted-descending numbers (§2.3)."""
    a, b, c = values
    if a == b == c:
        return 3, (a,), ()
    if a == b or b == c:
        pair = b
        kicker = c if a == b else a
        return 1, (pair,), (kicker,)
    if a - b == 1 and b - c == 1:  # no wrap: 8-9-1 is not a straight
        return 2, (a,), ()
    return 0, (a, b, c), ()


def strength_of(values: Sequence[int], natural: bool) -> list[int]:
    """`[category, *defining, natural, *kickers]` of three numbers (RULES.md §2.3, I-13)."""
    category, defining, kickers = _shape(tuple(sorted(values, reverse=True)))
    return [category, *defining, int(natural), *kickers]


@dataclass(frozen=True)
class Hand:
    """A scored combination: `values` in order of significance, `serials` matching them."""

    category: str
    values: list[int]
    natural: bool
    serials: list[str]
    strength: list[int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "values": self.values,
            "natural": self.natural,
            "serials": self.serials,
            "strength": self.strength,
        }


def _ordered(values: Sequence[int], serials: Sequence[str]) -> tuple[list[int], list[str]]:
    """Values (and their serials) in order of significance: pair first, then descending."""
    counts = {v: values.count(v) for v in values}
    order = sorted(range(3), key=lambda i: (-counts[values[i]], -values[i], i))
    return [values[i] for i in order], [serials[i] for i in order]


@lru_cache(maxsize=1 << 16)
def _best_trio(kinds: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """Best (strength, values, natural) of three banknotes given as (base, zeros).

    The result depends only on each banknote's base and zeros (4 or more zeros reach
    every value), so it is cached across hands.
    """
    best: tuple[list[int], list[int], bool] | None = None
    choices = []
    for base, zeros in kinds:
        values = {ring(base + k): False for k in range(-zeros, zeros + 1)}
        values[base] = True
        choices.append(values.items())
    for picked in itertools.product(*choices):
        values = [value for value, _ in picked]
        natural = all(is_natural for _, is_natural in picked)
        strength = strength_of(values, natural)
        if best is None or strength > best[0]:
            best = (strength, values, natural)
    assert best is not None
    return tuple(best[0]), tuple(best[1]), best[2]


def best_hand(serials: Sequence[str], position: int) -> Hand:
    """The best combination of any 3 of 3–5 banknotes at `position` (RULES.md §2.3).

    Tries every choice of three banknotes and every spending of their zero-jokers
    (see `reachable`). Own banknotes are optional (board-only hands count). Ties
    between equally strong choices keep the first found (banknotes in the order given).
    """
    if len(serials) < 3:
        raise ValueError("a hand needs at least 3 banknotes")
    kinds = [(base_number(s, position), min(s.count("0"), 4)) for s in serials]
    best: tuple[tuple[int, ...], list[int], list[str], bool] | None = None
    for trio in itertools.combinations(range(len(serials)), 3):
        order = sorted(trio, key=lambda i: kinds[i])
        strength, values, natural = _best_trio(tuple(kinds[i] for i in order))
        if best is None or strength > best[0]:
            by_input = sorted(zip(order, values, strict=True))  # back to the order given
            best = (strength, [v for _, v in by_input], [serials[i] for i, _ in by_input], natural)
    assert best is not None
    strength, values, used, natural = best
    ordered_values, ordered_serials = _ordered(values, used)
    return Hand(CATEGORIES[strength[0]], ordered_values, natural, ordered_serials, list(strength))


def compute_pots(contributed: Sequence[int], live: Sequence[bool]) -> list[dict[str, Any]]:
    """Main pot and side pots from each seat's chips in the pot this hand.

    Levels are the contributions of players still in (`live`); each pot holds every
    seat's chips between two levels and is contested by the live seats that reached
    its level. Chips of folded seats above the highest level join the last pot.
    Consecutive pots with the same contenders are merged.
    """
    levels = sorted({c for c, alive in zip(contributed, live, strict=True) if alive and c > 0})
    pots: list[dict[str, Any]] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributed)
        eligible = [s for s, c in enumerate(contributed) if live[s] and c >= level]
        if pots and pots[-1]["eligible"] == eligible:
            pots[-1]["amount"] += amount
        else:
            pots.append({"amount": amount, "eligible": eligible})
        previous = level
    dead = sum(max(0, c - previous) for c in contributed)
    if dead:
        if pots:
            pots[-1]["amount"] += dead
        else:
            pots.append({"amount": dead, "eligible": [s for s, a in enumerate(live) if a]})
    return pots


def banknote(serial: str, position: int | None) -> dict[str, Any]:
    """A banknote as shown: serial, base number and the index of its digit (once the
    position is declared), and its number of zeros (zero-jokers)."""
    return {
        "serial": serial,
        "base": base_number(serial, position) if position else None,
        "base_index": base_index(serial, position) if position else None,
        "zeros": serial.count("0"),
    }


# -- options -------------------------------------------------------------------

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "starting_stack": {
            "type": "integer",
            "minimum": 1,
            "default": 1000,
            "description": "Chips each player has at the start.",
        },
        "stacks": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1},
            "description": "Each seat's starting chips (overrides starting_stack), e.g. to "
            "continue a table.",
        },
        "buy_in": {
            "type": "integer",
            "minimum": 1,
            "default": 12,
            "description": "Paid from the stack by every player at the start of each hand: "
            "the rake goes to the organiser, the rest (the ante) into the pot.",
        },
        "rake": {
            "type": "integer",
            "minimum": 0,
            "default": 2,
            "description": "The organiser's part of each buy-in; must be below the buy-in.",
        },
        "ante": {
            "type": "integer",
            "minimum": 1,
            "description": "buy_in − rake (default 10): the pot's part of the buy-in, the "
            "forced bet and the minimum bet/raise. Give it instead of buy_in, or "
            "consistently with it.",
        },
        "first_button": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "Seat of the first dealer (0-based).",
        },
        "deck": {
            "type": "array",
            "items": {"type": "string", "pattern": "^[0-9]{7}$"},
            "uniqueItems": True,
            "description": "Real banknotes' serials in dealing order (no seed used); hidden "
            "until the game is over.",
        },
    },
}


@dataclass(frozen=True)
class Settings:
    stacks: tuple[int, ...]
    buy_in: int
    rake: int
    ante: int
    first_button: int
    deck: tuple[str, ...] | None


def _integer(options: dict[str, Any], key: str, default: int | None, minimum: int) -> int | None:
    value = options.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidOptions(f"`{key}` must be an integer of at least {minimum}.")
    return value


def parse_options(options: dict[str, Any], players: int) -> Settings:
    """Checked options (see the module docstring); InvalidOptions (422) when wrong."""
    if not isinstance(options, dict):
        raise InvalidOptions("`options` must be an object.")
    unknown = set(options) - set(OPTIONS_SCHEMA["properties"])
    if unknown:
        raise InvalidOptions(f"Unknown options: {', '.join(sorted(unknown))}.")
    stack = _integer(options, "starting_stack", 1000, 1)
    rake = _integer(options, "rake", 2, 0)
    ante = _integer(options, "ante", None, 1)
    buy_in = _integer(options, "buy_in", None, 1)
    assert stack is not None and rake is not None
    if buy_in is None:
        buy_in = (ante if ante is not None else 10) + rake
    if ante is None:
        ante = buy_in - rake
    if ante < 1 or buy_in != ante + rake:
        raise InvalidOptions("The ante is buy_in − rake and must be at least 1.")
    button = _integer(options, "first_button", 0, 0)
    assert button is not None
    if button >= players:
        raise InvalidOptions("`first_button` must be a seat of the game.")
    deck = options.get("deck")
    if deck is not None:
        try:
            deck = tuple(check_serial(s) for s in deck) if isinstance(deck, list) else None
        except ValueError as exc:
            raise InvalidOptions(f"`deck`: {exc}.") from exc
        if deck is None:
            raise InvalidOptions("`deck` must be a list of serials.")
        if len(set(deck)) != len(deck):
            raise InvalidOptions("`deck`: every banknote's serial must be distinct.")
    stacks = options.get("stacks")
    if stacks is None:
        stacks = [stack] * players
    elif (
        not isinstance(stacks, list)
        or len(stacks) != players
        or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in stacks)
    ):
        raise InvalidOptions("`stacks` must give each seat a positive number of chips.")
    return Settings(tuple(stacks), buy_in, rake, ante, button, deck)


# -- the game ------------------------------------------------------------------


class LiarsHoldemState(GameState):
    """One game (a series of hands) of Liar's Poker 2.0 hold'em."""

    def __init__(self, players: Sequence[str], settings: Settings, seed: int) -> None:
        self.names = list(players)
        self.n = len(self.names)
        self.settings = settings
        self.rng = random.Random(seed)
        self.used_serials: set[str] = set()
        self.deck_position = 0
        self.stacks = list(settings.stacks)
        self.rake_total = 0
        self.forfeited_total = 0
        self.hand_number = 0
        self.button: int | None = None
        self.ended_by_organiser = False
        self.last_hand: dict[str, Any] | None = None
        self.phase = "declare"
        self._start_hand()

    # -- hand set-up ---------------------------------------------------------

    def _clockwise(self, start: int) -> list[int]:
        """Every seat, clockwise, starting with `start`."""
        return [(start + k) % self.n for k in range(self.n)]

    def _after(self, seat: int, among: set[int] | list[int]) -> int | None:
        """The first seat of `among` clockwise after `seat` (not `seat` itself first)."""
        for other in self._clockwise(seat + 1):
            if other in among:
                return other
        return None

    def _start_hand(self) -> None:
        players = [s for s in range(self.n) if self.stacks[s] > 0]
        self.in_hand = [self.stacks[s] > 0 for s in range(self.n)]
        self.folded = [False] * self.n
        self.bets = [0] * self.n
        self.contributed = [0] * self.n
        self.holes: list[list[str]] = [[] for _ in range(self.n)]
        self.revealed: list[bool | None] = [None] * self.n
        self.board: list[str] = []
        self.undealt: list[str] = []
        self.position: int | None = None
        self.street: str | None = None
        self.pending: set[int] = set()
        self.acted_full: set[int] = set()
        self.to_act: int | None = None
        self.current_bet = 0
        self.min_raise = self.settings.ante
        self.showdown_order: list[int] = []
        if len(players) < 2:
            self.phase = "over"
            return
        self.hand_number += 1
        if self.button is None:
            first = self.settings.first_button
            self.button = first if self.stacks[first] > 0 else self._after(first, players)
        else:
            self.button = self._after(self.button, players)
        for seat in players:  # buy-in: rake first, the rest (the ante) into the pot
            paid = min(self.stacks[seat], self.settings.buy_in)
            rake = min(paid, self.settings.rake)
            self.stacks[seat] -= paid
            self.rake_total += rake
            self.contributed[seat] += paid - rake
        self.phase = "declare"

    def _seats_in_hand(self) -> list[int]:
        """Seats dealt into this hand, clockwise from the dealer's left."""
        assert self.button is not None
        return [s for s in self._clockwise(self.button + 1) if self.in_hand[s]]

    def _deck_needed(self) -> int:
        return 2 * len(self._seats_in_hand()) + 3

    def _options_deck_short(self) -> bool:
        deck = self.settings.deck
        return deck is not None and len(deck) - self.deck_position < self._deck_needed()

    def _draw_digital(self) -> str:
        while True:
            serial = f"{self.rng.randrange(10**SERIAL_LENGTH):0{SERIAL_LENGTH}d}"
            if serial != "0" * SERIAL_LENGTH and serial not in self.used_serials:
                self.used_serials.add(serial)
                return serial

    def _declare(self, action: Action) -> None:
        position = action.get("position")
        if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= 7:
            raise IllegalAction("The position is a number from 1 to 7.", self._legal())
        need = self._deck_needed()
        if "deck" in action:
            deck = action["deck"]
            try:
                serials = [check_serial(s) for s in deck] if isinstance(deck, list) else None
            except ValueError as exc:
                raise IllegalAction(f"`deck`: {exc}.", self._legal()) from exc
            if serials is None or len(serials) != need or len(set(serials)) != need:
                raise IllegalAction(
                    f"`deck` must list {need} distinct serials in dealing order.", self._legal()
                )
        elif self.settings.deck is not None:
            if self._options_deck_short():
                raise IllegalAction(
                    f"The banknotes of options.deck are used up: give this hand's {need} "
                    "serials as `deck`.",
                    self._legal(),
                )
            start = self.deck_position
            serials = list(self.settings.deck[start : start + need])
            self.deck_position += need
        else:
            serials = [self._draw_digital() for _ in range(need)]
        self.position = position
        seats = self._seats_in_hand()
        k = len(seats)
        for round_ in range(2):  # one at a time, clockwise from the dealer's left, twice
            for i, seat in enumerate(seats):
                self.holes[seat].append(serials[round_ * k + i])
        self.undealt = serials[2 * k :]
        # The forced bet: one ante by the player left of the dealer (RULES.md §2.4).
        forced = seats[0]
        self._put(forced, min(self.settings.ante, self.stacks[forced]))
        self.street = "preflop"
        self.current_bet = self.settings.ante
        self.min_raise = self.settings.ante
        self.acted_full = set()
        self.pending = set(self._able())
        self.phase = "betting"
        self._next_to_act(forced)

    # -- betting ------------------------------------------------------------

    def _able(self) -> list[int]:
        """Seats still in the hand that have chips to bet."""
        return [
            s for s in range(self.n) if self.in_hand[s] and not self.folded[s] and self.stacks[s]
        ]

    def _live(self) -> list[int]:
        return [s for s in range(self.n) if self.in_hand[s] and not self.folded[s]]

    def _put(self, seat: int, amount: int) -> None:
        self.stacks[seat] -= amount
        self.bets[seat] += amount
        self.contributed[seat] += amount

    def _next_to_act(self, after: int) -> None:
        """Pass the turn to the next pending seat after `after`, or close the street."""
        able = self._able()
        if len(able) == 1:  # alone with chips: acts only if facing a bigger bet
            others = [self.bets[s] for s in self._live() if s != able[0]]
            if self.bets[able[0]] >= max(others, default=0):
                self.pending.clear()
        if not able:
            self.pending.clear()
        self.pending &= set(able)
        if len(self._live()) == 1:
            self._finish_hand()
            return
        if self.pending:
            self.to_act = self._after(after, self.pending)
            return
        self._close_street()

    def _close_street(self) -> None:
        self.to_act = None
        self.bets = [0] * self.n
        assert self.street is not None and self.button is not None
        index = STREETS.index(self.street)
        if index == len(STREETS) - 1:
            self._start_showdown()
            return
        self.street = STREETS[index + 1]
        self.board.append(self.undealt.pop(0))
        self.current_bet = 0
        self.min_raise = self.settings.ante
        self.acted_full = set()
        self.pending = set(self._able())
        self._next_to_act(self.button)

    def _legal_betting(self, seat: int) -> list[Action]:
        to_call = self.current_bet - self.bets[seat]
        stack = self.stacks[seat]
        total = self.bets[seat] + stack  # the most this seat's bet can reach (all-in)
        legal: list[Action] = []
        if to_call > 0:
            legal.append({"type": "fold"})
            legal.append({"type": "call", "amount": min(to_call, stack)})
        else:
            legal.append({"type": "check"})
        can_raise = seat not in self.acted_full and total > self.current_bet
        if self.current_bet == 0 and stack > 0:
            legal.append({"type": "bet", "min": min(self.settings.ante, total), "max": total})
        elif self.current_bet > 0 and can_raise:
            low = min(self.current_bet + self.min_raise, total)
            legal.append({"type": "raise", "min": low, "max": total})
        if stack > 0 and (total <= self.current_bet or can_raise or self.current_bet == 0):
            legal.append({"type": "all_in", "amount": total})
        return legal

    def _bet_to(self, seat: int, target: int) -> None:
        """Raise `seat`'s bet this round to `target` (a bet, raise or all-in above the bet)."""
        self._put(seat, target - self.bets[seat])
        increment = target - self.current_bet
        able = set(self._able()) - {seat}
        if self.current_bet == 0 or increment >= self.min_raise:
            # A full bet or raise reopens the betting to everyone (RULES.md I-15).
            self.min_raise = max(self.settings.ante, increment)
            self.acted_full = {seat}
            self.pending = able
        else:
            # A short all-in: the others must answer it, but it reopens no raising.
            self.acted_full.add(seat)
            self.pending = (self.pending | {s for s in able if self.bets[s] < target}) - {seat}
        self.current_bet = target

    def _betting_action(self, seat: int, action: Action) -> None:
        legal = self._legal_betting(seat)
        kind = action["type"]
        entry = next((a for a in legal if a["type"] == kind), None)
        if entry is None:
            raise IllegalAction(f"`{kind}` is not possible now.", legal)
        if kind in ("bet", "raise"):
            amount = action.get("amount")
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise IllegalAction(f"`{kind}` needs an integer `amount` (raise to).", legal)
            if not entry["min"] <= amount <= entry["max"]:
                raise IllegalAction(
                    f"The {kind} must be from {entry['min']} to {entry['max']}.", legal
                )
            self._bet_to(seat, amount)
        elif kind == "all_in":
            target = entry["amount"]
            if target > self.current_bet:
                self._bet_to(seat, target)
            else:
                self._put(seat, self.stacks[seat])
                self.acted_full.add(seat)
                self.pending.discard(seat)
        elif kind == "call":
            self._put(seat, entry["amount"])
            self.acted_full.add(seat)
            self.pending.discard(seat)
        elif kind == "check":
            self.acted_full.add(seat)
            self.pending.discard(seat)
        else:  # fold: the ante and bets stay in the pot
            self.folded[seat] = True
            self.pending.discard(seat)
        self._next_to_act(seat)

    # -- showdown and settlement -------------------------------------------------

    def _return_uncalled(self) -> list[dict[str, int]]:
        """Give back the part of the biggest contribution that nobody matched."""
        ranked = sorted(range(self.n), key=lambda s: -self.contributed[s])
        top, second = ranked[0], ranked[1]
        excess = self.contributed[top] - self.contributed[second]
        if excess > 0 and not self.folded[top]:
            self.contributed[top] -= excess
            self.stacks[top] += excess
            return [{"seat": top, "amount": excess}]
        return []

    def _start_showdown(self) -> None:
        self.street = None
        self.returned = self._return_uncalled()
        self.showdown_order = [s for s in self._seats_in_hand() if not self.folded[s]]
        self.phase = "showdown"

    def _showdown_action(self, seat: int, action: Action) -> None:
        if action["type"] not in ("reveal", "refuse"):
            raise IllegalAction("At the showdown: reveal or refuse.", self._legal())
        self.revealed[seat] = action["type"] == "reveal"
        self.showdown_order.pop(0)
        if not self.showdown_order:
            self._finish_hand()

    def _settle_pots(
        self, live: list[bool], hands: dict[int, Hand], by_fold: bool, order: list[int]
    ) -> tuple[list[dict[str, Any]], int]:
        """Pay every pot to its best revealed hands (split evenly, the odd chip to the first
        winner clockwise from the button); a pot no one may claim is forfeited. Returns the
        pots as recorded in `last_hand` and the chips forfeited (RULES.md §2.4, I-14)."""
        pots = []
        forfeited = 0
        for pot in compute_pots(self.contributed, live):
            claimants = [s for s in pot["eligible"] if by_fold or s in hands]
            shares: dict[int, int] = {}
            if not claimants:
                forfeited += pot["amount"]
            else:
                if by_fold:
                    winners = claimants
                else:
                    top = max(hands[s].strength for s in claimants)
                    winners = [s for s in claimants if hands[s].strength == top]
                winners.sort(key=order.index)
                share, odd = divmod(pot["amount"], len(winners))
                for i, seat in enumerate(winners):
                    shares[seat] = share + (odd if i == 0 else 0)
                    self.stacks[seat] += shares[seat]
            pots.append(
                {
                    "amount": pot["amount"],
                    "eligible": pot["eligible"],
                    "winners": sorted(shares, key=order.index),
                    "shares": [{"seat": s, "amount": a} for s, a in shares.items()],
                }
            )
        return pots, forfeited

    def _finish_hand(self) -> None:
        """Settle every pot, record the hand, and start the next one (RULES.md §2.4, I-14)."""
        assert self.button is not None and self.position is not None
        if self.phase != "showdown":
            self.returned = self._return_uncalled()
        live = [self.in_hand[s] and not self.folded[s] for s in range(self.n)]
        by_fold = sum(live) == 1
        hands: dict[int, Hand] = {}
        if not by_fold:
            for seat in range(self.n):
                if live[seat] and self.revealed[seat]:
                    hands[seat] = best_hand(self.holes[seat] + self.board, self.position)
        order = self._clockwise(self.button + 1)
        pots, forfeited = self._settle_pots(live, hands, by_fold, order)
        self.forfeited_total += forfeited
        self.last_hand = {
            "hand": self.hand_number,
            "button": self.button,
            "position": self.position,
            "board": [banknote(s, self.position) for s in self.board],
            "won_by_fold": by_fold,
            "pots": pots,
            "revealed": [
                {
                    "seat": s,
                    "banknotes": [banknote(x, self.position) for x in self.holes[s]],
                    "best": hands[s].as_dict(),
                }
                for s in sorted(hands, key=order.index)
            ],
            "refused": [s for s in order if live[s] and self.revealed[s] is False],
            "returned": self.returned,
            "forfeited": forfeited,
            "cancelled": False,
        }
        self._start_hand()

    # -- the GameState interface ---------------------------------------------

    def current_players(self) -> list[int]:
        if self.phase == "declare":
            assert self.button is not None
            return [self.button]
        if self.phase == "betting" and self.to_act is not None:
            return [self.to_act]
        if self.phase == "showdown":
            return [self.showdown_order[0]]
        return []

    def _legal(self) -> list[Action]:
        current = self.current_players()
        return self.legal_actions(current[0]) if current else []

    def legal_actions(self, player: int) -> list[Action]:
        if player not in self.current_players():
            return []
        if self.phase == "declare":
            entry: Action = {"type": "declare", "min": 1, "max": 7}
            if self._options_deck_short():
                entry["deck_needed"] = self._deck_needed()
            return [entry]
        if self.phase == "betting":
            return self._legal_betting(player)
        return [{"type": "reveal"}, {"type": "refuse"}]

    def sample_action(self, descriptor: Action, rng: random.Random) -> Action:
        if descriptor["type"] == "declare":
            action: Action = {"type": "declare", "position": rng.randint(1, 7)}
            if "deck_needed" in descriptor:
                serials: set[str] = set()
                while len(serials) < descriptor["deck_needed"]:
                    serials.add(f"{rng.randrange(1, 10**SERIAL_LENGTH):07d}")
                action["deck"] = sorted(serials)
            return action
        return super().sample_action(descriptor, rng)

    def apply_action(self, player: int, action: Action) -> None:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("An action is an object with a `type`.", self.legal_actions(player))
        if not isinstance(player, int) or player not in self.current_players():
            raise IllegalAction(
                f"It is not seat {player}'s turn (now: {self.current_players()}).",
                self.legal_actions(player) if isinstance(player, int) else [],
            )
        if self.phase == "declare":
            if action["type"] != "declare":
                raise IllegalAction("The dealer first declares the position.", self._legal())
            self._declare(action)
        elif self.phase == "betting":
            self._betting_action(player, action)
        else:
            self._showdown_action(player, action)

    def organiser_actions(self) -> list[Action]:
        return [] if self.phase == "over" else [{"type": "end"}]

    def apply_organiser_action(self, action: Action) -> None:
        """`{"type": "end"}`: end the game now; a hand in progress is cancelled and every
        seat gets its chips in the pot back (the rake stays with the organiser)."""
        if self.phase == "over" or not isinstance(action, dict) or action.get("type") != "end":
            raise IllegalAction("The organiser may only end a running game.", [])
        if any(self.contributed):
            for seat in range(self.n):
                self.stacks[seat] += self.contributed[seat]
            self.last_hand = {
                "hand": self.hand_number,
                "button": self.button,
                "position": self.position,
                "cancelled": True,
                "returned": [{"seat": s, "amount": c} for s, c in enumerate(self.contributed) if c],
            }
            self.contributed = [0] * self.n
            self.bets = [0] * self.n
        self.phase = "over"
        self.to_act = None
        self.ended_by_organiser = True

    def is_over(self) -> bool:
        return self.phase == "over"

    def private_information(self) -> dict[int, list[str]]:
        return {
            s: list(self.holes[s])
            for s in range(self.n)
            if self.holes[s] and not self.revealed[s] and self.phase != "over"
        }

    def _status(self, seat: int) -> str:
        if self.phase == "over":
            return "out" if self.stacks[seat] == 0 else "finished"
        if not self.in_hand[seat]:
            return "out" if self.stacks[seat] == 0 else "waiting"
        if self.folded[seat]:
            return "folded"
        return "all_in" if self.stacks[seat] == 0 else "active"

    def view(self, player: int | None) -> dict[str, Any]:
        position = self.position
        live = [self.in_hand[s] and not self.folded[s] for s in range(self.n)]
        seats = []
        for seat in range(self.n):
            visible = seat == player or (self.revealed[seat] is True)
            holes = self.holes[seat] if self.phase != "over" else []
            seats.append(
                {
                    "seat": seat,
                    "name": self.names[seat],
                    "stack": self.stacks[seat],
                    "bet": self.bets[seat],
                    "contributed": self.contributed[seat],
                    "status": self._status(seat),
                    "banknotes": [banknote(s, position) for s in holes] if visible else None,
                    "hidden_banknotes": 0 if visible else len(holes),
                    "revealed": self.revealed[seat],
                }
            )
        current = self.current_players()
        data: dict[str, Any] = {
            "hand": self.hand_number,
            "phase": self.phase,
            "street": self.street,
            "button": self.button,
            "position": position,
            "buy_in": self.settings.buy_in,
            "rake": self.settings.rake,
            "ante": self.settings.ante,
            "board": [banknote(s, position) for s in self.board],
            "players": seats,
            # The pots as collected before this betting round; `bet` shows each seat's
            # chips in front of them in the current round.
            "pots": compute_pots(
                [c - b for c, b in zip(self.contributed, self.bets, strict=True)], live
            )
            if self.phase != "over"
            else [],
            "current_player": current[0] if current else None,
            "current_bet": self.current_bet,
            "min_raise": self.min_raise,
            "last_hand": self.last_hand,
            "rake_total": self.rake_total,
            "forfeited_total": self.forfeited_total,
            "ended_by_organiser": self.ended_by_organiser,
            "you": player,
        }
        if player is not None and position and self.holes[player] and self.phase != "over":
            cards = self.holes[player] + self.board
            data["best_hand"] = best_hand(cards, position).as_dict() if len(cards) >= 3 else None
        return data

    def result(self) -> dict[str, Any] | None:
        if self.phase != "over":
            return None
        ranked = sorted(range(self.n), key=lambda s: (-self.stacks[s], s))
        standings = []
        for seat in ranked:
            place = 1 + sum(1 for other in range(self.n) if self.stacks[other] > self.stacks[seat])
            standings.append(
                {"seat": seat, "name": self.names[seat], "stack": self.stacks[seat], "place": place}
            )
        with_chips = [s for s in range(self.n) if self.stacks[s] > 0]
        return {
            "winner": with_chips[0] if len(with_chips) == 1 else None,
            "standings": standings,
            "hands": self.hand_number,
            "rake_total": self.rake_total,
            "forfeited_total": self.forfeited_total,
            "ended_by_organiser": self.ended_by_organiser,
        }


class LiarsHoldem(Game):
    """Liar's Poker 2.0: Texas Hold'em with banknotes (RULES.md §2)."""

    name = "liars-holdem"
    title = "Liar's Poker 2.0: Texas Hold'em with banknotes"
    min_players = 3
    max_players = 8
    options_schema = OPTIONS_SCHEMA

    def public_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options without `deck` (it would reveal every hidden banknote)."""
        shown = {k: v for k, v in options.items() if k != "deck"}
        if "deck" in options:
            shown["deck_size"] = len(options["deck"]) if isinstance(options["deck"], list) else 0
        return shown

    def new_initial_state(
        self, players: Sequence[str], options: dict[str, Any], seed: int
    ) -> LiarsHoldemState:
        if not self.min_players <= len(players) <= self.max_players:
            raise InvalidOptions("Liar's Poker 2.0 is played by 3 to 8 players.")
        return LiarsHoldemState(players, parse_options(options, len(players)), seed)

    def evaluate(self, payload: dict[str, Any]) -> dict[str, Any]:
        """`{"serials": [3..5], "position": 1..7}` → the best hand (API.md); 422 when bad."""
        serials = payload.get("serials") if isinstance(payload, dict) else None
        position = payload.get("position") if isinstance(payload, dict) else None
        if not isinstance(serials, list) or not 3 <= len(serials) <= 5:
            raise InvalidOptions("`serials` must list 3 to 5 banknote serials.")
        if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= 7:
            raise InvalidOptions("`position` must be a number from 1 to 7.")
        try:
            checked = [check_serial(s) for s in serials]
        except ValueError as exc:
            raise InvalidOptions(f"`serials`: {exc}.") from exc
        return best_hand(checked, position).as_dict()


register(LiarsHoldem())
