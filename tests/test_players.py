"""Public handles, profiles, leaderboards and "Your data" (application/profiles.py, accounts.py;
docs/pbem.md, "Your public profile" and "Your data"): every rule over the public API, with real
Redis, real HTTP for the race, and a scan of every key and value of Redis after an account is
deleted."""
from __future__ import annotations

import json
import random
import smtplib
import threading
import uuid

import pytest
import requests

import tiletum
from application.dashboard import dashboard_key_for
from games.tiletum import stand_in_move
from application.finished import on_game_over
from application.indexes import GENERATIONS
from application.players import player_id
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from tests.conftest import LiveServer, make_app
from tests.test_archive import play_out


def notifier_deadlines(svc):
    from application.deadlines import Deadlines
    return Deadlines(svc, None)


def address(who: str = "p") -> str:
    return f"{who}-{uuid.uuid4().hex[:10]}@Players.Test"   # mixed case: stored and found in any case


def handle(prefix: str = "h") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def auth(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture()
def world(redis_server):
    app = make_app(redis_server.url)
    svc = app.extensions["tablepost.service"]
    return app, app.test_client(), svc, svc.store.r


def key_of(r, email: str) -> str:
    return dashboard_key_for(r, email)


def new_game(svc, seats: list[tuple[str, str | None]], seed: str, game: str = "tiletum") -> str:
    created = svc.create_game([{"name": n, **({"email": e} if e else {})} for n, e in seats],
                              {} if game != "tiletum" else {"seed": seed}, game=game)
    return created["id"]


def finished_rated(svc, seats: list[tuple[str, str]], seed: str) -> str:
    gid = new_game(svc, seats, seed)
    play_out(svc, gid, random.Random(seed))
    on_game_over(svc, gid)   # what workers.game_over does: rates it
    return gid


def every_text(r):
    """Every key of Redis with every value it holds, as text (strings, hashes, lists, sets, sorted
    sets, streams): what the deletion must leave without the address."""
    for k in r.scan_iter(count=1000):
        kind = r.type(k).decode()
        if kind == "string":
            vals = [r.get(k)]
        elif kind == "hash":
            vals = [x for pair in r.hgetall(k).items() for x in pair]
        elif kind == "list":
            vals = r.lrange(k, 0, -1)
        elif kind == "set":
            vals = list(r.smembers(k))
        elif kind == "zset":
            vals = [m for m, _ in r.zrange(k, 0, -1, withscores=True)]
        elif kind == "stream":
            vals = [x for _, fields in r.xrange(k) for pair in fields.items() for x in pair]
        else:
            vals = []
        yield k.decode("utf-8", "replace"), [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
                                             for v in vals if v is not None]


def holders(r, needle: str) -> list[str]:
    needle = needle.lower()
    return [k for k, vals in every_text(r) if needle in k.lower() or any(needle in v.lower() for v in vals)]


# --- handles ------------------------------------------------------------------------------------------

def test_a_handle_is_chosen_once_and_unique_without_regard_to_case(world):
    _, client, svc, r = world
    ada, bob = address("ada"), address("bob")
    new_game(svc, [("Ada", ada), ("Bob", bob)], "handles-1")
    h = handle("Ada_")
    rv = client.put("/api/v1/me/handle", json={"handle": h}, headers=auth(key_of(r, ada)))
    assert rv.status_code == 200, rv.get_json()
    assert rv.get_json() == {"handle": h, "public": False, "profile_url": f"/players/{h}"}
    again = client.put("/api/v1/me/handle", json={"handle": h}, headers=auth(key_of(r, ada)))
    assert again.status_code == 200 and again.get_json()["handle"] == h, "the same claim again is idempotent"
    taken = client.put("/api/v1/me/handle", json={"handle": h.lower()}, headers=auth(key_of(r, bob)))
    assert (taken.status_code, taken.get_json()["code"]) == (409, "handle-taken"), "case does not make it new"
    other = client.put("/api/v1/me/handle", json={"handle": handle()}, headers=auth(key_of(r, ada)))
    assert (other.status_code, other.get_json()["code"]) == (409, "handle-already-chosen")
    assert client.get("/api/v1/me/profile", headers=auth(key_of(r, ada))).get_json()["handle"] == h
    assert client.get("/api/v1/me/profile", headers=auth(key_of(r, bob))).get_json()["handle"] is None
    assert client.put("/api/v1/me/handle", json={"handle": handle()}).status_code == 401


@pytest.mark.parametrize("bad, code", [
    ("ab", "bad-handle"), ("x" * 21, "bad-handle"), ("has space", "bad-handle"), ("dot.ted", "bad-handle"),
    ("slash/ed", "bad-handle"), ("émile", "bad-handle"), ("admin", "bad-handle"), ("ADMIN", "bad-handle"),
    ("a\u202eb", "invalid-request"), ("\u3164\u3164\u3164", "invalid-request"), (17, "invalid-request"),
    (None, "invalid-request"), ("x" * 101, "invalid-request")])
def test_invalid_handles_are_refused_and_change_nothing(world, bad, code):
    _, client, svc, r = world
    me = address()
    new_game(svc, [("Me", me), ("O", None)], "handles-bad")
    rv = client.put("/api/v1/me/handle", json={"handle": bad}, headers=auth(key_of(r, me)))
    assert rv.status_code == 422 and rv.get_json()["code"] == code, rv.get_json()
    assert rv.headers["Content-Type"] == "application/problem+json"
    assert client.get("/api/v1/me/profile", headers=auth(key_of(r, me))).get_json()["handle"] is None


def test_of_fifteen_simultaneous_claims_of_one_handle_exactly_one_wins(world):
    app, _, svc, r = world
    people = [address(f"race{i}") for i in range(15)]
    for i in range(0, 15, 3):
        new_game(svc, [(f"R{j}", people[j]) for j in range(i, i + 3)], f"race-{i}")
    wanted = handle("race")
    barrier = threading.Barrier(15)
    answers: list[requests.Response] = [None] * 15

    def claim(i: int) -> None:
        barrier.wait()
        answers[i] = requests.put(f"{server.url}/api/v1/me/handle", json={"handle": wanted},
                                  headers=auth(key_of(r, people[i])), timeout=30)

    with LiveServer(app) as server:
        threads = [threading.Thread(target=claim, args=(i,)) for i in range(15)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] + [409] * 14, codes
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"handle-taken"}
    winner = next(i for i, a in enumerate(answers) if a.status_code == 200)
    assert r.get(f"handle:{{{wanted.lower()}}}").decode() == player_id(r, people[winner])


# --- profiles -----------------------------------------------------------------------------------------

def test_a_profile_is_hidden_until_its_player_opts_in_and_never_shows_an_email(world):
    _, client, svc, r = world
    ada, bob = address("ada"), address("bob")
    done = finished_rated(svc, [("Ada", ada), ("Bob", bob)], "profile-1")
    running = new_game(svc, [("Ada", ada), ("Cy", address("cy"))], "profile-2")
    private = new_game(svc, [("Ada", ada), ("Di", address("di"))], "profile-3")
    svc.store.update_meta(private, lambda m: m.update(private=True))   # the lobby's private games
    k = key_of(r, ada)
    assert client.put("/api/v1/me/profile", json={"public": True},
                      headers=auth(k)).get_json()["code"] == "no-handle"
    h = handle("ada")
    client.put("/api/v1/me/handle", json={"handle": h}, headers=auth(k))
    hidden = client.get(f"/api/v1/players/{h}")
    assert hidden.status_code == 200 and hidden.get_json() == {"handle": h, "public": False}
    assert client.get(f"/api/v1/players/{h}/rating.svg").get_json()["code"] == "player-not-found"
    rv = client.put("/api/v1/me/profile", json={"public": True}, headers=auth(k))
    assert rv.get_json() == {"handle": h, "public": True, "profile_url": f"/players/{h}"}
    shown = client.get(f"/api/v1/players/{h.upper()}")   # found in any case, shown as chosen
    p = shown.get_json()
    assert shown.status_code == 200 and p["handle"] == h and p["public"] is True and p["name"] == "Ada"
    assert p["member_since"].endswith("Z")
    assert [g["game"] for g in p["finished"]] == [done]
    assert p["finished"][0]["record"] == f"/api/v1/games/{done}/record"
    assert [g["game"] for g in p["current"]] == [running], "a private game is not shown"
    pool = p["ratings"]["tiletum:multiplayer"]
    assert pool["games"] == 1 and len(pool["history"]) == 1 and pool["history"][0]["game"] == done
    assert pool["history"][0]["rating"] == pool["rating"]
    text = shown.get_data(as_text=True).lower()
    assert "@" not in text and "#token" not in text and ada.lower() not in text
    chart = client.get(f"/api/v1/players/{h}/rating.svg?pool=tiletum:multiplayer")
    assert chart.status_code == 200 and chart.mimetype == "image/svg+xml"
    svg = chart.get_data(as_text=True)
    assert svg.startswith("<svg") and "<polyline" in svg and svg.count("<circle") == 2 and "@" not in svg
    old = client.get(f"/api/v1/players/{h}/rating.svg?pool=multiplayer")   # the deprecated name of the pool
    assert old.status_code == 200 and old.get_data(as_text=True) == svg
    unknown = client.get(f"/api/v1/players/{h}/rating.svg?pool=solo:priest")
    assert unknown.get_json()["code"] == "pool-not-found"
    assert client.get(f"/api/v1/players/{h}/rating.svg?pool=nope").status_code == 422
    client.put("/api/v1/me/profile", json={"public": False}, headers=auth(k))
    assert client.get(f"/api/v1/players/{h}").get_json() == {"handle": h, "public": False}
    for unknown in (handle(), "no", "bad handle", "x" * 40):
        rv = client.get(f"/api/v1/players/{unknown}")
        assert (rv.status_code, rv.get_json()["code"]) == (404, "player-not-found")


# --- leaderboards -------------------------------------------------------------------------------------

def test_leaderboards_are_paged_best_first_with_the_handles_of_public_profiles(world):
    _, client, svc, r = world
    people = [address(f"lb{i}") for i in range(4)]
    for i in range(3):   # three games: ratings spread out
        finished_rated(svc, [(f"L{i}", people[i]), (f"L{i + 1}", people[i + 1])], f"board-{i}")
    h = handle("lb")
    client.put("/api/v1/me/handle", json={"handle": h}, headers=auth(key_of(r, people[0])))
    client.put("/api/v1/me/profile", json={"public": True}, headers=auth(key_of(r, people[0])))
    client.put("/api/v1/me/handle", json={"handle": handle("lbhidden")}, headers=auth(key_of(r, people[1])))
    whole = client.get("/api/v1/leaderboards/tiletum:multiplayer?limit=200").get_json()
    assert whole["pool"] == "tiletum:multiplayer" and whole["offset"] == 0 and whole["limit"] == 200
    rows = whole["entries"]
    assert whole["total"] == len(rows) >= 4
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
    by_player = {row["player"]: row for row in rows}
    assert by_player[player_id(r, people[0])]["handle"] == h
    assert by_player[player_id(r, people[1])]["handle"] is None, ("a handle whose profile is private is not "
                                                                  "shown")
    page = client.get("/api/v1/leaderboards/tiletum:multiplayer?offset=1&limit=2").get_json()
    assert page["entries"] == rows[1:3] and page["total"] == whole["total"]
    far = client.get("/api/v1/leaderboards/tiletum:multiplayer?offset=100000&limit=5").get_json()
    assert far["entries"] == []
    assert "@" not in json.dumps(whole)
    old = client.get("/api/v1/leaderboards/multiplayer?limit=200")   # the pool's deprecated name
    assert old.status_code == 200 and old.get_json() == whole, "answered as the pool, by its name"
    ratings = client.get("/api/v1/ratings?pool=multiplayer&limit=200").get_json()
    assert ratings["pool"] == "tiletum:multiplayer"
    assert [row["player"] for row in ratings["ratings"]] == [row["player"] for row in rows]
    assert "multiplayer" not in [p["pool"] for g in client.get("/api/v1/catalog").get_json()["games"]
                                 for p in g["pools"]]
    assert client.get("/api/v1/leaderboards/carcassonne:multiplayer").status_code == 200
    rv = client.get("/api/v1/leaderboards/nonsense")
    assert (rv.status_code, rv.get_json()["code"]) == (404, "pool-not-found")
    for q in ("limit=0", "limit=201", "offset=-1", "limit=x"):
        assert client.get(f"/api/v1/leaderboards/tiletum:multiplayer?{q}").status_code == 422, q


# --- your data: export ---------------------------------------------------------------------------------

def test_the_export_holds_the_players_games_settings_and_ratings(world):
    _, client, svc, r = world
    me, other = address("exp"), address("other")
    done = finished_rated(svc, [("Me", me), ("Other", other)], "export-1")
    running = new_game(svc, [("Other", other), ("Me", me)], "export-2")
    k = key_of(r, me)
    client.put("/api/v1/me/notifications", json={"mode": "digest"}, headers=auth(k))
    h = handle("exp")
    client.put("/api/v1/me/handle", json={"handle": h}, headers=auth(k))
    rv = client.get("/api/v1/me/export", headers=auth(k))
    assert rv.status_code == 200 and "attachment" in rv.headers["Content-Disposition"]
    out = rv.get_json()
    assert out["email"] == me.lower() and out["player"] == player_id(r, me) and out["handle"] == h
    assert out["settings"]["notifications"] == "digest" and out["profile_public"] is False
    assert out["settings"]["delay_minutes"] == 5, "the wait of a turn email while playing live"
    games = {g["game"]: g for g in out["games"]}
    assert set(games) == {done, running}
    assert games[done]["finished"] is True and games[done]["result"]["places"] and games[done]["moves"]
    assert (games[running]["seat"] == 1 and games[running]["finished"] is False
            and games[running]["name"] == "Me")
    assert (out["ratings"]["tiletum:multiplayer"]["games"] == 1
            and out["ratings"]["tiletum:multiplayer"]["history"][0]["game"] == done)
    # how reliably I play (application/reliability.py): the finished game counted, my moves timed
    rel = out["reliability"]
    assert rel["games_finished"] == 1 and rel["games_abandoned"] == 0 and rel["moves_timed"] > 0
    assert other.lower() not in json.dumps(out).lower(), "another player's address is not in my export"
    assert client.get("/api/v1/me/export").status_code == 401


# --- your data: deletion ------------------------------------------------------------------------------

class Refusing:
    """An SMTP server that is away: emails stay in the outbox (and its log of failures)."""

    def send(self, message) -> None:
        raise smtplib.SMTPServerDisconnected("away")


def test_deleting_an_account_leaves_no_trace_of_the_address(world):
    _, client, svc, r = world
    me, bob, cy = address("gone"), address("bob"), address("cy")
    notifier = Notifier(svc, Outbox(r, Refusing()), MailConfig(secret="s", domain="pbem.test",
                                                              from_addr="t@pbem.test", public_url="http://pbem.test"))
    done = finished_rated(svc, [("Gone", me), ("Bob", bob)], "delete-1")
    mine_now = new_game(svc, [("Gone", me), ("Cy", cy)], "delete-2")       # seat 0 is to act
    theirs_now = new_game(svc, [("Cy", cy), ("Gone", me)], "delete-3")     # seat 0 (Cy) is to act
    carc = new_game(svc, [("Gone", me), ("Bob", bob)], "delete-4", game="carcassonne")
    assert notifier.notify(mine_now, 1) == 1, "a turn email queued to the address (the server is away)"
    k = key_of(r, me)
    client.put("/api/v1/me/notifications", json={"mode": "move", "delay_minutes": 10}, headers=auth(k))
    h = handle("gone")
    client.put("/api/v1/me/handle", json={"handle": h}, headers=auth(k))
    client.put("/api/v1/me/profile", json={"public": True}, headers=auth(k))
    bot = client.post("/api/v1/bots", json={"name": "Gone's bot", "email": me}).get_json()
    assert holders(r, me), "the address is held before"
    for body in ({}, {"confirm": "delete"}, {"confirm": "yes"}):
        rv = client.delete("/api/v1/me", json=body, headers=auth(k))
        assert rv.status_code == 422, rv.get_json()
    assert client.get("/api/v1/me/games",
                      headers=auth(k)).status_code == 200, "a refused deletion changes nothing"
    rv = client.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=auth(k))
    assert rv.status_code == 200, rv.get_json()
    assert rv.get_json() == {"deleted": True, "games_finished": 1, "games_running": 3,
                             "tournaments": 0, "bots_deleted": 1}
    assert holders(r, me) == [], "nothing in Redis holds the address"
    pid = player_id(r, me)
    assert holders(r, pid) == [GENERATIONS.key("me:" + pid)], ("nor the player id, but its revoked link "
                                                               "generation")
    assert client.get("/api/v1/me/games", headers=auth(k)).status_code == 401, "the key stops working"
    assert client.get(f"/api/v1/players/{h}").status_code == 404, "the handle is gone"
    assert client.get(f"/api/v1/bots/{bot['id']}").status_code in (404, 410)
    # finished games keep their moves, told under "a former player"
    seats = client.get(f"/api/v1/games/{done}").get_json()["seats"]
    assert [s["name"] for s in seats] == ["a former player", "Bob"]
    texts = [e.get("text", "") for e in client.get(f"/api/v1/games/{done}/events").get_json()["events"]]
    assert any("a former player" in t for t in texts) and not any("Gone" in t for t in texts)
    assert "Gone" not in client.get(f"/api/v1/games/{done}/record").get_data(as_text=True)
    board = client.get("/api/v1/leaderboards/tiletum:multiplayer?limit=200").get_json()
    assert pid not in [row["player"] for row in board["entries"]]
    assert player_id(r, bob) in [row["player"] for row in board["entries"]], "the others keep theirs"
    # the game where it was the deleted player's turn: the stand-in played it at once
    events = client.get(f"/api/v1/games/{mine_now}/events").get_json()["events"]
    assert events[-1].get("by") == "stand-in" and events[-1]["seat"] == 0
    assert client.get(f"/api/v1/games/{mine_now}").get_json()["to_act"] == [1]
    # the other running game: when its turn comes, the turn email's path finds it dropped
    _, state = svc.load(theirs_now)
    cy_moves = []
    while state.actor == 0:
        m = stand_in_move(state)
        _, state = tiletum.play(state, 0, m, seed=svc.store.seed(theirs_now), trusted=True)
        cy_moves.append(str(m))
    svc.submit_for_seat(theirs_now, 0, 1, cy_moves)
    version = svc.load(theirs_now)[1].version
    assert notifier.notify(theirs_now, version) == 0, "no email: the stand-in plays the seat"
    events = client.get(f"/api/v1/games/{theirs_now}/events").get_json()["events"]
    assert events[-1].get("by") == "stand-in" and events[-1]["seat"] == 1
    # a Carcassonne game: the same (every hosted game is played by email)
    assert notifier.deadlines().is_dropped(carc, 0)
    # the running game, played to its end, is rated for the other player only
    play_out(svc, mine_now, random.Random(5))
    on_game_over(svc, mine_now)
    assert client.get(f"/api/v1/games/{mine_now}").get_json()["rated"] is True
    assert not any(row["player"].startswith("former:") for row in
                   client.get("/api/v1/leaderboards/tiletum:multiplayer?limit=200").get_json()["entries"])
    assert client.get(f"/api/v1/ratings/{player_id(r, cy)}").status_code == 200
    assert holders(r, me) == [], "and nothing brought it back"


def test_a_tournament_entrant_is_withdrawn_and_renamed_everywhere(world):
    """Entered in a tournament still open, a running one and a finished one: after the deletion no
    key or value of Redis holds the address, the running one goes on without it (its game to the
    stand-in), and the finished one keeps its points under "a former player"."""
    app, client, svc, r = world
    me, ann, bob = address("cup"), address("ann"), address("bob")
    ts = app.extensions["tablepost.tournaments"]

    def cup(name: str, *entries: tuple[str, str]) -> dict:
        return ts.create({"name": name, "format": "round_robin", "table_size": 2, "seed": name,
                          "entries": [{"name": n, "email": e} for n, e in entries]})

    waiting = cup("Open cup", ("Me", me), ("Ann", ann), ("Bob", bob))
    running = cup("Running cup", ("Me", me), ("Ann", ann), ("Bob", bob), ("Cy", address("cy")))
    ts.start(running["id"], running["organizer_token"])
    done = cup("Done cup", ("Me", me), ("Ann", ann))
    ts.start(done["id"], done["organizer_token"])
    done_game = ts.load(done["id"]).rounds[0].tables[0].game
    play_out(svc, done_game, random.Random(3))
    on_game_over(svc, done_game)
    ts.advance(done["id"])
    assert ts.view(done["id"])["status"] == "finished"
    points = {row["name"]: row["points"] for row in ts.standings(done["id"])["standings"]}
    mine = next(tb for rnd in ts.load(running["id"]).rounds for tb in rnd.tables if me.lower() in tb.players)
    assert holders(r, me)
    rv = client.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=auth(key_of(r, me)))
    assert rv.status_code == 200, rv.get_json()
    assert rv.get_json()["tournaments"] == 3 and rv.get_json()["games_finished"] == 1
    assert holders(r, me) == [], "no tournament record, stream or game keeps the address"
    pid = player_id(r, me)
    assert holders(r, pid) == [GENERATIONS.key("me:" + pid)]
    for t in (waiting, running, done):
        players = ts.view(t["id"])["players"]
        assert "Me" not in [p["name"] for p in players] and players[0]["name"] == "a former player"
    assert ts.view(waiting["id"])["players"][0]["withdrawn"] is True
    assert ts.view(running["id"])["players"][0]["withdrawn"] is True
    assert ts.view(done["id"])["players"][0]["withdrawn"] is False, "a finished one is left as it ended"
    after = {row["name"]: row["points"] for row in ts.standings(done["id"])["standings"]}
    assert after == {"a former player": points["Me"], "Ann": points["Ann"]}, "points stay, under the new name"
    # the running tournament's game: the seat is dropped, the stand-in plays it
    table = ts.load(running["id"]).table(mine.round, mine.table)
    seat = [p.startswith("former-player-") for p in table.players].index(True)
    assert notifier_deadlines(svc).is_dropped(mine.game, seat)
    # the open tournament starts without the former player
    ts.start(waiting["id"], waiting["organizer_token"])
    tables = [tb for rnd in ts.load(waiting["id"]).rounds for tb in rnd.tables]
    assert tables and not any(p.startswith("former-player-") for tb in tables for p in tb.players)
    assert holders(r, me) == [], "and nothing brought it back"
    # a second deletion of the same account is refused as unknown: the key is gone
    rv = client.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=auth(key_of(r, me)))
    assert rv.status_code == 401


def test_a_deletion_cut_short_in_the_tournaments_is_finished_by_sending_it_again(world, monkeypatch):
    app, client, svc, r = world
    me, ann = address("cut"), address("ann")
    ts = app.extensions["tablepost.tournaments"]
    entries = [{"name": "Me", "email": me}, {"name": "Ann", "email": ann}]
    made = [ts.create({"name": f"Cup {i}", "format": "swiss", "rounds": 2, "table_size": 2,
                       "entries": entries}) for i in range(2)]
    for t in made:
        ts.start(t["id"], t["organizer_token"])
    ids = [t["id"] for t in made]
    from application.tournament_service import TournamentService
    real, calls = TournamentService._rename, []

    def crash_on_the_second(self, *a, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the process died")
        return real(self, *a, **kw)

    monkeypatch.setattr(TournamentService, "_rename", crash_on_the_second)
    with pytest.raises(RuntimeError):
        app.extensions["tablepost.accounts"].delete(key_of(r, me), "DELETE")
    assert holders(r, me), "cut short: one tournament still holds the address"
    monkeypatch.setattr(TournamentService, "_rename", real)
    rv = client.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=auth(key_of(r, me)))
    assert rv.status_code == 200 and rv.get_json()["tournaments"] == 1, rv.get_json()
    assert holders(r, me) == []
    for tid in ids:
        t = ts.load(tid)
        assert [p.startswith("former-player-") for p in t.entrants] == [True, False] and len(t.withdrawn) == 1


def test_a_deleted_address_leaves_the_games_waiting_for_players(world):
    """Seated in games that wait for players (one it posted, one it joined, one cancelled) and a
    join asked by email not yet confirmed: after the deletion none of them holds the address, and
    the seats of the games still waiting are open again."""
    _, client, svc, r = world
    me, ann = address("lobby"), address("ann")
    new_game(svc, [("Me", me), ("Ann", ann)], "lobby-del")   # a game of its own: a dashboard key
    k = key_of(r, me)

    def post(who: str, name: str, players: int = 3) -> dict:
        seats = [{"name": name, "email": who}] + [{"kind": "open"}] * (players - 1)
        rv = client.post("/api/v1/games", json={"game": "tiletum", "options": {}, "seats": seats})
        assert rv.status_code == 201, rv.get_json()
        return rv.get_json()

    mine = post(me, "Me")
    theirs = post(ann, "Ann")
    rv = client.post(f"/api/v1/lobby/{theirs['id']}/join", json={"name": "Me"}, headers=auth(k))
    assert rv.status_code == 200, rv.get_json()
    gone = post(ann, "Ann")
    client.post(f"/api/v1/lobby/{gone['id']}/join", json={"name": "Me"}, headers=auth(k))
    rv = client.delete(f"/api/v1/lobby/{gone['id']}", headers=auth(gone["creator_token"]))
    assert rv.status_code == 200, rv.get_json()
    asked = post(ann, "Ann")
    rv = client.post(f"/api/v1/lobby/{asked['id']}/join", json={"name": "Me", "email": me})
    assert rv.status_code == 202, rv.get_json()
    listed = client.get("/api/v1/me/games", headers=auth(k)).get_json()["not_started"]
    assert sorted(g["game"] for g in listed) == sorted([mine["id"], theirs["id"]])
    rv = client.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=auth(k))
    assert rv.status_code == 200, rv.get_json()
    assert holders(r, me) == [], "no waiting record, pending join or index keeps the address"
    pid = player_id(r, me)
    assert holders(r, pid) == [GENERATIONS.key("me:" + pid)]
    for gid, seat in ((mine["id"], 0), (theirs["id"], 1)):
        got = client.get(f"/api/v1/lobby/{gid}").get_json()
        assert got["status"] == "waiting" and "Me" not in got["seats_taken"]
        assert client.get(f"/api/v1/games/{gid}").get_json()["seats"][seat]["kind"] == "open"
    assert client.get(f"/api/v1/lobby/{gone['id']}").get_json()["seats_taken"] == ["Ann", "a former player"]


def test_no_rate_limit_key_holds_the_address_or_the_player_id(redis_server):
    """The all-of-Redis scan after a deletion, with the rate limits on (issue 39): the limits count a
    join per joining address and a dashboard key's requests per player, and their keys live up to an
    hour; they hold a keyed hash, so nothing holds the address (or the id) once the account is gone."""
    app = make_app(redis_server.url, RATE_LIMIT=1000, CREATE_LIMIT="1000/hour", ENTRY_LIMIT="1000/hour",
                   NEW_ADDRESS_LIMIT="1000/day", JOIN_LIMIT="1000/hour", JOIN_ADDRESS_LIMIT="100/hour")
    client, svc = app.test_client(), app.extensions["tablepost.service"]
    r = svc.store.r
    me, ann = address("limited"), address("ann")
    new_game(svc, [("Me", me), ("Ann", ann)], "limits-del")   # a game of its own: a dashboard key
    k = key_of(r, me)
    seats = [{"name": "Ann", "email": ann}, {"kind": "open"}, {"kind": "open"}]
    gid = client.post("/api/v1/games", json={"game": "tiletum", "seats": seats}).get_json()["id"]
    assert client.post(f"/api/v1/lobby/{gid}/join", json={"name": "Me", "email": me}).status_code == 202
    assert client.post(f"/api/v1/lobby/{gid}/join", json={"name": "Me"}, headers=auth(k)).status_code == 200
    assert client.get("/api/v1/me/games", headers=auth(k)).status_code == 200
    limiter_keys = [key for key, _ in every_text(r) if "LIMITER" in key]
    assert any("join-address" in key for key in limiter_keys), limiter_keys   # the join was counted
    rv = client.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=auth(k))
    assert rv.status_code == 200, rv.get_json()
    assert holders(r, me) == [], "no limiter key (nor anything else) holds the address"
    pid = player_id(r, me)
    assert holders(r, pid) == [GENERATIONS.key("me:" + pid)], "nor the player id"


def test_a_deleted_address_leaves_no_tournament_entry_it_asked_for(world):
    """An entry asked with the invitation code and not confirmed keeps the address (for its email)
    until the tournament starts or the ask expires: the deletion of the account removes it, with
    the email that answered it, and the player id with them."""
    app, client, svc, r = world
    me, ann = address("ask"), address("ann")
    new_game(svc, [("Asker", me), ("Ann", ann)], "ask-1")   # the address has an account
    ts = app.extensions["tablepost.tournaments"]
    made = ts.create({"name": "Asked Cup", "format": "swiss", "rounds": 2, "table_size": 2, "invite": True,
                      "entries": [{"name": "Ann", "email": ann}, {"name": "Bo", "email": address("bo")}]})
    tid = made["id"]
    asked = []
    ts.send = lambda name, args, queue: asked.append(args) or True
    rv = client.post(f"/api/v1/tournaments/{tid}/entries",
                     json={"name": "Asker", "email": me, "invite": made["invite_code"]})
    assert rv.status_code in (200, 201, 202) and rv.get_json()["status"] == "pending", rv.get_json()
    from mail.tournament_mail import entry_ask
    notifier = Notifier(svc, Outbox(r, Refusing()), MailConfig(secret="s", domain="pbem.test",
                                                              from_addr="t@pbem.test", public_url="http://pbem.test"))
    assert entry_ask(notifier, *asked[0]) == 1, "the ask's email queued (the server is away)"
    k = key_of(r, me)
    pid = player_id(r, me)
    assert holders(r, me), "the pending ask holds the address"
    rv = client.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=auth(k))
    assert rv.status_code == 200, rv.get_json()
    assert holders(r, me) == [], "nothing in Redis holds the address"
    assert holders(r, pid) == [GENERATIONS.key("me:" + pid)], "nor the player id, but its revoked generation"
    assert ts.entry_ask(tid, asked[0][1]) is None, "the ask is gone: its link confirms nothing"
    assert holders(r, ann), "the others' entries stay"
