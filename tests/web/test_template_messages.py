"""The templates' messages go through Jinja2's i18n extension (`{{ _('key', name=...) }}`,
`ngettext`; docs/translating.md): Babel's extraction finds every one of them, each is
translated in every language with the values its call gives, and the extension renders a
page in the language the request chose. Expected texts are read from the `.po` files."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient
from jinja2 import nodes
from jinja2.ext import InternationalizationExtension
from markupsafe import escape
from sqlalchemy.orm import Session

from app.web.i18n import LANGUAGES, catalogue_path
from app.web.templating import TEMPLATES_DIR, percent_form, templates
from tests.factories import make_event, make_participant
from tools import i18n as tool

GETTEXT = ("_", "gettext", "ngettext")
TEMPLATE_FILES = sorted(TEMPLATES_DIR.rglob("*.html"))


def catalogue(lang: str) -> Catalog:
    with catalogue_path(lang).open("rb") as po:
        return read_po(po, locale=lang)


def texts(lang: str) -> dict[str, tuple[str, ...]]:
    """key -> its msgstr(s) in `lang`, read from the `.po` file with Babel."""
    return {
        m.id if isinstance(m.id, str) else m.id[0]: m.string
        if isinstance(m.string, tuple)
        else (m.string,)
        for m in catalogue(lang)
        if m.id
    }


def calls(path: Path) -> list[nodes.Call]:
    """The gettext calls of a template (`_`, `gettext`, `ngettext`), parsed by the app's
    own environment (so a syntax the extension does not know fails here)."""
    tree = templates.env.parse(path.read_text(encoding="utf-8"))
    return [
        call
        for call in tree.find_all(nodes.Call)
        if isinstance(call.node, nodes.Name) and call.node.name in GETTEXT
    ]


def literal_calls() -> dict[str, list[tuple[Path, set[str]]]]:
    """key -> (template, names of the values its call passes), for every call whose key
    is a string literal."""
    found: dict[str, list[tuple[Path, set[str]]]] = {}
    for path in TEMPLATE_FILES:
        for call in calls(path):
            if call.args and isinstance(call.args[0], nodes.Const):
                given = {keyword.key for keyword in call.kwargs}
                found.setdefault(call.args[0].value, []).append((path, given))
    return found


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# --- extraction ---------------------------------------------------------------------------


def test_the_templates_call_the_extension_not_a_t_global():
    literal = re.compile(r"""(?<![\w.])_\(\s*'[a-z0-9_.]+'\s*[,)]""")
    counted = sum(len(literal.findall(p.read_text(encoding="utf-8"))) for p in TEMPLATE_FILES)
    found = sum(len(places) for places in literal_calls().values())
    assert counted > 600  # the 755 calls of the switch from t(), and more
    assert found >= counted  # the parse sees every call the pattern sees (and `gettext`…)
    old = re.compile(r"(?<![\w.])t\(")
    assert [p.name for p in TEMPLATE_FILES if old.search(p.read_text(encoding="utf-8"))] == []
    assert InternationalizationExtension.identifier in templates.env.extensions
    assert "t" not in templates.env.globals


def test_babel_extracts_every_message_of_the_templates():
    """What `make messages` runs (babel.cfg, the jinja2 extractor, `tools.i18n.KEYWORDS`)
    finds each literal key of a template, with that template among its locations."""
    extracted = tool.extracted_keys()
    missing = [
        (key, str(path.relative_to(TEMPLATES_DIR)))
        for key, places in literal_calls().items()
        for path, _ in places
        if str(path.relative_to(tool.ROOT)) not in extracted.get(key, set())
    ]
    assert missing == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_template_message_is_translated(lang: str):
    translated = texts(lang)
    absent = [key for key in literal_calls() if not all(translated.get(key, ("",)))]
    assert absent == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_template_call_gives_the_values_its_message_names(lang: str):
    """New-style gettext applies the call's values with `%`: a `{field}` of the text that
    the call does not give would raise KeyError on the page (a script's placeholder is
    given as itself: `count='{count}'`)."""
    translated = texts(lang)
    lacking = [
        (key, str(path.relative_to(TEMPLATES_DIR)), sorted(fields(text) - given))
        for key, places in literal_calls().items()
        for path, given in places
        for text in translated.get(key, ())
        if fields(text) - given
    ]
    assert lacking == []


def test_the_jinja2_extractor_reads_each_gettext_form(tmp_path: Path):
    """Babel's jinja2 extractor with babel.cfg's options and `make messages`' keywords:
    `_`, `gettext` and `ngettext` (a plural: msgid and msgid_plural), inside blocks too;
    a key composed in the template is not extracted (runtime_messages.py lists those)."""
    page = tmp_path / "page.html"
    page.write_text(
        "{{ _('a.one', n=1) }}{% if x %}{{ gettext('a.two') }}{% endif %}\n"
        "{% for n in ns %}{{ ngettext('noun.three', 'noun.three', n) }}{% endfor %}\n"
        "{{ _('a.' ~ x) }}",
        encoding="utf-8",
    )
    with (tool.ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        _, options = parse_mapping_cfg(cfg)
    found = extract_from_file(
        "jinja2", str(page), keywords=tool.KEYWORDS, options=options["app/templates/**.html"]
    )
    assert [(line, message) for line, message, _, _ in found] == [
        (1, "a.one"),
        (1, "a.two"),
        (2, ("noun.three", "noun.three")),
    ]


def test_a_template_jinja2_cannot_parse_stops_the_extraction():
    """babel.cfg says `silent = false`: a broken template is an error, not a file whose
    messages quietly vanish from the catalogues."""
    with (tool.ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        _, options = parse_mapping_cfg(cfg)
    assert options["app/templates/**.html"]["silent"] == "false"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_holds_markup(lang: str):
    """New-style gettext puts a message's text in as markup (only the values are
    escaped): a `<`, `&` or `"` in a text would reach the HTML unescaped."""
    assert [
        key for key, strings in texts(lang).items() if re.search(r'[<>&"]', "".join(strings))
    ] == []


# --- rendering ------------------------------------------------------------------------------


def render(source: str, **context: object) -> str:
    return templates.env.from_string(source).render(**context)


def test_the_extension_formats_in_the_context_language_and_escapes_the_values():
    ru, en = texts("ru")["game.deal_round"][0], texts("en")["game.deal_round"][0]
    assert (ru, en) == ("Сдача {deal}, раунд {round}", "Deal {deal}, round {round}")
    source = "{{ _('game.deal_round', deal=2, round=d) }}"
    assert render(source, lang="ru", d=3) == "Сдача 2, раунд 3"
    assert render(source, lang="en", d=3) == "Deal 2, round 3"
    assert render(source, d=3) == "Сдача 2, раунд 3"  # no `lang`: Russian, as the pages
    assert render(source, lang="en", d="<b>&") == "Deal 2, round &lt;b&gt;&amp;"
    assert render("{{ _('no.such.key') }}", lang="en") == "no.such.key"


def test_ngettext_picks_the_cldr_form_of_the_language():
    forms = texts("ru")["noun.take"]
    assert forms == ("взятие", "взятия", "взятий")
    source = "{% for n in ns %}{{ ngettext('noun.take', 'noun.take', n) }};{% endfor %}"
    assert render(source, lang="ru", ns=[1, 3, 5, 11, 21]) == "взятие;взятия;взятий;взятий;взятие;"
    assert texts("en")["noun.take"] == ("take", "takes")
    assert render(source, lang="en", ns=[1, 0, 2]) == "take;takes;takes;"


def test_percent_form_turns_format_fields_into_percent_fields():
    assert percent_form("Deal {deal}, round {round}") == "Deal %(deal)s, round %(round)s"
    assert percent_form("{value!r} twice, 50% {{literal}}") == "%(value)r twice, 50%% {literal}"
    with pytest.raises(ValueError):
        percent_form("{n:03d}")


def test_a_page_speaks_the_language_the_request_chose(client: TestClient, session: Session):
    """The participant's page, Russian by default and English with the `lang` cookie: the
    texts of `game.hello` from each `.po`, the name escaped as a value."""
    event = make_event(session)
    anna = make_participant(session, event, "31", name="Анна <&>")
    session.commit()
    assert client.get(f"/p/{anna.access_token}", follow_redirects=False).status_code == 303
    name = str(escape("Анна <&>"))
    assert name == "Анна &lt;&amp;&gt;"
    ru_page = client.get("/me").text
    assert texts("ru")["game.hello"] == ("Участник: {name}",)
    assert f"Участник: {name}" in ru_page
    assert "Participant:" not in ru_page
    client.get("/lang/en?next=/me")
    en_page = client.get("/me").text
    assert texts("en")["game.hello"] == ("Participant: {name}",)
    assert f"Participant: {name}" in en_page
    assert "Участник:" not in en_page
