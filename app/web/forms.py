"""The form layer of the organiser pages: one CSRF dependency and one page error handler.

Modelled on Polar's `exception_handlers.py`: a page route never builds an error
redirect by hand. It raises (or lets `redirect_on_error` turn a domain error into)
`PageRedirect(url, code=…)`; the handler installed by `install_page_error_handlers`
answers 303 to `url?error=<code>`, and when the error names rows or fields
(`errors` of a 422 problem: CSV rows, invalid form fields) or the form's values
should come back, it hands them to the next page in a short-lived signed cookie
(`FORM_FLASH_COOKIE`). The request's session is rolled back because the route
raised (`SessionDep`), so a refused form stores nothing.

`CsrfDep` checks the form's `csrf_token` against the session and raises
`CsrfRejected` (a 403 page) before the route runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request, Response
from pydantic import ValidationError

from app.core.errors import AppError
from app.web import sessions
from app.web.common import render, see_other
from app.web.i18n import negotiate, translate

FORM_FLASH_COOKIE = "rp_form"
MAX_FLASHED_ERRORS = 20  # the cookie stays small; the page says how many more there were


class CsrfRejected(Exception):
    """A page form without this session's CSRF token (answered with a 403 page)."""


class PageRedirect(Exception):
    """Go back to `url` with a message: `code` (an `error.<code>` message, or a
    `admin.done.<code>` notice when `done`), row/field `errors` and the form's `values`."""

    def __init__(
        self,
        url: str,
        *,
        code: str,
        errors: list[dict[str, Any]] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(code)
        self.url = url
        self.code = code
        self.errors = errors or []
        self.values = dict(values or {})


async def require_csrf(request: Request) -> None:
    """Dependency: the form's `csrf_token` must be this session's; else `CsrfRejected`.

    Reads the form once (FastAPI reuses the parsed form for the route's fields).
    """
    form = await request.form()
    token = form.get("csrf_token")
    if not isinstance(token, str) or not sessions.csrf_valid(request, token):
        raise CsrfRejected()


CsrfDep = Annotated[None, Depends(require_csrf)]


def field_errors(error: ValidationError) -> list[dict[str, Any]]:
    """Pydantic errors as `{"field", "msg"}` items (the form field named by the API's JSON)."""
    return [
        {"field": ".".join(str(part) for part in item["loc"]) or "form", "msg": item["msg"]}
        for item in error.errors()
    ]


@contextmanager
def redirect_on_error(url: str, values: Mapping[str, Any] | None = None) -> Iterator[None]:
    """Turn a domain error (`AppError`) or invalid input (pydantic) raised inside into
    `PageRedirect(url)` carrying its code, its row/field errors and the form's `values`."""
    try:
        yield
    except AppError as error:
        raise PageRedirect(
            url, code=error.code, errors=list(error.extra.get("errors") or []), values=values
        ) from error
    except ValidationError as error:
        raise PageRedirect(
            url, code="validation_error", errors=field_errors(error), values=values
        ) from error


def with_query(url: str, name: str, value: str) -> str:
    """`url` with `name=value` added to its query (before any `#fragment`)."""
    path, hash_mark, fragment = url.partition("#")
    joined = f"{path}{'&' if '?' in path else '?'}{name}={quote(value)}"
    return joined + hash_mark + fragment


def done(url: str, key: str) -> Response:
    """303 to `url` with the notice `admin.done.<key>` (after a form that succeeded)."""
    return see_other(with_query(url, "done", key))


def install_page_error_handlers(app: FastAPI) -> None:
    """Register the page handlers: `PageRedirect` → 303 with the message, `CsrfRejected`
    → the 403 page."""

    @app.exception_handler(PageRedirect)
    async def _redirect(request: Request, exc: PageRedirect) -> Response:
        response = see_other(with_query(exc.url, "error", exc.code))
        if exc.errors or exc.values:
            payload = {
                "errors": exc.errors[:MAX_FLASHED_ERRORS],
                "more": max(0, len(exc.errors) - MAX_FLASHED_ERRORS),
                "values": {k: str(v)[:300] for k, v in exc.values.items()},
            }
            sessions.set_flash(
                request, response, FORM_FLASH_COOKIE, json.dumps(payload), path="/admin"
            )
        return response

    @app.exception_handler(CsrfRejected)
    async def _csrf(request: Request, _exc: CsrfRejected) -> Response:
        return render(request, "admin/csrf.html", status=403)


def page_messages(request: Request) -> dict[str, Any]:
    """The outcome of the last form for the page: `notice`, `error` (both translated),
    `row_errors` (CSV rows / form fields), `more_errors` and `form` (values sent back).

    The caller deletes the cookie with `forget_messages` on its response.
    """
    lang = negotiate(request)
    done_key = request.query_params.get("done")
    code = request.query_params.get("error")
    notice = translate(lang, f"admin.done.{done_key}") if done_key else None
    error = None
    if code:
        error = translate(lang, f"error.{code}")
        if error == f"error.{code}":
            error = translate(lang, "admin.failed_generic")
    flashed: dict[str, Any] = {}
    raw = request.cookies.get(FORM_FLASH_COOKIE)
    if raw and code:
        value = sessions.read_flash(request, raw, FORM_FLASH_COOKIE)
        if value:
            try:
                flashed = json.loads(value)
            except ValueError:
                flashed = {}
    return {
        "field_label": partial(field_label, lang),
        "notice": notice,
        "error": error,
        "row_errors": flashed.get("errors", []),
        "more_errors": flashed.get("more", 0),
        "form": flashed.get("values", {}),
    }


def field_label(lang: str, field: str) -> str:
    """A form field or CSV column in the page language (`field.<name>`), else as named."""
    text = translate(lang, f"field.{field}")
    return field if text == f"field.{field}" else text


def forget_messages(request: Request, response: Response) -> Response:
    """Delete the flashed form errors once a page has shown them."""
    if request.cookies.get(FORM_FLASH_COOKIE):
        response.delete_cookie(FORM_FLASH_COOKIE, path="/admin")
    return response
