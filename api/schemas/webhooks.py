"""Webhooks (docs/bots.md, "Webhooks")."""
from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import Base, Line

# --- webhooks (docs/bots.md, "Webhooks") -------------------------------------------------------


class WebhookIn(Base):
    class Meta:
        unknown = ma.RAISE
    url = Line(required=True, validate=validate.Length(1, 2000), metadata={
        "description": "where deliveries are POSTed: https://, or http:// to loopback only",
        "example": "https://bot.example.org/tablepost"})
    events = fields.List(Line(validate=validate.OneOf(["your-turn", "game-over", "all"])),
                         required=True, validate=validate.Length(1, 3),
                         metadata={"example": ["your-turn", "game-over"]})
    game = Line(load_default=None, validate=validate.Length(1, 40), metadata={
        "description": "with a seat token: the seat's game (required); with a bot token: none (all its "
                       "games)"})


class WebhookDelivery(Base):
    at = fields.Integer(required=True, metadata={"description": "unix time of the attempt"})
    version = fields.Integer(required=True)
    type = fields.String(required=True, metadata={"description": "your-turn, game-over or events"})
    attempt = fields.Integer(required=True)
    ok = fields.Boolean(required=True)
    status = fields.Integer(metadata={"description": "the receiver's HTTP status"})
    error = fields.String(metadata={"description": "why no HTTP answer came (timeout, refused address...)"})


class Webhook(Base):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    game = fields.String(allow_none=True)
    seat = fields.Integer(allow_none=True)
    bot = fields.String(allow_none=True)
    active = fields.Boolean(required=True,
                            metadata={"description": "false once switched off after repeated failures"})
    failures = fields.Integer(required=True, metadata={"description": "failed attempts in a row"})


class WebhookCreated(Webhook):
    secret = fields.String(required=True, metadata={
        "description": "the key of the deliveries' X-Tablepost-Signature: shown only here"})


class WebhookQuery(Base):
    game = Line(load_default=None, validate=validate.Length(1, 40), metadata={
        "description": "with a seat token: the seat's game (required); with a bot token: none"})


class WebhookList(Base):
    webhooks = fields.List(fields.Nested(Webhook), required=True)


class WebhookOut(Webhook):
    deliveries = fields.List(fields.Nested(WebhookDelivery), required=True,
                             metadata={"description": "the last 50 attempts, newest first"})
