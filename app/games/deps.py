"""Who is calling a game: the game's tokens as `app.core.principal` kinds, and the
Principal the games service gets for a game (`game_viewer`).

A player token is a `game_seat` Principal (`game_id`, `seat`), the table token (returned
at creation) a `table` Principal (`game_id`); the organiser sees a game as its table
(`service.role_of`).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.core.errors import Unauthorized
from app.core.principal import PUBLIC, Kind, Principal
from app.core.security import hash_token
from app.games import repository
from app.games.models import Game

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


def game_viewer(principal: Principal, game: Game, presented: bool) -> Principal:
    """The Principal the games service gets for `game`: the request's own when it is the
    organiser or one of this game's tokens, else PUBLIC; a presented token of another
    game or an unknown token → 401 `invalid_game_token`."""
    if principal.is_organiser or principal.game_id == game.id:
        return principal
    if presented:
        raise Unauthorized("This token does not belong to this game.", code="invalid_game_token")
    return PUBLIC
