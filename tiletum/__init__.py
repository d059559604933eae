"""Tiletum rules engine: pure, deterministic, event-sourced.

    >>> from tiletum import new_game, legal_moves, play
    >>> state, events = new_game(2, seed="example")
    >>> moves = legal_moves(state)
"""
from .errors import EngineError, IllegalMove, NotationError, NotYourTurn, PositionError
from .game import (
    RULES_VERSION,
    check,
    decide,
    evolve,
    evolve_in_place,
    legal,
    legal_moves,
    new_game,
    play,
    play_in_place,
    replay,
)
from .notation import Move, parse
from .state import GameState

__all__ = [
    "EngineError", "IllegalMove", "NotationError", "NotYourTurn", "PositionError", "RULES_VERSION",
    "check", "decide", "evolve", "evolve_in_place", "legal", "legal_moves", "new_game", "play",
    "play_in_place", "replay", "Move", "parse",
    "GameState",
]
