"""Issue 25 item 1, checked: the wiring is explicit (README "Architecture").

- nothing registers itself when a module is imported: no `register_*` call at module
  level in app/, and importing every module of app/ leaves no listener on SQLAlchemy's
  `Session` class (the test run's own oracle, `tests.livecheck`, is the only one);
- every credential kind is listed in the composition root's table (`app.wiring`), and
  every caller type a route names is one line of `app/callers.py` (or a wrapper there),
  so "a token is resolved" is two steps from the route;
- each write path that changes what the live pages show names it itself
  (`livelog.changed`), so "a bid reaches a phone" is two steps from `place_bid`.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

from fastapi.routing import APIRoute
from sqlalchemy.orm import Session

import app
from app import callers, wiring
from app.auctions import service as auctions
from app.core.principal import Kind
from app.events import service as events
from app.main import create_app

APP = Path(app.__file__).resolve().parent

# Every function that changes an auction, a round, a bid, a withdrawal, or the event's
# status or course window (what the live pages show).
LIVE_WRITE_PATHS = [
    auctions.open_auction,
    auctions.place_bid,
    auctions.withdraw_bid,
    auctions.close_auction,
    auctions.reveal,
    auctions.undo_close,
    auctions.correct_round,
    events.update_event,
    events.change_status,
    events.record_status,
]


def _module_level_calls(tree: ast.Module) -> list[str]:
    """Names of the functions called by the module's top-level statements (not within a
    function or class body)."""
    names = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                names.append(name)
    return names


def test_no_module_registers_anything_at_import() -> None:
    registering = {"register_lookup", "register_cookie_lookup", "listen", "install", "on_commit"}
    found = {}
    for path in sorted(APP.rglob("*.py")):
        calls = set(_module_level_calls(ast.parse(path.read_text(encoding="utf-8"))))
        if calls & registering:
            found[str(path.relative_to(APP))] = sorted(calls & registering)
    assert found == {}


def test_importing_every_module_puts_no_listener_on_session() -> None:
    for module in pkgutil.walk_packages(app.__path__, "app."):
        if module.name not in ("app.main", "app.cli") and not module.name.startswith(
            "app.simulation"
        ):
            importlib.import_module(module.name)
    owners = set()
    for name in ("before_flush", "before_commit", "after_commit", "after_rollback"):
        for listener in getattr(Session().dispatch, name):  # with the class-level ones
            owners.add(getattr(listener, "__module__", "?"))
    assert owners <= {"tests.livecheck"}


def test_every_credential_kind_is_in_the_composition_roots_table() -> None:
    table = wiring.credentials()
    looked_up = set(Kind) - {Kind.ORGANISER, Kind.PUBLIC}  # the token setting; nobody
    assert set(table.secrets) == looked_up
    assert set(table.cookies) == {Kind.PARTICIPANT}
    application = create_app()
    assert application.state.credentials.secrets == table.secrets


def test_each_live_write_path_names_its_change() -> None:
    for function in LIVE_WRITE_PATHS:
        assert "livelog.changed(" in inspect.getsource(function), function.__qualname__


def _caller_dependencies() -> set[object]:
    """The dependency functions of `app.callers`' aliases (the table and its wrappers)."""
    found = set()
    for value in vars(callers).values():
        for meta in getattr(value, "__metadata__", ()):
            if getattr(meta, "dependency", None) is not None:
                found.add(meta.dependency)
    return found


def _tree(dependant) -> list:
    calls = []
    for sub in dependant.dependencies:
        calls.append(sub.call)
        calls.extend(_tree(sub))
    return calls


def test_every_route_names_its_caller_from_app_callers() -> None:
    """A dependency that resolves a caller (`accepts(...)` marks it with its `kinds`) is one
    of `app/callers.py`'s, in every route (README "From a token to its Principal")."""
    table = _caller_dependencies()
    assert len(table) >= 13
    elsewhere = set()
    for route in create_app().routes:
        if isinstance(route, APIRoute):
            for call in _tree(route.dependant):
                if hasattr(call, "kinds") and call not in table:
                    elsewhere.add(f"{sorted(route.methods)} {route.path}")
    assert elsewhere == set()


def test_accepts_and_resolve_are_called_only_in_the_callers_table() -> None:
    allowed = {"accepts": {"callers.py"}, "resolve": {"callers.py", "core/principal.py"}}
    found = []
    for path in sorted(APP.rglob("*.py")):
        name = path.relative_to(APP).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called = node.func.id  # imported from app.core.principal (not Path.resolve)
                if called in allowed and name not in allowed[called]:
                    found.append(f"{name}:{node.lineno} {called}")
    assert found == []
