"""The one Jinja2 environment of the service; templates live in `app/templates/`.

Every template gets the globals `card(code)` (a card's display form, `Q♥`, `10♠`,
`Joker`) and `card_colour(code)`. Pages rendered with `app.web.common.render` also get
`page_context(request)`: `lang` (page language), `t(key, **values)` (the message
catalogue of `app.web.i18n`) and `csrf_token` (for forms); values the caller passes win.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates

from app.web import i18n

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

try:  # the poker package owns card names
    from app.poker.cards import display as _poker_display
except ImportError:  # pragma: no cover - before the poker package lands
    _poker_display = None


def display_card(code: str | None) -> str:
    """Display form of a canonical card code (`QH` → `Q♥`, `TS` → `10♠`, `JK1` → `Joker`)."""
    if not code:
        return ""
    if _poker_display is not None:
        try:
            return _poker_display(code)
        except Exception:  # a non-canonical code: fall back to the simple form
            pass
    if code.startswith("JK"):
        return "Joker"
    rank, suit = code[:-1], code[-1:]
    return ("10" if rank == "T" else rank) + _SUITS.get(suit, suit)


def card_colour(code: str | None) -> str:
    """`red` for hearts and diamonds, `joker` for jokers, else `black` (for styling)."""
    if not code:
        return "black"
    if code.startswith("JK"):
        return "joker"
    return "red" if code[-1:] in ("H", "D") else "black"


def page_context(request: Request) -> dict[str, Any]:
    """Context shared by every page (see the module docstring)."""
    from app.web.sessions import csrf_token  # late: sessions imports settings only

    lang = i18n.negotiate(request)
    return {
        "lang": lang,
        "t": i18n.translator(lang),
        "csrf_token": csrf_token(request),
        "card": display_card,
        "card_colour": card_colour,
    }


templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
templates.env.globals.update(card=display_card, card_colour=card_colour)
