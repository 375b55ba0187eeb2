"""Helpers shared by the page routers: rendering, redirects, the language switch."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.web import i18n
from app.web.templating import page_context, templates

router = APIRouter(include_in_schema=False)

ONE_YEAR = 60 * 60 * 24 * 365  # seconds
PAGE_CACHE = "private, no-cache"
THEME_COOKIE = "theme"


def render(
    request: Request, name: str, context: dict[str, Any] | None = None, status: int = 200
) -> HTMLResponse:
    """Render a page template, `Cache-Control: private, no-cache`: pages show live state,
    and some show one participant's cards and codes, so no shared cache keeps them and
    the browser revalidates at each use; not `no-store`, which would keep them out of
    the back/forward cache (a sign-out clears it: `app.web.sessions.CLEAR_CACHE`)."""
    merged = {**page_context(request), **(context or {})}
    response = templates.TemplateResponse(request, name, merged, status_code=status)
    response.headers["Cache-Control"] = PAGE_CACHE
    return response


def see_other(url: str) -> RedirectResponse:
    """A 303 redirect: the POST-redirect-GET step after every page form."""
    response = RedirectResponse(url, status_code=303)
    response.headers["Cache-Control"] = "no-store"
    return response


def local_path(value: str | None, default: str = "/me") -> str:
    """`value` when it is a path on this site (no scheme, no host), else `default`."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return default
    return value


def quoted(path: str) -> str:
    return quote(path, safe="/")


@router.get("/theme/{theme}")
def switch_theme(theme: str, request: Request, next: str | None = None) -> Response:
    """Set the colour theme cookie (`dark`, `light`; `auto` forgets it: the system's
    `prefers-color-scheme` decides) and go back to the page the switch was on. A link,
    not a script: it works without JavaScript and under a strict CSP."""
    response = see_other(local_path(next))
    if theme in ("dark", "light"):
        response.set_cookie(THEME_COOKIE, theme, max_age=ONE_YEAR, samesite="lax", path="/")
    elif theme == "auto":
        response.delete_cookie(THEME_COOKIE, path="/")
    return response


@router.get("/lang/{lang}")
def switch_language(lang: str, request: Request, next: str | None = None) -> Response:
    """Set the `lang` cookie (ru or en) and go back to the page the switch was on."""
    response = see_other(local_path(next))
    if lang in i18n.LANGUAGES:
        response.set_cookie(i18n.LANG_COOKIE, lang, max_age=ONE_YEAR, samesite="lax", path="/")
    return response


def throttled_page(request: Request, seconds: int) -> HTMLResponse:
    """The 429 page of a page request from a throttled address (`app.core.guard`):
    try again in `seconds`. Passed to the guard by `app.wiring.install`."""
    response = render(request, "phone/throttled.html", {"seconds": seconds}, status=429)
    response.headers["Retry-After"] = str(seconds)
    return response
