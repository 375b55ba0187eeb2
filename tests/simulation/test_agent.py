"""What a simulated participant knows and decides (no HTTP)."""

import random
from datetime import UTC, datetime

from app.simulation.agent import Agent
from app.simulation.course import PublicCP
from app.simulation.strategies import FlushChaser, Keeper

T = datetime(2026, 6, 13, 9, tzinfo=UTC)
PUBLIC = {
    1: PublicCP(1, 55.000, 37.0, "Pit."),
    2: PublicCP(2, 55.010, 37.0, "Ruin. Black suit."),  # 1.1 km north
    3: PublicCP(3, 55.012, 37.0, "Knoll. Red suit."),  # 1.3 km north
}


def make_agent(strategy=None, uses_hints=False) -> Agent:
    return Agent(
        external_id="101",
        name="Anna Belova",
        strategy=strategy or Keeper(),
        bidding="greedy",
        uses_hints=uses_hints,
        speed_kmh=5.0,
        start_at=T,
        finish_at=T,
        rng=random.Random(0),
        public=PUBLIC,
        save_codes=["SAVE1", "SAVE2"],
        position=(54.999, 37.0),
    )


def test_goes_to_the_nearest_cp_not_taken() -> None:
    agent = make_agent()
    assert agent.choose_next_cp() == 1
    agent.observe_card_take(1, {"outcome": "counted", "card": "QH", "discard_code": "DQH"})
    assert agent.choose_next_cp() == 2
    assert agent.hand == [(1, "QH")] and agent.discard_codes == {"QH": "DQH"}


def test_a_hint_user_detours_for_the_suit_they_chase() -> None:
    agent = make_agent(FlushChaser(), uses_hints=True)
    agent.position = (55.0, 37.0)
    for number, card in ((11, "2H"), (12, "7H"), (13, "JD")):
        agent.card_of_cp[number] = card
        agent.hand.append((number, card))
    agent.consumed.update({1, 11, 12, 13})
    # CP 2 (black, never a heart) is 0.2 km nearer than CP 3 (red: hearts among 26 unseen)
    assert agent.choose_next_cp() == 3
    assert make_agent(FlushChaser(), uses_hints=False).choose_next_cp() == 1


def test_rejected_takes_leave_the_cp_free() -> None:
    agent = make_agent()
    agent.observe_card_take(1, {"outcome": "rejected", "reason": "hand_full", "card": "QH"})
    assert 1 not in agent.consumed and agent.hand == []
    agent.observe_card_take(2, {"outcome": "rejected", "reason": "duplicate", "card": "5S"})
    assert 2 in agent.consumed


def test_offline_takes_are_blind_until_the_sync() -> None:
    agent = make_agent()
    for number in (1, 2, 3):
        agent.record_offline_take(number)
    assert not agent.hand_known and len(agent.hand) == 3
    codes = {"C1": 1, "C2": 2, "C3": 3}
    state = {
        "hand": ["QH", "QS"],
        "round": 1,
        "deal": 1,
        "takes": [
            {"code": "c1", "kind": "card", "outcome": "counted", "card": "QH"},
            {"code": "c-2", "kind": "card", "outcome": "counted", "card": "QS"},
            {"code": "C3", "kind": "card", "outcome": "rejected", "card": "4D"},
        ],
    }
    agent.sync(state, codes)
    assert agent.hand == [(1, "QH"), (2, "QS")]
    assert agent.consumed == {1, 2}


def test_decisions_and_save_codes() -> None:
    agent = make_agent()
    for number, card in enumerate(["QH", "QD", "2C", "7S", "JK1"], start=1):
        agent.observe_card_take(number, {"outcome": "counted", "card": card, "discard_code": card})
    assert agent.at_decision_point()
    decision = agent.decide()
    assert decision.discards == ["2C", "7S"] and not decision.save
    agent.applied(decision)
    assert agent.round == 2 and agent.hand_cards == ["QH", "QD", "JK1"]
    assert agent.next_save_code() == "SAVE1"
    agent.round = 3
    agent.hand += [(6, "3C"), (7, "4C")]
    save = agent.decide()
    assert save.save
    agent.applied(save, "SAVE1")
    assert agent.hand == [] and agent.round == 1 and agent.next_save_code() == "SAVE2"
