"""Organiser members of an event (issue 29): a name, a role and a personal sign-in link.

The event's owner (the `ADMIN_TOKEN` holder) creates members; each gets a random token
`om_…` shown once (only its SHA-256 is stored). The token signs a browser in
(`/o/{token}`: an organiser session row bound to the member, `app.core.guard`) or is
sent as `Authorization: Bearer` to the API. Revoking a member or re-issuing its link
deletes its session rows, so every app process refuses the old cookies at once.

What each role may do is the table in `app.web.roles` (README "Running an event as a
team", docs/roles.md). The table: `OrganiserMember` (`app.core.models`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.core import repository
from app.core.db import utcnow
from app.core.models import NAME_MAX_LENGTH, OrganiserMember
from app.core.security import hash_token, new_token

OWNER = "owner"
JUDGE = "judge"
DESK = "desk"
CEREMONY = "ceremony"
SCREEN = "screen"
ROLES = (OWNER, JUDGE, DESK, CEREMONY, SCREEN)
TOKEN_PREFIX = "om_"


@dataclass(frozen=True)
class MemberInfo:
    """What a request needs of its member: ids, name and role (no secret)."""

    id: int
    event_id: int
    name: str
    role: str


def info_of(member: OrganiserMember) -> MemberInfo:
    return MemberInfo(member.id, member.event_id, member.name, member.role)


def new_member_token() -> str:
    """A fresh member token (`om_` + 192 random bits): the prefix lets the sign-in guard
    look up only bearer tokens that can be a member's."""
    return TOKEN_PREFIX + new_token()


def member_by_token(session: Session, token: str) -> OrganiserMember | None:
    """The live (not revoked) member of `token`, or None."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    return repository.live_member_by_token_hash(session, hash_token(token))


def live_member(session: Session, member_id: int) -> MemberInfo | None:
    """The member `member_id` unless revoked, else None."""
    member = session.get(OrganiserMember, member_id)
    if member is None or member.revoked_at is not None:
        return None
    return info_of(member)


def create_member(
    session: Session, event_id: int, name: str, role: str, now: datetime | None = None
) -> tuple[OrganiserMember, str]:
    """A new member of `event_id` and its token (returned once). Raises ValueError for an
    unknown role or an empty name."""
    name = name.strip()
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    if not name or len(name) > NAME_MAX_LENGTH:
        raise ValueError("a name of 1 to 60 characters is needed")
    token = new_member_token()
    member = OrganiserMember(
        event_id=event_id,
        name=name,
        role=role,
        token_hash=hash_token(token),
        created_at=now or utcnow(),
    )
    session.add(member)
    session.flush()
    return member, token
