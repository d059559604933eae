"""How reliably someone plays (application/reliability.py; docs/pbem.md, "Your public profile"):
scripted games through the public API with a real Redis -- one played to the end with chosen
delays, one resigned, one with a turn the stand-in played and a seat dropped -- then the figures
on the public profile (games finished and abandoned, stand-in turns, the median time to move) and
in the lobby beside a seated player; a private profile shows none of it, and no answer holds an
address. The counters are kept as moves land and games end: counting a game's end twice counts
it once."""
from __future__ import annotations

import json
import random
import statistics
import uuid

import pytest

import games
from application.dashboard import dashboard_key_for
from application.deadlines import Deadlines
from application.finished import on_game_over
from tests.conftest import make_app

API = "/api/v1/games"


def address(who: str) -> str:
    return f"{who}-{uuid.uuid4().hex[:8]}@reliable.test"


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture()
def world(redis_server):
    app = make_app(redis_server.url)
    svc = app.extensions["tablepost.service"]
    now = [1_800_000_000.0]
    svc.clock = lambda: now[0]       # the service's clock, moved by the script (the moves' delays)
    return app.test_client(), svc, now


def create(client, seats, game="carcassonne") -> tuple[str, list[str]]:
    rv = client.post(API, json={"game": game, "seats": seats, "options": {"rated": False}})
    assert rv.status_code == 201, rv.get_data(as_text=True)
    body = rv.get_json()
    return body["id"], [s["token"] for s in body["seats"]]


def play(client, svc, gid, tokens, delays, rng, timed, upto=None, last=None):
    """Each seat's move through the API after ``delays[seat]`` seconds (a list: one a move, in
    turn); ``timed[seat]`` collects the delays the service should have measured: those of a seat's
    first move of its turn (a Pillars seat often decides again at once: not a new turn).
    ``last``: the game's last mover, kept across calls."""
    last = last if last is not None else {}
    while True:
        meta, state = svc.load(gid)
        game = games.of_meta(meta)
        if game.is_over(state) or (upto is not None and state.version >= upto):
            return state
        seat = game.actor(state)
        d = delays[seat][len(timed[seat]) % len(delays[seat])] if last.get(gid) != seat else 5
        now = svc.clock() + d
        svc.clock = lambda t=now: t
        move = rng.choice(game.legal_moves(state))[0]
        rv = client.post(f"{API}/{gid}/moves", json={"expected_version": state.version, "moves": [move]},
                         headers=bearer(tokens[seat]))
        assert rv.status_code == 200, rv.get_data(as_text=True)
        if last.get(gid) != seat:
            timed[seat].append(d)
        last[gid] = seat


def test_profiles_and_the_lobby_show_how_reliably_someone_plays(world):
    client, svc, _ = world
    r = svc.store.r
    ada, bob = address("ada"), address("bob")
    seats = [{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}]
    rng = random.Random(46)
    timed: dict[int, list[int]] = {0: [], 1: []}
    # 1. played to the end: Ada moves after 30 s, 90 s or 2 h; Bob after 600 s
    g1, t1 = create(client, seats)
    play(client, svc, g1, t1, {0: [30, 90, 7200], 1: [600]}, rng, timed)
    # 2. Bob resigns (a 2-player game ends by it)
    g2, t2 = create(client, seats)
    play(client, svc, g2, t2, {0: [45], 1: [600]}, rng, timed, upto=5)
    assert client.post(f"{API}/{g2}/resign", headers=bearer(t2[1])).status_code == 200
    # 3. a Pillars game: Ada's first turn is the stand-in's (a missed deadline), then Bob is
    # dropped for missed deadlines and the stand-in plays his seat to the end
    g3, t3 = create(client, seats, game="pillars")
    deadlines = Deadlines(svc, None)
    meta, state = svc.load(g3)
    stand_in_turns = {0: 0, 1: 0}
    last = {g3: 0}
    assert games.of_meta(meta).actor(state) == 0
    assert deadlines.stand_in(g3, 0) == 1
    stand_in_turns[0] += 1
    deadlines.drop(g3, 1)
    while True:
        meta, state = svc.load(g3)
        game = games.of_meta(meta)
        if game.is_over(state):
            break
        if game.actor(state) == 1:
            assert deadlines.stand_in(g3, 1) == 1   # the stand-in plays the whole turn
            stand_in_turns[1] += 1
            last[g3] = 1
        else:
            play(client, svc, g3, t3, {0: [120], 1: [1]}, rng, timed, upto=state.version + 1, last=last)
    for gid in (g1, g2, g3):
        on_game_over(svc, gid)
        on_game_over(svc, gid)       # the follow-up runs again (a sweep): counted once
    # Ada's first decision of each game started its turn at the game's creation: her first move
    # there is timed from it, as every other (the script's clock did not move in between)
    ada_key, bob_key = dashboard_key_for(r, ada), dashboard_key_for(r, bob)
    client.put("/api/v1/me/handle", json={"handle": "ada_" + uuid.uuid4().hex[:6]}, headers=bearer(ada_key))
    h = client.get("/api/v1/me/profile", headers=bearer(ada_key)).get_json()["handle"]
    assert client.put("/api/v1/me/profile", json={"public": True}, headers=bearer(ada_key)).status_code == 200
    rv = client.get(f"/api/v1/players/{h}")
    assert rv.status_code == 200
    rel = rv.get_json()["reliability"]
    assert rel == {"games_finished": 3, "games_abandoned": 0, "stand_in_turns": stand_in_turns[0],
                   "median_move_seconds": round(statistics.median(timed[0])), "moves_timed": len(timed[0])}
    assert stand_in_turns[0] == 1 and len(timed[0]) > 10
    assert "@" not in rv.get_data(as_text=True)
    # Bob: finished one, resigned one and was dropped from one (abandoned), many stand-in turns;
    # his profile is private: its answer is his handle only
    client.put("/api/v1/me/handle", json={"handle": "bob_" + uuid.uuid4().hex[:6]}, headers=bearer(bob_key))
    hb = client.get("/api/v1/me/profile", headers=bearer(bob_key)).get_json()["handle"]
    assert client.get(f"/api/v1/players/{hb}").get_json() == {"handle": hb, "public": False}
    client.put("/api/v1/me/profile", json={"public": True}, headers=bearer(bob_key))
    bob_rel = client.get(f"/api/v1/players/{hb}").get_json()["reliability"]
    assert bob_rel == {"games_finished": 1, "games_abandoned": 2, "stand_in_turns": stand_in_turns[1],
                       "median_move_seconds": 600, "moves_timed": len(timed[1])}
    client.put("/api/v1/me/profile", json={"public": False}, headers=bearer(bob_key))
    # the lobby: a waiting game with Ada and Bob seated shows Ada's figures (public), not Bob's
    rv = client.post(API, json={"game": "carcassonne", "options": {"rated": False},
                                "seats": [{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob},
                                          {"kind": "open"}]})
    assert rv.status_code == 201, rv.get_data(as_text=True)
    wid = rv.get_json()["id"]
    listed = client.get("/api/v1/lobby?limit=100").get_json()["games"]
    for entry in (client.get(f"/api/v1/lobby/{wid}").get_json(), next(g for g in listed if g["id"] == wid)):
        assert entry["joined"] == [{"name": "Ada", "handle": h, "reliability": rel},
                                   {"name": "Bob", "handle": None, "reliability": None}]
        assert "@" not in json.dumps(entry)
