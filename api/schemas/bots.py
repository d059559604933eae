"""Bot accounts (docs/bots.md) and a bot's turns and invitations."""
from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import Base, Name, TextEmail


class BotTurn(Base):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={"description": "the version at which it became due"})


class BotTurns(Base):
    turns = fields.List(fields.Nested(BotTurn), required=True)


# --- bot accounts (docs/bots.md) ---------------------------------------------------------------

class BotIn(Base):
    class Meta:
        unknown = ma.RAISE
    name = Name(required=True, validate=validate.Length(1, 60), metadata={"example": "RandomRita"})
    email = TextEmail(required=True, metadata={"description": "the owner's address (never shown to anyone)",
                                               "example": "owner@example.org"})


class BotOut(Base):
    id = fields.String(required=True, metadata={"example": "3fa9c2d41b7e"})
    name = fields.String(required=True)


class BotToken(BotOut):
    token = fields.String(required=True, metadata={
        "description": "the bot's secret token, shown only here: `Authorization: Bearer <token>` on the game "
                       "endpoints of the bot's seats",
                       "example": "bot.3fa9c2d41b7e.mV3xQ0b8cM1xI4yVtq5tJ1YkZs0Ex9DEq"})


class BotCreated(BotToken):
    owner_key = fields.String(required=True, metadata={
        "description": "the owner's secret key, shown only here (keep it off the bot's server): it rotates "
                       "or revokes the token, deletes the account and seats the bot in games",
        "example": "botowner.3fa9c2d41b7e.Zp0cT1xQ8bM3xI4yVtq5tJ1YkZs0Ex9DEq"})


class BotInvitation(Base):
    id = fields.String(required=True,
                       metadata={"description": "the invitation's id: seats the bot once accepted",
                                 "example": "6d1f0c9a2b3e4f5a6b7c8d9e0f1a2b3c"})
    bot = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["pending", "accepted", "declined", "used",
                                                                   "expired"]))
    created = fields.Integer(required=True, metadata={"description": "unix time"})
    expires = fields.Integer(required=True, metadata={"description": "unix time: unused by then, it is gone"})
    game = fields.String(allow_none=True,
                         metadata={"description": "the game it seated the bot in, once used"})


class BotInvitations(Base):
    invitations = fields.List(fields.Nested(BotInvitation), required=True, metadata={
        "description": "the pending invitations, newest first"})
