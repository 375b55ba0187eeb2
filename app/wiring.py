"""The composition root: everything `create_app` installs that one layer hands another,
in one place. Nothing registers itself when a module is imported.

- `credentials()`: every credential kind with the lookup that resolves it (the
  `Credentials` table of `app.core.principal`), stored as `app.state.credentials`;
  a token is resolved by `accepts(...)` → `resolve` → this table's lookup;
- the pages' answers the core calls back (it never imports `app.web`): the 404/405/422
  page of a page address (to `install_error_handlers`), the 429 page and the organiser
  cookie (to `SignInGuardMiddleware`, see `app.main`), the sheet renderer of
  `app.events.printing` (`app.state.render_sheet`);
- the live wake-up: after a commit that bumped a live version (`app.core.livelog`,
  noted by the write paths themselves), `app.live.hub.wake_local` sends the change to
  this process's streams (`Hub.fan_out`: read once, put in each stream's queue).
"""

from __future__ import annotations

from fastapi import FastAPI

from app.core import livelog
from app.core.principal import Credentials, Kind
from app.core.problems import install_error_handlers
from app.events import deps as event_deps
from app.feed import keys as feed_keys
from app.games import deps as game_deps
from app.live import hub as live_hub
from app.web import common as common_pages
from app.web import forms, roles, sessions
from app.web.templating import render_sheet

THROTTLED_PAGE = common_pages.throttled_page  # the 429 page (`SignInGuardMiddleware`)
ORGANISER_SESSION_ID = sessions.organiser_session_id  # the cookie the guard checks


def credentials() -> Credentials:
    """Every credential kind and its lookup (`Kind.PUBLIC` needs none; the organiser
    token is `settings.admin_token`; its page session or an organiser member admitted
    by the roles table: `organiser`)."""
    return Credentials(
        secrets={
            Kind.PARTICIPANT: event_deps.token_principal,
            Kind.INTEGRATION_KEY: feed_keys.key_principal,
            Kind.GAME_SEAT: game_deps.game_token_principal,
            Kind.TABLE: game_deps.game_token_principal,
        },
        cookies={Kind.PARTICIPANT: sessions.cookie_principal},
        organiser=roles.organiser_caller,
    )


def install(app: FastAPI) -> None:
    """Hand the layers what they call back: the credential table, the error pages, the
    sheet renderer, the page error handlers and the live wake-up."""
    app.state.credentials = credentials()
    install_error_handlers(app, pages=forms.not_found_page)
    forms.install_page_error_handlers(app)
    roles.install_role_pages(app)  # a member refused by its role: the 403 page
    app.state.render_sheet = render_sheet  # app.events.printing renders through it
    livelog.on_commit(live_hub.wake_local)
