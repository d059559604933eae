"""The table talk's request and response schemas (issue 41; api/resources/messages.py)."""
from __future__ import annotations

from marshmallow import fields, validate

from application import messages as talk

from .common import Base, Boolean, Closed, Integer, QueryInteger, Text


class MessageIn(Closed):
    text = Text(required=True, validate=validate.Length(min=1, max=4 * talk.MAX_CHARS), metadata={
        "description": f"plain text, at most {talk.MAX_CHARS} characters and {talk.MAX_LINES} lines (control "
                       "characters are dropped); shown as written, never as HTML or links"})


class Message(Base):
    id = fields.Integer(required=True,
                        metadata={"description": "its number in the game's thread (1, 2, ...)"})
    seat = fields.Integer(required=True, metadata={"description": "the seat that wrote it"})
    name = fields.String(required=True, metadata={"description": "the seat's name (\"a former player\" for "
                                                                 "an "
                                                                 "account deleted since)"})
    text = fields.String(required=True, metadata={"description": "plain text"})
    at = fields.String(required=True, metadata={"description": "when it was written (UTC, ISO 8601)"})
    mine = fields.Boolean(required=True, metadata={"description": "written by your seat"})


class Muted(Base):
    all = fields.Boolean(required=True, metadata={"description": "every other seat's messages are muted"})
    seats = fields.List(fields.Integer(), required=True, metadata={"description": "the seats muted"})


class MessagesQuery(Base):
    after = QueryInteger(load_default=0, validate=validate.Range(min=0, max=2**63 - 1),
                         metadata={"description": "only the messages after this one (its `id`; 0: from "
                                                  "the first)"})
    limit = QueryInteger(load_default=talk.PAGE, validate=validate.Range(min=1, max=200),
                         metadata={"description": f"at most this many (1 to 200; default {talk.PAGE})"})


class Messages(Base):
    messages = fields.List(fields.Nested(Message), required=True,
                           metadata={"description": "oldest first; the seats you muted are left out"})
    last = fields.Integer(required=True, metadata={"description": "the last message id this page read: "
                                                                 "`after` of the next page"})
    more = fields.Boolean(required=True, metadata={"description": "more messages follow this page"})
    open = fields.Boolean(required=True, metadata={"description": "the seats may still write"})
    closes = fields.String(required=True, allow_none=True,
                           metadata={"description": "when a finished game's thread closes (UTC, ISO 8601)"})
    muted = fields.Nested(Muted, required=True, metadata={"description": "what your seat muted"})


class MuteIn(Closed):
    all = Boolean(load_default=None, allow_none=True,
                  metadata={"description": "mute (or unmute) every other seat"})
    seats = fields.List(Integer(validate=validate.Range(min=0, max=63)), load_default=None,
                        validate=validate.Length(max=64),
                        metadata={"description": "the seats to mute (the whole list: [] unmutes them)"})


class ReportIn(Closed):
    reason = Text(load_default=None, validate=validate.Length(max=300),
                  metadata={"description": "what is wrong with it (optional)"})


class Reported(Base):
    game = fields.String(required=True)
    message = fields.Integer(required=True)
    reported = fields.Boolean(required=True)
