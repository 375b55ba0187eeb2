"""The table-game pages in Chromium: poker dice at one table, Locus Poker against the computer.

Scores are worked out by hand from RULES.md §3 and §4 (see tests/games/).
"""

from __future__ import annotations

import httpx
import pytest

from tests.games.test_locus_poker import GRID
from tests.web.conftest import WAIT_S, axe_violations, screenshot, wait_until

pytestmark = pytest.mark.browser


def sheet_cell(page, row: int, seat: int) -> str:
    """Text of the sheet cell in body row `row` (0 = ones) for player `seat`."""
    return page.locator(f"#sheet tbody tr >> nth={row}").locator("td").nth(seat).inner_text()


def test_poker_dice_physical_dice_at_one_table(live_server, phone):
    page = phone.new_page()
    page.goto(f"{live_server.url}/games/poker-dice")
    page.fill("#players", "Anna\nBoris")
    page.check("input[name=dice][value=physical]")
    page.get_by_role("button", name="Начать игру").click()
    page.wait_for_url(f"{live_server.url}/games/poker-dice/*")

    def roll(values: list[int]) -> None:
        for i, value in enumerate(values):
            select = page.locator("#physical-inputs select").nth(i)
            if select.is_enabled():
                select.select_option(str(value))
        count = page.locator("#dice .die").count()
        page.locator("#roll").click()
        wait_until(
            page,
            f"document.querySelectorAll('#dice .die').length !== {count} || "
            "document.getElementById('status').textContent.indexOf('Boris') >= 0",
        )

    page.wait_for_selector("#physical-inputs select")
    roll([1, 1, 1, 1, 1])  # Anna 5
    page.wait_for_selector("#roll:has-text('Boris')")
    roll([6, 6, 6, 6, 6])  # Boris 30: Boris starts (I-16)
    page.wait_for_selector("#roll-off-list li.starts")
    assert "Boris" in page.locator("#roll-off-list li.starts").inner_text()

    roll([5, 5, 5, 2, 1])
    for i in range(3):  # keep the three fives
        page.locator("#dice .die").nth(i).click()
    assert page.locator("#physical-inputs select:disabled").count() == 3
    page.locator("#physical-inputs select").nth(3).select_option("5")
    page.locator("#roll").click()
    page.wait_for_selector("#dice:has-text('2 из 3')")
    # four fives written into "fives": +3*5 = 15 (I-18)
    page.locator("#sheet button.write", has_text="+15").click()
    page.wait_for_selector("#last-move:not([hidden])")
    assert sheet_cell(page, 4, 1) == "+15"
    assert "Anna" in page.locator("#status").inner_text()
    assert axe_violations(page) == []
    screenshot(page, "poker-dice-sheet-360")


def test_poker_dice_solo_game_to_the_end(live_server, desk):
    page = desk.new_page()
    page.goto(f"{live_server.url}/games/poker-dice")
    page.fill("#players", "Solo")
    page.get_by_role("button", name="Начать игру").click()
    page.wait_for_url(f"{live_server.url}/games/poker-dice/*")
    for turn in range(15):
        page.locator("#roll").click()
        page.wait_for_selector("#sheet button.write")
        page.locator("#sheet button.write").first.click()
        wait_until(
            page,
            f"document.querySelectorAll('#sheet td').length > 0 && "
            f"Array.from(document.querySelectorAll('#sheet tbody td')).filter("
            f"td => td.textContent && !td.querySelector('button')).length >= {turn + 3}",
        )
    page.wait_for_selector("#result:not([hidden])")
    total = page.locator("#sheet tbody tr").last.locator("td").first.inner_text()
    assert page.locator("#result tbody td").nth(0).inner_text() == "1"  # place
    assert page.locator("#result tbody td").nth(2).inner_text() == total


def test_locus_poker_against_the_computer(live_server, phone):
    created = httpx.post(
        f"{live_server.url}/api/v1/games",
        json={
            "module": "locus-poker",
            "players": ["Ola", "Computer"],
            "options": {"grid": GRID, "opponent": "greedy"},
        },
        timeout=WAIT_S,
    ).json()
    tokens = ",".join([created["table_token"], *created["player_tokens"]])
    page = phone.new_page()
    page.goto(f"{live_server.url}/games/locus-poker/{created['id']}#p={tokens}")
    page.wait_for_selector(".locus-card")
    assert page.locator(".locus-card").count() == 30
    page.locator(".locus-card").nth(1 * 6 + 1).click()  # (1,1) 2♣, a 9-card area
    assert page.locator(".locus-card.area").count() == 9
    # hearts 5-9 around it: straight flush 11, no chips yet (I-19)
    page.wait_for_selector("#play-up:has-text('11')")
    assert "11" in page.locator("#play-down").inner_text()  # the joker cannot beat 11
    page.locator("#play-up").click()
    # the computer replies at (0,1): straight flush 11 + orthogonal chip 2 = 13
    page.wait_for_selector("#turns li >> nth=1")
    scores = page.locator("#scores .value").all_inner_texts()
    assert scores == ["11", "13"]
    assert page.locator(".locus-card.chip-p1").count() == 1
    assert axe_violations(page) == []
    screenshot(page, "locus-poker-360")


def test_player_link_hands_the_token_to_the_locus_page(live_server, phone):
    """`/g/{player_token}` → the grid with the token kept on the phone; the player moves."""
    created = httpx.post(
        f"{live_server.url}/api/v1/games",
        json={
            "module": "locus-poker",
            "players": ["Ola", "Computer"],
            "options": {"grid": GRID, "opponent": "greedy"},
        },
        timeout=WAIT_S,
    ).json()
    ola = created["player_tokens"][0]
    page = phone.new_page()
    page.goto(f"{live_server.url}/g/{ola}")
    page.wait_for_selector(".locus-card")
    assert page.url == f"{live_server.url}/games/locus-poker/{created['id']}"  # fragment gone
    assert page.locator("#readonly").is_hidden()
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('rogaine-game-{created['id']}'))")
    assert kept == {"table_token": None, "player_tokens": [ola]}
    page.locator(".locus-card").nth(1 * 6 + 1).click()  # as in the game above: 11 face up
    page.wait_for_selector("#play-up:has-text('11')")
    page.locator("#play-up").click()
    page.wait_for_selector("#turns li >> nth=1")  # Ola's move and the computer's reply
