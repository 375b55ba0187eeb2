"""The page layer: who is on the page, one CSRF dependency, one page error handler.

Modelled on Polar's `exception_handlers.py`: a page route never builds an error
redirect by hand. It raises (or lets `redirect_on_error` turn a domain error into)
`PageRedirect(url, code=…)`; the handler installed by `install_page_error_handlers`
answers 303 to `url?error=<code>`, and when the error names rows or fields
(`errors` of a 422 problem: CSV rows, invalid form fields) or the form's values
should come back, it hands them to the next organiser page in a short-lived signed
cookie (`FORM_FLASH_COOKIE`). The request's session is rolled back because the route
raised (`SessionDep`), so a refused form stores nothing.

Who is on the page is a caller type of `app/callers.py` (`AdminPage`, `PhoneParticipant`,
`PhoneVisitor`, …); the refusals it raises are answered by the handlers below:
- `OrganiserSignInNeeded` (`AdminPage` without the organiser): 303 to
  `/admin/login?next=<path>`;
- `SignInNeeded` (`PhoneParticipant` without the phone's participant): the page that
  explains how to sign in;
- CSRF is checked app-wide, before any route runs (`app.web.csrf.csrf_guard`, with
  `check_csrf` below): a refused form is `CsrfRejected` (a 403 page, or a phone's page).

Mistyped page addresses (`/admin/...`, `/me...`, `/t/...`) answer an HTML 404 page
(`not_found_page`, passed to the error handlers by `app.wiring`); the API keeps its problems.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request, Response
from pydantic import ValidationError
from starlette.routing import Match

from app.callers import (
    OrganiserSignInNeeded,
    SignInNeeded,
)
from app.core.errors import AppError, InputProblem
from app.web import sessions
from app.web.common import quoted, render, see_other
from app.web.i18n import negotiate, translate

FORM_FLASH_COOKIE = "rp_form"
MAX_FLASHED_ERRORS = 20  # the cookie stays small; the page says how many more there were


class CsrfRejected(Exception):
    """A page form without this session's CSRF token: a 403 page, or 303 to `back` (the
    phone pages go back to their page)."""

    def __init__(self, back: str | None = None) -> None:
        super().__init__(back or "csrf")
        self.back = back


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


async def check_csrf(request: Request, back: str | None = None) -> None:
    """The form's `csrf_token` must be this session's; else `CsrfRejected(back)`.

    Reads the form once (FastAPI reuses the parsed form for the route's fields).
    """
    form = await request.form()
    token = form.get("csrf_token")
    if not isinstance(token, str) or not sessions.csrf_valid(request, token):
        raise CsrfRejected(back)


def field_errors(error: ValidationError) -> list[dict[str, Any]]:
    """Pydantic errors as `{"field", "msg", "type", "values"}` items (the form field named
    by the API's JSON; `type` and `values` let the page say it in its language:
    `error_text`). A validator's `InputProblem` gives its own code and values."""
    items = []
    for item in error.errors():
        context = dict(item.get("ctx") or {})
        problem = context.pop("error", None)
        kind, values = item["type"], {k: str(v) for k, v in context.items()}
        if isinstance(problem, InputProblem):
            kind, values = problem.code, dict(problem.values)
        field = ".".join(str(part) for part in item["loc"]) or "form"
        items.append({"field": field, "msg": item["msg"], "type": kind, "values": values})
    return items


def _with_field(item: Mapping[str, Any]) -> dict[str, Any]:
    """A problem's error item with a `field` (an API item names it by `loc`: its last part)."""
    found = dict(item)
    if "field" not in found and found.get("loc"):
        found["field"] = str(list(found["loc"])[-1])
    return found


# The deck and participant CSV / deck errors of `app.events` (English, as the API gives
# them) in the page language (issue 26 point 8): the message's pattern -> catalogue key.
ROW_MESSAGES = [
    (re.compile(r"^is required$"), "rows.required"),
    (re.compile(r"^not a card of the deck: '(?P<card>.*)' \(.*\)$"), "rows.not_a_card"),
    (re.compile(r"^CP (?P<number>\d+) appears twice$"), "rows.cp_twice"),
    (re.compile(r"^(?P<card>.+) appears twice in the deck$"), "rows.card_twice"),
    (re.compile(r"^'(?P<value>.*)' appears twice$"), "rows.value_twice"),
    (re.compile(r"^'(?P<value>.*)' is already taken$"), "rows.taken"),
    (re.compile(r"^is already another code of this event$"), "rows.code_twice"),
    (re.compile(r"^is already used by another event$"), "rows.code_elsewhere"),
    (re.compile(r"^must be at least (?P<minimum>\d+) letters or digits"), "rows.code_short"),
    (re.compile(r"^is too weak: about (?P<bits>\d+) bits"), "rows.code_weak"),
    (re.compile(r"^the header has no column '(?P<column>\w+)'$"), "rows.no_column"),
    (re.compile(r"^the file has no checkpoint rows$"), "rows.no_checkpoints"),
    (re.compile(r"^the file has no participant rows$"), "rows.no_participants"),
    (re.compile(r"^lat and lon must be given together$"), "rows.lat_lon"),
    (re.compile(r"^must be a whole number from 1 to (?P<maximum>\d+)$"), "rows.number"),
]


def error_text(lang: str, error: Mapping[str, Any]) -> str:
    """A form error in the page language (`input.<type>` with its values, or a known
    deck/CSV message of `ROW_MESSAGES`), else its English `msg` as the API gives it."""
    kind = error.get("type")
    if kind:
        text = translate(lang, f"input.{kind}", **(error.get("values") or {}))
        if text != f"input.{kind}":
            return text
    message = str(error.get("msg", ""))
    for pattern, key in ROW_MESSAGES:
        match = pattern.match(message)
        if match:
            return translate(lang, key, **match.groupdict())
    return message


@contextmanager
def redirect_on_error(url: str, values: Mapping[str, Any] | None = None) -> Iterator[None]:
    """Turn a domain error (`AppError`) or invalid input (pydantic) raised inside into
    `PageRedirect(url)` carrying its code, its row/field errors and the form's `values`."""
    try:
        yield
    except AppError as error:
        errors = [_with_field(item) for item in error.extra.get("errors") or []]
        raise PageRedirect(url, code=error.code, errors=errors, values=values) from error
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


def is_page(request: Request) -> bool:
    """True for the HTML pages whose 404 is a page, not a problem: `/admin…`, `/me…`,
    `/t/…`, `/hall/…` (not their `.json` polls)."""
    path = request.url.path
    if path.endswith(".json"):  # the pages' live counters and polls stay JSON
        return False
    return path in ("/admin", "/me") or path.startswith(("/admin/", "/me/", "/t/", "/hall/"))


def not_found_page(request: Request, status: int = 404) -> Response | None:
    """The pages' answer to an error of a page address; None for any other path (the API
    keeps its problem). Passed to `app.core.problems.install_error_handlers` by
    `app.wiring.install`.

    404: the 404 page. 405 to a GET (a form's address opened from the address bar, a
    bookmark or a restored tab after the form's answer): 303 to the nearest page above
    it (`/admin/events/1/iof/course-data` → `/admin/events/1/iof`). 422 (a bad query,
    `?page=abc`): 303 to the page without its query."""
    if not is_page(request):
        return None
    if status == 405 and request.method == "GET":
        return see_other(_page_above(request))
    if status == 422 and request.method == "GET":
        return see_other(request.url.path)
    if status != 404:
        return None
    return render(request, "not_found.html", status=404)


def _page_above(request: Request) -> str:
    """The nearest path above the request's that a GET route of the app answers."""
    parts = request.url.path.rstrip("/").split("/")
    while len(parts) > 2:
        parts.pop()
        path = "/".join(parts)
        scope = {"type": "http", "path": path, "method": "GET"}
        for route in request.app.router.routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return path
    return "/me" if request.url.path.startswith("/me") else "/admin"


def install_page_error_handlers(app: FastAPI) -> None:
    """Register the page handlers: `PageRedirect` → 303 with the message, `CsrfRejected`
    → the 403 page (or 303 back), `SignInNeeded` → the phone's sign-in help,
    `OrganiserSignInNeeded` → 303 to the sign-in page (the 404 page, `not_found_page`,
    is passed to `app.core.problems.install_error_handlers` by `app.wiring.install`)."""

    @app.exception_handler(PageRedirect)
    async def _redirect(request: Request, exc: PageRedirect) -> Response:
        response = see_other(with_query(exc.url, "error", exc.code))
        if (exc.errors or exc.values) and exc.url.startswith("/admin"):
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
    async def _csrf(request: Request, exc: CsrfRejected) -> Response:
        if exc.back is not None:
            return see_other(exc.back)
        return render(request, "admin/csrf.html", status=403)

    @app.exception_handler(SignInNeeded)
    async def _sign_in(request: Request, _exc: SignInNeeded) -> Response:
        return render(request, "phone/signin.html")

    @app.exception_handler(OrganiserSignInNeeded)
    async def _organiser_sign_in(request: Request, _exc: OrganiserSignInNeeded) -> Response:
        return see_other("/admin/login?next=" + quoted(request.url.path))


def outcome(request: Request) -> dict[str, str | None]:
    """The `notice` / `error` of a redirect after a form (`?done=<key>` / `?error=<code>`),
    translated (an unknown error code reads as the generic failure)."""
    lang = negotiate(request)
    done_key = request.query_params.get("done")
    code = request.query_params.get("error")
    notice = translate(lang, f"admin.done.{done_key}") if done_key else None
    error = None
    if code:
        error = translate(lang, f"error.{code}")
        if error == f"error.{code}":
            error = translate(lang, "admin.failed_generic")
    return {"notice": notice, "error": error}


def page_messages(request: Request) -> dict[str, Any]:
    """The outcome of the last form for the page: `notice`, `error` (both translated),
    `row_errors` (CSV rows / form fields), `more_errors` and `form` (values sent back).

    The caller deletes the cookie with `forget_messages` on its response.
    """
    lang = negotiate(request)
    code = request.query_params.get("error")
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
        "error_text": partial(error_text, lang),
        "row_heading": partial(row_heading, lang),
        "row_label": partial(row_label, lang),
        **outcome(request),
        "row_errors": flashed.get("errors", []),
        "more_errors": flashed.get("more", 0),
        "form": flashed.get("values", {}),
    }


def field_label(lang: str, field: str) -> str:
    """A form field or CSV column in the page language (`field.<name>`), else as named."""
    text = translate(lang, f"field.{field}")
    return field if text == f"field.{field}" else text


# What an error's `row` counts, by its `element`: the entries of an IOF EntryList, the
# controls of a CourseData; without an element, the rows of a CSV file.
_ROW_KINDS = {"PersonEntry": "entry", "TeamEntry": "entry", "Control": "control"}


def _row_kind(error: Mapping[str, Any]) -> str:
    return _ROW_KINDS.get(str(error.get("element")), "row")


def row_heading(lang: str, errors: list[Mapping[str, Any]]) -> str:
    """The heading of the errors' first column: "Строка"/"Row" for a CSV,
    "Запись"/"Entry" for an IOF EntryList, "Пункт"/"Control" for a CourseData (one file
    gives them all, so its first error decides)."""
    return translate(lang, f"setup.{_row_kind(errors[0]) if errors else 'row'}")


def row_label(lang: str, error: Mapping[str, Any]) -> str:
    """Where an error is: "строка 3" of a CSV (`row`); "запись 2 (строка файла 28)" of
    an IOF EntryList (`row` counts the entries, `line` is the XML line), "пункт 2 (…)"
    of a CourseData's controls."""
    kind = _row_kind(error)
    if kind == "row" or not error.get("line"):
        return translate(lang, f"setup.{kind}_n", row=error.get("row"))
    return translate(lang, f"setup.{kind}_n_line", row=error.get("row"), line=error["line"])


def forget_messages(request: Request, response: Response) -> Response:
    """Delete the flashed form errors once a page has shown them."""
    if request.cookies.get(FORM_FLASH_COOKIE):
        response.delete_cookie(FORM_FLASH_COOKIE, path="/admin")
    return response
