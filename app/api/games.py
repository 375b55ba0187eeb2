"""Games API (API.md "Extra games"): modules, games, actions and the open evaluate tool.

Tokens: `Authorization: Bearer <token>` (or `?token=` for links). A player token
shows and acts for its seat; the table token (returned at creation) or the
organiser token shows the public view and may act for the seat to act.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Request

from app.callers import GameCaller
from app.core.deps import SessionDep
from app.core.principal import Kind, Principal, presented_secret
from app.core.types import PathId
from app.games import service
from app.games.deps import game_viewer
from app.games.schemas import ActionCreate, GameCreate, GameCreated, GameRead, ModuleList

router = APIRouter(prefix="/api/v1/games", tags=["games"])


def _viewer(request: Request, principal: GameCaller, game: service.Game) -> Principal:
    presented = presented_secret(request, ("bearer", "query")) is not None
    return game_viewer(principal, game, presented)


@router.get("/modules", response_model=ModuleList)
def list_modules() -> dict[str, Any]:
    """Every rules module with its players range and options schema."""
    return {"modules": [rules.metadata() for _, rules in sorted(service.modules().items())]}


@router.post("/modules/{module}/evaluate")
def evaluate(module: str, payload: dict[str, Any] = Body(...)) -> dict[str, Any]:
    """The module's open scoring tool; 422 `invalid_options` for bad input."""
    return service.module(module).evaluate(payload)


@router.post("", response_model=GameCreated, status_code=201)
def create_game(body: GameCreate, session: SessionDep) -> dict[str, Any]:
    """A new game: the public state, one `player_token` per seat and the `table_token`."""
    loaded, tokens, table_token = service.create_game(
        session, body.module, body.players, body.options, body.seed
    )
    data = service.read(loaded, Principal(Kind.TABLE, game_id=loaded.game.id))
    data["players"] = [
        {"seat": seat.seat, "name": seat.name, "player_token": token}
        for seat, token in zip(loaded.seats, tokens, strict=True)
    ]
    data["player_tokens"] = tokens
    data["table_token"] = table_token
    return data


@router.get("/{game_id}", response_model=GameRead)
def read_game(
    game_id: PathId,
    request: Request,
    session: SessionDep,
    principal: GameCaller,
    token: str | None = None,  # documented here, read by the Principal (`?token=`)
) -> dict[str, Any]:
    """The game as the caller may see it (player token: that seat's view; none: public)."""
    loaded = service.load(session, game_id)
    viewer = _viewer(request, principal, loaded.game)
    return service.read(loaded, viewer)


@router.post("/{game_id}/actions", response_model=GameRead)
def post_action(
    game_id: PathId,
    body: ActionCreate,
    request: Request,
    session: SessionDep,
    principal: GameCaller,
    token: str | None = None,  # documented here, read by the Principal (`?token=`)
) -> dict[str, Any]:
    """Apply an action; 409 `illegal_action` with `legal_actions` when the rules refuse it."""
    loaded = service.load(session, game_id)
    viewer = _viewer(request, principal, loaded.game)
    loaded = service.act(session, loaded, viewer, body.action, body.seat, body.expected_seq)
    return service.read(loaded, viewer)
