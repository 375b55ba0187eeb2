"""Codes typed or scanned in the field: normalisation shared by setup and the feed."""

from __future__ import annotations

import base64
import re
import secrets

_URL_CODE = re.compile(r"/t/([^/?#\s]+)/?(?:[?#].*)?$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s\-_]+")


def normalize_code(text: str) -> str:
    """The canonical form of a code as typed or scanned.

    Accepts the whole QR URL (`https://host/t/CODE`) as well as the bare code;
    matching is case-insensitive and ignores spaces and dashes (and underscores).
    Returns uppercase text; an empty string when nothing is left.
    """
    text = text.strip()
    match = _URL_CODE.search(text)
    if match:
        text = match.group(1)
    return _SEPARATORS.sub("", text).upper()


# RFC 4648 base32 (A–Z, 2–7): URL-safe and unchanged by upper-casing.
CP_CODE_BYTES = 15  # 120 bits of randomness -> 24 base32 characters
# Short codes typed on a phone: no look-alikes (0/O/D/Q, 1/I/L, 2/Z, 5/S, 8/B).
SHORT_CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
SHORT_CODE_LENGTH = 6


def new_cp_code() -> str:
    """A fresh secret CP code: base32 of 15 random bytes (120 bits), 24 characters.

    Already in normalised form (uppercase A–Z and 2–7), so it matches itself after
    `normalize_code`, whatever the case of what is scanned or typed.
    """
    return base64.b32encode(secrets.token_bytes(CP_CODE_BYTES)).decode("ascii")


def new_short_code() -> str:
    """A fresh discard or save code: 6 characters from `SHORT_CODE_ALPHABET` (~27.9 bits).

    Uniqueness inside an event is the caller's job (see `unique_short_code`).
    """
    base = len(SHORT_CODE_ALPHABET)
    number = secrets.randbelow(base**SHORT_CODE_LENGTH)  # one draw: uniform over every code
    letters = []
    for _ in range(SHORT_CODE_LENGTH):
        number, digit = divmod(number, base)
        letters.append(SHORT_CODE_ALPHABET[digit])
    return "".join(letters)


def unique_short_code(taken: set[str]) -> str:
    """A short code not in `taken`; adds it to `taken` and returns it."""
    while True:
        code = new_short_code()
        if code not in taken:
            taken.add(code)
            return code
