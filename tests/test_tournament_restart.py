"""A tournament survives a restart of every process in the middle (issue 7).

`tablepost serve` runs for real (its own Redis with AOF, gunicorn, the Celery worker and beat, the
bot worker, the mail listener). Scripted players play over HTTP; the game-over follow-up that
pairs the next round runs in the real worker. In the middle of round 2 -- right after a game's
last move, before anyone could know whether its follow-up ran -- every process is killed with
SIGKILL, the service is started again on the same data directory, and the tournament is played
to its end: no move, result or round is lost, and no game is created twice."""
from __future__ import annotations

import random
import time
from collections import Counter

import pytest
import requests

from api.redis_server import free_port
from tests.servers import Serve, wait_for


def whole_service(data) -> Serve:
    """The whole service with its workers; scripted players move far faster than people."""
    return Serve(data, "--workers", "2", "--allow-seeded-games", "--mailin-port", str(free_port()),
                 env={"TABLEPOST_SWEEP_SECONDS": "1", "TABLEPOST_MAIL_DUE_SECONDS": "2",
                      "TABLEPOST_BOT_DUE_SECONDS": "2", "TABLEPOST_RATE_LIMIT": "0"})


def play_game_to_end(http, url, game_id, tokens_by_seat, rng, stop_after=None):
    n = 0
    while stop_after is None or n < stop_after:
        rv = http.get(f"{url}/api/v1/games/{game_id}", timeout=10)
        assert rv.status_code == 200, rv.text
        g = rv.json()
        if g["status"] == "finished":
            return True
        auth = {"Authorization": f"Bearer {tokens_by_seat[g['to_act'][0]]}"}
        legal = http.get(f"{url}/api/v1/games/{game_id}/legal-moves", headers=auth, timeout=10).json()
        rv = http.post(f"{url}/api/v1/games/{game_id}/moves", headers=auth, timeout=10,
                       json={"expected_version": legal["version"],
                             "moves": [rng.choice(legal["moves"])["move"]]})
        assert rv.status_code == 200, rv.text
        n += 1
    return False


def current_round(http, url, tid):
    """The tournament and its open round, once every table of that round has its game: a round
    is paired a moment before its games are created, and until then it counts as not there yet
    (as between rounds)."""
    t = http.get(f"{url}/api/v1/tournaments/{tid}", timeout=10).json()
    r = t["rounds"][-1] if t["rounds"] and not t["rounds"][-1]["closed"] else None
    if r is not None and any(tb.get("game") is None for tb in r["tables"]):
        r = None
    return t, r


def seat_tokens(http, url, tid, entries):
    tokens: dict[str, dict[int, str]] = {}
    for e in entries:
        mine = http.get(f"{url}/api/v1/tournaments/{tid}/my-games", timeout=10,
                        headers={"Authorization": f"Bearer {e['entry_token']}"}).json()
        for g in mine["games"]:
            tokens.setdefault(g["game"], {})[g["seat"]] = g["token"]
    return tokens


@pytest.mark.long(60)
def test_a_tournament_survives_a_restart_of_every_process(tmp_path):
    serve = whole_service(tmp_path).start()
    http = requests.Session()
    rng = random.Random(7)
    try:
        url = serve.url
        rv = http.post(f"{url}/api/v1/tournaments", timeout=10, json={
            "name": "Restart Swiss", "format": "swiss", "rounds": 3, "table_size": 2, "invite": True,
            "seed": "restart"})
        assert rv.status_code == 201, rv.text
        created = rv.json()
        tid = created["id"]
        entries = []
        for i in range(6):
            # the organizer enters them
            rv = http.post(f"{url}/api/v1/tournaments/{tid}/entries", timeout=10,
                           headers={"Authorization": f"Bearer {created['organizer_token']}"},
                           json={"name": f"R{i}", "email": f"r{i}@example.org"})
            assert rv.status_code == 201, rv.text
            entries.append(rv.json())
        rv = http.post(f"{url}/api/v1/tournaments/{tid}/start", timeout=10,
                       headers={"Authorization": f"Bearer {created['organizer_token']}"})
        assert rv.status_code == 200, rv.text

        # round 1 to the end; the worker pairs round 2
        r1 = wait_for(lambda: current_round(http, url, tid)[1], what="round 1's games")
        tokens = seat_tokens(http, url, tid, entries)
        for tb in r1["tables"]:
            assert play_game_to_end(http, url, tb["game"], tokens[tb["game"]], rng)
        wait_for(lambda: len(current_round(http, url, tid)[0]["rounds"]) == 2, what="round 2 to be paired")

        # round 2: one game finished (its follow-up may or may not have run), one half played
        r2 = wait_for(lambda: current_round(http, url, tid)[1], what="round 2's games")
        tokens = seat_tokens(http, url, tid, entries)
        assert play_game_to_end(http, url, r2["tables"][0]["game"], tokens[r2["tables"][0]["game"]], rng)
        play_game_to_end(http, url, r2["tables"][1]["game"], tokens[r2["tables"][1]["game"]], rng,
                         stop_after=25)
        before = http.get(f"{url}/api/v1/games/{r2['tables'][1]['game']}", timeout=10).json()["version"]
        serve.kill()

        serve = whole_service(tmp_path).start()
        url = serve.url
        after = http.get(f"{url}/api/v1/games/{r2['tables'][1]['game']}", timeout=10).json()["version"]
        assert after == before, "no move lost in the restart"
        for _ in range(10):
            t, r = current_round(http, url, tid)
            if t["status"] == "finished":
                break
            if r is None:  # between rounds: the worker is pairing the next one
                wait_for(lambda: current_round(http, url, tid)[1] is not None
                         or current_round(http, url, tid)[0]["status"] == "finished", what="the next round")
                continue
            tokens = seat_tokens(http, url, tid, entries)
            for tb in r["tables"]:
                play_game_to_end(http, url, tb["game"], tokens[tb["game"]], rng)
            wait_for(lambda: (current_round(http, url, tid)[1] or {}).get("round") != r["round"],
                     what=f"round {r['round']} to close")
        t = wait_for(lambda: (lambda t: t if t["status"] == "finished" else None)(
            http.get(f"{url}/api/v1/tournaments/{tid}", timeout=10).json()), what="the tournament to finish")
        assert [r["round"] for r in t["rounds"]] == [1, 2, 3] and all(r["closed"] for r in t["rounds"])
        games = [tb["game"] for r in t["rounds"] for tb in r["tables"]]
        assert len(games) == len(set(games)) == 9
        for r in t["rounds"]:
            seated = Counter(p for tb in r["tables"] for p in tb["players"])
            assert set(seated.values()) == {1} and len(seated) == 6
            for tb in r["tables"]:
                assert tb["result"] is not None and not tb["result"]["adjudicated"]
        rows = http.get(f"{url}/api/v1/tournaments/{tid}/standings", timeout=10).json()["standings"]
        assert sum(row["points"] for row in rows) == 9, "one point per 2-player game, none lost or doubled"
        # every game was rated exactly once, after the restart too. Rating is the game's own
        # follow-up task: the tournament may close (by the sweep or another game's follow-up)
        # a moment before the last game's rating is written, so wait for it, then check that
        # nothing is counted twice.
        mine = {e["player"] for e in entries}

        def rated_games():
            board = http.get(f"{url}/api/v1/ratings?pool=tiletum:multiplayer&limit=200", timeout=10).json()
            return sum(row["games"] for row in board["ratings"] if row["player"] in mine)
        wait_for(lambda: rated_games() >= 18, what="every game to be rated")
        time.sleep(1.0)
        assert rated_games() == 18
    finally:
        serve.stop()
