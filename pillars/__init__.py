"""The Pillars of the Earth (base game, 2-4 players) rules engine: pure, deterministic,
event-sourced, with the public shape of the other engines (``carcassonne``)::

    >>> from pillars import new_game, legal_moves, play
    >>> state, events = new_game(3, seed="example")
    >>> moves = legal_moves(state)

Rules: shared/rules/pillars-of-the-earth.md; card data (with each record's source, most of it
reconstructed): pillars/data/cards.json; notation, position document, rulings: docs/pillars.md.
"""

from .errors import EngineError, IllegalMove, NotationError, NotYourTurn, PositionError
from .game import (
    GAME,
    RULES_VERSION,
    check,
    decide,
    evolve,
    legal,
    legal_moves,
    new_game,
    normalize,
    play,
    replay,
)
from .notation import Move, parse
from .state import GameState, view_doc

__all__ = [
    "EngineError",
    "IllegalMove",
    "NotationError",
    "NotYourTurn",
    "PositionError",
    "GAME",
    "RULES_VERSION",
    "check",
    "decide",
    "evolve",
    "legal",
    "legal_moves",
    "new_game",
    "normalize",
    "play",
    "replay",
    "Move",
    "parse",
    "GameState",
    "view_doc",
]
