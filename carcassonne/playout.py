"""Random playouts: uniformly random legal moves to the end of the game.

Used by the CLI's ``random-game``, the benchmark and the playout tests.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .game import advance, new_game, play
from .rules import random_move
from .state import GameState


@dataclass
class Playout:
    state: GameState
    events: list[dict] = field(default_factory=list)
    moves: int = 0


def random_game(players: int, seed: str, rng: random.Random | None = None, options: dict | None = None,
                on_move=None) -> Playout:
    """Play one game with uniformly random legal moves. ``seed`` is the game's chance seed;
    ``rng`` picks the moves (defaults to one seeded from ``seed``). ``on_move(state, move, events,
    new_state)`` is called after every move (for invariant checks)."""
    rng = rng or random.Random(seed)
    state, events = new_game(players, seed, options)
    out = Playout(state, list(events))
    while state.phase != "over":
        move = random_move(state, rng)  # legal(state)[rng.randrange(len(legal(state)))]
        if on_move is None:
            out.events.append(advance(state, state.actor, move, seed))
        else:
            evs, new = play(state, state.actor, move, seed=seed, trusted=True)
            on_move(state, move, evs, new)
            out.events.extend(evs)
            state = new
        out.moves += 1
    out.state = state
    return out
