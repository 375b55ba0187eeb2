"""The flows tests reuse the feed tests' event (`world`: two participants, a past window)."""

from tests.feed.conftest import world  # noqa: F401
