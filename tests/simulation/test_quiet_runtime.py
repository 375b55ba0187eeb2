"""`make run` and `rogaine-poker simulate` print no warnings meant for test suites.

Each check runs a fresh interpreter (with Python's default warning filters), since
a module imported once in this test process would not warn again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import ROOT


def run_python(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHONWARNINGS")}
    env.update(PYTHONPATH=str(ROOT), DATA_DIR=str(cwd / "data"))
    env.pop("DATABASE_URL", None)
    env.pop("ADMIN_TOKEN", None)
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_simulate_in_process_prints_no_warning(tmp_path: Path) -> None:
    done = run_python(["-m", "app.cli", "simulate", "--participants", "1", "--seed", "1"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Podium")
    assert "Warning" not in done.stderr, done.stderr
    [summary] = done.stderr.strip().splitlines()  # only "(N requests in T s, event E)"
    assert summary.startswith("(") and "requests in" in summary


def test_make_run_demo_history_prints_no_warning(tmp_path: Path) -> None:
    """What `serve` does before uvicorn starts: migrate, load the demo, play its history."""
    script = textwrap.dedent(
        """
        from alembic import command
        from alembic.config import Config
        from app.cli import load_demo_if_empty
        from app.core.config import Settings

        config = Config("{ini}")
        config.attributes["configure_logger"] = False
        command.upgrade(config, "head")
        print(load_demo_if_empty(Settings(admin_token="t" * 20)))
        """
    ).format(ini=ROOT / "alembic.ini")
    done = run_python(["-c", script], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Simulated history:" in done.stdout
    assert "Warning" not in done.stderr, done.stderr
