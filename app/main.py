"""ASGI application: `app.main:app`. Build another one with `create_app(settings, engine)`."""

from __future__ import annotations

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from sqlalchemy import Engine
from starlette_compress import CompressMiddleware, remove_compress_type

from app import health, wiring
from app.api import events as events_endpoints
from app.api import feed as feed_endpoints
from app.api import flows as flows_endpoints
from app.api import games as games_endpoints
from app.api import iof as iof_endpoints
from app.api import live as live_endpoints
from app.api import poker
from app.api.auctions import router as auctions_router
from app.core.config import Settings, get_settings
from app.core.db import make_engine, make_sessionmaker
from app.core.guard import SignInGuardMiddleware
from app.core.head import HeadAsGetMiddleware
from app.core.headers import SecurityHeadersMiddleware
from app.core.limits import BodyLimitMiddleware
from app.core.logging import RequestLogMiddleware, configure_logging
from app.core.openapi import install_problem_openapi
from app.core.retry import DatabaseRetryMiddleware
from app.web import api_docs
from app.web import common as common_pages
from app.web import hall as hall_pages
from app.web.admin import course as course_pages
from app.web.admin import iof as admin_iof_pages
from app.web.admin import members as members_pages
from app.web.admin import pages as admin_pages
from app.web.admin import review as review_pages
from app.web.admin import setup as admin_setup_pages
from app.web.assets import HashedStaticFiles
from app.web.csrf import csrf_guard
from app.web.phone import offline as offline_pages
from app.web.phone import pages as participant_pages
from app.web.roles import role_guard
from app.web.tables import extra_games as extra_games_pages
from app.web.tables import liars_table as liars_table_pages
from app.web.templating import STATIC_DIR


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> FastAPI:
    """The service with its routers, error handlers and middleware.

    `settings` defaults to the environment's; `engine` to one built from
    `settings.database_url` (tests pass their own).
    """
    settings = settings or get_settings()
    configure_logging(settings)
    engine = engine or make_engine(settings)

    app = FastAPI(
        title="Rogaine Poker",
        version="0.1.0",
        description="Orienteering poker rogaine: checkpoints, the field feed, award auctions "
        "and the poker-family games. Errors are RFC 9457 problem responses.",
        # /docs and /redoc: app.web.api_docs, with vendored assets (no CDN).
        docs_url=None,
        redoc_url=None,
        # CSRF on by default: every unsafe route, one exemption list (app.web.csrf)
        # … and the organiser members' roles: one table of routes (app.web.roles)
        dependencies=[Depends(csrf_guard), Depends(role_guard)],
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    app.state.migration_heads = health.migration_heads()

    # The composition root: credentials, callbacks into the web layer, live wake-ups.
    wiring.install(app)
    install_problem_openapi(app)
    _add_middleware(app, settings)
    _include_routers(app)
    return app


def _add_middleware(app: FastAPI, settings: Settings) -> None:
    """CORS (when origins are set), the sign-in guard, the database retry (around the
    guard, which reads the database too), the JSON body limit, the request log, the
    security headers and compression; the last added runs first.

    Compression (`starlette-compress`): zstd, brotli or gzip by the client's
    `Accept-Encoding`, for text types (HTML, JSON, CSS, JS, SVG, …) of at least 500
    bytes; never the live stream (`text/event-stream`: each event must reach the phone
    as it is sent, and compressing a long-lived stream holds a compressor per phone)."""
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["*"],
            allow_headers=["*"],
        )
    app.add_middleware(
        SignInGuardMiddleware,
        session_id_of=wiring.ORGANISER_SESSION_ID,
        throttled_page=wiring.THROTTLED_PAGE,
    )
    app.add_middleware(DatabaseRetryMiddleware)  # around the guard, which reads the database
    app.add_middleware(
        BodyLimitMiddleware,  # outside the retry: it buffers a body only within the limit
        json_max_bytes=settings.json_body_max_bytes,
        archive_max_bytes=settings.archive_body_max_bytes,
    )
    app.add_middleware(RequestLogMiddleware)
    app.add_middleware(SecurityHeadersMiddleware, https=settings.base_url.startswith("https://"))
    remove_compress_type("text/event-stream")  # the library's list; idempotent
    app.add_middleware(CompressMiddleware, minimum_size=500)
    app.add_middleware(HeadAsGetMiddleware)  # outermost: the GET's headers, no body


def _include_routers(app: FastAPI) -> None:
    """The static files and every router (README "Architecture": URL → router module)."""
    app.mount("/static", HashedStaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(health.router)
    # The HTTP layer (app/web pages and app/api), one line per router module, in the order
    # the paths are matched.
    app.include_router(admin_pages.router)
    app.include_router(course_pages.router)
    app.include_router(review_pages.router)
    app.include_router(admin_setup_pages.router)
    app.include_router(admin_iof_pages.router)
    app.include_router(members_pages.router)
    app.include_router(api_docs.router)
    app.include_router(auctions_router)
    app.include_router(common_pages.router)
    app.include_router(hall_pages.router)
    app.include_router(extra_games_pages.router)
    app.include_router(feed_endpoints.router)
    app.include_router(flows_endpoints.router)
    app.include_router(games_endpoints.router)
    app.include_router(iof_endpoints.router)
    app.include_router(liars_table_pages.router)
    app.include_router(offline_pages.router)
    app.include_router(live_endpoints.router)
    app.include_router(participant_pages.router)
    app.include_router(poker.router)
    app.include_router(events_endpoints.router)


app = create_app()
