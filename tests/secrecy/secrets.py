"""What each caller must not read, built from the database (issue 23 item 3).

A secret is a string with the forms in which the app serialises it:

- a card: `"QS"` (JSON, attributes), the display form `Q♠` (pages, `display` lists),
  and the bare code `QS` as a word in CSV, XML, text (not in HTML or JSON: a random
  token could hold `-QS-`);
- a CP code, a discard code, a save code, a bid's nonce: the string itself (each is
  distinctive in the walk's world);
- a sealed bid's combination: its cards (each card above, and the whole list as JSON or
  as the CSV's `cards` cell), its description in either language ("flush, king, jack,
  …" / "флеш, король, …") and `"combination_id": <id>`.

Who may see what (RULES.md I-1, I-7, I-21; README "Award ceremony"):
- a participant: the cards she was dealt (a take's outcome with a card; a `hand_full`
  take deals none) and those of her saved combinations, the CP codes she typed, the
  discard codes of the cards she was dealt, her own save codes, her own bids' cards;
- the organiser: everything but a bid of a round that is still open (no nonce, no
  combination id);
- everybody: the counted bids of a round once it is revealed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.events.codes import normalize_code
from app.events.models import Checkpoint, Participant, SaveCode
from app.feed.deck import describe
from app.feed.models import Combination, Take, TakeOutcome
from app.poker.cards import DECK, JOKERS, display


@dataclass(frozen=True)
class Secret:
    what: str  # says which secret, for the failure message
    text: str  # the secret as stored (allowed when the caller typed it into the URL)
    forms: tuple[re.Pattern[str], ...]  # any match in a body is a leak
    words: tuple[re.Pattern[str], ...] = ()  # matches in non-HTML, non-JSON bodies only
    card: bool = False  # a card: not looked for in static routes (their examples)


def _plain(what: str, text: str) -> Secret:
    return Secret(what, text, (re.compile(re.escape(text)),))


def _card(card: str, why: str) -> Secret:
    forms = [re.compile(re.escape(json.dumps(card)))]
    if card not in JOKERS:
        forms.append(re.compile(r"(?<![0-9A-Za-z])" + re.escape(display(card))))
    word = re.compile(r"(?<![0-9A-Za-z])" + re.escape(card) + r"(?![0-9A-Za-z])")
    return Secret(f"card {card} ({why})", card, tuple(forms), (word,), card=True)


def _combination(bid: Bid, cards_too: bool) -> list[Secret]:
    """A sealed bid's combination: its id as an auction view names it, and (`cards_too`)
    its cards as a list (the organiser reads every saved combination of a participant,
    so for her only the id tells which one was bid)."""
    patterns = [re.compile(rf'"combination_id":\s*{bid.combination_id}(?!\d)')]
    if cards_too:
        cards = list(bid.sealed_cards)
        spaced = json.dumps(cards)
        english, russian = describe(cards, "seed")  # the walk's events use `seed`
        for form in (spaced, spaced.replace(" ", ""), " ".join(cards), english, russian):
            patterns.append(re.compile(re.escape(form)))
    return [Secret(f"sealed bid {bid.id}'s combination", "", tuple(patterns))]


@dataclass
class Bids:
    """Every bid: sealed (its round not revealed, or replaced / withdrawn) or revealed."""

    sealed: list[tuple[Bid, bool, int]]  # (bid, its round is still open, its event)
    public_cards: dict[int, set[str]]  # event id -> cards of its revealed bids


def bids(session: Session) -> Bids:
    withdrawn = set(session.scalars(select(BidWithdrawal.bid_id)))
    rows = session.execute(
        select(Bid, AuctionRound, Auction)
        .join(AuctionRound, Bid.round_id == AuctionRound.id)
        .join(Auction, Bid.auction_id == Auction.id)
    ).all()
    sealed, public = [], {}
    for bid, round_, auction in rows:
        if bid.id in withdrawn or round_.revealed_at is None:
            sealed.append((bid, round_.status == "open", auction.event_id))
        else:
            public.setdefault(auction.event_id, set()).update(bid.sealed_cards)
    return Bids(sealed, public)


def seen_by(session: Session, participant_id: int) -> tuple[set[str], set[str], set[str]]:
    """(cards, CP codes, discard codes) the participant has seen."""
    dealt = session.execute(
        select(TakeOutcome.card, Checkpoint.discard_code)
        .join(Checkpoint, TakeOutcome.checkpoint_id == Checkpoint.id)
        .where(TakeOutcome.participant_id == participant_id, TakeOutcome.card.is_not(None))
    ).all()
    cards = {card for card, _ in dealt}
    for combination in session.scalars(
        select(Combination.cards).where(Combination.participant_id == participant_id)
    ):
        cards.update(combination)
    typed = {
        normalize_code(code)
        for code in session.scalars(select(Take.code).where(Take.participant_id == participant_id))
    }
    return cards, typed, {code for _, code in dealt}


def forbidden(
    session: Session,
    caller: str,
    participant_id: int | None,
    event_id: int,
    typed_in_walk: str = "",
) -> list[Secret]:
    """The secrets `caller` (a participant when `participant_id` is set) must not read
    while walking the routes of event `event_id` (in which a participant types the code
    `typed_in_walk`: `/t/{code}`)."""
    all_bids = bids(session)
    if caller == "organiser":
        out = []
        for bid, open_round, event in all_bids.sealed:
            if open_round:
                out.append(_plain(f"open bid {bid.id}'s nonce", bid.sealed_nonce))
                if event == event_id:
                    out.extend(_combination(bid, cards_too=False))
        return out
    cards: set[str] = set()
    typed: set[str] = set()
    discards: set[str] = set()
    if participant_id is not None:
        cards, typed, discards = seen_by(session, participant_id)
        typed.add(typed_in_walk)
    public = all_bids.public_cards.get(event_id, set())
    out = [_card(card, "not dealt to the caller") for card in DECK if card not in cards | public]
    for number, code, discard, event in session.execute(
        select(Checkpoint.number, Checkpoint.code, Checkpoint.discard_code, Checkpoint.event_id)
    ):
        if code not in typed:
            out.append(_plain(f"CP code of CP {number} (event {event})", code))
        if discard not in discards:
            out.append(_plain(f"discard code of CP {number} (event {event})", discard))
    for owner, code in session.execute(select(SaveCode.participant_id, SaveCode.code)):
        if owner != participant_id:
            out.append(_plain(f"save code of participant {owner}", code))
    for bid, _, event in all_bids.sealed:
        out.append(_plain(f"sealed bid {bid.id}'s nonce", bid.sealed_nonce))
        # the phases' events hold the same hands: a bid is told by its own event's routes
        if bid.participant_id != participant_id and event == event_id:
            out.extend(_combination(bid, cards_too=True))
    return out


def participant_id(session: Session, event_id: int, external_id: str) -> int:
    return session.scalars(
        select(Participant.id).where(
            Participant.event_id == event_id, Participant.external_id == external_id
        )
    ).one()
