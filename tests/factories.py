"""Direct database setup for tests that are not about event setup itself.

These insert rows the way the event-setup service stores them (normalised codes,
hashed tokens) so that feed, auction and page tests can start from a known deck.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core import chain
from app.core.security import hash_token
from app.events import identity
from app.events.models import Checkpoint, Event, Participant, SaveCode
from app.feed.models import Combination, ParticipantState, Take
from app.feed.rules import PlayState

# The 54 cards in canonical codes (API.md), in a fixed order: CP number = index + 1.
RANKS = "23456789TJQKA"
SUITS = "SHDC"
DECK = [rank + suit for suit in SUITS for rank in RANKS] + ["JK1", "JK2"]


def cp_code(card: str) -> str:
    """The test deck's secret CP code of a card (normalised form)."""
    return f"CP{card}SECRETCODE"


def discard_code(card: str) -> str:
    """The test deck's discard code of a card (normalised form)."""
    return f"D{card}"


@dataclass
class TestParticipant:
    __test__ = False  # a factory's result, not a test class to collect

    id: int
    external_id: str
    access_token: str
    save_codes: list[str] = field(default_factory=list)


def make_event(
    session: Session,
    *,
    opens_at: datetime | None = None,
    closes_at: datetime | None = None,
    hand_ranking: str = "seed",
    save_codes_per_participant: int = 10,
    status: str = "course_open",
    name: str = "Test rogaine",
) -> Event:
    """An event with the full 54-card deck; open from 1 h ago to 17 h from now by default."""
    now = datetime.now(UTC)
    event = Event(
        name=name,
        opens_at=opens_at or now - timedelta(hours=1),
        closes_at=closes_at or now + timedelta(hours=17),
        timezone="Europe/Moscow",
        hand_ranking=hand_ranking,
        save_codes_per_participant=save_codes_per_participant,
        award_places=3,
        status=status,
    )
    session.add(event)
    session.flush()
    for number, card in enumerate(DECK, start=1):
        session.add(
            Checkpoint(
                event_id=event.id,
                number=number,
                card=card,
                code=f"{cp_code(card)}{event.id}",
                discard_code=discard_code(card),
                lat=55.0 + number / 1000,
                lon=37.0 + number / 1000,
                hint=f"hint {number}",
            )
        )
    session.flush()
    return event


def event_cp_code(event: Event, card: str) -> str:
    """The CP code of `card` in `event` (as make_event stores it)."""
    return f"{cp_code(card)}{event.id}"


def make_participant(
    session: Session, event: Event, external_id: str, name: str | None = None
) -> TestParticipant:
    """A participant with token `token-<external_id>` and save codes `S<external_id>N<i>`."""
    token = f"token-{external_id}-0123456789abcdef"
    participant = Participant(
        event_id=event.id,
        external_id=external_id,
        name=name or f"Participant {external_id}",
        access_token_hash=hash_token(token),
    )
    session.add(participant)
    session.flush()
    identity.record(session, event.id, [participant], "create", "organiser")
    codes = [f"S{external_id}N{i}".upper() for i in range(1, event.save_codes_per_participant + 1)]
    for position, code in enumerate(codes, start=1):
        session.add(
            SaveCode(event_id=event.id, participant_id=participant.id, position=position, code=code)
        )
    session.flush()
    return TestParticipant(participant.id, external_id, token, codes)


def chain_take(session: Session, participant_id: int, take: Take) -> None:
    """Append a directly inserted take to its participant's hash chain, as the feed does
    (after their last chained take; the head in their state is left to a rebuild)."""
    last = session.execute(
        select(Take.log_seq, Take.log_hash)
        .where(Take.participant_id == participant_id, Take.log_seq.is_not(None))
        .order_by(Take.log_seq.desc())
        .limit(1)
    ).first()
    content = chain.take_content(
        source=take.source,
        source_id=take.source_id,
        code=take.code,
        taken_at=take.taken_at,
        received_at=take.received_at,
        recorded_by=take.recorded_by,
        payload=take.payload,
    )
    take.log_seq, take.log_prev, take.log_hash = chain.next_link(
        last[0] if last else 0, last[1] if last else None, chain.TAKE, content
    )


def make_combination(
    session: Session,
    event: Event,
    participant: TestParticipant,
    cards: list[str],
    saved_at: datetime | None = None,
    *,
    deal: int | None = None,
) -> Combination:
    """A saved combination inserted directly: a save Take (source "test") and its
    Combination row (id = the take id), categorised by the evaluator under the
    event's preset. `saved_at` defaults to one minute after the course opened."""
    from app.poker.evaluator import evaluate

    saved_at = saved_at or event.opens_at + timedelta(minutes=1)
    previous = session.scalars(
        select(Combination).where(Combination.participant_id == participant.id)
    ).all()
    take = Take(
        event_id=event.id,
        participant_id=participant.id,
        source="test",
        source_id=f"combination-{participant.external_id}-{len(previous) + 1}-{uuid.uuid4().hex}",
        code=participant.save_codes[len(previous) % len(participant.save_codes)],
        taken_at=saved_at,
        received_at=saved_at,
        recorded_by="test",
        payload={},
    )
    chain_take(session, participant.id, take)
    session.add(take)
    session.flush()
    combination = Combination(
        id=take.id,
        event_id=event.id,
        participant_id=participant.id,
        cards=list(cards),
        category=evaluate(cards, event.hand_ranking).category,
        deal=deal if deal is not None else len(previous) + 1,
        saved_at=saved_at,
    )
    session.add(combination)
    count_take(session, event, participant.id)
    session.flush()
    return combination


def count_take(session: Session, event: Event, participant_id: int) -> None:
    """Count a directly inserted take in the participant's tallies (what the dashboard
    sums, as the feed's writes do); their state is left to a rebuild, like the chain head."""
    state = session.get(ParticipantState, participant_id)
    if state is None:
        state = ParticipantState(
            participant_id=participant_id, event_id=event.id, state=PlayState().to_json()
        )
        session.add(state)
    state.takes = (state.takes or 0) + 1
