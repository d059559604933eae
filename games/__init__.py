"""One game interface: what the service needs of a game, and the registry of the games it hosts.

The application core (``application/``) loads, decides, appends, describes, records and draws a
game through a :class:`Game` (``games/base.py``: the protocols Rules, Views, Records, Pictures;
EmailTexts and Search where a game has them) found by the ``game`` field of its meta (``"tiletum"`` for
games created before the field mattered).

The hosted games are those the installed distributions register (games/registry.py): each exports
one :class:`GameSpec` (games/spec.py) under the entry point group ``tablepost.games``. This
distribution registers three, adapters over engines that know nothing of the service:
``games.tiletum`` (``tiletum/``), ``games.carcassonne`` (``carcassonne/``) and ``games.pillars``
(``pillars/``); ``examples/connect-four`` is a game of a distribution of its own.

This package sits between the application core and the rules (import-linter layers in
``pyproject.toml``): it imports the rules packages and nothing of the service, and no I/O.
"""
from __future__ import annotations

from typing import Any

from tablepost.i18n import said

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
    declared_words,
    in_language,
    score_words,
    title_in,
)
from . import registry
from .registry import RegistryError, register, spec_of, specs, unregister
from .spec import GameSpec

DEFAULT = "tiletum"   # the game of a meta without a ``game`` field (games stored before it mattered)


def __getattr__(attr: str) -> Any:
    """``GAMES`` (name -> game) and ``NAMES`` (sorted), from the registry (games/registry.py: the
    entry points, loaded when first asked for); and each hosted game by its name in capitals
    (``games.CONNECT_FOUR``), as the tests and tools reach one."""
    if attr == "GAMES":
        return registry.games()
    if attr == "NAMES":
        return tuple(registry.names())
    if attr.isupper():
        game = registry.games().get(attr.lower().replace("_", "-"))
        if game is not None:
            return game
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def get(name: str | None) -> Game[Any]:
    """The game called ``name`` (None: Tiletum, the service's first game); :class:`UnknownGame`."""
    game = registry.games().get(name or DEFAULT)
    if game is None:
        raise UnknownGame(said("unknown game {name}: one of {games}", name=repr(name),
                               games=", ".join(registry.names())), name=name)
    return game


def of_state(state: object) -> Game[Any]:
    """The game a state (an engine's ``GameState``) is of."""
    for game in registry.games().values():
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
           "is_over", "actor", "RESIGNED", "GameSpec", "RegistryError", "register", "unregister",
           "spec_of", "specs", "in_language", "score_words", "declared_words", "title_in"]
