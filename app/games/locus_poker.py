"""Locus Poker (RULES.md §4, seed `locus-poker.pl.txt`) as a rules module: `locus-poker`.

Two players; a 52-card deck dealt face up into a grid of 6×5, 6×6, 7×6 or 8×6
cards (columns × rows), shuffled by `random.Random(seed)` or given as
`options.grid` (card codes row by row: a list of rows, or one flat list whose
length picks the size). Each player has half as many chips as the grid has
cards, so the game ends when every card is used.

A turn is `{"type": "play", "row": r, "col": c, "face_down": bool}` on a card
not used yet. Turn score = hand score + bonus score (see `turn_score`).
Seat 0 plays first; turns alternate.

Decisions where the rules are silent:
- the bonus counts chips on the face-up cards of the area *other than the
  chosen card* (the chosen card is unused, so it carries no chip yet — the
  chip just placed does not count for itself); chips on face-down (dead) cards
  do not count; chips of both players count (RULES.md I-20);
- a straight may run A-2-3-4-5 or 10-J-Q-K-A (ace low or high, no wrap);
- the face-down joker may stand for any card, including one visible in the
  area; five equal ranks count as four of a kind (no five of a kind);
- with `opponent: "greedy"` seat 1 is the computer: after each move of seat 0
  it plays at once, inside the same `apply_action`, the move with the highest
  turn score; ties go to the first cell in row-major order, face up before
  face down. Its moves are in the state's turn list (`"auto": true`), and
  replaying seat 0's actions rebuilds them exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

from app.games.base import Action, Game, GameState, IllegalAction, InvalidOptions, register
from app.poker import cards as poker_cards
from app.poker.cards import RANKS, SUITS, CardError

# The 52 cards of this game (no jokers), canonical codes of app.poker.cards.
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)

# Grid sizes as columns × rows (RULES.md §4), keyed by the option value.
GRID_SIZES: dict[str, tuple[int, int]] = {
    "6x5": (6, 5),
    "6x6": (6, 6),
    "7x6": (7, 6),
    "8x6": (8, 6),
}
DEFAULT_GRID_SIZE = "6x5"

# Hand scores (RULES.md §4); the categories use the names of the poker evaluator.
HAND_SCORES: dict[str, int] = {
    "straight_flush": 11,
    "four_of_a_kind": 10,
    "full_house": 9,
    "flush": 8,
    "straight": 7,
    "three_of_a_kind": 5,
    "two_pair": 4,
    "one_pair": 2,
    "nothing": 0,
}
ORTHOGONAL_BONUS = 2
DIAGONAL_BONUS = 1
MAX_BONUS = 12
JOKER = "??"  # how the face-down chosen card appears in a scoring area


def parse_card(text: Any) -> str:
    """The canonical code of one of the 52 cards, in any notation of API.md ("Q♥" → "QH").

    Raises CardError (422 `invalid_card`) for anything else, jokers included: this
    game is played with a 52-card deck (RULES.md §4).
    """
    code = poker_cards.parse_card(text)
    if poker_cards.is_joker(code):
        raise CardError(f"{text!r}: jokers are not cards of Locus Poker.", token=str(text))
    return code


def display(code: str) -> str:
    """Display form of a canonical code: `Q♥`, `10♠`."""
    return poker_cards.display(code)


_rank = poker_cards.rank_value


# Five consecutive rank bits, lowest A-2-3-4-5 (the ace is also bit 1) to 10-J-Q-K-A.
_RUNS = tuple(0b11111 << low for low in range(1, 11))


def _has_run(mask: int) -> bool:
    """Five consecutive ranks in a rank bit mask (bit r for rank r; ace high or low)."""
    if mask & (1 << 14):
        mask |= 1 << 1
    return any(mask & run == run for run in _RUNS)


def _category(cards: Sequence[str]) -> str:
    counts = Counter(_rank(c) for c in cards)
    suit_masks: dict[str, int] = {}
    suit_sizes: Counter[str] = Counter()
    for c in cards:
        suit_masks[c[1]] = suit_masks.get(c[1], 0) | (1 << _rank(c))
        suit_sizes[c[1]] += 1
    if any(_has_run(mask) for mask in suit_masks.values()):
        return "straight_flush"
    most = max(counts.values(), default=0)
    if most >= 4:
        return "four_of_a_kind"
    triples = [r for r, n in counts.items() if n >= 3]
    pairs = [r for r, n in counts.items() if n >= 2]
    if triples and len(pairs) >= 2:
        return "full_house"
    if any(n >= 5 for n in suit_sizes.values()):
        return "flush"
    if _has_run(sum(1 << r for r in counts)):
        return "straight"
    if triples:
        return "three_of_a_kind"
    if len(pairs) >= 2:
        return "two_pair"
    if pairs:
        return "one_pair"
    return "nothing"


def hand_category(cards: Sequence[str], jokers: int = 0) -> str:
    """Best category made from any of `cards` plus `jokers` wild cards (RULES.md §4, I-19).

    `cards` are canonical codes (at most 9: a scoring area). The best
    combination may use any subset of the cards, so the chosen card need not
    be part of it. Five equal ranks count as four of a kind. Results are
    memoised by the set of cards (a pure function; areas repeat across turns).
    """
    return _best_category(frozenset(cards), jokers)


@lru_cache(maxsize=1 << 14)
def _best_category(cards: frozenset[str], jokers: int) -> str:
    if jokers <= 0:
        return _category(list(cards))
    best = "nothing"
    for card in DECK:
        category = _best_category(cards | {card}, jokers - 1)
        if HAND_SCORES[category] > HAND_SCORES[best]:
            best = category
            if best == "straight_flush":
                break  # nothing scores more
    return best


def bonus_score(orthogonal: int, diagonal: int) -> int:
    """2 per chip on an orthogonal neighbour, 1 per diagonal one, at most 12 (RULES.md §4)."""
    return min(MAX_BONUS, ORTHOGONAL_BONUS * orthogonal + DIAGONAL_BONUS * diagonal)


def turn_score(
    area: Sequence[str], face_down: bool, orthogonal: int, diagonal: int
) -> dict[str, Any]:
    """Score of one turn from its scoring area (RULES.md §4).

    `area` lists the codes of the chosen card (first) and of its face-up
    neighbours; with `face_down` the first is the joker and its code is not
    used. Returns `{"category", "hand_score", "bonus_score", "score"}`.
    """
    cards = list(area[1:]) if face_down else list(area)
    category = hand_category(cards, 1 if face_down else 0)
    hand = HAND_SCORES[category]
    bonus = bonus_score(orthogonal, diagonal)
    return {"category": category, "hand_score": hand, "bonus_score": bonus, "score": hand + bonus}


def _grid_from_option(grid: Any) -> tuple[int, int, list[str]]:
    """(columns, rows, codes row by row) of an explicit grid; raises InvalidOptions."""
    if not isinstance(grid, list) or not grid:
        raise InvalidOptions("options.grid must be a list of rows or a flat list of card codes")
    if all(isinstance(row, list) for row in grid):
        rows = len(grid)
        cols = len(grid[0])
        if any(len(row) != cols for row in grid):
            raise InvalidOptions("every row of options.grid must have the same length")
        flat = [code for row in grid for code in row]
        allowed = set(GRID_SIZES.values()) | {(r, c) for c, r in GRID_SIZES.values()}
        if (cols, rows) not in allowed:
            raise InvalidOptions("options.grid must be 6x5, 6x6, 7x6 or 8x6 cards (either way)")
    else:
        flat = grid
        sizes = {c * r: (c, r) for c, r in GRID_SIZES.values()}
        if len(flat) not in sizes:
            raise InvalidOptions("a flat options.grid must hold 30, 36, 42 or 48 cards")
        cols, rows = sizes[len(flat)]
    try:
        codes = [parse_card(code) for code in flat]
    except CardError as exc:
        raise InvalidOptions(f"options.grid: {exc}") from exc
    if len(set(codes)) != len(codes):
        raise InvalidOptions("options.grid holds the same card twice")
    return cols, rows, codes


class LocusPokerState(GameState):
    """One game of Locus Poker on a grid of `cols` × `rows` cards."""

    def __init__(self, players: Sequence[str], options: dict[str, Any], seed: int) -> None:
        self.players = list(players)
        self.opponent: str | None = options.get("opponent")
        if "grid" in options:
            self.cols, self.rows, self.cards = _grid_from_option(options["grid"])
            self.grid_size = f"{self.cols}x{self.rows}"
        else:
            self.grid_size = options.get("grid_size", DEFAULT_GRID_SIZE)
            self.cols, self.rows = GRID_SIZES[self.grid_size]
            deck = list(DECK)
            random.Random(seed).shuffle(deck)
            self.cards = deck[: self.cols * self.rows]
        n = self.cols * self.rows
        self.chips_per_player = n // 2
        self.chips_left = [self.chips_per_player, self.chips_per_player]
        self.scores = [0, 0]
        # played[i]: None, or {"player", "face_down", "turn"} for the card at index i.
        self.played: list[dict[str, Any] | None] = [None] * n
        self.turns: list[dict[str, Any]] = []
        self.current = 0

    # -- geometry and scoring --------------------------------------------------

    def _neighbours(self, row: int, col: int) -> list[tuple[int, int, bool]]:
        """(row, col, orthogonal?) of the up to 8 cells around (row, col)."""
        cells = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = row + dr, col + dc
                if (dr or dc) and 0 <= r < self.rows and 0 <= c < self.cols:
                    cells.append((r, c, dr == 0 or dc == 0))
        return cells

    def score_move(self, row: int, col: int, face_down: bool) -> dict[str, Any]:
        """What playing (row, col) face up or down would score now (RULES.md §4, I-19, I-20).

        The scoring area is the chosen card and its neighbours that are not
        dead (played face down); the bonus counts neighbours that carry a chip
        face up. Returns `turn_score`'s dict plus `area` (codes, `??` for the
        joker), `orthogonal` and `diagonal`.
        """
        area = [self.cards[row * self.cols + col]]
        orthogonal = diagonal = 0
        for r, c, is_orthogonal in self._neighbours(row, col):
            index = r * self.cols + c
            mark = self.played[index]
            if mark is not None and mark["face_down"]:
                continue  # dead card: never counts again
            area.append(self.cards[index])
            if mark is not None:
                if is_orthogonal:
                    orthogonal += 1
                else:
                    diagonal += 1
        scored = turn_score(area, face_down, orthogonal, diagonal)
        shown = [JOKER, *area[1:]] if face_down else area
        return {**scored, "area": shown, "orthogonal": orthogonal, "diagonal": diagonal}

    def _free_cells(self) -> list[tuple[int, int]]:
        return [
            (i // self.cols, i % self.cols) for i, mark in enumerate(self.played) if mark is None
        ]

    def greedy_move(self) -> Action:
        """The move with the highest turn score; ties: row-major order, face up first."""
        best: tuple[int, Action] | None = None
        for row, col in self._free_cells():
            for face_down in (False, True):
                score = self.score_move(row, col, face_down)["score"]
                if best is None or score > best[0]:
                    best = (score, {"type": "play", "row": row, "col": col, "face_down": face_down})
        assert best is not None
        return best[1]

    # -- interface -------------------------------------------------------------

    def current_players(self) -> list[int]:
        return [] if self.is_over() else [self.current]

    def legal_actions(self, player: int) -> list[Action]:
        if self.is_over() or player != self.current:
            return []
        return [
            {"type": "play", "row": row, "col": col, "face_down": face_down}
            for row, col in self._free_cells()
            for face_down in (False, True)
        ]

    def apply_action(self, player: int, action: Action) -> None:
        """Place a chip; with the greedy opponent its reply follows. Raises IllegalAction."""
        self._check(player, action)
        self._play(player, action["row"], action["col"], action["face_down"], auto=False)
        if self.opponent == "greedy" and not self.is_over() and self.current == 1:
            move = self.greedy_move()
            self._play(1, move["row"], move["col"], move["face_down"], auto=True)

    def _check(self, player: int, action: Action) -> None:
        def illegal(detail: str) -> IllegalAction:
            return IllegalAction(detail, self.legal_actions(player))

        if self.is_over():
            raise illegal("the game is over")
        if player != self.current:
            raise illegal(f"it is not player {player}'s turn")
        if not isinstance(action, dict) or action.get("type") != "play":
            raise illegal("the only action is {'type': 'play', 'row', 'col', 'face_down'}")
        row, col, face_down = action.get("row"), action.get("col"), action.get("face_down")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (row, col)):
            raise illegal("row and col must be integers")
        if not isinstance(face_down, bool):
            raise illegal("face_down must be true or false")
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise illegal(f"({row}, {col}) is outside the {self.cols}x{self.rows} grid")
        if self.played[row * self.cols + col] is not None:
            raise illegal(f"the card at ({row}, {col}) is already used")

    def _play(self, player: int, row: int, col: int, face_down: bool, auto: bool) -> None:
        scored = self.score_move(row, col, face_down)
        index = row * self.cols + col
        self.played[index] = {"player": player, "face_down": face_down, "turn": len(self.turns)}
        self.chips_left[player] -= 1
        self.scores[player] += scored["score"]
        self.turns.append(
            {
                "player": player,
                "row": row,
                "col": col,
                "card": self.cards[index],
                "face_down": face_down,
                "auto": auto,
                **scored,
                "total": self.scores[player],
            }
        )
        self.current = 1 - player

    def is_over(self) -> bool:
        return self.chips_left == [0, 0]

    def view(self, player: int | None) -> dict[str, Any]:
        """The table (everything is public: the grid was dealt face up)."""
        grid = [
            [
                {
                    "card": self.cards[r * self.cols + c],
                    "display": display(self.cards[r * self.cols + c]),
                    "played": self.played[r * self.cols + c],
                }
                for c in range(self.cols)
            ]
            for r in range(self.rows)
        ]
        return {
            "module": "locus-poker",
            "players": self.players,
            "options": {"grid_size": self.grid_size, "opponent": self.opponent},
            "cols": self.cols,
            "rows": self.rows,
            "grid": grid,
            "chips_per_player": self.chips_per_player,
            "chips_left": list(self.chips_left),
            "scores": list(self.scores),
            "current_player": None if self.is_over() else self.current,
            "turns": self.turns,
            "result": self.result(),
        }

    def result(self) -> dict[str, Any] | None:
        """Scores and the winner (None for a draw on equal totals) once all chips are placed."""
        if not self.is_over():
            return None
        a, b = self.scores
        winner = None if a == b else (0 if a > b else 1)
        return {
            "scores": list(self.scores),
            "winner": winner,
            "draw": winner is None,
            "standings": [
                {
                    "player": p,
                    "name": self.players[p],
                    "score": self.scores[p],
                    "place": 1 if winner in (None, p) else 2,
                }
                for p in (0, 1)
            ],
        }


class LocusPoker(Game):
    """Locus Poker for two players on a grid of face-up cards (RULES.md §4)."""

    name = "locus-poker"
    title = "Locus Poker"
    min_players = 2
    max_players = 2
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "grid_size": {
                "enum": list(GRID_SIZES),
                "default": DEFAULT_GRID_SIZE,
                "description": "columns x rows of a digital grid shuffled from the seed",
            },
            "grid": {
                "type": "array",
                "description": "physical grid: card codes row by row (a list of rows, or a "
                "flat list of 30, 36, 42 or 48 codes); replaces the seed",
            },
            "opponent": {
                "enum": [None, "greedy"],
                "default": None,
                "description": "greedy: seat 1 is the computer and maximises its turn score",
            },
        },
    }

    def new_initial_state(
        self, players: Sequence[str], options: dict[str, Any], seed: int
    ) -> LocusPokerState:
        """A new game; raises InvalidOptions for a bad player count, size or grid."""
        options = dict(options or {})
        if len(players) != 2:
            raise InvalidOptions("Locus Poker is for exactly 2 players")
        unknown = set(options) - set(self.options_schema["properties"])
        if unknown:
            raise InvalidOptions(f"unknown options: {', '.join(sorted(unknown))}")
        if options.get("grid_size", DEFAULT_GRID_SIZE) not in GRID_SIZES:
            raise InvalidOptions("options.grid_size must be one of 6x5, 6x6, 7x6, 8x6")
        if options.get("opponent") not in (None, "greedy"):
            raise InvalidOptions("options.opponent must be 'greedy' or absent")
        if "grid" in options:
            _grid_from_option(options["grid"])
        return LocusPokerState(players, options, seed)

    def evaluate(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Score of one turn from its scoring area (API.md).

        `{"cards": [codes, the chosen card first], "face_down": bool, "chips":
        {"orthogonal": n, "diagonal": m}}` → `{"category", "hand_score",
        "bonus_score", "score"}`. With `face_down` the first code is ignored.
        Raises InvalidOptions for bad cards (1 to 9, distinct) or chip counts (0..4).
        """
        if not isinstance(payload, dict):
            raise InvalidOptions("the payload must be an object")
        cards, face_down = payload.get("cards"), payload.get("face_down", False)
        if not isinstance(cards, list) or not 1 <= len(cards) <= 9:
            raise InvalidOptions("cards must list 1 to 9 card codes, the chosen card first")
        if not isinstance(face_down, bool):
            raise InvalidOptions("face_down must be true or false")
        try:
            codes = [parse_card(c) for c in (cards[1:] if face_down else cards)]
        except CardError as exc:
            raise InvalidOptions(str(exc)) from exc
        if len(set(codes)) != len(codes):
            raise InvalidOptions("a card appears twice in the scoring area")
        chips = payload.get("chips", {}) or {}
        if not isinstance(chips, dict):
            raise InvalidOptions("chips must be {'orthogonal': n, 'diagonal': m}")
        counts = []
        for key in ("orthogonal", "diagonal"):
            n = chips.get(key, 0)
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 4:
                raise InvalidOptions(f"chips.{key} must be an integer from 0 to 4")
            counts.append(n)
        area = [JOKER, *codes] if face_down else codes
        return turn_score(area, face_down, counts[0], counts[1])


register(LocusPoker())
