"""Moves and events: the legal moves, a batch of moves played, the event log."""
from __future__ import annotations

from marshmallow import fields, validate

from application.game_service import EVENTS_PAGE, MAX_EVENTS_PAGE

from .common import (Base, Closed, DEPRECATED_ACTOR, Integer, MAX_VERSION, QueryInteger, TO_ACT, TO_ACT_WORDS,
                     Text, seat_list)


EVENT_TYPES = ["GameStarted", "MovePlayed", "MoveUndone", "SeatResigned"]


class LegalMove(Closed):
    move = fields.String(required=True, metadata={"example": "take G4"})
    description = fields.String(required=True)


class LegalMoves(Closed):
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    to_act = seat_list(required=True, metadata={**TO_ACT, "description": TO_ACT_WORDS + ". Changed "
                        "in API 2.0: it was the seat (int) or null, which `actor` still gives"})
    actor = fields.Integer(allow_none=True, required=True, metadata=DEPRECATED_ACTOR)
    moves = fields.List(fields.Nested(LegalMove), required=True)
    can_undo = fields.Boolean(required=True,
                              metadata={"description": "whether the move 'undo' is accepted now"})


class MovesIn(Base):
    expected_version = Integer(required=True, validate=validate.Range(min=1),
                                      metadata={"description": "the version the moves were chosen at"})
    moves = fields.List(Text(validate=validate.Length(1, 100)), required=True,
                        validate=validate.Length(1, 200), metadata={"example": ["take G4", "king", "end"]})


class Outcome(fields.Raw):
    """One chance outcome, a pair ``[kind, value]``."""


CHANCE_OUTCOME = {
    "type": "array", "minItems": 2, "maxItems": 2,
    "items": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    "description": "one outcome revealed, `[kind, value]`: kind is a string of the game's own (a draw, a "
                   "die, a tile: each game's docs list its kinds); value is what came out: a tile or token "
                   "id, a letter (string), or a die's value (integer)", "example": ["die-roll", 4]}


class Event(Closed):
    """One event of the game's log; which fields it has depends on ``type`` (GameStarted: players,
    options, rules, chance; MovePlayed: seat, move, rules, chance, maybe by; MoveUndone: seat,
    move, rules, maybe by; SeatResigned: seat, and winner when it ended the game)."""
    version = fields.Integer(required=True, metadata={"description": "the game's version after this event"})
    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES))
    seat = fields.Integer(metadata={"description": "MovePlayed, MoveUndone: the seat that moved; "
                                                   "SeatResigned: the seat that resigned"})
    winner = fields.Integer(metadata={"description": "SeatResigned: the winner, when the resignation "
                                                     "ended the game (every other seat had resigned)"})
    move = fields.String(allow_none=True,
                         metadata={"description": "MovePlayed: the move; MoveUndone: the move "
                                                  "taken back"})
    chance = fields.List(Outcome(metadata=CHANCE_OUTCOME),
                         metadata={"description": "outcomes revealed, in order"})
    players = fields.Integer(metadata={"description": "GameStarted: the number of seats"})
    options = fields.Dict(metadata={"description": "GameStarted: the game's rules options, as its position "
                                                   "document's `options` says them"})
    rules = fields.String(metadata={"description": "version of the rules code that produced it"})
    by = fields.String(metadata={"description": "who played it when not the seat's player, e.g. 'stand-in'"})
    text = fields.String(metadata={"description": "the event in words, who did what by the seats' names "
                                                  "(GET /events only), e.g. 'Ann took the yellow 4 die: 4 "
                                                  "Gold and the Contract Action with 3 AP'"})


class MovesOut(Closed):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(Event), required=True)
    applied = fields.Integer(required=True, metadata={
        "description": "how many of the moves were played, from the first: all of them, unless one revealed "
                       "chance (a die, a tile, a token), which ends the batch"})
    unplayed = fields.List(fields.String(), required=True, metadata={
        "description": "the moves after the one that revealed chance, not looked at and not played: send "
                       "them again (at the new version) if you still want them", "example": []})


class EventsQuery(Base):
    after = QueryInteger(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION),
                           metadata={"description": "only events after this version (0 to 2**63-1)"})


class EventsPageQuery(EventsQuery):
    limit = QueryInteger(load_default=EVENTS_PAGE, validate=validate.Range(min=1, max=MAX_EVENTS_PAGE),
                         metadata={"description": f"at most this many events (1 to {MAX_EVENTS_PAGE}; "
                                                  f"default {EVENTS_PAGE})"})


class EventsOut(Closed):
    after = fields.Integer(required=True)
    events = fields.List(fields.Nested(Event), required=True)
    next_after = fields.Integer(required=True, metadata={
        "description": "the `after` of the next page: the version of the last event served (or `after`)"})
    more = fields.Boolean(required=True, metadata={
        "description": "whether events after `next_after` exist already: then ask again with "
                       "`after=next_after` (the `Link: rel=\"next\"` header is that URL)"})
