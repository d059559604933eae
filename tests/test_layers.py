"""The layering of docs/architecture.md, kept by import-linter's contracts in pyproject.toml:
tiletum, carcassonne, pillars and tournaments import nothing of the project but what the engines share
(rules_common, which imports nothing of the project) and no I/O; the game interface
(games/) imports only the rules; the application
core and the email channel import neither Flask nor Celery; api and workers are independent
adapters over them; the Cardinalbot reaches the service only over HTTP; the AI player imports
only the rules; no package hides an import cycle, not even behind a function-level import."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rules_common", "tiletum", "carcassonne", "pillars", "games", "tournaments", "application",
            "mail", "api", "workers", "seats", "cardinalbot", "ai")
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run([str(LINT), "--no-cache", "--config", str(tree / "pyproject.toml")], cwd=tree,
                          env=env, capture_output=True, text=True, timeout=300)


def test_the_layer_contracts_hold():
    out = lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout and out.stdout.count("KEPT") == 15


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory) -> Path:
    tree = tmp_path_factory.mktemp("tree")
    shutil.copy(ROOT / "pyproject.toml", tree)
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, tree / pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "data", "static"))
    return tree


@pytest.mark.parametrize("module, line, contract", [
    ("application/store.py", "import flask", "import neither Flask nor Celery"),
    ("tiletum/board.py", "import application.store", "The rules import no other package"),
    ("carcassonne/rules.py", "import tiletum", "Carcassonne's rules import no other package"),
    ("carcassonne/features.py", "import socket", "Carcassonne's rules import no other package"),
    ("pillars/rules.py", "import carcassonne", "The Pillars of the Earth's rules import no other package"),
    ("pillars/state.py", "import redis", "The Pillars of the Earth's rules import no other package"),
    ("workers/tasks.py", "    import api.app", "Layers"),           # a function-level import counts
    ("application/game_service.py", "import mail.notify", "Layers"),
    ("cardinalbot/policy.py", "import application.store", "only over HTTP"),
    ("seats/runner.py", "import workers.tasks", "only over HTTP"),
    ("seats/worker.py", "import cardinalbot.policy", "The seat player knows no game by name"),
    ("ai/tiletum/search.py", "import application.game_service", "The AI player is pure"),
    ("ai/tiletum/parallel.py", "    from ai import check_decision", "No module of the AI imports the"),
    ("games/carcassonne.py", "import application.store", "Layers"),
    ("games/base.py", "import redis", "The game interface imports only the rules"),
    ("tiletum/board.py", "import games", "The rules import no other package"),
    ("rules_common/record.py", "import tiletum", "What the engines share imports no other package"),
    ("rules_common/chance.py", "import redis", "What the engines share imports no other package"),
    ("application/clock.py", "import application.game_service", "No import cycle"),
    ("application/deadlines.py", "import tiletum", "The service knows no game by name"),
    ("mail/reply_text.py", "import redis", "The reply text reading and the time control arithmetic are pure"),
    ("application/time_control.py", "from application import store", "The reply text reading"),
    ("mail/compose.py", "    from tiletum.describe import describe", "The service knows no game by name"),
    ("workers/tasks.py", "from ai.tiletum.parallel import may_start_processes",
     "The service knows no game by name"),
    ("api/pages.py", "import games.carcassonne", "The service knows no game by name"),
    ("mail/notify.py", "import pillars", "The service knows no game by name"),
])
def test_each_contract_catches_its_breach(tree_copy, module, line, contract):
    path = tree_copy / module
    original = path.read_text()
    body = line if not line.startswith(" ") else "def _breach():\n" + line
    try:
        path.write_text(original + "\n\n" + body + "\n")
        out = lint(tree_copy)
    finally:
        path.write_text(original)
    assert out.returncode != 0
    broken = out.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, out.stdout
