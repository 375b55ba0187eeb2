"""Every ORM model, imported in one place for Alembic and the schema tests."""

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.core.audit import AuditEntry
from app.core.db import Base
from app.core.models import (
    AuthFailure,
    EventChain,
    LiveChange,
    LiveVersion,
    OrganiserMember,
    OrganiserSession,
)
from app.events.models import Checkpoint, Event, Participant, ParticipantIdentity, SaveCode
from app.feed.models import (
    Combination,
    DeviceContact,
    IntegrationKey,
    ParticipantState,
    SourceClock,
    SyncDeadline,
    Take,
    TakeOutcome,
    TakeReview,
    TakeVoid,
)
from app.games.models import Game, GameAction, GamePlayer

__all__ = [
    "Auction",
    "AuctionRound",
    "AuditEntry",
    "AuthFailure",
    "Base",
    "Bid",
    "BidWithdrawal",
    "Checkpoint",
    "Combination",
    "DeviceContact",
    "Event",
    "EventChain",
    "Game",
    "GameAction",
    "GamePlayer",
    "IntegrationKey",
    "LiveChange",
    "LiveVersion",
    "OrganiserMember",
    "OrganiserSession",
    "Participant",
    "ParticipantIdentity",
    "ParticipantState",
    "SaveCode",
    "SourceClock",
    "SyncDeadline",
    "Take",
    "TakeOutcome",
    "TakeReview",
    "TakeVoid",
]
