"""The architecture of issue 15, checked: the import contract, pure rules modules, short
functions (README "Architecture")."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
PYPROJECT = ROOT / "pyproject.toml"

MAX_FUNCTION_LINES = 60
# A longer function says why in its docstring, e.g. "Long because the steps read in order".
LENGTH_REASON = re.compile(r"Long because|Length:")

# Known long functions allowed without a reason (none: the feed split landed).
LONG_FUNCTIONS_ALLOWED: set[str] = set()

# Reading the clock: rules modules take the time as an argument instead.
CLOCK = re.compile(r"datetime\.now|utcnow|date\.today|time\.time\(|monotonic|perf_counter")


def _contracts() -> dict[str, dict]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def _long_functions() -> dict[str, int]:
    """`path::name` → lines of every function in app/ longer than MAX_FUNCTION_LINES whose
    docstring gives no reason."""
    found: dict[str, int] = {}
    for path in sorted(APP.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_FUNCTION_LINES and not LENGTH_REASON.search(
                ast.get_docstring(node) or ""
            ):
                found[f"{path.relative_to(ROOT).as_posix()}::{node.name}"] = lines
    return found


def test_the_import_contracts_are_kept() -> None:
    """pyproject's [tool.importlinter] contracts: rules modules import no I/O, no domain
    package imports app.web, no import cycle between the packages of app."""
    assert lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True) == 0


def test_rules_modules_read_no_clock() -> None:
    modules = _contracts()["pure-rules"]["source_modules"]
    assert len(modules) >= 10
    readers = []
    for module in modules:
        path = ROOT / (module.replace(".", "/") + ".py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CLOCK.search(line):
                readers.append(f"{module}:{number}: {line.strip()}")
    assert readers == []


def test_no_function_in_app_is_longer_than_60_lines_without_a_reason() -> None:
    long = {name: n for name, n in _long_functions().items() if name not in LONG_FUNCTIONS_ALLOWED}
    assert long == {}


def test_the_allowed_long_functions_are_still_long() -> None:
    """An entry of LONG_FUNCTIONS_ALLOWED whose function got short (or moved) is removed."""
    assert LONG_FUNCTIONS_ALLOWED - set(_long_functions()) == set()


def test_no_import_contract_has_a_wildcard_exception() -> None:
    """An `ignore_imports` line with `*` would hide a whole family of imports (it once hid
    the cycle domain router → flows → domain); exceptions name single modules."""
    wildcards = [
        f"{cid}: {line}"
        for cid, contract in _contracts().items()
        for line in contract.get("ignore_imports", [])
        if "*" in line
    ]
    assert wildcards == []


def test_api_routers_live_in_the_http_layer() -> None:
    """The JSON API routers are `app/api/<area>.py`; no domain package or flow holds one."""
    assert sorted(p.relative_to(APP).as_posix() for p in APP.rglob("endpoints.py")) == []
    assert {p.stem for p in (APP / "api").glob("*.py")} >= {
        "auctions",
        "events",
        "feed",
        "flows",
        "games",
        "iof",
        "live",
        "poker",
    }
