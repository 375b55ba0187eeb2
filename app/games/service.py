"""Games service: create a game, rebuild it from its log, append actions, build views.

A game's state is never stored: it is rebuilt by replaying the append-only action
log (`app.games.base.replay`). Appending is optimistic: the new row's `seq` is the
number of earlier actions, and `(game_id, seq)` is unique, so of two concurrent
writers one fails with 409 `action_conflict` and may retry on the fresh state.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.errors import AppError, Conflict, Forbidden, NotFound, Unauthorized
from app.core.principal import Kind, Principal
from app.core.security import hash_token, new_token
from app.core.types import PlayerName
from app.games import repository
from app.games.base import Action, GameState, IllegalAction, InvalidOptions, replay
from app.games.base import Game as RulesModule
from app.games.models import Game, GameAction, GamePlayer
from app.games.registry import load_modules

SEED_BITS = 53  # a seed stays exact as a JSON number in every client
PLAYER_NAMES = TypeAdapter(list[PlayerName])


def role_of(viewer: Principal) -> str:
    """What `viewer` is to a game it was admitted to (`app.games.deps.game_viewer`):
    `table` (the table token or the organiser), `player` (a seat's token, `viewer.seat`)
    or `public`."""
    if viewer.is_organiser or viewer.kind is Kind.TABLE:
        return "table"
    if viewer.kind is Kind.GAME_SEAT:
        return "player"
    return "public"


def modules() -> dict[str, RulesModule]:
    """Every registered rules module by name."""
    return load_modules()


def module(name: str) -> RulesModule:
    """The rules module `name`; 404 problem `module_not_found` when unknown."""
    found = modules().get(name)
    if found is None:
        raise NotFound(f"There is no game module {name!r}.", code="module_not_found")
    return found


@dataclass
class Loaded:
    """A game with its seats, rebuilt state and the number of logged actions."""

    game: Game
    rules: RulesModule
    seats: list[GamePlayer]
    state: GameState
    seq: int


def create_game(
    session: Session,
    module_name: str,
    players: list[str],
    options: dict[str, Any],
    seed: int | None,
) -> tuple[Loaded, list[str], str]:
    """Create a game; returns it with the player tokens (seat order) and the table token.

    Raises NotFound (`module_not_found`) and InvalidOptions (422) for a player count
    outside the module's range, blank names or options the module refuses.
    Tokens are returned once and stored hashed.
    """
    rules = module(module_name)
    try:
        names = PLAYER_NAMES.validate_python(players)
    except ValidationError as exc:
        raise InvalidOptions(
            "Every player needs a name of at most 60 characters, without NUL."
        ) from exc
    if not rules.min_players <= len(names) <= rules.max_players:
        raise InvalidOptions(
            f"{rules.title} is played by {rules.min_players} to {rules.max_players} players."
        )
    if seed is None:
        seed = secrets.randbits(SEED_BITS)
    state = rules.new_initial_state(names, options, seed)  # raises InvalidOptions
    table_token = new_token()
    game = Game(
        module=module_name,
        players=names,
        options=options,
        seed=seed,
        table_token_hash=hash_token(table_token),
    )
    session.add(game)
    session.flush()
    tokens = []
    seats = []
    for seat, name in enumerate(names):
        token = new_token()
        tokens.append(token)
        player = GamePlayer(game_id=game.id, seat=seat, name=name, token_hash=hash_token(token))
        session.add(player)
        seats.append(player)
    session.flush()
    return Loaded(game, rules, seats, state, 0), tokens, table_token


def load(session: Session, game_id: int) -> Loaded:
    """The game `game_id` rebuilt from its log; 404 problem `game_not_found` when absent."""
    game = repository.get_game(session, game_id)
    if game is None:
        raise NotFound(f"Game {game_id} does not exist.", code="game_not_found")
    rules = module(game.module)
    log = repository.actions(session, game.id)
    state = replay(rules, game.players, game.options, game.seed, ((a.seat, a.action) for a in log))
    return Loaded(game, rules, repository.seats(session, game.id), state, len(log))


def act(
    session: Session,
    loaded: Loaded,
    viewer: Principal,
    action: Action,
    seat: int | None = None,
    expected_seq: int | None = None,
) -> Loaded:
    """Apply `action` for the viewer and append it to the log; returns the updated game.

    - A player acts for their own seat (`seat`, if given, must be theirs: 403).
    - The table acts for `seat`, default the only seat that may act now (422
      `seat_required` when several may); an action whose type is one of
      `organiser_actions()` is applied as the table's own (logged with seat None).
    - Public callers cannot act (401).
    Errors: 409 `illegal_action` (with `legal_actions`; nothing is stored),
    409 `stale_state` when `expected_seq` is not the current number of actions,
    409 `action_conflict` when another action was appended meanwhile (retry).
    """
    if role_of(viewer) == "public":
        raise Unauthorized("Acting needs a player token or the table token.")
    if expected_seq is not None and expected_seq != loaded.seq:
        raise Conflict(
            f"The game has {loaded.seq} actions, not {expected_seq}; reload and retry.",
            code="stale_state",
            seq=loaded.seq,
        )
    if not isinstance(action.get("type"), str):
        raise IllegalAction("An action needs a string `type`.", _legal_for(loaded.state, viewer))
    state = loaded.state
    acting = _acting_seat(loaded, viewer, action, seat)
    if acting is None:
        state.apply_organiser_action(action)
    else:
        state.apply_action(acting, action)  # IllegalAction: nothing stored
    row = GameAction(
        game_id=loaded.game.id, seq=loaded.seq, seat=acting, action=action, actor=viewer.actor
    )
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError as exc:
        raise Conflict(
            "Another action was recorded at the same time; reload and retry.",
            code="action_conflict",
        ) from exc
    loaded.seq += 1
    return loaded


def _acting_seat(loaded: Loaded, viewer: Principal, action: Action, seat: int | None) -> int | None:
    """The seat `action` is applied for (None: the table's own action); the seat rules and
    errors of `act`."""
    state = loaded.state
    if role_of(viewer) == "player":
        if seat is not None and seat != viewer.seat:
            raise Forbidden("A player token acts only for its own seat.", code="not_your_seat")
        return viewer.seat
    if seat is None and action["type"] in {a["type"] for a in state.organiser_actions()}:
        return None
    if seat is not None:
        if not 0 <= seat < len(loaded.seats):
            raise AppError(f"There is no seat {seat}.", code="seat_not_found", status=422)
        return seat
    current = state.current_players()
    if not current:
        raise IllegalAction("No seat may act now.", [])
    if len(current) != 1:
        raise AppError(
            "Several seats may act now: say which one with `seat`.",
            code="seat_required",
            status=422,
        )
    return current[0]


def _legal_for(state: GameState, viewer: Principal) -> list[Action]:
    if viewer.seat is not None:
        return state.legal_actions(viewer.seat)
    current = state.current_players()
    return state.legal_actions(current[0]) if len(current) == 1 else []


def read(loaded: Loaded, viewer: Principal) -> dict[str, Any]:
    """The game as `viewer` may see it (GameRead). Hidden options and the seed are shown
    only when the game is over."""
    state, rules, game = loaded.state, loaded.rules, loaded.game
    over = state.is_over()
    role = role_of(viewer)
    table = role == "table"
    current = state.current_players()
    return {
        "id": game.id,
        "module": game.module,
        "title": rules.title,
        "players": [{"seat": s.seat, "name": s.name} for s in loaded.seats],
        "options": game.options if over else rules.public_options(game.options),
        "seed": game.seed if over else None,
        "created_at": game.created_at,
        "seq": loaded.seq,
        "role": role,
        "seat": viewer.seat,
        "current_players": current,
        "legal_actions": _legal_for(state, viewer) if role != "public" else [],
        "legal_actions_by_seat": (
            [{"seat": s, "actions": state.legal_actions(s)} for s in current] if table else []
        ),
        "organiser_actions": state.organiser_actions() if table else [],
        "is_over": over,
        "result": state.result(),
        "state": state.view(viewer.seat),
    }
