"""Tournaments run to the end through the API by scripted players: a Swiss of 12 players over 4
rounds and a round robin of 5 (issue 7). Players ask to enter with the invitation code and confirm
by the emailed link (its task caught here), read their
games and seat tokens from /my-games, and play every move over /legal-moves and /moves. The
game-over follow-up (ratings, the tournament's next round) runs when the last move lands, as
the worker's task would (application.finished.on_game_over, the same function)."""
from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest

from conftest import make_app


ENTRY_ASKS: list = []   # (tournament, nonce) of each entry asked with the code: what its email carries


def inline_game_over(app_box):
    """A broker stand-in: runs the game-over follow-up at once, in the request that ended it."""
    def send(name, args, queue):
        if name == "workers.tournament_entry_ask":
            ENTRY_ASKS.append(tuple(args))
        if name == "workers.game_over":
            from application.finished import done, on_game_over
            svc = app_box[0].extensions["tablepost.service"]
            on_game_over(svc, args[0])
            done(svc.store.r, args[0])
    return send


@pytest.fixture()
def tapp(redis_server):
    box = []
    app = make_app(redis_server.url, SEND_TASK=inline_game_over(box))
    box.append(app)
    return app


class Player:
    def __init__(self, client, tid, name, email, code, rng):
        self.c, self.tid, self.name, self.email, self.rng = client, tid, name, email, rng
        rv = client.post(f"/api/v1/tournaments/{tid}/entries",
                         json={"name": name, "email": email, "invite": code})
        assert rv.status_code == 202, rv.get_json()
        asked_tid, nonce = ENTRY_ASKS.pop()
        assert asked_tid == tid
        confirm = client.application.extensions["tablepost.tournaments"].confirm_token(tid, nonce)
        rv = client.post(f"/api/v1/tournaments/{tid}/entries/confirm", json={"token": confirm})
        assert rv.status_code == 201, rv.get_json()
        self.id = rv.get_json()["player"]
        self.token = rv.get_json()["entry_token"]

    def games(self) -> list[dict]:
        rv = self.c.get(f"/api/v1/tournaments/{self.tid}/my-games",
                        headers={"Authorization": f"Bearer {self.token}"})
        assert rv.status_code == 200, rv.get_json()
        return rv.get_json()["games"]

    def move(self, game: dict) -> bool:
        """Make one move in ``game`` if it is this player's decision; False if not."""
        auth = {"Authorization": f"Bearer {game['token']}"}
        legal = self.c.get(f"/api/v1/games/{game['game']}/legal-moves", headers=auth).get_json()
        if not legal["moves"]:
            return False
        moves = [m["move"] for m in legal["moves"]]
        rv = self.c.post(f"/api/v1/games/{game['game']}/moves", headers=auth,
                         json={"expected_version": legal["version"], "moves": [self.rng.choice(moves)]})
        assert rv.status_code == 200, rv.get_json()
        return True


def play_round(client, players: dict[str, Player]) -> int:
    """Every scripted player plays their unfinished games until all are finished."""
    seats = {}
    for p in players.values():
        for g in p.games():
            if not g["finished"]:
                seats.setdefault(g["game"], {})[g["seat"]] = (p, g)
    moves = 0
    for game_id, by_seat in seats.items():
        while True:
            summary = client.get(f"/api/v1/games/{game_id}").get_json()
            if summary["status"] == "finished":
                break
            actor = summary["to_act"][0]
            p, g = by_seat[actor]
            assert p.move(g)
            moves += 1
    return moves


def run_tournament(client, body: dict, n: int, seed: int):
    rv = client.post("/api/v1/tournaments", json={**body, "invite": True, "seed": f"tour-{seed}"})
    assert rv.status_code == 201, rv.get_json()
    created = rv.get_json()
    tid, code = created["id"], created["invite_code"]
    rng = random.Random(seed)
    players = {}
    for i in range(n):
        p = Player(client, tid, f"Player {i + 1}", f"player{i + 1}@example.org", code,
                   random.Random(rng.random()))
        players[p.id] = p
    rv = client.post(f"/api/v1/tournaments/{tid}/start",
                     headers={"Authorization": f"Bearer {created['organizer_token']}"})
    assert rv.status_code == 200, rv.get_json()
    for _ in range(20):
        t = client.get(f"/api/v1/tournaments/{tid}").get_json()
        if t["status"] == "finished":
            break
        assert play_round(client, players) > 0
    return tid, players, client.get(f"/api/v1/tournaments/{tid}").get_json()


def check_rounds(client, t: dict, field: set[str], table_size: int) -> None:
    """Every pairing valid: tables of 2..table_size, every player of the field exactly once a
    round (seated or a bye), every game really played to its recorded result."""
    for r in t["rounds"]:
        assert r["closed"]
        seated = [p for tb in r["tables"] for p in tb["players"]]
        assert len(seated) == len(set(seated)), f"a player seated twice in round {r['round']}"
        assert not set(seated) & set(r["byes"])
        assert set(seated) | set(r["byes"]) == field
        for tb in r["tables"]:
            assert 2 <= len(tb["players"]) <= table_size
            game = client.get(f"/api/v1/games/{tb['game']}").get_json()
            assert game["status"] == "finished"
            assert [s["score"] for s in game["seats"]] == tb["result"]["scores"]
            assert tb["result"]["finish"][game["winner"]] == 1
            assert sorted(tb["result"]["finish"]) == list(range(1, len(tb["players"]) + 1))


def expected_points(t: dict, bye_points: Fraction) -> tuple[dict, dict]:
    """Points and VP recomputed by hand from the recorded results: (n - place) / (n - 1), and
    players who share a place share the points of the places they cover (docs/tournaments.md)."""
    points: dict[str, Fraction] = Counter()
    vp: dict[str, int] = Counter()
    for r in t["rounds"]:
        for p in r["byes"]:
            points[p] += bye_points
        for tb in r["tables"]:
            n = len(tb["players"])
            finish = tb["result"]["finish"]
            for p, place, score in zip(tb["players"], finish, tb["result"]["scores"]):
                tied = finish.count(place)
                points[p] += sum(Fraction(n - (place + j), n - 1) for j in range(tied)) / tied
                vp[p] += score
    return points, vp


def check_standings(client, tid: str, t: dict, bye_points: Fraction) -> list[dict]:
    rows = client.get(f"/api/v1/tournaments/{tid}/standings").get_json()["standings"]
    points, vp = expected_points(t, bye_points)
    for row in rows:
        assert Fraction(row["points"]).limit_denominator(1000) == points[row["player"]]
        assert row["vp"] == vp[row["player"]]
    keys = [(-row["points"], -row["vp"]) for row in rows]
    assert keys == sorted(keys), "ranked by points, then VP"
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    return rows


def test_swiss_of_8_players_over_4_rounds(tapp):
    client = tapp.test_client()
    tid, players, t = run_tournament(
        client, {"name": "Swiss 8", "format": "swiss", "rounds": 4, "table_size": 2},
        8, seed=12)
    assert t["status"] == "finished" and len(t["rounds"]) == 4
    check_rounds(client, t, set(players), 2)
    met = Counter(frozenset(pair) for r in t["rounds"] for tb in r["tables"]
                  for pair in itertools.combinations(tb["players"], 2))
    assert max(met.values()) == 1, "8 players over 4 rounds never need a repeat opponent"
    firsts = Counter(tb["players"][0] for r in t["rounds"] for tb in r["tables"])
    assert all(1 <= firsts[p] <= 3 for p in players), "seat order is balanced across rounds"
    rows = check_standings(client, tid, t, Fraction(1))
    assert {row["player"] for row in rows} == set(players)
    # every game was rated in the multiplayer pool, and the ratings know every player
    board = client.get("/api/v1/ratings?pool=tiletum:multiplayer&limit=200").get_json()
    rated = {row["player"]: row["games"] for row in board["ratings"]}
    assert all(rated[p] >= 4 for p in players)
    hist = client.get(f"/api/v1/ratings/{next(iter(players))}").get_json()["history"]
    mine = {g["game"] for g in players[next(iter(players))].games()}
    assert mine <= {h["game"] for h in hist}


def test_round_robin_of_5_players(tapp):
    client = tapp.test_client()
    tid, players, t = run_tournament(client, {"name": "RR 5", "format": "round_robin", "table_size": 2}, 5,
                                     seed=5)
    assert t["status"] == "finished"
    assert len(t["rounds"]) == 5 and t["rounds_planned"] == 5
    check_rounds(client, t, set(players), 2)
    met = Counter(frozenset(tb["players"]) for r in t["rounds"] for tb in r["tables"])
    assert set(met) == {frozenset(p) for p in itertools.combinations(players, 2)}, "every pairing once"
    assert set(met.values()) == {1}
    assert all(len(r["byes"]) == 1 for r in t["rounds"])
    assert Counter(p for r in t["rounds"] for p in r["byes"]) == Counter({p: 1 for p in players})
    check_standings(client, tid, t, Fraction(0))


def test_a_carcassonne_swiss_is_played_through_the_api_and_rated_in_its_own_pool(tapp):
    """A tournament is of one game (issue 18): every table plays Carcassonne, the results are its
    scores (tied seats share a place: Carcassonne has no tie-break), and the ratings go to the
    Carcassonne pool, not to Tiletum's."""
    client = tapp.test_client()
    tiletum_before = client.get("/api/v1/ratings?pool=tiletum:multiplayer&limit=200").get_json()
    tid, players, t = run_tournament(client, {"name": "Carc Swiss", "game": "carcassonne", "format": "swiss",
                                              "rounds": 2, "table_size": 3}, 6, seed=33)
    assert t["status"] == "finished" and t["game"] == "carcassonne" and len(t["rounds"]) == 2
    for r in t["rounds"]:
        for tb in r["tables"]:
            assert len(tb["players"]) == 3
            game = client.get(f"/api/v1/games/{tb['game']}").get_json()
            assert game["game"] == "carcassonne" and game["status"] == "finished"
            scores = [s["score"] for s in game["seats"]]
            assert scores == tb["result"]["scores"]
            for seat, place in enumerate(tb["result"]["finish"]):
                assert place == 1 + sum(1 for v in scores if v > scores[seat])
    check_standings(client, tid, t, Fraction(1))
    board = client.get("/api/v1/ratings?pool=carcassonne:multiplayer&limit=200").get_json()
    assert {row["player"] for row in board["ratings"]} >= set(players)
    assert all(row["games"] == 2 for row in board["ratings"] if row["player"] in players)
    assert client.get("/api/v1/ratings?pool=tiletum:multiplayer&limit=200").get_json() == tiletum_before
    brief = client.get("/api/v1/tournaments").get_json()["tournaments"]
    assert {b["id"]: b["game"] for b in brief}[tid] == "carcassonne"


@pytest.mark.parametrize("body, field", [
    ({"game": "chess", "table_size": 2}, "game"),
    ({"game": "tiletum", "table_size": 5}, "table_size"),
    ({"game": "carcassonne", "table_size": 6}, "table_size"),
    ({"game": "carcassonne", "table_size": 2, "action_tiles": "shuffled"}, "action_tiles"),
])
def test_a_tournament_of_a_game_that_cannot_seat_its_tables_is_refused_and_creates_nothing(tapp, body, field):
    client = tapp.test_client()
    before = client.get("/api/v1/tournaments?limit=200").get_json()["tournaments"]
    rv = client.post("/api/v1/tournaments", json={"name": "Bad", "format": "round_robin", **body})
    assert rv.status_code == 422 and rv.content_type == "application/problem+json"
    problem = rv.get_json()
    assert problem["code"] == "invalid-request" and field in str(problem), problem
    assert client.get("/api/v1/tournaments?limit=200").get_json()["tournaments"] == before
