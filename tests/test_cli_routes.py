"""`rogaine-poker routes URL`: from a URL to the function that serves it, in one step
(README "From a URL to its code")."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI

from app.cli import route_rows
from app.main import create_app
from tests.conftest import make_settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The app's routes only: no database is opened (one SQLite URL, never connected)."""
    path = tmp_path_factory.mktemp("routes") / "unused.db"
    return create_app(make_settings(f"sqlite:///{path}"))


def decorator_line(row: str) -> str:
    """The source line a row points at (`file:line`)."""
    where = row.split()[2]
    file, line = where.rsplit(":", 1)
    return (ROOT / file).read_text(encoding="utf-8").splitlines()[int(line) - 1].strip()


def test_a_concrete_url_names_its_route_file_line_and_function(app: FastAPI) -> None:
    [row] = route_rows(app, "/hall/3")
    assert row.startswith("GET     /hall/{event_id}  app/web/hall.py:")
    assert row.endswith(" hall_page")
    assert decorator_line(row) == '@router.get("/hall/{event_id}")'


def test_a_url_without_its_router_prefix_in_the_source_is_found(app: FastAPI) -> None:
    # app/api/feed.py declares "/scan" under the prefix /api/v1
    [row] = route_rows(app, "/api/v1/scan?x=1")
    assert row.startswith("POST    /api/v1/scan  app/api/feed.py:")
    assert row.endswith(" scan")
    assert decorator_line(row).startswith('@router.post("/scan"')


def test_both_methods_of_a_path_and_a_token_path(app: FastAPI) -> None:
    rows = route_rows(app, "/admin/events/7/members")
    assert [row.split()[0] + " " + row.split()[-1] for row in rows] == [
        "GET members_page",
        "POST add_member",
    ]
    [link] = route_rows(app, "/o/om_secret")
    assert link.startswith("GET     /o/{token}  app/web/admin/members.py:")


def test_a_part_of_a_path_lists_the_routes_that_contain_it(app: FastAPI) -> None:
    rows = route_rows(app, "/members/")  # no route is exactly that: the ones containing it
    assert sorted(row.split()[-1] for row in rows) == ["reissue_member", "revoke_member"]
    assert route_rows(app, "/no/such/page") == []
