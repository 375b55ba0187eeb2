"""Games of the rules modules and their append-only action logs (API.md "Extra games").

A game is stored as its creation parameters (module, players, options, seed) and
the log of actions; its state is rebuilt by `app.games.base.replay`. `GameAction`
rows are inserted, never updated or deleted; `(game_id, seq)` is unique, which
makes appending optimistic: a second writer with the same `seq` fails and retries.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class Game(Base):
    """One table of a rules module: who plays, with which options and seed."""

    __tablename__ = "game"

    id: Mapped[int] = mapped_column(primary_key=True)
    module: Mapped[str] = mapped_column(String(40))
    players: Mapped[list[str]] = mapped_column(JSON)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    seed: Mapped[int] = mapped_column(BigInteger)
    table_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class GamePlayer(Base):
    """A seat of a game and the hash of its player token."""

    __tablename__ = "game_player"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"))
    seat: Mapped[int]
    name: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)


class GameAction(Base):
    """One applied action (the log). `seq` = the number of earlier actions of the game.

    `seat` is None for a table/organiser action (`GameState.apply_organiser_action`).
    """

    __tablename__ = "game_action"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"))
    seq: Mapped[int]
    seat: Mapped[int | None]
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    actor: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
