"""/api/v1/players and /api/v1/leaderboards: public handles' profiles, their rating charts and the
leaderboards of each rating pool (application/profiles.py; docs/pbem.md, "Your public profile").
Nothing here ever answers an email address or a seat's link."""
from __future__ import annotations

import flask
from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import profiles
from ..problems import documented
from ..schemas.common import PageQuery
from ..schemas.players import POOL_NAMES, ChartQuery, LeaderboardPage, PlayerProfile

blp = Blueprint("players", __name__, url_prefix="/api/v1",
                description="Public player profiles (by handle) and leaderboards")
EXAMPLE_POOL = POOL_NAMES[0]   # the examples' pool: the first game's multiplayer pool

EXAMPLE_PROFILE = {
    "handle": "ada_l", "public": True, "name": "Ada", "member_since": "2025-01-04T10:00:00Z",
    "ratings": {EXAMPLE_POOL: {"rating": 1662.3, "rd": 290.3, "games": 1, "history": [
        {"game": "T4kq9ZpLm2Qxr1t1", "at": "2025-02-01T18:00:00Z", "rating": 1662.3, "rd": 290.3}]}},
    "finished": [{"game": "T4kq9ZpLm2Qxr1t1", "game_name": "tiletum", "players": 2, "place": 1, "score": 61,
                  "winner": "Ada", "url": "/play/T4kq9ZpLm2Qxr1t1",
                  "record": "/api/v1/games/T4kq9ZpLm2Qxr1t1/record"}],
    "current": [{"game": "Xq3vTz8aBc1d", "game_name": "carcassonne", "url": "/play/Xq3vTz8aBc1d"}]}


@blp.route("/players/<string:handle>")
class Player(MethodView):
    @blp.doc(operationId="getPlayerProfile")
    @blp.response(200, PlayerProfile, example=EXAMPLE_PROFILE)
    @documented(blp, 404, "player-not-found", "no player has this handle")
    def get(self, handle):
        """Read a player's public profile

        By handle. A player who made their profile public (on their dashboard) is shown in full:
        their rating in each pool with its history, their finished games (newest first, with
        links to their records), their games in progress (but those kept private) and when they
        first played. A player who has not is shown by handle only: `{"handle", "public": false}`.
        An email address is never shown.
        """
        return profiles().public_profile(handle)


@blp.route("/players/<string:handle>/rating.svg")
class PlayerChart(MethodView):
    @blp.doc(operationId="getPlayerRatingChart", responses={"200": {
        "description": "the chart: the rating after each rated game, with its deviation as a band",
        "content": {"image/svg+xml": {"schema": {"type": "string"}}}}})
    @blp.arguments(ChartQuery, location="query")
    @documented(blp, 404, "player-not-found", "no public profile has this handle")
    @documented(blp, 422, "invalid-request", "an unknown pool")
    def get(self, query, handle):
        """Draw a player's rating chart

        An SVG line chart of a public profile's rating in one pool, one point per rated game.
        `404 pool-not-found` when the player has no rating there.
        """
        svg = profiles().chart(handle, query["pool"])
        return flask.Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})


@blp.route("/leaderboards/<string:pool>")
class Leaderboard(MethodView):
    @blp.doc(operationId="getLeaderboard")
    @blp.arguments(PageQuery, location="query")
    @blp.response(200, LeaderboardPage, example={"pool": EXAMPLE_POOL, "total": 1, "offset": 0,
                                                 "limit": 50,
                                                 "entries": [{"rank": 1, "player": "p3f2a9c0d81e4b7a6",
                                                              "name": "Ada", "handle": "ada_l",
                                                              "rating": 1662.3, "rd": 290.3, "games": 1}]})
    @documented(blp, 404, "pool-not-found", "no such rating pool")
    @documented(blp, 422, "invalid-request", "a bad offset or limit")
    def get(self, query, pool):
        """Read a leaderboard

        The players of a rating pool (`tiletum:multiplayer`, `carcassonne:multiplayer`,
        `pillars:multiplayer`, `solo:priest`, `solo:deacon`, `solo:bishop`) by rating, best first,
        `limit` (1-200) from `offset`. A player whose profile is public is given with their handle.
        The deprecated name `multiplayer` (Tiletum's pool) is answered as `tiletum:multiplayer`.
        """
        return profiles().leaderboard(pool, query["offset"], query["limit"])
