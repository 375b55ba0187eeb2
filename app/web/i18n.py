"""The pages' messages: gettext catalogues read with Babel, Russian by default, English on
request (cookie `lang`); docs/translating.md tells how to add a message or a language.

A message id is a key ("game.hello"); its texts are in `app/locale/<lang>/LC_MESSAGES/
messages.po`, extracted from the code and templates by `make messages` (Babel, babel.cfg).
The `.po` files are read once, at the first message (`read_po`, compiled in memory, no
build step). `translate(lang, key, **values)` formats a message with `str.format`; a
message missing from a language falls back to English, and a key missing from the
catalogues is shown as is, so a forgotten message is visible on the page instead of
breaking it. Plurals follow the CLDR rules of each language (`count`).
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator, Mapping
from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from fastapi import Request

LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"
FALLBACK_LANGUAGE = "en"
LANG_COOKIE = "lang"
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"


def catalogue_path(lang: str) -> Path:
    """`app/locale/<lang>/LC_MESSAGES/messages.po`."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"


@cache
def translations(lang: str) -> gettext.GNUTranslations:
    """The catalogue of `lang` (one of `LANGUAGES`) as gettext translations, read from its
    `.po` with Babel and compiled in memory; untranslated and fuzzy entries are left out,
    so they fall back to English (and English to the key). Raises OSError without a file."""
    with catalogue_path(lang).open("rb") as po:
        catalog = read_po(po, locale=lang)
    mo = BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    compiled = gettext.GNUTranslations(mo)
    if lang != FALLBACK_LANGUAGE:
        compiled.add_fallback(translations(FALLBACK_LANGUAGE))
    return compiled


@cache
def message_texts(lang: str) -> dict[str, str | tuple[str, ...]]:
    """key -> the text of `lang` as the `.po` holds it (the forms of a plural noun as a
    tuple; "" when untranslated)."""
    with catalogue_path(lang).open("rb") as po:
        catalog = read_po(po, locale=lang)
    return {
        m.id if isinstance(m.id, str) else m.id[0]: m.string if isinstance(m.string, str)
        else tuple(m.string)
        for m in catalog
        if m.id
    }  # fmt: skip


def message_ids(*prefixes: str) -> list[str]:
    """The catalogue's keys starting with one of `prefixes` (every key without), sorted:
    the strings a script receives (`scan.`, `dice.`…)."""
    return sorted(k for k in message_texts(FALLBACK_LANGUAGE) if k.startswith(prefixes or ""))


class _Messages(Mapping[str, tuple[str, ...]]):
    """key -> its texts in `LANGUAGES` order (a plural noun's forms joined with `|`): a
    read-only view of the catalogues for code that lists keys (`key in MESSAGES`)."""

    def __getitem__(self, key: str) -> tuple[str, ...]:
        texts = tuple(message_texts(lang).get(key) for lang in LANGUAGES)
        if texts[LANGUAGES.index(FALLBACK_LANGUAGE)] is None:
            raise KeyError(key)
        return tuple(t if isinstance(t, str) else "|".join(t or ()) for t in texts)

    def __iter__(self) -> Iterator[str]:
        return iter(message_texts(FALLBACK_LANGUAGE))

    def __len__(self) -> int:
        return len(message_texts(FALLBACK_LANGUAGE))


MESSAGES: Mapping[str, tuple[str, ...]] = _Messages()


def negotiate(request: Request) -> str:
    """The page language: the `lang` cookie when it names a known language, else Russian."""
    lang = request.cookies.get(LANG_COOKIE, "")
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def translate(lang: str, key: str, /, **values: object) -> str:
    """The message `key` in `lang` (Russian for an unknown language), formatted with
    `values`; English when `lang` lacks it, the key itself when no catalogue has it."""
    text = catalogue_of(lang).gettext(key)
    return text.format(**values) if values else text


def count(lang: str, n: int, noun: str) -> str:
    """`n` and the noun `noun` (a plural key `noun.*` of the `.po`, msgid_plural = key)
    agreeing with it by the language's CLDR plural rule (the Plural-Forms Babel wrote):
    Russian one|few|many ("1 взятие", "3 взятия", "11 взятий"), English one|other."""
    return f"{n} {catalogue_of(lang).ngettext(noun, noun, n)}"


def catalogue_of(lang: str) -> gettext.GNUTranslations:
    """The translations of `lang` (Russian's for a language not in `LANGUAGES`): their
    `gettext(key)` / `ngettext(key, key, n)` give the text unformatted (`{fields}` kept),
    for `translate`, `count` and the templates' i18n extension (`app.web.templating`)."""
    return translations(lang if lang in LANGUAGES else DEFAULT_LANGUAGE)


def label(lang: str, prefix: str, code: str | None) -> str:
    """The message `<prefix>.<code>` (a reason, status, source… in words); a code the
    catalogue does not know (an integration's own source name) is shown as given."""
    if not code:
        return ""
    if prefix == "source" and code.startswith("phone-p"):  # a phone's device (issue 26)
        return translate(lang, "source.phone_device", device=code.rsplit("-", 1)[-1][:6])
    text = translate(lang, f"{prefix}.{code}")
    return code if text == f"{prefix}.{code}" else text
