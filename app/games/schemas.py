"""Request and response bodies of the games API (API.md "Extra games")."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from app.core.types import INT4_MAX, PlayerName


class ModuleRead(BaseModel):
    module: str
    title: str
    min_players: int
    max_players: int
    options_schema: dict[str, Any]


class ModuleList(BaseModel):
    modules: list[ModuleRead]


class GameCreate(BaseModel):
    """A new game: the module, the players' names in seat order, options, an optional seed.

    Without `seed` the service draws one with `secrets` and records it; it is shown
    only when the game is over (it would reveal hidden cards).
    """

    module: str = Field(max_length=40)
    players: list[PlayerName] = Field(min_length=1, max_length=20)
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0, lt=2**63)


class SeatRead(BaseModel):
    seat: int
    name: str


class SeatCreated(SeatRead):
    player_token: str


class SeatActions(BaseModel):
    seat: int
    actions: list[dict[str, Any]]


class GameRead(BaseModel):
    """A game as its viewer may see it.

    `role`: `player` (a player token: `state` is that seat's view), `table` (the
    table token or the organiser: the public view, plus the legal actions of every
    seat that may act, since the table may act for them) or `public`.
    `seq` is the number of actions so far (send it back as `expected_seq`).
    """

    id: int
    module: str
    title: str
    players: list[SeatRead]
    options: dict[str, Any]
    seed: int | None = None
    created_at: datetime
    seq: int
    role: str
    seat: int | None = None
    current_players: list[int]
    legal_actions: list[dict[str, Any]]
    legal_actions_by_seat: list[SeatActions] = Field(default_factory=list)
    organiser_actions: list[dict[str, Any]] = Field(default_factory=list)
    is_over: bool
    result: dict[str, Any] | None = None
    state: dict[str, Any]


class GameCreated(GameRead):
    """The new game with one `player_token` per seat and the `table_token`.

    The table token runs the table from one device (the dealer assistant page
    `/g/{table_token}`): it sees the public view and may act for whichever seat is
    to act. A player token (`/g/{player_token}`) shows that seat's hidden cards.
    """

    players: list[SeatCreated]  # type: ignore[assignment]
    player_tokens: list[str]  # the same tokens, in seat order
    table_token: str


class ActionCreate(BaseModel):
    """An action of the caller's seat (player token) or, with the table token, of `seat`
    (default: the only seat that may act now) or of the table itself (`organiser_actions`)."""

    action: dict[str, Any]
    seat: int | None = Field(default=None, ge=0, le=INT4_MAX)
    expected_seq: int | None = Field(default=None, ge=0, le=INT4_MAX)
