"""Codes typed or scanned in the field: normalisation shared by setup and the feed."""

from __future__ import annotations

import base64
import hashlib
import math
import re
import secrets
from collections.abc import Iterable

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
    return typed_lookalikes(_SEPARATORS.sub("", text).upper())


# The typed form of a CP code (issue 26 point 2): printed on the CP tile under the QR,
# for a QR that is wet, iced or torn. 18 characters (84.6 bits) from an alphabet where no
# two characters look alike, printed in groups of 3; what a reader may take for one of
# them is read back as it (0/O/D/Q, 1/I/L, 2/Z, 5/S, 6/G, 8/B, U/V).
TYPED_ALPHABET = "0123456789ACEFHJKMNPRTUWXY"
TYPED_LENGTH = 18
TYPED_GROUP = 3
TYPED_LOOKALIKES = {"O": "0", "D": "0", "Q": "0", "I": "1", "L": "1", "Z": "2", "S": "5",
                    "G": "6", "B": "8", "V": "U"}  # fmt: skip
TYPED_INFO = b"rogaine-typed/v1|"
_CP_CODE_SHAPE = re.compile(r"[A-Z2-7]{24}")


def typed_lookalikes(code: str) -> str:
    """`code` (upper case, no separators) read as a typed form when, with look-alikes
    mapped (`TYPED_LOOKALIKES`), it is `TYPED_LENGTH` characters of `TYPED_ALPHABET`;
    otherwise unchanged. Only the 20-character shape is mapped, so no other code (24
    characters of base32, 6-character discard and save codes) ever changes."""
    if len(code) != TYPED_LENGTH:
        return code
    mapped = "".join(TYPED_LOOKALIKES.get(c, c) for c in code)
    return mapped if all(c in TYPED_ALPHABET for c in mapped) else code


def is_typed_form(code: str) -> bool:
    """Whether a normalised code has the shape of a typed form."""
    return len(code) == TYPED_LENGTH and all(c in TYPED_ALPHABET for c in code)


def looks_like_cp_code(code: str) -> bool:
    """Whether a normalised code has the shape of a generated CP code: its typed form
    (`is_typed_form`) or the 24 base32 characters of `new_cp_code`. The shape only: it
    says nothing about whether such a CP exists (a typed guess learns nothing)."""
    return is_typed_form(code) or bool(_CP_CODE_SHAPE.fullmatch(code))


def typed_form(code: str) -> str:
    """The typed form of a normalised CP code: SHA-256(`rogaine-typed/v1|` + code), its
    first 11 bytes big-endian mod 26**18, as 18 base-26 digits of `TYPED_ALPHABET` (most
    significant first). A code that already has that shape is its own typed form. The
    phone computes the same (`app/static/offline/deck.js`)."""
    if is_typed_form(code):
        return code
    digest = hashlib.sha256(TYPED_INFO + code.encode("utf-8")).digest()
    number = int.from_bytes(digest[:11], "big") % len(TYPED_ALPHABET) ** TYPED_LENGTH
    digits = []
    for _ in range(TYPED_LENGTH):
        number, digit = divmod(number, len(TYPED_ALPHABET))
        digits.append(TYPED_ALPHABET[digit])
    return "".join(reversed(digits))


def grouped(typed: str) -> str:
    """A typed form as printed: groups of 3 joined by spaces (`7KX 20M …`, 6 groups)."""
    return " ".join(typed[i : i + TYPED_GROUP] for i in range(0, len(typed), TYPED_GROUP))


# RFC 4648 base32 (A–Z, 2–7): URL-safe and unchanged by upper-casing.
CP_CODE_BYTES = 15  # 120 bits of randomness -> 24 base32 characters
# Short codes typed on a phone: no look-alikes (0/O/D/Q, 1/I/L, 2/Z, 5/S, 8/B).
SHORT_CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
SHORT_CODE_LENGTH = 6


MIN_CODE_BITS = 80  # a CP code opens its deck entry offline: that search must cost this much
SERIES_MIN = 3  # a prefix or suffix shared with another given code this long is a series
RUN_MIN = 3  # from this many equal characters in a row, the rest of the run counts nothing


def code_strength_bits(code: str, others: Iterable[str] = ()) -> float:
    """A rough upper bound of a given CP code's strength, in bits (issue 26 point 5).

    `code` normalised; `others`: the other codes given with it. The characters that tell
    it apart from the others count (a prefix or suffix of 3 or more characters shared with
    another given code, as in `CPCODE01`…`CPCODE54`, is known to whoever knows one of
    them), a run of equal characters counts as 2 at most, and each counted character is
    worth log2 of the alphabet
    its character classes span (digits 10, letters 26, both 36). Example: `CPCODE01`
    next to `CPCODE02` keeps 1 character: 3.3 bits; 16 random letters and digits:
    82.7 bits."""
    prefix = suffix = 0
    for other in others:
        if other == code:
            continue
        prefix = max(prefix, _shared(code, other))
        suffix = max(suffix, _shared(code[::-1], other[::-1]))
    # 1 or 2 shared characters happen by chance between random codes: only a longer
    # shared part is a series
    prefix = prefix if prefix >= SERIES_MIN else 0
    suffix = suffix if suffix >= SERIES_MIN else 0
    core = code[prefix : max(prefix, len(code) - suffix)]
    counted = [
        c for i, c in enumerate(core) if not (i >= RUN_MIN - 1 and core[i - RUN_MIN + 1 : i + 1]
                                             == c * RUN_MIN)
    ]  # fmt: skip
    size = (10 if any(c.isdigit() for c in code) else 0) + (
        26 if any(c.isalpha() for c in code) else 0
    )
    return len(counted) * math.log2(size) if size else 0.0


def _shared(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share."""
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


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
