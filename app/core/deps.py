"""Request dependencies shared by every domain: settings, the session, organiser auth.

Use the `Annotated` aliases in routes: `SessionDep`, `SettingsDep`, `OrganiserDep`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.errors import Unauthorized
from app.core.security import tokens_equal


def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings


def get_session(request: Request) -> Iterator[Session]:
    """One session per request: committed when the route returns, rolled back if it raises."""
    session: Session = request.app.state.sessionmaker()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
# scope="function": the commit happens before the response is sent, so a failed
# commit becomes a 500 problem instead of a success the client already received.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def is_organiser(request: Request) -> bool:
    """True when the request carries the organiser token (header) or an organiser session."""
    settings: Settings = request.app.state.settings
    if tokens_equal(bearer_token(request), settings.admin_token):
        return True
    checker = getattr(request.app.state, "organiser_session_check", None)
    return bool(checker and checker(request))


def require_organiser(request: Request) -> None:
    """Dependency: 401 problem unless the caller is the organiser."""
    if not is_organiser(request):
        raise Unauthorized("The organiser token is missing or wrong.")


OrganiserDep = Annotated[None, Depends(require_organiser)]
