"""The API explorer: `/docs` (Swagger UI 5) and `/redoc` (Redoc), on the OpenAPI 3.1 schema.

Both are served from `app/static/vendor/` (npm `swagger-ui-dist` 5.32.0 and `redoc`
2.5.0, committed with their licences): no CDN, works offline. The pages carry no
inline script (the CSP allows `script-src 'self'`): `static/docs-init.js` starts
Swagger UI from the `data-openapi-url` of its container.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.web.templating import templates

router = APIRouter(include_in_schema=False)

SWAGGER_UI_VERSION = "5.32.0"
REDOC_VERSION = "2.5.0"


def _page(request: Request, name: str) -> Response:
    context = {"title": f"{request.app.title} API", "openapi_url": request.app.openapi_url}
    return templates.TemplateResponse(request, name, context)


@router.get("/docs")
def swagger_ui(request: Request) -> Response:
    """Swagger UI 5 on `/openapi.json` (OpenAPI 3.1), every asset from this service."""
    return _page(request, "docs/swagger.html")


@router.get("/redoc")
def redoc(request: Request) -> Response:
    """Redoc on `/openapi.json`, every asset from this service."""
    return _page(request, "docs/redoc.html")
