"""README "Architecture" is a guide to follow (issue 25): every file, folder and dotted
name it gives under `app` exists, so a path written there is not a dead end."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def architecture_section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n## Architecture\n")
    return readme[start : readme.index("\n## ", start + 5)]


def resolves(dotted: str) -> bool:
    """`app.a.b.name`: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
            if found is None:
                return False
        return True
    return False


def test_every_app_path_in_the_architecture_section_exists() -> None:
    text = architecture_section()
    paths = set(re.findall(r"`(app/[\w./]*[\w/])[`:]", text))
    paths |= set(re.findall(r"\((app/[\w./]*[\w/])[,)]", text))
    assert len(paths) > 30  # the section names many; a bad pattern would find none
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert missing == []


def test_every_dotted_app_name_in_the_architecture_section_resolves() -> None:
    names = set(re.findall(r"`(app(?:\.\w+)+)", architecture_section()))
    names = {n for n in names if not n.startswith("app.state.")}  # the FastAPI app's state
    assert len(names) > 10
    assert sorted(n for n in names if not resolves(n)) == []
