"""Racing writers over real HTTP against a real Redis: many clients submitting for the same turn
at the same version; exactly one append wins, the others get 409, and the event stream has no
duplicate and no lost event. Idempotent retries racing each other append once."""
from __future__ import annotations

import collections
import threading

import pytest
import requests

import tiletum
from application.store import key
from conftest import LiveServer, make_app

API = "/api/v1/games"
THREADS = 12


@pytest.fixture(scope="module")
def server(redis_server):
    with LiveServer(make_app(redis_server.url)) as live:
        yield live


def new_game(base: str, players: int, seed: str) -> dict:
    r = requests.post(base + API, json={"seats": [{"name": f"P{i}"} for i in range(players)],
                                        "options": {"seed": seed}}, timeout=30)
    assert r.status_code == 201, r.text
    game = r.json()
    game["tokens"] = [s["token"] for s in game["seats"]]
    return game


def events_of(base: str, gid: str) -> list[dict]:
    """The game's events as stored (without the ``text`` in words that GET /events adds)."""
    r = requests.get(f"{base}{API}/{gid}/events", timeout=30)
    assert r.status_code == 200
    return [{k: v for k, v in e.items() if k != "text"} for e in r.json()["events"]]


def advance(base: str, game: dict, n: int) -> tiletum.GameState:
    gid, tokens = game["id"], game["tokens"]
    state = tiletum.replay(events_of(base, gid))
    for i in range(n):
        moves = tiletum.legal_moves(state)
        move = moves[(7 * i) % len(moves)]
        r = requests.post(f"{base}{API}/{gid}/moves", timeout=30,
                          headers={"Authorization": f"Bearer {tokens[state.actor]}"},
                          json={"expected_version": state.version, "moves": [move]})
        assert r.status_code == 200, r.text
        for ev in r.json()["events"]:
            state = tiletum.evolve(state, ev)
    return state


def race(base: str, gid: str, requests_: list[tuple[dict, dict]]) -> list[tuple[int, dict]]:
    """Sends every (headers, body) POST to /moves from its own thread and connection, all
    released at once. Returns (status, json) per request, in order."""
    sessions = [requests.Session() for _ in requests_]
    for s in sessions:                    # open every connection before the start
        assert s.get(base + "/health", timeout=30).status_code == 200
    barrier = threading.Barrier(len(requests_))
    out: list = [None] * len(requests_)

    def worker(i: int) -> None:
        headers, body = requests_[i]
        barrier.wait()
        try:
            r = sessions[i].post(f"{base}{API}/{gid}/moves", headers=headers, json=body, timeout=60)
            out[i] = (r.status_code, r.json())
        except Exception as e:  # pragma: no cover - reported by the assertion below
            out[i] = (0, {"exception": repr(e)})

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(requests_))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for s in sessions:
        s.close()
    assert all(o is not None for o in out), "a request never finished"
    return out


def check_log(base: str, redis_client, gid: str, version: int) -> list[dict]:
    """The event log is exactly versions 1..version, in the API and in the Redis stream."""
    events = events_of(base, gid)
    assert [e["version"] for e in events] == list(range(1, version + 1))
    assert redis_client.xlen(key(gid, "events")) == version
    ids = [i.decode() for i, _ in redis_client.xrange(key(gid, "events"))]
    assert ids == [f"{n}-0" for n in range(1, version + 1)]
    return events


@pytest.mark.parametrize("players,advance_by", [(2, 0), (3, 30), (4, 120)])
def test_racing_submissions_exactly_one_wins(server, redis_client, players, advance_by):
    """The same move for the same turn from many clients at once: one 200, the rest 409 naming
    the version the winner made. (At 120 moves the game is read from a snapshot.)"""
    base = server.url
    game = new_game(base, players, seed=f"race-{players}")
    gid = game["id"]
    state = advance(base, game, advance_by)
    for round_ in range(3):
        v = state.version
        token = game["tokens"][state.actor]
        move = tiletum.legal_moves(state)[round_ % len(tiletum.legal_moves(state))]
        body = {"expected_version": v, "moves": [move]}
        results = race(base, gid, [({"Authorization": f"Bearer {token}"}, body)] * THREADS)
        statuses = collections.Counter(s for s, _ in results)
        others = [b for s, b in results if s not in (200, 409)]
        assert statuses == {200: 1, 409: THREADS - 1}, (statuses, others)
        winner = next(b for s, b in results if s == 200)
        assert winner["version"] == v + 1 and len(winner["events"]) == 1
        for status, b in results:
            if status == 409:
                assert b["code"] == "version-conflict" and b["current_version"] == v + 1, b
        events = check_log(base, redis_client, gid, v + 1)
        assert events[-1] == winner["events"][0]
        assert events[-1]["move"] == str(tiletum.parse(move)) and events[-1]["seat"] == state.actor
        state = tiletum.evolve(state, winner["events"][0])
        assert tiletum.replay(events).to_doc() == state.to_doc()


def test_racing_different_moves_one_wins_and_it_is_the_one_logged(server, redis_client):
    base = server.url
    game = new_game(base, 3, seed="race-different")
    gid = game["id"]
    state = advance(base, game, 9)
    v = state.version
    moves = tiletum.legal_moves(state)
    assert len(moves) >= 2
    token = game["tokens"][state.actor]
    sent = [moves[i % len(moves)] for i in range(THREADS)]
    results = race(base, gid, [({"Authorization": f"Bearer {token}"}, {"expected_version": v, "moves": [m]})
                               for m in sent])
    statuses = collections.Counter(s for s, _ in results)
    assert statuses == {200: 1, 409: THREADS - 1}, statuses
    i = next(i for i, (s, _) in enumerate(results) if s == 200)
    events = check_log(base, redis_client, gid, v + 1)
    assert events[-1] == results[i][1]["events"][0]
    assert events[-1]["move"] == str(tiletum.parse(sent[i]))
    assert all(b["current_version"] == v + 1 for s, b in results if s == 409)


def test_racing_seats_only_the_actor_can_win(server, redis_client):
    """Every seat submits at once: only the seat to act can win. The others get 403 or, when
    the winner's append came first, 409 (their version is stale too): never 200."""
    base = server.url
    game = new_game(base, 4, seed="race-seats")
    gid = game["id"]
    state = tiletum.replay(events_of(base, gid))
    move = tiletum.legal_moves(state)[0]
    reqs = [({"Authorization": f"Bearer {game['tokens'][i % 4]}"}, {"expected_version": 1, "moves": [move]})
            for i in range(THREADS)]
    results = race(base, gid, reqs)
    for i, (status, b) in enumerate(results):
        if status == 409:
            assert b["code"] == "version-conflict" and b["current_version"] == 2, b
        elif i % 4 == state.actor:
            assert status == 200, b
        else:
            assert status == 403 and b["code"] == "not-your-turn" and b["move_index"] == 0, b
    assert [s for s, _ in results].count(200) == 1
    events = check_log(base, redis_client, gid, 2)
    assert events[-1]["seat"] == state.actor


def idempotent_request(game: dict, state: tiletum.GameState, tag: str) -> tuple[dict, dict]:
    headers = {"Authorization": f"Bearer {game['tokens'][state.actor]}",
               "Idempotency-Key": f"same-request-{tag}"}
    return headers, {"expected_version": state.version, "moves": [tiletum.legal_moves(state)[0]]}


def test_racing_idempotent_retries_append_once(server, redis_client):
    """The same request with the same Idempotency-Key from many clients at once: exactly one
    append, and every 200 answer is that append's answer (see the next test for the others)."""
    base = server.url
    game = new_game(base, 2, seed="race-idem")
    gid = game["id"]
    state = tiletum.replay(events_of(base, gid))
    for trial in range(5):
        v = state.version
        headers, body = idempotent_request(game, state, str(trial))
        results = race(base, gid, [(headers, body)] * THREADS)
        assert all(s in (200, 409) for s, _ in results), results
        answers = [b for s, b in results if s == 200]
        assert answers and all(a == answers[0] for a in answers)
        assert answers[0]["version"] == v + 1 and len(answers[0]["events"]) == 1
        events = check_log(base, redis_client, gid, v + 1)
        assert events[-1] == answers[0]["events"][0]
        state = tiletum.evolve(state, answers[0]["events"][0])
        # a retry now, alone, gets the same answer and appends nothing
        r = requests.post(f"{base}{API}/{gid}/moves", headers=headers, json=body, timeout=30)
        assert r.status_code == 200 and r.json() == answers[0]
        check_log(base, redis_client, gid, v + 1)


def test_racing_idempotent_retries_all_get_the_first_answer(server, redis_client):
    base = server.url
    game = new_game(base, 2, seed="race-idem-all")
    gid = game["id"]
    state = tiletum.replay(events_of(base, gid))
    for trial in range(30):      # the race is lost in about half the trials; 30 make a miss negligible
        v = state.version
        headers, body = idempotent_request(game, state, str(trial))
        results = race(base, gid, [(headers, body)] * THREADS)
        events = check_log(base, redis_client, gid, v + 1)
        state = tiletum.evolve(state, events[-1])
        statuses = collections.Counter(s for s, _ in results)
        assert statuses == {200: THREADS}, (f"trial {trial}: {dict(statuses)}",
                                            next((b for s, b in results if s != 200), None))
        assert all(b == results[0][1] for _, b in results)
