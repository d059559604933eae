"""Tiletum's AI as its game spec names it (games/tiletum.py: ``ai="ai.tiletum.player:AI"``): the
seat's decision from its served view, and the review of a finished game's decisions.

It rebuilds a full engine state from what the seat can know (``ai.tiletum.view``), searches the
seat's turn with a determinized Monte Carlo tree search (``ai.tiletum.search``) scored by a
heuristic evaluation (``ai.tiletum.evaluate``; at ``hard`` the best few moves are then judged by
the seat's next turn, ``ai.tiletum.lookahead``), and answers the seat's current decision with one
or more moves in notation: the best move, then the moves the search planned after it, up to the
first move that reveals something (a draw or a roll) or hands the decision to another seat. Every
move is legal in the served position (they are taken from ``tiletum.legal`` on it). The answer
depends only on the document, the level and ``rng_seed`` -- except at ``master``, whose budget is
a time (``ai.tiletum.parallel``: a root-parallel search over every core).
"""
from __future__ import annotations

import random

from tiletum.state import GameState

from ..settings import Settings, resolve
from .evaluate import anchored
from .lookahead import rerank
from .plan import check_decision, plan_after
from .search import best_child, moves_of, search
from .view import determinize


def decide(view: dict, level: str | int | Settings = "medium", rng_seed: int | str = 0) -> list[str]:
    """The seat's moves for its current decision (``ai.decide`` says what the arguments are)."""
    settings = resolve(level)
    rng = random.Random(f"{rng_seed}")
    state = determinize(view, rng)
    seat = view.get("viewer")
    if seat is None:
        seat = state.actor
    settings = anchored(state, seat, settings)
    if settings.parallel:
        from . import parallel
        return parallel.decide_state(state, seat, settings, rng)
    return decide_state(state, seat, settings, rng)


def decide_state(state: GameState, seat: int, settings: Settings | int, rng: random.Random,
                 lookahead: tuple[int, int, int] | None = None, tree=None) -> list[str]:
    """As ``decide``, on a determinized state (whose piles the search treats as unordered).
    ``settings`` may be a plain iteration budget (then ``lookahead`` is the look-ahead, if any);
    ``tree`` is a search already made (``ai.tiletum.parallel``), which is then not searched again."""
    if not isinstance(settings, Settings):
        settings = Settings(iterations=settings, lookahead=lookahead)
    check_decision(state, seat)
    if settings.learned_anchor is None:
        settings = anchored(state, seat, settings)
    legal_now = moves_of(state)
    if len(legal_now) == 1:
        tree = None
        first = next(iter(legal_now))
    else:
        if tree is None:
            tree = search(state, seat, settings.iterations, rng, settings)
        first = (best_child(tree) if not settings.lookahead
                 else rerank(tree, state, seat, rng, *settings.lookahead, settings))
    return plan_after(state, seat, first, tree, rng, settings)


def review(events: list[dict], seat: int, level: str | int | Settings, rng_prefix: str) -> list[dict]:
    """Each of ``seat``'s decisions in a finished game, as Tiletum's AI sees it (``ai.tiletum.review``)."""
    from .review import decisions
    return decisions(events, seat, resolve(level), rng_prefix)


class _Player:
    """The object the spec names: an AI of the game's own (games.spec.GameSpec.ai)."""

    decide = staticmethod(decide)
    review = staticmethod(review)
    accepts_settings = True   # a level may be a Settings (ai.settings), not only a level's name


AI = _Player()
