"""Pages of Liar's Poker 2.0 hold'em: the dealer assistant and each player's phone.

- `GET /games/liars-holdem` — the form that opens a table (names, money, deck);
- `POST /games/liars-holdem` — creates the game through the games service and shows,
  once, the table link and every player's link (with QR codes): tokens are stored
  hashed and cannot be shown again;
- `GET /g/{token}` — the table token: the dealer assistant (board, pots, stacks,
  whose turn, the legal actions as buttons, acting for the seat to act); a player
  token: that player's view (their own banknotes and best hand; buttons when it is
  their turn). The pages are rendered on the server; a small script
  (`/static/liars.js`) sends actions to `POST /api/v1/games/{id}/actions` with the
  page's token and reloads when the game's `seq` changes.
  `/g/{token}` serves every module: a token of a poker dice or Locus Poker game is
  redirected (303) to that game's page (`app.web.tables.extra_games.page_link`); an unknown
  token gets a neutral "link not found" page (404).
"""

from __future__ import annotations

import io
from typing import Annotated, Any

import qrcode
import qrcode.image.svg
from fastapi import APIRouter, Form, Request, Response

from app.core import guard
from app.core.deps import SessionDep
from app.core.errors import AppError
from app.core.principal import identify
from app.games import service
from app.games.deps import GAME_KINDS
from app.web.common import render, see_other
from app.web.tables.extra_games import page_link

router = APIRouter(include_in_schema=False)
MODULE = "liars-holdem"

# The pages' messages are in app/locale/*/LC_MESSAGES/messages.po (docs/translating.md).


def qr_svg(url: str) -> str:
    """An inline SVG QR code of `url`."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=8)
    buffer = io.BytesIO()
    image.save(buffer)
    return buffer.getvalue().decode("utf-8").split("?>", 1)[-1]


@router.get("/games/liars-holdem")
def new_table(request: Request) -> Response:
    """The form that opens a Liar's Poker 2.0 table."""
    return render(request, "tables/liars_new.html", {"error": None, "form": {}})


@router.post("/games/liars-holdem")
def create_table(
    request: Request,
    session: SessionDep,
    players: Annotated[str, Form()],
    starting_stack: Annotated[int, Form()] = 1000,
    buy_in: Annotated[int, Form()] = 12,
    rake: Annotated[int, Form()] = 2,
    deck: Annotated[str, Form()] = "",
) -> Response:
    """Create the game; show the table link and the players' links once (tokens are hashed)."""
    names = [line.strip() for line in players.splitlines() if line.strip()]
    options: dict[str, Any] = {"starting_stack": starting_stack, "buy_in": buy_in, "rake": rake}
    serials = deck.split()
    if serials:
        options["deck"] = serials
    form = {"players": players, "starting_stack": starting_stack, "buy_in": buy_in}
    form.update({"rake": rake, "deck": deck})
    try:
        loaded, tokens, table_token = service.create_game(session, MODULE, names, options, None)
    except AppError as exc:
        return render(
            request, "tables/liars_new.html", {"error": exc.detail, "form": form}, status=422
        )
    base = str(request.base_url).rstrip("/")
    links = [
        {"name": seat.name, "url": f"{base}/g/{token}", "qr": qr_svg(f"{base}/g/{token}")}
        for seat, token in zip(loaded.seats, tokens, strict=True)
    ]
    return render(
        request,
        "tables/liars_created.html",
        {"table_url": f"{base}/g/{table_token}", "links": links, "game_id": loaded.game.id},
    )


@router.get("/g/{token}")
def table_or_player(token: str, request: Request, session: SessionDep) -> Response:
    """The page a table or player token opens, for a game of any module.

    Liar's Poker: the dealer assistant (table token) or a player's phone page (player
    token). Poker dice, Locus Poker: 303 to the game's page with the token in the
    fragment. An unknown token (or a module without a page): 404 "link not found".
    """
    principal = identify(request, session, token, GAME_KINDS)
    if principal is None or principal.game_id is None:
        guard.mark_failed(request)
        return render(request, "tables/link_missing.html", {}, status=404)
    game_id, viewer = principal.game_id, principal
    loaded = service.load(session, game_id)
    if loaded.game.module != MODULE:
        link = page_link(loaded.game.module, game_id, token, viewer.seat)
        if link is None:
            return render(request, "tables/link_missing.html", {}, status=404)
        return see_other(link)
    game = service.read(loaded, viewer)
    names = {p["seat"]: p["name"] for p in game["players"]}
    return render(
        request,
        "tables/liars_table.html",
        {"game": game, "view": game["state"], "names": names, "token": token},
    )
