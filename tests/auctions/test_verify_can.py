"""verify_x / can_x / x (pokerkit's pattern): `can_x` is True exactly when `verify_x`
raises nothing, and `verify_x` raises the error `x` raises (the checks are written once)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session

from app.auctions import rules, service
from app.core.errors import AppError
from app.core.principal import ORGANISER
from app.events.deps import participant_principal
from app.events.models import Event, Participant
from tests.auctions.test_api import CEREMONY, CLOSES, DURING, OPENS, build
from tests.factories import make_event


def refusal(verify, *args, **kwargs) -> str | None:
    """The code `verify` raises, or None."""
    try:
        verify(*args, **kwargs)
    except AppError as error:
        return error.code
    return None


def test_each_step_is_allowed_exactly_when_its_verify_passes(session: Session) -> None:
    w = build(session, {k: CEREMONY[k] for k in ("A", "B")})
    event = session.get(Event, w.event_id)

    def opens(place: int) -> str | None:
        code = refusal(service.verify_open_auction, session, event, place)
        assert service.can_open_auction(session, event, place) is (code is None)
        return code

    def closes(place: int) -> str | None:
        code = refusal(service.verify_close_auction, session, event, place)
        assert service.can_close_auction(session, event, place) is (code is None)
        return code

    def undoes(place: int) -> str | None:
        code = refusal(service.verify_undo_close, session, event, place)
        assert service.can_undo_close(session, event, place) is (code is None)
        return code

    def bids(place: int, who: str, combo: str) -> str | None:
        args = (session, event, place, ORGANISER)
        kwargs = {"participant": who, "combination_id": w.combos[combo]}
        code = refusal(service.verify_place_bid, *args, **kwargs)
        assert service.can_place_bid(*args, **kwargs) is (code is None)
        return code

    assert [opens(3), opens(2), opens(1)] == [None, "auction_out_of_order", "auction_out_of_order"]
    assert (closes(3), undoes(3)) == ("auction_not_open", "auction_not_closed")
    assert bids(3, "A", "A_pair") == "auction_not_open"
    assert opens(4) == "auction_not_found"

    service.open_auction(session, event, 3, ORGANISER)
    assert [opens(3), opens(2)] == ["auction_already_open", "auction_in_progress"]
    assert (closes(3), undoes(3)) == (None, "auction_not_closed")
    assert bids(3, "A", "A_pair") is None
    assert bids(3, "A", "B_pair") == "combination_not_yours"
    assert service.can_bid(session, event, 3, ORGANISER, participant="A")
    assert not service.can_bid(session, event, 3, ORGANISER, participant="nobody")

    placed = service.place_bid(
        session, event, 3, ORGANISER, participant="A", combination_id=w.combos["A_pair"]
    )
    service.place_bid(
        session, event, 3, ORGANISER, participant="B", combination_id=w.combos["B_pair"]
    )
    b = participant_principal(session.get(Participant, w.people["B"].id))
    assert not service.can_withdraw_bid(session, event, 3, b, placed["bid_id"])  # not B's
    assert refusal(service.verify_withdraw_bid, session, event, 3, b, placed["bid_id"]) == (
        "not_your_bid"
    )
    assert service.can_withdraw_bid(session, event, 3, ORGANISER, placed["bid_id"])

    assert service.close_auction(session, event, 3, ORGANISER)["winner"] == "A"  # threes
    assert (closes(3), undoes(3), opens(2)) == ("auction_closed", None, "reveal_pending")
    assert not service.can_withdraw_bid(session, event, 3, ORGANISER, placed["bid_id"])

    def reveals(place: int) -> str | None:
        code = refusal(service.verify_reveal, session, event, place)
        assert service.can_reveal(session, event, place) is (code is None)
        return code

    assert (reveals(3), reveals(2)) == (None, "nothing_to_reveal")
    service.reveal(session, event, 3, ORGANISER)  # B's twos, the weaker (RULES.md I-21)
    assert (undoes(3), opens(2), reveals(3)) == ("undo_after_reveal", "reveal_pending", None)
    service.reveal(session, event, 3, ORGANISER)  # A's threes
    assert (undoes(3), opens(2), reveals(3)) == ("undo_after_reveal", "reveal_pending", None)
    service.reveal(session, event, 3, ORGANISER)  # the outcome
    assert (undoes(3), opens(2), reveals(3)) == ("undo_after_reveal", None, "nothing_to_reveal")

    service.open_auction(session, event, 2, ORGANISER)
    assert undoes(3) == "undo_too_late"
    assert bids(2, "A", "A_quads") == "bidder_already_won"  # RULES.md I-8
    assert bids(2, "B", "B_pair") == "combination_used"
    assert bids(2, "B", "B_quads") is None


def test_no_auction_opens_while_the_course_is_open(session: Session) -> None:
    event = make_event(session, opens_at=OPENS, closes_at=datetime.now(UTC) + timedelta(hours=1))
    session.commit()
    assert not service.can_open_auction(session, event, 3)
    assert refusal(service.verify_open_auction, session, event, 3) == "course_still_open"
    assert service.can_open_auction(session, event, 3) is False


@pytest.mark.parametrize(
    ("saved_at", "used", "usable"),
    [
        (DURING, set(), [7]),
        (OPENS, set(), [7]),  # the window includes its start...
        (CLOSES, set(), []),  # ...and not its end
        (OPENS - timedelta(seconds=1), set(), []),
        (DURING, {7}, []),  # put into a closed round: used up
    ],
)
def test_usable_combinations_are_what_check_combination_accepts(saved_at, used, usable) -> None:
    """The "still usable for a bid" rule is one: `usable_combination_ids` lists exactly
    the combinations `check_combination` lets the owner bid."""
    assert (
        rules.usable_combination_ids(
            [(7, saved_at)], opens_at=OPENS, closes_at=CLOSES, used_combinations=used
        )
        == usable
    )
    facts = rules.CombinationFacts(7, "a", saved_at)
    try:
        rules.check_combination(
            bidder="a", combination=facts, opens_at=OPENS, closes_at=CLOSES, used_combinations=used
        )
        accepted = [7]
    except rules.BidRefused:
        accepted = []
    assert accepted == usable
