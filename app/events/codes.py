"""Codes typed or scanned in the field: normalisation shared by setup and the feed."""

from __future__ import annotations

import re

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
