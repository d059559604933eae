"""/api/v1/tournaments: create tournaments, enter and withdraw, read rounds and standings."""
from __future__ import annotations

import flask
from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import tournaments
from ..problems import documented
from ..schemas.common import PageQuery
from ..schemas.tournaments import (EntryConfirmIn, EntryPending, MyGames, StandingsOut, TournamentCreate,
                                   TournamentCreated, TournamentEntry, TournamentEntryIn, TournamentList,
                                   TournamentOut, WithdrawIn, Withdrawn)
from ..auth import bearer

blp = Blueprint("tournaments", __name__, url_prefix="/api/v1/tournaments",
                description="Correspondence tournaments: rounds, games and standings")

PLAYER_A, PLAYER_B = "p3f2a9c0d81e4b7a6", "p91c0e5d2a7b3f418"
TOURNAMENT = {
    "id": "T4kq9ZpLm2Qx", "name": "Winter Swiss", "game": "tiletum", "format": "swiss", "table_size": 2,
    "rounds_planned": 4, "status": "running", "rated": True, "start_at": 1799582400.0, "round_days": 45.0,
    "time_control": {"days_per_move": 3}, "timeout": None, "invitations": True, "version": 9,
    "players": [{"player": PLAYER_A, "name": "Ann", "withdrawn": False},
                {"player": PLAYER_B, "name": "Bob", "withdrawn": False}],
    "rounds": [{"round": 1, "closed": True, "started": 1799582400.0, "deadline": 1803470400.0, "byes": [],
                "tables": [{"table": 1, "game": "T4kq9ZpLm2Qxr1t1", "players": [PLAYER_A, PLAYER_B],
                            "result": {"scores": [61, 54], "finish": [1, 2], "adjudicated": False,
                                       "forfeits": []}}]}],
}
STANDING = {"rank": 1, "player": PLAYER_A, "name": "Ann", "points": 1.0, "games": 1, "vp": 61.0,
            "buchholz": 0.0, "sonneborn_berger": 0.0, "head_to_head": 1.0, "byes": 0, "withdrawn": False}
TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}]
OPTIONAL_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}, {}]


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


@blp.route("")
class Tournaments(MethodView):
    @blp.doc(operationId="createTournament")
    @blp.arguments(TournamentCreate, example={
        "name": "Winter Swiss", "format": "swiss", "rounds": 4, "table_size": 3,
        "time_control": {"days_per_move": 3}, "round_days": 45, "start_at": "2027-01-10T12:00:00+00:00",
        "entries": [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}],
        "invite": True})
    @blp.response(201, TournamentCreated, example={
        "id": "T4kq9ZpLm2Qx", "organizer_token": "Zs0Ex9DExjO3H0UvpNLxjFzHGRwIrAYj", "status": "open",
        "players": [{"player": PLAYER_A, "name": "Ann"}, {"player": PLAYER_B, "name": "Bob"}],
        "invite_code": "nRBs49fWwZqfiNTq9Te4ae17"})
    @err(400, "invalid-request", "the body is not JSON")
    @err(413, "payload-too-large", "the body is larger than the server accepts (TABLEPOST_MAX_BODY)")
    @err(422, "invalid-request", "invalid request: a Swiss without rounds (bad-tournament), an email entered "
              "twice (duplicate-entry), a seed on a server without --allow-seeded-games, an entrant's name "
              "that looks like a URL, a domain or an email address (name-not-allowed)")
    def post(self, body):
        """Create a tournament

        Name, format (round robin, Swiss for N rounds, knockout), players per game, time control,
        timeout policy, start date and round deadline, the entry list by email, and optionally an
        invitation code. Returns the organizer's secret token, shown only here.
        """
        if body.get("start_at") is not None:
            body["start_at"] = body["start_at"].timestamp()
        return tournaments().create(body)

    @blp.doc(operationId="listTournaments")
    @blp.arguments(PageQuery, location="query")
    @blp.response(200, TournamentList, example={"tournaments": [
        {"id": "T4kq9ZpLm2Qx", "name": "Winter Swiss", "game": "tiletum", "format": "swiss",
         "status": "running", "players": 2, "rounds_played": 1}]})
    @err(422, "invalid-request", "a bad offset or limit")
    def get(self, query):
        """List tournaments

        The newest first: id, name, format, status, the number of players and rounds played.
        """
        return {"tournaments": tournaments().list(query["offset"], query["limit"])}


@blp.route("/<string:tid>")
class Tournament(MethodView):
    @blp.doc(operationId="getTournament")
    @blp.response(200, TournamentOut, example=TOURNAMENT)
    @err(404, "tournament-not-found", "unknown tournament")
    def get(self, tid):
        """Read a tournament

        Its settings, players (public ids and names), and every round with its tables, games and
        results.
        """
        return tournaments().view(tid)


@blp.route("/<string:tid>/standings")
class Standings(MethodView):
    @blp.doc(operationId="getTournamentStandings")
    @blp.response(200, StandingsOut, example={"id": "T4kq9ZpLm2Qx", "format": "swiss", "status": "running",
                                              "rounds_played": 1, "standings": [STANDING]})
    @err(404, "tournament-not-found", "unknown tournament")
    def get(self, tid):
        """Read the standings

        Best first: points by finishing place, then total VP, then Buchholz (Swiss, knockout) or
        Sonneborn-Berger (round robin), then head-to-head (docs/tournaments.md).
        """
        return tournaments().standings(tid)


@blp.route("/<string:tid>/start")
class Start(MethodView):
    @blp.doc(operationId="startTournament", security=TOKEN)
    @blp.response(200, TournamentOut, example=TOURNAMENT)
    @err(401, "unauthorized", "no or wrong organizer token")
    @err(404, "tournament-not-found", "unknown tournament")
    @err(409, "already-started", "the tournament has started already (or too-few-players: fewer than 2; "
                                 "tournament-busy: another process held it for 10 s, nothing changed)")
    def post(self, tid):
        """Start a tournament now

        The organizer pairs round 1 and starts its games (otherwise this happens at the start
        date).
        """
        return tournaments().start(tid, bearer())


@blp.route("/<string:tid>/entries")
class Entries(MethodView):
    @blp.doc(operationId="enterTournament", security=OPTIONAL_TOKEN)
    @blp.arguments(TournamentEntryIn,
                   example={"name": "Cy", "email": "cy@example.org", "invite": "code-from-the-link"})
    @blp.response(201, TournamentEntry, description="entered by the organizer (the organizer's token)",
                  example={"player": "p0c4b5f5006c48af2", "name": "Cy",
                           "entry_token": "9Hlt1FpbmEIrbv_9hyNv7Lzi"})
    @blp.alt_response(202, schema=EntryPending, description="asked with the invitation code: the same "
                      "for any address; its owner is emailed the link that confirms the entry (or, when "
                      "it is entered already, its private page)",
                      example={"tournament": "T4kq9ZpLm2Qx", "status": "pending", "emailed": True})
    @err(400, "invalid-request", "the body is not JSON")
    @err(403, "bad-invitation", "no or wrong invitation code, and no organizer token")
    @err(404, "tournament-not-found", "unknown tournament")
    @err(409, "entries-closed", "the tournament has started (or, to the organizer, already-entered: this "
                                "email is in)")
    @err(413, "payload-too-large", "the body is larger than the server accepts (TABLEPOST_MAX_BODY)")
    @err(422, "invalid-request", "a missing name or a bad email address; name-not-allowed: a name that looks "
                                 "like a URL, a domain or an email address")
    def post(self, body, tid):
        """Enter a tournament

        By the organizer (organizer's token): the player is entered at once (201, with the
        player's secret entry token; they are emailed their private page). With the invitation
        code: 202, the same for any address (whether it is entered already is for its owner
        alone); the address is emailed a link that confirms the entry
        (`POST /api/v1/tournaments/{id}/entries/confirm`), or its private page when it is in
        already.
        """
        out = tournaments().enter(tid, bearer(), body)
        if out.get("status") == "pending":
            resp = flask.jsonify(out)
            resp.status_code = 202
            return resp
        return out


@blp.route("/<string:tid>/entries/confirm")
class EntryConfirm(MethodView):
    @blp.doc(operationId="confirmTournamentEntry")
    @blp.arguments(EntryConfirmIn, example={"token": "q0b8cM1xI4yV.Zk3b9dQe1xT2mVb7nL0pWq4s"})
    @blp.response(201, TournamentEntry, example={"player": "p0c4b5f5006c48af2", "name": "Cy",
                                                 "entry_token": "9Hlt1FpbmEIrbv_9hyNv7Lzi"})
    @err(400, "invalid-request", "the body is not JSON")
    @err(404, "tournament-not-found", "unknown tournament")
    @err(409, "entries-closed", "the tournament has started")
    @err(413, "payload-too-large", "the body is larger than the server accepts (TABLEPOST_MAX_BODY)")
    @err(422, "invalid-request", "no token; bad-entry-link: not a valid link (or it expired)")
    def post(self, body, tid):
        """Confirm an entry

        The link emailed to an address asked to enter with the invitation code was opened: its
        owner is entered (once; opened again, or by an address entered meanwhile, it gives the
        entry as it is), with the player's secret entry token.
        """
        return tournaments().confirm_entry(tid, body["token"])


@blp.route("/<string:tid>/my-games")
class MyGamesView(MethodView):
    @blp.doc(operationId="getMyTournamentGames", security=TOKEN)
    @blp.response(200, MyGames, example={"player": PLAYER_A, "withdrawn": False, "games": [
        {"round": 1, "table": 1, "game": "T4kq9ZpLm2Qxr1t1", "seat": 0, "token": "mV3xQ0b8cM1xI4yVtq5tJ1Yk",
         "finished": True}]})
    @err(401, "unauthorized", "no or wrong entry token")
    @err(404, "tournament-not-found", "unknown tournament")
    def get(self, tid):
        """List your games

        Your tournament games with your seat token in each (Bearer entry token).
        """
        return tournaments().my_games(tid, bearer())


@blp.route("/<string:tid>/withdrawals")
class Withdrawals(MethodView):
    @blp.doc(operationId="withdrawFromTournament", security=TOKEN)
    @blp.arguments(WithdrawIn, example={})
    @blp.response(200, Withdrawn, example={"player": PLAYER_A, "withdrawn": True})
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or wrong entry token (or organizer token)")
    @err(404, "tournament-not-found", "unknown tournament (or player-not-found)")
    @err(409, "already-withdrawn", "the player has withdrawn already (or tournament-finished)")
    @err(413, "payload-too-large", "the body is larger than the server accepts (TABLEPOST_MAX_BODY)")
    @err(422, "invalid-request", "an invalid body")
    def post(self, body, tid):
        """Withdraw from a tournament

        With your entry token you withdraw; with the organizer's token, the player named in the
        body. Unfinished games go to the stand-in; later rounds are paired without the player.
        """
        return tournaments().withdraw(tid, bearer(), body.get("player"))
