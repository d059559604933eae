"""Carcassonne (base game) rules engine: pure, deterministic, event-sourced.

The same public shape as the Tiletum engine (``tiletum``), so one game interface can serve both::

    >>> from carcassonne import new_game, legal_moves, play
    >>> state, events = new_game(2, seed="example")
    >>> moves = legal_moves(state)

Rules: shared/rules/carcassonne.md (the base game for 2-5 players, without the river tiles);
notation, position document, rulings: docs/carcassonne.md.

Tile data derived from the tile definitions of the JCloisterZone project (AGPL-3.0), file
``src/extraResources/expansions/basic.xml`` of farin/JCloisterZone-Client
(``carcassonne/data/base-tiles.json``, see ``carcassonne/data/README.md``).
"""
from .errors import EngineError, IllegalMove, NotationError, NotYourTurn, PositionError
from .game import (GAME, RULES_VERSION, check, decide, evolve, legal, legal_moves, new_game, normalize, play,
                   replay)
from .notation import Move, parse
from .state import GameState, view_doc
from .tiles import ATTRIBUTION

__all__ = [
    "EngineError", "IllegalMove", "NotationError", "NotYourTurn", "PositionError", "GAME", "RULES_VERSION",
    "check", "decide", "evolve", "legal", "legal_moves", "new_game", "normalize", "play", "replay", "Move",
    "parse", "GameState", "view_doc", "ATTRIBUTION",
]
