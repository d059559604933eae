"""The example games (examples/<name>/, distributions of their own) as the suite hosts them: their
sources are on the tests' path (pyproject's pytest ``pythonpath``) but not installed, so that the
service the other tests start hosts the three games only; a test that plays every game registers
an example's spec for its own duration (:func:`hosting`), read from the entry point its own
pyproject.toml declares, as the service would find it once the example is installed."""
from __future__ import annotations

import contextlib
import tomllib
from pathlib import Path

import games
from games.spec import GROUP, resolve

ROOT = Path(__file__).resolve().parents[1]


def example_specs() -> dict[str, games.GameSpec]:
    """name -> spec of every example game, by the entry points of examples/*/pyproject.toml."""
    out = {}
    for pyproject in sorted(ROOT.glob("examples/*/pyproject.toml")):
        points = tomllib.loads(pyproject.read_text("utf-8"))["project"].get("entry-points", {}).get(GROUP, {})
        for name, ref in points.items():
            out[name] = resolve(ref)
    return out


EXAMPLES = example_specs()
# every game a test of every game plays: the registered ones and the examples
EVERY = sorted(set(games.NAMES) | set(EXAMPLES))


@contextlib.contextmanager
def hosting(name: str):
    """The game ``name`` hosted for a while: an example is registered, then unregistered."""
    added = name not in games.NAMES and name in EXAMPLES
    if added:
        games.register(EXAMPLES[name])
    try:
        yield games.get(name)
    finally:
        if added:
            games.unregister(name)
