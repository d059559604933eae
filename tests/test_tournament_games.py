"""Tournaments of one game (issue 18), beyond tests/test_tournament_e2e.py's Carcassonne Swiss: a
tournament created without a game is Tiletum's and says so, and a withdrawal from a Carcassonne
tournament hands the seat's turn to the stand-in (the AI over the game interface), and a Pillars of the
Earth knockout is played and rated in its own pool."""
from __future__ import annotations

import random

import pytest

from conftest import make_app
from test_tournament_e2e import Player, inline_game_over, run_tournament

API = "/api/v1/tournaments"


@pytest.fixture()
def tapp(redis_server):
    box = []
    app = make_app(redis_server.url, SEND_TASK=inline_game_over(box))
    box.append(app)
    return app


def test_a_tiletum_tournament_needs_no_game_and_says_its_game(tapp):
    client = tapp.test_client()
    rv = client.post(API, json={"name": "Old style", "format": "knockout", "table_size": 4})
    assert rv.status_code == 201, rv.get_json()
    tid = rv.get_json()["id"]
    assert client.get(f"{API}/{tid}").get_json()["game"] == "tiletum"
    listed = client.get(f"{API}?limit=200").get_json()["tournaments"]
    assert {t["id"]: t["game"] for t in listed}[tid] == "tiletum"


def test_a_withdrawal_from_a_carcassonne_tournament_hands_the_turn_to_the_stand_in(tapp):
    """The withdrawn player's seat is dropped and the stand-in (the AI over the game interface)
    plays its current Carcassonne turn at once, labelled in the log."""
    client = tapp.test_client()
    rv = client.post(
        API, json={"name": "Carc KO", "game": "carcassonne", "format": "knockout", "table_size": 2,
                   "invite": True, "seed": "carc-withdraw"})
    created = rv.get_json()
    tid = created["id"]
    rng = random.Random(9)
    ps = [Player(client, tid, f"W{i}", f"w{i}@example.org", created["invite_code"], rng) for i in range(2)]
    client.post(f"{API}/{tid}/start", headers={"Authorization": f"Bearer {created['organizer_token']}"})
    game = ps[0].games()[0]
    gid = game["game"]
    summary = client.get(f"/api/v1/games/{gid}").get_json()
    actor = summary["to_act"][0]
    leaver = next(p for p in ps if p.games()[0]["seat"] == actor)
    rv = client.post(f"{API}/{tid}/withdrawals", json={}, headers={"Authorization": f"Bearer {leaver.token}"})
    assert rv.status_code == 200, rv.get_json()
    after = client.get(f"/api/v1/games/{gid}").get_json()
    assert after["version"] == summary["version"] + 1 and after["to_act"] == [1 - actor]
    events = client.get(f"/api/v1/games/{gid}/events?after={summary['version']}").get_json()["events"]
    assert [(e["seat"], e.get("by")) for e in events] == [(actor, "stand-in")]


def test_a_pillars_knockout_is_played_through_the_api_and_rated_in_its_own_pool(tapp):
    """The Pillars of the Earth can be a tournament's game: its table plays Pillars, the result is
    its VP, and the ratings go to the Pillars pool only."""
    client = tapp.test_client()
    carc_before = client.get("/api/v1/ratings?pool=carcassonne:multiplayer&limit=200").get_json()
    tid, players, t = run_tournament(client, {"name": "Pillars KO", "game": "pillars", "format": "knockout",
                                              "table_size": 2}, 2, seed=41)
    assert t["status"] == "finished" and t["game"] == "pillars"
    [table] = [tb for r in t["rounds"] for tb in r["tables"]]
    game = client.get(f"/api/v1/games/{table['game']}").get_json()
    assert game["game"] == "pillars" and game["status"] == "finished"
    assert [s["score"] for s in game["seats"]] == table["result"]["scores"]
    board = client.get("/api/v1/ratings?pool=pillars:multiplayer&limit=200").get_json()
    assert {row["player"] for row in board["ratings"]} >= set(players)
    assert client.get("/api/v1/ratings?pool=carcassonne:multiplayer&limit=200").get_json() == carc_before
    assert game["version"] > 100 and game["phase"] == "over"   # six rounds were played
    rv = client.post(API, json={"name": "Too big", "game": "pillars", "format": "round_robin",
                                "table_size": 5})
    assert rv.status_code == 422 and "table_size" in str(rv.get_json())
