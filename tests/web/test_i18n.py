"""The message catalogue covers every key the pages use, in both languages."""

from __future__ import annotations

import re

from app.events.rules import EVENT_STATUSES
from app.feed.rules import REASONS
from app.poker.evaluator import CATEGORIES
from app.web.i18n import MESSAGES, translate
from app.web.templating import TEMPLATES_DIR

PAGE_DIRS = ("participant", "admin")
LITERAL_KEY = re.compile(r"""(?<![\w.])_\(\s*'([a-z0-9_.]+)'\s*[,)]""")


def literal_keys() -> set[str]:
    keys: set[str] = set()
    for folder in PAGE_DIRS:
        for path in (TEMPLATES_DIR / folder).glob("*.html"):
            keys |= set(LITERAL_KEY.findall(path.read_text(encoding="utf-8")))
    keys |= set(LITERAL_KEY.findall((TEMPLATES_DIR / "base.html").read_text(encoding="utf-8")))
    return keys


def test_every_literal_key_of_the_pages_is_in_the_catalogue():
    assert literal_keys(), "the pattern found no keys at all"
    assert sorted(k for k in literal_keys() if k not in MESSAGES) == []


def test_every_composed_key_is_in_the_catalogue():
    composed = (
        [f"reason.{r}" for r in (*REASONS, "voided")]
        + [f"category.{c}" for c in CATEGORIES]
        + [f"kind.{k}" for k in ("card", "discard", "save", "unknown")]
        + [f"event.status.{s}" for s in EVENT_STATUSES]
        + [f"admin.status.{s}" for s in ("pending", "open", "closed")]
    )
    assert [k for k in composed if k not in MESSAGES] == []


def test_both_languages_differ_and_format():
    assert translate("ru", "reason.hand_full") != translate("en", "reason.hand_full")
    assert translate("en", "next.collect", count=3) == "Keep collecting: 3 more card(s) needed."
    assert translate("ru", "no.such.key") == "no.such.key"
