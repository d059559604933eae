"""The type checker in the suite (issue 32): mypy, configured in pyproject.toml ([tool.mypy]),
finds nothing in the games and their engines (games/, tiletum/, carcassonne/, pillars/) nor in the
platform (application/, mail/, api/, workers/), the platform's Optional values checked (issue 52:
strict_optional); and it does catch a game that
misses part of the game interface (games/base.py's protocols), which is what makes a new game's
gaps show before it runs.

mypy keeps its incremental cache in .mypy_cache/ (ignored by git): a run that finds the cache
warm takes about a second, a cold one some seconds (measured: ~1 s warm, ~5-16 s cold on the
shared test machine)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import games
from games.base import EmailTexts, Search

ROOT = Path(__file__).resolve().parents[1]
INCOMPLETE = Path(__file__).resolve().parent / "fixtures" / "types" / "incomplete_game.py"


def mypy(*args: str, cache: str) -> subprocess.CompletedProcess:
    """mypy with the project's configuration (pyproject.toml), from the repository root; each
    caller its own cache directory, so that parallel test workers never share one."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(ROOT / ".mypy_cache" / cache), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_mypy_finds_nothing_in_the_checked_packages():
    out = mypy(cache="project")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout


def test_mypy_rejects_a_game_that_misses_part_of_the_interface():
    out = mypy(str(INCOMPLETE), cache="incomplete")
    assert out.returncode == 1, out.stdout + out.stderr
    text = out.stdout
    assert 'variable has type "Game[Any]"' in text and 'variable has type "EmailTexts[Any]"' in text, text
    for missing in ("scores", "write_record", "email_position_lines"):
        assert missing in text, text
    # only what is missing: the methods it has are not reported
    assert "verify_events" not in text and "board_svg" not in text, text


@pytest.mark.parametrize("name", games.NAMES)
def test_each_game_declares_what_it_does(name):
    """The capabilities a game declares match what it implements: the email channel plays only a
    game with the email texts, and a game with AI seats can be searched by the generic AI (or,
    Tiletum, has its own in ai/)."""
    game = games.get(name)
    assert game.email == isinstance(game, EmailTexts)
    assert games.email_texts(game) is (game if game.email else None)
    assert "ai" not in game.seat_kinds or isinstance(game, Search)
    assert ("cardinalbot" in game.seat_kinds) == (game is games.TILETUM)
