"""Every rules module in REGISTRY passes the same checks (STYLE.md: OpenSpiel-style).

- random playouts through `legal_actions` (`sample_action` picks concrete amounts
  within the advertised ranges) never raise and keep `current_players` consistent;
- every sampled action is legal, and an action not offered raises IllegalAction
  listing exactly the legal actions;
- replay determinism: the same seed and log rebuild the same views;
- no hidden information: a seat's `private_information()` appears in no other
  seat's view and not in the public view (compared as JSON strings).

A module whose default options make long games can be given small ones in
`PLAYOUT_OPTIONS`.
"""

from __future__ import annotations

import json
import random

import pytest

from app.games.base import REGISTRY, IllegalAction, replay
from app.games.registry import load_modules

load_modules()
MODULES = sorted(REGISTRY)
PLAYOUT_OPTIONS: dict[str, dict] = {"liars-holdem": {"starting_stack": 80}}
MAX_STEPS = 400
SEEDS = range(6)


def players(module: str, count: int | None = None) -> list[str]:
    game = REGISTRY[module]
    n = count or max(game.min_players, min(4, game.max_players))
    return [f"P{i}" for i in range(n)]


def views(state, n: int) -> list[str]:
    return [json.dumps(state.view(p), sort_keys=True) for p in [None, *range(n)]]


def playout(module: str, seed: int, n: int | None = None):
    game = REGISTRY[module]
    names = players(module, n)
    options = PLAYOUT_OPTIONS.get(module, {})
    state = game.new_initial_state(names, options, seed)
    rng = random.Random(seed)
    log = []
    for _ in range(MAX_STEPS):
        if state.is_over():
            break
        current = state.current_players()
        assert current, "a running game has someone to act"
        player = rng.choice(current)
        legal = state.legal_actions(player)
        assert legal, f"seat {player} may act but has no legal action"
        for other in range(len(names)):
            if other not in current:
                assert state.legal_actions(other) == []
        action = state.sample_action(rng.choice(legal), rng)
        state.apply_action(player, action)
        log.append((player, action))
        json.dumps(state.view(None))
        check_hidden(state, len(names))
    return game, names, options, state, log


def check_hidden(state, n: int) -> None:
    secrets = state.private_information()
    if not secrets:
        return
    shown = views(state, n)
    for seat, items in secrets.items():
        for item in items:
            needle = json.dumps(item)
            assert needle not in shown[0], f"seat {seat}'s {item} is in the public view"
            for other in range(n):
                if other != seat:
                    assert needle not in shown[other + 1], (
                        f"seat {seat}'s {item} is in seat {other}'s view"
                    )


@pytest.mark.parametrize("module", MODULES)
def test_metadata(module: str) -> None:
    game = REGISTRY[module]
    data = game.metadata()
    assert data["module"] == module
    assert 1 <= data["min_players"] <= data["max_players"]
    assert data["options_schema"].get("type") == "object"


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_playout_and_replay(module: str, seed: int) -> None:
    game, names, options, state, log = playout(module, seed)
    rebuilt = replay(game, names, options, seed, log)
    assert views(rebuilt, len(names)) == views(state, len(names))
    assert rebuilt.is_over() == state.is_over()
    assert json.dumps(rebuilt.result(), sort_keys=True) == json.dumps(
        state.result(), sort_keys=True
    )
    if state.is_over():
        assert state.current_players() == []
        assert state.result() is not None
    else:
        assert state.result() is None


@pytest.mark.parametrize("module", MODULES)
def test_playouts_with_most_players_end_or_progress(module: str) -> None:
    game = REGISTRY[module]
    log = playout(module, 99, game.max_players)[4]
    assert log, "a game with the most players can be played"


@pytest.mark.parametrize("module", MODULES)
def test_illegal_actions_list_the_legal_ones(module: str) -> None:
    game = REGISTRY[module]
    names = players(module)
    state = game.new_initial_state(names, PLAYOUT_OPTIONS.get(module, {}), 1)
    rng = random.Random(1)
    for _ in range(30):
        if state.is_over():
            break
        current = state.current_players()
        player = current[0]
        legal = state.legal_actions(player)
        before = views(state, len(names))
        with pytest.raises(IllegalAction) as caught:
            state.apply_action(player, {"type": "no-such-action-type"})
        assert caught.value.status == 409 and caught.value.code == "illegal_action"
        assert caught.value.legal_actions == legal
        assert views(state, len(names)) == before, "a refused action changes nothing"
        waiting = [s for s in range(len(names)) if s not in current]
        if waiting:
            with pytest.raises(IllegalAction) as out_of_turn:
                state.apply_action(waiting[0], state.sample_action(legal[0], rng))
            assert out_of_turn.value.legal_actions == []
        state.apply_action(player, state.sample_action(rng.choice(legal), rng))
