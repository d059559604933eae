"""GET /api/v1/catalog: the games this service hosts (application/catalog.py), from the registry."""
from __future__ import annotations

from flask.views import MethodView
from marshmallow import fields

from application.catalog import catalog

from ..blueprint import Blueprint
from ..schemas.common import Base, Line
from ..schemas.players import POOL_NAMES

blp = Blueprint("catalog", __name__, url_prefix="/api/v1/catalog", description="The games hosted")
EXAMPLE_POOL = POOL_NAMES[0]   # the examples' pool: the first game's multiplayer pool


class PoolOut(Base):
    pool = Line(required=True, metadata={"example": EXAMPLE_POOL,
                                         "description": "the pool's name (GET /api/v1/ratings?pool=)"})
    title = Line(required=True, metadata={"example": "Tiletum", "description": "the pool in words"})


class GameKind(Base):
    name = Line(required=True, metadata={"example": "carcassonne",
                                         "description": "the game's name: the `game` of POST /api/v1/games"})
    title = Line(required=True, metadata={"example": "Carcassonne",
                                          "description": "the game's name in words"})
    min_players = fields.Integer(required=True, metadata={"example": 2})
    max_players = fields.Integer(required=True, metadata={"example": 5})
    seat_kinds = fields.List(Line(), required=True, metadata={
        "example": ["human", "ai", "bot"], "description": "the kinds of seat it takes"})
    options = fields.List(Line(), required=True, metadata={
        "example": [],
        "description": "the options of its own it takes (besides time_control, timeout, rated, ...)"})
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
    @blp.response(200, Catalog, example={"games": [
        {"name": "tiletum", "title": "Tiletum", "min_players": 2, "max_players": 4,
         "seat_kinds": ["human", "cardinalbot", "bot", "ai"], "options": ["action_tiles", "solo"],
         "email": True,
         "review": True, "ai": True, "automa_levels": ["priest", "deacon", "bishop"], "score_unit": "VP",
         "default": True, "pools": [{"pool": EXAMPLE_POOL, "title": "Tiletum"},
                                    {"pool": "solo:priest", "title": "Tiletum solo (priest)"}]}]})
    def get(self):
        """The games hosted

        Every game this service hosts, with its number of seats, the kinds of seat and the options
        it takes, what it offers and its rating pools: what a client needs to offer a choice of game.
        """
        return {"games": catalog()}
