"""The player dashboard (/api/v1/me): your games, vacation, notifications, handle, account and its export."""
from __future__ import annotations

from marshmallow import fields, validate

from tablepost import i18n
from application.time_control import valid_tz

from .common import ANY_PHASE, Base, Boolean, GAMES, Line, Name, TO_ACT, TO_ACT_WORDS, raise_tz, seat_list
from .review import Reliability


class VacationIn(Base):
    on = Boolean(required=True, metadata={"description": "start (true) or stop (false) your vacation"})


class Vacation(Base):
    on = fields.Boolean(required=True)
    used_days = fields.Float(required=True)
    allowance_days = fields.Float(required=True)


class NotificationsIn(Base):
    mode = Line(required=True, validate=validate.OneOf(["move", "digest", "none"]), metadata={
        "description": "move: an email whenever it is your decision; digest: one email a day; none"})
    delay_minutes = fields.Integer(strict=True, validate=validate.Range(0, 1440), metadata={
        "description": "with `move`: while you play live (you acted on the game's page or through the API "
                       "in the last few minutes, or its page is open), your turn email waits this many "
                       "minutes, and goes once you are no longer live; 0: at once. Left out: "
                       "unchanged (the service's default is 5)"})
    language = Line(allow_none=True, validate=validate.OneOf(list(i18n.LANGUAGES)), metadata={
        "description": "your emails' language, in every game (docs/i18n.md); null: each seat's, else "
                       "English. Left out: unchanged", "example": "de"})
    time_zone = Line(allow_none=True, validate=lambda v: valid_tz(v) or raise_tz(v), metadata={
        "description": "your emails' IANA time zone (their dates and deadlines), in every game; null: each "
                       "seat's, else UTC. Left out: unchanged", "example": "Europe/Berlin"})


class Notifications(Base):
    mode = fields.String(required=True)
    delay_minutes = fields.Integer(required=True, metadata={
        "description": "minutes a turn email waits while you play live (0: at once)"})
    language = fields.String(allow_none=True, metadata={
        "description": "your emails' language (null: each game's seat's, else English); on the dashboard"})
    time_zone = fields.String(allow_none=True, metadata={
        "description": "your emails' time zone (null: each game's seat's, else UTC); on the dashboard"})


# --- the player dashboard (/api/v1/me) -----------------------------------------------------------

class MeGame(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True, validate=validate.OneOf(GAMES), metadata={
        "description": f"which game it is: {', '.join(GAMES)} (`game` is the game's id)"})
    seat = fields.Integer(required=True, metadata={"description": "your seat in this game"})
    name = fields.String(required=True, metadata={"description": "your seat's name"})
    opponents = fields.List(fields.String(), required=True,
                            metadata={"description": "the other seats' names"})
    round = fields.Integer(required=True)
    progress = fields.String(required=True, metadata={
        "description": "how far the game is, in the game's own terms (\"Round 2 of 4\", \"43 tiles left\")"})
    phase = fields.String(required=True, validate=validate.OneOf(ANY_PHASE))
    version = fields.Integer(required=True)
    to_act = seat_list(required=True,
                        metadata={**TO_ACT, "description": TO_ACT_WORDS + ". Changed in "
                        "API 2.0: it was the name of the seat to act, which `to_act_names` gives"})
    to_act_names = fields.List(fields.String(), required=True, metadata={
        "description": "the names of the seats in `to_act`, in the same order", "example": ["Ada"]})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "when the seat to act must have moved (UTC); null: none set"})
    on_vacation = fields.Boolean(required=True,
                                 metadata={"description": "your seat is on vacation in this game"})
    tournament = fields.String(required=True, allow_none=True)
    play_url = fields.String(required=True, metadata={
        "description": "the game page opened as your seat: /play/<game>#token=<seat link token>"})


class MePlace(Base):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    score = fields.Integer(required=True)
    place = fields.Integer(required=True)


class MeFinished(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True, validate=validate.OneOf(GAMES), metadata={
        "description": f"which game it is: {', '.join(GAMES)} (`game` is the game's id)"})
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    opponents = fields.List(fields.String(), required=True)
    round = fields.Integer(required=True)
    version = fields.Integer(required=True)
    tournament = fields.String(required=True, allow_none=True)
    place = fields.Integer(required=True, metadata={"description": "your finishing place (1 = won)"})
    score = fields.Integer(required=True, metadata={"description": "your final score"})
    winner = fields.String(required=True, allow_none=True)
    places = fields.List(fields.Nested(MePlace), required=True,
                         metadata={"description": "every seat, by place"})
    play_url = fields.String(required=True)


class MeUndeliverable(Base):
    subject = fields.String(required=True, metadata={"description": "the subject of the email"})
    queued_at = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "when the service first tried to send it (UTC)"})
    given_up_at = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "when the service stopped trying (UTC)"})
    reason = fields.String(required=True, metadata={"description": "the last error from the mail server"})


class MeHeld(Base):
    kind = fields.String(required=True, metadata={
        "description": "the kind of email (turn, reminder, stand-in, final, newlink, talk, lobby-join, "
                       "lobby-cancelled, twelcome, tentry-ask, digest, webhook-off)"})
    what = fields.String(required=True, metadata={"description": "the kind in words"})
    reason = fields.String(required=True, metadata={
        "description": "consent, consent-limit, budget, budget-needed or refused (docs/pbem.md, "
                       "\"Email by consent\")"})
    why = fields.String(required=True, metadata={"description": "the reason in words"})
    game = fields.String(required=True, allow_none=True)
    seat = fields.Integer(required=True, allow_none=True)
    at = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})


class HeldEmails(Base):
    seat = fields.Integer(required=True)
    held = fields.List(fields.Nested(MeHeld), required=True, metadata={
        "description": "emails of this game held back from your address, newest first, and why"})


class MeNotStarted(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True, validate=validate.OneOf(GAMES))
    seat = fields.Integer(required=True, metadata={"description": "your seat"})
    name = fields.String(required=True, metadata={"description": "your name at the table"})
    players = fields.Integer(required=True, metadata={"description": "the players wanted (seats in all)"})
    open_seats = fields.Integer(required=True)
    seats_taken = fields.List(fields.String(), required=True, metadata={"description": "names, yours too"})
    created_at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    expires_at = fields.String(required=True, metadata={"description": "when it is cancelled if not full"})
    play_url = fields.String(required=True, metadata={
        "description": "the game's page as your seat (/play/{id}#token=...)"})


class MeGames(Base):
    player = fields.String(required=True, metadata={"description": "your public player id"})
    to_move = fields.List(fields.Nested(MeGame), required=True, metadata={
        "description": "games where you are to act, most urgent deadline first (no deadline last)"})
    waiting = fields.List(fields.Nested(MeGame), required=True, metadata={
        "description": "games in progress waiting on others, newest first"})
    finished = fields.List(fields.Nested(MeFinished), required=True, metadata={"description": "newest first"})
    not_started = fields.List(fields.Nested(MeNotStarted), required=True, metadata={
        "description": "games waiting for players in which you have a seat (you posted them or joined them), "
                       "newest first; a game leaves this list when it starts or is cancelled"})
    undeliverable = fields.List(fields.Nested(MeUndeliverable), metadata={
        "description": "emails to your address that could not be delivered for 48 hours (the service "
                       "gave up on them), newest first: check your address and your spam filter"})
    held = fields.List(fields.Nested(MeHeld), metadata={
        "description": "emails the service held back from your address, newest first, and why: it had "
                       "not accepted our email yet, or too many came in a short time (docs/pbem.md, "
                       "\"Email by consent\")"})


class MeVacationGame(Base):
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    ok = fields.Boolean(required=True, metadata={"description": "the change was made in this game"})
    code = fields.String(required=True, allow_none=True, metadata={
        "description": "why not (no-vacation-left: the game's allowance is used up); null when ok"})
    detail = fields.String()
    on = fields.Boolean(required=True, metadata={"description": "your seat is now on vacation in this game"})
    used_days = fields.Float(required=True)
    allowance_days = fields.Float(required=True)


class MeVacation(Base):
    on = fields.Boolean(required=True, metadata={"description": "what was asked"})
    all_applied = fields.Boolean(required=True, metadata={"description": "every game took the change"})
    games = fields.List(fields.Nested(MeVacationGame), required=True, metadata={
        "description": "one entry per seat of yours in a game in progress"})


class HandleIn(Base):
    handle = Name(required=True, validate=validate.Length(max=100), metadata={
        "description": "your public handle, chosen once: 3 to 20 letters (a-z, A-Z), digits, '_' or '-', "
                       "unique without regard to case"})


class ProfileIn(Base):
    public = Boolean(required=True,
                     metadata={"description": "show your profile at /players/<handle> (true) or "
                                              "only your handle (false)"})


class ProfileSettings(Base):
    handle = fields.String(required=True, allow_none=True,
                           metadata={"description": "null until you choose one"})
    public = fields.Boolean(required=True)
    profile_url = fields.String(required=True, allow_none=True)


class DeleteAccountIn(Base):
    confirm = Line(required=True, validate=validate.Length(max=100), metadata={
        "description": "the word DELETE: the deletion cannot be undone"})


class AccountDeleted(Base):
    deleted = fields.Boolean(required=True)
    games_finished = fields.Integer(required=True, metadata={
        "description": "finished games whose moves stay, under 'a former player'"})
    games_running = fields.Integer(required=True, metadata={
        "description": "games in progress whose seat the stand-in now plays to the end"})
    tournaments = fields.Integer(required=True, metadata={
        "description": "tournaments entered: withdrawn from those not over, and in all of them the entry "
                       "renamed 'a former player' (points kept)"})
    bots_deleted = fields.Integer(required=True)


class ExportMessage(Base):   # the table talk (issue 41; api/schemas/messages.py)
    id = fields.Integer(required=True)
    text = fields.String(required=True)
    at = fields.String(required=True)


class ExportGame(Base):
    game = fields.String(required=True)
    game_name = fields.String(required=True)
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    time_zone = fields.String(allow_none=True)
    created = fields.String(allow_none=True)
    finished = fields.Boolean(required=True)
    version = fields.Integer(required=True)
    result = fields.Dict(allow_none=True)
    seat_state = fields.Dict(required=True, metadata={"description": "missed deadlines, dropped, vacation"})
    moves = fields.List(fields.String(), required=True,
                        metadata={"description": "your seat's moves, in order"})
    messages = fields.List(fields.Nested(ExportMessage), required=True,
                           metadata={"description": "your seat's messages to the table, in order"})
    url = fields.String(required=True)
    record = fields.String(required=True)


class AccountExport(Base):
    exported_at = fields.String(required=True)
    player = fields.String(required=True)
    email = fields.String(required=True, metadata={"description": "your address (in your own export only)"})
    handle = fields.String(allow_none=True)
    profile_public = fields.Boolean(required=True)
    member_since = fields.String(allow_none=True)
    settings = fields.Dict(required=True,
                           metadata={"description": "notifications, delay_minutes (the wait of a turn email "
                                                    "while playing live), and when the address was verified"})
    games = fields.List(fields.Nested(ExportGame), required=True)
    ratings = fields.Dict(required=True,
                          metadata={"description": "by pool: rating, rd, vol, games and every rated game"})
    bots = fields.List(fields.Dict(), required=True, metadata={"description": "the bot accounts you own"})
    undeliverable = fields.List(fields.Dict(), required=True)
    reliability = fields.Nested(Reliability, metadata={"description": "how reliably you play"})
