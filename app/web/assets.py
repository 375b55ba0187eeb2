"""Static files under content-hashed names, cached for a year.

Templates name a file with the global `static('app.css')`, which gives
`/static/app.<hash>.css`: `<hash>` is the first 12 hex digits of the SHA-256 of the file's
bytes, worked out once per process (the files do not change while it runs; a restart
after a deploy picks up new ones). `HashedStaticFiles` (mounted at `/static`) serves:

- a hashed name whose hash is the file's: the file, `Cache-Control: public,
  max-age=31536000, immutable` (a new version has a new name, so nothing is revalidated);
- a hashed name with another hash (a page rendered before a deploy): today's file,
  `no-cache`, so the old name is never kept for a year with new bytes;
- the plain name (`/static/app.css`, bookmarks, the manifest's icons): the file,
  `no-cache` (revalidated with its ETag at each use).

The offline phone's service worker precaches the hashed names (`precache_urls`).
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
HASH_LENGTH = 12
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_HASHED = re.compile(r"^(?P<stem>.+)\.(?P<digest>[0-9a-f]{12})(?P<ext>\.[A-Za-z0-9]+)$")


@cache
def asset_hashes(root: Path = STATIC_DIR) -> dict[str, str]:
    """{path under `root` with `/` separators: the first 12 hex digits of its SHA-256}."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()[
            :HASH_LENGTH
        ]
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def hashed_name(name: str) -> str:
    """`offline/app.js` → `offline/app.<hash>.js`; a name that is not a static file, or
    has no extension, is returned as given (served without the long cache)."""
    digest = asset_hashes().get(name)
    stem, dot, ext = name.rpartition(".")
    if digest is None or not dot or "/" in ext:
        return name
    return f"{stem}.{digest}.{ext}"


def static_url(name: str) -> str:
    """The URL of static file `name` (a path under `app/static/`): `/static/` + its hashed
    name. The Jinja global `static`."""
    return "/static/" + hashed_name(name)


def original_name(path: str) -> tuple[str, bool] | None:
    """(the file's own name, whether the hash is the current one) of a hashed path, else
    None: `app.0123456789ab.css` → (`app.css`, True or False)."""
    match = _HASHED.match(path)
    if match is None:
        return None
    name = match["stem"] + match["ext"]
    digest = asset_hashes().get(name)
    if digest is None:
        return None
    return name, digest == match["digest"]


class HashedStaticFiles(StaticFiles):
    """`StaticFiles` that also answers hashed names, with the caching above."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        posix = path.replace("\\", "/")
        resolved = None if posix in asset_hashes() else original_name(posix)
        if resolved is None:
            response = await super().get_response(path, scope)
            response.headers["Cache-Control"] = REVALIDATE
            return response
        name, current = resolved
        response = await super().get_response(name, scope)
        if response.status_code in (200, 304):
            response.headers["Cache-Control"] = IMMUTABLE if current else REVALIDATE
        return response
