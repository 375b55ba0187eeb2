"""Request and response bodies of the open poker tools (API.md "Open tools")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Ranking = Literal["seed", "classic"]


class CardRead(BaseModel):
    """One card: canonical `code` ("QH", "JK1") and `display` form ("Q♥", "Joker")."""

    code: str
    display: str


class ConcreteCardRead(CardRead):
    """A card the hand counts as; `from_joker` when a joker stands for it."""

    from_joker: bool = False


class EvaluateCreate(BaseModel):
    """Body of `POST /api/v1/poker/evaluate`: 5 cards in any notation of API.md."""

    model_config = ConfigDict(extra="forbid")

    cards: list[str] = Field(max_length=20, examples=[["Q♥", "Q♦", "Q♣", "A♠", "Joker"]])
    ranking: Ranking = "seed"


class HandRead(BaseModel):
    """The value of one 5-card hand (RULES.md §1.3)."""

    category: str
    description: str
    description_ru: str
    strength: list[int] = Field(
        description="Compare lexicographically within one ranking: higher wins, equal ties."
    )
    cards: list[ConcreteCardRead] = Field(
        description="The 5 cards the hand counts as (jokers replaced), in display order."
    )
    source: list[CardRead] = Field(description="The 5 cards as given, canonical.")


class EvaluateRead(HandRead):
    ranking: Ranking


class CompareCreate(BaseModel):
    """Body of `POST /api/v1/poker/compare`: hands of 5 cards each."""

    model_config = ConfigDict(extra="forbid")

    hands: list[list[str]] = Field(
        min_length=1,
        max_length=1000,
        examples=[[["AH", "KH", "QH", "JH", "TH"], ["QS", "QH", "QD", "QC", "JK"]]],
    )
    ranking: Ranking = "seed"


class RankedHandRead(HandRead):
    index: int = Field(description="Position of the hand in the request.")
    place: int = Field(description="1 for the best; tied hands share a place (1, 1, 3).")


class CompareRead(BaseModel):
    ranking: Ranking
    winners: list[int] = Field(description="Indices of the best hands (several on a tie).")
    ranked: list[RankedHandRead] = Field(description="Every hand, best first.")
