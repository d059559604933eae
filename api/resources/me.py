"""/api/v1/me: a player's dashboard over the API (the dashboard key as Bearer token), and the
page /me that shows it (docs/pbem.md, "Your dashboard")."""
from __future__ import annotations

from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import accounts, credentials, dashboard, profiles
from ..language import request_language
from ..problems import documented
from ..auth import bearer
from ..schemas.games import NewDashboardKey
from ..schemas.me import (AccountDeleted, AccountExport, DeleteAccountIn, HandleIn, MeGames, MeVacation,
                          Notifications, NotificationsIn, ProfileIn, ProfileSettings, VacationIn)

blp = Blueprint("me", __name__, url_prefix="/api/v1/me",
                description="Your dashboard: your games, email setting, vacation, handle and profile, your "
                            "data (dashboard key)")

KEY: list[dict[str, list[str]]] = [{"dashboardKey": []}]
SECURITY_SCHEME = {"type": "http", "scheme": "bearer",
                   "description": "your private dashboard key, from the /me#key=... link in your emails"}
EXAMPLE_GAME = {"game": "Xq3vTz8aBc1d", "game_name": "tiletum", "seat": 1, "name": "Ada",
                "opponents": ["Bob"], "round": 2, "progress": "Round 2 of 4",
                "phase": "action", "version": 41, "to_act": [1], "to_act_names": ["Ada"],
                "deadline": "2025-03-07T18:00:00Z", "on_vacation": False, "tournament": None,
                "play_url": "/play/Xq3vTz8aBc1d#token=L1.mfrggzdfmztwq2lknnwg23tpobyxe43u"}
EXAMPLE_FINISHED = {"game": "Pk2mWn7cDe4f", "game_name": "carcassonne", "seat": 0, "name": "Ada",
                    "opponents": ["Bob", "Cy"], "round": 7,
                    "version": 612, "tournament": None, "place": 1, "score": 142, "winner": "Ada",
                    "places": [{"seat": 0, "name": "Ada", "score": 142, "place": 1},
                               {"seat": 2, "name": "Cy", "score": 131, "place": 2},
                               {"seat": 1, "name": "Bob", "score": 120, "place": 3}],
                    "play_url": "/play/Pk2mWn7cDe4f#token=L0.mfrggzdfmztwq2lknnwg23tpobyxe43u"}

EXAMPLE_NOT_STARTED = {"game": "Rt5kLm2nPq8s", "game_name": "tiletum", "seat": 0, "name": "Ada", "players": 3,
                       "open_seats": 1, "seats_taken": ["Ada", "Bob"], "created_at": "2025-03-01T12:00:00Z",
                       "expires_at": "2025-03-08T12:00:00Z",
                       "play_url": "/play/Rt5kLm2nPq8s#token=L0.mfrggzdfmztwq2lknnwg23tpobyxe43u"}


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


def key() -> str | None:
    """The dashboard key sent as a Bearer token, if any."""
    return bearer("dashboard key")


@blp.route("/games")
class MyGames(MethodView):
    @blp.doc(operationId="getMyGames", security=KEY)
    @blp.response(200, MeGames, example={"player": "p0123456789abcdef", "to_move": [EXAMPLE_GAME],
                                         "waiting": [], "finished": [EXAMPLE_FINISHED],
                                         "not_started": [EXAMPLE_NOT_STARTED], "undeliverable": []})
    @err(401, "unauthorized", "no or bad dashboard key")
    def get(self):
        """List your games

        Every game of your email address: those where you are to act (most urgent deadline
        first), those waiting on others, finished ones with their results, and the games waiting
        for players that you posted or joined (`not_started`, docs/lobby.md). Each has a link
        that opens the game page as your seat.
        """
        return dashboard().games_of(key(), request_language())


@blp.route("/notifications")
class MyNotifications(MethodView):
    @blp.doc(operationId="getMyNotifications", security=KEY)
    @blp.response(200, Notifications, example={"mode": "move", "delay_minutes": 5})
    @err(401, "unauthorized", "no or bad dashboard key")
    def get(self):
        """Read your email setting

        `move` (an email whenever it is your decision), `digest` (one email a day) or `none`;
        `delay_minutes`: while you play live, how long a turn email waits (0: at once); `language`
        and `time_zone`: your emails' language and time zone (null: each seat's; docs/i18n.md).
        """
        return dashboard().notifications(key())

    @blp.doc(operationId="setMyNotifications", security=KEY)
    @blp.arguments(NotificationsIn, example={"mode": "move", "delay_minutes": 10})
    @blp.response(200, Notifications, example={"mode": "move", "delay_minutes": 10})
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or bad dashboard key")
    @err(413, "payload-too-large", "the body is too large")
    @err(422, "invalid-request", "mode is not one of move, digest, none, delay_minutes is not 0 to 1440, "
                                 "language is not a supported language or time_zone not an IANA time zone")
    def put(self, body):
        """Choose your emails

        The setting of your email address, for all its games (the same setting as a game's
        `PUT .../notifications`).
        """
        chosen = {name: body[field] for name, field in (("lang", "language"), ("tz", "time_zone"))
                  if field in body}
        return dashboard().set_notifications(key(), body["mode"], body.get("delay_minutes"), **chosen)


@blp.route("/vacation")
class MyVacation(MethodView):
    @blp.doc(operationId="setMyVacation", security=KEY)
    @blp.arguments(VacationIn, example={"on": True})
    @blp.response(200, MeVacation, example={"on": True, "all_applied": False, "games": [
        {"game": "Xq3vTz8aBc1d", "seat": 1, "ok": True, "code": None, "on": True, "used_days": 2.5,
         "allowance_days": 14.0},
        {"game": "Pk2mWn7cDe4f", "seat": 0, "ok": False, "code": "no-vacation-left",
         "detail": "no vacation time left", "on": False, "used_days": 14.0, "allowance_days": 14.0}]})
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or bad dashboard key")
    @err(413, "payload-too-large", "the body is too large")
    @err(422, "invalid-request", "on is not a boolean")
    def put(self, body):
        """Start or stop your vacation everywhere

        Starts (or stops) your vacation in every game of yours in progress, each game on its
        own: games where it cannot be done (the allowance is used up) are listed with a `code`,
        the others are done; nothing is undone. Games created later are not affected.
        """
        return dashboard().vacation(key(), body["on"])


@blp.route("/key")
class MyKey(MethodView):
    @blp.doc(operationId="renewMyKey", security=KEY)
    @blp.response(202, NewDashboardKey, example={"player": "p0123456789abcdef", "emailed": True})
    @err(401, "unauthorized", "no or bad dashboard key")
    def post(self):
        """Revoke your dashboard key and email a new link

        Your dashboard key stops working at once; the new `/me#key=` link goes by email to your
        address only. Your seats' links and tokens are unaffected.
        """
        return credentials().new_dashboard_key(key())


@blp.route("/profile")
class MyProfile(MethodView):
    @blp.doc(operationId="getMyProfile", security=KEY)
    @blp.response(200, ProfileSettings,
                  example={"handle": "ada_l", "public": True, "profile_url": "/players/ada_l"})
    @err(401, "unauthorized", "no or bad dashboard key")
    def get(self):
        """Read your handle and profile setting

        Your public handle (null until you choose one) and whether your profile is public.
        """
        pid, _ = dashboard().player(key())
        return profiles().settings(pid)

    @blp.doc(operationId="setMyProfile", security=KEY)
    @blp.arguments(ProfileIn, example={"public": True})
    @blp.response(200, ProfileSettings,
                  example={"handle": "ada_l", "public": True, "profile_url": "/players/ada_l"})
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or bad dashboard key")
    @err(409, "no-handle", "choose a handle first")
    @err(413, "payload-too-large", "the body is too large")
    @err(422, "invalid-request", "public is not a boolean")
    def put(self, body):
        """Make your profile public, or private again

        A public profile (`/players/<handle>`) shows your ratings with their history, your finished
        games and your games in progress; a private one shows your handle only. Never your address.
        """
        pid, _ = dashboard().player(key())
        return profiles().set_public(pid, body["public"])


@blp.route("/handle")
class MyHandle(MethodView):
    @blp.doc(operationId="chooseMyHandle", security=KEY)
    @blp.arguments(HandleIn, example={"handle": "ada_l"})
    @blp.response(200, ProfileSettings,
                  example={"handle": "ada_l", "public": False, "profile_url": "/players/ada_l"})
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or bad dashboard key")
    @err(409, "handle-taken", "another player has this handle (in any case); or handle-already-chosen")
    @err(413, "payload-too-large", "the body is too large")
    @err(422, "bad-handle", "not 3 to 20 letters, digits, '_' or '-', or a reserved word")
    def put(self, body):
        """Choose your public handle

        Once: 3 to 20 letters (a-z, A-Z), digits, `_` or `-`, unique without regard to case. Of
        simultaneous claims of one handle exactly one wins; the others get `409 handle-taken`. The
        same claim again answers the same; another handle once you have one is `409
        handle-already-chosen`. Your profile stays private until you make it public.
        """
        pid, _ = dashboard().player(key())
        return profiles().claim(pid, body["handle"])


@blp.route("/export")
class MyData(MethodView):
    @blp.doc(operationId="exportMyData", security=KEY)
    @blp.response(200, AccountExport)
    @err(401, "unauthorized", "no or bad dashboard key")
    def get(self):
        """Download your data

        Everything the service holds about your address, as JSON: the address, handle and
        profile setting, email setting, every game you had a seat in (your seat, its name, time
        zone, moves, deadline state and the result), your ratings in every pool with their
        history, the bot accounts you own and the emails that could not be delivered to you.
        """
        out = accounts().export(key())
        return out, 200, {"Content-Disposition": 'attachment; filename="tablepost-my-data.json"',
                          "Cache-Control": "no-store"}


@blp.route("")
class MyAccount(MethodView):
    @blp.doc(operationId="deleteMyAccount", security=KEY)
    @blp.arguments(DeleteAccountIn, example={"confirm": "DELETE"})
    @blp.response(200, AccountDeleted, example={"deleted": True, "games_finished": 3, "games_running": 1,
                                                "tournaments": 1, "bots_deleted": 0})
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or bad dashboard key")
    @err(409, "tournament-busy", "a tournament the address entered stayed busy: nothing lost, send it again")
    @err(413, "payload-too-large", "the body is too large")
    @err(422, "confirmation-required", "confirm is not the word DELETE")
    def delete(self, body):
        """Delete your account

        With `{"confirm": "DELETE"}`; it cannot be undone. Your address, handle, profile, email
        setting and ratings are removed, and your dashboard key stops working. Finished games keep
        their moves under "a former player"; in games still running the stand-in plays your
        seat to the end. Bot accounts you own are deleted. In the tournaments you entered you are
        withdrawn (those not over yet) and your entry is renamed "a former player", points kept.
        A deletion cut short (`409 tournament-busy`, or an error) is finished by sending it again.
        """
        return accounts().delete(key(), body["confirm"])
