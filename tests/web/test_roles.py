"""Organiser members with roles (issue 29): the one roles table (`app.web.roles`), the
member's sign-in link, refusals that change nothing, revocation in every process, and
the audit log naming the member."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.auctions.models import Auction, Bid
from app.core.audit import AuditEntry
from app.core.members import create_member
from app.core.models import OrganiserMember, OrganiserSession
from app.events.models import Event, Participant
from app.feed.models import Take
from app.main import create_app
from app.web.roles import ORGANISER_BY_HAND, PREFIX_ROLES, ROLES, organiser_access, roles_of
from tests.auctions.test_api import build
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.test_signin import admin_login, csrf_of

FORBIDDEN_PAGE = "Нет доступа"


def organiser_routes(app: FastAPI) -> set[tuple[str, str]]:
    """(method, path template) of every route of the app that accepts the organiser."""
    found = set()
    for context in iter_route_contexts(app.routes):
        served = getattr(context, "_effective_route", context.route)
        for method in (context.methods or set()) - {"HEAD"}:
            if organiser_access(served, method, context.path)[0]:
                found.add((method, context.path))
    return found


def all_routes(app: FastAPI) -> set[tuple[str, str]]:
    return {
        (method, context.path)
        for context in iter_route_contexts(app.routes)
        for method in (context.methods or set())
    }


def test_every_organiser_route_states_its_roles_in_the_one_table(app: FastAPI) -> None:
    organiser = organiser_routes(app)
    assert len(organiser) > 90  # the app's organiser routes, found
    assert organiser >= ORGANISER_BY_HAND
    missing = sorted(key for key in organiser if roles_of(*key) is None)  # ROLES or a prefix
    assert missing == [], "routes accepting the organiser missing from app.web.roles.ROLES"
    stale = sorted(set(ROLES) - all_routes(app))
    assert stale == [], "ROLES entries naming routes that are gone"
    assert set(ROLES) - organiser == set(), "a ROLES entry for a route without the organiser"
    assert all(prefix.endswith("/") for _, prefix in PREFIX_ROLES)
    # the hall screen (issue 29 item 2, other work) is admitted by its prefix, any role
    assert roles_of("GET", "/hall/{event_id}") == frozenset(
        {"owner", "judge", "desk", "ceremony", "screen"}
    )


# --- a team ----------------------------------------------------------------------------


@pytest.fixture
def team(session: Session) -> dict:
    """Event A (open course, participant 31) with a member of each role, and event B with
    one judge; tokens by role, `judge_b` for B's judge."""
    event = make_event(session, name="A")
    other = make_event(session, name="B")
    alice = make_participant(session, event, "31")
    make_participant(session, other, "41")
    tokens = {}
    for role in ("owner", "judge", "desk", "ceremony", "screen"):
        member, tokens[role] = create_member(session, event.id, f"Anna {role}", role)
        tokens[f"{role}_id"] = member.id
    _, tokens["judge_b"] = create_member(session, other.id, "Boris", "judge")
    session.commit()
    return {"a": event.id, "b": other.id, "alice": alice, "tokens": tokens, "event": event}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def takes(session: Session, event_id: int) -> int:
    session.expire_all()
    count = session.scalar(select(func.count()).select_from(Take).where(Take.event_id == event_id))
    session.rollback()  # no read transaction left open: the app writes next (SQLite)
    return count


def manual_take(client: TestClient, team: dict, headers: dict[str, str]):
    return client.post(
        f"/api/v1/events/{team['a']}/takes/manual",
        json={
            "participant": "31",
            "code": event_cp_code(team["event"], "5H"),
            "taken_at": (datetime.now(UTC) - timedelta(minutes=5)).isoformat(),
        },
        headers=headers,
    )


def test_judge_adds_a_take_by_hand_and_the_log_names_the_judge(client, session, team) -> None:
    tokens = team["tokens"]
    added = manual_take(client, team, bearer(tokens["judge"]))
    assert added.status_code == 200, added.text
    assert takes(session, team["a"]) == 1
    actors = session.scalars(
        select(AuditEntry.actor).where(AuditEntry.action == "feed.take_added")
    ).all()
    assert actors == [f"member:{tokens['judge_id']} Anna judge (judge)"]
    session.rollback()
    take_id = added.json()["take_id"]
    voided = client.post(
        f"/api/v1/events/{team['a']}/takes/{take_id}/void",
        json={"reason": "mis-scan"},
        headers=bearer(tokens["judge"]),
    )
    assert voided.status_code == 200, voided.text
    assert (
        session.scalar(select(AuditEntry.actor).where(AuditEntry.action == "feed.take_voided"))
        == f"member:{tokens['judge_id']} Anna judge (judge)"
    )


@pytest.mark.parametrize("role", ["desk", "ceremony", "screen"])
def test_other_roles_may_not_add_a_take_and_nothing_changes(client, session, team, role) -> None:
    refused = manual_take(client, team, bearer(team["tokens"][role]))
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.json()["code"] == "role_forbidden"
    assert takes(session, team["a"]) == 0


def test_a_member_of_another_event_is_refused(client, session, team) -> None:
    refused = manual_take(client, team, bearer(team["tokens"]["judge_b"]))
    assert (refused.status_code, refused.json()["code"]) == (403, "role_forbidden")
    assert takes(session, team["a"]) == 0
    own = client.get(f"/api/v1/events/{team['b']}/takes", headers=bearer(team["tokens"]["judge_b"]))
    assert own.status_code == 200


def test_desk_reissues_a_link_but_may_not_change_the_course(client, session, team) -> None:
    desk = bearer(team["tokens"]["desk"])
    base = f"/api/v1/events/{team['a']}"
    old_hash = team["alice"].access_token
    reissued = client.post(f"{base}/participants/31/access-token", headers=desk)
    assert reissued.status_code == 200, reissued.text
    session.expire_all()
    alice = session.scalar(select(Participant).where(Participant.external_id == "31"))
    assert alice.access_token_hash != old_hash
    closes = session.get(Event, team["a"]).closes_at
    session.rollback()
    refused = client.patch(base, json={"name": "Renamed"}, headers=desk)
    assert (refused.status_code, refused.json()["code"]) == (403, "role_forbidden")
    refused = client.post(f"{base}/course/close", headers=desk)
    assert refused.status_code == 403
    session.expire_all()
    event = session.get(Event, team["a"])
    assert (event.name, event.closes_at) == ("A", closes)


def test_screen_sees_the_public_view_of_public_routes(client, team) -> None:
    url = f"/api/v1/events/{team['a']}/checkpoints"
    public = client.get(url)
    screen = client.get(url, headers=bearer(team["tokens"]["screen"]))
    desk = client.get(url, headers=bearer(team["tokens"]["desk"]))
    assert screen.status_code == 200 and screen.json() == public.json()
    assert "code" not in str(public.json()).lower() or public.json() != desk.json()
    assert desk.json() != public.json()  # the desk prints the QR sheet: codes included


# --- pages -------------------------------------------------------------------------------


def sign_in(client: TestClient, token: str) -> None:
    response = client.get(f"/o/{token}", follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/admin")


PAGES = {  # role: (pages it opens, pages refused), suffixes of /admin/events/{id}
    "judge": (
        ["/participants", "/participants/31", "/review", "/warnings"],
        ["/course", "/ceremony", "/members", "/checkpoints", "/projector/1"],
    ),
    "desk": (
        ["/participants", "/checkpoints", "/print/checkpoints"],
        ["/review", "/ceremony", "/course", "/members", "/projector/1"],
    ),
    "ceremony": (
        ["/ceremony", "/projector/1", ""],
        ["/participants", "/review", "/course", "/members"],
    ),
    "screen": (
        ["/projector/1"],
        ["", "/participants", "/ceremony", "/review", "/members", "/checkpoints"],
    ),
}


@pytest.mark.parametrize("role", sorted(PAGES))
def test_member_pages_open_by_role_and_refuse_the_rest(client, team, role) -> None:
    sign_in(client, team["tokens"][role])
    base = f"/admin/events/{team['a']}"
    allowed, refused = PAGES[role]
    for suffix in allowed:
        assert client.get(base + suffix).status_code == 200, suffix
    for suffix in refused:
        response = client.get(base + suffix, follow_redirects=False)
        assert response.status_code == 403, suffix
        assert FORBIDDEN_PAGE in response.text
    other = client.get(f"/admin/events/{team['b']}/participants", follow_redirects=False)
    assert other.status_code == 403
    home = client.get("/admin")
    assert home.status_code == 200
    assert f"/admin/events/{team['a']}" in home.text
    assert f"/admin/events/{team['b']}" not in home.text and "/admin/new-event" not in home.text


@pytest.mark.parametrize("role", ["owner", "judge", "desk", "ceremony", "screen"])
def test_every_members_start_page_links_the_hall_screen(client, team, role) -> None:
    """The hall screen is open to every role (the screen's main page): the start page
    after the sign-in link links it, in words."""
    sign_in(client, team["tokens"][role])
    home = client.get("/admin").text
    assert f'<a href="/hall/{team["a"]}">Экран зала</a>' in home
    assert client.get(f"/hall/{team['a']}").status_code == 200


@pytest.mark.parametrize(("role", "home"), [("judge", "/admin/events/{a}"), ("screen", "/admin")])
def test_the_hall_screens_title_leads_to_a_page_the_member_may_open(
    client, team, role, home
) -> None:
    """The screen member's title link is its start page, not the dashboard that refuses it."""
    sign_in(client, team["tokens"][role])
    page = client.get(f"/hall/{team['a']}").text
    href = page.split('class="brand" href="')[1].split('"')[0]
    assert href == home.format(a=team["a"])
    assert client.get(href).status_code == 200


def test_a_refused_page_form_changes_nothing(client, session, team) -> None:
    sign_in(client, team["tokens"]["judge"])
    token = csrf_of(client.get(f"/admin/events/{team['a']}/participants").text)
    response = client.post(
        f"/admin/events/{team['a']}/members",
        data={"name": "Mallory", "role": "owner", "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 403 and FORBIDDEN_PAGE in response.text
    assert session.scalar(select(func.count()).select_from(OrganiserMember)) == 6


def test_owner_creates_a_member_whose_link_is_shown_once(client, session, team) -> None:
    admin_login(client)
    url = f"/admin/events/{team['a']}/members"
    token = csrf_of(client.get(url).text)
    created = client.post(url, data={"name": "Vera", "role": "desk", "csrf_token": token})
    assert created.status_code == 200
    assert "http://testserver/o/om_" in created.text
    link = created.text.split("http://testserver/o/")[1].split("<")[0]
    assert "http://testserver/o/om_" not in client.get(url).text  # once
    entry = session.scalar(select(AuditEntry).where(AuditEntry.action == "member.create"))
    assert (entry.actor, entry.details["role"]) == ("organiser", "desk")
    session.rollback()
    member = TestClient(client.app)
    sign_in(member, link)
    assert member.get(f"/admin/events/{team['a']}/participants").status_code == 200


def test_a_reissued_link_is_shown_with_the_name_and_role_of_its_member(client, team) -> None:
    """After several members, the link shown once says whose it is."""
    admin_login(client)
    url = f"/admin/events/{team['a']}/members"
    token = csrf_of(client.get(url).text)
    client.post(url, data={"name": "Vera", "role": "desk", "csrf_token": token})
    desk_id = team["tokens"]["desk_id"]
    page = client.post(f"{url}/{desk_id}/reissue", data={"csrf_token": token}).text
    assert "Личная ссылка — Anna desk (регистрация); показана один раз" in page
    assert "Vera" not in page.split('id="new-link"')[0].split("notice ok")[-1]


def test_revoking_a_member_ends_its_sessions_in_every_process(
    client, session, team, settings, engine
) -> None:
    member = TestClient(client.app)
    sign_in(member, team["tokens"]["judge"])
    page = f"/admin/events/{team['a']}/participants"
    assert member.get(page).status_code == 200
    other_process = TestClient(create_app(settings, engine), cookies=member.cookies)
    assert other_process.get(page).status_code == 200
    admin_login(client)
    url = f"/admin/events/{team['a']}/members"
    token = csrf_of(client.get(url).text)
    judge_id = team["tokens"]["judge_id"]
    revoked = client.post(f"{url}/{judge_id}/revoke", data={"csrf_token": token})
    assert revoked.status_code == 200
    session.expire_all()
    assert (
        session.scalar(
            select(func.count())
            .select_from(OrganiserSession)
            .where(OrganiserSession.member_id == judge_id)
        )
        == 0
    )
    session.rollback()
    for browser in (member, other_process):
        gone = browser.get(page, follow_redirects=False)
        assert (gone.status_code, gone.headers["location"]) == (
            303,
            f"/admin/login?next={page.replace('/', '%2F')}",
        ) or gone.headers["location"].startswith("/admin/login")
    other_process.close()
    assert (
        client.get(f"/o/{team['tokens']['judge']}", follow_redirects=False)
        .headers["location"]
        .startswith("/admin/login")
    )


def test_reissuing_a_members_link_ends_the_old_link_and_sessions(client, team) -> None:
    member = TestClient(client.app)
    sign_in(member, team["tokens"]["desk"])
    page = f"/admin/events/{team['a']}/participants"
    assert member.get(page).status_code == 200
    admin_login(client)
    url = f"/admin/events/{team['a']}/members"
    token = csrf_of(client.get(url).text)
    again = client.post(f"{url}/{team['tokens']['desk_id']}/reissue", data={"csrf_token": token})
    new_link = again.text.split("http://testserver/o/")[1].split("<")[0]
    assert member.get(page, follow_redirects=False).status_code == 303
    api = TestClient(client.app)  # no owner cookie
    assert manual_take(api, team, bearer(team["tokens"]["desk"])).status_code == 401
    fresh = TestClient(client.app)
    sign_in(fresh, new_link)
    assert fresh.get(page).status_code == 200
    # the old link: the sign-in page says the link no longer works (no "wrong token":
    # the member has no token to type)
    old = TestClient(client.app).get(f"/o/{team['tokens']['desk']}")
    assert old.status_code == 401
    assert "Эта личная ссылка больше не действует" in old.text
    assert "Неверный токен" not in old.text


def test_ceremony_runs_an_auction_and_the_bids_chain_names_it(client, session) -> None:
    """The ceremony opens place 3, bids on A's behalf and closes; the judge may not open
    place 2 (nothing changes); the audit log and the sealed bid name the member."""

    world = build(session, {"A": {"A_pair": ["3S", "3H", "7D", "8C", "JS"]}})
    ceremony, ceremony_token = create_member(session, world.event_id, "Ceremony", "ceremony")
    _, judge_token = create_member(session, world.event_id, "Judge", "judge")
    session.commit()
    actor = f"member:{ceremony.id} Ceremony (ceremony)"
    session.rollback()
    base = f"/api/v1/events/{world.event_id}/auctions"
    refused = client.post(f"{base}/3/open", headers=bearer(judge_token))
    assert (refused.status_code, refused.json()["code"]) == (403, "role_forbidden")
    session.expire_all()
    assert session.scalar(select(func.count()).select_from(Auction)) == 0
    session.rollback()
    assert client.post(f"{base}/3/open", headers=bearer(ceremony_token)).status_code == 200
    placed = client.post(
        f"{base}/3/bids",
        json={"participant": "A", "combination_id": world.combos["A_pair"]},
        headers=bearer(ceremony_token),
    )
    assert placed.status_code == 201, placed.text
    assert client.post(f"{base}/3/close", headers=bearer(ceremony_token)).status_code == 200
    session.expire_all()
    assert session.scalars(select(Bid.placed_by)).all() == [actor]
    actions = session.execute(
        select(AuditEntry.action, AuditEntry.actor).where(AuditEntry.event_id == world.event_id)
    ).all()
    session.rollback()
    assert {a for a, who in actions if a.startswith("auction.")} and all(
        who == actor for a, who in actions if a.startswith("auction.")
    )


def test_pages_offer_only_the_forms_the_role_may_send(client, team) -> None:
    """The judge's participants list has no add/import/print forms, the desk's participant
    page no void or add-a-take form; the owner sees them all."""
    base = f"/admin/events/{team['a']}/participants"
    add_form = f'action="{base}"'
    take_form = f'action="{base}/31/takes"'
    judge = TestClient(client.app)
    sign_in(judge, team["tokens"]["judge"])
    assert add_form not in judge.get(base).text
    assert take_form in judge.get(f"{base}/31").text
    desk = TestClient(client.app)
    sign_in(desk, team["tokens"]["desk"])
    assert add_form in desk.get(base).text
    assert take_form not in desk.get(f"{base}/31").text
    admin_login(client)
    assert add_form in client.get(base).text and take_form in client.get(f"{base}/31").text
