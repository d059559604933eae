"""Every error the REST API answers, over real HTTP against a real Redis: its status, its
problem+json body with a stable ``code``, and that a failing request changed nothing."""
from __future__ import annotations

import hashlib
import json
import socket

import pytest
import requests

import tiletum
from application.store import key
from conftest import LiveServer, make_app

API = "/api/v1/games"
PROBLEM = "application/problem+json"
SEED = "errors-seed-1"


# --- helpers ---------------------------------------------------------------------------------

class Http:
    def __init__(self, base: str):
        self.base = base
        self.s = requests.Session()

    def call(self, method: str, path: str, token: str | None = None, **kw) -> requests.Response:
        headers = dict(kw.pop("headers", {}) or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.s.request(method, self.base + path, headers=headers, timeout=30, **kw)

    def get(self, path, token=None, **kw):
        return self.call("GET", path, token, **kw)

    def post(self, path, token=None, **kw):
        return self.call("POST", path, token, **kw)

    def ok(self, method, path, token=None, status=200, **kw) -> dict:
        r = self.call(method, path, token, **kw)
        assert r.status_code == status, f"{method} {path}: {r.status_code} {r.text[:300]}"
        return r.json()


@pytest.fixture(scope="module")
def server(redis_server):
    """One live server for the module (a server takes half a second to shut down)."""
    with LiveServer(make_app(redis_server.url)) as live:
        yield live


@pytest.fixture()
def http(server):
    h = Http(server.url)
    yield h
    h.s.close()


def problem(r: requests.Response, status: int, code: str) -> dict:
    """Asserts ``r`` is an RFC 9457 problem document with this status and code; returns it."""
    assert r.status_code == status, f"expected {status} {code}, got {r.status_code}: {r.text[:300]}"
    assert r.headers["Content-Type"].split(";")[0].strip() == PROBLEM, r.headers["Content-Type"]
    body = r.json()
    assert body["code"] == code, body
    assert body["status"] == status
    assert isinstance(body["type"], str) and body["type"] and body["type"].endswith(code)
    assert isinstance(body["title"], str) and body["title"]
    return body


def new_game(http: Http, players: int = 2, seed: str = SEED) -> dict:
    body = http.ok("POST", API, json={"seats": [{"name": f"P{i}"} for i in range(players)],
                                      "options": {"seed": seed}}, status=201)
    body["tokens"] = [s["token"] for s in body["seats"]]
    return body


def position(http: Http, gid: str) -> tiletum.GameState:
    return tiletum.replay(http.ok("GET", f"{API}/{gid}/events")["events"])


def advance(http: Http, game: dict, n: int) -> tiletum.GameState:
    """Plays ``n`` moves (the first legal move each time)."""
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    for _ in range(n):
        move = tiletum.legal_moves(state)[0]
        http.ok("POST", f"{API}/{gid}/moves", tokens[state.actor],
                json={"expected_version": state.version, "moves": [move]})
        state = position(http, gid)
    return state


def observe(http: Http, redis_client, gid: str) -> dict:
    """Everything a failing request must leave as it was."""
    return {
        "summary": http.ok("GET", f"{API}/{gid}"),
        "state": http.ok("GET", f"{API}/{gid}/state"),
        "events": http.ok("GET", f"{API}/{gid}/events"),
        "record": http.get(f"{API}/{gid}/record").text,
        "stream": redis_client.xlen(key(gid, "events")),
        "keys": sorted(redis_client.scan_iter(match=key(gid, "*"))),
    }


def game_count(redis_client) -> int:
    return sum(1 for _ in redis_client.scan_iter(match="g:*:meta", count=1000))


def same_turn_moves(state: tiletum.GameState, until_end: bool) -> list[str]:
    """Moves of the seat to act from ``state``, by the engine: the first legal move each time
    (``end`` as soon as it is legal when ``until_end``) while the seat stays the actor; the game
    is seeded with SEED, so the engine plays them exactly as the server will. With ``until_end``
    the list ends with ``end``, else it has two moves."""
    seat, s, out = state.actor, state, []
    for _ in range(40):
        legal = tiletum.legal_moves(s)
        move = "end" if until_end and "end" in legal else legal[0]
        s = tiletum.play(s, seat, move, seed=SEED)[1]
        out.append(move)
        if move == "end" or (not until_end and len(out) == 2):
            return out
        assert s.actor == seat, "pick another seed for this test"
    raise AssertionError("no end of turn found")


# --- 401 -------------------------------------------------------------------------------------

def test_seat_routes_need_a_token(http, redis_client):
    game = new_game(http)
    gid = game["id"]
    before = observe(http, redis_client, gid)
    r = http.get(f"{API}/{gid}/legal-moves")
    problem(r, 401, "unauthorized")
    assert r.headers["WWW-Authenticate"].lower().startswith("bearer")
    move = tiletum.legal_moves(position(http, gid))[0]
    r = http.post(f"{API}/{gid}/moves", json={"expected_version": 1, "moves": [move]})
    problem(r, 401, "unauthorized")
    assert r.headers["WWW-Authenticate"].lower().startswith("bearer")
    assert observe(http, redis_client, gid) == before


@pytest.mark.parametrize("auth", ["wrong", "other-game", "basic", "token-scheme", "no-scheme", "empty-bearer",
                                  "bare-bearer"])
def test_bad_credentials_are_401(http, redis_client, auth):
    game, other = new_game(http), new_game(http, seed="errors-other")
    gid, token = game["id"], game["tokens"][0]
    header = {"wrong": "Bearer " + "x" * 32, "other-game": "Bearer " + other["tokens"][0],
              "basic": "Basic " + token, "token-scheme": "Token " + token, "no-scheme": token,
              "empty-bearer": "Bearer   ", "bare-bearer": "Bearer"}[auth]
    headers = {"Authorization": header}
    before = observe(http, redis_client, gid)
    move = tiletum.legal_moves(position(http, gid))[0]
    routes = (("GET", f"{API}/{gid}/state", {}), ("GET", f"{API}/{gid}/legal-moves", {}),
              ("POST", f"{API}/{gid}/moves", {"json": {"expected_version": 1, "moves": [move]}}))
    for method, path, kw in routes:
        r = http.call(method, path, headers=headers, **kw)
        problem(r, 401, "unauthorized")
        assert "bearer" in r.headers.get("WWW-Authenticate", "").lower()
    assert observe(http, redis_client, gid) == before
    # the same header with the right token works
    assert http.get(f"{API}/{gid}/legal-moves", token).status_code == 200


# --- 403 -------------------------------------------------------------------------------------

def test_a_seat_out_of_turn_is_403(http, redis_client):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    idle = 1 - state.actor
    move = tiletum.legal_moves(state)[0]
    before = observe(http, redis_client, gid)
    r = http.post(f"{API}/{gid}/moves", tokens[idle], json={"expected_version": 1, "moves": [move]})
    body = problem(r, 403, "not-your-turn")
    assert body["move_index"] == 0
    assert observe(http, redis_client, gid) == before


def test_a_batch_running_past_the_end_of_the_turn_is_403_and_changes_nothing(http, redis_client):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    seat = state.actor
    turn = same_turn_moves(state, until_end=True)
    assert turn[-1] == "end" and len(turn) >= 2
    after_turn = state
    for m in turn:
        after_turn = tiletum.play(after_turn, seat, m, seed=SEED)[1]
    assert after_turn.actor != seat
    extra = tiletum.legal_moves(after_turn)[0]   # legal for the next seat, not for this one
    before = observe(http, redis_client, gid)
    body = problem(http.post(f"{API}/{gid}/moves", tokens[seat],
                             json={"expected_version": 1, "moves": turn + [extra]}), 403, "not-your-turn")
    assert body["move_index"] == len(turn)
    assert observe(http, redis_client, gid) == before
    # without the extra move the same batch is accepted in one step
    answer = http.ok("POST", f"{API}/{gid}/moves", tokens[seat], json={"expected_version": 1, "moves": turn})
    assert answer["version"] == 1 + len(turn) and len(answer["events"]) == len(turn)


# --- 404 / 405 -------------------------------------------------------------------------------

def test_unknown_game_is_404_on_every_route(http, redis_client):
    game = new_game(http)
    token = game["tokens"][0]
    for method, path, kw in (("GET", "", {}), ("GET", "/state", {}), ("GET", "/legal-moves", {}),
                             ("GET", "/events", {}), ("GET", "/events?after=3", {}), ("GET", "/record", {}),
                             ("GET", "/fairness", {}),
                             ("POST", "/moves", {"json": {"expected_version": 1, "moves": ["end"]}})):
        r = http.call(method, f"{API}/no-such-game{path}", token, **kw)
        body = problem(r, 404, "game-not-found")
        assert "detail" in body
    assert not list(redis_client.scan_iter(match=key("no-such-game", "*")))


@pytest.mark.parametrize("path", ["/api/v1/nothing", "/api/v2/games", "/api/v1/games/x/y/z", "/nothing"])
def test_unknown_route_is_404_not_found(http, path):
    problem(http.get(path), 404, "not-found")


@pytest.mark.parametrize("method,path", [
    ("DELETE", "/api/v1/games/{gid}"), ("PUT", "/api/v1/games/{gid}/state"),
    ("POST", "/api/v1/games/{gid}/events"), ("GET", "/api/v1/games/{gid}/moves"),
    ("PATCH", "/api/v1/games"), ("POST", "/health")])
def test_wrong_method_is_405(http, redis_client, method, path):
    game = new_game(http)
    before = observe(http, redis_client, game["id"])
    r = http.call(method, path.format(gid=game["id"]), game["tokens"][0], json={"expected_version": 1})
    problem(r, 405, "method-not-allowed")
    assert observe(http, redis_client, game["id"]) == before


def test_405_names_the_allowed_methods(http):
    game = new_game(http)
    r = http.call("DELETE", f"{API}/{game['id']}")
    assert r.status_code == 405
    assert {m.strip() for m in r.headers.get("Allow", "").split(",")} >= {"GET"}


# --- 409 -------------------------------------------------------------------------------------

@pytest.mark.parametrize("delta", [-1, -3, +1, +20])
def test_a_stale_or_future_version_is_409(http, redis_client, delta):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = advance(http, game, 4)
    assert state.version == 5
    move = tiletum.legal_moves(state)[0]
    before = observe(http, redis_client, gid)
    body = problem(http.post(f"{API}/{gid}/moves", tokens[state.actor],
                             json={"expected_version": state.version + delta, "moves": [move]}),
                   409, "version-conflict")
    assert body["current_version"] == 5
    assert observe(http, redis_client, gid) == before
    # at the right version the same move goes through
    assert http.ok("POST", f"{API}/{gid}/moves", tokens[state.actor],
                   json={"expected_version": 5, "moves": [move]})["version"] == 6


# --- 422 moves -------------------------------------------------------------------------------

@pytest.mark.parametrize("text,code,rule", [
    ("flibber G4", "bad-notation", "notation"),
    ("take", "bad-notation", "notation"),
    ("take Q9", "bad-notation", "notation"),
    ("merchant Atlantis", "bad-notation", "notation"),
    ("end", "illegal-move", "take-a-die"),
    ("undo", "illegal-move", "nothing-to-undo"),
    ("skip", "illegal-move", "nothing-to-skip"),
])
def test_a_bad_move_is_422_with_index_and_rule(http, redis_client, text, code, rule):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    before = observe(http, redis_client, gid)
    body = problem(http.post(f"{API}/{gid}/moves", tokens[state.actor],
                             json={"expected_version": 1, "moves": [text]}), 422, code)
    assert body["move_index"] == 0 and body["rule"] == rule
    assert isinstance(body.get("detail"), str) and body["detail"]
    assert observe(http, redis_client, gid) == before


def test_a_batch_whose_third_move_is_illegal_changes_nothing(http, redis_client):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    seat = state.actor
    first_two = same_turn_moves(state, until_end=False)
    s = state
    for m in first_two:
        s = tiletum.play(s, seat, m, seed=SEED)[1]
    third = "take " + tiletum.legal_moves(state)[0].split()[1]   # a die again: one die per turn
    err = tiletum.check(s, seat, tiletum.parse(third))
    assert err is not None, f"{third!r} should be illegal after {first_two}"
    assert tiletum.check(state, seat, tiletum.parse(first_two[0])) is None
    before = observe(http, redis_client, gid)
    body = problem(http.post(f"{API}/{gid}/moves", tokens[seat],
                             json={"expected_version": 1, "moves": first_two + [third]}), 422, "illegal-move")
    assert body["move_index"] == 2 and body["rule"] == err[0]
    assert observe(http, redis_client, gid) == before
    # a bad notation as the third move: same, with the notation rule
    body = problem(http.post(f"{API}/{gid}/moves", tokens[seat],
                             json={"expected_version": 1, "moves": first_two + ["%%%"]}), 422, "bad-notation")
    assert body["move_index"] == 2 and body["rule"] == "notation"
    assert observe(http, redis_client, gid) == before
    # the first two alone are fine
    assert http.ok("POST", f"{API}/{gid}/moves", tokens[seat],
                   json={"expected_version": 1, "moves": first_two})["version"] == 3


# --- 422 invalid requests ----------------------------------------------------------------------

SEATS2 = [{"name": "A"}, {"name": "B"}]


@pytest.mark.parametrize("body,field", [
    ({"seats": [{"name": "A"}]}, "seats"),
    ({"seats": [{"name": str(i)} for i in range(5)]}, "seats"),
    ({"seats": []}, "seats"),
    ({}, "seats"),
    ({"seats": [{"name": "A"}, {}]}, "seats"),
    ({"seats": [{"name": "A"}, {"name": ""}]}, "seats"),
    ({"seats": [{"name": "A"}, {"name": "B", "kind": "robot"}]}, "seats"),
    ({"seats": [{"name": "A"}, {"name": "B", "email": "not-an-email"}]}, "seats"),
    ({"seats": "A,B"}, "seats"),
    ({"game": "chess", "seats": SEATS2}, "game"),
    ({"seats": SEATS2, "options": {"bogus": 1}}, "options"),
    ({"seats": SEATS2, "options": {"action_tiles": "upside-down"}}, "options"),
    ({"seats": SEATS2, "options": {"seed": ""}}, "options"),
    ({"seats": SEATS2, "options": "fast"}, "options"),
])
def test_an_invalid_new_game_is_422_and_creates_nothing(http, redis_client, body, field):
    n = game_count(redis_client)
    problem_ = problem(http.post(API, json=body), 422, "invalid-request")
    assert field in problem_["errors"]["json"], problem_
    assert game_count(redis_client) == n


@pytest.mark.parametrize("body,field", [
    ({"moves": ["end"]}, "expected_version"),
    ({"expected_version": 1}, "moves"),
    ({"expected_version": "one", "moves": ["end"]}, "expected_version"),
    ({"expected_version": 0, "moves": ["end"]}, "expected_version"),
    ({"expected_version": 1, "moves": []}, "moves"),
    ({"expected_version": 1, "moves": "end"}, "moves"),
    ({"expected_version": 1, "moves": [""]}, "moves"),
    ({"expected_version": 1, "moves": [7]}, "moves"),
    ({"expected_version": 1, "moves": ["x" * 101]}, "moves"),
    ({"expected_version": 1, "moves": ["end"] * 201}, "moves"),
    ({"expected_version": 1, "moves": ["end"], "extra": True}, "extra"),
])
def test_an_invalid_move_request_is_422_and_changes_nothing(http, redis_client, body, field):
    game = new_game(http)
    gid, token = game["id"], game["tokens"][position(http, game["id"]).actor]
    before = observe(http, redis_client, gid)
    problem_ = problem(http.post(f"{API}/{gid}/moves", token, json=body), 422, "invalid-request")
    assert field in problem_["errors"]["json"], problem_
    assert observe(http, redis_client, gid) == before


def test_a_body_that_is_not_json(http, redis_client):
    game = new_game(http)
    gid, token = game["id"], game["tokens"][position(http, game["id"]).actor]
    before = observe(http, redis_client, gid)
    n = game_count(redis_client)
    # malformed JSON: 400 (the body cannot be read at all), still a problem document
    for path, tok in ((f"{API}/{gid}/moves", token), (API, None)):
        r = http.post(path, tok, data='{"expected_version": 1, "moves": [',
                      headers={"Content-Type": "application/json"})
        problem(r, 400, "invalid-request")
        # not JSON at all: the required fields are missing
        r = http.post(path, tok, data="expected_version=1&moves=end",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
        problem(r, 422, "invalid-request")
    assert observe(http, redis_client, gid) == before
    assert game_count(redis_client) == n


@pytest.mark.parametrize("query", ["after=-1", "after=abc", "after=1.5"])
def test_a_bad_events_query_is_422(http, query):
    game = new_game(http)
    body = problem(http.get(f"{API}/{game['id']}/events?{query}"), 422, "invalid-request")
    assert "after" in body["errors"]["query"]


# --- seeded games ----------------------------------------------------------------------------

def test_a_seed_on_a_server_without_seeded_games_is_422(redis_server, redis_client):
    with LiveServer(make_app(redis_server.url, ALLOW_SEEDED_GAMES=False)) as server:
        http = Http(server.url)
        n = game_count(redis_client)
        body = problem(http.post(API, json={"seats": SEATS2, "options": {"seed": "mine"}}), 422,
                       "seeded-games-disabled")
        assert "seed" in body["detail"]
        assert game_count(redis_client) == n
        # without a seed the same server creates the game, with a secret seed of its own
        created = http.ok("POST", API, json={"seats": SEATS2, "options": {}}, status=201)
        assert game_count(redis_client) == n + 1
        seed = redis_client.get(key(created["id"], "seed")).decode()
        assert seed != "mine" and len(seed) >= 32
        assert created["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()


# --- 413 -------------------------------------------------------------------------------------

def test_a_body_over_the_limit_is_413(http, redis_client, redis_server):
    game = new_game(http)
    gid, token = game["id"], game["tokens"][position(http, game["id"]).actor]
    move = tiletum.legal_moves(position(http, gid))[0]
    n = game_count(redis_client)
    before = observe(http, redis_client, gid)
    # the default limit (64 KiB)
    r = http.post(f"{API}/{gid}/moves", token,
                  json={"expected_version": 1, "moves": [move], "pad": "x" * 70_000})
    problem(r, 413, "payload-too-large")
    with LiveServer(make_app(redis_server.url, MAX_CONTENT_LENGTH=512)) as server:
        small = Http(server.url)
        body = {"expected_version": 1, "moves": [move] * 100}   # a valid request, over 512 bytes long
        assert len(json.dumps(body)) > 512
        problem(small.post(f"{API}/{gid}/moves", token, json=body), 413, "payload-too-large")
        seats = [{"name": "x" * 50, "email": f"{i}@example.org"} for i in range(4)]
        big_game = {"seats": seats, "options": {"seed": "y" * 200}}
        assert len(json.dumps(big_game)) > 512
        problem(small.post(API, json=big_game), 413, "payload-too-large")
        assert observe(http, redis_client, gid) == before
        assert game_count(redis_client) == n
        # under the limit the small server answers normally
        answer = small.ok("POST", f"{API}/{gid}/moves", token, json={"expected_version": 1, "moves": [move]})
        assert answer["version"] == 2 and redis_client.xlen(key(gid, "events")) == 2


def test_a_chunked_body_over_the_limit_is_413(redis_server, redis_client):
    with LiveServer(make_app(redis_server.url, MAX_CONTENT_LENGTH=1024)) as server:
        n = game_count(redis_client)

        def body():
            yield json.dumps({"seats": SEATS2}).encode()
            for _ in range(20):
                yield b" " * 1000      # 20 KB of JSON whitespace after the object

        r = requests.post(server.url + API, data=body(), headers={"Content-Type": "application/json"},
                          timeout=30)
        assert game_count(redis_client) == n, "a 20 KB body was executed by a server limited to 1 KB"
        problem(r, 413, "payload-too-large")


# --- 429 -------------------------------------------------------------------------------------

def test_the_rate_limit_is_per_token_429_with_retry_after(http, redis_server, redis_client):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    actor, idle = tokens[state.actor], tokens[1 - state.actor]
    move = tiletum.legal_moves(state)[0]
    with LiveServer(make_app(redis_server.url, RATE_LIMIT=5)) as server:
        limited = Http(server.url)
        for _ in range(5):
            assert limited.get(f"{API}/{gid}/legal-moves", actor).status_code == 200
        before = observe(http, redis_client, gid)
        r = limited.get(f"{API}/{gid}/legal-moves", actor)
        problem(r, 429, "rate-limited")
        assert int(r.headers["Retry-After"]) > 0
        r = limited.post(f"{API}/{gid}/moves", actor, json={"expected_version": 1, "moves": [move]})
        problem(r, 429, "rate-limited")
        assert int(r.headers["Retry-After"]) > 0
        assert observe(http, redis_client, gid) == before
        # another token has its own budget
        for _ in range(5):
            assert limited.get(f"{API}/{gid}/state", idle).status_code == 200
        problem(limited.get(f"{API}/{gid}/state", idle), 429, "rate-limited")
        # /health is not limited
        assert limited.get("/health").status_code == 200
    # the unlimited server still serves the first token
    answer = http.ok("POST", f"{API}/{gid}/moves", actor, json={"expected_version": 1, "moves": [move]})
    assert answer["version"] == 2


# --- idempotency -----------------------------------------------------------------------------

def test_an_idempotent_retry_returns_the_first_answer_and_writes_nothing(http, redis_client):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    seat = state.actor
    move = tiletum.legal_moves(state)[0]
    request = {"expected_version": 1, "moves": [move]}
    headers = {"Idempotency-Key": "retry-1"}
    first = http.post(f"{API}/{gid}/moves", tokens[seat], json=request, headers=headers)
    assert first.status_code == 200, first.text
    assert first.json()["version"] == 2
    after_first = observe(http, redis_client, gid)
    for _ in range(3):
        again = http.post(f"{API}/{gid}/moves", tokens[seat], json=request, headers=headers)
        assert again.status_code == 200 and again.json() == first.json()
    assert observe(http, redis_client, gid) == after_first
    # still the first answer after the game moved on (not a 409)
    state = advance(http, game, 2)
    now = observe(http, redis_client, gid)
    again = http.post(f"{API}/{gid}/moves", tokens[seat], json=request, headers=headers)
    assert again.status_code == 200 and again.json() == first.json()
    assert observe(http, redis_client, gid) == now
    # without the key the same body is a new request, refused as stale
    problem(http.post(f"{API}/{gid}/moves", tokens[seat], json=request), 409, "version-conflict")


def test_an_idempotency_key_reused_for_another_body_is_422(http, redis_client):
    game = new_game(http)
    gid, tokens = game["id"], game["tokens"]
    state = position(http, gid)
    seat = state.actor
    legal = tiletum.legal_moves(state)
    headers = {"Idempotency-Key": "reuse-1"}
    first_body = {"expected_version": 1, "moves": [legal[0]]}
    first = http.ok("POST", f"{API}/{gid}/moves", tokens[seat], json=first_body, headers=headers)
    before = observe(http, redis_client, gid)
    next_state = position(http, gid)
    for other in ({"expected_version": 1, "moves": [legal[1]]},
                  {"expected_version": 2, "moves": [tiletum.legal_moves(next_state)[0]]}):
        who = next_state.actor if other["expected_version"] == 2 else seat
        r = http.post(f"{API}/{gid}/moves", tokens[who], json=other, headers=headers)
        problem(r, 422, "idempotency-key-reused")
        assert observe(http, redis_client, gid) == before
    # the key still gives the first answer for the first body
    assert http.ok("POST", f"{API}/{gid}/moves", tokens[seat], json=first_body, headers=headers) == first


# --- 503 -------------------------------------------------------------------------------------

def test_without_redis_everything_is_503_problem():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]          # nothing listens here once the socket is closed
    with LiveServer(make_app(f"redis://127.0.0.1:{port}/0")) as server:
        http = Http(server.url)
        problem(http.get("/health"), 503, "storage-unavailable")
        for method, path, kw in (("GET", f"{API}/abc", {}),
                                 ("POST", API, {"json": {"seats": SEATS2}})):
            r = http.call(method, path, **kw)
            problem(r, 503, "storage-unavailable")
            assert int(r.headers["Retry-After"]) > 0


def test_health(http, redis_client):
    from mail.outbox import SMTP_FAILING
    redis_client.delete(SMTP_FAILING)  # an SMTP outage another test left behind would say "degraded"
    assert http.ok("GET", "/health") == {"status": "ok", "redis": "ok", "smtp": "ok"}
