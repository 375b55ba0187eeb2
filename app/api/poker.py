"""Open poker tools, no token (API.md "Open tools"): evaluate one hand, compare hands."""

from __future__ import annotations

from fastapi import APIRouter

from app.core.errors import AppError
from app.poker import evaluator
from app.poker.cards import display, is_joker
from app.poker.schemas import (
    CardRead,
    CompareCreate,
    CompareRead,
    ConcreteCardRead,
    EvaluateCreate,
    EvaluateRead,
    RankedHandRead,
)

router = APIRouter(prefix="/api/v1/poker", tags=["poker"])

_PROBLEMS = {422: {"description": "invalid_card, duplicate_card, invalid_hand_size (problem)"}}


def _hand(value: evaluator.HandValue) -> dict:
    given = set(value.source)
    return {
        "category": value.category,
        "description": value.description,
        "description_ru": value.description_ru,
        "strength": list(value.strength),
        "cards": [
            ConcreteCardRead(
                code=code, display=display(code), from_joker=is_joker(code) or code not in given
            )
            for code in value.cards
        ],
        "source": [CardRead(code=code, display=display(code)) for code in value.source],
    }


@router.post("/evaluate", response_model=EvaluateRead, responses=_PROBLEMS)
def evaluate_hand(body: EvaluateCreate) -> EvaluateRead:
    """Category, strength, concrete cards and description of exactly 5 cards."""
    value = evaluator.evaluate(body.cards, body.ranking)
    return EvaluateRead(ranking=body.ranking, **_hand(value))


@router.post("/compare", response_model=CompareRead, responses=_PROBLEMS)
def compare_hands(body: CompareCreate) -> CompareRead:
    """The winners (indices; several on a tie) and every hand ranked best first."""
    values = []
    for i, hand in enumerate(body.hands):
        try:
            values.append(evaluator.evaluate(hand, body.ranking))
        except AppError as exc:  # name the hand in the problem
            exc.detail = f"Hand {i}: {exc.detail}"
            exc.extra["hand"] = i
            raise
    order = sorted(range(len(values)), key=lambda i: values[i].strength, reverse=True)
    ranked: list[RankedHandRead] = []
    for position, i in enumerate(order):
        tied = ranked and values[order[position - 1]].strength == values[i].strength
        place = ranked[-1].place if tied else position + 1
        ranked.append(RankedHandRead(index=i, place=place, **_hand(values[i])))
    winners = sorted(r.index for r in ranked if r.place == 1)
    return CompareRead(ranking=body.ranking, winners=winners, ranked=ranked)
