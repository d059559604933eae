"""Every benchmark in bench/ runs in CI: `make soak` (marker soak) runs each script with the
smallest arguments it declares (its module-level ``QUICK_ARGS``; ``{tmp}`` in them is a fresh
folder) as a subprocess, and a benchmark that fails, or prints no figure, fails CI. Scripts are
found by globbing, so a new one is run as soon as it is added; one that declares no ``QUICK_ARGS``
fails the suite (``make test``) at once. A helper of the others declares ``QUICK_ARGS = None`` and
is only imported."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "bench").glob("*.py"))
TIMEOUT = 300   # seconds a script's quick run may take (they take 1-15 s on 2 shared cores)
FIGURE = re.compile(r"\d")


def quick_args(path: Path) -> list[str] | None:
    """The script's ``QUICK_ARGS`` (a literal list of strings, or None), read without running it."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "QUICK_ARGS"
                                                for t in node.targets):
            value = ast.literal_eval(node.value)
            assert value is None or (isinstance(value, list) and all(isinstance(a, str) for a in value)), \
                f"{path.name}: QUICK_ARGS must be a list of strings or None"
            return value
    raise AssertionError(f"{path.name} declares no QUICK_ARGS (its smallest run, for `make soak`)")


def test_there_are_benchmarks_and_each_declares_its_quick_arguments():
    assert len(SCRIPTS) >= 10, SCRIPTS
    runnable = [p.name for p in SCRIPTS if quick_args(p) is not None]
    assert "api.py" in runnable and "tiletum.py" in runnable, runnable


def test_a_script_without_quick_arguments_is_refused(tmp_path):
    bare = tmp_path / "new_bench.py"
    bare.write_text('"""A new benchmark."""\n\ndef main():\n    print(1)\n')
    with pytest.raises(AssertionError, match="declares no QUICK_ARGS"):
        quick_args(bare)


@pytest.mark.soak
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_the_benchmark_runs_and_prints_its_figures(script, tmp_path):
    args = quick_args(script)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if args is None:   # a helper: it must at least import
        cmd = [sys.executable, "-c", "import runpy, sys; runpy.run_path(sys.argv[1], run_name='helper')",
               str(script)]
    else:
        cmd = [sys.executable, str(script), *(a.replace("{tmp}", str(tmp_path)) for a in args)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, f"{' '.join(cmd[1:])} exited {proc.returncode}:\n" \
                                 f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    if args is not None:
        assert FIGURE.search(proc.stdout), f"{script.name} printed no figure:\n{proc.stdout[-2000:]}"


def test_the_vp_sources_add_up_to_the_final_scores():
    """bench/ai_vp_sources.py credits every VP of the game's own moves, and only those (the AI's
    search scores thousands of positions it never plays): each side's sources sum to its score."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "ai_vp_sources.py"), "--level", "easy",
                           "--games", "2", "--start", "9920"], cwd=ROOT, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = re.findall(r"^  (\S.*?)  .*\ball\s+(-?[\d.]+) /\s*(-?[\d.]+)$", proc.stdout, re.M)
    labels = [r[0] for r in rows]
    assert {"Fairs", "final scoring", "starting VP"} <= set(labels), proc.stdout
    final = re.search(r"final scores\s+AI ([\d.]+), bot ([\d.]+)", proc.stdout)
    assert final, proc.stdout
    assert sum(float(r[1]) for r in rows) == pytest.approx(float(final.group(1)), abs=0.1 * len(rows))
    assert sum(float(r[2]) for r in rows) == pytest.approx(float(final.group(2)), abs=0.1 * len(rows))
