"""No raw code on a Russian page: every reason, status, category, source and error code
the pages can show has a Russian and an English message (issue 16)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.events.rules import EVENT_STATUSES
from app.feed.ingest import ORGANISER_SOURCE, PHONE_SOURCE
from app.feed.rules import REASONS
from app.poker.evaluator import CATEGORIES
from app.web.i18n import MESSAGES, label, translate

APP = Path(__file__).resolve().parents[2] / "app"
# Domains whose errors reach the organiser's and participants' pages (not the table games).
PAGE_DOMAINS = ("events", "feed", "auctions", "web")
# Flows whose errors reach the pages too (the archive import is API only).
PAGE_FLOWS = ("course.py", "ceremony.py", "dashboard.py", "event_setup.py")
ERROR_CODE = re.compile(r'code="([a-z_]+)"')
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def raised_codes() -> set[str]:
    codes: set[str] = set()
    for domain in PAGE_DOMAINS:
        for path in (APP / domain).rglob("*.py"):
            codes |= set(ERROR_CODE.findall(path.read_text(encoding="utf-8")))
    for name in PAGE_FLOWS:
        codes |= set(ERROR_CODE.findall((APP / "flows" / name).read_text(encoding="utf-8")))
    return codes


def codes_to_translate() -> list[str]:
    return (
        [f"reason.{r}" for r in (*REASONS, "voided")]
        + [f"reason_short.{r}" for r in (*REASONS, "voided")]
        + [f"event.status.{s}" for s in EVENT_STATUSES]
        + [f"admin.status.{s}" for s in ("pending", "open", "closed")]
        + [f"category.{c}" for c in CATEGORIES]
        + [f"outcome.{o}" for o in ("counted", "rejected", "voided")]
        + [f"kind.{k}" for k in ("card", "discard", "save", "unknown")]
        + [f"source.{s}" for s in (PHONE_SOURCE, ORGANISER_SOURCE)]
        + [f"ranking.{r}" for r in ("seed", "classic")]
        + [f"error.{code}" for code in sorted(raised_codes())]
    )


def test_the_domains_raise_codes_at_all():
    assert {"csv_invalid", "deck_in_play", "participant_has_takes"} <= raised_codes()


@pytest.mark.parametrize("key", codes_to_translate())
def test_every_code_has_both_translations(key: str):
    assert key in MESSAGES, f"{key} is missing from app/locale/*/LC_MESSAGES/messages.po"
    russian, english = MESSAGES[key]
    assert CYRILLIC.search(russian), f"{key}: the Russian text has no Russian word"
    assert english and not CYRILLIC.search(english), f"{key}: the English text"
    assert russian != english


def test_a_label_translates_a_known_code_and_keeps_an_unknown_source():
    assert label("ru", "reason_short", "duplicate") == "повтор КП"
    assert label("en", "reason_short", "duplicate") == "duplicate"
    assert label("ru", "source", "fixpoint-app") == "fixpoint-app"
    assert translate("ru", "error.csv_invalid").startswith("В CSV есть ошибки")
