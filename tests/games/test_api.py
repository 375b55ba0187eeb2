"""The games API (API.md "Extra games"): creation, views by token, actions, the log."""

from __future__ import annotations

from sqlalchemy import func, select

from app.core.errors import Conflict
from app.core.principal import Kind, Principal
from app.games.models import Game as GameRow
from app.games.models import GameAction, GamePlayer

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def create(client, **body):
    payload = {"module": "liars-holdem", "players": PLAYERS, "options": {}, "seed": 7}
    payload.update(body)
    response = client.post("/api/v1/games", json=payload)
    assert response.status_code == 201, response.text
    return response.json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_modules_list_liars_holdem(client) -> None:
    response = client.get("/api/v1/games/modules")
    assert response.status_code == 200
    modules = {m["module"]: m for m in response.json()["modules"]}
    liars = modules["liars-holdem"]
    assert (liars["min_players"], liars["max_players"]) == (3, 8)
    assert {"buy_in", "rake", "ante", "starting_stack", "deck"} <= set(
        liars["options_schema"]["properties"]
    )


def test_create_returns_tokens_stored_hashed(client, session) -> None:
    game = create(client)
    assert [p["name"] for p in game["players"]] == PLAYERS
    tokens = [p["player_token"] for p in game["players"]]
    assert tokens == game["player_tokens"] and len(set(tokens)) == 4
    assert game["table_token"] not in tokens
    assert game["seq"] == 0 and game["seed"] is None  # the seed would reveal the deck
    stored = session.scalars(select(GamePlayer.token_hash)).all()
    assert not set(tokens) & set(stored)
    row = session.get(GameRow, game["id"])
    assert row.seed == 7


def test_seed_is_generated_and_recorded_when_not_given(client, session) -> None:
    response = client.post("/api/v1/games", json={"module": "liars-holdem", "players": PLAYERS})
    assert response.status_code == 201
    assert isinstance(session.get(GameRow, response.json()["id"]).seed, int)


def test_bad_creation_is_422_or_404(client) -> None:
    too_few = client.post("/api/v1/games", json={"module": "liars-holdem", "players": ["A", "B"]})
    assert too_few.status_code == 422 and too_few.json()["code"] == "invalid_options"
    bad = client.post(
        "/api/v1/games",
        json={"module": "liars-holdem", "players": PLAYERS, "options": {"deck": ["0000000"]}},
    )
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_options"
    missing = client.post("/api/v1/games", json={"module": "chess", "players": PLAYERS})
    assert missing.status_code == 404 and missing.json()["code"] == "module_not_found"


def test_views_by_token_and_actions(client, session) -> None:
    game = create(client)
    gid, tokens = game["id"], game["player_tokens"]
    # Seat 0 deals first (first_button 0): it declares the position.
    assert game["current_players"] == [0]
    assert game["legal_actions"] == [{"type": "declare", "min": 1, "max": 7}]
    not_yours = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": {"type": "declare", "position": 3}},
        headers=bearer(tokens[1]),
    )
    assert not_yours.status_code == 409
    assert not_yours.json()["code"] == "illegal_action"
    assert not_yours.json()["legal_actions"] == []
    declared = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": {"type": "declare", "position": 3}},
        headers=bearer(tokens[0]),
    )
    assert declared.status_code == 200, declared.text
    assert declared.json()["seq"] == 1
    mine = declared.json()["state"]["players"][0]["banknotes"]
    assert len(mine) == 2
    # Seat 1 sees its own banknotes only; the public view sees none.
    view1 = client.get(f"/api/v1/games/{gid}", headers=bearer(tokens[1])).json()
    assert view1["role"] == "player" and view1["seat"] == 1
    assert view1["state"]["players"][0]["banknotes"] is None
    assert len(view1["state"]["players"][1]["banknotes"]) == 2
    public = client.get(f"/api/v1/games/{gid}").json()
    assert public["role"] == "public"
    assert all(p["banknotes"] is None for p in public["state"]["players"])
    assert public["legal_actions"] == []
    # Seat 1 made the forced bet; seat 2 acts. An illegal check lists the legal ones.
    illegal = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": {"type": "check"}},
        headers=bearer(tokens[2]),
    )
    assert illegal.status_code == 409
    assert {"type": "call", "amount": 10} in illegal.json()["legal_actions"]
    # The table token acts for the seat to act.
    table = client.post(
        f"/api/v1/games/{gid}/actions?token={game['table_token']}",
        json={"action": {"type": "call"}, "expected_seq": 2 - 1},
    )
    assert table.status_code == 200, table.text
    assert table.json()["role"] == "table"
    assert table.json()["current_players"] == [3]
    stale = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": {"type": "call"}, "expected_seq": 1},
        headers=bearer(tokens[3]),
    )
    assert stale.status_code == 409 and stale.json()["code"] == "stale_state"
    public_act = client.post(f"/api/v1/games/{gid}/actions", json={"action": {"type": "call"}})
    assert public_act.status_code == 401
    count = session.scalar(select(func.count()).select_from(GameAction))
    assert count == 2  # refused actions store nothing


def test_wrong_token_is_401_and_unknown_game_404(client) -> None:
    game = create(client)
    other = create(client)
    response = client.get(f"/api/v1/games/{game['id']}", headers=bearer(other["player_tokens"][0]))
    assert response.status_code == 401 and response.json()["code"] == "invalid_game_token"
    assert client.get("/api/v1/games/999999").json()["code"] == "game_not_found"


def test_conflicting_append_is_409(client, engine) -> None:
    """Optimistic concurrency: two writers load the same log; the second append fails."""
    from app.core.db import make_sessionmaker
    from app.games import service

    game = create(client)
    factory = make_sessionmaker(engine)
    first, second = factory(), factory()
    viewer = Principal(Kind.TABLE, game_id=game["id"])
    loaded_first = service.load(first, game["id"])
    first.commit()  # end the read transaction (SQLite takes its write lock at BEGIN)
    loaded_second = service.load(second, game["id"])
    second.commit()
    declare = {"type": "declare", "position": 2}
    service.act(first, loaded_first, viewer, declare)
    first.commit()
    try:
        service.act(second, loaded_second, viewer, declare)
        raise AssertionError("the second append with seq 0 was accepted")
    except Conflict as exc:
        assert exc.code == "action_conflict"
    finally:
        second.rollback()
        first.close()
        second.close()
    assert client.get(f"/api/v1/games/{game['id']}").json()["seq"] == 1


def test_organiser_ends_the_game(client, admin) -> None:
    game = create(client, options={"starting_stack": 100})
    gid = game["id"]
    ended = client.post(
        f"/api/v1/games/{gid}/actions", json={"action": {"type": "end"}}, headers=admin
    )
    assert ended.status_code == 200, ended.text
    body = ended.json()
    assert body["is_over"] is True and body["seed"] == 7
    # The hand in progress is cancelled: each buy-in of 12 returns its ante of 10;
    # the rake (2 each) stays with the organiser → 98 each.
    assert [s["stack"] for s in body["result"]["standings"]] == [98, 98, 98, 98]


def test_evaluate_endpoint(client) -> None:
    response = client.post(
        "/api/v1/games/modules/liars-holdem/evaluate",
        json={"serials": ["7123456", "7234561", "3456712"], "position": 1},
    )
    assert response.status_code == 200
    # Bases at position 1: 7, 7, 3; no zeros → natural pair of 7s with kicker 3.
    assert response.json() == {
        "category": "pair",
        "values": [7, 7, 3],
        "natural": True,
        "serials": ["7123456", "7234561", "3456712"],
        "strength": [1, 7, 1, 3],
    }
    bad = client.post(
        "/api/v1/games/modules/liars-holdem/evaluate",
        json={"serials": ["0000000", "1111111", "2222222"], "position": 1},
    )
    assert bad.status_code == 422


def test_replay_of_a_stored_game_gives_the_same_state(client, session) -> None:
    """A game played through the API, then its stored log replayed into a new game with
    the same seed and options: every seat's view and the public view are the same."""
    import random

    from app.games.base import REGISTRY

    game = create(client, options={"starting_stack": 60}, seed=4242)
    gid, table = game["id"], game["table_token"]
    rng = random.Random(3)
    state_rules = REGISTRY["liars-holdem"]
    for _ in range(40):
        current = client.get(f"/api/v1/games/{gid}", headers=bearer(table)).json()
        if current["is_over"]:
            break
        probe = state_rules.new_initial_state(PLAYERS, {}, 0)  # only for sample_action
        action = probe.sample_action(rng.choice(current["legal_actions"]), rng)
        response = client.post(
            f"/api/v1/games/{gid}/actions", json={"action": action}, headers=bearer(table)
        )
        assert response.status_code == 200, response.text
    log = session.scalars(
        select(GameAction).where(GameAction.game_id == gid).order_by(GameAction.seq)
    ).all()
    assert [row.seq for row in log] == list(range(len(log))) and len(log) > 5
    session.commit()  # release the SQLite write lock before the next requests
    copy = create(client, options={"starting_stack": 60}, seed=4242)
    for row in log:
        response = client.post(
            f"/api/v1/games/{copy['id']}/actions",
            json={"action": row.action, "seat": row.seat},
            headers=bearer(copy["table_token"]),
        )
        assert response.status_code == 200, response.text
    for seat in range(4):
        original = client.get(f"/api/v1/games/{gid}", headers=bearer(game["player_tokens"][seat]))
        replayed = client.get(
            f"/api/v1/games/{copy['id']}", headers=bearer(copy["player_tokens"][seat])
        )
        assert original.json()["state"] == replayed.json()["state"]
    assert (
        client.get(f"/api/v1/games/{gid}").json()["state"]
        == client.get(f"/api/v1/games/{copy['id']}").json()["state"]
    )


def test_a_physical_deck_is_not_shown_until_the_game_is_over(client) -> None:
    deck = [f"{d}{d}{d}{d}{d}{d}{d}" for d in range(1, 10)] + ["1234567", "7654321"]
    game = create(client, options={"deck": deck, "rake": 1})
    assert game["options"] == {"rake": 1, "deck_size": 11}
    public = client.get(f"/api/v1/games/{game['id']}").json()
    assert "1111111" not in str(public)
    mine = client.get(f"/api/v1/games/{game['id']}", headers=bearer(game["player_tokens"][0]))
    assert mine.json()["options"] == {"rake": 1, "deck_size": 11}
    ended = client.post(
        f"/api/v1/games/{game['id']}/actions",
        json={"action": {"type": "end"}},
        headers=bearer(game["table_token"]),
    )
    assert ended.json()["options"]["deck"] == deck and ended.json()["seed"] == 7
    # A player cannot end the game: "end" is not one of a seat's actions.
    other = create(client)
    refused = client.post(
        f"/api/v1/games/{other['id']}/actions",
        json={"action": {"type": "end"}},
        headers=bearer(other["player_tokens"][0]),
    )
    assert refused.status_code == 409 and refused.json()["code"] == "illegal_action"


def test_concurrent_actions_from_threads_append_once(client, session) -> None:
    """Six devices send the dealer's declaration at once: one is stored, the others are
    refused with 409 (a conflicting append, or illegal on the fresh state)."""
    from concurrent.futures import ThreadPoolExecutor

    game = create(client)
    table = bearer(game["table_token"])

    def send(position: int) -> tuple[int, str | None]:
        response = client.post(
            f"/api/v1/games/{game['id']}/actions",
            json={"action": {"type": "declare", "position": position}, "seat": 0},
            headers=table,
        )
        return response.status_code, response.json().get("code")

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(send, range(1, 7)))
    assert sorted(status for status, _ in results) == [200, 409, 409, 409, 409, 409]
    assert {code for status, code in results if status == 409} <= {
        "action_conflict",
        "illegal_action",
    }
    count = session.scalar(
        select(func.count()).select_from(GameAction).where(GameAction.game_id == game["id"])
    )
    assert count == 1
