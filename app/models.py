"""Every ORM model, imported in one place for Alembic and the schema tests."""

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core.audit import AuditEntry
from app.core.db import Base
from app.events.models import Checkpoint, Event, Participant, SaveCode
from app.feed.models import (
    Combination,
    IntegrationKey,
    ParticipantState,
    Take,
    TakeOutcome,
    TakeVoid,
)
from app.games.models import Game, GameAction, GamePlayer
from app.live.models import LiveChange, LiveVersion

__all__ = [
    "Auction",
    "AuctionRound",
    "AuditEntry",
    "Base",
    "Bid",
    "BidWithdrawal",
    "Checkpoint",
    "Combination",
    "Event",
    "Game",
    "GameAction",
    "GamePlayer",
    "IntegrationKey",
    "LiveChange",
    "LiveVersion",
    "Participant",
    "ParticipantState",
    "SaveCode",
    "Take",
    "TakeOutcome",
    "TakeVoid",
]
