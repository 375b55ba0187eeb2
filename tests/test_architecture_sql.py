"""Issue 25 item 3, checked: all SQL is in the repository modules (README "Architecture").

A repository module is a package's `repository.py` or a `<name>_repository.py`
(`app/core/bulk_repository.py`). Every other module of app/ builds no SQL, which this
test reads from the module's syntax tree (AST) as:

- importing a statement or expression builder from SQLAlchemy (`select`, `insert`,
  `update`, `delete`, `text`, `func`, `and_`, … or a dialect's `insert`), or reaching
  one through a `sqlalchemy` module (`sa.select`, `postgresql.insert`);
- calling `.execute(…)`, `.scalars(…)`, `.scalar(…)` or `.exec_driver_sql(…)` (running
  a statement, on a session, a connection or a driver's cursor), or a clause method
  that only SQLAlchemy's statements and columns have (`.where(…)`, `.in_(…)`,
  `.order_by(…)`, …: a condition handed to a repository is SQL built outside it);
- a string that is a SQL command (`"SELECT …"`, `f"COPY {…}"`, `"LISTEN …"`).

Not SQL built by the module, so allowed anywhere: the ORM's unit of work
(`session.add`, `session.delete`, `session.flush`), `session.get(Model, id)` (the
identity map's look-up by primary key) and the tables' declarations (`models.py`:
columns, keys, indexes, server defaults).
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"

# Modules that may build SQL although they are not repositories: each with its reason.
ALLOWED = {
    # Connection set-up: the PRAGMAs every SQLite connection gets when it is opened.
    "app/core/db.py",
    # /readyz: `SELECT 1` on a raw connection is the whole check (no session, no model).
    "app/health.py",
}

# What SQLAlchemy builds statements and SQL expressions with (`sqlalchemy.sql`).
BUILDERS = {
    "select",
    "insert",
    "update",
    "delete",
    "text",
    "func",
    "and_",
    "or_",
    "not_",
    "exists",
    "case",
    "cast",
    "literal",
    "literal_column",
    "bindparam",
    "column",
    "table",
    "tuple_",
    "union",
    "union_all",
    "values",
    "lateral",
    "outerjoin",
    "join",
}
RUNNERS = {"execute", "scalars", "scalar", "exec_driver_sql", "executemany"}
# Methods only SQLAlchemy's statements and columns have: a WHERE, ORDER BY, … built here.
CLAUSES = {
    "where",
    "in_",
    "not_in",
    "is_",
    "is_not",
    "order_by",
    "group_by",
    "having",
    "select_from",
    "scalar_subquery",
    "with_for_update",
    "returning",
    "on_conflict_do_update",
    "on_conflict_do_nothing",
}
SQL_COMMAND = re.compile(
    r"^\s*(SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|COPY|ANALYZE|PRAGMA|"
    r"LISTEN|NOTIFY|TRUNCATE|VACUUM|WITH\s+\w+\s+AS|CREATE|DROP|ALTER)\s"
)


def is_repository(path: Path) -> bool:
    """A package's `repository.py` or a `<name>_repository.py`."""
    return path.name == "repository.py" or path.name.endswith("_repository.py")


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring nodes of the module, its classes and its functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _sqlalchemy_modules(tree: ast.Module) -> set[str]:
    """Names the module binds to a `sqlalchemy` module (`import sqlalchemy as sa`,
    `from sqlalchemy.dialects import postgresql`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sqlalchemy":
                    names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            for alias in node.names:
                if node.module in ("sqlalchemy.dialects", "sqlalchemy.sql"):
                    names.add(alias.asname or alias.name)
    return names


def _string_of(node: ast.AST) -> str | None:
    """The text of a string constant, or the leading text of an f-string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value + " "
    return None


def _built_at(node: ast.AST, modules: set[str]) -> str | None:
    """What `node` builds or runs of SQL (None: nothing); `modules`: the names bound to a
    `sqlalchemy` module. Strings are read by `sql_built_in`."""
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
        dialect = (node.module or "").startswith("sqlalchemy.dialects.")
        names = [
            a.name for a in node.names if a.name in BUILDERS or (dialect and a.name == "insert")
        ]
        return f"imports {node.module}.{', '.join(names)}" if names else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        builder = node.value.id in modules and node.attr in BUILDERS
        return f"{node.value.id}.{node.attr}" if builder else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return f".{node.func.attr}(…)" if node.func.attr in RUNNERS | CLAUSES else None
    return None


def sql_built_in(source: str) -> list[str]:
    """`line: what` for each place where `source` (a module's text) builds or runs SQL,
    in line order."""
    tree = ast.parse(source)
    pieces = {id(p) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for p in n.values}
    prose = _docstrings(tree) | pieces  # a piece of an f-string is read with the whole
    modules = _sqlalchemy_modules(tree)
    found = []
    for node in ast.walk(tree):
        what = _built_at(node, modules)
        text = _string_of(node) if id(node) not in prose else None
        if what is None and text is not None and SQL_COMMAND.match(text):
            what = f"SQL {text.split()[0]} …"
        if what is not None:
            found.append((getattr(node, "lineno", 0), what))
    return [f"{line}: {what}" for line, what in sorted(found)]


def _builders_by_module() -> dict[str, list[str]]:
    """`app/…py` → where it builds SQL, for every module of app/ but the repositories."""
    found = {}
    for path in sorted(APP.rglob("*.py")):
        if is_repository(path):
            continue
        places = sql_built_in(path.read_text(encoding="utf-8"))
        if places:
            found[path.relative_to(ROOT).as_posix()] = places
    return found


def test_no_module_but_a_repository_builds_sql() -> None:
    """The SQL of app/ is in its repository modules (and the ALLOWED few, each with its
    reason): a query written in a service, a flow, a page or core infrastructure fails."""
    outside = {m: places for m, places in _builders_by_module().items() if m not in ALLOWED}
    assert outside == {}


def test_every_allowed_module_still_builds_sql() -> None:
    """An ALLOWED entry whose SQL moved (or whose module went) is removed from the list."""
    assert sorted(ALLOWED - set(_builders_by_module())) == []


def test_the_repositories_are_where_the_sql_is() -> None:
    """The check reads SQL where it is: every repository module builds some."""
    repositories = [p for p in APP.rglob("*.py") if is_repository(p)]
    assert len(repositories) >= 9
    empty = [p.name for p in repositories if not sql_built_in(p.read_text(encoding="utf-8"))]
    assert empty == []


def test_the_http_layer_may_import_no_repository() -> None:
    """Every repository module is in the `sql-behind-services` contract (pyproject), so a
    router or page reaches the SQL through a service or flow, a new repository too."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [
        c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "sql-behind-services"
    ]
    modules = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in APP.rglob("*.py")
        if is_repository(p)
    }
    assert sorted(modules - set(contract["forbidden_modules"])) == []


@pytest.mark.parametrize(
    "source",
    [
        "from sqlalchemy import select\n",
        "from sqlalchemy import func as f\n",
        "from sqlalchemy.dialects.postgresql import insert as pg_insert\n",
        "from sqlalchemy.dialects import postgresql\nq = postgresql.insert(t)\n",
        "import sqlalchemy as sa\nq = sa.select(t)\n",
        "def f(session, q):\n    return session.scalars(q).all()\n",
        "def f(session, q):\n    session.execute(q)\n",
        "def f(read, table, ids):\n    return read(table, table.c.auction_id.in_(ids))\n",
        "async def f(conn):\n    await conn.execute(f'LISTEN {CHANNEL}')\n",
        'statement = f"COPY {name} ({columns}) FROM STDIN"\n',
        'cursor_sql = "SELECT 1"\n',
    ],
)
def test_each_way_of_building_sql_is_seen(source: str) -> None:
    assert sql_built_in(source) != []


@pytest.mark.parametrize(
    "source",
    [
        '"""SELECT the best bid: a docstring is prose."""\n',
        "from sqlalchemy import ForeignKey, String, false\n",
        "from sqlalchemy.orm import Mapped, Session, mapped_column\n",
        "def f(session, obj):\n    session.add(obj)\n    session.delete(obj)\n",
        "def f(session, Event):\n    return session.get(Event, 1)\n",
        "methods = ['DELETE', 'GET']\n",
        "form.update({'rake': 1})\n",
    ],
)
def test_what_is_not_sql_is_not_reported(source: str) -> None:
    assert sql_built_in(source) == []
