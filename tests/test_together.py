"""Playing together (issue 41) over the API on a real Redis: resigning in 2- and 4-player games
with their ratings, AI seats that nobody can make resign, the rematch (proposed, accepted, started
once, idempotent, lapsing), and the replay: every step of a finished game of each title, and of a
running one, as each seat and a spectator saw it then (``GET /state?version=N`` answers byte for
byte what ``GET /state`` answered at that version; ``GET /board.svg?version=N`` likewise)."""
from __future__ import annotations

import threading
import time

import pytest

import games
from application.finished import on_game_over
from application.rating_service import RatingService, game_pool, pool_key
from application.together import REMATCH_DAYS, Together
from carcassonne.playout import random_game as carcassonne_game
from pillars.playout import random_game as pillars_game
from tests.conftest import make_app
from tiletum.playout import random_game as tiletum_game

API = "/api/v1/games"
AI_TOKEN = "ai-credential-for-together-tests"
PLAYOUTS = {"tiletum": tiletum_game, "carcassonne": carcassonne_game, "pillars": pillars_game}


@pytest.fixture()
def app(redis_server, redis_client):
    for k in redis_client.scan_iter("LIMITER*"):
        redis_client.delete(k)
    return make_app(redis_server.url, AI_TOKEN=AI_TOKEN, RATE_LIMIT=0)


def bearer(token):
    return {"Authorization": f"Bearer {token}"} if token else {}


def create(c, game: str, seats: list[dict], **options) -> tuple[str, list[str | None]]:
    rv = c.post(API, json={"game": game, "seats": seats, "options": options})
    assert rv.status_code == 201, rv.json
    return rv.json["id"], [s["token"] for s in rv.json["seats"]]


def people(n: int, tag: str) -> list[dict]:
    """``n`` human seats with addresses of their own (a rated game), new to the ratings."""
    stamp = time.time_ns()
    return [{"name": f"P{i}", "email": f"p{i}-{tag}-{stamp}@together.test"} for i in range(n)]


def rating(svc, game: str, email: str) -> float:
    from application.players import player_id
    import json
    raw = svc.store.r.hget(pool_key(game_pool(game)),
                           player_id(svc.store.r, email))
    return json.loads(raw)["rating"]


# --- resigning -----------------------------------------------------------------------------------

@pytest.mark.parametrize("game", list(games.NAMES))
def test_a_resignation_in_a_two_player_game_makes_the_other_the_winner_and_counts_as_a_loss(app, game):
    c, svc = app.test_client(), app.extensions["tablepost.service"]
    seats = people(2, f"two-{game}")
    gid, tokens = create(c, game, seats)
    assert c.post(f"{API}/{gid}/resign").status_code == 401
    assert c.post(f"{API}/{gid}/resign", headers=bearer("not-a-token")).json["code"] == "unauthorized"
    assert c.post(f"{API}/nosuchgame/resign", headers=bearer(tokens[0])).status_code == 404
    assert c.get(f"{API}/{gid}/events").json["events"][-1]["version"] == 1, "the refusals changed nothing"
    rv = c.post(f"{API}/{gid}/resign", headers=bearer(tokens[0]))
    assert rv.status_code == 200, rv.json
    assert rv.json == {"game": gid, "seat": 0, "version": 2, "status": "finished", "winner": 1}
    summary = c.get(f"{API}/{gid}").json
    assert summary["status"] == "finished" and summary["winner"] == 1 and summary["to_act"] == []
    last = c.get(f"{API}/{gid}/events").json["events"][-1]
    assert last == {"version": 2, "type": "SeatResigned", "seat": 0, "winner": 1,
                    "text": "P0 resigned; P1 wins"}
    for t in tokens:   # over: nobody resigns any more, and nothing is played
        again = c.post(f"{API}/{gid}/resign", headers=bearer(t))
        assert again.status_code == 409 and again.json["code"] == "game-over", again.json
    assert c.get(f"{API}/{gid}").json["version"] == 2
    # the record says it, and still verifies every draw from the revealed seed
    record = c.get(f"{API}/{gid}/record").get_data(as_text=True)
    assert '[Resigned "0 at 2"]' in record
    assert games.get(game).verify_record(record) == []
    # the ratings: a loss for the seat that resigned, whatever the score
    on_game_over(svc, gid)
    assessed = RatingService(svc).assess(gid)
    assert assessed["result"]["finish"] == [2, 1]
    assert rating(svc, game, seats[1]["email"]) > 1500 > rating(svc, game, seats[0]["email"])
    # and the player's own list of games places the seat that resigned last, whatever its score
    from application.dashboard import dashboard_key_for
    for seat, place in ((0, 2), (1, 1)):
        key = dashboard_key_for(svc.store.r, seats[seat]["email"])
        mine = app.extensions["tablepost.dashboard"].games_of(key)
        (item,) = [g for g in mine["finished"] if g["game"] == gid]
        assert item["place"] == place, item


def _first_legal(c, gid, token):
    legal = c.get(f"{API}/{gid}/legal-moves", headers=bearer(token)).json
    return legal["version"], legal["moves"][0]["move"]


def test_in_a_four_player_game_a_resigned_seat_is_played_by_the_stand_in_and_placed_last(app):
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox
    c, svc = app.test_client(), app.extensions["tablepost.service"]
    seats = people(4, "four")
    gid, tokens = create(c, "carcassonne", seats)
    # seat 2 resigns before its turn: the game goes on without it
    rv = c.post(f"{API}/{gid}/resign", headers=bearer(tokens[2]))
    assert rv.json == {"game": gid, "seat": 2, "version": 2, "status": "active", "winner": None}
    assert c.post(f"{API}/{gid}/resign", headers=bearer(tokens[2])).json["code"] == "already-resigned"
    for seat in (0, 1):   # seats 0 and 1 play their tiles
        v, move = _first_legal(c, gid, tokens[seat])
        assert c.post(f"{API}/{gid}/moves", headers=bearer(tokens[seat]),
                      json={"expected_version": v, "moves": [move]}).status_code == 200
    # seat 2's turn: what the worker's turn task does for it, the stand-in plays (the seat is dropped)
    meta, state = svc.load(gid)
    assert state.actor == 2
    notifier = Notifier(svc, Outbox(svc.store.r, None), MailConfig(secret="s", domain="t.test",
                                                                  from_addr="pbem@t.test", public_url="http://x"))
    notifier.notify(gid, state.version)
    events = c.get(f"{API}/{gid}/events").json["events"]
    assert events[-1]["seat"] == 2 and events[-1]["by"] == "stand-in", events[-1]
    assert svc.load(gid)[1].actor == 3
    # seat 2 cannot play any more: its token still reads, but the stand-in has its seat
    # seats 3 and 0 resign too: seat 1 is the last one left and wins
    assert c.post(f"{API}/{gid}/resign", headers=bearer(tokens[3])).json["status"] == "active"
    done = c.post(f"{API}/{gid}/resign", headers=bearer(tokens[0])).json
    assert done["status"] == "finished" and done["winner"] == 1
    on_game_over(svc, gid)
    assessed = RatingService(svc).assess(gid)
    # the winner first, then the last to resign; the first to resign is last
    assert assessed["result"]["finish"] == [2, 1, 4, 3]
    r = [rating(svc, "carcassonne", s["email"]) for s in seats]
    assert r[1] > 1500 > r[0] > r[3] and r[0] > r[2], r
    assert "P2 resigned" in c.get(f"{API}/{gid}/events").json["events"][1]["text"]


def test_nobody_makes_an_ai_seat_or_the_cardinalbot_resign(app):
    c = app.test_client()
    gid, tokens = create(c, "carcassonne", [{"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "easy"},
                                            {"name": "Bea"}])
    rv = c.post(f"{API}/{gid}/resign", headers=bearer(AI_TOKEN))
    assert rv.status_code == 403 and rv.json["code"] == "not-resignable", rv.json
    assert c.get(f"{API}/{gid}").json["version"] == 1
    # a person's token resigns that person's seat only
    rv = c.post(f"{API}/{gid}/resign", headers=bearer(tokens[2]))
    assert rv.json["seat"] == 2 and rv.json["status"] == "active"
    # the Cardinalbot of a solo game: its credential does not resign it either
    solo = make_app(app.config["REDIS_URL"], BOT_TOKEN="bot-credential-together")
    sc = solo.test_client()
    sid, stokens = create(sc, "tiletum", [{"name": "Cardinalbot", "kind": "cardinalbot"}, {"name": "Ada"}])
    rv = sc.post(f"{API}/{sid}/resign", headers=bearer("bot-credential-together"))
    assert rv.status_code == 403 and rv.json["code"] == "not-resignable"
    rv = sc.post(f"{API}/{sid}/resign", headers=bearer(stokens[1]))
    assert rv.json["winner"] == 0, "the player resigned: the Cardinalbot wins"


# --- the rematch -----------------------------------------------------------------------------------

def test_a_rematch_starts_when_everyone_accepted_with_the_seats_turned(app):
    c, svc = app.test_client(), app.extensions["tablepost.service"]
    seats = [{"name": "Ada", "email": "ada-rm@together.test"},
             {"name": "Robo", "kind": "ai", "level": "easy"},
             {"name": "Bea", "email": "bea-rm@together.test"}]
    gid, tokens = create(c, "pillars", seats, rated=False, time_control={"days_per_move": 2})
    rv = c.post(f"{API}/{gid}/rematch", headers=bearer(tokens[0]))
    assert rv.status_code == 409 and rv.json["code"] == "game-not-over"
    assert c.get(f"{API}/{gid}/rematch").status_code == 404
    assert c.post(f"{API}/{gid}/resign", headers=bearer(tokens[0])).json["status"] == "active"
    assert c.post(f"{API}/{gid}/resign", headers=bearer(tokens[2])).json["status"] == "finished"
    assert c.post(f"{API}/{gid}/rematch").status_code == 401
    first = c.post(f"{API}/{gid}/rematch", headers=bearer(tokens[2])).json
    assert first["status"] == "proposed" and first["new_game"] is None
    assert [s["accepted"] for s in first["seats"]] == [False, True, True], "the AI seat accepts at once"
    again = c.post(f"{API}/{gid}/rematch", headers=bearer(tokens[2])).json
    assert again == first, "asking again is the same proposal"
    assert c.get(f"{API}/{gid}/rematch").json == first
    done = c.post(f"{API}/{gid}/rematch", headers=bearer(tokens[0])).json
    assert done["status"] == "started" and done["new_game"]
    new = done["new_game"]
    meta = svc.meta(new)
    assert [s["name"] for s in meta["seats"]] == ["Robo", "Bea", "Ada"], "the seat order turned by one"
    assert meta["game"] == "pillars" and meta["options"]["rated"] is False
    assert meta["options"]["time_control"]["days_per_move"] == 2
    assert [s["new_seat"] for s in done["seats"]] == [2, 0, 1]
    # each person plays the rematch with their seat token
    assert c.get(f"{API}/{new}/legal-moves", headers=bearer(tokens[0])).json["seat"] == 2
    assert c.get(f"{API}/{new}/legal-moves", headers=bearer(tokens[2])).json["seat"] == 1
    assert c.post(f"{API}/{gid}/rematch", headers=bearer(tokens[2])).json == done, "idempotent once started"


def test_two_last_acceptances_at_once_start_one_game_and_a_proposal_lapses(app):
    c, svc = app.test_client(), app.extensions["tablepost.service"]
    gid, tokens = create(c, "carcassonne", [{"name": n} for n in ("Ada", "Bea", "Cyd")])
    for t in tokens[:2]:
        c.post(f"{API}/{gid}/resign", headers=bearer(t))
    now = [time.time()]
    together = Together(svc, clock=lambda: now[0])
    together.rematch(gid, seat=0)
    answers: list[dict] = []
    start = threading.Barrier(2)

    def accept(seat):
        start.wait()
        answers.append(Together(svc, clock=lambda: now[0]).rematch(gid, seat=seat))
    threads = [threading.Thread(target=accept, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    started = [a["new_game"] for a in answers if a["new_game"]]
    assert started and len(set(started)) == 1, answers
    assert together.proposal(gid)["new_game"] == started[0]
    # another game's proposal left alone past its days lapses, and a new request makes a new one
    other, otokens = create(c, "carcassonne", [{"name": "Ada"}, {"name": "Bea"}])
    c.post(f"{API}/{other}/resign", headers=bearer(otokens[0]))
    first = together.rematch(other, seat=0)
    now[0] += REMATCH_DAYS * 86400 + 1
    assert together.proposal(other) is None
    fresh = together.rematch(other, seat=1)
    assert fresh["expires"] != first["expires"] and [s["accepted"] for s in fresh["seats"]] == [False, True]


# --- the replay ------------------------------------------------------------------------------------

def _seen(c, gid, tokens, version=None) -> dict:
    q = f"?version={version}" if version is not None else ""
    out = {}
    for who, t in (("spectator", None), *((f"seat{i}", t) for i, t in enumerate(tokens))):
        rv = c.get(f"{API}/{gid}/state{q}", headers=bearer(t))
        assert rv.status_code == 200, rv.get_data(as_text=True)
        out[who] = rv.get_data(as_text=True)
    out["board"] = c.get(f"{API}/{gid}/board.svg{'?version=' + str(version) if version else ''}").get_data()
    return out


@pytest.mark.parametrize("game", list(games.NAMES))
def test_the_replay_shows_every_step_as_each_seat_and_a_spectator_saw_it_then(app, game):
    c = app.test_client()
    seed = f"replay-{game}"
    playout = PLAYOUTS[game](2, seed)
    gid, tokens = create(c, game, [{"name": "Ada"}, {"name": "Bob"}], seed=seed)
    then = {1: _seen(c, gid, tokens)}
    half = len(playout.events) // 2
    for v, ev in enumerate(playout.events[1:], start=1):
        rv = c.post(f"{API}/{gid}/moves", headers=bearer(tokens[ev["seat"]]),
                    json={"expected_version": v, "moves": [ev["move"]]})
        assert rv.status_code == 200 and rv.json["applied"] == 1, rv.json
        then[v + 1] = _seen(c, gid, tokens)
        if v + 1 == half:   # the game is running: each step so far as it was seen then
            for k in range(1, half + 1):
                assert _seen(c, gid, tokens, k) == then[k], f"running game, step {k}"
    assert c.get(f"{API}/{gid}").json["status"] == "finished"
    for k, seen in then.items():   # the finished game, to every step
        assert _seen(c, gid, tokens, k) == seen, f"finished game, step {k}"
    last = len(playout.events)
    for bad in (0, last + 1, "x", "-1", "1.0"):
        rv = c.get(f"{API}/{gid}/state?version={bad}")
        assert rv.status_code == 422, (bad, rv.json)
    assert c.get(f"{API}/{gid}/state?version={last + 1}").json["code"] == "bad-version"
    assert c.get(f"{API}/{gid}/board.svg?version={last + 1}").json["code"] == "bad-version"
    assert c.get(f"{API}/{gid}/state?version=1", headers=bearer("wrong")).status_code == 401
    assert c.get(f"{API}/nosuchgame/state?version=1").status_code == 404


def test_a_crash_right_after_the_resignation_is_made_good_by_asking_again(app, monkeypatch):
    """The operator's night: the process fails between appending the resignation and handing the
    seat to the stand-in. The resignation stands (it is in the log, once); asking again answers
    409 already-resigned and hands the seat over, and the stand-in then plays its turn."""
    from application import deadlines
    c, svc = app.test_client(), app.extensions["tablepost.service"]
    gid, tokens = create(c, "carcassonne", [{"name": n} for n in ("Ada", "Bea", "Cyd")])
    v, move = _first_legal(c, gid, tokens[0])
    c.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]), json={"expected_version": v, "moves": [move]})
    real = deadlines.Deadlines.drop

    def dies(self, game_id, seat):
        raise ConnectionError("the Redis connection dropped")
    monkeypatch.setattr(deadlines.Deadlines, "drop", dies)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    rv = c.post(f"{API}/{gid}/resign", headers=bearer(tokens[1]))
    assert rv.status_code == 500, rv.get_data(as_text=True)
    events = c.get(f"{API}/{gid}/events").json["events"]
    assert [e["type"] for e in events].count("SeatResigned") == 1
    assert svc.load(gid)[1].actor == 1, "nobody played the seat yet"
    monkeypatch.setattr(deadlines.Deadlines, "drop", real)
    again = c.post(f"{API}/{gid}/resign", headers=bearer(tokens[1]))
    assert again.status_code == 409 and again.json["code"] == "already-resigned"
    last = c.get(f"{API}/{gid}/events").json["events"][-1]
    assert last["seat"] == 1 and last["by"] == "stand-in", last
    assert [e["type"] for e in c.get(f"{API}/{gid}/events").json["events"]].count("SeatResigned") == 1


def test_a_game_ended_by_resignation_reads_the_same_after_archiving(app):
    import time as _time

    from application import archive
    from application.finished import done
    c, svc = app.test_client(), app.extensions["tablepost.service"]
    for game in games.NAMES:
        gid, tokens = create(c, game, [{"name": "Ada"}, {"name": "Bob"}])
        c.post(f"{API}/{gid}/resign", headers=bearer(tokens[1]))
        on_game_over(svc, gid)
        done(svc.store.r, gid)
        paths = ["", "/state", "/state?version=1", "/events", "/record", "/board.svg?version=2"]
        before = {p: c.get(f"{API}/{gid}{p}").get_data(as_text=True) for p in paths}
        assert archive.archive_game(svc, gid, _time.time() + 30 * 86400) == "archived"
        fresh = make_app(app.config["REDIS_URL"]).test_client()
        assert {p: fresh.get(f"{API}/{gid}{p}").get_data(as_text=True) for p in paths} == before, game


def test_a_resignation_in_a_tournament_game_is_a_loss_in_its_standings(redis_server):
    """A 2-player knockout of Carcassonne: the player who resigns (scores level, 0 to 0) is placed
    second in the game's result and the other goes through."""
    import random

    from test_tournament_e2e import Player, inline_game_over
    box: list = []
    tapp = make_app(redis_server.url, SEND_TASK=inline_game_over(box), RATE_LIMIT=0)
    box.append(tapp)
    c = tapp.test_client()
    created = c.post("/api/v1/tournaments", json={
        "name": "Resign KO", "game": "carcassonne", "format": "knockout", "table_size": 2,
        "invite": True}).get_json()
    tid = created["id"]
    rng = random.Random(3)
    ps = [Player(c, tid, f"R{i}", f"r{i}-{time.time_ns()}@together.test", created["invite_code"], rng)
          for i in range(2)]
    assert c.post(f"/api/v1/tournaments/{tid}/start",
                  headers={"Authorization": f"Bearer {created['organizer_token']}"}).status_code == 200
    game = ps[0].games()[0]
    rv = c.post(f"{API}/{game['game']}/resign", headers=bearer(game["token"]))
    assert rv.json["status"] == "finished" and rv.json["winner"] == 1 - game["seat"]
    t = c.get(f"/api/v1/tournaments/{tid}").get_json()
    [table] = [tb for r in t["rounds"] for tb in r["tables"]]
    assert table["result"]["scores"] == [0, 0]
    finish = table["result"]["finish"]
    assert finish[game["seat"]] == 2 and finish[1 - game["seat"]] == 1, table["result"]
    assert t["status"] == "finished"
