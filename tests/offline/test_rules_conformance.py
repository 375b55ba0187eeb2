"""The phone's rules engine (app/static/offline/rules.js) against the server's (app/feed/rules.py).

Thousands of seeded random take sequences — late and out-of-order takes (field time
and order of receipt shuffled), duplicates, discards (own, of cards not in hand, of
unknown CPs), saves (used codes, other participants' codes), hands full, takes outside
the course window, codes typed as QR URLs or with dashes — go through both engines;
every outcome and the final state must be equal (RULES.md §1.2, I-1 to I-4, I-6 for
the category of a saved combination). The hand's value the phone shows (partial value of
1–4 cards, full description of 5, en and ru) is compared with the evaluator's on random
hands with jokers too. The JavaScript runs under Node, one process per test.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.feed import rules
from app.feed.deck import categoriser
from app.poker.cards import DECK
from app.poker.evaluator import CATEGORIES, evaluate, partial_value
from app.web.phone.pages import hand_value

NODE = shutil.which("node") or "/usr/bin/node"
RUNNER = Path(__file__).with_name("rules_runner.js")
OPENS = datetime(2026, 6, 13, 9, 0, tzinfo=UTC)
CLOSES = OPENS + timedelta(hours=6)
CASES = 3000


def micros(moment: datetime) -> int:
    return round((moment - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(microseconds=1))


def random_case(rng: random.Random, ranking: str) -> tuple[rules.Course, list[rules.TakeIn]]:
    """A small deck (8–16 CPs, jokers often among them) and 5–45 takes of one participant."""
    cards = rng.sample(DECK[:52], rng.randint(6, 14)) + rng.sample(DECK[52:], rng.randint(0, 2))
    checkpoints, discards = {}, {}
    for index, card in enumerate(cards):
        ref = rules.CheckpointRef(100 + index, index + 1, card)
        checkpoints[f"CP{index:02d}CODE"] = ref
        discards[f"D{index:02d}X"] = ref
    save_codes = frozenset(f"SAVE{i}" for i in range(rng.randint(1, 4)))
    course = rules.Course(OPENS, CLOSES, checkpoints, discards, save_codes, categoriser(ranking))
    pool = list(checkpoints) * 4 + list(discards) * 3 + list(save_codes) * 2 + ["OTHERSAVE", "ZZZZ"]
    count = rng.randint(5, 45)
    ids = rng.sample(range(1, 10 * count), count)  # order of receipt, unrelated to field time
    takes, moment = [], OPENS - timedelta(minutes=rng.choice([0, 0, 0, 5]))
    for take_id in ids:
        code = rng.choice(pool)
        if rng.random() < 0.1:
            code = f"https://poker.example/t/{code.lower()}"
        elif rng.random() < 0.1:
            code = f" {code[:3]}-{code[3:]} "
        moment += timedelta(seconds=rng.choice([0, 1, 7, 60, 600, 1800]))  # ties too
        taken_at = moment
        if rng.random() < 0.15:  # a late take: its field time is earlier than the last one
            taken_at = moment - timedelta(minutes=rng.randint(1, 90))
        if rng.random() < 0.03:
            taken_at = CLOSES + timedelta(seconds=rng.randint(-2, 2))  # the window's edge
        taken_at += timedelta(microseconds=rng.randint(0, 999_999))
        takes.append(rules.TakeIn(take_id, code, taken_at))
    rng.shuffle(takes)
    return course, takes


def course_json(course: rules.Course) -> dict:
    def ref(r: rules.CheckpointRef) -> dict:
        return {"checkpoint_id": r.checkpoint_id, "number": r.number, "card": r.card}

    return {
        "opens_at": micros(course.opens_at),
        "closes_at": micros(course.closes_at),
        "checkpoints": {code: ref(r) for code, r in course.checkpoints.items()},
        "discards": {code: ref(r) for code, r in course.discards.items()},
        "save_codes": sorted(course.save_codes),
    }


def python_result(course: rules.Course, takes: list[rules.TakeIn]) -> dict:
    state, outcomes = rules.replay(takes, course)
    data = state.to_json()
    for combination in data["combinations"]:
        combination["saved_at"] = micros(datetime.fromisoformat(combination["saved_at"]))
    return {"state": data, "outcomes": [vars(o) for o in outcomes]}


def run_js(
    cases: list[dict], hands: list[list[str]] | None = None, calls: list | None = None
) -> dict:
    """The runner's answer; `calls` are [function name, [arguments]] of rules.js."""
    done = subprocess.run(
        [NODE, str(RUNNER)],
        input=json.dumps({"cases": cases, "hands": hands or [], "calls": calls or []}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def node() -> str:
    if not Path(NODE).exists():
        pytest.skip("node is missing: apt-get install nodejs")
    return NODE


def test_random_take_sequences_give_the_same_outcomes_and_state(node):
    rng = random.Random(17)
    cases, expected = [], []
    reasons: set[str | None] = set()
    categories: set[str] = set()
    for index in range(CASES):
        course, takes = random_case(rng, "seed" if index % 2 else "classic")
        cases.append(
            {
                "course": course_json(course),
                "takes": [
                    {"take_id": t.take_id, "code": t.code, "taken_at": micros(t.taken_at)}
                    for t in takes
                ],
            }
        )
        result = python_result(course, takes)
        expected.append(result)
        reasons.update(o["reason"] for o in result["outcomes"])
        categories.update(c["category"] for c in result["state"]["combinations"])
    actual = run_js(cases)["replays"]
    assert len(actual) == CASES
    for index, (js, py) in enumerate(zip(actual, expected, strict=True)):
        assert js == py, f"case {index} differs"
    # The random cases reach every rule (otherwise the comparison proves little).
    assert reasons == {None, *rules.REASONS}
    assert len(categories) >= 7


def test_the_worked_example_of_the_seed(node):
    """RULES.md §1.2 worked example: Q♥ Q♦ Q♣ 10♠ A♣, discard 10♠ A♣, K♦ 5♣, discard them,
    joker and A♠; a third discard is refused; the save is four of a kind."""
    cards = ["QH", "QD", "QC", "TS", "AC", "KD", "5C", "JK1", "AS"]
    cps = {f"C{i}": {"checkpoint_id": i, "number": i, "card": c} for i, c in enumerate(cards)}
    discards = {f"D{i}": ref for i, ref in enumerate(cps.values())}
    codes = ["C0", "C1", "C2", "C3", "C4", "D3", "D4", "C5", "C6", "D5", "D6", "C7", "C8",
             "D0", "SAVE"]  # fmt: skip
    takes = [{"take_id": i + 1, "code": c, "taken_at": micros(OPENS) + i * 60_000_000}
             for i, c in enumerate(codes)]  # fmt: skip
    course = {"opens_at": micros(OPENS), "closes_at": micros(CLOSES), "checkpoints": cps,
              "discards": discards, "save_codes": ["SAVE"]}  # fmt: skip
    (result,) = run_js([{"course": course, "takes": takes}])["replays"]
    assert result["outcomes"][13]["reason"] == "no_discards_left"
    (combination,) = result["state"]["combinations"]
    assert combination["cards"] == ["QH", "QD", "QC", "JK1", "AS"]
    assert combination["category"] == "four_of_a_kind"
    assert (combination["deal"], result["outcomes"][14]["round"]) == (1, 3)


def random_hands(rng: random.Random, count: int) -> list[list[str]]:
    """5-card hands with 0, 1 and 2 jokers, and hands built to be five of a kind,
    flushes and straights (rare at random)."""
    standard, jokers = list(DECK[:52]), list(DECK[52:])
    hands = []
    for index in range(count):
        wild = jokers[: index % 3]
        if index % 5 == 0:  # a rank repeated, so jokers can make five of a kind
            rank = rng.choice("23456789TJQKA")
            repeats = min(4, 5 - len(wild)) - rng.randint(0, 1)
            naturals = [rank + suit for suit in rng.sample("SHDC", repeats)]
        elif index % 5 == 1:  # one suit, often a straight flush or a flush
            suit, top = rng.choice("SHDC"), rng.randint(4, 12)
            naturals = [("23456789TJQKA"[r] + suit) for r in range(top - 4, top + 1)]
            naturals = rng.sample(naturals, 5 - len(wild))
        else:
            naturals = []
        rest = [card for card in standard if card not in naturals]
        naturals += rng.sample(rest, 5 - len(wild) - len(naturals))
        hands.append(rng.sample(naturals + wild, 5))
    return hands


def random_partial_hands(rng: random.Random, count: int) -> list[list[str]]:
    """1 to 4 cards with 0 to 2 jokers; every other hand from few ranks, so pairs, two
    pairs, trips and quads (with and without jokers) come up often."""
    hands = []
    for index in range(count):
        size = rng.randint(1, 4)
        wild = list(DECK[52:][: rng.randint(0, min(2, size))])
        ranks = rng.sample("23456789TJQKA", 2) if index % 2 else "23456789TJQKA"
        pool = [card for card in DECK[:52] if card[0] in ranks]
        hands.append(rng.sample(rng.sample(pool, size - len(wild)) + wild, size))
    return hands


def test_categories_of_random_hands_with_jokers(node):
    """RULES.md §1.3, I-6: the phone names a saved combination as the evaluator does."""
    hands = random_hands(random.Random(6), 3000)
    for ranking in ("seed", "classic"):
        expected = [categoriser(ranking)(hand) for hand in hands]
        assert run_js([], hands)["categories"] == expected
    assert len(set(expected)) == 11  # every category was reached


def test_values_of_random_full_hands(node):
    """RULES.md §1.3, I-5, I-6: the phone's `evaluate` gives the evaluator's category and
    English and Russian description (ranks and kickers) of every hand, in both presets."""
    hands = random_hands(random.Random(7), 3000)
    actual = run_js([], calls=[["evaluate", [hand]] for hand in hands])["calls"]
    for ranking in ("seed", "classic"):
        expected = []
        for hand in hands:
            value = evaluate(hand, ranking)
            expected.append(
                {
                    "category": value.category,
                    "description": value.description,
                    "description_ru": value.description_ru,
                }
            )
        assert actual == expected
    assert {value["category"] for value in actual} == set(CATEGORIES)


def test_partial_values_of_random_hands(node):
    """RULES.md §1.3, I-6: 1 to 4 cards get `partial_value`'s category and text."""
    hands = random_partial_hands(random.Random(8), 3000)
    actual = run_js([], calls=[["partialValue", [hand]] for hand in hands])["calls"]
    expected = [
        {"category": v.category, "description": v.description, "description_ru": v.description_ru}
        for v in map(partial_value, hands)
    ]
    assert actual == expected
    assert len({value["category"] for value in actual}) == 5  # every partial category


def test_the_hand_value_is_the_server_pages_text(node):
    """The phone's `handValue(hand, lang)` is app.web.phone.pages.hand_value in the page
    language: nothing for an empty hand, the partial value of 1–4 cards, the full
    description of 5 (both presets give the same text)."""
    rng = random.Random(9)
    hands = [[], *random_partial_hands(rng, 300), *random_hands(rng, 300)]
    calls = [["handValue", [hand, lang]] for hand in hands for lang in ("en", "ru")]
    actual = run_js([], calls=calls)["calls"]
    for ranking in ("seed", "classic"):
        expected = []
        for hand in hands:
            value = hand_value(hand, ranking)
            expected += [None, None] if value is None else list(value)
        assert actual == expected


@pytest.mark.parametrize(
    ("hand", "english", "russian"),
    [
        (["QH", "QS", "JK1"], "three of a kind, queens", "тройка дам"),
        (["JK1"], "high card, ace", "старшая карта, туз"),
        (["JK1", "JK2"], "one pair, aces", "пара тузов"),
        (["7C", "JK2", "7D", "QH"], "three of a kind, sevens", "тройка семёрок"),
        (["KH", "KS", "3D", "3C"], "two pair, kings and threes", "две пары, короли и тройки"),
        (["2S", "JK1", "JK2", "2D"], "four of a kind, twos", "каре двоек"),
        (
            ["QH", "QD", "QC", "KD", "5C"],
            "three of a kind, queens, kickers king, five",
            "тройка дам, кикеры король, пятёрка",
        ),
        (["QH", "QD", "QC", "QS", "JK1"], "five of a kind, queens", "покер дам"),
        (["AS", "2H", "3D", "4C", "JK1"], "straight, five high", "стрит до пятёрки"),
        (["AH", "KH", "QH", "JH", "JK2"], "royal flush", "флеш-рояль"),
        (["9S", "7S", "JK1", "JK2", "5S"], "straight flush, nine high", "стрит-флеш до девятки"),
        (
            ["TD", "TC", "4H", "4S", "JK1"],
            "full house, tens over fours",
            "фулл-хаус, тройка десяток и пара четвёрок",
        ),
    ],
)
def test_hand_checked_values(node, hand, english, russian):
    """Worked examples (RULES.md I-6: jokers wild, alone they are aces; no kickers under
    5 cards); the Python evaluator agrees, so the table itself is checked too."""
    (en, ru) = run_js([], calls=[["handValue", [hand, "en"]], ["handValue", [hand, "ru"]]])["calls"]
    assert (en, ru) == (english, russian)
    assert hand_value(hand, "seed") == (english, russian)
