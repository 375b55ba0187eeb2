"""The table-game pages render their shells (the state itself comes from the games API)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.web.assets import static_url


def test_poker_dice_pages(client: TestClient) -> None:
    new = client.get("/games/poker-dice")
    assert new.status_code == 200
    assert 'data-module="poker-dice"' in new.text and static_url("table_games.js") in new.text
    sheet = client.get("/games/poker-dice/42", cookies={"lang": "en"})
    assert sheet.status_code == 200
    assert 'data-game-id="42"' in sheet.text and static_url("dice.js") in sheet.text
    # the 17 columns of the sheet, in order (RULES.md §3)
    assert 'data-columns="ones,twos,threes,fours,fives,sixes,subtotal,pair,' in sheet.text
    assert "Poker dice" in sheet.text


def test_locus_poker_pages(client: TestClient) -> None:
    new = client.get("/games/locus-poker")
    assert new.status_code == 200
    assert 'value="8x6"' in new.text and 'value="greedy"' in new.text
    grid = client.get("/games/locus-poker/7")
    assert grid.status_code == 200
    assert 'data-game-id="7"' in grid.text and static_url("locus.js") in grid.text
    assert "Локус-покер" in grid.text  # Russian by default


def test_static_assets_are_served(client: TestClient) -> None:
    for name in ("table_games.js", "dice.js", "locus.js", "table_games.css"):
        assert client.get(f"/static/{name}").status_code == 200


def _create(client: TestClient, module: str, players: list[str]) -> dict:
    created = client.post("/api/v1/games", json={"module": module, "players": players})
    assert created.status_code == 201, created.text
    return created.json()


def test_game_links_open_the_poker_dice_sheet(client: TestClient) -> None:
    game = _create(client, "poker-dice", ["Ann", "Bob", "Cat"])
    table, bob = game["table_token"], game["player_tokens"][1]
    # The table token fills the first part of `#p=`; Bob's (seat 1) the third, as
    # table_games.js reads `#p=<table>,<seat 0>,<seat 1>,...`.
    expected = {table: f"#p={table}", bob: f"#p=,,{bob}"}
    for token, fragment in expected.items():
        hop = client.get(f"/g/{token}", follow_redirects=False)
        assert hop.status_code == 303
        assert hop.headers["location"] == f"/games/poker-dice/{game['id']}{fragment}"
        page = client.get(f"/g/{token}")
        assert page.status_code == 200
        assert f'data-game-id="{game["id"]}"' in page.text and static_url("dice.js") in page.text
        assert "Покер в кости" in page.text and "Лжепокер" not in page.text


def test_game_links_open_the_locus_grid(client: TestClient) -> None:
    game = _create(client, "locus-poker", ["Ola", "Pia"])
    table, ola = game["table_token"], game["player_tokens"][0]
    expected = {table: f"#p={table}", ola: f"#p=,{ola}"}  # Ola sits at seat 0
    for token, fragment in expected.items():
        hop = client.get(f"/g/{token}", follow_redirects=False)
        assert hop.status_code == 303
        assert hop.headers["location"] == f"/games/locus-poker/{game['id']}{fragment}"
        page = client.get(f"/g/{token}")
        assert page.status_code == 200
        assert f'data-game-id="{game["id"]}"' in page.text and static_url("locus.js") in page.text
        assert "Локус-покер" in page.text and "Лжепокер" not in page.text


def test_unknown_game_link_is_a_neutral_404(client: TestClient) -> None:
    page = client.get("/g/not-a-token")
    assert page.status_code == 404
    assert "Ссылка не найдена" in page.text
    assert "Лжепокер" not in page.text
    english = client.get("/g/not-a-token", cookies={"lang": "en"})
    assert english.status_code == 404
    assert "Link not found" in english.text and "Liar" not in english.text
