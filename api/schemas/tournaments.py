"""Tournaments: creating, entering, standings, a player's tournament games, withdrawing."""
from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

import games
from tablepost import i18n
from tablepost.i18n import said

from .common import Base, Boolean, Float, GAMES, GAME_SEATS, Integer, Line, Name, TextEmail
from .games import FEWEST_SEATS, MOST_SEATS, TimeControl, TimeoutPolicy
from .setup import TOURNAMENT_OPTION_FIELDS, check_game_options

# --- tournaments ---------------------------------------------------------------------------------


class EntryIn(Base):
    name = Name(required=True, validate=validate.Length(1, 60), metadata={"example": "Ann"})
    email = TextEmail(required=True,
                      metadata={"description": "where the player's turn emails go; never shown"})
    language = Line(load_default=None, validate=validate.OneOf(list(i18n.LANGUAGES)), metadata={
        "description": "the language of the player's emails (English when not given; the player's own "
                       "choice on their dashboard comes first: docs/i18n.md)"})


class _TournamentCreate(Base):
    name = Name(required=True, validate=validate.Length(1, 100), metadata={"example": "Winter Swiss"})
    game = Line(load_default=games.DEFAULT, validate=validate.OneOf(GAMES), metadata={
        "description": f"the game every table plays, with its own rating pool: {GAME_SEATS}"})
    format = Line(required=True, validate=validate.OneOf(["round_robin", "swiss", "knockout"]))
    rounds = Integer(validate=validate.Range(1, 50), metadata={
        "description": "the number of rounds of a Swiss tournament (required for swiss; ignored otherwise)"})
    table_size = Integer(required=True, validate=validate.Range(FEWEST_SEATS, MOST_SEATS), metadata={
        "description": "players per game (" + ", ".join(f"{g.title} {g.min_players}-{g.max_players}"
                                                         for g in games.GAMES.values())
                       + "); a field that does not divide gets short tables or byes"})
    time_control = fields.Nested(TimeControl,
                                 metadata={"description": "deadlines of every game (docs/pbem.md)"})
    timeout = fields.Nested(TimeoutPolicy, metadata={"description": "what happens when a deadline passes"})
    start_at = fields.AwareDateTime(load_default=None, metadata={
        "description": "when round 1 is paired (ISO 8601 with a zone); none: when the organizer starts it"})
    round_days = Float(load_default=None, validate=validate.Range(min=0.001, max=365), metadata={
        "description": "a round's deadline in days: games unfinished then are adjudicated; none: no "
                       "deadline"})
    entries = fields.List(fields.Nested(EntryIn), load_default=list, validate=validate.Length(0, 500))
    invite = Boolean(load_default=False,
                     metadata={"description": "players may enter with an invitation code"})
    rated = Boolean(load_default=True, metadata={"description": "the games count for ratings"})
    seed = Name(validate=validate.Length(1, 200), metadata={
        "description": "fixed seed of every game: only on a server run with --allow-seeded-games, else 422"})

    @ma.validates_schema
    def _table_fits_the_game(self, data, **kwargs):
        rules = games.GAMES.get(data.get("game") or games.DEFAULT)   # an unknown game is the field's error
        size = data.get("table_size")
        if rules is not None and size is not None and not rules.min_players <= size <= rules.max_players:
            raise ma.ValidationError(
                said("a game of {game} seats {min} to {max} players", game=rules.title, min=rules.min_players,
                     max=rules.max_players), "table_size")
        # an option a game declares that a tournament may set, given for a game that does not declare it
        check_game_options(rules, {k: data[k] for k in TOURNAMENT_OPTION_FIELDS if k in data}, where="")


# the tournament's own fields and the options of the games a tournament may set for all its games (as
# each game declares them, api/schemas/setup.py), at the top level as they always were
TournamentCreate = type("TournamentCreate", (_TournamentCreate,), {
    "__doc__": "A new tournament (its games' own options as each game declares them: GET /api/v1/catalog)",
    **TOURNAMENT_OPTION_FIELDS})


class TournamentPlayer(Base):
    player = fields.String(required=True,
                           metadata={"description": "the player's public id (no email is shown)"})
    name = fields.String(required=True)
    withdrawn = fields.Boolean()


class TournamentCreated(Base):
    id = fields.String(required=True)
    organizer_token = fields.String(required=True, metadata={
        "description": "secret Bearer token of the organizer (start, enter and withdraw players): shown "
                       "once"})
    status = fields.String(required=True)
    players = fields.List(fields.Nested(TournamentPlayer), required=True)
    invite_code = fields.String(metadata={"description": "the invitation code, when invitations are on"})


class TableResult(Base):
    scores = fields.List(fields.Integer(), required=True)
    finish = fields.List(fields.Integer(), required=True, metadata={"description": "places in seat order"})
    adjudicated = fields.Boolean(required=True)
    forfeits = fields.List(fields.String(), required=True)


class TournamentTable(Base):
    table = fields.Integer(required=True)
    game = fields.String(required=True, allow_none=True)
    players = fields.List(fields.String(), required=True,
                          metadata={"description": "public ids in seat order"})
    result = fields.Nested(TableResult, allow_none=True, required=True)


class TournamentRound(Base):
    round = fields.Integer(required=True)
    closed = fields.Boolean(required=True)
    started = fields.Float(required=True, metadata={"description": "Unix time"})
    deadline = fields.Float(required=True, allow_none=True, metadata={"description": "Unix time, or none"})
    byes = fields.List(fields.String(), required=True)
    tables = fields.List(fields.Nested(TournamentTable), required=True)


class TournamentOut(Base):
    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True, validate=validate.OneOf(GAMES),
                         metadata={"description": "the game every table plays"})
    format = fields.String(required=True)
    table_size = fields.Integer(required=True)
    rounds_planned = fields.Integer(required=True, allow_none=True, metadata={
        "description": "none for a knockout (until one player is left)"})
    status = fields.String(required=True, metadata={"description": "open, running or finished"})
    rated = fields.Boolean(required=True)
    start_at = fields.Float(required=True, allow_none=True)
    round_days = fields.Float(required=True, allow_none=True)
    time_control = fields.Dict(required=True, allow_none=True)
    timeout = fields.Dict(required=True, allow_none=True)
    invitations = fields.Boolean(required=True)
    version = fields.Integer(required=True)
    players = fields.List(fields.Nested(TournamentPlayer), required=True)
    rounds = fields.List(fields.Nested(TournamentRound), required=True)


class TournamentBrief(Base):
    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    format = fields.String(required=True)
    status = fields.String(required=True)
    players = fields.Integer(required=True)
    rounds_played = fields.Integer(required=True)


class TournamentList(Base):
    tournaments = fields.List(fields.Nested(TournamentBrief), required=True)


class StandingRow(Base):
    rank = fields.Integer(required=True)
    player = fields.String(required=True)
    name = fields.String(required=True)
    points = fields.Float(required=True)
    games = fields.Integer(required=True)
    vp = fields.Float(required=True)
    buchholz = fields.Float(required=True)
    sonneborn_berger = fields.Float(required=True)
    head_to_head = fields.Float(required=True)
    byes = fields.Integer(required=True)
    withdrawn = fields.Boolean(required=True)


class StandingsOut(Base):
    id = fields.String(required=True)
    format = fields.String(required=True)
    status = fields.String(required=True)
    rounds_played = fields.Integer(required=True)
    standings = fields.List(fields.Nested(StandingRow), required=True)


class TournamentEntryIn(EntryIn):
    invite = Name(validate=validate.Length(1, 100), metadata={
        "description": "the invitation code (not needed with the organizer's token)"})


class TournamentEntry(Base):
    player = fields.String(required=True)
    name = fields.String(required=True)
    entry_token = fields.String(required=True, metadata={
        "description": "the player's secret Bearer token for this tournament (their games, withdrawing)"})


class MyGame(Base):
    round = fields.Integer(required=True)
    table = fields.Integer(required=True)
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={
        "description": "the seat token of this game (its link token once the seat token was re-issued)"})
    finished = fields.Boolean(required=True)


class MyGames(Base):
    player = fields.String(required=True)
    withdrawn = fields.Boolean(required=True)
    games = fields.List(fields.Nested(MyGame), required=True)


class WithdrawIn(Base):
    player = Line(validate=validate.Length(1, 40), metadata={
        "description": "with the organizer's token: the public id of the player to withdraw"})


class Withdrawn(Base):
    player = fields.String(required=True)
    withdrawn = fields.Boolean(required=True)


class EntryPending(Base):
    tournament = fields.String(required=True)
    status = fields.String(required=True,
                           metadata={"description": "`pending`: the address's owner is emailed"})
    emailed = fields.Boolean(required=True, metadata={"description": "whether the email was handed on"})


class EntryConfirmIn(Base):
    token = Line(required=True, validate=validate.Length(1, 200),
                 metadata={"description": "the secret of the emailed link (`#confirm=` in it); it works "
                                          "once"})
