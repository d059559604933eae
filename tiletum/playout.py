"""Random playouts: uniformly random legal moves to the end of the game.

Used by the CLI's ``random-game``, the benchmark and the simulation tests.
"""
from __future__ import annotations

import random
from functools import partial

from rules_common.playout import Playout, play_out

from .game import legal, new_game, play, play_in_place

__all__ = ["Playout", "random_game"]


def random_game(players: int, seed: str, rng: random.Random | None = None, options: dict | None = None,
                on_move=None, max_moves: int = 20000) -> Playout:
    """Play one game with uniformly random legal moves. ``seed`` is the game's chance seed;
    ``rng`` picks the moves (defaults to one seeded from ``seed``). ``on_move(state, move, events,
    new_state)`` is called after every move (for invariant checks)."""
    rng = rng or random.Random(seed)

    def pick(state):
        moves = legal(state)
        return moves[rng.randrange(len(moves))]

    state, events = new_game(players, seed, options)
    return play_out(state, events, seed, pick, _fast, play, on_move, max_moves)


# a legal move applied in place, with no undo history (nothing is taken back in a playout)
_fast = partial(play_in_place, trusted=True, undo=False)
