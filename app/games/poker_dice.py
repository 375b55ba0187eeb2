"""Poker dice (RULES.md §3, seed `poker-dice.ru.txt`) as a rules module: `poker-dice`.

Phases of a game:

1. **Roll-off** (RULES.md I-16): every player, in entry order, rolls all five
   dice once (`{"type": "roll"}`); the highest total starts. If several players
   share the highest total, only they roll again. After the starter, turns go
   on in entry order (cyclically). A one-player game skips the roll-off.
2. **Play**: the current player rolls up to three times. The first roll of a
   turn rolls all five dice; each later roll keeps the dice whose indices
   (0..4) are listed in `keep` and rolls the others
   (`{"type": "roll", "keep": [0, 3]}`). After any roll the player may write
   the dice into one empty cell of their sheet (`{"type": "score", "cell":
   "fours"}`); after the third roll that is the only thing left to do. Series 1
   must be complete before a cell of series 2 is written (I-17).
3. **Over** when every cell of every sheet is filled.

Dice: digital (default, `options.dice = "digital"`) come from
`random.Random(seed)` kept in the state; with `options.dice = "physical"` the
roll action carries the five values (`"dice": [..]`, index order) and a kept
die must show the same value as before (RULES.md I-11).

Decisions where the rules are silent:
- "made on the first roll" means the result is written after exactly one roll
  of the turn (dice re-rolled since then were not all thrown at once);
- a roll must roll at least one die (`keep` lists at most four indices);
- two pairs and full house need two *different* values, so five of a kind is
  neither; four of a kind counts as a pair, three of a kind or four of a kind;
- the 50-point premium is shown once series 1 is complete.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any, ClassVar

from app.games.base import Action, Game, GameState, IllegalAction, InvalidOptions, register

N_DICE = 5
FACES = (1, 2, 3, 4, 5, 6)
MAX_ROLLS = 3

SERIES_1: tuple[str, ...] = ("ones", "twos", "threes", "fours", "fives", "sixes")
SERIES_2: tuple[str, ...] = (
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "small_straight",
    "large_straight",
    "full_house",
    "four_of_a_kind",
    "poker",
    "chance",
)
CELLS: tuple[str, ...] = SERIES_1 + SERIES_2
# The 17 columns of the score sheet (RULES.md §3).
COLUMNS: tuple[str, ...] = (*SERIES_1, "subtotal", *SERIES_2, "total")
FACE_OF_CELL = {cell: face for face, cell in zip(FACES, SERIES_1, strict=True)}

SUBTOTAL_PREMIUM = 50
POKER_PREMIUM = 50
EXCESS_SCORING = ("seed", "per_extra_die")
DICE_MODES = ("digital", "physical")
RECENT_HISTORY = 20  # events of the game shown in a view (rolls, written cells)


class DiceError(ValueError):
    """Dice or a cell name that are not valid (five values 1..6, a known cell)."""


def check_dice(dice: Any) -> list[int]:
    """Validate five die values 1..6. Returns them as a list; raises DiceError."""
    if (
        not isinstance(dice, list | tuple)
        or len(dice) != N_DICE
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    ):
        raise DiceError("dice must be a list of five integers from 1 to 6")
    return list(dice)


def series_1_score(dice: Sequence[int], face: int, excess_scoring: str = "seed") -> int:
    """Score of the series-1 cell of `face` for five dice (RULES.md §3, I-18).

    With c dice showing `face`: c = 3 → 0 (the figure is made); c < 3 →
    −(3 − c)·face; c > 3 → +3·face as the seed states (`excess_scoring="seed"`)
    or +(c − 3)·face (`"per_extra_die"`).
    """
    count = list(dice).count(face)
    if count < 3:
        return -(3 - count) * face
    if count == 3:
        return 0
    return 3 * face if excess_scoring == "seed" else (count - 3) * face


def series_2_base(dice: Sequence[int], cell: str) -> int | None:
    """Sum of the dice that make the series-2 combination `cell`, or None if not made.

    Best choice where several exist (RULES.md §3): pair = the two highest
    equal dice; two pairs = the two highest different pairs; full house needs
    three of one value and two of another.
    """
    counts = Counter(dice)
    values = sorted(counts, reverse=True)
    if cell == "pair":
        pairs = [v for v in values if counts[v] >= 2]
        return 2 * pairs[0] if pairs else None
    if cell == "two_pairs":
        pairs = [v for v in values if counts[v] >= 2]
        return 2 * pairs[0] + 2 * pairs[1] if len(pairs) >= 2 else None
    if cell == "three_of_a_kind":
        triples = [v for v in values if counts[v] >= 3]
        return 3 * triples[0] if triples else None
    if cell == "small_straight":
        return 15 if sorted(dice) == [1, 2, 3, 4, 5] else None
    if cell == "large_straight":
        return 20 if sorted(dice) == [2, 3, 4, 5, 6] else None
    if cell == "full_house":
        return sum(dice) if sorted(counts.values()) == [2, 3] else None
    if cell == "four_of_a_kind":
        fours = [v for v in values if counts[v] >= 4]
        return 4 * fours[0] if fours else None
    if cell == "poker":
        return 5 * values[0] if len(counts) == 1 else None
    if cell == "chance":
        return sum(dice)
    raise DiceError(f"unknown cell {cell!r}")


def cell_score(
    dice: Sequence[int], cell: str, first_roll: bool = False, excess_scoring: str = "seed"
) -> int:
    """What writing `dice` into `cell` scores (RULES.md §3).

    Series 1: `series_1_score`. Series 2: the sum of the dice making the
    combination, doubled when made on the turn's first roll (not chance), poker
    +50 after doubling; a combination not made scores 0 (crossed out).
    Raises DiceError for bad dice or an unknown cell.
    """
    dice = check_dice(dice)
    if cell in FACE_OF_CELL:
        return series_1_score(dice, FACE_OF_CELL[cell], excess_scoring)
    if cell not in SERIES_2:
        raise DiceError(f"unknown cell {cell!r}")
    base = series_2_base(dice, cell)
    if base is None:
        return 0
    score = base * 2 if first_roll and cell != "chance" else base
    if cell == "poker":
        score += POKER_PREMIUM
    return score


def subtotal_premium(subtotal: int) -> int:
    """The series-1 premium: 50 when the subtotal is ≥ 0, else 0 (RULES.md §3)."""
    return SUBTOTAL_PREMIUM if subtotal >= 0 else 0


def sheet_totals(cells: dict[str, int | None]) -> dict[str, int | None]:
    """Subtotal, premium (None until series 1 is complete), series-2 sum and total of a sheet."""
    subtotal = sum(cells[c] or 0 for c in SERIES_1)
    complete_1 = all(cells[c] is not None for c in SERIES_1)
    premium = subtotal_premium(subtotal) if complete_1 else None
    series_2 = sum(cells[c] or 0 for c in SERIES_2)
    return {
        "subtotal": subtotal,
        "premium": premium,
        "series_2": series_2,
        "total": subtotal + (premium or 0) + series_2,
    }


def places(totals: Sequence[int]) -> list[int]:
    """Place of each total, highest first; equal totals share a place (1, 1, 3)."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def _check_keep(keep: Any) -> list[int]:
    if keep is None:
        return []
    if not isinstance(keep, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in keep
    ):
        raise IllegalAction("keep must be a list of die indices 0..4")
    if len(set(keep)) != len(keep) or any(not 0 <= i < N_DICE for i in keep):
        raise IllegalAction("keep must list distinct die indices 0..4")
    return sorted(keep)


class PokerDiceState(GameState):
    """One game of poker dice: roll-off, then turns until every sheet is full."""

    def __init__(self, players: Sequence[str], options: dict[str, Any], seed: int) -> None:
        self.players = list(players)
        self.dice_mode: str = options.get("dice", "digital")
        self.excess_scoring: str = options.get("excess_scoring", "seed")
        self.rng = random.Random(seed)
        n = len(self.players)
        self.sheets: list[dict[str, int | None]] = [dict.fromkeys(CELLS) for _ in range(n)]
        self.history: list[dict[str, Any]] = []
        # Roll-off (RULES.md I-16).
        self.roll_off_rounds: list[list[dict[str, Any]]] = []
        self.contenders: list[int] = list(range(n))
        self.roll_off_rolls: list[dict[str, Any]] = []
        self.starter: int | None = None
        # Play.
        self.order: list[int] = []
        self.turn_index = 0
        self.dice: list[int] | None = None
        self.rolls = 0
        self.phase = "roll_off"
        if n == 1:
            self._start_play(0)

    # -- helpers ---------------------------------------------------------------

    def _start_play(self, starter: int) -> None:
        n = len(self.players)
        self.starter = starter
        self.order = [(starter + k) % n for k in range(n)]
        self.turn_index = 0
        self.phase = "play"

    def _current(self) -> int | None:
        if self.phase == "roll_off":
            return self.contenders[len(self.roll_off_rolls)]
        if self.phase == "play":
            return self.order[self.turn_index % len(self.order)]
        return None

    def _dice_descriptor(self) -> dict[str, int]:
        return {"count": N_DICE, "min": 1, "max": 6}

    def _roll_values(self, action: Action, keep: list[int]) -> list[int]:
        """New dice for a roll: from the RNG, or the physical values checked against `keep`."""
        if self.dice_mode == "digital":
            if "dice" in action:
                raise IllegalAction("dice are rolled by the service in a digital game")
            new = list(self.dice) if self.dice is not None else [0] * N_DICE
            for i in range(N_DICE):
                if i not in keep:
                    new[i] = self.rng.randint(1, 6)
            return new
        try:
            values = check_dice(action.get("dice"))
        except DiceError as exc:
            raise IllegalAction(f"a physical roll needs its dice: {exc}") from exc
        for i in keep:
            assert self.dice is not None
            if values[i] != self.dice[i]:
                raise IllegalAction(
                    f"die {i} was kept at {self.dice[i]} and cannot change to {values[i]}"
                )
        return values

    def _series_1_complete(self, player: int) -> bool:
        return all(self.sheets[player][c] is not None for c in SERIES_1)

    def _open_cells(self, player: int) -> list[str]:
        """Empty cells `player` may write into now (series 1 first, RULES.md I-17)."""
        sheet = self.sheets[player]
        cells = SERIES_1 if not self._series_1_complete(player) else SERIES_2
        return [c for c in cells if sheet[c] is None]

    # -- interface -------------------------------------------------------------

    def current_players(self) -> list[int]:
        current = self._current()
        return [] if current is None else [current]

    def legal_actions(self, player: int) -> list[Action]:
        if player != self._current():
            return []
        physical = self.dice_mode == "physical"
        if self.phase == "roll_off":
            action: Action = {"type": "roll"}
            if physical:
                action["dice"] = self._dice_descriptor()
            return [action]
        actions: list[Action] = []
        if self.rolls == 0:
            keeps: list[tuple[int, ...]] = [()]
        elif self.rolls < MAX_ROLLS:
            keeps = [k for size in range(N_DICE) for k in combinations(range(N_DICE), size)]
        else:
            keeps = []
        for keep in keeps:
            roll: Action = {"type": "roll", "keep": list(keep)}
            if physical:
                roll["dice"] = self._dice_descriptor()
            actions.append(roll)
        if self.rolls > 0:
            actions.extend({"type": "score", "cell": c} for c in self._open_cells(player))
        return actions

    def sample_action(self, descriptor: Action, rng: random.Random) -> Action:
        """A concrete action for a `legal_actions` entry: physical rolls get dice values
        (kept dice unchanged, the others drawn from `rng`)."""
        action = dict(descriptor)
        if isinstance(action.get("dice"), dict):
            keep = action.get("keep", [])
            current = self.dice or [1] * N_DICE
            action["dice"] = [current[i] if i in keep else rng.randint(1, 6) for i in range(N_DICE)]
        return action

    def apply_action(self, player: int, action: Action) -> None:
        """Roll or write a cell. Raises IllegalAction (with the legal list) and changes nothing."""
        try:
            self._apply(player, action)
        except IllegalAction as exc:
            raise IllegalAction(exc.detail, self.legal_actions(player)) from None

    def _apply(self, player: int, action: Action) -> None:
        if self.phase == "over":
            raise IllegalAction("the game is over")
        if player != self._current():
            raise IllegalAction(f"it is not player {player}'s turn")
        if not isinstance(action, dict):
            raise IllegalAction("an action is an object with a type")
        kind = action.get("type")
        if kind == "roll":
            self._roll(player, action)
        elif kind == "score" and self.phase == "play":
            self._score(player, action)
        else:
            raise IllegalAction(f"action {kind!r} is not allowed now")

    def _roll(self, player: int, action: Action) -> None:
        keep = _check_keep(action.get("keep"))
        if self.phase == "roll_off":
            if keep:
                raise IllegalAction("the roll-off rolls all five dice")
            self.dice = None
            values = self._roll_values(action, [])
            entry = {"player": player, "dice": values, "total": sum(values)}
            self.roll_off_rolls.append(entry)
            self.history.append({"type": "roll_off", **entry})
            if len(self.roll_off_rolls) == len(self.contenders):
                self._finish_roll_off_round()
            return
        if self.rolls >= MAX_ROLLS:
            raise IllegalAction("three rolls are made: write the dice into a cell")
        if self.rolls == 0 and keep:
            raise IllegalAction("the first roll of a turn rolls all five dice")
        if len(keep) == N_DICE:
            raise IllegalAction("a roll must roll at least one die")
        values = self._roll_values(action, keep)
        self.dice = values
        self.rolls += 1
        self.history.append(
            {"type": "roll", "player": player, "roll": self.rolls, "keep": keep, "dice": values}
        )

    def _finish_roll_off_round(self) -> None:
        rolls = self.roll_off_rolls
        best = max(r["total"] for r in rolls)
        tied = [r["player"] for r in rolls if r["total"] == best]
        self.roll_off_rounds.append(rolls)
        self.roll_off_rolls = []
        if len(tied) == 1:
            self._start_play(tied[0])
            self.history.append({"type": "starts", "player": tied[0]})
        else:
            self.contenders = tied

    def _score(self, player: int, action: Action) -> None:
        cell = action.get("cell")
        if self.rolls == 0 or self.dice is None:
            raise IllegalAction("roll the dice before writing a cell")
        if cell not in CELLS:
            raise IllegalAction(f"unknown cell {cell!r}")
        if self.sheets[player][cell] is not None:
            raise IllegalAction(f"cell {cell} is already filled")
        if cell in SERIES_2 and not self._series_1_complete(player):
            raise IllegalAction("series 1 must be complete before series 2 (RULES.md I-17)")
        first_roll = self.rolls == 1
        score = cell_score(self.dice, cell, first_roll, self.excess_scoring)
        self.sheets[player][cell] = score
        self.history.append(
            {
                "type": "score",
                "player": player,
                "cell": cell,
                "dice": list(self.dice),
                "first_roll": first_roll,
                "score": score,
            }
        )
        self.dice = None
        self.rolls = 0
        self.turn_index += 1
        if all(v is not None for sheet in self.sheets for v in sheet.values()):
            self.phase = "over"

    def is_over(self) -> bool:
        return self.phase == "over"

    def _sheet_view(self, player: int) -> dict[str, Any]:
        cells = dict(self.sheets[player])
        totals = sheet_totals(cells)
        columns = [
            cells[c] if c in cells else totals["subtotal"] if c == "subtotal" else totals["total"]
            for c in COLUMNS
        ]
        return {
            "player": player,
            "name": self.players[player],
            "cells": cells,
            **totals,
            "columns": columns,
        }

    def view(self, player: int | None) -> dict[str, Any]:
        """The whole table (poker dice hides nothing): sheets, the turn, the roll-off and the
        last `RECENT_HISTORY` events (the sheets hold everything that scores)."""
        current = self._current()
        turn = None
        if self.phase == "play":
            potential = {}
            if self.dice is not None:
                first = self.rolls == 1
                potential = {
                    c: cell_score(self.dice, c, first, self.excess_scoring)
                    for c in self._open_cells(current)
                }
            turn = {
                "player": current,
                "dice": self.dice,
                "rolls": self.rolls,
                "rolls_left": MAX_ROLLS - self.rolls,
                "first_roll": self.rolls == 1,
                "potential": potential,
            }
        return {
            "module": "poker-dice",
            "players": self.players,
            "options": {"dice": self.dice_mode, "excess_scoring": self.excess_scoring},
            "columns": list(COLUMNS),
            "phase": self.phase,
            "current_player": current,
            "roll_off": {
                "contenders": self.contenders,
                "rolls": self.roll_off_rolls,
                "rounds": self.roll_off_rounds,
            },
            "starting_player": self.starter,
            "order": self.order,
            "turn": turn,
            "sheets": [self._sheet_view(p) for p in range(len(self.players))],
            "history": self.history[-RECENT_HISTORY:],
            "result": self.result(),
        }

    def result(self) -> dict[str, Any] | None:
        """Standings by total; equal totals share a place (RULES.md §3)."""
        if self.phase != "over":
            return None
        totals = [sheet_totals(s)["total"] for s in self.sheets]
        ranks = places(totals)
        standings = sorted(
            (
                {"player": p, "name": self.players[p], "total": totals[p], "place": ranks[p]}
                for p in range(len(self.players))
            ),
            key=lambda s: (s["place"], s["player"]),
        )
        return {
            "standings": standings,
            "winners": [s["player"] for s in standings if s["place"] == 1],
        }


class PokerDice(Game):
    """Poker dice for any number of players at one table (RULES.md §3)."""

    name = "poker-dice"
    title = "Poker dice"
    min_players = 1
    max_players = 8  # the seed sets no limit; one shared sheet stays readable up to 8
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "dice": {
                "enum": list(DICE_MODES),
                "default": "digital",
                "description": "digital: the service rolls; physical: roll actions carry "
                "the five values and kept dice must not change (RULES.md I-11)",
            },
            "excess_scoring": {
                "enum": list(EXCESS_SCORING),
                "default": "seed",
                "description": "series 1 with more than three dice of the face: +3v as the "
                "seed states (I-18) or +(c-3)v per extra die",
            },
        },
    }

    def new_initial_state(
        self, players: Sequence[str], options: dict[str, Any], seed: int
    ) -> PokerDiceState:
        """A new game; raises InvalidOptions for a bad player count or option."""
        options = dict(options or {})
        if not self.min_players <= len(players) <= self.max_players:
            raise InvalidOptions(
                f"poker dice needs {self.min_players} to {self.max_players} players"
            )
        unknown = set(options) - set(self.options_schema["properties"])
        if unknown:
            raise InvalidOptions(f"unknown options: {', '.join(sorted(unknown))}")
        if options.get("dice", "digital") not in DICE_MODES:
            raise InvalidOptions("options.dice must be 'digital' or 'physical'")
        if options.get("excess_scoring", "seed") not in EXCESS_SCORING:
            raise InvalidOptions("options.excess_scoring must be 'seed' or 'per_extra_die'")
        return PokerDiceState(players, options, seed)

    def evaluate(self, payload: dict[str, Any]) -> dict[str, Any]:
        """`{"dice": [5 ints], "cell", "first_roll", "excess_scoring"?}` → `{"score"}` (API.md).

        Raises InvalidOptions for bad dice, an unknown cell or option.
        """
        if not isinstance(payload, dict):
            raise InvalidOptions("the payload must be an object")
        excess = payload.get("excess_scoring", "seed")
        if excess not in EXCESS_SCORING:
            raise InvalidOptions("excess_scoring must be 'seed' or 'per_extra_die'")
        first_roll = payload.get("first_roll", False)
        if not isinstance(first_roll, bool):
            raise InvalidOptions("first_roll must be true or false")
        cell = payload.get("cell")
        if cell not in CELLS:
            raise InvalidOptions(f"cell must be one of {', '.join(CELLS)}")
        try:
            score = cell_score(payload.get("dice"), cell, first_roll, excess)
        except DiceError as exc:
            raise InvalidOptions(str(exc)) from exc
        return {"score": score}


register(PokerDice())
