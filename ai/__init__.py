"""A search-based player of Tiletum for any seat (docs/ai.md).

    >>> import ai
    >>> moves = ai.decide(view_doc, "medium", rng_seed=7)

``decide`` sees only the position document as it is served to the seat (``GET
/api/v1/games/{id}`` with the seat's token: face-down piles as counts, no seed). It rebuilds a
full engine state from what the seat can know (``ai.view``), searches the seat's turn with a
determinized Monte Carlo tree search (``ai.search``) scored by a heuristic evaluation
(``ai.evaluate``; at ``hard`` the best few moves are then judged by the seat's next turn,
``ai.lookahead``), and answers the seat's current decision with one or more moves in notation:
the best move, then the moves the search planned after it, up to the first move that reveals
something (a draw or a roll) or hands the decision to another seat. Every move is legal in the
served position (they are taken from ``engine.legal`` on it). The answer depends only on the
document, the level and ``rng_seed``.
"""
from __future__ import annotations

import random

from engine.game import advance
from engine.state import GameState

from .lookahead import rerank
from .search import best_child, in_turn, moves_of, search, turn_key
from .view import determinize, sample_seed

LEVELS = {"easy": 6, "medium": 60, "hard": 400}   # search iterations per decision
PLAN_MIN_VISITS = 3   # a planned move after the first is sent only if searched this often
# looking past the turn (ai.lookahead), by level: (moves reranked, sampled futures, next-turn iterations)
LOOKAHEAD = {"hard": (3, 3, 40)}

__all__ = ["LEVELS", "decide", "decide_state"]


def iterations_for(level: str | int) -> int:
    if isinstance(level, int) and not isinstance(level, bool):
        if level < 1:
            raise ValueError("an iteration budget must be at least 1")
        return level
    try:
        return LEVELS[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown AI level {level!r}: one of {', '.join(LEVELS)}") from None


def decide(view: dict, level: str | int = "medium", rng_seed: int | str = 0) -> list[str]:
    """The seat's moves for its current decision. ``view`` is the position document served to the
    seat (its ``viewer`` is the seat; without one the seat to act is meant). A view of another
    game than Tiletum (its ``game``) is decided by the game-generic search (``ai.generic``)."""
    if view.get("game", "tiletum") != "tiletum":
        from . import generic
        return generic.decide(view, level, rng_seed)
    rng = random.Random(f"{rng_seed}")
    state = determinize(view, rng)
    seat = view.get("viewer")
    if seat is None:
        seat = state.actor
    return decide_state(state, seat, iterations_for(level), rng, LOOKAHEAD.get(level))


def decide_state(state: GameState, seat: int, iterations: int, rng: random.Random,
                 lookahead: tuple[int, int, int] | None = None) -> list[str]:
    """As ``decide``, on a determinized state (whose piles the search treats as unordered)."""
    if state.phase == "over" or state.actor != seat:
        raise ValueError(f"seat {seat} has no decision to make in this position")
    if state.solo is not None and seat == state.solo["bot"] and state.phase == "action":
        raise ValueError("the Cardinalbot's seat is played by the Cardinalbot")
    legal_now = moves_of(state)
    if len(legal_now) == 1:
        tree = None
        first = next(iter(legal_now))
    else:
        tree = search(state, seat, iterations, rng)
        first = best_child(tree) if not lookahead else rerank(tree, state, seat, rng, *lookahead)
    plan = [first]
    # the moves planned after it, while nothing is revealed and the seat keeps the decision
    key = turn_key(state)
    s = state.clone()
    node = tree.children[first] if tree is not None else None
    text = first
    while True:
        moves = moves_of(s)
        ev = advance(s, seat, moves[text], sample_seed(rng))
        if ev["chance"] or not in_turn(s, seat, key):
            break
        nxt = moves_of(s)
        if len(nxt) == 1:
            text = next(iter(nxt))
            node = node.children.get(text) if node is not None and node.children else None
        elif node is not None and node.children and node.n >= PLAN_MIN_VISITS:
            text = best_child(node)
            if text not in nxt:
                break
            node = node.children[text]
        else:
            break
        plan.append(text)
    return plan
