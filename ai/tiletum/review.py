"""Tiletum's game review (docs/ai.md, "Game review"): each decision of a seat as Tiletum's AI sees it.

For every decision of the seat (each of its moves where it had a choice), the move played, the
move the AI prefers, and the estimated difference in final VP between them: a search from the
seat's own view of the position before the move (what the seat could know then:
``ai.tiletum.view``), the value of the AI's preferred move less that of the move played (each the
best line the search found after it, in estimated final VP; 0 where they are the same move), and
the position before it in words (the game's ``review_position``).
The service's part (who may read it, storing it, the task) is
application/review.py, which reaches this through ``ai.review_decisions``.
"""
from __future__ import annotations

import random

from games.tiletum import TILETUM
from tiletum.game import play_in_place

from ..settings import Settings
from .evaluate import value
from .search import best_child, moves_of, search
from .view import determinize, sample_seed


def analyse(state, seat: int, played: str, settings: Settings, rng_seed: str) -> dict:
    """The AI's preferred move and the estimated VP the move played gave away, from the seat's
    view of ``state`` (the real state is used only to make that view)."""
    game = TILETUM
    rng = random.Random(rng_seed)
    s = determinize(game.view(state, seat), rng)
    tree = search(s, seat, settings.iterations, rng, settings)
    preferred = best_child(tree)
    best = tree.children[preferred].worth
    node = tree.children.get(played)
    if node is not None:
        worth = node.worth
    else:   # not among the search's moves (it always is; a safety net): its one-move value
        c = s.clone()
        play_in_place(c, seat, moves_of(s)[played], sample_seed(rng), trusted=True, undo=False)
        worth = value(c, seat, settings)
    return {"preferred": preferred, "loss": round(max(0.0, best - worth), 1) if preferred != played else 0.0}


def decisions(events: list[dict], seat: int, settings: Settings, rng_prefix: str) -> list[dict]:
    """Each decision of ``seat`` in a game's ``events`` (from its start): the move played and the
    AI's preferred one, in notation and in words, the estimated loss in VP and the position before
    it in words. ``rng_prefix`` seeds each decision's search (with the version it was made at)."""
    game = TILETUM
    s = game.replay(events[:1])
    out = []
    for version, ev in enumerate(events[1:], start=1):
        if (ev.get("type") == "MovePlayed" and ev.get("seat") == seat and s.phase != "over"
                and s.actor == seat and len(moves_of(s)) > 1):
            got = analyse(s, seat, ev["move"], settings, f"{rng_prefix}:{version}")
            words = dict(game.legal_moves(s))
            out.append({"version": s.version, "round": s.round, "played": ev["move"],
                        "played_words": words.get(ev["move"], ev["move"]),
                        "preferred": got["preferred"],
                        "preferred_words": words.get(got["preferred"], got["preferred"]),
                        "loss": got["loss"], "position": game.review_position(s, seat)})
        s = game.replay([ev], s)
    return out
