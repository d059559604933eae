"""What every search of Tiletum's seat does around its search: check that the seat has a decision
to make, and plan the moves after the one it chose (``ai.decide`` and the root-parallel search of
``master``, ``ai.tiletum.parallel``, share them; here, so that neither imports the other)."""
from __future__ import annotations

import random

from tiletum.game import play_in_place
from tiletum.state import GameState

from ..settings import Settings
from .search import best_child, in_turn, moves_of, turn_key
from .view import sample_seed


def check_decision(state: GameState, seat: int) -> None:
    if state.phase == "over" or state.actor != seat:
        raise ValueError(f"seat {seat} has no decision to make in this position")
    if state.solo is not None and seat == state.solo["bot"] and state.phase == "action":
        raise ValueError("the Cardinalbot's seat is played by the Cardinalbot")


def plan_after(state: GameState, seat: int, first: str, tree, rng: random.Random,
               settings: Settings) -> list[str]:
    """``first``, then the moves planned after it, while nothing is revealed and the seat keeps the
    decision (each searched at least ``settings.plan_min_visits`` times; with ``settings.plan``
    off, only the moves forced after it: the seat's only legal move)."""
    plan = [first]
    key = turn_key(state)
    s = state.clone()
    node = tree.children[first] if tree is not None else None
    text = first
    while True:
        moves = moves_of(s)
        ev = play_in_place(s, seat, moves[text], sample_seed(rng), trusted=True, undo=False)
        if ev["chance"] or not in_turn(s, seat, key):
            break
        nxt = moves_of(s)
        if len(nxt) == 1:
            text = next(iter(nxt))
            node = node.children.get(text) if node is not None and node.children else None
        elif settings.plan and node is not None and node.children and node.n >= settings.plan_min_visits:
            text = best_child(node)
            if text not in nxt:
                break
            node = node.children[text]
        else:
            break
        plan.append(text)
    return plan
