"""The gettext catalogues (app/locale, docs/translating.md): every message of the template
in every language with the same placeholders, the template up to date with the code,
CLDR plural forms, and no module changing the catalogue."""

from __future__ import annotations

import gettext
import re
import string
from io import BytesIO
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from app.web.i18n import LANGUAGES, LOCALE_DIR, catalogue_path, count, translate
from tools import i18n as tool

APP = Path(__file__).resolve().parents[2] / "app"


def read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def strings(message: Message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def fields(text: str) -> set[str]:
    """The `str.format` placeholders of `text` ({name} -> "name")."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


TEMPLATE = read(LOCALE_DIR / "messages.pot")
TEMPLATE_IDS = sorted(m.id if isinstance(m.id, str) else m.id[0] for m in TEMPLATE if m.id)


def test_every_language_has_a_catalogue_and_every_catalogue_a_language():
    on_disk = sorted(p.parents[1].name for p in LOCALE_DIR.glob("*/LC_MESSAGES/messages.po"))
    assert on_disk == sorted(LANGUAGES) == ["en", "ru"]
    assert len(TEMPLATE_IDS) > 700  # the 788 keys of the converted dictionaries, and more


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_of_the_template_is_translated(lang: str):
    catalog = read(catalogue_path(lang))
    ids = sorted(m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id)
    assert ids == TEMPLATE_IDS, "run `make messages`"
    untranslated = [m.id for m in catalog if m.id and not all(strings(m))]
    assert untranslated == []
    assert [m.id for m in catalog if m.id and m.fuzzy] == []


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_placeholders_match_english(lang: str):
    english = {m.id: strings(m) for m in read(catalogue_path("en")) if m.id}
    differ = [
        (m.id, sorted(fields(text)), sorted(fields(english[m.id][0])))
        for m in read(catalogue_path(lang))
        if m.id
        for text in strings(m)
        if fields(text) != fields(english[m.id][0])
    ]
    assert differ == []


def test_placeholders_are_read_from_the_texts():
    assert fields("Сдача {deal}, раунд {round}") == {"deal", "round"}
    assert translate("ru", "game.deal_round", deal=2, round=3) == "Сдача 2, раунд 3"
    assert translate("en", "game.deal_round", deal=2, round=3) == "Deal 2, round 3"


def test_the_template_is_what_babel_extracts_from_the_code():
    """`make messages` was run: a key a call site names is in messages.pot, and a key
    no call site (nor app/web/runtime_messages.py) names is not."""
    assert sorted(tool.extracted_keys()) == TEMPLATE_IDS


def test_extraction_skips_a_symlink_out_of_the_tree(tmp_path: Path):
    """A worktree whose `.venv` or `node_modules` is a symlink to elsewhere: the walk's
    filter says no to it instead of failing (`make messages` used to raise ValueError)."""
    outside = tmp_path / "venv"
    outside.mkdir()
    link = tool.ROOT / ".symlink-walk-test"
    link.symlink_to(outside, target_is_directory=True)
    try:
        assert tool._in_app(str(link)) is False
    finally:
        link.unlink()
    assert tool._in_app(str(tool.ROOT / "app" / "web")) is True
    assert tool._in_app(str(tool.ROOT)) is True


# --- plural forms, worked out by hand ---------------------------------------------------


def compiled(lang: str, forms: tuple[str, ...]) -> gettext.GNUTranslations:
    """A one-message catalogue ("participant", Babel's CLDR Plural-Forms of `lang`)."""
    catalog = Catalog(locale=lang)
    catalog.add(("participant", "participants"), forms)
    mo = BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    return gettext.GNUTranslations(mo)


def test_russian_plural_forms_by_the_cldr_rule():
    ru = compiled("ru", ("участник", "участника", "участников"))
    said = {n: f"{n} {ru.ngettext('participant', 'participants', n)}" for n in (1, 2, 5, 21)}
    assert said == {1: "1 участник", 2: "2 участника", 5: "5 участников", 21: "21 участник"}
    assert ru.ngettext("participant", "participants", 11) == "участников"
    assert ru.ngettext("participant", "participants", 14) == "участников"
    assert ru.ngettext("participant", "participants", 104) == "участника"


def test_english_plural_forms_by_the_cldr_rule():
    en = compiled("en", ("participant", "participants"))
    assert [en.ngettext("participant", "participants", n) for n in (1, 2, 0)] == [
        "participant",
        "participants",
        "participants",
    ]


def test_the_catalogue_nouns_agree_with_their_number():
    assert [count("ru", n, "noun.take") for n in (1, 3, 5, 11, 21, 22, 112)] == [
        "1 взятие",
        "3 взятия",
        "5 взятий",
        "11 взятий",
        "21 взятие",
        "22 взятия",
        "112 взятий",
    ]
    assert [count("ru", n, "noun.of_participant") for n in (1, 2, 5, 21)] == [
        "1 участника",
        "2 участников",
        "5 участников",
        "21 участника",
    ]
    assert [count("en", n, "noun.of_participant") for n in (1, 2)] == [
        "1 participant",
        "2 participants",
    ]
    assert count("en", 1, "noun.take") == "1 take"
    assert count("en", 0, "noun.take") == "0 takes"


# --- the catalogue is data, not code --------------------------------------------------------


def test_no_module_changes_the_catalogue():
    changes = re.compile(r"MESSAGES\.(setdefault|update|__setitem__)|MESSAGES\[[^]]+\]\s*=")
    offenders = [
        str(path.relative_to(APP))
        for path in APP.rglob("*.py")
        if changes.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_a_missing_message_falls_back_to_english_then_to_the_key():
    assert translate("ru", "no.such.key") == "no.such.key"
    assert translate("xx", "signout") == translate("ru", "signout") == "Выйти"
    assert translate("en", "signout") == "Sign out"
