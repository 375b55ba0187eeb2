"""Liar's Poker 2.0 pages: opening a table, the dealer assistant, a player's phone page."""

from __future__ import annotations

import re

DECK = [
    "9111111", "2111111", "7111111",  # first banknotes of seats 1, 2, 0 (seat 0 deals)
    "9222222", "3222222", "8222222",
    "9333333", "1444444", "5555555",
]  # fmt: skip


def open_table(client, deck=None) -> tuple[str, list[str]]:
    form = {"players": "Ann\nBob\nCat", "starting_stack": "100", "buy_in": "12", "rake": "2"}
    if deck:
        form["deck"] = " ".join(deck)
    response = client.post("/games/liars-holdem", data=form)
    assert response.status_code == 200, response.text
    links = re.findall(r'href="http://testserver/g/([^"]+)"', response.text)
    assert len(links) == 4  # the table link, then one per player
    return links[0], links[1:]


def test_new_table_form(client) -> None:
    response = client.get("/games/liars-holdem")
    assert response.status_code == 200
    assert 'name="players"' in response.text


def test_bad_table_shows_the_error(client) -> None:
    response = client.post("/games/liars-holdem", data={"players": "Ann\nBob"})
    assert response.status_code == 422
    assert "notice bad" in response.text


def test_dealer_assistant_and_player_pages(client) -> None:
    table, players = open_table(client, DECK)
    page = client.get(f"/g/{table}")
    assert page.status_code == 200
    # The dealer (Ann) declares: the table page offers positions 1..7 as buttons.
    assert page.text.count('"type": "declare"}') == 7
    game_id = re.search(r'data-game-id="(\d+)"', page.text).group(1)
    declared = client.post(
        f"/api/v1/games/{game_id}/actions",
        json={"action": {"type": "declare", "position": 1}},
        headers={"Authorization": f"Bearer {table}"},
    )
    assert declared.status_code == 200
    table_page = client.get(f"/g/{table}").text
    # The table shows no hidden banknote; Bob made the forced bet (10); Cat is to act.
    for serial in DECK[:6]:
        assert serial not in table_page
    assert "Call 10" in table_page or "Колл 10" in table_page
    bob = client.get(f"/g/{players[1]}").text
    assert ">9<" in bob  # Bob's base digit is shown
    assert "9111111" not in bob  # the serial is split into digit spans …
    digits = "".join(re.findall(r'class="(?:base-digit|zero|)">(\d)<', bob))
    assert "9111111" in digits and "9222222" in digits
    assert "2111111" not in digits and "7111111" not in digits  # other players' banknotes


def test_unknown_link_is_404(client) -> None:
    assert client.get("/g/not-a-token").status_code == 404


def test_pages_render_in_every_phase(client, admin) -> None:
    """A random game through the API; both pages render at every step, then after the end."""
    import random

    from app.games.liars_holdem import LiarsHoldem

    table, players = open_table(client)
    page = client.get(f"/g/{table}").text
    game_id = re.search(r'data-game-id="(\d+)"', page).group(1)
    headers = {"Authorization": f"Bearer {table}"}
    rng = random.Random(11)
    sampler = LiarsHoldem().new_initial_state(["a", "b", "c"], {}, 0)
    phases = set()
    for _ in range(60):
        game = client.get(f"/api/v1/games/{game_id}", headers=headers).json()
        if game["is_over"]:
            break
        phases.add(game["state"]["phase"])
        action = sampler.sample_action(rng.choice(game["legal_actions"]), rng)
        if action["type"] == "refuse":
            action = {"type": "reveal"}
        assert (
            client.post(
                f"/api/v1/games/{game_id}/actions", json={"action": action}, headers=headers
            ).status_code
            == 200
        )
        assert client.get(f"/g/{table}").status_code == 200
        assert client.get(f"/g/{players[0]}").status_code == 200
    assert {"declare", "betting"} <= phases
    ended = client.post(
        f"/api/v1/games/{game_id}/actions", json={"action": {"type": "end"}}, headers=admin
    )
    assert ended.status_code in (200, 409), ended.text
    final = client.get(f"/g/{players[1]}")
    assert final.status_code == 200 and ("Итог" in final.text or "Standings" in final.text)
