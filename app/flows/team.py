"""The organising team of an event (issue 29): add a member, revoke it, re-issue its link.

A member is a row of `app.core.members` (name, role, the hash of its personal token);
its page sessions are rows of `app.core.guard`. This flow spans both and the audit log:
revoking or re-issuing deletes the member's sessions in the same transaction, so the old
cookies stop working in every process, and each change is an audit entry naming who did
it (`member.create`, `member.revoke`, `member.reissue`; `Principal.actor`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.core import audit, guard
from app.core import repository as core_repository
from app.core.db import utcnow
from app.core.errors import NotFound, Unprocessable
from app.core.members import create_member, new_member_token
from app.core.models import OrganiserMember
from app.core.principal import Principal
from app.core.security import hash_token
from app.events.models import Event


def members_of(session: Session, event: Event) -> Sequence[OrganiserMember]:
    """The event's members, the live ones first, each group in the order they were added."""
    return core_repository.members_of(session, event.id)


def _record(session: Session, event: Event, caller: Principal, action: str, member) -> None:
    audit.record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action=action,
        subject=f"member:{member.id}",
        details={"name": member.name, "role": member.role},
    )


def add(
    session: Session, event: Event, name: str, role: str, caller: Principal
) -> tuple[OrganiserMember, str]:
    """A new member of `event` and its personal token (returned once, stored hashed).
    Raises Unprocessable `member_invalid` for an unknown role or a name that is empty or
    longer than 60 characters."""
    try:
        member, token = create_member(session, event.id, name, role)
    except ValueError as error:
        raise Unprocessable(str(error), code="member_invalid") from error
    _record(session, event, caller, "member.create", member)
    return member, token


def live_member_of(session: Session, event: Event, member_id: int) -> OrganiserMember:
    """Member `member_id` of `event`, not revoked; else NotFound `member_not_found`."""
    member = session.get(OrganiserMember, member_id)
    if member is None or member.event_id != event.id or member.revoked_at is not None:
        raise NotFound(f"Member {member_id} of this event does not exist.", code="member_not_found")
    return member


def revoke(session: Session, event: Event, member_id: int, caller: Principal) -> OrganiserMember:
    """Revoke a member: its link and every session it signed in end at once (NotFound
    `member_not_found` for no live member of `event`)."""
    member = live_member_of(session, event, member_id)
    member.revoked_at = utcnow()
    guard.end_member_sessions(session, member.id)
    _record(session, event, caller, "member.revoke", member)
    return member


def reissue(
    session: Session, event: Event, member_id: int, caller: Principal
) -> tuple[OrganiserMember, str]:
    """A new personal token for a member (returned once); the old link and its sessions
    end (NotFound `member_not_found` for no live member of `event`)."""
    member = live_member_of(session, event, member_id)
    token = new_member_token()
    member.token_hash = hash_token(token)
    guard.end_member_sessions(session, member.id)
    _record(session, event, caller, "member.reissue", member)
    return member, token
