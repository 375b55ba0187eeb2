"""Pages of the table games: poker dice (a shared score sheet) and Locus Poker (a grid).

Both are hot-seat pages for one device: the page creates the game through the games
API (`POST /api/v1/games`), keeps the returned player tokens in the browser
(localStorage) and sends each action with the token of the seat to act
(`POST /api/v1/games/{id}/actions`). The server renders only the shell; a small
script (`/static/dice.js`, `/static/locus.js`) draws the state it reads from
`GET /api/v1/games/{id}`. Without the tokens (another device) the page shows the
public view read-only.

- `GET /games/poker-dice` new game; `GET /games/poker-dice/{game_id}` the sheet;
- `GET /games/locus-poker` new game; `GET /games/locus-poker/{game_id}` the grid.

A token link `/g/{token}` of one of these games (`app.web.tables.liars_table`) redirects to
`page_link(...)`: the page with the token in the fragment `#p=...`, which the
script stores on the device and removes from the address bar.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request, Response

from app.core.types import PathId
from app.games.locus_poker import GRID_SIZES
from app.games.poker_dice import COLUMNS
from app.web import i18n
from app.web.common import render

router = APIRouter(include_in_schema=False)

# The pages' messages are in app/locale/*/LC_MESSAGES/messages.po (docs/translating.md).

# module -> the path of its page (the game id appended); the pages `/g/{token}` hands over to.
PAGES: dict[str, str] = {"poker-dice": "/games/poker-dice/", "locus-poker": "/games/locus-poker/"}

DICE_JS_KEYS = i18n.message_ids("games.", "dice.")
LOCUS_JS_KEYS = i18n.message_ids("games.", "locus.")


def page_link(module: str, game_id: int, token: str, seat: int | None) -> str | None:
    """The page of game `game_id` opened with `token`, or None when `module` has no page here.

    The token travels in the fragment as `/static/table_games.js` reads it:
    `#p=<table token>,<seat 0 token>,<seat 1 token>,...` (empty parts allowed). A table
    token (`seat` None) fills the first part; a player token of `seat` stands at its seat
    with the other parts empty. The fragment never reaches a server or its logs.
    """
    path = PAGES.get(module)
    if path is None:
        return None
    parts = [token] if seat is None else [""] * (seat + 1) + [token]
    return f"{path}{game_id}#p={quote(','.join(parts), safe=',')}"


def _strings(request: Request, keys: list[str]) -> dict[str, str]:
    lang = i18n.negotiate(request)
    return {key: i18n.translate(lang, key) for key in keys}


@router.get("/games/poker-dice")
def dice_new(request: Request) -> Response:
    """The form that starts a poker dice game for a table."""
    return render(request, "tables/dice_new.html", {"strings": _strings(request, DICE_JS_KEYS)})


@router.get("/games/poker-dice/{game_id}")
def dice_sheet(game_id: PathId, request: Request) -> Response:
    """The shared score sheet of poker dice game `game_id` (drawn by /static/dice.js)."""
    return render(
        request,
        "tables/dice_sheet.html",
        {
            "game_id": game_id,
            "columns": list(COLUMNS),
            "strings": _strings(request, DICE_JS_KEYS),
        },
    )


@router.get("/games/locus-poker")
def locus_new(request: Request) -> Response:
    """The form that starts a Locus Poker game (two people or one against the computer)."""
    return render(
        request,
        "tables/locus_new.html",
        {"sizes": list(GRID_SIZES), "strings": _strings(request, LOCUS_JS_KEYS)},
    )


@router.get("/games/locus-poker/{game_id}")
def locus_grid(game_id: PathId, request: Request) -> Response:
    """The grid of Locus Poker game `game_id` (drawn by /static/locus.js)."""
    return render(
        request,
        "tables/locus_grid.html",
        {"game_id": game_id, "strings": _strings(request, LOCUS_JS_KEYS)},
    )
