"""The suite's own scheduling (tests/conftest.py, ``pytest_collection_modifyitems``): in a parallel
run the longest tests (marker ``long``) head the workers' shares as pytest-xdist's worksteal cuts
them, after ``-m`` has deselected what the run leaves out (the soak tests), so that none of them
starts late and keeps the whole run waiting for it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
FILES = ["tests/test_ai_legality.py", "tests/test_simulation.py", "tests/test_stand_in_worker.py"]


def collected(workers: int, *args: str) -> list[tuple[str, float]]:
    """The tests in the order the workers would report them, each with its ``long`` seconds."""
    env = {**os.environ, "TABLEPOST_PROBE_WORKERS": str(workers), "PYTHONPATH": str(ROOT / "tests")}
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "order_probe",
                          "-p", "no:cacheprovider", *args, *FILES],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    [line] = [x for x in out.stdout.splitlines() if x.startswith("ORDER ")]
    return [(nodeid, float(seconds)) for nodeid, seconds in (x.rsplit("=", 1) for x in line.split()[1:])]


def shares(items: list, workers: int) -> list[list]:
    """How pytest-xdist's worksteal first splits the collection (xdist/scheduler/worksteal.py)."""
    out, used, left = [], 0, len(items)
    for i in range(workers):
        n = left // (workers - i)
        out.append(items[used:used + n])
        used, left = used + n, left - n
    return out


def test_the_longest_tests_head_each_share_after_the_soak_tests_are_deselected():
    workers = 4
    items = collected(workers, "-m", "not soak")
    assert not any("more" in x or "soak" in x for x, _ in items), "soak tests in the default run"
    seconds = sorted((s for _, s in items if s), reverse=True)
    assert len(seconds) > workers
    heads = [share[0] for share in shares(items, workers)]
    assert [s for _, s in heads] == seconds[:workers], heads


def test_the_order_is_the_file_order_in_one_process():
    items = [x for x, _ in collected(1, "-m", "not soak")]
    assert items == sorted(items, key=lambda x: FILES.index(x.split("::")[0])), "reordered without workers"


def test_the_soak_scale_is_a_whole_number_from_1_to_1000(monkeypatch):
    from tests.soak import soak_scale
    monkeypatch.delenv("TABLEPOST_SOAK_SCALE", raising=False)
    assert soak_scale() == 1
    monkeypatch.setenv("TABLEPOST_SOAK_SCALE", "10")
    assert soak_scale() == 10
    for bad in ("ten", "1.5", "0", "1001"):
        monkeypatch.setenv("TABLEPOST_SOAK_SCALE", bad)
        with pytest.raises(ValueError, match="TABLEPOST_SOAK_SCALE"):
            soak_scale()
