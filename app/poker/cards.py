"""Cards of the 54-card deck: canonical codes, parsing of every notation, display forms.

Pure module (no I/O). RULES.md §1.3: ranks 2 3 4 5 6 7 8 9 10 J Q K A, suits ♠ ♥ ♦ ♣,
two jokers. API.md "Cards": the canonical code is the rank `2`–`9`, `T`, `J`, `Q`, `K`,
`A` followed by the suit `S` `H` `D` `C` (`QH`, `TS`, `2C`); the jokers are `JK1` and
`JK2`. Accepted notations (case-insensitive, surrounding blanks ignored):

- ASCII `QH`, `10H`, `TH`; Unicode suits `Q♥`, `10♥` (also the outline suits ♤ ♡ ♢ ♧
  and an emoji variation selector after the suit);
- Russian rank letters `Т` (туз) = A, `К` = K, `Д` (дама) = Q, `В` (валет) = J, with
  a suit symbol or letter (`Д♥`, `ДH`, `ТS`). Note the Cyrillic `Т` is the ace while
  the Latin `T` is the ten;
- the Unicode playing-card characters 🂡 … 🃞 (the knights 🂬 🂼 🃌 🃜 are not cards of
  this deck);
- jokers: `JK1`, `JK2`, or a generic spelling `JK`, `JOKER`, `Дж`, `🃏`, `🃟` (and 🂿);
  in one hand two generic spellings are the two jokers (`parse_hand`).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.errors import AppError

RANKS = "23456789TJQKA"
"""Rank characters of the canonical codes, lowest first (rank value = index + 2)."""
SUITS = "SHDC"
"""Suit characters of the canonical codes: spades, hearts, diamonds, clubs."""
JOKERS = ("JK1", "JK2")

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_DISPLAY = {r: ("10" if r == "T" else r) for r in RANKS}

DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in reversed(RANKS)) + JOKERS
"""The 54 canonical codes: A♠…2♠, A♥…2♥, A♦…2♦, A♣…2♣, then JK1, JK2."""
_CANONICAL = frozenset(DECK)

_GENERIC_JOKER = "JK"  # what `_parse_token` returns for a generic joker spelling

_SUIT_ALIASES = {
    "S": "S",
    "H": "H",
    "D": "D",
    "C": "C",
    "♠": "S",
    "♥": "H",
    "♦": "D",
    "♣": "C",
    "♤": "S",
    "♡": "H",
    "♢": "D",
    "♧": "C",
    # Cyrillic look-alikes typed on a Russian keyboard layout: С (es) and Н (en).
    "С": "C",
    "Н": "H",
}
_RANK_ALIASES = {r: r for r in RANKS} | {
    "10": "T",
    "Т": "A",  # Cyrillic Т, туз
    "К": "K",  # Cyrillic К, король
    "Д": "Q",  # дама
    "В": "J",  # валет
}
_GENERIC_JOKER_SPELLINGS = frozenset({"JK", "JOKER", "ДЖ", "ДЖОКЕР", "🃏", "🃟", "🂿"})


def _unicode_cards() -> dict[str, str]:
    """The Unicode playing-card characters U+1F0A1…U+1F0DE mapped to canonical codes."""
    table: dict[str, str] = {}
    # Low nibble: 1 = ace, 2..A = 2..10, B = jack, C = knight (not in this deck), D = Q, E = K.
    nibble_rank = {1: "A", 11: "J", 13: "Q", 14: "K"} | {n: RANKS[n - 2] for n in range(2, 11)}
    for block, suit in zip((0x1F0A0, 0x1F0B0, 0x1F0C0, 0x1F0D0), SUITS, strict=True):
        for nibble, rank in nibble_rank.items():
            table[chr(block + nibble)] = rank + suit
    return table


_UNICODE_CARDS = _unicode_cards()
_KNIGHTS = frozenset(chr(block + 12) for block in (0x1F0A0, 0x1F0B0, 0x1F0C0, 0x1F0D0))


class CardError(AppError):
    """A token that is not a card of the deck (`invalid_card`) or a hand holding the
    same card twice (`duplicate_card`): 422. The message names the bad token."""

    status, code = 422, "invalid_card"

    def __init__(self, detail: str, *, code: str = "invalid_card", token: str | None = None):
        extra = {} if token is None else {"token": token}
        super().__init__(detail, code=code, **extra)
        self.token = token


def _invalid(text: object, why: str = "") -> CardError:
    suffix = f" ({why})" if why else ""
    return CardError(f"{text!r} is not a card of the deck{suffix}.", token=str(text))


def _parse_token(text: str) -> str:
    """Canonical code of one token, or `_GENERIC_JOKER` for a generic joker spelling."""
    if not isinstance(text, str):
        raise _invalid(text, "a card is a string")
    token = "".join(text.split()).replace("\ufe0f", "").upper()
    if token in _CANONICAL:
        return token
    if token in _GENERIC_JOKER_SPELLINGS:
        return _GENERIC_JOKER
    if token in _UNICODE_CARDS:
        return _UNICODE_CARDS[token]
    if token in _KNIGHTS:
        raise _invalid(text, "knights are not cards of this deck")
    if len(token) >= 2:
        rank = _RANK_ALIASES.get(token[:-1])
        suit = _SUIT_ALIASES.get(token[-1])
        if rank is not None and suit is not None:
            return rank + suit
    raise _invalid(text)


def parse_card(text: str) -> str:
    """The canonical code of one card in any notation of API.md ("Q♥" -> "QH").

    A generic joker spelling ("JOKER", "Дж", "🃏") is `JK1`. Raises CardError
    (`invalid_card`, naming `text`) for anything that is not a card of the deck.
    """
    code = _parse_token(text)
    return JOKERS[0] if code == _GENERIC_JOKER else code


def parse_hand(texts: Sequence[str]) -> list[str]:
    """Canonical codes of several cards, in the order given.

    Generic joker spellings become the jokers not named explicitly, JK1 first
    (two generic spellings are JK1 and JK2). Raises CardError: `invalid_card` for a
    token that is not a card, `duplicate_card` when the same card appears twice
    (including a third joker). Any number of cards is accepted; callers check it.
    """
    if isinstance(texts, str):
        raise CardError("Cards must be given as a list of card codes.", token=texts)
    codes = [_parse_token(text) for text in texts]
    seen: set[str] = set()
    for text, code in zip(texts, codes, strict=True):
        if code == _GENERIC_JOKER:
            continue
        if code in seen:
            raise CardError(
                f"{text!r} is the card {code} a second time.", code="duplicate_card", token=text
            )
        seen.add(code)
    if _GENERIC_JOKER in codes:
        free = [joker for joker in JOKERS if joker not in seen]
        for i, (text, code) in enumerate(zip(texts, codes, strict=True)):
            if code != _GENERIC_JOKER:
                continue
            if not free:
                raise CardError(
                    f"{text!r} is a third joker; the deck has two.",
                    code="duplicate_card",
                    token=text,
                )
            codes[i] = free.pop(0)
    return codes


def is_joker(code: str) -> bool:
    """True for the canonical joker codes JK1 and JK2."""
    return code in JOKERS


def rank_value(code: str) -> int:
    """Rank of a canonical standard card code, 2..14 (ace 14)."""
    return RANKS.index(code[0]) + 2


def display(code: str) -> str:
    """The display form of a canonical code: "QH" -> "Q♥", "TS" -> "10♠", "JK1" -> "Joker"."""
    if code in JOKERS:
        return "Joker"
    if code not in _CANONICAL:
        raise _invalid(code, "not a canonical code")
    return RANK_DISPLAY[code[0]] + SUIT_SYMBOLS[code[1]]
