"""Who is calling a game: the game's tokens as `app.core.principal` kinds, and the
games service's `Viewer` of a Principal.

A player token is a `game_seat` Principal (`game_id`, `seat`), the table token (returned
at creation) a `table` Principal (`game_id`); the organiser sees a game as its table.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from sqlalchemy.orm import Session

from app.core.errors import Unauthorized
from app.core.principal import Kind, Principal, accepts
from app.core.security import hash_token
from app.games import repository
from app.games.models import Game
from app.games.service import PUBLIC, Viewer

GAME_KINDS = (Kind.GAME_SEAT, Kind.TABLE)


def game_token_principal(session: Session, token: str) -> Principal | None:
    """The `table` or `game_seat` Principal of a game token, or None (the lookup of both
    kinds in `app.wiring.credentials`)."""
    digest = hash_token(token)
    game = repository.game_by_table_token_hash(session, digest)
    if game is not None:
        return Principal(Kind.TABLE, game_id=game.id)
    player = repository.player_by_token_hash(session, digest)
    if player is not None:
        return Principal(Kind.GAME_SEAT, game_id=player.game_id, seat=player.seat)
    return None


def viewer_of(principal: Principal, game_id: int) -> Viewer:
    """What `principal` sees of game `game_id`: the table (table token, organiser), a
    player's seat (player token) or the public view (a public principal)."""
    if principal.is_organiser:
        return Viewer("table", actor="organiser")
    if principal.kind is Kind.TABLE:
        return Viewer("table", actor="table")
    if principal.kind is Kind.GAME_SEAT:
        return Viewer("player", seat=principal.seat, actor=f"seat:{principal.seat}")
    return PUBLIC


def game_viewer(principal: Principal, game: Game, presented: bool) -> Viewer:
    """The Viewer of the request for `game`; a presented token of another game or an unknown
    token → 401 `invalid_game_token`."""
    if principal.is_organiser:
        return viewer_of(principal, game.id)
    if principal.game_id == game.id:
        return viewer_of(principal, game.id)
    if presented:
        raise Unauthorized("This token does not belong to this game.", code="invalid_game_token")
    return PUBLIC


GameCaller = Annotated[
    Principal,
    Depends(
        accepts(
            Kind.ORGANISER, *GAME_KINDS, Kind.PUBLIC, via=("bearer", "query"), mark_unknown=False
        )
    ),
]
"""The organiser, a game's table or seat (`Authorization: Bearer` or `?token=`), or anybody;
an unknown token is the route's 401 `invalid_game_token` (`game_viewer`), once the game
was found."""
