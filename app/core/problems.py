"""Errors rendered as RFC 9457 problem responses.

Every error response of the service is `application/problem+json` with
`type`, `title`, `status`, `detail` and a stable machine-readable `code`.
Services raise `app.core.errors.AppError` subclasses; one set of handlers, installed
by `install_error_handlers`, renders them (and FastAPI's own errors) here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core.errors import AppError

logger = logging.getLogger("app.errors")

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "https://rogaine-poker.example/problems/"


def problem_response(
    status: int,
    code: str,
    detail: str,
    *,
    title: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """Build an RFC 9457 problem response."""
    body = problem_body(status, code, detail, title=title, **extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def problem_body(
    status: int, code: str, detail: str, *, title: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The RFC 9457 problem object (`type`, `title`, `status`, `detail`, `code`, plus
    `extra`): the body of a problem response, or embedded in a result (a bad batch item)."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    body.update(jsonable_encoder(extra))
    return body


_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


def _validation_errors(exc: RequestValidationError | ValidationError) -> list[dict[str, Any]]:
    errors = []
    for error in exc.errors():
        errors.append(
            {
                "loc": [str(part) for part in error.get("loc", ())],
                "msg": error.get("msg", ""),
                "type": error.get("type", ""),
            }
        )
    return errors


PageAnswer = Callable[[Request, int], "Response | None"]
"""The pages' answer to an error of a page address (`app.web.forms.not_found_page`):
for `status` 404 the HTML 404 page; 405 (a GET of a form's address, e.g. a bookmarked
answer to a POST) a redirect to the page it belongs to; 422 (a bad query of a page,
`?page=abc`) the page without the query; None for a path that is not a page."""


def install_error_handlers(app: FastAPI, pages: PageAnswer | None = None) -> None:
    """Render every error of `app` as a problem response (never a traceback); an error of
    a page address is the pages' answer `pages` (passed by `app.wiring.install`)."""

    def not_found_page(request: Request, status: int = 404) -> Response | None:
        return pages(request, status) if pages is not None else None

    @app.exception_handler(AppError)
    async def _app_error(request: Request, exc: AppError) -> Response:
        if exc.status == 404 and (page := not_found_page(request)) is not None:
            return page
        return problem_response(
            exc.status, exc.code, exc.detail, title=exc.title, headers=exc.headers, **exc.extra
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if (
            exc.status_code in (404, 405)
            and (page := not_found_page(request, exc.status_code)) is not None
        ):
            return page
        code = _STATUS_CODES.get(exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        return problem_response(
            exc.status_code, code, detail, headers=getattr(exc, "headers", None)
        )

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        errors = _validation_errors(exc)
        # /admin/events/new: a word where a page's number goes is no such page
        no_id = any(e["loc"][:1] == ["path"] and e["type"] == "int_parsing" for e in errors)
        if no_id and (page := not_found_page(request)) is not None:
            return page
        in_query = bool(errors) and all(e["loc"][:1] == ["query"] for e in errors)
        if in_query and (page := not_found_page(request, 422)) is not None:
            return page
        if any(error["type"] == "json_invalid" for error in errors):
            detail = "The request body is not valid JSON."
        else:
            fields = ", ".join(".".join(e["loc"]) for e in errors[:5])
            detail = f"The request is not valid: {fields}."
        return problem_response(422, "validation_error", detail, errors=errors)

    @app.exception_handler(ValidationError)
    async def _model_error(_request: Request, exc: ValidationError) -> JSONResponse:
        """A schema built from input inside a route or service (e.g. a page's form)."""
        errors = _validation_errors(exc)
        fields = ", ".join(".".join(e["loc"]) for e in errors[:5])
        detail = f"The request is not valid: {fields}."
        return problem_response(422, "validation_error", detail, errors=errors)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem_response(500, "internal_error", "An unexpected error occurred.")
