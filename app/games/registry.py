"""Loads every rules module of `app.games` so that each registers itself in REGISTRY.

A module registers itself at import (`register(MyGame())` at the bottom of its file);
`load_modules()` imports every submodule of the package that is not part of the
service machinery, so adding a game needs no edit here.
"""

from __future__ import annotations

import importlib
import pkgutil

import app.games as games_package
from app.games.base import REGISTRY, Game

INFRASTRUCTURE = {
    "base",
    "models",
    "repository",
    "service",
    "schemas",
    "pages",
    "registry",
    "deps",
}


def load_modules() -> dict[str, Game]:
    """Import every rules module once; returns REGISTRY (module name → Game)."""
    for info in pkgutil.iter_modules(games_package.__path__):
        if info.name not in INFRASTRUCTURE and not info.name.startswith("_"):
            importlib.import_module(f"app.games.{info.name}")
    return REGISTRY
