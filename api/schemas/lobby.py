"""The lobby (docs/lobby.md): open games, joining, confirming, cancelling."""
from __future__ import annotations

from marshmallow import fields, validate

from tablepost import i18n

from .common import Base, Closed, GAMES, Line, Name, QueryBoolean, QueryInteger, TextEmail
from .review import LobbyPlayer

# --- the lobby (docs/lobby.md) -------------------------------------------------------------------


class LobbyQuery(Base):
    game = Line(validate=validate.OneOf(GAMES), metadata={"description": "only games of this game"})
    players = QueryInteger(validate=validate.Range(1, 6),
                           metadata={"description": "only games of this many players"})
    rated = QueryBoolean(metadata={"description": "only rated games (true) or only unrated ones (false)"})
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 10**6))
    limit = QueryInteger(load_default=20, validate=validate.Range(1, 100))


class LobbyGame(Closed):
    id = fields.String(required=True, metadata={"description": "the game's id (its page: /play/{id})"})
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    players = fields.Integer(required=True, metadata={"description": "the players wanted (seats in all)"})
    open_seats = fields.Integer(required=True, metadata={"description": "seats still open"})
    seats_taken = fields.List(fields.String(), required=True, metadata={
        "description": "the names of the seats taken so far (never an address)"})
    time_control = fields.Dict(required=True, allow_none=True, metadata={
        "description": "the time control it was created with (options.time_control), or null: the default"})
    rated = fields.Boolean(required=True)
    rating_range = fields.List(fields.Integer(), required=True, allow_none=True, metadata={
        "description": "[lowest, highest] rating that may join, or null: anyone"})
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "cancelled"]))
    cancelled_by = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(["creator", "waiting-time"]),
        metadata={"description": "why a cancelled game was cancelled: its creator cancelled it, or its "
                                 "waiting time ran out; null while it waits"})
    created_at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    expires_at = fields.String(required=True,
                               metadata={"description": "when it is cancelled if not full (UTC, ISO 8601)"})
    joined = fields.List(fields.Nested(LobbyPlayer), required=True, metadata={
        "description": "the seats taken, each with the player's public figures (never an address)"})


class LobbyList(Closed):
    games = fields.List(fields.Nested(LobbyGame), required=True)
    more = fields.Boolean(required=True, metadata={"description": "another page follows"})
    next_offset = fields.Integer(required=True, allow_none=True,
                                 metadata={"description": "the next page's offset"})


class LobbyJoinIn(Base):
    name = Name(load_default=None, validate=validate.Length(1, 60), metadata={
        "example": "Dana",
        "description": "the name shown at the table (with a dashboard key: default the name last used)"})
    email = TextEmail(load_default=None, metadata={
        "description": "the address to confirm by email (not with a dashboard key); never shown"})
    invite = Line(load_default=None, validate=validate.Length(1, 100), metadata={
        "description": "the invitation code of the invitation link (required for a private game)"})
    language = Line(load_default=None, validate=validate.OneOf(list(i18n.LANGUAGES)), metadata={
        "description": "the language of the seat's emails (English when not given; the player's own "
                       "choice on their dashboard comes first: docs/i18n.md)"})


class LobbyConfirmIn(Base):
    token = Line(required=True, validate=validate.Length(1, 200), metadata={
        "description": "the token of the emailed link (`/play/lobby#join=<token>`); it works once"})


class LobbyJoinOut(Closed):
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["pending", "seated"]), metadata={
        "description": "pending: a link went by email and the seat is taken when it is opened; seated: the "
                       "seat is yours"})
    emailed = fields.Boolean(metadata={"description": "pending: the confirmation email was queued"})
    seat = fields.Integer(metadata={"description": "seated: your seat"})
    name = fields.String()
    token = fields.String(
        metadata={"description": "seated: your seat's secret Bearer token, shown once (valid once "
                                 "the game starts)"})
    play_url = fields.String(metadata={"description": "seated: the path of the game page opened as your seat "
                                                      "(the seat link token in the fragment)"})
    started = fields.Boolean(
        metadata={"description": "seated: yours was the last seat, and the game has started (with `again`: "
                                 "the game has started)"})
    again = fields.Boolean(
        metadata={"description": "confirm: this join link took the seat before; it leads back to it (the "
                                 "seat's link, not its token)"})


class LobbyCancelled(Closed):
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["cancelled"]))


class LobbySeatFreed(Closed):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["left", "removed"]))
