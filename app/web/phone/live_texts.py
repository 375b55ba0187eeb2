"""What the live pages need from the server besides the stream (texts for the phone)."""

from __future__ import annotations

from app.web.i18n import MESSAGES, translate

# Messages the phone ceremony page uses to show a closed auction from its `auction`
# message (live-stream.js), with {place}/{name}/{number} left for the script to fill.
CLOSED_AUCTION_KEYS = (
    "ceremony.place",
    "ceremony.closed",
    "ceremony.winner",
    "ceremony.no_winner",
    "ceremony.results",
    "ceremony.round",
    "ceremony.tie",
    "ceremony.revealing",
    "ceremony.revealing_help",
    "ceremony.bids_in",
    "ceremony.sealed_left",
    "card.joker",
)


def closed_auction_texts(lang: str) -> dict[str, str]:
    """`{key: text}` in `lang` of CLOSED_AUCTION_KEYS and every poker category name."""
    keys = [*CLOSED_AUCTION_KEYS, *(k for k in MESSAGES if k.startswith("category."))]
    placeholders = {"place": "{place}", "name": "{name}", "number": "{number}", "count": "{count}"}
    return {key: translate(lang, key, **placeholders) for key in keys if key in MESSAGES}
