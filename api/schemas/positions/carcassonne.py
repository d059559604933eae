"""Carcassonne's position document (docs/carcassonne.md), typed."""
from __future__ import annotations

from marshmallow import fields, validate

from ..common import Closed, DEPRECATED_ACTOR, TO_ACT, seat_list


CARCASSONNE_PHASES = ["play", "over"]


class CarcassonneTile(Closed):
    x = fields.Integer(required=True)
    y = fields.Integer(required=True)
    tile = fields.String(required=True, metadata={"description": "the tile's letter (docs/carcassonne.md)"})
    rot = fields.Integer(required=True, validate=validate.OneOf([0, 90, 180, 270]))


class CarcassonneFollower(Closed):
    seat = fields.Integer(required=True)
    x = fields.Integer(required=True)
    y = fields.Integer(required=True)
    role = fields.String(required=True, validate=validate.OneOf(["thief", "knight", "monk", "farmer"]))
    spot = fields.String(required=True,
                         metadata={"description": "canonical spot: N E S W, NE SE SW NW; '' for a monk"})


class CarcassonneBreakdown(Closed):
    road = fields.Integer(required=True)
    city = fields.Integer(required=True)
    cloister = fields.Integer(required=True)
    farm = fields.Integer(required=True)


class CarcassonneScoring(Closed):
    kind = fields.String(required=True, validate=validate.OneOf(["road", "city", "cloister", "farm"]))
    points = fields.Integer(required=True)
    seats = seat_list(required=True)
    tiles = fields.Integer(required=True)
    shields = fields.Integer(required=True)
    complete = fields.Boolean(required=True)


class CarcassonneFinal(Closed):
    """The final scoring (docs/carcassonne.md, `final`)."""
    breakdown = fields.List(fields.Nested(CarcassonneBreakdown), required=True, metadata={
        "description": "per seat: the points of the final scoring by kind"})
    scorings = fields.List(fields.Nested(CarcassonneScoring), required=True)


class CarcassonnePosition(Closed):
    """A Carcassonne position document (docs/carcassonne.md) as a viewer sees it. It holds nothing
    hidden: the face-down tiles are only their public mix, as counts, never their order."""
    format = fields.String(required=True, validate=validate.OneOf(["carcassonne-position/1"]))
    game = fields.String(required=True, validate=validate.OneOf(["carcassonne"]))
    players = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata={"description": "none yet"})
    rules = fields.String(required=True, validate=validate.OneOf(["1", "2"]), metadata={
        "description": "the rules version the game started under, and is played to its end under"})
    version = fields.Integer(required=True)
    reveals = fields.Integer(required=True, metadata={"description": "reveals so far: keys the next draw"})
    phase = fields.String(required=True, validate=validate.OneOf(CARCASSONNE_PHASES))
    actor = fields.Integer(allow_none=True, required=True, metadata=DEPRECATED_ACTOR)
    to_act = seat_list(required=True, metadata=TO_ACT)
    viewer = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "your seat; null: spectator"})
    tile = fields.String(allow_none=True, required=True,
                         metadata={"description": "the tile in hand, revealed to all"})
    scores = fields.List(fields.Integer(), required=True)
    supply = fields.List(fields.Integer(), required=True,
                         metadata={"description": "followers off the board, per seat"})
    board = fields.List(fields.Nested(CarcassonneTile), required=True,
                        metadata={"description": "in the order placed"})
    followers = fields.List(fields.Nested(CarcassonneFollower), required=True)
    pile = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True, metadata={
        "description": "tile letter -> how many are face down (their order does not exist until drawn)"})
    pile_size = fields.Integer(required=True)
    set_aside = fields.List(fields.String(), required=True,
                            metadata={"description": "drawn tiles that fit nowhere"})
    final = fields.Nested(CarcassonneFinal, required=True, allow_none=True, metadata={
        "description": "null until the game ends"})
    winners = seat_list(required=True)
    winner = fields.Integer(allow_none=True, required=True)


POSITION = CarcassonnePosition
