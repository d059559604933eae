"""/api/v1/ratings: Glicko-2 ratings, a multiplayer pool per game and one per level of a game's own automa."""
from __future__ import annotations

from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import ratings
from ..problems import documented
from ..schemas.ratings import Leaderboard, PlayerRatings, RatingsQuery
from ..schemas.players import POOL_NAMES

blp = Blueprint("ratings", __name__, url_prefix="/api/v1/ratings", description="Player ratings")
EXAMPLE_POOL = POOL_NAMES[0]   # the examples' pool: the first game's multiplayer pool


@blp.route("")
class Ratings(MethodView):
    @blp.doc(operationId="listRatings")
    @blp.arguments(RatingsQuery, location="query")
    @blp.response(200, Leaderboard, example={"pool": EXAMPLE_POOL, "total": 1, "ratings": [
        {"rank": 1, "player": "p3f2a9c0d81e4b7a6", "name": "Ann", "rating": 1662.3, "rd": 290.3,
         "volatility": 0.059999, "games": 1}]})
    @documented(blp, 422, "invalid-request", "an unknown pool or a bad offset/limit")
    def get(self, query):
        """List ratings

        The players of a pool by rating, best first. A pool asked for by a deprecated name
        (`multiplayer`) is answered with its name (`tiletum:multiplayer`).
        """
        return ratings().leaderboard(query["pool"], query["offset"], query["limit"])


@blp.route("/<string:player>")
class PlayerRating(MethodView):
    @blp.doc(operationId="getPlayerRatings")
    @blp.response(200, PlayerRatings, example={
        "player": "p3f2a9c0d81e4b7a6", "name": "Ann",
        "ratings": {EXAMPLE_POOL: {"rating": 1662.3, "rd": 290.3, "volatility": 0.059999,
                                            "games": 1}},
        "history": [{"game": "T4kq9ZpLm2Qxr1t1", "pool": EXAMPLE_POOL, "at": 1800000000.0,
                     "before": {"rating": 1500.0, "rd": 350.0}, "after": {"rating": 1662.3, "rd": 290.3}}]})
    @documented(blp, 404, "player-not-found", "no rated games for this player id")
    def get(self, player):
        """Read a player's ratings

        The player's rating in each pool they have played in, and every rated game with the
        rating before and after it.
        """
        return ratings().player(player)
