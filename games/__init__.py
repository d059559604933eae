"""One game interface: what the service needs of a game, and the registry of the games it hosts.

The application core (``application/``) loads, decides, appends, describes, records and draws a
game through a :class:`Game` (``games/base.py``: the protocols Rules, Views, Records, Pictures;
EmailTexts and Search where a game has them) found by the ``game`` field of its meta (``"tiletum"`` for games
created before the field mattered). ``games.tiletum`` adapts the Tiletum engine (``tiletum/``),
``games.carcassonne`` the Carcassonne engine (``carcassonne/``), ``games.pillars`` The Pillars of the
Earth's (``pillars/``); no engine changes.

This package sits between the application core and the rules (import-linter layers in
``pyproject.toml``): it imports the rules packages and nothing of the service, and no I/O.
"""
from __future__ import annotations

from typing import Any

import carcassonne
import pillars
import tiletum

from .base import (
    ERRORS,
    RESIGNED,
    BadSetup,
    EmailDefaults,
    EmailGame,
    EmailTexts,
    Game,
    GameDefaults,
    Pictures,
    Records,
    Reviewed,
    ReviewDefaults,
    Rules,
    Search,
    SearchDefaults,
    UnknownGame,
    Views,
)
from .carcassonne import CARCASSONNE
from .pillars import PILLARS
from .tiletum import TILETUM

# Typed so that mypy checks each game against the protocols (tests/test_types.py runs it): a game
# is a Game; one the email channel plays (email = True) is an EmailGame; one ``ai.generic``
# searches is a Search too (tests/test_games.py checks the flags against these).
_EMAIL_GAMES: tuple[EmailGame[Any], ...] = (TILETUM, CARCASSONNE, PILLARS)
_SEARCHED: tuple[Search[Any], ...] = (TILETUM, CARCASSONNE, PILLARS)
_REVIEWED: tuple[Reviewed[Any], ...] = (TILETUM, CARCASSONNE, PILLARS)   # review = True
# each with its own state type, so that mypy checks the adapters' signatures against the protocols
# with the engine's GameState, not only their names
_TYPED: tuple[EmailGame[tiletum.GameState], EmailGame[carcassonne.GameState],
              EmailGame[pillars.GameState]] = (TILETUM, CARCASSONNE, PILLARS)
GAMES: dict[str, Game[Any]] = {g.name: g for g in (TILETUM, CARCASSONNE, PILLARS)}
NAMES = tuple(sorted(GAMES))
DEFAULT = "tiletum"


def get(name: str | None) -> Game[Any]:
    """The game called ``name`` (None: Tiletum, the service's first game); :class:`UnknownGame`."""
    game = GAMES.get(name or DEFAULT)
    if game is None:
        raise UnknownGame(f"unknown game {name!r}: one of {', '.join(NAMES)}")
    return game


def of_state(state: object) -> Game[Any]:
    """The game a state (an engine's ``GameState``) is of."""
    for game in GAMES.values():
        if isinstance(state, game.state_type):
            return game
    raise UnknownGame(f"no hosted game has states of type {type(state).__name__}")


def is_over(state: object) -> bool:
    """Whether the game a state is of is over (its game's :meth:`Views.is_over`)."""
    return of_state(state).is_over(state)


def actor(state: object) -> int | None:
    """The seat to act in a state, None once its game is over (its game's :meth:`Views.actor`)."""
    game = of_state(state)
    return None if game.is_over(state) else game.actor(state)


def of_meta(meta: dict) -> Game[Any]:
    """The game of a game's stored meta (its ``game`` field; Tiletum when absent)."""
    return get(meta.get("game"))


def reviewed(game: Game[Any]) -> Reviewed[Any] | None:
    """The game as the review uses it (application/review.py), or None when it has no review."""
    return game if game.review and isinstance(game, Reviewed) else None


def email_texts(game: Game[Any]) -> EmailGame[Any] | None:
    """The game as the email channel uses it, or None when the email channel does not play it."""
    return game if game.email and isinstance(game, EmailTexts) else None


__all__ = ["ERRORS", "Game", "UnknownGame", "BadSetup", "Rules", "Views", "Records", "Pictures", "EmailTexts",
           "EmailGame", "Search", "Reviewed", "ReviewDefaults", "GameDefaults", "EmailDefaults",
           "SearchDefaults", "email_texts", "reviewed",
           "GAMES", "NAMES", "DEFAULT", "get", "of_meta", "of_state",
           "is_over", "actor", "TILETUM", "CARCASSONNE", "PILLARS", "RESIGNED"]
