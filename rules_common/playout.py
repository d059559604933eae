"""Random playouts: a game played to its end with a policy's moves (uniformly random ones for the
CLI's ``random-game``, the benchmarks and the simulation tests)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Playout:
    state: Any
    events: list[dict] = field(default_factory=list)
    moves: int = 0


def play_out(state: Any, events: list[dict], seed: str, pick: Callable[[Any], Any], advance, play,
             on_move=None, max_moves: int = 20000) -> Playout:
    """Play from ``state`` (whose events so far are ``events``) to the end, the seat to act playing
    ``pick(state)`` each time. Without ``on_move`` the state is advanced in place (fast); with it,
    each move is played by ``play(..., trusted=True)`` and ``on_move(state, move, events,
    new_state)`` is called after it (for invariant checks)."""
    out = Playout(state, list(events))
    while state.phase != "over":
        move = pick(state)
        if on_move is None:
            out.events.append(advance(state, state.actor, move, seed))
        else:
            evs, new = play(state, state.actor, move, seed=seed, trusted=True)
            on_move(state, move, evs, new)
            out.events.extend(evs)
            state = new
        out.moves += 1
        if out.moves > max_moves:  # pragma: no cover - would be a rules bug (a turn that never ends)
            raise RuntimeError(f"game did not end within {max_moves} moves")
    out.state = state
    return out
