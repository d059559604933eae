"""A search-based player for any seat of any hosted game (docs/ai.md).

    >>> import ai
    >>> moves = ai.decide(view_doc, "medium", rng_seed=7)

``decide`` sees only the position document as it is served to the seat (``GET
/api/v1/games/{id}`` with the seat's token: face-down piles as counts, no seed) and answers the
seat's current decision with one or more moves in notation. The game (the view's ``game``) says
through its spec (games/spec.py) who decides: an AI of its own (``GameSpec.ai``: Tiletum's
determinized tree search, ``ai.tiletum.player``), else the game-generic search (``ai.generic``)
with the game's evaluation (``GameSpec.evaluation``), nothing hidden used. ``review_decisions``
likewise.

A level is a name (``easy``, ``medium``, ``hard``, ``master``) or a budget. Tiletum's levels are
presets of :class:`ai.Settings` (``ai.settings``): the search's budget, the look-ahead and every
weight of its evaluation; ``ai.override(ai.LEVELS["hard"], "crest_w:3")`` makes a variant (the
names below are Tiletum's, kept here for the tools and benches that tune it).
"""
from __future__ import annotations

import games

from .settings import LEVELS, Settings, override, resolve
from .tiletum.parallel import may_start_processes
from .tiletum.player import decide_state

__all__ = ["LEVELS", "Settings", "decide", "decide_state", "override", "resolve", "review_decisions",
           "may_start_processes"]


def iterations_for(level: str | int | Settings) -> int:
    return resolve(level).iterations


def _own(game: games.Game) -> object | None:
    """The game's own AI (its spec's ``ai``), or None: the generic search plays it."""
    return games.spec_of(game).part("ai")


def decide(view: dict, level: str | int | Settings = "medium", rng_seed: int | str = 0) -> list[str]:
    """The seat's moves for its current decision. ``view`` is the position document served to the
    seat (its ``viewer`` is the seat; without one the seat to act is meant). ``level`` is a level's
    name (``ai.LEVELS``), a budget, or (for a game whose AI takes them) a :class:`Settings`."""
    game = games.get(view.get("game"))
    own = _own(game)
    if own is not None:
        return own.decide(view, level, rng_seed)   # type: ignore[attr-defined]
    from . import generic
    if isinstance(level, Settings):
        raise ValueError("the generic AI takes a level's name or a reply budget, not Tiletum's Settings")
    return generic.decide(view, level, rng_seed)


def review_decisions(game: games.Game, events: list[dict], seat: int, level: str | int | Settings,
                     rng_prefix: str) -> list[dict]:
    """The review of ``seat``'s decisions in a finished game's ``events`` (application/review.py),
    by the game's AI at ``level``: its own (its spec's ``ai``), else the generic search
    (``ai.generic.review``, for a game whose spec gives an evaluation). ``ValueError`` for a game that
    declares no ``review``. Each decision's ``loss`` is the AI's estimate, not yet bounded: the
    service bounds it by the game's ``review_bound``."""
    if games.reviewed(game) is None:
        raise ValueError(f"there is no review of {game.title} games")
    own = _own(game)
    if own is not None:
        return own.review(events, seat, level, rng_prefix)   # type: ignore[attr-defined]
    from . import generic
    if generic.evaluation(game) is None:
        raise ValueError(f"there is no review of {game.title} games")
    if isinstance(level, Settings):
        raise ValueError("the generic AI takes a level's name or a reply budget, not Tiletum's Settings")
    return generic.review(game, events, seat, level, rng_prefix)
