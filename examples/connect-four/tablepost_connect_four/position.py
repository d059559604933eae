"""Connect Four's position document, typed for the platform's API (the state endpoint's ``oneOf``
and the OpenAPI document): the game's ``GameState.to_doc()`` with the viewer and the seats to act
that every served view adds. Nothing in it is hidden."""
from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from .rules import COLUMNS, FORMAT, GAME, ROWS


def _seats(**kw):
    return fields.List(fields.Integer(validate=validate.Range(0, 1)), **kw)


class ConnectFourPosition(Schema):
    """A Connect Four position as any viewer sees it (examples/connect-four)."""

    class Meta:
        ordered = True
        unknown = RAISE

    format = fields.String(required=True, validate=validate.OneOf([FORMAT]))
    game = fields.String(required=True, validate=validate.OneOf([GAME]))
    rules = fields.String(required=True, validate=validate.OneOf(["1"]))
    players = fields.Integer(required=True, validate=validate.OneOf([2]))
    version = fields.Integer(required=True, metadata={"description": "events folded"})
    phase = fields.String(required=True, validate=validate.OneOf(["play", "over"]))
    actor = fields.Integer(allow_none=True, required=True, metadata={
        "deprecated": True, "description": "deprecated: use `to_act`; the seat to drop, null when over"})
    winner = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "null: none (yet), or a draw"})
    columns = fields.List(_seats(validate=validate.Length(max=ROWS)), required=True,
                          validate=validate.Length(equal=COLUMNS), metadata={
                              "description": "the columns a to g, each its discs bottom up, as seats"})
    line = fields.List(fields.List(fields.Integer(), validate=validate.Length(equal=2)), allow_none=True,
                       required=True,
                       metadata={"description": "the winning four as [column, row] (0 = a, bottom)"})
    viewer = fields.Integer(allow_none=True, required=True,
                            metadata={"description": "your seat; null: spectator"})
    to_act = _seats(required=True, metadata={"description": "the seat to drop (none when the game is over)"})
