"""GET /api/v1/catalog: the games this service hosts (application/catalog.py), from the registry."""
from __future__ import annotations

from flask.views import MethodView
from marshmallow import fields, validate

import games
from application.catalog import catalog
from games.setup import KINDS

from ..blueprint import Blueprint
from ..language import request_language
from ..schemas.common import Base, Line
from ..schemas.players import POOL_NAMES

blp = Blueprint("catalog", __name__, url_prefix="/api/v1/catalog", description="The games hosted")
EXAMPLE_POOL = POOL_NAMES[0]   # the examples' pool: the first game's multiplayer pool
# the examples: hosted games' own declarations (the first game, the first with an automa, the first option)
_GAME = next(iter(games.GAMES.values()))
_AUTOMA = next((g.automa for g in games.GAMES.values() if g.automa is not None), None)
_OPTION = next((o for g in games.GAMES.values() for o in g.options if o.choices), None)


def _example(value: object) -> dict:
    return {} if value is None else {"example": value}


class PoolOut(Base):
    pool = Line(required=True, metadata={"example": EXAMPLE_POOL,
                                         "description": "the pool's name (GET /api/v1/ratings?pool=)"})
    title = Line(required=True, metadata={"example": _GAME.title, "description": "the pool in words"})


class ChoiceOut(Base):
    value = Line(required=True, metadata={**_example(_OPTION and _OPTION.choices[-1].value),
                                          "description": "the value to send"})
    title = Line(required=True, metadata={**_example(_OPTION and _OPTION.choices[-1].title),
                                          "description": "the value in words"})
    description = fields.String(required=True)


class OptionOut(Base):
    name = Line(required=True, metadata={**_example(_OPTION and _OPTION.name),
                                         "description": "its name in `options` of POST /api/v1/games"})
    title = Line(required=True, metadata={**_example(_OPTION and _OPTION.title),
                                          "description": "its name in words"})
    description = fields.String(required=True)
    kind = Line(required=True, validate=validate.OneOf(list(KINDS)), metadata={
        "description": "`choice`: one of `choices`; `integer`: from `min` to `max`; `boolean`; `choices`: a "
                       "list of `choices`' values, each at most once, at most `max`"})
    default = fields.Raw(metadata={
        "description": "what a new game takes when the option is not given (absent: nothing)"})
    min = fields.Integer(required=True, allow_none=True)
    max = fields.Integer(required=True, allow_none=True)
    tournament = fields.Boolean(required=True, metadata={
        "description": "a tournament may set it for all its games (a field of POST /api/v1/tournaments)"})
    choices = fields.List(fields.Nested(ChoiceOut), required=True)


class LevelOut(Base):
    name = Line(required=True, metadata=_example(_AUTOMA and _AUTOMA.default_level))
    title = Line(required=True)
    description = fields.String(required=True)
    pool = Line(required=True, metadata={"description": "the rating pool of games against it at this level"})


class AutomaOut(Base):
    kind = Line(required=True, metadata={**_example(_AUTOMA and _AUTOMA.kind),
                                         "description": "the kind of its seat"})
    title = Line(required=True, metadata={**_example(_AUTOMA and _AUTOMA.title),
                                          "description": "it in words"})
    name = Line(required=True, metadata={**_example(_AUTOMA and _AUTOMA.name),
                                         "description": "its name as a player"})
    option = Line(required=True, metadata={
        **_example(_AUTOMA and _AUTOMA.option),
        "description": "the option (of POST /api/v1/games) that takes its level and settings"})
    description = fields.String(required=True)
    seats = fields.Integer(required=True, metadata={"description": "the seats of a game against it, its own "
                                                                   "included"})
    default_level = Line(required=True)
    levels = fields.List(fields.Nested(LevelOut), required=True)
    settings = fields.List(fields.Nested(OptionOut), required=True, metadata={
        "description": "its own settings (given, they replace the level, and the game is not rated)"})


class GameKind(Base):
    name = Line(required=True, metadata={"example": _GAME.name,
                                         "description": "the game's name: the `game` of POST /api/v1/games"})
    title = Line(required=True, metadata={"example": _GAME.title,
                                          "description": "the game's name in words"})
    min_players = fields.Integer(required=True, metadata={"example": 2})
    max_players = fields.Integer(required=True, metadata={"example": 5})
    seat_kinds = fields.List(Line(), required=True, metadata={
        "example": ["human", "ai", "bot"], "description": "the kinds of seat it takes"})
    options = fields.List(Line(), required=True, metadata={
        "example": [],
        "description": "the options of its own it takes (besides time_control, timeout, rated, ...)"})
    option_specs = fields.List(fields.Nested(OptionOut), required=True, metadata={
        "description": "its own options as it declares them: what the new-game form offers"})
    automa = fields.Nested(AutomaOut, required=True, allow_none=True, metadata={
        "description": "its own solo opponent, if it has one"})
    email = fields.Boolean(required=True, metadata={"description": "whether it can be played by email"})
    review = fields.Boolean(required=True, metadata={"description": "whether a finished game has a review"})
    ai = fields.Boolean(required=True, metadata={"description": "whether it takes AI seats (and hints)"})
    automa_levels = fields.List(Line(), required=True, metadata={
        "example": [], "description": "the levels of its own solo opponent, if it has one"})
    score_unit = Line(required=True, metadata={"example": "points", "description": "what a score counts"})
    default = fields.Boolean(required=True, metadata={
        "description": "whether it is the game of POST /api/v1/games without a `game`"})
    pools = fields.List(fields.Nested(PoolOut), required=True, metadata={"description": "its rating pools"})


class Catalog(Base):
    games = fields.List(fields.Nested(GameKind), required=True)


@blp.route("")
class CatalogView(MethodView):
    @blp.doc(operationId="getCatalog")
    # the example: the default game, as it declares itself
    @blp.response(200, Catalog, example={"games": [g for g in catalog() if g["default"]]})
    def get(self):
        """The games hosted

        Every game this service hosts, with its number of seats, the kinds of seat and the options
        it takes, what it offers and its rating pools: what a client needs to offer a choice of game.
        The games' declared words (their options' and choices' titles and descriptions, their
        automa's title, description and levels) are in the language asked for by `?lang=` (`en`,
        `de`, `fr`), else by `Accept-Language`, where the game speaks it (else English): the request's
        language. Names and values stay as they are.
        """
        return {"games": catalog(request_language())}
