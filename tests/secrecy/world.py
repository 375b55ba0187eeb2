"""The secrecy walk's world: one database with an event in each phase, and the callers.

Phases (issue 23 item 3), one event each, plus another event for the outsider:

- `course`: the course is open; A holds five cards and then scanned CP 10 (`hand_full`:
  the CP's card is not hers, RULES.md I-1); B holds five cards (three of them A's too)
  and scanned CP 10 as well.
- `auction_open`: the course is over; the auction for 3rd place is open: A bid her
  straight and replaced it with her four of a kind, B bid his flush (sealed, I-7).
- `closed`: the same bids, the round closed and not revealed (I-21).
- `finished`: the same bids, closed and revealed; 2nd place: B's full house alone;
  1st place without bids. A's replaced straight is never revealed.

Every participant has distinctive save codes and every CP distinctive codes, so that a
leak is a substring of a response, and the secrets are read back from the database
(`secrets_of`), not from what this module meant to store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.core.members import create_member
from app.events.models import Checkpoint, Event, SaveCode
from tests.conftest import ADMIN_TOKEN
from tests.factories import make_combination, make_event, make_participant
from tests.web.test_signin import admin_login

PHASES = ("course", "auction_open", "closed", "finished")
MEMBER_ROLES = ("owner", "judge", "desk", "ceremony", "screen")  # issue 29: a caller each
CALLERS = (
    "anonymous",
    "A",
    "B",
    "outsider",
    "integration_key",
    "game_seat",
    "organiser",
    *(f"member_{role}" for role in MEMBER_ROLES),
)
SECRETS_AS = {  # whose secrets a member caller must not read (app.web.roles)
    **{f"member_{role}": "organiser" for role in ("owner", "judge", "desk", "ceremony")},
    "member_screen": "anonymous",  # the hall's view plus the projector
}

OPENS = datetime(2026, 6, 12, 9, 0, tzinfo=UTC)
CLOSES = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)
DURING = OPENS + timedelta(hours=3)

# Hands of the auction phases (seed preset: four of a kind above a straight flush).
HANDS = {
    "A": {
        "A_quads": ["9S", "9H", "9D", "9C", "2C"],  # four of a kind, nines: wins 3rd
        "A_straight": ["8S", "7H", "6D", "5C", "4S"],  # straight, 8 high: replaced, sealed
    },
    "B": {
        "B_flush": ["KH", "JH", "8H", "4H", "3H"],  # flush, king high: loses 3rd
        "B_full": ["QS", "QD", "QC", "TH", "TS"],  # full house: wins 2nd alone
        "B_kept": ["AS", "AD", "6S", "6C", "3C"],  # two pair: never bid
    },
}
HAND_FULL_CP = 10  # the CP A and B scan with a full hand


@dataclass
class PhaseWorld:
    """One phase's event, its people and the caller clients."""

    phase: str
    event_id: int
    external: dict[str, str]  # "A"/"B" -> external id
    tokens: dict[str, str]  # "A"/"B" -> personal access token
    take_ids: dict[str, int] = field(default_factory=dict)  # "A"/"B" -> a take of theirs
    receipt: str = ""  # A's counted bid's receipt (auction phases)
    key: str = ""  # the event's integration key
    members: dict[str, str] = field(default_factory=dict)  # role -> the member's token


def team(session: Session, event_id: int) -> dict[str, str]:
    """An organiser member of each role for `event_id` (committed): role -> token."""
    tokens = {role: create_member(session, event_id, f"M {role}", role)[1] for role in MEMBER_ROLES}
    session.commit()
    return tokens


def _distinct_codes(session: Session, event: Event) -> None:
    """Discard codes that occur nowhere else (the factories' `D<card>` repeat per event)."""
    for checkpoint in session.scalars(select(Checkpoint).where(Checkpoint.event_id == event.id)):
        checkpoint.discard_code = f"DISC{checkpoint.card}V{event.id}W"
    session.flush()


def _person(session: Session, event: Event, name: str):
    person = make_participant(session, event, f"{name}{event.id}X")
    codes = [f"SAVE{name}{event.id}Y{i}Z" for i in range(1, len(person.save_codes) + 1)]
    for position, code in enumerate(codes, start=1):
        session.execute(
            update(SaveCode)
            .where(SaveCode.participant_id == person.id, SaveCode.position == position)
            .values(code=code)
        )
    person.save_codes = codes
    return person


def _scan(client: TestClient, token: str, code: str) -> dict:
    response = client.post(
        "/api/v1/scan", json={"code": code}, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 200, response.text
    return response.json()


def build_course(client: TestClient, session: Session) -> PhaseWorld:
    """The `course` phase: A holds CPs 1-5, B CPs 3-7; both scanned CP 10 with a full hand."""
    now = datetime.now(UTC)
    event = make_event(
        session, opens_at=now - timedelta(hours=1), closes_at=now + timedelta(hours=5)
    )
    _distinct_codes(session, event)
    people = {who: _person(session, event, who) for who in ("A", "B")}
    event_id = event.id
    session.commit()
    codes = {
        c.number: c.code
        for c in session.scalars(select(Checkpoint).where(Checkpoint.event_id == event_id))
    }
    session.rollback()  # SQLite: a read left open would hold the write lock the app needs
    world = PhaseWorld(
        "course",
        event_id,
        {w: p.external_id for w, p in people.items()},
        {w: p.access_token for w, p in people.items()},
    )
    for who, numbers in (("A", range(1, 6)), ("B", range(3, 8))):
        for number in numbers:
            result = _scan(client, people[who].access_token, codes[number])
            assert result["outcome"] == "counted", result
        full = _scan(client, people[who].access_token, codes[HAND_FULL_CP])
        assert (full["outcome"], full["reason"], full.get("card")) == (
            "rejected",
            "hand_full",
            None,
        ), full
        world.take_ids[who] = result["take_id"]
    return world


def build_auction(client: TestClient, session: Session, phase: str) -> PhaseWorld:
    """An auction phase: 3rd place open with A's replaced and B's bid, then as `phase` says."""
    event = make_event(session, opens_at=OPENS, closes_at=CLOSES)
    _distinct_codes(session, event)
    people = {who: _person(session, event, who) for who in ("A", "B")}
    combos = {}
    for who, named in HANDS.items():
        for offset, (name, cards) in enumerate(named.items()):
            combos[name] = make_combination(
                session, event, people[who], cards, DURING + timedelta(minutes=offset)
            ).id
    event_id = event.id
    session.commit()
    world = PhaseWorld(
        phase,
        event_id,
        {w: p.external_id for w, p in people.items()},
        {w: p.access_token for w, p in people.items()},
    )
    world.take_ids = {who: combos[next(iter(HANDS[who]))] for who in HANDS}  # the save takes
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    url = f"/api/v1/events/{event_id}/auctions"

    def post(path: str, status: int = 200, **kwargs) -> dict:
        response = client.post(url + path, **kwargs)
        assert response.status_code == status, response.text
        return response.json()

    def bid(who: str, combo: str, place: int) -> dict:
        headers = {"Authorization": f"Bearer {people[who].access_token}"}
        return post(f"/{place}/bids", 201, headers=headers, json={"combination_id": combos[combo]})

    post("/3/open", headers=admin)
    bid("A", "A_straight", 3)
    world.receipt = bid("A", "A_quads", 3)["receipt"]
    bid("B", "B_flush", 3)
    if phase == "auction_open":
        return world
    assert post("/3/close", headers=admin)["winner"] == people["A"].external_id
    if phase == "closed":
        return world
    post("/3/reveal", headers=admin, json={"all": True})
    post("/2/open", headers=admin)
    bid("B", "B_full", 2)
    post("/2/close", headers=admin)
    post("/2/reveal", headers=admin, json={"all": True})
    post("/1/open", headers=admin)
    post("/1/close", headers=admin)
    post("/1/reveal", headers=admin, json={"all": True})
    return world


def build_outsider(session: Session) -> tuple[int, str]:
    """Another event with participant X and a combination of hers: (event id, X's token)."""
    event = make_event(session, opens_at=OPENS, closes_at=CLOSES, name="Other rogaine")
    _distinct_codes(session, event)
    person = _person(session, event, "X")
    make_combination(session, event, person, ["5S", "5H", "5D", "JC", "JD"], DURING)
    event_id = event.id
    session.commit()
    return event_id, person.access_token


def integration_key(client: TestClient, event_id: int) -> str:
    response = client.post(
        f"/api/v1/events/{event_id}/integration-keys",
        json={"name": "field app"},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
    )
    assert response.status_code == 201, response.text
    return response.json()["key"]


def game_seat(client: TestClient) -> tuple[int, str]:
    """A poker dice game (no cards): (game id, the first seat's token)."""
    response = client.post(
        "/api/v1/games", json={"module": "poker-dice", "players": ["Ann", "Bob"], "seed": 7}
    )
    assert response.status_code == 201, response.text
    return response.json()["id"], response.json()["player_tokens"][0]


def caller_client(
    app, who: str, world: PhaseWorld, outsider_token: str, seat_token: str
) -> TestClient:
    """A client that is `who`: the cookie of the pages and the header of the API."""
    client = TestClient(app, follow_redirects=False)
    if who in ("A", "B", "outsider"):
        token = outsider_token if who == "outsider" else world.tokens[who]
        assert client.get(f"/p/{token}").status_code == 303
        client.headers["Authorization"] = f"Bearer {token}"
    elif who == "organiser":
        admin_login(client)
        client.headers["Authorization"] = f"Bearer {ADMIN_TOKEN}"
    elif who == "integration_key":
        client.headers["X-Integration-Key"] = world.key
    elif who == "game_seat":
        client.headers["Authorization"] = f"Bearer {seat_token}"
    elif who.startswith("member_"):
        token = world.members[who.removeprefix("member_")]
        assert client.get(f"/o/{token}").status_code == 303
        client.headers["Authorization"] = f"Bearer {token}"
    return client
