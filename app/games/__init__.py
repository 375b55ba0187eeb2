"""Rules modules of the poker-family games (pure Python: no database, HTTP or clock)."""
