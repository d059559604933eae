"""GET /api/v1/games/{id}/hint: the AI's suggestion for the seat's own decision, over real HTTP
and a real Redis: only with the seat's token, only on its decision, never in a rated tournament
game, rate-limited per seat, and legal."""
from __future__ import annotations

import pytest
import requests

from tests.conftest import LiveServer, make_app
from tests.servers import HintWorker

API = "/api/v1/games"


@pytest.fixture()
def server(redis_server, redis_client, tmp_path):
    for k in redis_client.scan_iter("LIMITER*"):
        redis_client.delete(k)
    with HintWorker(redis_server.url, tmp_path / "hints.log") as worker:
        app = make_app(redis_server.url, RATE_LIMIT=1000, HINT_LIMIT="3/hour", HINT_LEVEL="easy",
                       CREATE_LIMIT="1000/hour", NEW_ADDRESS_LIMIT="1000/day", SEND_TASK=worker.send)
        with LiveServer(app) as live:
            yield live.url, app


def create(url, players=3, seed="hint-seed"):
    rv = requests.post(url + API, timeout=10, json={"seats": [{"name": f"P{i}"} for i in range(players)],
                                                     "options": {"seed": seed}})
    assert rv.status_code == 201, rv.text
    return rv.json()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_a_hint_is_legal_and_needs_the_seat_whose_decision_it_is(server):
    url, _ = server
    g = create(url)
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    rv = requests.get(f"{url}{API}/{gid}/hint", timeout=10)
    assert rv.status_code == 401 and rv.json()["code"] == "unauthorized"
    rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer("not-a-token"), timeout=10)
    assert rv.status_code == 401
    to_act = requests.get(f"{url}{API}/{gid}", timeout=10).json()["to_act"][0]
    other = (to_act + 1) % 3
    rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(tokens[other]), timeout=10)
    assert rv.status_code == 403 and rv.json()["code"] == "not-your-turn"
    assert rv.headers["Content-Type"].startswith("application/problem+json")
    rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(tokens[to_act]), timeout=30)
    assert rv.status_code == 200, rv.text
    hint = rv.json()
    assert hint["seat"] == to_act and hint["level"] == "easy" and hint["moves"]
    legal = requests.get(f"{url}{API}/{gid}/legal-moves", headers=bearer(tokens[to_act]), timeout=10).json()
    assert hint["version"] == legal["version"] and hint["moves"][0] in {m["move"] for m in legal["moves"]}
    # the suggested moves are accepted as they are
    rv = requests.post(f"{url}{API}/{gid}/moves", headers=bearer(tokens[to_act]), timeout=10,
                       json={"expected_version": hint["version"], "moves": hint["moves"]})
    assert rv.status_code == 200, rv.text
    assert "seed" not in str(hint).lower()


def test_hints_are_rate_limited_per_seat(server):
    url, _ = server
    g = create(url, seed="hint-limit")
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    to_act = requests.get(f"{url}{API}/{gid}", timeout=10).json()["to_act"][0]
    me = bearer(tokens[to_act])

    def hint():
        return requests.get(f"{url}{API}/{gid}/hint", headers=me, timeout=30)

    def play(move=None):   # a new position of the same seat: its first legal move, or undo
        lm = requests.get(f"{url}{API}/{gid}/legal-moves", headers=me, timeout=10).json()
        move = move or lm["moves"][0]["move"]
        rv = requests.post(f"{url}{API}/{gid}/moves", headers=me, timeout=10,
                           json={"expected_version": lm["version"], "moves": [move]})
        assert rv.status_code == 200, rv.text

    # each hint the server computes costs one; asking again for the same position costs nothing
    codes = [hint().status_code, hint().status_code]
    play()
    codes += [hint().status_code]
    play("undo")
    codes += [hint().status_code, hint().status_code]
    play()
    rv = hint()
    assert codes + [rv.status_code] == [200, 200, 200, 200, 200, 429], codes
    assert rv.json()["code"] == "rate-limited" and int(rv.headers["Retry-After"]) > 0
    assert rv.headers["Content-Type"] == "application/problem+json"
    # the seat's other requests are not blocked by its hint budget
    assert requests.get(f"{url}{API}/{gid}/legal-moves", headers=bearer(tokens[to_act]),
                        timeout=10).status_code == 200


def test_hints_are_off_in_rated_tournament_games(server):
    url, app = server
    from api.extensions import service
    with app.app_context():
        svc = service()
        # a tournament's games seat the entrants with their addresses (application/tournament_service.py)
        entrants = [{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]
        created = svc.create_game(entrants, {"rated": True}, tokens=["tok-a-rated", "tok-b-rated"],
                                  extra_meta={"tournament": {"id": "T1", "round": 1, "table": 1}},
                                  game="tiletum")
        unrated = svc.create_game(entrants, {"rated": False}, tokens=["tok-a-free", "tok-b-free"],
                                  extra_meta={"tournament": {"id": "T2", "round": 1, "table": 1}},
                                  game="tiletum")
    for gid, toks, status in ((created["id"], ["tok-a-rated", "tok-b-rated"], 403),
                              (unrated["id"], ["tok-a-free", "tok-b-free"], 200)):
        to_act = requests.get(f"{url}{API}/{gid}", timeout=10).json()["to_act"][0]
        rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(toks[to_act]), timeout=30)
        assert rv.status_code == status, rv.text
        if status == 403:
            assert rv.json()["code"] == "hints-off"


@pytest.fixture()
def impatient(redis_server, redis_client, tmp_path):
    """A server that waits no time for a hint: every first ask finds it still being computed."""
    for k in redis_client.scan_iter("LIMITER*"):
        redis_client.delete(k)
    with HintWorker(redis_server.url, tmp_path / "hints.log") as worker:
        app = make_app(redis_server.url, RATE_LIMIT=1000, HINT_LIMIT="100/hour", HINT_LEVEL="medium",
                       HINT_WAIT=0, CREATE_LIMIT="1000/hour", NEW_ADDRESS_LIMIT="1000/day",
                       SEND_TASK=worker.send)
        with LiveServer(app) as live:
            yield live.url, worker


def test_a_hint_is_computed_off_the_request_thread_and_asked_for_again(impatient):
    """The search runs on the hints worker: a request that does not wait gets 202 with Retry-After
    at once, and asking again gets the same task's answer (not a second search)."""
    import time

    import ai
    url, worker = impatient
    g = create(url, seed="hint-off-thread")
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    to_act = requests.get(f"{url}{API}/{gid}", timeout=10).json()["to_act"][0]
    rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(tokens[to_act]), timeout=10)
    assert rv.status_code == 202, rv.text
    assert rv.headers["Retry-After"] == "2"
    body = rv.json()
    assert body["status"] == "computing" and body["seat"] == to_act and "moves" not in body
    for _ in range(100):
        rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(tokens[to_act]), timeout=10)
        if rv.status_code == 200:
            break
        assert rv.status_code == 202
        time.sleep(0.1)
    assert rv.status_code == 200, rv.text
    hint = rv.json()
    # one search, on the hints worker
    assert worker.text().count("succeeded") == 1 and "workers.hint[" in worker.text(), worker.text()[-3000:]
    state = requests.get(f"{url}{API}/{gid}/state", headers=bearer(tokens[to_act]), timeout=10).json()
    assert hint["moves"] == ai.decide(state, "medium", f"{gid}:{hint['version']}")
