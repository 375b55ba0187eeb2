"""Page sign-in, cookies, the language switch and CSRF (TestClient, no browser)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.conftest import ADMIN_TOKEN
from tests.factories import make_event, make_participant


def set_cookie_headers(response) -> list[str]:
    return response.headers.get_list("set-cookie")


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no CSRF token in the form"
    return match.group(1)


def admin_login(client: TestClient) -> None:
    page = client.get("/admin/login")
    response = client.post(
        "/admin/login",
        data={"token": ADMIN_TOKEN, "csrf_token": csrf_of(page.text), "next": "/admin"},
        follow_redirects=False,
    )
    assert response.status_code == 303


def test_personal_link_sets_a_signed_httponly_cookie_and_redirects(
    client: TestClient, session: Session
):
    event = make_event(session)
    person = make_participant(session, event, "101", name="Анна")
    session.commit()

    response = client.get(f"/p/{person.access_token}", follow_redirects=False)

    assert response.status_code == 303
    assert response.headers["location"] == "/me"
    (cookie,) = [c for c in set_cookie_headers(response) if c.startswith("rp_participant=")]
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert person.access_token not in cookie  # only the signed id, never the token
    page = client.get("/me")
    assert page.status_code == 200
    assert "Анна" in page.text


def test_a_wrong_personal_link_explains_how_to_sign_in(client: TestClient, session: Session):
    response = client.get("/p/not-a-token")
    assert response.status_code == 404
    assert "Как войти" in response.text
    assert "rp_participant" not in response.headers.get("set-cookie", "")


def test_my_game_without_a_cookie_explains_how_to_sign_in(client: TestClient):
    response = client.get("/me")
    assert response.status_code == 200
    assert "личную ссылку" in response.text


def test_a_forged_participant_cookie_is_ignored(client: TestClient, session: Session):
    event = make_event(session)
    make_participant(session, event, "101", name="Анна")
    session.commit()
    client.cookies.set("rp_participant", '{"pid": 1}')
    response = client.get("/me")
    assert "Анна" not in response.text
    assert "Как войти" in response.text


def test_language_switch_sets_the_cookie_and_returns_to_the_page(client: TestClient):
    response = client.get("/lang/en?next=/me", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/me"
    assert client.get("/me").text.count("How to sign in") >= 1
    # an outside address is not followed
    response = client.get("/lang/ru?next=//evil.example/x", follow_redirects=False)
    assert response.headers["location"] == "/me"
    assert "Как войти" in client.get("/me").text


def test_admin_pages_send_a_browser_without_session_to_sign_in(client: TestClient):
    response = client.get("/admin", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/admin/login?next=/admin"


def test_admin_sign_in_with_the_token_opens_a_session(client: TestClient):
    admin_login(client)
    cookie = client.cookies.get("rp_organiser")
    assert cookie and ADMIN_TOKEN not in cookie
    assert client.get("/admin", follow_redirects=False).status_code == 200


def test_admin_session_is_accepted_by_the_organiser_dependency(client: TestClient, app):
    # OrganiserDep (app.core.principal.organiser_presented) asks the credential table's
    # session check (app.wiring.credentials).
    assert app.state.credentials.organiser is not None
    assert client.get("/api/v1/events").status_code == 401
    admin_login(client)
    assert client.get("/api/v1/events").status_code == 200


def test_wrong_token_does_not_sign_in(client: TestClient):
    page = client.get("/admin/login")
    response = client.post(
        "/admin/login",
        data={"token": "wrong", "csrf_token": csrf_of(page.text)},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert "error=1" in response.headers["location"]
    assert client.cookies.get("rp_organiser") is None


def test_sign_in_without_csrf_token_is_rejected(client: TestClient):
    client.get("/admin/login")
    response = client.post("/admin/login", data={"token": ADMIN_TOKEN, "csrf_token": "x"})
    assert response.status_code == 403
    assert client.cookies.get("rp_organiser") is None


def test_sign_out_needs_the_csrf_token_of_the_session(client: TestClient):
    admin_login(client)
    response = client.post("/admin/logout", data={"csrf_token": "forged"})
    assert response.status_code == 403
    assert client.get("/admin", follow_redirects=False).status_code == 200
    token = csrf_of(client.get("/admin").text)
    response = client.post("/admin/logout", data={"csrf_token": token}, follow_redirects=False)
    assert response.status_code == 303
    assert client.get("/admin", follow_redirects=False).status_code == 303


def test_reissuing_the_token_ends_the_old_phone_session(client: TestClient, session: Session):
    from app.core.security import hash_token
    from app.events.models import Participant

    event = make_event(session)
    person = make_participant(session, event, "101", name="Анна")
    session.commit()
    client.get(f"/p/{person.access_token}")
    assert "Анна" in client.get("/me").text
    row = session.get(Participant, person.id)
    row.access_token_hash = hash_token("a-new-token-0123456789abcdef")
    session.commit()
    assert "Как войти" in client.get("/me").text


def test_root_is_a_landing_page_or_a_redirect_and_the_favicon_is_served(
    client: TestClient, session: Session
):
    page = client.get("/", follow_redirects=False)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "личный QR-код" in page.text and 'href="/admin/login"' in page.text
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.content.startswith(b"<svg")

    event = make_event(session)
    anna = make_participant(session, event, "31")
    session.commit()
    client.get(f"/p/{anna.access_token}")
    assert client.get("/", follow_redirects=False).headers["location"] == "/me"

    organiser = TestClient(client.app)
    admin_login(organiser)
    assert organiser.get("/", follow_redirects=False).headers["location"] == "/admin"


def test_the_organiser_signs_in_on_a_browser_that_holds_a_participant_session(
    client: TestClient, session: Session
):
    # An organiser who tried the phone pages on their own browser (a participant cookie)
    # must still be able to sign in: the form's token is tied to that session, as
    # `csrf_valid` checks it (it was tied to a new anonymous nonce: 403 every time).
    event = make_event(session)
    anna = make_participant(session, event, "31", name="Анна")
    session.commit()
    assert client.get(f"/p/{anna.access_token}").status_code == 200
    admin_login(client)  # asserts the 303 of a successful sign-in
    assert client.get(f"/admin/events/{event.id}", follow_redirects=False).status_code == 200
