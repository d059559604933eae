"""The hosted games: every :class:`~games.spec.GameSpec` registered under the entry point group
``tablepost.games`` by the installed distributions, loaded once, when first asked for.

Installing a game's distribution (``pip install examples/connect-four``) is all it takes to host
it: its entry point names its spec. A spec that cannot be loaded, or that the checks refuse
(:meth:`GameSpec.problems`), stops the service at start with the distribution named, rather than
leave stored games of it unplayable unnoticed; two distributions registering one name likewise.

:func:`register` adds a spec in-process (the tests' way to host a toy game for a while, with
:func:`unregister` after).
"""
from __future__ import annotations

import threading
from importlib import metadata
from typing import Any

from .base import Game
from .spec import GROUP, GameSpec

_lock = threading.RLock()
_specs: dict[str, GameSpec] | None = None
_games: dict[str, Game[Any]] = {}      # the same games by name, in name order (``games.GAMES``)
_names: list[str] = []                 # their names (``games.NAMES``), sorted


class RegistryError(RuntimeError):
    """A registered game that cannot be hosted: the message names it and its distribution."""


def _entry_points() -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=GROUP), key=lambda ep: ep.name)


def _load() -> dict[str, GameSpec]:
    specs: dict[str, GameSpec] = {}
    where: dict[str, str] = {}
    for ep in _entry_points():
        dist = ep.dist.name if ep.dist is not None else "?"
        try:
            spec = ep.load()
        except Exception as e:   # any error of the plugin's import: said with its name, then stop
            raise RegistryError(f"the game {ep.name!r} of {dist} ({ep.value}) cannot be loaded: "
                                f"{type(e).__name__}: {e}") from e
        _check(spec, ep.name, dist)
        if spec.name in specs and where[spec.name] != dist:
            raise RegistryError(f"two distributions register the game {spec.name!r}: "
                                f"{where[spec.name]} and {dist} (uninstall the one not wanted: an older "
                                "name of the same distribution, say)")
        specs[spec.name], where[spec.name] = spec, dist
    if not specs:
        raise RegistryError(f"no game is registered (entry point group {GROUP!r}): is the service "
                            "installed (`make .venv/.installed`, or `pip install -e .`)?")
    return specs


def _check(spec: Any, name: str, dist: str) -> None:
    if not isinstance(spec, GameSpec):
        raise RegistryError(f"the entry point {name!r} of {dist} names {type(spec).__name__}, not a GameSpec")
    if spec.name != name:
        raise RegistryError(f"the entry point {name!r} of {dist} registers a game named {spec.name!r}: "
                            "the entry point is named after the game")
    problems = spec.problems()
    if problems:
        raise RegistryError(f"the game {name!r} of {dist} cannot be hosted: " + "; ".join(problems))


def _publish(specs: dict[str, GameSpec]) -> None:
    global _specs
    _specs = dict(sorted(specs.items()))
    # the published dict and list are changed in place: modules that imported them see the change
    _games.clear()
    _games.update((n, s.game) for n, s in _specs.items())
    _names[:] = sorted(_specs)


def specs() -> dict[str, GameSpec]:
    """Every hosted game's spec by name, loading the entry points the first time."""
    if _specs is None:
        with _lock:
            if _specs is None:
                _publish(_load())
    assert _specs is not None
    return _specs


def games() -> dict[str, Game[Any]]:
    specs()
    return _games


def names() -> list[str]:
    specs()
    return _names


def spec_of(game: Game[Any] | str) -> GameSpec:
    """The spec of a hosted game (or of a game's name); KeyError for one not hosted."""
    name = game if isinstance(game, str) else game.name
    return specs()[name]


def register(spec: GameSpec) -> None:
    """Host ``spec``'s game in this process too (tests). Refused like a registration by entry point."""
    _check(spec, spec.name, "register()")
    with _lock:
        current = dict(specs())
        if spec.name in current and current[spec.name] is not spec:
            raise RegistryError(f"a game named {spec.name!r} is already hosted")
        current[spec.name] = spec
        _publish(current)


def unregister(name: str) -> None:
    """Stop hosting a game :func:`register` added (tests)."""
    with _lock:
        current = dict(specs())
        current.pop(name, None)
        _publish(current)
