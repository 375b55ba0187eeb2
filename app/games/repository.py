"""Queries of the games domain: games, seats and the action log."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.games.models import Game, GameAction, GamePlayer


def get_game(session: Session, game_id: int) -> Game | None:
    return session.get(Game, game_id)


def seats(session: Session, game_id: int) -> list[GamePlayer]:
    """The seats of a game in seat order."""
    return list(
        session.scalars(
            select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(GamePlayer.seat)
        )
    )


def player_by_token_hash(session: Session, token_hash: str) -> GamePlayer | None:
    return session.scalar(select(GamePlayer).where(GamePlayer.token_hash == token_hash))


def game_by_table_token_hash(session: Session, token_hash: str) -> Game | None:
    return session.scalar(select(Game).where(Game.table_token_hash == token_hash))


def actions(session: Session, game_id: int) -> list[GameAction]:
    """The action log of a game in `seq` order."""
    return list(
        session.scalars(
            select(GameAction).where(GameAction.game_id == game_id).order_by(GameAction.seq)
        )
    )


def action_count(session: Session, game_id: int) -> int:
    return (
        session.scalar(
            select(func.count()).select_from(GameAction).where(GameAction.game_id == game_id)
        )
        or 0
    )
