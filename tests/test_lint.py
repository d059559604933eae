"""ruff checks the whole repository with the project's own configuration (pyproject.toml,
[tool.ruff] and [tool.ruff.lint]): any finding fails the suite with ruff's own report."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ruff_command() -> list[str]:
    """The ruff next to this interpreter (the virtual environment's), else ``python -m ruff``."""
    here = os.path.join(os.path.dirname(sys.executable), "ruff")
    if os.path.exists(here):
        return [here]
    found = shutil.which("ruff")
    return [found] if found else [sys.executable, "-m", "ruff"]


def test_ruff_finds_nothing():
    args = ["check", "--no-cache", "--output-format", "concise"]
    run = subprocess.run(ruff_command() + args + ["."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"ruff check found problems:\n{run.stdout}{run.stderr}"


def test_the_project_configuration_catches_a_long_line(tmp_path):
    """The check above can fail: with the project's configuration a 111-column line is a finding."""
    bad = tmp_path / "long.py"
    bad.write_text("x = " + repr("a" * 105) + "\n")
    config = os.path.join(ROOT, "pyproject.toml")
    run = subprocess.run(ruff_command() + ["check", "--no-cache", "--config", config, str(bad)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "E501" in run.stdout, run.stdout + run.stderr
