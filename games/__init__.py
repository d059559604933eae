"""One game interface: what the service needs of a game, and the registry of the games it hosts.

The application core (``application/``) loads, decides, appends, describes, records and draws a
game through a :class:`Game` found by the ``game`` field of its meta (``"tiletum"`` for games
created before the field mattered). ``games.tiletum`` adapts the Tiletum engine (``engine/``),
``games.carcassonne`` the Carcassonne engine (``carcassonne/``); neither engine changes.

This package sits between the application core and the rules (import-linter layers in
``pyproject.toml``): it imports the rules packages and nothing of the service, and no I/O.
"""
from __future__ import annotations

from .base import ERRORS, Game, UnknownGame
from .carcassonne import CARCASSONNE
from .tiletum import TILETUM

GAMES: dict[str, Game] = {g.name: g for g in (TILETUM, CARCASSONNE)}
NAMES = tuple(sorted(GAMES))
DEFAULT = "tiletum"


def get(name: str | None) -> Game:
    """The game called ``name`` (None: Tiletum, the service's first game); :class:`UnknownGame`."""
    game = GAMES.get(name or DEFAULT)
    if game is None:
        raise UnknownGame(f"unknown game {name!r}: one of {', '.join(NAMES)}")
    return game


def of_state(state) -> Game:
    """The game a state (an engine's ``GameState``) is of."""
    for game in GAMES.values():
        if isinstance(state, game.state_type):
            return game
    raise UnknownGame(f"no hosted game has states of type {type(state).__name__}")


def of_meta(meta: dict) -> Game:
    """The game of a game's stored meta (its ``game`` field; Tiletum when absent)."""
    return get(meta.get("game"))


__all__ = ["ERRORS", "Game", "UnknownGame", "GAMES", "NAMES", "DEFAULT", "get", "of_meta", "of_state", "TILETUM", "CARCASSONNE"]
