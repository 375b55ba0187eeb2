"""Rules modules of the poker-family games (pure Python: no database, HTTP or clock)."""

# Importing a module registers it in app.games.base.REGISTRY.
from app.games import locus_poker, poker_dice  # noqa: F401
