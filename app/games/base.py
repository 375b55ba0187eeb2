"""The common interface of rules modules (RULES.md §2–§4, API.md "Extra games").

Modelled on OpenSpiel and pokerkit: a `Game` is the rules plus parameters; a
`GameState` is one playthrough. Everything here is pure and deterministic:
the same players, options, seed and action log always rebuild the same state,
so a game is stored as its action log and rebuilt by `replay`.

- Randomness comes only from the `seed` given to `new_initial_state` (use
  `random.Random(seed)` kept inside the state); physical equipment (banknote
  serials, a card grid, dice values typed in) replaces it (RULES.md I-11).
- Actions are JSON-able dicts with a `"type"` key, e.g. `{"type": "call"}`.
- Players are seat indices 0..n-1 in the order given at creation.
- `view(None)` is the public view; `view(i)` adds what player i may see and
  nothing that another player may not reveal to them.
- Optional hooks (with defaults, so a module need not implement them):
  `private_information()` names each seat's secrets for the shared conformance
  test (tests/games/test_conformance.py); `organiser_actions()` /
  `apply_organiser_action()` are actions of the table or organiser rather than of a
  seat (e.g. ending the game early); in a log they are stored with player `None`;
  `sample_action()` turns a `legal_actions` entry into a concrete action;
  `Game.public_options()` hides options that would reveal hidden cards.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from app.core.errors import AppError

Action = dict[str, Any]


class IllegalAction(AppError):
    """An action the rules do not allow now: 409, `code` illegal_action, with the legal ones."""

    status, code = 409, "illegal_action"

    def __init__(self, detail: str, legal_actions: Sequence[Action] = ()) -> None:
        super().__init__(detail, legal_actions=list(legal_actions))
        self.legal_actions = list(legal_actions)


class InvalidOptions(AppError):
    """Options or players that a module cannot start a game with: 422, `invalid_options`."""

    status, code = 422, "invalid_options"


class GameState(ABC):
    """One playthrough. Mutated only through `apply_action`."""

    @abstractmethod
    def current_players(self) -> list[int]:
        """Seats that may act now (empty when the game is over)."""

    @abstractmethod
    def legal_actions(self, player: int) -> list[Action]:
        """Every action `player` may take now; for parameterised actions (a bet amount)
        one entry describing the allowed range, e.g. `{"type": "raise", "min": 4, "max": 90}`."""

    @abstractmethod
    def apply_action(self, player: int, action: Action) -> None:
        """Check and apply `action` by `player`. Raises IllegalAction (with the legal list)."""

    @abstractmethod
    def view(self, player: int | None) -> dict[str, Any]:
        """What `player` sees (None: the public view). JSON-able."""

    @abstractmethod
    def is_over(self) -> bool:
        """True when no more actions can be taken."""

    @abstractmethod
    def result(self) -> dict[str, Any] | None:
        """Final standings when the game is over, else None. JSON-able."""

    def private_information(self) -> dict[int, list[str]]:
        """For each seat, the strings only that seat may see now (its hidden cards).

        Used by the conformance test: none of them may appear in the public view or in
        another seat's view. Default: no hidden information.
        """
        return {}

    def sample_action(self, descriptor: Action, rng: random.Random) -> Action:
        """A concrete action for one entry of `legal_actions` (conformance tests, bots).

        Default: the entry without its descriptive keys; a `min`/`max` range becomes an
        `amount` drawn from it. Override when a module's descriptors differ.
        """
        action = {k: v for k, v in descriptor.items() if k not in ("min", "max")}
        if "min" in descriptor and "max" in descriptor:
            action["amount"] = rng.randint(descriptor["min"], descriptor["max"])
        return action

    def organiser_actions(self) -> list[Action]:
        """Actions the table/organiser (not a seat) may take now, e.g. `{"type": "end"}`."""
        return []

    def apply_organiser_action(self, action: Action) -> None:
        """Apply a table/organiser action. Raises IllegalAction (default: none are legal)."""
        raise IllegalAction("No organiser action is possible now.", self.organiser_actions())


class Game(ABC):
    """A rules module: metadata, option checking, new states, and its open scoring tool."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_schema: ClassVar[dict[str, Any]]  # JSON Schema of `options`

    def metadata(self) -> dict[str, Any]:
        return {
            "module": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options_schema": self.options_schema,
        }

    def public_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options as anyone may see them while the game runs.

        Override to hide equipment that reveals hidden cards (e.g. a banknote deck in
        dealing order). Default: all options are public.
        """
        return options

    @abstractmethod
    def new_initial_state(
        self, players: Sequence[str], options: dict[str, Any], seed: int
    ) -> GameState:
        """A new game. Raises InvalidOptions for bad options or player count."""

    @abstractmethod
    def evaluate(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The module's open scoring tool (API.md). Raises InvalidOptions for bad input."""


def replay(
    game: Game,
    players: Sequence[str],
    options: dict[str, Any],
    seed: int,
    actions: Iterable[tuple[int | None, Action]],
) -> GameState:
    """Rebuild a state from its creation parameters and its (player, action) log.

    A `None` player marks a table/organiser action (`apply_organiser_action`).
    """
    state = game.new_initial_state(players, options, seed)
    for player, action in actions:
        if player is None:
            state.apply_organiser_action(action)
        else:
            state.apply_action(player, action)
    return state


REGISTRY: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a module to the registry under its `name`."""
    REGISTRY[game.name] = game
    return game
