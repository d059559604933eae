"""Ratings: a pool's leaderboard and a player's ratings (application/rating_service.py)."""
from __future__ import annotations

from marshmallow import fields, validate

from .common import Base, Line, PageQuery
from .players import POOL_DESCRIPTION, POOL_NAMES, POOL_NAMES_TAKEN

# --- ratings -------------------------------------------------------------------------------------


class RatingsQuery(PageQuery):
    pool = Line(load_default=POOL_NAMES[0], validate=validate.OneOf(POOL_NAMES_TAKEN), metadata={
        "description": POOL_DESCRIPTION + ". Each game has its multiplayer pool, `<game>:multiplayer`; "
                       "each level of a game's own solo opponent is a pool (`solo:<level>`)"})


class RatingRow(Base):
    rank = fields.Integer(required=True)
    player = fields.String(required=True)
    name = fields.String(required=True)
    rating = fields.Float(required=True)
    rd = fields.Float(required=True, metadata={"description": "rating deviation"})
    volatility = fields.Float(required=True)
    games = fields.Integer(required=True)


class Leaderboard(Base):
    pool = fields.String(required=True, metadata={"description": "the pool's name (never a deprecated one)"})
    total = fields.Integer(required=True)
    ratings = fields.List(fields.Nested(RatingRow), required=True)


class PoolRating(Base):
    rating = fields.Float(required=True)
    rd = fields.Float(required=True)
    volatility = fields.Float(required=True)
    games = fields.Integer(required=True)


class RatingPoint(Base):
    rating = fields.Float(required=True)
    rd = fields.Float(required=True)


class RatedGame(Base):
    game = fields.String(required=True)
    pool = fields.String(required=True)
    at = fields.Float(required=True)
    before = fields.Nested(RatingPoint, required=True)
    after = fields.Nested(RatingPoint, required=True)


class PlayerRatings(Base):
    player = fields.String(required=True)
    name = fields.String(required=True)
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(PoolRating), required=True)
    history = fields.List(fields.Nested(RatedGame), required=True)
