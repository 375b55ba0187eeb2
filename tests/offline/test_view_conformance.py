"""What the offline phone shows (app/static/offline/view.js) against what /me shows.

The same seeded random take sequences go through the feed (`app.feed.ingest.ingest`, in
a few deliveries, in order of receipt) and are read back with the participant's view the
server's pages draw (`app.web.phone.pages.game_view` over
`app.feed.views.participant_view`); the same takes (ids, codes, field times) and the
event's deck go to view.js under Node. Hand with discard codes, deal, round, discard
step, discards and save codes left, next step, saved combinations, the log with only
the cards the participant has seen (RULES.md I-1: `hand_full` takes and cards of CPs
they never took stay hidden) and the seen cards must be equal. Takes are late and out
of order (I-4), outside the course window, repeated, of other CPs' discard codes, of
other participants' save codes, typed as QR URLs or with dashes. One Node process per
test; tests/offline/test_rules_conformance.py holds the rules engine itself.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.events.models import Checkpoint, Event, Participant
from app.feed.ingest import ingest
from app.web.phone.pages import game_view
from tests.factories import DECK, make_event, make_participant

NODE = shutil.which("node") or "/usr/bin/node"
RUNNER = Path(__file__).with_name("view_runner.js")
OPENS = datetime(2026, 6, 13, 9, 0, tzinfo=UTC)
CLOSES = OPENS + timedelta(hours=6)
CASES = 60  # participants of one event, each with their own random sequence


def micros(moment: datetime) -> int:
    return round((moment - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(microseconds=1))


def course_json(session: Session, event: Event, save_codes: list[str]) -> dict:
    """The event's deck as view.js takes it (the engine's course; refs by CP id)."""
    checkpoints, discards = {}, {}
    for cp in session.scalars(select(Checkpoint).where(Checkpoint.event_id == event.id)):
        ref = {"checkpoint_id": cp.id, "number": cp.number, "card": cp.card}
        checkpoints[cp.code] = ref
        discards[cp.discard_code] = ref
    return {
        "opens_at": micros(event.opens_at),
        "closes_at": micros(event.closes_at),
        "checkpoints": checkpoints,
        "discards": discards,
        "save_codes": save_codes,
    }


def random_codes(rng: random.Random, event: Event, own: list[str], other: list[str]) -> list[str]:
    """5–40 codes: CPs of a few cards (each up to 4 times), their discard codes, discard
    codes of CPs never taken, own and another participant's save codes, junk; some as a
    QR URL or typed with dashes."""
    cards = rng.sample(DECK, rng.randint(6, 12))
    never = rng.sample([c for c in DECK if c not in cards], 2)
    pool = (
        [f"CP{card}SECRETCODE{event.id}" for card in cards] * 4
        + [f"D{card}" for card in cards] * 3
        + [f"D{card}" for card in never]
        + own * 2
        + other[:1]
        + ["ZZZZ"]
    )
    codes = []
    for _ in range(rng.randint(5, 40)):
        code = rng.choice(pool)
        if rng.random() < 0.1:
            code = f"https://poker.example/t/{code.lower()}"
        elif rng.random() < 0.1:
            code = f" {code[:3]}-{code[3:]} "
        codes.append(code)
    return codes


def field_times(rng: random.Random, count: int) -> list[datetime]:
    """Field times mostly in order, ties, late ones (earlier than the last) and a few
    outside the course window."""
    moment, times = OPENS - timedelta(minutes=rng.choice([0, 0, 0, 5])), []
    for _ in range(count):
        moment += timedelta(seconds=rng.choice([0, 1, 7, 60, 600]))
        taken_at = moment
        if rng.random() < 0.15:
            taken_at = moment - timedelta(minutes=rng.randint(1, 90))
        if rng.random() < 0.03:
            taken_at = CLOSES + timedelta(seconds=rng.randint(-2, 2))
        times.append(taken_at + timedelta(microseconds=rng.randint(0, 999_999)))
    return times


def deliver(
    session: Session, event: Event, rng: random.Random, ext: str, codes: list[str]
) -> list[dict]:
    """The takes through the feed in 1–3 deliveries (in order of receipt); the takes
    as view.js gets them (stored ids, codes as sent, field times in µs)."""
    times = field_times(rng, len(codes))
    items = [
        {"participant": ext, "code": code, "taken_at": at.isoformat(), "source": "app",
         "source_id": f"{ext}-{i}"}
        for i, (code, at) in enumerate(zip(codes, times, strict=True))
    ]  # fmt: skip
    cuts = sorted(rng.sample(range(1, len(items)), min(2, len(items) - 1)))
    takes = []
    for start, end in zip([0, *cuts], [*cuts, len(items)], strict=True):
        results = ingest(session, event, items[start:end], recorded_by="organiser")
        session.commit()
        for item, result in zip(items[start:end], results, strict=True):
            assert result.status == "accepted", result
            at = datetime.fromisoformat(item["taken_at"])
            takes.append({"take_id": result.take_id, "code": item["code"], "taken_at": micros(at)})
    return takes


def python_view(session: Session, participant: Participant) -> dict:
    """What /me shows (`game_view`), in view.js's shape."""
    view = game_view(session, participant)
    state, shown = view.state, view.shown
    return {
        "deal": view.deal,
        "round": view.round,
        "discarding": state.discarding,
        "discards_left": view.discards_left,
        "save_codes_left": view.save_codes_left,
        "next": view.next,
        "missing": view.missing,
        "hand": [{"card": h.card, "discard_code": h.discard_code} for h in view.hand],
        "combinations": [
            {"id": c.id, "cards": c.cards, "category": c.category, "deal": c.deal}
            for c in state.combinations
        ],
        "takes": [
            {
                "take_id": t.take_id,
                "kind": t.kind,
                "outcome": t.outcome,
                "reason": t.reason,
                "card": t.card,
                "checkpoint": t.checkpoint,
                "deal": t.deal,
                "round": t.round,
                "discard_code": shown.take_discard_code(t),
            }
            for t in state.takes
        ],
        "seen": sorted(shown.seen),
    }


def run_js(cases: list[dict]) -> list[dict]:
    done = subprocess.run(
        [NODE, str(RUNNER)],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(done.stdout)["views"]


@pytest.fixture(scope="module")
def node() -> str:
    if not Path(NODE).exists():
        pytest.skip("node is missing: apt-get install nodejs")
    return NODE


def test_random_take_sequences_give_the_same_participant_view(node, session: Session):
    rng = random.Random(25)
    event = make_event(
        session,
        opens_at=OPENS,
        closes_at=CLOSES,
        save_codes_per_participant=3,
        hand_ranking="classic",
    )
    other = make_participant(session, event, "999")
    session.commit()
    cases, expected = [], []
    for index in range(CASES):
        ext = str(100 + index)
        mine = make_participant(session, event, ext)
        session.commit()
        takes = deliver(
            session, event, rng, ext, random_codes(rng, event, mine.save_codes, other.save_codes)
        )
        cases.append({"course": course_json(session, event, mine.save_codes), "takes": takes})
        expected.append(python_view(session, session.get(Participant, mine.id)))
    actual = run_js(cases)
    for index, (js, py) in enumerate(zip(actual, expected, strict=True)):
        assert js == py, f"case {index} differs"
    # The random cases reach what the view hides and every next step (else the
    # comparison proves little).
    takes = [t for view in expected for t in view["takes"]]
    assert any(t["reason"] == "hand_full" and t["card"] is None for t in takes)
    assert any(t["kind"] == "discard" and t["card"] is None for t in takes)
    assert any(t["reason"] == "outside_course_hours" for t in takes)
    assert {view["next"] for view in expected} == {
        "collect",
        "discarding",
        "draw",
        "decide",
        "must_save",
    }
    assert any(view["combinations"] for view in expected)
