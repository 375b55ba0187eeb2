"""The one Jinja2 environment of the service; templates live in `app/templates/`.

Every template gets the globals `static(name)` (a static file's content-hashed URL,
`app.web.assets`), `card(code)` (a card's display form, `Q♥`, `10♠`,
`Joker`), `card_colour(code)`, `hand_text(cards, ranking, lang)` (a combination in words)
and `status_at(event)` (the event's status as of now: a
course past its closing reads as closed). Pages rendered with `app.web.common.render`
also get `page_context(request)`: `lang` (page language), `theme` (`auto`, `dark`,
`light`), `csrf_token` (for forms), `can(method, path template)` (an organiser member's
role admits the route: `app.web.roles`; links it may not use are not shown); values the
caller passes win.

Messages: the environment has Jinja2's i18n extension (`jinja2.ext.i18n`) with new-style
gettext callables, so a template writes `{{ _('game.hello') }}`, `{{ _('take.cp',
number=n) }}` or `{{ ngettext('noun.take', 'noun.take', n) }}` (a `noun.*` key, CLDR plural
forms); Babel's jinja2 extractor finds these calls (babel.cfg). The callables translate into
the context's `lang`, which `page_context` sets from the request (`i18n.negotiate`: the
`lang` cookie, else Russian). New-style means autoescaping as Jinja2 documents it: the
message text is markup (the catalogues hold no HTML), the values are escaped.
"""

from __future__ import annotations

import string
from datetime import timedelta
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from babel.dates import format_timedelta
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.ext import InternationalizationExtension
from jinja2.runtime import Context

from app.events.codes import grouped, normalize_code, typed_form
from app.events.service import status_at
from app.feed.deck import describe
from app.poker.cards import CardError, is_joker
from app.poker.cards import display as poker_display
from app.web import i18n
from app.web.assets import STATIC_DIR as STATIC_DIR  # re-exported: the pages import it here
from app.web.assets import static_url

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"


def display_card(code: str | None, lang: str = "en") -> str:
    """Display form of a canonical card code (`QH` → `Q♥`, `TS` → `10♠`, `JK1` → `Joker`;
    `Джокер` on Russian pages). A code that is not a card is shown as given."""
    if not code:
        return ""
    try:
        text = poker_display(code)
    except CardError:
        return code
    return "Джокер" if lang == "ru" and is_joker(code) else text


def card_colour(code: str | None) -> str:
    """`red` for hearts and diamonds, `joker` for jokers, else `black` (for styling)."""
    if not code:
        return "black"
    if code.startswith("JK"):
        return "joker"
    return "red" if code[-1:] in ("H", "D") else "black"


THEMES = ("auto", "dark", "light")  # the switch cycles through them in this order


def theme_of(request: Request) -> str:
    """The page's colour theme: `dark` or `light` from the `theme` cookie, else `auto`
    (the system's `prefers-color-scheme`)."""
    value = request.cookies.get("theme", "auto")
    return value if value in THEMES else "auto"


def next_theme(theme: str) -> str:
    """The theme the switch goes to next: auto → dark → light → auto."""
    return THEMES[(THEMES.index(theme) + 1) % len(THEMES)]


def page_context(request: Request) -> dict[str, Any]:
    """Context shared by every page (see the module docstring)."""
    from app.web.roles import page_can  # late: roles renders pages
    from app.web.sessions import csrf_token  # late: sessions imports settings only

    lang = i18n.negotiate(request)
    return {
        "lang": lang,
        "theme": theme_of(request),
        "label": partial(i18n.label, lang),
        "csrf_token": csrf_token(request),
        "card": partial(display_card, lang=lang),
        "card_colour": card_colour,
        "clock_offset": partial(clock_offset, lang=lang),
        "can": partial(page_can, request),
    }


def clock_offset(seconds: float | None, lang: str) -> str:
    """A clock offset (seconds, + ahead of the server) in the page language, rounded to
    its largest unit by CLDR (Babel): `+3 ч`, `−7 min`, `0 с`; empty for None."""
    if seconds is None:
        return ""
    sign = "+" if seconds > 0 else "−" if seconds < 0 else ""
    text = format_timedelta(
        timedelta(seconds=abs(seconds)), locale=lang, format="short", threshold=1.0
    )
    return sign + text


def hand_text(cards: list[str], ranking: str, lang: str) -> str:
    """The evaluator's words for a 5-card combination in the page language ("one pair,
    queens, kickers …" / "пара дам, кикеры …"; RULES.md §1.3, jokers I-6, preset I-5)."""
    english, russian = describe(cards, ranking)
    return russian if lang == "ru" else english


def render_sheet(request: Request, name: str, context: dict[str, Any]) -> HTMLResponse:
    """A printable sheet (`app.events.printing`): the template with `page_context` (the
    caller's values win); installed by `app.wiring.install` as `app.state.render_sheet`."""
    return templates.TemplateResponse(request, name, {**page_context(request), **context})


@lru_cache(maxsize=4096)  # the catalogues hold about 850 texts per language
def percent_form(text: str) -> str:
    """A catalogue text (`str.format` fields, shared with `i18n.translate` and the scripts)
    as the `%`-format string Jinja2's new-style gettext applies the call's values to:
    `{count}` → `%(count)s`, `{value!r}` → `%(value)r`, `%` → `%%`, `{{` → `{`. Raises
    ValueError for a malformed text or a field with a format spec (the catalogues have none)."""
    parts = []
    for literal, field, spec, conversion in string.Formatter().parse(text):
        parts.append(literal.replace("%", "%%"))
        if field is None:
            continue
        if spec or not field.isidentifier():
            raise ValueError(f"{text!r}: only plain {{name}} fields are supported")
        parts.append(f"%({field}){conversion or 's'}")
    return "".join(parts)


def _language(context: Context) -> str:
    """The language a template's messages speak: its context's `lang` (`page_context`),
    Russian when the template was rendered without one."""
    lang = context.get("lang")
    return lang if isinstance(lang, str) else i18n.DEFAULT_LANGUAGE


@pass_context
def context_gettext(context: Context, key: str) -> str:
    """The gettext callable of the i18n extension: the message `key` in the context's
    language (English when that language lacks it, the key when no catalogue has it), in
    `percent_form` for the extension's `%` step."""
    return percent_form(i18n.catalogue_of(_language(context)).gettext(key))


@pass_context
def context_ngettext(context: Context, singular: str, plural: str, n: int) -> str:
    """The ngettext callable of the i18n extension: the form of a plural message for `n`
    by the CLDR rule of the context's language (the catalogue's Plural-Forms: Russian
    one/few/many, English one/other), in `percent_form`."""
    return percent_form(i18n.catalogue_of(_language(context)).ngettext(singular, plural, n))


templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
templates.env.add_extension(InternationalizationExtension)
templates.env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the extension
    context_gettext, context_ngettext, newstyle=True
)
templates.env.globals.update(
    card=display_card,
    card_colour=card_colour,
    normalise_code=normalize_code,
    typed_code=lambda code: grouped(typed_form(normalize_code(code))),
    next_theme=next_theme,
    status_at=status_at,
    hand_text=hand_text,
    static=static_url,
)
