"""What a game package exports to be hosted: one :class:`GameSpec`, found through the Python entry
point group ``tablepost.games`` (games/registry.py), in the way OpenSpiel registers a game with
its ``GameType`` and boardgame.io's server reaches a game only through its definition.

A game is one distribution (the three games of this repository are entries of its own
``pyproject.toml``; ``examples/connect-four`` is a distribution of its own)::

    [project.entry-points."tablepost.games"]
    connect-four = "tablepost_connect_four:SPEC"

    SPEC = GameSpec(game=CONNECT_FOUR, evaluation="tablepost_connect_four.ai:value")

The entry point's name is the game's ``name``. Everything but the adapter may be given as a
reference, ``"module:attribute"``, imported only when it is first needed: the AI, the position
schema and the page live in layers above the game interface (``ai``, ``api``), which the adapter
module may not import (the import-linter layers).
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .base import Game

GROUP = "tablepost.games"   # the entry point group a game registers in
NAME = re.compile(r"[a-z][a-z0-9-]{1,30}")   # a game's name: in URLs, the meta and rating pool names

Ref = Any   # an object, or "module:attribute" naming it


def resolve(ref: Ref) -> Any:
    """The object a reference names (``"package.module:attribute"``); anything else as it is."""
    if not isinstance(ref, str):
        return ref
    module, sep, attribute = ref.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"a reference is 'module:attribute', not {ref!r}")
    target: Any = importlib.import_module(module)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


@dataclass(frozen=True)
class GameSpec:
    """One hosted game: its adapter (the game interface, games/base.py) and the parts of the
    service's other layers that are the game's own. Each is optional but the adapter:

    - ``evaluation``: ``value(state, seat) -> float``, the seat's estimated standing (higher is
      better), with which the generic search (``ai.generic``) plays and reviews the game; a game
      whose ``seat_kinds`` hold ``"ai"`` needs it or an ``ai`` of its own;
    - ``chances``: ``outcomes(state) -> [(weight, state)]``, the states the next draw can give,
      for the generic search's expectimax levels (a game with a draw worth expanding);
    - ``ai_levels``: the game's own presets of the generic search, level name -> budget
      (``ai.generic.LEVELS`` says what a budget is), where its decisions are cheaper or dearer;
    - ``ai``: an AI of the game's own instead of the generic search: an object with
      ``decide(view, level, rng_seed) -> [moves]`` and, for a game with ``review``,
      ``review(events, seat, level, rng_prefix) -> [decisions]``;
    - ``position_schema``: a marshmallow schema of its position document, for the OpenAPI
      document (without one the document is described as an object with its ``format``);
    - ``page``: its own game page, ``"package:file.html"`` (without one the service's generic page
      draws its board picture, lists its moves in words and tells its history);
    - ``summary``: the game in a sentence or two, for its card on the home page (the number of
      players is added from the game's seats); one of its declared words, said in the page's language
      by the game (marked ``N_`` for its catalog: docs/i18n.md, "The games' declared words");
    - ``art``: a small picture of the game for that card, ``"package:file.svg"`` (120x80, with a
      ``<title>`` saying what it shows).
    """

    game: Game[Any]
    evaluation: Ref | None = None
    chances: Ref | None = None
    ai_levels: Mapping[str, tuple] = field(default_factory=dict)
    ai: Ref | None = None
    position_schema: Ref | None = None
    page: str | None = None
    summary: str = ""
    art: str | None = None

    @property
    def name(self) -> str:
        return self.game.name

    def part(self, what: str) -> Any:
        """One of the spec's parts, its reference resolved (None where the game has none)."""
        if what not in ("evaluation", "chances", "ai", "position_schema"):
            raise ValueError(f"a game's spec has no part {what!r}")
        return resolve(getattr(self, what))

    def page_text(self) -> str | None:
        """Its own page's HTML, or None (the generic page)."""
        return _resource(self.page)

    def art_svg(self) -> str | None:
        """Its card's picture (SVG), or None."""
        return _resource(self.art)

    def problems(self) -> list[str]:
        """What is wrong with the spec as a registration (the registry refuses such a game)."""
        g = self.game
        out = []
        if not isinstance(g.name, str) or not NAME.fullmatch(g.name):
            out.append(f"a game's name is 2-31 of a-z, 0-9 and '-', starting with a letter, not {g.name!r}")
        if not (isinstance(g.min_players, int) and isinstance(g.max_players, int)
                and 1 <= g.min_players <= g.max_players <= 12):
            out.append(f"{g.name}: seats from 1 to 12, min_players <= max_players")
        if "over" not in tuple(g.phases)[-1:]:
            out.append(f"{g.name}: its phases end with 'over'")
        if "ai" in g.seat_kinds and self.evaluation is None and self.ai is None:
            out.append(f"{g.name}: AI seats need an evaluation for the generic search or an AI of its own")
        for what, ref in (("page", self.page), ("art", self.art)):
            if ref is not None and ":" not in ref:
                out.append(f"{g.name}: its {what} is 'package:file', not {ref!r}")
        return out


def _resource(ref: str | None) -> str | None:
    if ref is None:
        return None
    from importlib import resources
    package, _, path = ref.partition(":")
    return resources.files(package).joinpath(path).read_text("utf-8")


Evaluation = Callable[[Any, int], float]
