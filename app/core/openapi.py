"""The OpenAPI document: every operation documents the service's problem responses.

Errors are RFC 9457 problems (`app.core.errors`), so 400, 401, 403, 404, 409, 413, 415,
422 and 429 are documented once here, on every operation, as
`application/problem+json` with the `Problem` schema (FastAPI's own 422
`HTTPValidationError` is replaced: the service never answers it).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from app.core.problems import PROBLEM_MEDIA_TYPE

PROBLEM_STATUSES: dict[int, str] = {
    400: "The request body cannot be parsed (`bad_request`)",
    401: "Missing or wrong credentials (`unauthorized`, `invalid_game_token`, …)",
    403: "Not allowed for this caller (`forbidden`, `not_your_state`, …)",
    404: "No such object (`event_not_found`, `participant_not_found`, …)",
    409: "Conflicts with the current state (`feed_closed`, `deck_in_play`, …)",
    413: "The upload is too large (`payload_too_large`, `csv_too_large`)",
    415: "Unsupported request body type (`unsupported_media_type`)",
    422: "Invalid input (`validation_error` with `errors`, `csv_invalid`, …)",
    429: "Too many requests (`too_many_failures`, `too_many_unknown_codes`); see Retry-After",
}
FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")


class Problem(BaseModel):
    """An RFC 9457 problem; some codes add fields (`errors`, `legal_actions`, …)."""

    model_config = ConfigDict(extra="allow", title="Problem")

    type: str = Field(description="URI of the problem type (ends with `code`)")
    title: str
    status: int = Field(description="The HTTP status")
    detail: str
    code: str = Field(description="Stable machine-readable code")


def _problem_response(status: int) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": PROBLEM_STATUSES[status],
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    if status == 429:
        response["headers"] = {
            "Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}
        }
    return response


def add_problem_responses(schema: dict[str, Any]) -> dict[str, Any]:
    """Document the problem responses on every operation of `schema` (changed in place)."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for status in PROBLEM_STATUSES:
                responses[str(status)] = _problem_response(status)
    for name in FASTAPI_VALIDATION_SCHEMAS:
        components.pop(name, None)
    return schema


def install_problem_openapi(app: FastAPI) -> None:
    """Make `app.openapi()` return the schema with the problem responses (built once)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = add_problem_responses(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
