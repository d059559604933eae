"""Random playouts: uniformly random legal moves to the end of the game.

Used by the CLI's ``random-game``, the benchmark and the playout tests.
"""

from __future__ import annotations

import random

from rules_common.playout import Playout, play_out

from .game import advance, new_game, play
from .rules import legal

__all__ = ["Playout", "random_game"]


def random_move(s, rng: random.Random):
    moves = legal(s)
    return moves[rng.randrange(len(moves))]


def random_game(
    players: int, seed: str, rng: random.Random | None = None, options: dict | None = None, on_move=None
) -> Playout:
    """Play one game with uniformly random legal moves. ``seed`` is the game's chance seed;
    ``rng`` picks the moves (defaults to one seeded from ``seed``). ``on_move(state, move, events,
    new_state)`` is called after every move (for invariant checks)."""
    rng = rng or random.Random(seed)
    state, events = new_game(players, seed, options)
    return play_out(state, events, seed, lambda s: random_move(s, rng), advance, play, on_move)
