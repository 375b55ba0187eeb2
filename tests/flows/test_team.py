"""The team flow (issue 29): members added, revoked and re-issued, each change audited
naming who made it; a member of another event is not found."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.audit import AuditEntry
from app.core.db import utcnow
from app.core.errors import NotFound, Unprocessable
from app.core.guard import session_alive, start_session
from app.core.members import member_by_token
from app.core.principal import ORGANISER, Kind, Principal
from app.flows import team
from tests.factories import make_event


def test_add_revoke_reissue_and_the_audit_log(session: Session) -> None:
    event = make_event(session, name="Ночь")
    other = make_event(session, name="День")
    judge, token = team.add(session, event, "  Юля ", "judge", ORGANISER)
    desk, _ = team.add(session, event, "Петя", "desk", ORGANISER)
    assert (judge.name, judge.role, judge.event_id) == ("Юля", "judge", event.id)
    assert member_by_token(session, token).id == judge.id

    owner = Principal(Kind.ORGANISER, event_id=event.id, member_id=99, member_name="Ира",
                      member_role="owner")  # fmt: skip
    sid = start_session(session, max_age=3600, member_id=judge.id)
    assert session_alive(session, sid, utcnow())
    _, new_token = team.reissue(session, event, judge.id, owner)
    assert member_by_token(session, token) is None  # the old link ends
    assert member_by_token(session, new_token).id == judge.id
    assert not session_alive(session, sid, utcnow())  # its sessions end with the old link
    team.revoke(session, event, desk.id, owner)
    assert desk.revoked_at is not None

    entries = session.scalars(select(AuditEntry).order_by(AuditEntry.id)).all()
    assert [(e.action, e.actor, e.subject) for e in entries] == [
        ("member.create", "organiser", f"member:{judge.id}"),
        ("member.create", "organiser", f"member:{desk.id}"),
        ("member.reissue", "member:99 Ира (owner)", f"member:{judge.id}"),
        ("member.revoke", "member:99 Ира (owner)", f"member:{desk.id}"),
    ]
    with pytest.raises(NotFound) as revoked:  # revoked already
        team.revoke(session, event, desk.id, owner)
    assert revoked.value.code == "member_not_found"
    with pytest.raises(NotFound):  # a member of another event
        team.reissue(session, other, judge.id, ORGANISER)


@pytest.mark.parametrize(("name", "role"), [("Юля", "boss"), ("   ", "judge"), ("я" * 61, "desk")])
def test_a_bad_name_or_role_is_member_invalid(session: Session, name: str, role: str) -> None:
    event = make_event(session)
    with pytest.raises(Unprocessable) as refused:
        team.add(session, event, name, role, ORGANISER)
    assert refused.value.code == "member_invalid"
    assert team.members_of(session, event) == []
