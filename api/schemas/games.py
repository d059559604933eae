"""Games: creating one (seats, options, time control), its summary, the public list, seat links."""
from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

import games
from tablepost import i18n
from tablepost.i18n import N_, said
from application.time_control import MAX_QUIET_HOURS, quiet_length, valid_tz
from application.seats import AI_LEVELS

from .common import (ANY_PHASE, Base, Boolean, Closed, Float, GAMES, GAME_SEATS, Integer, Line, Name,
                     QueryInteger, TO_ACT, TextEmail, raise_tz, seat_list)
from .setup import GAME_OPTION_FIELDS, SEAT_KINDS, automa_kinds_words

# the fewest and the most seats of any hosted game (each game's own limits are checked per game)
FEWEST_SEATS = min(g.min_players for g in games.GAMES.values())
MOST_SEATS = max(g.max_players for g in games.GAMES.values())
GAME_STATUSES = ["active", "finished", "waiting", "cancelled"]


class SeatIn(Base):
    name = Name(load_default=None, validate=validate.Length(1, 60), metadata={
        "example": "Alice",
        "description": "required, except for a bot account's seat (default: the bot's name)"})
    email = TextEmail(load_default=None, metadata={"description": "where turn emails go (optional)"})
    kind = Line(load_default="human", validate=validate.OneOf(SEAT_KINDS),
                metadata={"description": "who plays the seat: a person, a game's own automa ("
                                         + automa_kinds_words() + "), a "
                                         "registered bot account (`bot`; docs/bots.md), the AI player "
                                         "(`ai`; docs/ai.md), or a player still to come (`open`: the game "
                                         "waits in the lobby until every open seat is taken; docs/lobby.md)"})
    bot = Line(load_default=None, validate=validate.Length(1, 40), metadata={
        "description": "kind `bot` only: the id of the bot account (POST /api/v1/bots) that plays this seat"})
    owner_key = Line(validate=validate.Length(1, 100), metadata={
        "description": "kind `bot` only: the bot's owner key (its owner seats it), or else `invitation`"})
    invitation = Line(validate=validate.Length(1, 40), metadata={
        "description": "kind `bot` only: an invitation the bot accepted (POST "
                       "/api/v1/bots/{id}/invitations); each seats one game"})
    level = Line(validate=validate.OneOf(list(AI_LEVELS)), metadata={
        "description": "an ai seat's level (default medium; `master` thinks as long as a correspondence move "
                       "may take, TABLEPOST_AI_MASTER_SECONDS a decision, on every core of the AI worker; "
                       "docs/ai.md)"})
    tz = Line(load_default=None, validate=lambda v: valid_tz(v) or raise_tz(v), metadata={
        "description": "the player's IANA time zone (e.g. Europe/Berlin): deadlines in emails are shown in "
                       "it (UTC when not given)", "example": "Europe/Berlin"})
    language = Line(load_default=None, validate=validate.OneOf(list(i18n.LANGUAGES)), metadata={
        "description": "the language of the player's emails (English when not given; the player's own "
                       "setting on their dashboard comes first; docs/i18n.md)", "example": "de"})


    @ma.validates_schema
    def _bot_or_name(self, data, **kw):
        if data.get("kind") == "open":
            for field in ("name", "email", "bot", "owner_key", "invitation", "level", "tz", "language"):
                if data.get(field) is not None:
                    raise ma.ValidationError(
                        N_("an open seat names nobody yet: its player joins from the lobby"), field)
        elif data.get("kind") == "bot":
            if not data.get("bot"):
                raise ma.ValidationError(N_("a seat of kind 'bot' names its bot account"), "bot")
        else:
            for field in ("bot", "owner_key", "invitation"):
                if data.get(field) is not None:
                    raise ma.ValidationError(N_("only a seat of kind 'bot' names a bot account"), field)
            if data.get("name") is None:
                raise ma.ValidationError("Missing data for required field.", "name")


def _quiet_window(value):
    """The core's rule (application/deadlines.py): a quiet window leaves some hours of each day counted."""
    if (len(value) == 2 and all(isinstance(h, int) for h in value)
            and not 1 <= quiet_length(value) <= MAX_QUIET_HOURS):
        raise ma.ValidationError(said("a quiet window leaves out 1 to {most} hours of a day: start and end "
                                      "differ and at least {least} hours count", most=MAX_QUIET_HOURS,
                                      least=24 - MAX_QUIET_HOURS))


class TimeControl(Base):
    class Meta:
        unknown = ma.RAISE
    days_per_move = Float(load_default=3, validate=validate.Range(min=0.01, max=60),
                                 metadata={"description": "time for each turn, in days of counted time"})
    pause_weekends = Boolean(load_default=False,
                             metadata={"description": "Saturdays and Sundays (UTC) do not count"})
    quiet_hours = fields.List(
        Integer(validate=validate.Range(0, 23)), validate=[validate.Length(2, 2), _quiet_window],
        allow_none=True, load_default=None,
        metadata={"description": f"[start, end) UTC hours that do not count, e.g. [22, 7]: start and end "
                                 f"differ and at most {MAX_QUIET_HOURS} hours are quiet"})
    vacation_days = Float(load_default=14, validate=validate.Range(min=0, max=365),
                                 metadata={"description": "each player's vacation allowance"})
    reminders_hours = fields.List(Float(validate=validate.Range(min=0.1, max=24 * 60)), load_default=[24, 2],
                                  validate=validate.Length(0, 5),
                                  metadata={"description": "reminder emails before the deadline"})


class TimeoutPolicy(Base):
    class Meta:
        unknown = ma.RAISE
    mode = Line(load_default="stand-in", validate=validate.OneOf(["stand-in", "drop"]), metadata={
        "description": "stand-in: the stand-in plays a late turn and the player keeps the seat; drop: after "
                       "drop_after missed deadlines the stand-in plays the seat for the rest of the game"})
    drop_after = Integer(load_default=3, validate=validate.Range(min=1, max=50))


class ServiceOptions(Base):
    """The options of the service, for every game."""
    class Meta:
        unknown = ma.RAISE
    time_control = fields.Nested(TimeControl, metadata={"description": "deadlines (docs/pbem.md)"})
    timeout = fields.Nested(TimeoutPolicy, metadata={"description": "what happens when a deadline passes"})
    seed = Name(validate=validate.Length(1, 200), metadata={
        "description": "fixed seed: only on a server run with --allow-seeded-games (tests, demos), else 422"})
    rated = Boolean(
        metadata={"description": "the game counts for ratings (default true; docs/tournaments.md)"})
    private = Boolean(metadata={"description": "listed nowhere (not in the lobby, not among the games in "
                                               "progress); a game with open seats is then joinable only with "
                                               "its invitation link (docs/lobby.md)"})
    waiting_days = Float(validate=validate.Range(min=0.0007, max=60), metadata={
        "description": "a game with open seats: cancelled when its seats are not all taken within this many "
                       "days (default 7; at least about a minute)"})
    rating_range = fields.List(Integer(validate=validate.Range(0, 4000)), validate=validate.Length(2, 2),
                               metadata={
        "description": "a rated game with open seats: [lowest, highest] rating (in the game's multiplayer "
                       "pool) of the addresses that may join", "example": [1400, 1700]})


# the service's options and every game's own, as the games declare them (api/schemas/setup.py): an
# option of one game given for another is refused by that game's setup (422 bad-options)
GameOptions = type("GameOptions", (ServiceOptions,), {
    "__doc__": "The service's options and each game's own (GET /api/v1/catalog: each game's option_specs "
               "and automa)", **GAME_OPTION_FIELDS})


class GameCreate(Base):
    game = Line(load_default=games.DEFAULT, validate=validate.OneOf(GAMES), metadata={
        "description": f"the game: {GAME_SEATS}; GET /api/v1/catalog lists them with their seat kinds "
                       "and options"})
    seats = fields.List(fields.Nested(SeatIn), required=True,
                        validate=validate.Length(FEWEST_SEATS, MOST_SEATS))
    options = fields.Nested(GameOptions, load_default=dict)

    @ma.validates_schema
    def _seat_count(self, data, **kwargs):
        """Each game's own number of seats, refused like any other bad field (a 5-seat Tiletum game
        is the 422 invalid-request naming ``seats`` that it always was)."""
        rules = games.GAMES.get(data.get("game") or games.DEFAULT)   # an unknown game is the field's error
        seats = data.get("seats") or []
        if rules is not None and not rules.min_players <= len(seats) <= rules.max_players:
            raise ma.ValidationError(
                said("a game of {game} has {min} to {max} seats", game=rules.title, min=rules.min_players,
                     max=rules.max_players), "seats")


class SeatCreated(Closed):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = fields.String(required=True, validate=validate.OneOf(SEAT_KINDS))
    token = fields.String(required=True, allow_none=True, metadata={
        "description": "secret Bearer token of this seat: shown once; null for the seat of a game's own "
                       "automa (the seats worker plays it with the bot credential), an AI seat or an "
                       "open seat"})


class GamesQuery(Base):
    status = fields.String(load_default="active", validate=validate.OneOf(["active"]), metadata={
        "description": "which games: `active`, the games in progress (the only list there is)"})
    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=50),
                         metadata={"description": "at most this many games, newest first"})


class PublicGame(Closed):
    id = fields.String(required=True, metadata={"description": "watch it at /play/{id}"})
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    round = fields.Integer(required=True)
    players = fields.List(fields.String(), required=True, metadata={
        "description": "the seats' names, by seat (what the game's page shows anyone)"})
    tournament = fields.String(required=True, allow_none=True,
                               metadata={"description": "its tournament's id, if any"})
    started = fields.String(required=True, metadata={"description": "when it was created (UTC, ISO 8601)",
                                                     "example": "2025-03-01T12:00:00Z"})


class PublicGames(Closed):
    games = fields.List(fields.Nested(PublicGame), required=True)


class GameCreated(Closed):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seed_commitment = fields.String(required=True, allow_none=True, metadata={
        "description": "SHA-256 of the secret seed; null for a game waiting for players (it has no seed "
                       "yet)"})
    seats = fields.List(fields.Nested(SeatCreated), required=True)
    status = fields.String(validate=validate.OneOf(["waiting"]), metadata={
        "description": "`waiting` for a game with open seats (it starts when they are all taken; "
                       "docs/lobby.md)"})
    creator_token = fields.String(metadata={
        "description": "a game with open seats: the creator's secret, shown once (remove a joined player "
                       "before the start: DELETE /api/v1/lobby/{game}/seats/{seat})"})
    invite_url = fields.String(metadata={
        "description": "a game with open seats: the path of the invitation link to send to friends (the only "
                       "way into a private game)",
                       "example": "/play/lobby#game=Xq3vTz8aBc1d&invite=nRBs49fWwZqf"})
    expires_at = fields.String(
        metadata={"description": "a game with open seats: when it is cancelled if its seats "
                                 "are not all taken (UTC, ISO 8601)"})


class SeatSummary(Closed):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = fields.String(required=True, validate=validate.OneOf(SEAT_KINDS))
    level = fields.String(metadata={"description": "an ai seat's level (docs/ai.md)"})
    score = fields.Integer(required=True)
    handle = fields.String(allow_none=True, metadata={
        "description": "the handle of the seat's player where their profile is public (their page: "
                       "/players/{handle}), else null; absent while the game waits for players"})


class GameSummary(Closed):
    id = fields.String(required=True)
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    status = fields.String(required=True, validate=validate.OneOf(GAME_STATUSES))
    version = fields.Integer(required=True)
    round = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(ANY_PHASE + ["waiting"]), metadata={
        "description": "; ".join(f"{g.title}: {', '.join(g.phases)}" for g in games.GAMES.values())
                       + "; waiting while the game waits for players (status waiting or cancelled)"})
    to_act = seat_list(required=True, metadata=TO_ACT)
    seats = fields.List(fields.Nested(SeatSummary), required=True)
    winner = fields.Integer(allow_none=True, required=True)
    seed_commitment = fields.String(required=True, allow_none=True, metadata={
        "description": "SHA-256 of the secret seed; null before the game starts (status waiting: no seed "
                       "exists yet)"})
    rated = fields.Boolean(required=True, metadata={
        "description": "whether the game counts for the ratings when it ends (created with options.rated, "
                       "every human seat with its own email address, no AI seat or bot account; "
                       "docs/tournaments.md, "
                       "Ratings). No hints in a rated game"})


class NewSeatToken(Base):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={
        "description": "the seat's new secret Bearer token: shown once; the old one no longer works"})


class NewSeatLink(Base):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    emailed = fields.Boolean(required=True, metadata={
        "description": "the email with the new link is on its way (false: no mail worker reachable now; "
                       "the old links are revoked all the same)"})


class NewDashboardKey(Base):
    player = fields.String(required=True)
    emailed = fields.Boolean(required=True, metadata={
        "description": "the email with the new dashboard link is on its way"})


class Fairness(Closed):
    seed_commitment = fields.String(required=True)
    algorithm = fields.String(required=True)
    finished = fields.Boolean(required=True)
    seed = fields.String(allow_none=True, required=True,
                         metadata={"description": "revealed when the game is over"})
    verify = fields.String(allow_none=True, required=True,
                           metadata={"description": "a command that checks every outcome"})
