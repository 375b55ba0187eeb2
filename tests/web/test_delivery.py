"""Delivery (issue 24 item 5): compression, content-hashed static files with immutable
caching, the service worker's precache list, page caching and the JSON body limit."""

from __future__ import annotations

import gzip
import http.client
import json
import re
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import anyio
import brotli
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.problems import PROBLEM_MEDIA_TYPE
from app.main import create_app
from app.web.assets import STATIC_DIR, asset_hashes, static_url
from app.web.phone.offline import PRECACHE_MODULES, PRECACHE_ROUTES, PRECACHE_STATIC
from tests.conftest import make_settings
from tests.factories import make_event, make_participant

IMMUTABLE = "public, max-age=31536000, immutable"


def _raw(client: TestClient, url: str, encoding: str, **kwargs):
    """The response as sent: `client.stream` leaves the body undecoded."""
    headers = {"Accept-Encoding": encoding, **kwargs.pop("headers", {})}
    with client.stream("GET", url, headers=headers, **kwargs) as response:
        return response, b"".join(response.iter_raw())


def _signed_in(client: TestClient, session: Session):
    event = make_event(session)
    anna = make_participant(session, event, "21", name="Анна")
    session.commit()
    assert client.get(f"/p/{anna.access_token}", follow_redirects=False).status_code == 303
    return event, anna


# --- compression ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "decode"), [("gzip", gzip.decompress), ("br", brotli.decompress)]
)
def test_html_json_css_and_js_are_compressed(client: TestClient, session, encoding, decode):
    _signed_in(client, session)
    for url, media in [
        ("/me", "text/html"),
        ("/openapi.json", "application/json"),
        (static_url("app.css"), "text/css"),
        (static_url("offline/app.js"), "text/javascript"),
    ]:
        response, body = _raw(client, url, encoding)
        assert response.status_code == 200, url
        assert response.headers["content-type"].startswith(media), url
        assert response.headers["content-encoding"] == encoding, url
        assert "Accept-Encoding" in response.headers["vary"], url
        plain = decode(body)
        assert len(body) < len(plain), url
        if url.startswith("/static/"):
            name = url.removeprefix("/static/")
            original = re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", name)
            assert plain == (STATIC_DIR / original).read_bytes(), url


def test_no_compression_without_accept_encoding(client: TestClient):
    response, body = _raw(client, static_url("app.css"), "identity")
    assert "content-encoding" not in response.headers
    assert body == (STATIC_DIR / "app.css").read_bytes()


def test_the_live_stream_is_never_compressed(live_server):
    with Session(live_server.engine) as db:
        event = make_event(db)
        db.commit()
        event_id = event.id
    parts = urlsplit(live_server.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(
            "GET",
            f"/api/v1/events/{event_id}/live",
            headers={"Accept": "text/event-stream", "Accept-Encoding": "zstd, br, gzip"},
        )
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("content-type").startswith("text/event-stream")
        assert response.getheader("content-encoding") is None
        first = response.readline().decode("utf-8")  # plain text, as sent
        assert re.match(r"^(id|event|data|retry)?:", first), first
    finally:
        connection.sock.shutdown(2)
        connection.close()


# --- static files ----------------------------------------------------------------------


def test_hashed_static_files_are_cached_immutably(client: TestClient):
    url = static_url("app.css")
    digest = asset_hashes()["app.css"]
    assert url == f"/static/app.{digest}.css"
    assert len(digest) == 12
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["cache-control"] == IMMUTABLE
    assert response.content == (STATIC_DIR / "app.css").read_bytes()
    nested = client.get(static_url("offline/store.js"))
    assert nested.headers["cache-control"] == IMMUTABLE
    assert nested.content == (STATIC_DIR / "offline" / "store.js").read_bytes()


def test_unhashed_and_stale_names_keep_working_without_the_long_cache(client: TestClient):
    plain = client.get("/static/app.css")
    assert plain.status_code == 200
    assert plain.headers["cache-control"] == "no-cache"
    assert plain.content == (STATIC_DIR / "app.css").read_bytes()
    # A name with an old hash (a page rendered before a deploy): today's file, no-cache.
    stale = client.get("/static/app.000000000000.css")
    assert stale.status_code == 200
    assert stale.headers["cache-control"] == "no-cache"
    assert stale.content == plain.content
    assert client.get("/static/nothing.000000000000.css").status_code == 404
    assert client.get("/static/nothing.css").status_code == 404


def test_pages_name_the_hashed_files(client: TestClient, session):
    _signed_in(client, session)
    html = client.get("/me").text
    assert f'href="{static_url("app.css")}"' in html
    assert f'src="{static_url("offline/register.js")}"' in html
    assert '"/static/app.css"' not in html


def test_the_service_worker_precaches_the_hashed_files(client: TestClient):
    response = client.get("/sw.js")
    assert response.headers["cache-control"] == "no-cache"
    found = re.search(r"^self\.ROGAINE_ASSETS = (\[.*\]);$", response.text, re.MULTILINE)
    assert found is not None
    urls = json.loads(found.group(1))
    expected = [f"/static/{name}" for name in PRECACHE_STATIC]
    hashed = [
        re.sub(r"^(.*)(\.\w+)$", lambda m: f"{m[1]}.{asset_hashes()[m[1][8:] + m[2]]}{m[2]}", u)
        for u in expected
    ]
    modules = [f"/static/{name}" for name in PRECACHE_MODULES]
    assert urls == [*hashed, *modules, *PRECACHE_ROUTES]
    assert "/static/app.css" not in urls
    for url in hashed:
        fetched = client.get(url)
        assert fetched.status_code == 200, url
        assert fetched.headers["cache-control"] == IMMUTABLE, url
    for url in modules:  # imported by their plain names: revalidated online, cached offline
        fetched = client.get(url)
        assert fetched.status_code == 200, url
        assert fetched.headers["cache-control"] == "no-cache", url
    # A module worker: it imports the store by its plain name.
    assert 'import * as Store from "/static/offline/store.js";' in response.text


IMPORT = re.compile(r'^import\b[^"]*"(\./[\w./-]+)";$', re.MULTILINE)


def _imports(name: str) -> set[str]:
    """The static files module `name` imports (relative specifiers, resolved)."""
    folder = name.rpartition("/")[0]
    text = (STATIC_DIR / name).read_text(encoding="utf-8")
    return {f"{folder}/{spec[2:]}".lstrip("/") for spec in IMPORT.findall(text)}


def test_the_precache_list_holds_every_module_the_offline_shell_imports():
    """Follow the imports from offline/app.js: each module it needs, directly or not,
    is precached under the plain name the import resolves to (else the shell breaks
    offline), and the list names nothing else."""
    needed, todo = set(), ["offline/app.js"]
    while todo:
        for name in _imports(todo.pop()) - needed:
            needed.add(name)
            todo.append(name)
    assert needed == set(PRECACHE_MODULES)
    assert len(PRECACHE_MODULES) == len(set(PRECACHE_MODULES))
    assert "offline/app.js" in PRECACHE_STATIC  # the entry, by its hashed name


def test_the_offline_shell_loads_one_module_and_preloads_what_it_imports(
    client: TestClient, session
):
    _signed_in(client, session)
    html = client.get("/me/offline").text
    assert f'<script type="module" src="{static_url("offline/app.js")}"' in html
    for name in PRECACHE_MODULES:
        assert f'<link rel="modulepreload" href="/static/{name}">' in html
    # no module twice (hashed and plain names are two module instances)
    assert static_url("offline/store.js") not in html


# --- page caching ------------------------------------------------------------------------


def test_pages_are_private_and_revalidated_and_sign_out_clears_the_cache(
    client: TestClient, session
):
    _signed_in(client, session)
    page = client.get("/me")
    assert page.headers["cache-control"] == "private, no-cache"  # no shared cache, bfcache ok
    bundle = client.get("/me/offline.json")
    assert bundle.headers["cache-control"] == "private, no-cache"
    signin = client.get("/admin/login")
    assert signin.headers["cache-control"] == "private, no-cache"
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    out = client.post("/me/signout", data={"csrf_token": csrf}, follow_redirects=False)
    assert out.status_code == 303
    assert out.headers["clear-site-data"] == '"cache"'


# --- JSON body limit ---------------------------------------------------------------------


def _asgi_post(app, path: str, headers: list[tuple[bytes, bytes]], chunks: list[bytes]):
    """POST straight to the ASGI app; returns (status, headers, body, chunks read)."""
    sent: list[dict] = []
    read = 0

    async def receive():
        nonlocal read
        if read < len(chunks):
            read += 1
            return {
                "type": "http.request",
                "body": chunks[read - 1],
                "more_body": read < len(chunks),
            }
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
        "query_string": b"", "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 1), "server": ("testserver", 80),
    }  # fmt: skip

    async def run():
        await app(scope, receive, send)

    # In a thread of its own: the browser tests' Playwright keeps an event loop running
    # in this thread when they share the process.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, run).result()
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), body, read


@pytest.fixture
def small_limit_app(database_url, engine):
    settings = make_settings(database_url, json_body_max_bytes=1000, archive_body_max_bytes=3000)
    return create_app(settings, engine)


def test_an_oversized_json_body_is_refused_before_it_is_read(small_limit_app):
    # Content-Length says 10 GB: the answer is 413 and not one chunk is read.
    status, headers, body, read = _asgi_post(
        small_limit_app,
        "/api/v1/events/1/takes",
        [(b"content-type", b"application/json"), (b"content-length", b"10000000000")],
        [b"{" * 2000],
    )
    assert status == 413
    assert read == 0
    assert headers[b"content-type"].decode() == PROBLEM_MEDIA_TYPE
    problem = json.loads(body)
    assert (problem["status"], problem["code"], problem["max_bytes"]) == (
        413,
        "payload_too_large",
        1000,
    )


def test_a_chunked_json_body_is_refused_at_the_first_chunk_past_the_limit(small_limit_app):
    # No Content-Length: 600 + 600 bytes pass the limit of 1000 at the second chunk; the
    # third is never read, nothing is parsed (the body is not even JSON).
    status, _, body, read = _asgi_post(
        small_limit_app,
        "/api/v1/events/1/takes",
        [(b"content-type", b"application/json")],
        [b"x" * 600, b"x" * 600, b"x" * 600],
    )
    assert (status, read) == (413, 2)
    assert json.loads(body)["code"] == "payload_too_large"


def test_bodies_within_the_limit_and_other_types_reach_the_app(small_limit_app, admin):
    # Within the limit the app parses it (invalid JSON: its own 422, not 413).
    status, _, _, _ = _asgi_post(
        small_limit_app,
        "/api/v1/events",
        [(b"content-type", b"application/json"), (b"content-length", b"900"),
         (b"authorization", admin["Authorization"].encode())],
        [b"[" * 900],
    )  # fmt: skip
    assert status == 422
    # A form post is not JSON: the limit does not apply (the sign-in form's own answer).
    form = b"token=" + b"x" * 2000
    status, _, _, _ = _asgi_post(
        small_limit_app,
        "/admin/login",
        [(b"content-type", b"application/x-www-form-urlencoded"),
         (b"content-length", str(len(form)).encode())],
        [form],
    )  # fmt: skip
    assert status != 413
    # The archive import has its own, larger limit (3000 here).
    status, _, _, _ = _asgi_post(
        small_limit_app,
        "/api/v1/events/import",
        [(b"content-type", b"application/json"), (b"content-length", b"2000"),
         (b"authorization", admin["Authorization"].encode())],
        [b"[" * 2000],
    )  # fmt: skip
    assert status == 400  # read and parsed: the import's own answer to broken JSON
    status, _, body, read = _asgi_post(
        small_limit_app,
        "/api/v1/events/import",
        [(b"content-type", b"application/json"), (b"content-length", b"3001")],
        [b"[" * 3001],
    )
    assert (status, read, json.loads(body)["max_bytes"]) == (413, 0, 3000)


def test_head_is_answered_as_get_without_a_body(client):
    """`curl -I` and uptime monitors: HEAD gets the GET's status and headers (compression
    included), no body; the live stream answers at once instead of staying open."""
    for path in ("/healthz", "/admin/login", "/static/app.css"):
        get = client.get(path, headers={"Accept-Encoding": "gzip"})
        head = client.head(path, headers={"Accept-Encoding": "gzip"})
        assert (head.status_code, head.content) == (get.status_code, b""), path
        assert head.headers.get("content-type") == get.headers.get("content-type"), path
        assert head.headers.get("content-encoding") == get.headers.get("content-encoding")
    stream = client.head("/api/v1/events/1/live")
    assert (stream.status_code, stream.content) == (200, b"")
    assert stream.headers["content-type"] == "text/event-stream"
