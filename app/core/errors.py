"""Domain errors: an `AppError` carries an HTTP status and a stable `code`.

Raise an `AppError` subclass from services, rules modules and dependencies; the
handlers of `app.core.problems` render it as an RFC 9457 problem response. This module
is pure (no FastAPI, no Starlette), so the rules modules may raise these errors.
"""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    """A domain error with an HTTP status and a stable `code`.

    `extra` fields are added to the problem body (for example `errors`, `legal_actions`).
    """

    status: int = 400
    code: str = "bad_request"
    title: str | None = None

    def __init__(
        self,
        detail: str,
        *,
        code: str | None = None,
        status: int | None = None,
        title: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        if title is not None:
            self.title = title
        self.headers = headers
        self.extra = extra


class InputProblem(ValueError):
    """A field validator's refusal with a stable `code` and its `values`, so that pages can
    say it in the page language (`input.<code>` in `app.web.i18n`); the API shows
    `str(error)`, the English message, as pydantic does for any ValueError."""

    def __init__(self, code: str, message: str, **values: str) -> None:
        super().__init__(message)
        self.code = code
        self.values = values


class BadRequest(AppError):
    status, code = 400, "bad_request"


class Unauthorized(AppError):
    status, code = 401, "unauthorized"

    def __init__(self, detail: str = "Missing or invalid credentials.", **kwargs: Any) -> None:
        kwargs.setdefault("headers", {"WWW-Authenticate": "Bearer"})
        super().__init__(detail, **kwargs)


class Forbidden(AppError):
    status, code = 403, "forbidden"


class NotFound(AppError):
    status, code = 404, "not_found"


class Conflict(AppError):
    status, code = 409, "conflict"


class Unprocessable(AppError):
    status, code = 422, "validation_error"


class TooManyRequests(AppError):
    status, code = 429, "rate_limited"
