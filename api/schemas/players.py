"""Players' public profiles and the leaderboards (application/profiles.py)."""
from __future__ import annotations

from marshmallow import fields, validate

from application.rating_service import POOL_ALIASES, POOLS

from .common import Base, Line
from .review import Reliability

# --- handles, profiles, leaderboards and your data (application/profiles.py, accounts.py) ------------


POOL_NAMES = list(POOLS)   # every game's pools (application/rating_service.py, from the registry)
# what a client may name a pool by: its name, or a deprecated name (answered with the name)
POOL_NAMES_TAKEN = POOL_NAMES + list(POOL_ALIASES)
POOL_DESCRIPTION = ("the rating pool: " + ", ".join(f"`{p}`" for p in POOL_NAMES) + "; deprecated: "
                    + ", ".join(f"`{old}` (answered as `{new}`)" for old, new in POOL_ALIASES.items()))


class RatingHistoryPoint(Base):
    game = fields.String(required=True)
    at = fields.String(required=True, metadata={"description": "when the game was rated (UTC, ISO 8601)"})
    rating = fields.Float(required=True, metadata={"description": "the rating after this game"})
    rd = fields.Float(required=True, metadata={"description": "the rating deviation after this game"})


class ProfileRating(Base):
    rating = fields.Float(required=True)
    rd = fields.Float(required=True, metadata={"description": "rating deviation"})
    games = fields.Integer(required=True)
    history = fields.List(fields.Nested(RatingHistoryPoint), required=True, metadata={
        "description": "one point per rated game, oldest first"})


class ProfileFinished(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True)
    players = fields.Integer(required=True)
    place = fields.Integer(allow_none=True)
    score = fields.Integer(allow_none=True)
    winner = fields.String(allow_none=True)
    url = fields.String(required=True, metadata={"description": "the game's page"})
    record = fields.String(required=True, metadata={"description": "the game's record (GET)"})


class ProfileCurrent(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True)
    url = fields.String(required=True)


class PlayerProfile(Base):
    handle = fields.String(required=True)
    public = fields.Boolean(required=True, metadata={
        "description": "false: the player has not made their profile public, and only the handle is shown"})
    name = fields.String(metadata={"description": "the name the player last played under"})
    member_since = fields.String(allow_none=True, metadata={"description": "the first game's creation (UTC)"})
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(ProfileRating), metadata={
        "description": "by rating pool (" + ", ".join(POOL_NAMES) + ")"})
    finished = fields.List(fields.Nested(ProfileFinished),
                           metadata={"description": "newest first (50 at most)"})
    current = fields.List(fields.Nested(ProfileCurrent), metadata={
        "description": "games in progress, but those kept private by their creator"})
    reliability = fields.Nested(Reliability, metadata={"description": "how reliably the player plays"})


class ChartQuery(Base):
    pool = Line(load_default=POOL_NAMES[0], validate=validate.OneOf(POOL_NAMES_TAKEN),
                metadata={"description": POOL_DESCRIPTION})


class LeaderboardRow(Base):
    rank = fields.Integer(required=True)
    player = fields.String(required=True, metadata={"description": "the opaque player id"})
    name = fields.String(required=True, metadata={"description": "the name the player last played under"})
    handle = fields.String(required=True, allow_none=True, metadata={
        "description": "the handle of a public profile (/players/<handle>), else null"})
    rating = fields.Float(required=True)
    rd = fields.Float(required=True, metadata={"description": "rating deviation"})
    games = fields.Integer(required=True)


class LeaderboardPage(Base):
    pool = fields.String(required=True, metadata={"description": "the pool's name (never a deprecated one)"})
    total = fields.Integer(required=True, metadata={"description": "players in the pool"})
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    entries = fields.List(fields.Nested(LeaderboardRow), required=True,
                          metadata={"description": "best first"})
