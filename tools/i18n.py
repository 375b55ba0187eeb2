"""The message catalogues' tool (docs/translating.md): extraction with Babel and the
converter of (Russian, English) dictionaries into the `.po` files.

    python -m tools.i18n extract              # `make messages`: messages.pot + every .po
    python -m tools.i18n from-dict FILE...    # `make messages-from-dict DICT="FILE..."`
    python -m tools.i18n init pl              # a new language: app/locale/pl/…/messages.po

A message id is a catalogue key ("game.hello"). Babel finds the keys in the code and the
templates by the keywords of `KEYWORDS` (the templates' `_`, `gettext` and `ngettext` of
Jinja2's i18n extension, read by Babel's jinja2 extractor; the code's `translate`, `count`
and `N_` call sites); a key the code builds at run time (`label(lang, "reason", code)`,
the scripts' key lists) is listed with `N_("key")` in `app/web/runtime_messages.py`. A key
under `noun.` is a plural (`count(lang, n, "noun.take")`, `ngettext("noun.take",
"noun.take", n)` in a template): its msgid_plural repeats the key.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE_DIR = ROOT / "app" / "locale"
TEMPLATE = LOCALE_DIR / "messages.pot"
RUNTIME_MODULE = ROOT / "app" / "web" / "runtime_messages.py"
SOURCE_LANGUAGES = ("ru", "en")  # the two texts of a dictionary pair, in this order
# Babel keywords: the argument that holds the key (1-based).
KEYWORDS = {
    "_": (1,),
    "gettext": (1,),
    "ngettext": (1, 2),
    "translate": (2,),
    "count": (3,),
    "N_": (1,),
}
PLURAL_PREFIX = "noun."
# A whole key: a dotted name (or one word); a prefix like "game.msg." is not a message.
KEY = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_-]+)*")
RUNTIME_START = "RUNTIME_MESSAGES = (\n"
RUNTIME_END = ")  # end of RUNTIME_MESSAGES"
HEADER = {
    "project": "rogaine-poker",
    "version": "0.1.0",
    "copyright_holder": "the Rogaine Poker authors",
    "msgid_bugs_address": "the project's issue tracker",
    "last_translator": "the Rogaine Poker authors",
}
HEADER_COMMENT = (
    "# The messages of Rogaine Poker's pages, by key (docs/translating.md).\n"
    "# Written by `make messages` (python -m tools.i18n); edit the msgstr lines only.\n#"
)


def po_path(lang: str) -> Path:
    """`app/locale/<lang>/LC_MESSAGES/messages.po`."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"


def languages() -> list[str]:
    """The languages with a catalogue under `app/locale/`, sorted."""
    return sorted(p.parent.parent.name for p in LOCALE_DIR.glob("*/LC_MESSAGES/messages.po"))


def message_id(key: str) -> str | tuple[str, str]:
    """The msgid of `key`: a (singular, plural) pair for a plural noun."""
    return (key, key) if key.startswith(PLURAL_PREFIX) else key


def extracted_keys() -> dict[str, set[str]]:
    """key -> the files that use it, found by Babel (babel.cfg, `KEYWORDS`)."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str, set[str]] = {}
    for filename, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS, directory_filter=_in_app
    ):
        key = message if isinstance(message, str) else message[0]
        if key and KEY.fullmatch(key):
            found.setdefault(key, set()).add(filename)
    return found


def _in_app(dirpath: str) -> bool:
    """Walk `app/` only (not node_modules, .venv, tests). The path is not resolved: a
    symlinked `.venv` or `node_modules` pointing out of the tree is simply skipped."""
    relative = Path(dirpath).relative_to(ROOT).parts
    return not relative or relative[0] == "app"


def template_catalog() -> Catalog:
    """The template (messages.pot): every extracted key, sorted, locations by file."""
    template = Catalog(**HEADER, creation_date=_creation_date(TEMPLATE))
    for key, files in sorted(extracted_keys().items()):
        template.add(message_id(key), locations=[(f, None) for f in sorted(files)])
    return template


def _creation_date(path: Path) -> datetime:
    """The POT-Creation-Date kept from the file (no change, no diff), else now."""
    if path.exists():
        with path.open("rb") as f:
            return read_po(f).creation_date
    return datetime.now(UTC).replace(second=0, microsecond=0)


def read_catalog(lang: str) -> Catalog:
    """The catalogue of `lang` (a new, empty one when the file does not exist yet)."""
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, **HEADER)
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def write_catalog(catalog: Catalog, path: Path) -> None:
    """Write `catalog` sorted by key, locations by file only (stable diffs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    catalog.header_comment = HEADER_COMMENT
    for name, value in HEADER.items():
        setattr(catalog, name, value)
    catalog.fuzzy = False  # the header is not a guess: the runtime reads Plural-Forms
    catalog.revision_date = catalog.creation_date
    with path.open("wb") as f:
        write_po(f, catalog, width=100, sort_output=True, include_lineno=False)


def extract() -> None:
    """`make messages`: the template from the code, then every catalogue updated to it
    (new keys untranslated, keys no longer used dropped; no fuzzy matching: keys are ids)."""
    template = template_catalog()
    write_catalog(template, TEMPLATE)
    for lang in languages():
        catalog = read_catalog(lang)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        write_catalog(catalog, po_path(lang))
        untranslated = [m.id for m in catalog if m.id and not _complete(m)]
        print(f"{lang}: {len(catalog)} messages, {len(untranslated)} untranslated")


def _complete(message: Message) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(strings)


def init(lang: str) -> None:
    """A new language: an empty catalogue with the template's keys (CLDR plural forms)."""
    if po_path(lang).exists():
        sys.exit(f"{po_path(lang)} exists already")
    write_catalog(Catalog(locale=lang, **HEADER), po_path(lang))
    extract()


# --- the dictionary converter --------------------------------------------------------


def dictionary_pairs(paths: Iterable[Path]) -> dict[str, tuple[str, str]]:
    """Every `key: (Russian, English)` of the module-level dict literals of the Python
    files `paths` (read, not imported), the first text of a key winning."""
    pairs: dict[str, tuple[str, str]] = {}
    for path in paths:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if not isinstance(value, ast.Dict):
                continue
            try:
                literal = ast.literal_eval(value)
            except ValueError:
                continue
            for key, pair in literal.items():
                if _is_pair(key, pair):
                    pairs.setdefault(key, pair)
    return pairs


def _is_pair(key: object, pair: object) -> bool:
    return (
        isinstance(key, str)
        and isinstance(pair, tuple)
        and len(pair) == 2
        and all(isinstance(text, str) for text in pair)
    )


def _string(key: str, text: str, catalog: Catalog) -> str | tuple[str, ...]:
    """The msgstr of `text`: the `|`-separated forms of a plural noun, padded to the
    language's number of plural forms with the last one."""
    if not key.startswith(PLURAL_PREFIX):
        return text
    forms = text.split("|")
    return tuple((forms + forms[-1:] * catalog.num_plurals)[: catalog.num_plurals])


def merge_pairs(pairs: dict[str, tuple[str, str]], overwrite: bool) -> list[str]:
    """Put `pairs` into the ru and en catalogues (and an empty entry into any other
    language's); a text that differs from the catalogue's is replaced only when
    `overwrite`. The differences, one line each."""
    report: list[str] = []
    for lang in sorted({*languages(), *SOURCE_LANGUAGES}):
        catalog = read_catalog(lang)
        index = SOURCE_LANGUAGES.index(lang) if lang in SOURCE_LANGUAGES else None
        for key, pair in pairs.items():
            string = "" if index is None else _string(key, pair[index], catalog)
            present = catalog.get(key)
            if present is None:
                catalog.add(message_id(key), string)
            elif index is not None and present.string != string:
                report.append(f"{lang} {key}: {present.string!r} -> {string!r}")
                if overwrite:
                    present.string = string
        write_catalog(catalog, po_path(lang))
    return report


def add_runtime_keys(keys: Iterable[str]) -> list[str]:
    """List with `N_` in `app/web/runtime_messages.py` the `keys` Babel cannot find in
    the code (so that `make messages` keeps them), the list kept sorted; the keys added."""
    found = extracted_keys()
    new = sorted(k for k in keys if k not in found)
    if new:
        text = RUNTIME_MODULE.read_text(encoding="utf-8")
        start = text.index(RUNTIME_START) + len(RUNTIME_START)
        end = text.index(RUNTIME_END)
        listed = set(re.findall(r'N_\("([^"]+)"\)', text[start:end]))
        lines = "".join(f'    N_("{key}"),\n' for key in sorted(listed | set(new)))
        RUNTIME_MODULE.write_text(text[:start] + lines + text[end:], "utf-8")
    return new


def from_dict(paths: list[Path], overwrite: bool) -> None:
    """The converter: dictionary pairs into the catalogues, run-time keys into
    `runtime_messages.py`, then `extract()`."""
    pairs = dictionary_pairs(paths)
    print(f"{len(pairs)} pairs read from {', '.join(map(str, paths))}")
    for line in merge_pairs(pairs, overwrite):
        print(("replaced " if overwrite else "differs (kept the .po; --overwrite) ") + line)
    for key in add_runtime_keys(pairs):
        print(f"no call site names {key}: listed in {RUNTIME_MODULE.relative_to(ROOT)}")
    extract()


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(prog="python -m tools.i18n", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("extract", help="messages.pot from the code; update every .po")
    convert = commands.add_parser("from-dict", help="(ru, en) dict literals -> .po")
    convert.add_argument("files", nargs="+", type=Path)
    convert.add_argument("--overwrite", action="store_true", help="the dict's text wins")
    commands.add_parser("init", help="a new language").add_argument("lang")
    args = parser.parse_args(argv)
    if args.command == "extract":
        extract()
    elif args.command == "from-dict":
        from_dict(args.files, args.overwrite)
    else:
        init(args.lang)


if __name__ == "__main__":
    main()
