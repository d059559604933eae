"""A search-based player for any seat of any hosted game: Tiletum (with the human seat of a solo
game against the Cardinalbot) and Carcassonne (docs/ai.md).

    >>> import ai
    >>> moves = ai.decide(view_doc, "medium", rng_seed=7)

``decide`` sees only the position document as it is served to the seat (``GET
/api/v1/games/{id}`` with the seat's token: face-down piles as counts, no seed). It rebuilds a
full engine state from what the seat can know (``ai.tiletum.view``), searches the seat's turn with a
determinized Monte Carlo tree search (``ai.tiletum.search``) scored by a heuristic evaluation
(``ai.tiletum.evaluate``; at ``hard`` the best few moves are then judged by the seat's next turn,
``ai.tiletum.lookahead``), and answers the seat's current decision with one or more moves in notation:
the best move, then the moves the search planned after it, up to the first move that reveals
something (a draw or a roll) or hands the decision to another seat. Every move is legal in the
served position (they are taken from ``tiletum.legal`` on it). The answer depends only on the
document, the level and ``rng_seed`` -- except at ``master``, whose budget is a time
(``ai.tiletum.parallel``: a root-parallel search over every core).

That is Tiletum's search. A view of another game (its ``game`` field) goes to ``ai.generic``: a
search over the game interface (``games.Game``) with an evaluation per game (Carcassonne's:
``ai.carcassonne``), nothing hidden used; docs/ai.md, "Any game: the generic search".

A level is a preset of :class:`ai.Settings` (``ai.settings``): the search's budget, the
look-ahead and every weight of the evaluation; ``ai.override(ai.LEVELS["hard"], "crest_w:3")``
makes a variant.
"""
from __future__ import annotations

import random

import games
from tiletum.state import GameState

from .tiletum.evaluate import anchored
from .tiletum.lookahead import rerank
from .tiletum.parallel import may_start_processes
from .tiletum.plan import check_decision, plan_after
from .tiletum.search import best_child, moves_of, search
from .settings import LEVELS, Settings, override, resolve
from .tiletum.view import determinize

__all__ = ["LEVELS", "Settings", "decide", "decide_state", "override", "resolve", "review_decisions",
           "may_start_processes"]


def iterations_for(level: str | int | Settings) -> int:
    return resolve(level).iterations


def decide(view: dict, level: str | int | Settings = "medium", rng_seed: int | str = 0) -> list[str]:
    """The seat's moves for its current decision. ``view`` is the position document served to the
    seat (its ``viewer`` is the seat; without one the seat to act is meant). ``level`` is a level's
    name (``ai.LEVELS``), an iteration budget, or a :class:`Settings`. A view of another game than
    Tiletum (its ``game``) is decided by the game-generic search (``ai.generic``)."""
    if games.get(view.get("game")) is not games.TILETUM:
        from . import generic
        if isinstance(level, Settings):
            raise ValueError("the generic AI takes a level's name or a reply budget, not Tiletum's Settings")
        return generic.decide(view, level, rng_seed)
    settings = resolve(level)
    rng = random.Random(f"{rng_seed}")
    state = determinize(view, rng)
    seat = view.get("viewer")
    if seat is None:
        seat = state.actor
    settings = anchored(state, seat, settings)
    if settings.parallel:
        from .tiletum import parallel
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


def review_decisions(game: games.Game, events: list[dict], seat: int, level: str | int | Settings,
                     rng_prefix: str) -> list[dict]:
    """The review of ``seat``'s decisions in a finished game's ``events`` (application/review.py),
    by the game's AI at ``level``: Tiletum's own (``ai.tiletum.review``), else the generic search
    (``ai.generic.review``, for a game it has an evaluation of). ``ValueError`` for a game that
    declares no ``review``. Each decision's ``loss`` is the AI's estimate, not yet bounded: the
    service bounds it by the game's ``review_bound``."""
    if games.reviewed(game) is None:
        raise ValueError(f"there is no review of {game.title} games")
    if game is games.TILETUM:
        from .tiletum.review import decisions
        return decisions(events, seat, resolve(level), rng_prefix)
    from . import generic
    if game not in generic.EVALUATIONS:
        raise ValueError(f"there is no review of {game.title} games")
    if isinstance(level, Settings):
        raise ValueError("the generic AI takes a level's name or a reply budget, not Tiletum's Settings")
    return generic.review(game, events, seat, level, rng_prefix)
