"""Command-line entry point: `rogaine-poker serve | demo | simulate | rebuild | verify |
export | import | routes`."""

from __future__ import annotations

import argparse
import inspect
import os
import re
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from app.core.config import Settings, get_settings
from app.core.text import counted

T = TypeVar("T")


def admin_token_path(settings: Settings) -> Path:
    """Where `serve` keeps the generated organiser token: DATA_DIR/admin_token."""
    return Path(settings.data_dir) / "admin_token"


def read_admin_token(settings: Settings) -> str | None:
    """The organiser token the server uses: ADMIN_TOKEN, else DATA_DIR/admin_token, else None.

    Never generates one: commands that talk to a running server (`simulate --url`)
    must send the token it has, not a new one.
    """
    if settings.admin_token:
        return settings.admin_token
    path = admin_token_path(settings)
    if path.exists():
        return path.read_text().strip() or None
    return None


def ensure_admin_token(settings: Settings) -> tuple[str, bool]:
    """The organiser token: ADMIN_TOKEN, else the one kept in DATA_DIR/admin_token.

    When neither exists a new random token is generated and written there (mode 0600).
    Returns (token, generated_now).
    """
    token = read_admin_token(settings)
    if token:
        return token, False
    path = admin_token_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(24)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return token, True


HTTPS_NOTE = (
    "  Phones need HTTPS for offline play and the camera: for an event, deploy behind a\n"
    "  TLS proxy (README, Deploying for a real event); here: deploy/rehearsal.py"
)


def served_address(settings: Settings, args: argparse.Namespace) -> tuple[str, int]:
    """The (host, port) `serve` listens on: `--host`/`--port`, else HOST/PORT."""
    return args.host or settings.host, args.port or settings.port


def public_base_url(settings: Settings, host: str, port: int) -> str:
    """BASE_URL when it is set, else the address served on: what links and QR codes use."""
    if "base_url" in settings.model_fields_set:
        return settings.base_url
    return f"http://{host}:{port}"


def cmd_serve(args: argparse.Namespace) -> int:
    """Start uvicorn after making sure the organiser token exists; print the admin URL."""
    import uvicorn

    settings = get_settings()
    token, generated = ensure_admin_token(settings)
    host, port = served_address(settings, args)
    # The server process (and any worker processes) read these through Settings.
    os.environ["ADMIN_TOKEN"] = token
    os.environ["BASE_URL"] = public_base_url(settings, host, port)  # QR codes and links
    get_settings.cache_clear()
    settings = get_settings()

    demo = load_demo_if_empty(settings, args.lang)
    print()
    print(f"  Rogaine Poker on http://{host}:{port}")
    print(f"  Organiser pages: http://{host}:{port}/admin/login")
    print(f"  API docs:        http://{host}:{port}/docs")
    if not settings.base_url.startswith("https://"):
        print(HTTPS_NOTE)
    kept = admin_token_path(settings)
    origin = f"generated and kept in {kept}" if generated else f"from {_token_origin(settings)}"
    print(f"  Organiser token: {token}  ({origin})")
    if demo:
        print(demo)
    print()
    sys.stdout.flush()
    uvicorn.run(
        "app.main:app",
        host=host,
        port=port,
        workers=args.workers or settings.workers,
        # X-Forwarded-For/-Proto are believed from the proxy's addresses only (never '*').
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        log_level=settings.log_level.lower(),
        # Our RequestLogMiddleware writes the access line with secret path segments
        # redacted; uvicorn's own access log would print /p/{token} and /t/{code}.
        access_log=False,
    )
    return 0


def load_demo_if_empty(settings: Settings, lang: str = "ru") -> str | None:
    """Load the demo event (in `lang`) when the database has no event yet; the lines to
    print, or None.

    Skipped (with a note) when the schema is not migrated.
    """
    from sqlalchemy import inspect

    from app.core.db import make_engine, make_sessionmaker, transaction
    from app.events import demo, repository

    engine = make_engine(settings)
    try:
        if not inspect(engine).has_table("event"):
            return "  (no demo event: the database is not migrated; run `alembic upgrade head`)"
        with transaction(make_sessionmaker(engine)) as session:
            if repository.count_events(session):
                return None
            loaded = demo.load_demo(
                session, settings.base_url, lang=lang, secret=settings.cookie_secret
            )
            lines = demo.describe(loaded, settings.base_url)
    finally:
        engine.dispose()
    return lines + "\n" + demo_history(settings, loaded)


def demo_history(settings: Settings, loaded: Any) -> str:
    """Play the demo event from its opening until now (`app.simulation.history`), so the
    dashboard and logs of `make run` are not empty; one line to print.

    A failure is reported in that line and never keeps the server from starting.
    """
    from app.simulation.history import simulate_history

    people = [
        {
            "external_id": p.external_id,
            "name": p.name,
            "save_codes": p.save_codes,
            "access_token": p.access_token,
        }
        for p in loaded.participants
    ]
    try:
        return simulate_history(settings, loaded.event.id, people, lang=loaded.lang).line
    except Exception as error:  # the demo must never block `make run`
        return f"  (no simulated history: {error})"


def cmd_demo(args: argparse.Namespace) -> int:
    """Load a demo event (54 CPs, course open now, four participants) and print its links.

    The links use BASE_URL, else the address `serve` listens on (`--host`/`--port`,
    else HOST/PORT), as `make run` does.
    """
    from app.core.db import make_engine, make_sessionmaker, transaction
    from app.events import demo

    settings = get_settings()
    base_url = public_base_url(settings, *served_address(settings, args))
    engine = make_engine(settings)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            loaded = demo.load_demo(
                session, base_url, lang=args.lang, secret=settings.cookie_secret
            )
            print(demo.describe(loaded, base_url))
    finally:
        engine.dispose()
    return 0


def _token_origin(settings: Settings) -> str:
    path = admin_token_path(settings)
    return str(path) if path.exists() else "ADMIN_TOKEN"


def cmd_simulate(args: argparse.Namespace) -> int:
    """Simulate a whole event through the HTTP API and print the podium and statistics.

    Against `--url` with the organiser token (`--token`, else the server's own:
    ADMIN_TOKEN, else DATA_DIR/admin_token as `make run` keeps it), or in-process
    on a throwaway SQLite database when no URL is given.
    """
    import time

    import httpx

    from app.simulation.client import ApiClient
    from app.simulation.local import in_process_client
    from app.simulation.report import render
    from app.simulation.runner import Simulation, SimulationConfig

    config = SimulationConfig(participants=args.participants, seed=args.seed, date=args.date)

    def log(message: str) -> None:
        if args.verbose:
            print(message, file=sys.stderr)

    started = time.perf_counter()
    if args.url:
        settings = get_settings()
        token = args.token or read_admin_token(settings)
        if not token:
            print(
                "simulate --url needs the organiser token: --token, ADMIN_TOKEN or "
                f"{admin_token_path(settings)} (written by `make run`)",
                file=sys.stderr,
            )
            return 2
        with httpx.Client(base_url=args.url.rstrip("/"), timeout=60) as http:
            api = ApiClient(http, token)
            result = Simulation(api, config, log=log).run()
    else:
        with in_process_client() as (http, token):
            api = ApiClient(http, token)  # type: ignore[arg-type]
            result = Simulation(api, config, log=log).run()
    print(render(result))
    elapsed = time.perf_counter() - started
    print(
        f"\n({api.requests} requests in {elapsed:.1f} s, event {result.event_id})", file=sys.stderr
    )
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    """Replay participants' state from the take log (RULES.md I-4), one event or all.

    Each event is rebuilt in its own transaction on DATABASE_URL; prints one line
    per event ("N participants with takes, N takes replayed, N outcomes changed":
    participants without a take have nothing to replay). Exit status 1 when
    `--event` does not exist.
    """
    from app.core.db import make_engine, make_sessionmaker, transaction
    from app.events import repository
    from app.events.models import Event
    from app.feed import freeze, projection

    engine = make_engine(get_settings())
    factory = make_sessionmaker(engine)
    try:
        with transaction(factory) as session:
            ids = repository.event_ids(session)
        if args.event is not None:
            if args.event not in ids:
                print(f"event {args.event} does not exist", file=sys.stderr)
                return 1
            ids = [args.event]
        for event_id in ids:
            with transaction(factory) as session:
                event = session.get(Event, event_id)
                assert event is not None
                if freeze.feed_frozen(session, event):
                    print(f"event {event_id}: skipped, the feed is closed (ceremony begun)")
                    continue
                participants, takes, changed = projection.rebuild_event(session, event, actor="cli")
            print(
                f"event {event_id}: "
                f"{counted(participants, 'participant with takes', 'participants with takes')}, "
                f"{counted(takes, 'take')} replayed, {counted(changed, 'outcome')} changed"
            )
    finally:
        engine.dispose()
    return 0


def _with_event(event_id: int, read: Callable[[Any, Any], T]) -> T | None:
    """`read(session, event)` in one transaction on the configured database; None (with
    a message on stderr) when event `event_id` does not exist."""
    from app.core.db import make_engine, make_sessionmaker, transaction
    from app.events.models import Event

    engine = make_engine(get_settings())
    try:
        with transaction(make_sessionmaker(engine)) as session:
            event = session.get(Event, event_id)
            if event is None:
                print(f"event {event_id} does not exist", file=sys.stderr)
                return None
            return read(session, event)
    finally:
        engine.dispose()


def cmd_verify(args: argparse.Namespace) -> int:
    """Recompute every hash chain of an event (app.flows.log_chain): the take and bid logs,
    source clock offsets, deciding audit entries and identities.

    Prints the head and either `ok` or the first row that does not match; exit
    status 0 when every chain matches, 2 when one does not, 1 when the event does
    not exist.
    """
    from app.flows import log_chain

    report = _with_event(args.event, log_chain.verify)
    if report is None:
        return 1
    print(
        f"event {args.event}: head {report['head']} (version {report['version']}) over "
        f"{counted(report['takes'], 'take row')}, {counted(report['bids'], 'bid row')}, "
        f"{counted(report['clocks'], 'clock row')}, {counted(report['decisions'], 'decision')}"
        f" and {counted(report['identities'], 'identity row')} in "
        f"{counted(report['chains'], 'chain')}"
    )
    mismatch = report["first_mismatch"]
    if mismatch is None:
        print("ok: every chain matches")
        return 0
    print(
        f"MISMATCH in {mismatch['chain']}: {mismatch['row']} (seq {mismatch['seq']}): "
        f"{mismatch['problem']}"
    )
    return 2


def cmd_export(args: argparse.Namespace) -> int:
    """Write the archive of an event (app.flows.archive) to `--out` (JSON). Exit 1 when
    the event does not exist, 2 when the export is refused (a round is open or not fully
    revealed: `ceremony_not_revealed`, RULES.md I-21), with the reason on stderr."""
    import json

    from app.core.errors import AppError
    from app.flows import archive

    try:
        document = _with_event(args.event, archive.export_event)
    except AppError as error:
        print(f"refused ({error.code}): {error.detail}", file=sys.stderr)
        return 2
    if document is None:
        return 1
    Path(args.out).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    log = document["expected"]["log"]
    print(
        f"event {args.event} -> {args.out}: {counted(len(document['takes']), 'take')}, "
        f"{counted(len(document['bids']), 'bid')}, head {log['head']}"
    )
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Restore an archive file as a new event, checked (app.flows.archive). Exit 2 when it
    is refused (unreadable, not JSON, invalid, e.g. a time out of range, or not what it
    describes: nothing is stored; the reason is printed on stderr, no traceback)."""
    import json

    from app.core.db import make_engine, make_sessionmaker, transaction
    from app.core.errors import AppError
    from app.flows import archive

    try:
        document = json.loads(Path(args.file).read_text(encoding="utf-8"))
    except OSError as error:
        print(f"refused: cannot read {args.file} ({error.strerror})", file=sys.stderr)
        return 2
    except ValueError as error:  # not JSON, or not UTF-8
        print(f"refused: {args.file} is not JSON ({error})", file=sys.stderr)
        return 2
    engine = make_engine(get_settings())
    try:
        with transaction(make_sessionmaker(engine)) as session:
            event, report = archive.import_event(session, document, actor="cli")
            event_id = event.id
    except AppError as error:
        print(f"refused ({error.code}): {error.detail}", file=sys.stderr)
        for difference in error.extra.get("differences", []):
            print(f"  {difference}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    print(
        f"{args.file} -> event {event_id}: {counted(report['takes'], 'take row')}, "
        f"{counted(report['bids'], 'bid row')}, head {report['head']} (verified)"
    )
    return 0


def _template_pattern(path: str) -> re.Pattern[str]:
    """A path template as a regex: `{name}` matches one segment, `{name:path}` the rest."""
    parts = re.split(r"(\{[^}]+\})", path)
    return re.compile(
        "".join(
            (".+" if part.endswith(":path}") else "[^/]+")
            if part.startswith("{")
            else re.escape(part)
            for part in parts
        )
    )


def route_rows(app: Any, url: str = "") -> list[str]:
    """`METHODS path  file:line function` of the routes of `app` whose path template
    matches the concrete `url` (`/hall/3`, query ignored), else of those whose template
    contains it (`/members`); every route when `url` is empty. The line is the route's
    decorator (README "From a URL to its code")."""
    from fastapi.routing import iter_route_contexts

    wanted = url.split("?", 1)[0]
    contexts = [c for c in iter_route_contexts(app.routes) if hasattr(c.route, "endpoint")]
    exact = [c for c in contexts if _template_pattern(c.path).fullmatch(wanted)]
    root = Path(__file__).resolve().parents[1]
    rows = []
    for context in exact or [c for c in contexts if wanted in c.path]:
        endpoint, path = context.route.endpoint, context.path
        source = Path(inspect.getsourcefile(endpoint) or "?").resolve()
        where = source.relative_to(root) if source.is_relative_to(root) else source
        line = inspect.getsourcelines(endpoint)[1]
        methods = ",".join(sorted((context.methods or set()) - {"HEAD"}))
        rows.append(f"{methods:<7} {path}  {where}:{line} {endpoint.__name__}")
    return sorted(rows, key=lambda row: row.split()[1])


def cmd_routes(args: argparse.Namespace) -> int:
    """Print the routes that serve `args.url` (every route without one)."""
    from app.main import create_app

    rows = route_rows(create_app(), args.url or "")
    print("\n".join(rows) if rows else f"no route serves {args.url}")
    return 0 if rows else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rogaine-poker", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="start the web service")
    serve.add_argument("--host", help="default: HOST, else 127.0.0.1")
    serve.add_argument("--port", type=int, help="default: PORT, else 8000")
    serve.add_argument("--workers", type=int, default=None, help="default: WORKERS")
    serve.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="language of the demo event (ru)"
    )
    serve.set_defaults(func=cmd_serve)
    demo = commands.add_parser(
        "demo", help="load a demo event (54 CPs, course open now) and print the personal links"
    )
    demo.add_argument("--host", help="of the server, for the links (default: HOST)")
    demo.add_argument("--port", type=int, help="of the server, for the links (default: PORT)")
    demo.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="names and hints in ru (default) or en"
    )
    demo.set_defaults(func=cmd_demo)
    simulate = commands.add_parser(
        "simulate", help="play a whole simulated event through the HTTP API, print the podium"
    )
    simulate.add_argument("--participants", type=int, default=30, help="default: 30")
    simulate.add_argument("--seed", type=int, default=1, help="same seed, same run (default: 1)")
    simulate.add_argument("--url", help="a running service; default: in-process on a temp SQLite")
    simulate.add_argument(
        "--token",
        help="organiser token for --url (default: ADMIN_TOKEN, else DATA_DIR/admin_token)",
    )
    simulate.add_argument("--date", default="2026-06-13", help="local date the course opens")
    simulate.add_argument("--verbose", action="store_true", help="progress on stderr")
    simulate.set_defaults(func=cmd_simulate)
    rebuild = commands.add_parser(
        "rebuild", help="replay participants' state from the take log (RULES.md I-4)"
    )
    rebuild.add_argument("--event", type=int, help="only this event (default: every event)")
    rebuild.set_defaults(func=cmd_rebuild)
    verify = commands.add_parser(
        "verify", help="recompute the hash chains of an event's take and bid logs"
    )
    verify.add_argument("--event", type=int, required=True)
    verify.set_defaults(func=cmd_verify)
    export = commands.add_parser("export", help="write an event's archive (JSON) to a file")
    export.add_argument("--event", type=int, required=True)
    export.add_argument("--out", required=True, help="the archive file to write")
    export.set_defaults(func=cmd_export)
    restore = commands.add_parser(
        "import", help="restore an archive file as a new event (replayed and verified)"
    )
    restore.add_argument("file")
    restore.set_defaults(func=cmd_import)
    routes = commands.add_parser(
        "routes", help="which function serves a URL: /hall/3, /api/v1/scan, /members"
    )
    routes.add_argument("url", nargs="?", help="a URL or part of a path (default: every route)")
    routes.set_defaults(func=cmd_routes)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
