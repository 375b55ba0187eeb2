"""The table-game pages render their shells (the state itself comes from the games API)."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_poker_dice_pages(client: TestClient) -> None:
    new = client.get("/games/poker-dice")
    assert new.status_code == 200
    assert 'data-module="poker-dice"' in new.text and "/static/table_games.js" in new.text
    sheet = client.get("/games/poker-dice/42", cookies={"lang": "en"})
    assert sheet.status_code == 200
    assert 'data-game-id="42"' in sheet.text and "/static/dice.js" in sheet.text
    # the 17 columns of the sheet, in order (RULES.md §3)
    assert 'data-columns="ones,twos,threes,fours,fives,sixes,subtotal,pair,' in sheet.text
    assert "Poker dice" in sheet.text


def test_locus_poker_pages(client: TestClient) -> None:
    new = client.get("/games/locus-poker")
    assert new.status_code == 200
    assert 'value="8x6"' in new.text and 'value="greedy"' in new.text
    grid = client.get("/games/locus-poker/7")
    assert grid.status_code == 200
    assert 'data-game-id="7"' in grid.text and "/static/locus.js" in grid.text
    assert "Локус-покер" in grid.text  # Russian by default


def test_static_assets_are_served(client: TestClient) -> None:
    for name in ("table_games.js", "dice.js", "locus.js", "table_games.css"):
        assert client.get(f"/static/{name}").status_code == 200
