"""Attacks on Carcassonne as the service hosts it (REST, hints, bots and AI credentials,
tournaments), each a test that fails if the attack works: a real Redis, the Flask app of
``make_app``.

The hidden information of a Carcassonne game is the tiles still face down in the order they
will come (which exists only as the game's secret seed) and the seed itself. The strongest check
is the twin games: two games whose seeds give the same first tile but a different second one are
played to the same position, and everything a player can ask before the second tile is revealed
must be the same for both (but the game's id and the commitment to its seed). Anything that
differs is an oracle on the next tile.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ai
import carcassonne
from tests.conftest import make_app
from tests.servers import HintWorker

API = "/api/v1/games"
AI_TOKEN = "ai-credential-for-attacks"
# seeds whose games start with the same tile (L) and, after "place -1,0 r0", reveal different
# second tiles (N and G); checked by test_the_twins_are_twins
TWINS = ("twin-0", "twin-18")
FIRST_MOVE = "place -1,0 r0"


@pytest.fixture()
def app(redis_server, redis_client, hint_worker):
    for k in redis_client.scan_iter("LIMITER*"):
        redis_client.delete(k)
    return make_app(redis_server.url, AI_TOKEN=AI_TOKEN, HINT_LEVEL="easy", HINT_LIMIT="1000/hour",
                    RATE_LIMIT=0, STREAM_SECONDS=0.3, STREAM_KEEPALIVE=0.1, SEND_TASK=hint_worker.send)


@pytest.fixture(scope="module")
def hint_worker(redis_server, tmp_path_factory):
    """The hints: computed by the real hints worker, one for the module."""
    with HintWorker(redis_server.url, tmp_path_factory.mktemp("hints") / "hints.log") as worker:
        yield worker


@pytest.fixture()
def api(app):
    return app.test_client()


def bearer(token):
    return {"Authorization": f"Bearer {token}"} if token else {}


def create(api, seats=2, seed=None, **extra):
    body = {"game": "carcassonne",
            "seats": [{"name": f"P{i}"} for i in range(seats)] if isinstance(seats, int)
            else seats, "options": {"seed": seed} if seed else {}}
    body.update(extra)
    rv = api.post(API, json=body)
    assert rv.status_code == 201, rv.json
    return rv.json["id"], [s["token"] for s in rv.json["seats"]]


def is_problem(rv, status, code):
    assert rv.status_code == status, (rv.status_code, rv.get_data(as_text=True)[:400])
    assert rv.mimetype == "application/problem+json", rv.mimetype
    assert rv.json["code"] == code, rv.json
    return rv.json


def test_the_twins_are_twins():
    a, _ = carcassonne.new_game(2, TWINS[0])
    b, _ = carcassonne.new_game(2, TWINS[1])
    assert a.to_doc() == b.to_doc()
    _, a2 = carcassonne.play(a, 0, FIRST_MOVE, seed=TWINS[0])
    _, b2 = carcassonne.play(b, 0, FIRST_MOVE, seed=TWINS[1])
    assert a2.tile != b2.tile


def _everything_a_player_sees(api, gid, tokens, version):
    """Every answer a seat or a spectator gets about the game, with the game's own id and seed
    commitment taken out."""
    out = {}
    for who, tok in (("spectator", None), ("seat0", tokens[0]), ("seat1", tokens[1])):
        for path in ("", "/state", "/legal-moves", "/events", "/events?after=1", "/record", "/fairness",
                     "/hint", "/board.svg", "/board.png", "/stream", "/rematch",
                     # the replay: every step so far, and one past it (issue 41)
                     *(f"/state?version={k}" for k in range(version + 2)),
                     *(f"/board.svg?version={k}" for k in range(version + 2))):
            rv = api.get(f"{API}/{gid}{path}", headers=bearer(tok))
            # (how many keep-alive comments a stream holds is a matter of time, not of the game)
            data = rv.get_data()
            text = data.hex() if path == "/board.png" else data.decode("utf-8")   # a PNG: its bytes
            out[(who, path)] = (rv.status_code, text.replace(": keep-alive\n\n", ""))
        # errors too: an illegal move, a move at a wrong version, not one's turn, bad notation
        for moves, v in ((["place 40,40 r0"], version), (["place -1,0 r90"], version),
                         ([FIRST_MOVE], version + 5), (["gibberish"], version),
                         (["place 0,1 r0 knight S", FIRST_MOVE], version)):
            rv = api.post(f"{API}/{gid}/moves", headers=bearer(tok),
                          json={"expected_version": v, "moves": moves})
            out[(who, "POST", tuple(moves), v)] = (rv.status_code, rv.get_data(as_text=True))
        rv = api.post(f"{API}/{gid}/rematch", headers=bearer(tok))
        out[(who, "POST", "rematch")] = (rv.status_code, rv.get_data(as_text=True))
    out["page"] = (200, api.get(f"/play/{gid}").get_data(as_text=True))
    return out


def _scrub(text: str, gid: str, commitment: str) -> str:
    return text.replace(gid, "<id>").replace(commitment, "<commitment>")


def test_probing_every_endpoint_mid_game_shows_no_seed_and_plays_nothing(api):
    """After a reveal, every answer to every seat and spectator, every error and the page: none
    is a 500, none holds the seed, and none of it plays anything."""
    for seed in TWINS:
        gid, tokens = create(api, 2, seed)
        rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                      json={"expected_version": 1, "moves": [FIRST_MOVE]})
        assert rv.status_code == 200 and rv.json["applied"] == 1
        state = api.get(f"{API}/{gid}/state").json
        answers = _everything_a_player_sees(api, gid, tokens, state["version"])
        assert api.get(f"{API}/{gid}/state").json == state
        for key, (status, text) in answers.items():
            assert status < 500, (key, text[:300])
            assert seed not in text, f"{key} shows the seed"


# twins later on: the same first two tiles and the same move, then different third tiles
LATER_TWINS = ("twin-0", "twin-352")
SECOND_MOVE = "place -1,1 r180"


def test_the_later_twins_are_twins():
    states = []
    for seed in LATER_TWINS:
        s, _ = carcassonne.new_game(2, seed)
        _, s = carcassonne.play(s, 0, FIRST_MOVE, seed=seed)
        states.append(s)
    assert states[0].to_doc() == states[1].to_doc()
    after = [carcassonne.play(s, 1, SECOND_MOVE, seed=seed)[1] for s, seed in zip(states, LATER_TWINS)]
    assert after[0].tile != after[1].tile


@pytest.mark.parametrize("seeds,prefix", [(TWINS, []), (LATER_TWINS, [FIRST_MOVE])],
                         ids=["at-the-start", "mid-game"])
def test_nothing_before_a_reveal_tells_the_tile_it_will_reveal(api, seeds, prefix):
    """The twin games in the same position with different next tiles: every answer to every seat
    and the spectator, every error and the page must be the same (but the id and commitment)."""
    seen = []
    for seed in seeds:
        gid, tokens = create(api, 2, seed)
        for i, move in enumerate(prefix):
            rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[i % 2]),
                          json={"expected_version": i + 1, "moves": [move]})
            assert rv.status_code == 200, rv.json
        commitment = api.get(f"{API}/{gid}/fairness").json["seed_commitment"]
        before = api.get(f"{API}/{gid}/events").json
        answers = _everything_a_player_sees(api, gid, tokens, len(prefix) + 1)
        assert all(answers[("seat1", f"/state?version={k}")][0] == 200 for k in range(1, len(prefix) + 2))
        assert api.get(f"{API}/{gid}/events").json == before, "probing played something"
        seen.append({k: (s, _scrub(t, gid, commitment)) for k, (s, t) in answers.items()})
    a, b = seen
    # the hint is seeded by the game's id and version (deterministic for a seat), so two games
    # may differ there: it is checked below to be a function of the public view only
    differ = [k for k in a if a[k] != b[k] and k[1:2] != ("/hint",)]
    assert not differ, f"these answers differ with the next tile: {differ}"
    assert any(k[1:2] == ("/hint",) and v[0] == 200 for k, v in a.items()), "no hint was answered"


@pytest.mark.parametrize("game", ["carcassonne", "tiletum"])
def test_a_hint_is_a_function_of_the_seats_public_view_only(api, game):
    for seed in TWINS:
        rv = api.post(
            API, json={"game": game, "seats": [{"name": "A"}, {"name": "B"}], "options": {"seed": seed}})
        gid, tokens = rv.json["id"], [s["token"] for s in rv.json["seats"]]
        view = api.get(f"{API}/{gid}/state", headers=bearer(tokens[0])).json
        hint = api.get(f"{API}/{gid}/hint", headers=bearer(tokens[0])).json
        assert hint["moves"] == ai.decide(view, "easy", rng_seed=f"{gid}:{view['version']}")
        is_problem(api.get(f"{API}/{gid}/hint", headers=bearer(tokens[1])), 403, "not-your-turn")
        is_problem(api.get(f"{API}/{gid}/hint"), 401, "unauthorized")


# --- batches and replays ------------------------------------------------------------------------

def test_a_batch_stops_at_the_reveal_and_its_tail_is_not_looked_at(api):
    gid, tokens = create(api, 2, TWINS[0])
    # seat 0's move reveals seat 1's tile; whatever follows (here seat 0 again, and gibberish) is
    # not looked at, so its answer cannot depend on the tile drawn
    rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                  json={"expected_version": 1, "moves": [FIRST_MOVE, "place 0,1 r0", "nonsense!"]})
    assert rv.status_code == 200, rv.json
    assert rv.json["applied"] == 1 and rv.json["unplayed"] == ["place 0,1 r0", "nonsense!"]
    assert rv.json["version"] == 2


@pytest.mark.parametrize("moves,code,index", [
    (["place 40,40 r0", FIRST_MOVE], "not-adjacent", 0),
    (["gibberish", FIRST_MOVE], "bad-notation", 0),
    (["place 0,0 r0"], "cell-taken", 0),
    (["place -1,0 r45"], "bad-notation", 0),
    (["place -1,0 r360"], "bad-notation", 0),    # the grammar's rotations are 0, 90, 180, 270 only
    (["place -1,0 r450"], "bad-notation", 0),
    (["place -1,0 turned 720 degrees"], "bad-notation", 0),
])
def test_a_bad_first_move_plays_nothing(api, moves, code, index):
    gid, tokens = create(api, 2, TWINS[0])
    before = api.get(f"{API}/{gid}/state").json
    rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                  json={"expected_version": 1, "moves": moves})
    body = is_problem(rv, 422, code if code == "bad-notation" else "illegal-move")
    if code != "bad-notation":
        assert body["rule"] == code, body   # the stable rule code of the engine
    assert body["move_index"] == index
    assert api.get(f"{API}/{gid}/state").json == before


def test_an_idempotency_key_replay_tells_nothing_new_and_cannot_be_borrowed(api):
    gid, tokens = create(api, 2, TWINS[0])
    body = {"expected_version": 1, "moves": [FIRST_MOVE]}
    first = api.post(f"{API}/{gid}/moves", headers={**bearer(tokens[0]), "Idempotency-Key": "k1"}, json=body)
    assert first.status_code == 200
    again = api.post(f"{API}/{gid}/moves", headers={**bearer(tokens[0]), "Idempotency-Key": "k1"}, json=body)
    assert again.status_code == 200 and again.json == first.json
    # another body under the same key, and the other seat borrowing the key: refused, nothing played
    other = api.post(f"{API}/{gid}/moves", headers={**bearer(tokens[0]), "Idempotency-Key": "k1"},
                     json={"expected_version": 1, "moves": ["place 0,1 r180"]})
    is_problem(other, 422, "idempotency-key-reused")
    borrowed = api.post(f"{API}/{gid}/moves", headers={**bearer(tokens[1]), "Idempotency-Key": "k1"},
                        json=body)
    assert borrowed.status_code in (409, 422), borrowed.json
    assert borrowed.json["code"] in ("idempotency-key-reused", "version-conflict")
    assert "events" not in borrowed.json
    assert api.get(f"{API}/{gid}").json["version"] == 2


# --- hostile notation and bodies ------------------------------------------------------------------

WORDS = ["place", "at", "r", "90", "180", "270", "0", "knight", "farmer", "monk", "thief", "N", "NE",
         "north-east", "(", ")", ",", "-1", "3", "\u00b0", "deg", "none", "-", "en", "rotated", "by",
         "with", "a", "\u00a0", "\u200b", "\u0663", "\uff11", "-0", "+1", "999", "0,1", "0 1", "(0,",
         "\u0130", "\u017f", "\ufb01", "\U0001f600", "\x00", "\ud800", "\u202e"]
MOVE_TEXT = st.one_of(st.text(max_size=80), st.lists(st.sampled_from(WORDS), max_size=9).map(" ".join),
                      st.lists(st.sampled_from(WORDS), max_size=9).map("".join))


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=MOVE_TEXT)
def test_the_notation_parser_never_crashes_and_round_trips(text):
    try:
        move = carcassonne.parse(text)
    except carcassonne.errors.EngineError as e:
        assert e.code == "bad-notation" and e.message
        return
    assert carcassonne.parse(str(move)) == move


def test_hostile_move_texts_over_rest_are_clear_errors_that_change_nothing(app):
    api = app.test_client()
    gid, tokens = create(api, 3, "fuzz-rest")
    before = api.get(f"{API}/{gid}/state").json
    legal = {m["move"] for m in api.get(f"{API}/{gid}/legal-moves", headers=bearer(tokens[0])).json["moves"]}

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=MOVE_TEXT)
    def attack(text):
        try:
            canonical = str(carcassonne.parse(text))
        except carcassonne.errors.EngineError:
            canonical = None
        if canonical in legal:
            return  # a legal move would be played: not an attack
        rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                      json={"expected_version": 1, "moves": [text]})
        assert rv.status_code == 422, (text, rv.status_code, rv.get_data(as_text=True)[:300])
        assert rv.mimetype == "application/problem+json"
        assert rv.json["code"] in ("bad-notation", "illegal-move", "invalid-request"), rv.json
    attack()
    assert api.get(f"{API}/{gid}/state").json == before


@pytest.mark.parametrize("body", [
    {"expected_version": 1, "moves": [None]},
    {"expected_version": 1, "moves": [["place", "-1,0"]]},
    {"expected_version": 1, "moves": [{"x": -1, "y": 0}]},
    {"expected_version": 1, "moves": [123]},
    {"expected_version": 1, "moves": "place -1,0 r0"},
    {"expected_version": 1, "moves": []},
    {"expected_version": "1", "moves": [FIRST_MOVE]},
    {"expected_version": 1.5, "moves": [FIRST_MOVE]},
    {"expected_version": True, "moves": [FIRST_MOVE]},
    {"expected_version": 0, "moves": [FIRST_MOVE]},
    {"expected_version": -1, "moves": [FIRST_MOVE]},
    {"expected_version": 1, "moves": ["x" * 101]},
    {"expected_version": 1, "moves": [FIRST_MOVE] * 201},
    {"moves": [FIRST_MOVE]},
    {"expected_version": 1},
    {"expected_version": 1, "moves": [FIRST_MOVE], "seat": 1},
    [],
    "place",
    None,
])
def test_hostile_move_bodies_are_422_and_change_nothing(api, body):
    gid, tokens = create(api, 2, TWINS[0])
    rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]), json=body)
    assert rv.status_code in (400, 422), (body, rv.status_code, rv.get_data(as_text=True)[:300])
    assert rv.mimetype == "application/problem+json" and rv.json["code"] == "invalid-request"
    assert api.get(f"{API}/{gid}").json["version"] == 1


# --- creating games with the other game's options or seats ---------------------------------------

@pytest.mark.parametrize("extra,code", [
    ({"options": {"action_tiles": "shuffled"}}, "bad-options"),
    ({"options": {"solo": {"level": "deacon"}}}, "bad-options"),
    ({"options": {"solo": {}}}, "bad-options"),
    ({"options": {"no_such": 1}}, "invalid-request"),
    ({"seats": [{"name": "Cardinal", "kind": "cardinalbot"}, {"name": "A"}]}, "bad-seats"),
    ({"seats": [{"name": "A"}]}, "invalid-request"),
    ({"seats": [{"name": f"P{i}"} for i in range(6)]}, "invalid-request"),
    ({"seats": [{"name": "A", "kind": "ai", "level": "godlike"}, {"name": "B"}]}, "invalid-request"),
    ({"seats": [{"name": "A", "kind": "bot", "bot": "000000000000"}, {"name": "B"}]}, "unknown-bot"),
    ({"game": "chess"}, "invalid-request"),
    ({"game": None}, "invalid-request"),
    ({"game": ["carcassonne"]}, "invalid-request"),
])
def test_carcassonne_games_refuse_tiletum_options_and_seats(api, extra, code):
    body = {"game": "carcassonne", "seats": [{"name": "A"}, {"name": "B"}], "options": {}}
    assert api.post(API, json=body).status_code == 201   # the body without the attack is fine
    body.update(extra)
    rv = api.post(API, json=body)
    assert rv.status_code == 422, (extra, rv.status_code, rv.get_data(as_text=True)[:300])
    assert rv.mimetype == "application/problem+json" and rv.json["code"] == code, rv.json


@pytest.mark.parametrize("extra", [
    {"action_tiles": "shuffled"},
    {"table_size": 6},
    {"table_size": 1},
])
def test_a_carcassonne_tournament_refuses_tiletum_options(api, extra):
    body = {"name": "Cup", "game": "carcassonne", "format": "round_robin", "table_size": 3}
    assert api.post("/api/v1/tournaments", json=body).status_code == 201   # without the attack: fine
    rv = api.post("/api/v1/tournaments", json={**body, **extra})
    assert rv.status_code == 422, (extra, rv.status_code, rv.get_data(as_text=True)[:300])
    assert rv.mimetype == "application/problem+json" and rv.json["code"] == "invalid-request"
    assert next(iter(extra)) in str(rv.json), rv.json   # the field is named


def test_a_tiletum_tournament_refuses_carcassonne_table_sizes(api):
    body = {"name": "Cup", "game": "tiletum", "format": "round_robin", "table_size": 4}
    assert api.post("/api/v1/tournaments", json=body).status_code == 201
    rv = api.post("/api/v1/tournaments", json={**body, "table_size": 5})
    assert rv.status_code == 422 and rv.json["code"] == "invalid-request" and "table_size" in str(rv.json)


def test_hints_are_off_in_a_rated_carcassonne_tournament_game(app):
    api = app.test_client()
    players = [{"name": n, "email": f"{n.lower()}@cup.test"} for n in ("Ann", "Ben")]
    rv = api.post("/api/v1/tournaments", json={"name": "Cup", "game": "carcassonne", "format": "round_robin",
                                               "table_size": 2, "entries": players})
    assert rv.status_code == 201, rv.json
    tid, organizer = rv.json["id"], rv.json["organizer_token"]
    assert api.post(f"/api/v1/tournaments/{tid}/start", headers=bearer(organizer)).status_code == 200
    tournaments = app.extensions["tablepost.tournaments"]
    mine = api.get(f"/api/v1/tournaments/{tid}/my-games",
                   headers=bearer(tournaments.entry_token(tid, "ann@cup.test"))).json["games"]
    assert len(mine) == 1
    gid = mine[0]["game"]
    assert api.get(f"{API}/{gid}").json["game"] == "carcassonne"
    token = mine[0]["token"]
    to_act = api.get(f"{API}/{gid}").json["to_act"][0]
    if to_act != mine[0]["seat"]:
        mine = api.get(f"/api/v1/tournaments/{tid}/my-games",
                       headers=bearer(tournaments.entry_token(tid, "ben@cup.test"))).json
        token = mine["games"][0]["token"]
    is_problem(api.get(f"{API}/{gid}/hint", headers=bearer(token)), 403, "hints-off")


# --- credentials that are not the seat's --------------------------------------------------------

def _bot(api, name):
    rv = api.post("/api/v1/bots", json={"name": name, "email": f"{name.lower()}@owners.test"})
    assert rv.status_code == 201, rv.json
    return rv.json["id"], rv.json["token"], rv.json["owner_key"]


def test_a_bot_account_acts_only_on_its_own_seat(api):
    rita, rita_token, rita_owner = _bot(api, "Rita")
    _, bob_token, _ = _bot(api, "Bobbot")
    gid, tokens = create(api, [{"name": "Ann"}, {"kind": "bot", "bot": rita, "owner_key": rita_owner}])
    ann_move = api.get(f"{API}/{gid}/legal-moves", headers=bearer(tokens[0])).json["moves"][0]["move"]
    move = {"expected_version": 1, "moves": [ann_move]}
    # Ann's turn: Rita (seat 1) may not play it; another bot account holds no seat here at all
    is_problem(api.post(f"{API}/{gid}/moves", headers=bearer(rita_token), json=move), 403, "not-your-turn")
    is_problem(api.post(f"{API}/{gid}/moves", headers=bearer(bob_token), json=move), 403, "not-in-this-game")
    is_problem(api.get(f"{API}/{gid}/hint", headers=bearer(bob_token)), 403, "not-in-this-game")
    # a forged bot token (right shape, wrong secret) and a bot token's seat credentials
    forged = rita_token[:-4] + ("AAAA" if not rita_token.endswith("AAAA") else "BBBB")
    is_problem(api.post(f"{API}/{gid}/moves", headers=bearer(forged), json=move), 401, "unauthorized")
    is_problem(api.post(f"{API}/{gid}/seats/1/token", headers=bearer(rita_token)), 403, "not-a-human-seat")
    is_problem(api.post(f"{API}/{gid}/seats/0/token", headers=bearer(rita_token)), 403, "not-your-seat")
    assert api.get(f"{API}/{gid}").json["version"] == 1
    legal = api.get(f"{API}/{gid}/legal-moves", headers=bearer(rita_token)).json
    assert legal["seat"] == 1 and legal["moves"] == []
    # Ann plays; now Rita's turn: Ann's token may not play it, Rita's may
    assert api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]), json=move).status_code == 200
    rita_move = api.get(f"{API}/{gid}/legal-moves", headers=bearer(rita_token)).json["moves"][0]["move"]
    is_problem(api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                        json={"expected_version": 2, "moves": [rita_move]}), 403, "not-your-turn")
    is_problem(api.post(f"{API}/{gid}/moves", headers=bearer(bob_token),
                        json={"expected_version": 2, "moves": [rita_move]}), 403, "not-in-this-game")
    assert api.post(f"{API}/{gid}/moves", headers=bearer(rita_token),
                    json={"expected_version": 2, "moves": [rita_move]}).status_code == 200


def test_the_ai_credential_acts_only_for_ai_seats_and_never_on_a_persons_turn(api):
    gid, tokens = create(api, 2, TWINS[0])
    move = {"expected_version": 1, "moves": [FIRST_MOVE]}
    is_problem(api.post(f"{API}/{gid}/moves", headers=bearer(AI_TOKEN), json=move), 403, "not-an-ai-seat")
    gid, tokens = create(api, [{"name": "Ann"}, {"name": "Hal", "kind": "ai", "level": "easy"}])
    assert tokens[1] is None
    # Ann (seat 0) to act: the AI credential is seat 1's, and may not play Ann's tile
    is_problem(api.post(f"{API}/{gid}/moves", headers=bearer(AI_TOKEN), json=move), 403, "not-your-turn")
    is_problem(api.post(f"{API}/{gid}/seats/0/token", headers=bearer(AI_TOKEN)), 403, "not-your-seat")
    assert api.get(f"{API}/{gid}").json["version"] == 1


def test_a_seat_token_of_one_game_is_nothing_in_another(api):
    _, tokens_a = create(api, 2, TWINS[0])
    gid_b, _ = create(api, 2, TWINS[1])
    is_problem(api.post(f"{API}/{gid_b}/moves", headers=bearer(tokens_a[0]),
                        json={"expected_version": 1, "moves": [FIRST_MOVE]}), 401, "unauthorized")
    is_problem(api.get(f"{API}/{gid_b}/state", headers=bearer(tokens_a[0])), 401, "unauthorized")
    assert api.get(f"{API}/{gid_b}").json["version"] == 1


# --- the end of the game --------------------------------------------------------------------------

def test_the_seed_appears_only_once_the_game_is_over(api):
    gid, tokens = create(api, 2, "attack-to-the-end")
    seed = "attack-to-the-end"
    while True:
        summary = api.get(f"{API}/{gid}").json
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        for path in ("/record", "/fairness", "/state", "/events", "/board.svg"):
            assert seed not in api.get(f"{API}/{gid}{path}").get_data(as_text=True), path
        moves = api.get(f"{API}/{gid}/legal-moves", headers=bearer(tokens[seat])).json["moves"]
        if api.get(f"{API}/{gid}/state").json["pile_size"] == 0:
            # the last tile and a move after it in one batch: the last tile reveals nothing, so
            # the batch goes on to the extra move, which is refused; the batch plays nothing
            # (all or nothing), and the answer says which move
            rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[seat]),
                          json={"expected_version": summary["version"],
                                "moves": [moves[-1]["move"], "place 0,0 r0"]})
            body = is_problem(rv, 422, "game-over")
            assert body["move_index"] == 1
            assert api.get(f"{API}/{gid}").json["version"] == summary["version"]
        rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[seat]),
                      json={"expected_version": summary["version"], "moves": [moves[-1]["move"]]})
        assert rv.status_code == 200, rv.json
    assert api.get(f"{API}/{gid}/fairness").json["seed"] == seed
    assert re.search(rf"Seed.*{seed}", api.get(f"{API}/{gid}/record").get_data(as_text=True))
    rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                  json={"expected_version": summary["version"], "moves": [FIRST_MOVE]})
    assert rv.status_code in (403, 422) and rv.mimetype == "application/problem+json"
    is_problem(api.get(f"{API}/{gid}/hint", headers=bearer(tokens[0])), 403, "not-your-turn")


# --- by email -------------------------------------------------------------------------------------

MAIL_SECRET = "carc-attack-secret"


@pytest.fixture()
def mail(redis_server, redis_client, monkeypatch, tmp_path):
    """The app with email play on: replies through the signed inbound webhook, answers written to
    ``tmp_path/mail`` by the outbox. Yields (client, outbox dir)."""
    from tests.conftest import INBOUND_SECRET
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", MAIL_SECRET)
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", "pbem.test")
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))
    app = make_app(redis_server.url, MAIL_SECRET=MAIL_SECRET, INBOUND_SECRET=INBOUND_SECRET)
    yield app.test_client(), tmp_path / "mail"


def _mail_game(c, seed, options=None):
    rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Ada", "email": "ada@x.test"},
                                                            {"name": "Bob", "email": "bob@x.test"}],
                           "options": {"seed": seed, **(options or {})}})
    assert rv.status_code == 201, rv.json
    return rv.json["id"], [s["token"] for s in rv.json["seats"]]


def _reply(c, gid, seat, version, body, frm=None, **headers):
    import email.utils
    import uuid
    from email.message import EmailMessage

    from mail.addresses import reply_address
    from tests.conftest import post_inbound
    m = EmailMessage()
    m["From"] = frm or ("ada@x.test" if seat == 0 else "bob@x.test")
    m["Subject"] = "Re: Carcassonne: your turn"
    m["To"] = reply_address(MAIL_SECRET, "pbem.test", gid, seat, version)
    # make_msgid's random part comes from the global ``random``, which Hypothesis reseeds for every
    # example: two examples within its 10 ms clock got the same Message-ID, and the second reply
    # was (rightly) answered "duplicate". A uuid4 (os.urandom) keeps each reply a new email.
    m["Message-ID"] = email.utils.make_msgid(idstring=uuid.uuid4().hex, domain="x.test")
    for k, v in headers.items():
        m[k] = v
    m.set_content(body)
    rv = post_inbound(c, bytes(m))
    assert rv.status_code == 200, rv.get_data(as_text=True)
    return rv.json


def _answers(outdir):
    import email
    import email.policy
    return [email.message_from_bytes(f.read_bytes(), policy=email.policy.default)
            for f in sorted(outdir.glob("*.eml"),
                            key=lambda p: p.stat().st_mtime_ns)] if outdir.exists() else []


def headline(msg) -> str:
    """An answer's first line: what happened (the subject is the game's thread subject)."""
    return msg.get_body(("plain",)).get_content().split("\n", 1)[0]


def _texts(msg):
    plain = msg.get_body(("plain",))
    html = msg.get_body(("html",))
    return (plain.get_content() if plain is not None else "") + (html.get_content() if html is not None
                                                                 else "")


def test_two_moves_in_one_reply_play_the_first_and_say_the_second_was_not(mail):
    c, outdir = mail
    gid, _ = _mail_game(c, TWINS[0])
    result = _reply(c, gid, 0, 1, f"{FIRST_MOVE}\nplace 0,1 r0\n\n> quoted turn email\n")
    assert result["status"] == "applied"
    assert c.get(f"{API}/{gid}").json["version"] == 2
    confirmation = next(a for a in _answers(outdir) if headline(a).startswith("Played"))
    assert "Not played: place 0,1 r0" in _texts(confirmation)


@pytest.mark.parametrize("line", [
    "\u00a0PLACE\u00a0-1,0\u2003R0\u00a0",          # no-break and em spaces, upper case
    "\u200bplace -1,0 r0\u200b",                     # zero-width spaces around it
    "  Place  ( -1 , 0 )   turned 0   none  ",
    "\ufeffplace -1 0 r0",                           # a byte-order mark in front
])
def test_odd_whitespace_and_case_in_a_reply_still_play(mail, line):
    c, _ = mail
    gid, _ = _mail_game(c, TWINS[0])
    assert _reply(c, gid, 0, 1, line + "\n")["status"] == "applied"
    assert c.get(f"{API}/{gid}/events").json["events"][-1]["move"] == FIRST_MOVE


@pytest.mark.parametrize("line", [
    "place -1,0 r0 \u202eknight N",                  # a right-to-left override
    "place \uff0d1,0 r0",                            # a fullwidth minus
    "place -1,0 r0 knight N\x00",                    # a NUL
    "place -1,0 r0; place 0,1 r0",                   # two moves on one line
    "\U0001f600",
])
def test_hostile_unicode_in_a_reply_is_a_clear_error_that_changes_nothing(mail, line):
    c, outdir = mail
    gid, _ = _mail_game(c, TWINS[0])
    before = c.get(f"{API}/{gid}/events").json
    result = _reply(c, gid, 0, 1, line + "\n")
    assert result["status"] == "rejected" and result["code"] in ("bad-notation", "illegal-move"), result
    assert c.get(f"{API}/{gid}/events").json == before
    error = _answers(outdir)[-1]
    assert str(error["To"]) == "ada@x.test" and headline(error).startswith("Not played")


def test_a_reply_to_an_old_turn_or_from_another_address_plays_nothing(mail):
    c, outdir = mail
    gid, tokens = _mail_game(c, TWINS[0])
    assert _reply(c, gid, 0, 1, FIRST_MOVE + "\n")["status"] == "applied"
    legal = c.get(f"{API}/{gid}/legal-moves", headers=bearer(tokens[1])).json["moves"]
    assert _reply(c, gid, 1, 2, legal[0]["move"] + "\n")["status"] == "applied"
    before = c.get(f"{API}/{gid}/events").json
    # Ada replies to her first turn email again (version 1), with a move legal now: not played
    now = c.get(f"{API}/{gid}/legal-moves", headers=bearer(tokens[0])).json["moves"][0]["move"]
    stale = _reply(c, gid, 0, 1, now + "\n")
    assert stale["status"] == "rejected" and stale["code"] == "stale-turn"
    # Bob writes to Ada's current reply address; a forwarded copy with her moves under the marker
    assert _reply(c, gid, 0, 3, now + "\n", frm="bob@x.test")["code"] == "wrong-sender"
    fwd = _reply(c, gid, 0, 3, f"---------- Forwarded message ---------\nFrom: Ada <ada@x.test>\n\n{now}\n")
    assert fwd["status"] == "rejected" and fwd["code"] == "no-moves"
    assert c.get(f"{API}/{gid}/events").json == before
    seed = TWINS[0]
    for answer in _answers(outdir):
        assert str(answer["To"]) in ("ada@x.test", "bob@x.test")
        text = _texts(answer)
        assert str(answer["To"]) != "bob@x.test" or "Hello Ada" not in text, "Ada's answer went to Bob"
        assert seed not in text and "/email-move" not in text, "a seed or a one-click move link was mailed"


def test_a_setting_in_a_reply_whose_moves_fail_changes_nothing(mail):
    """'vacation on' with an illegal move, or in a reply to an old turn: the answer says nothing
    was played, so nothing may have changed (the vacation stays off). With a legal move, both
    are done."""
    from application.deadlines import Deadlines
    c, outdir = mail
    gid, tokens = _mail_game(c, TWINS[0], {"time_control": {"days_per_move": 3}})
    seats = Deadlines(c.application.extensions["tablepost.service"], None)
    result = _reply(c, gid, 0, 1, "vacation on\nplace 40,40 r0\n")
    assert result["status"] == "rejected" and result["code"] == "illegal-move"
    assert "None of the moves" in _texts(_answers(outdir)[-1])
    assert seats.seat_state(gid, 0)["vacation_since"] is None, "a refused reply started a vacation"
    # the same setting in a reply to an old turn
    assert _reply(c, gid, 0, 1, FIRST_MOVE + "\n")["status"] == "applied"
    result = _reply(c, gid, 0, 1, "vacation on\nplace 0,1 r0\n")
    assert result["code"] == "stale-turn"
    assert seats.seat_state(gid, 0)["vacation_since"] is None, "a reply to an old turn started a vacation"
    assert c.get(f"{API}/{gid}").json["version"] == 2
    # a good move with the setting: both
    legal = c.get(f"{API}/{gid}/legal-moves", headers=bearer(tokens[1])).json["moves"][0]["move"]
    assert _reply(c, gid, 1, 2, f"vacation on\n{legal}\n")["status"] == "applied"
    assert seats.seat_state(gid, 1)["vacation_since"] is not None
    assert c.get(f"{API}/{gid}").json["version"] == 3


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                max_size=4),
                    max_leaves=12)
SEAT = st.fixed_dictionaries({"name": st.one_of(st.text(min_size=1, max_size=70), JSON)},
                             optional={ "kind": st.sampled_from(["human", "ai", "bot", "cardinalbot", "x"]),
    "level": st.sampled_from(["easy", "hard", "godlike", None]), "bot": st.one_of(st.text(max_size=14), JSON),
    "email": st.one_of(st.emails(), st.text(max_size=20)),
    "tz": st.sampled_from(["Europe/Berlin", "Mars/Base", 3])})
OPTIONS = st.fixed_dictionaries({}, optional={
    "action_tiles": st.sampled_from(["printed", "shuffled", "x", None]), "solo": JSON, "rated": JSON,
    "time_control": st.one_of(JSON, st.fixed_dictionaries({}, optional={
        "days_per_move": st.floats(allow_nan=False) | st.integers(), "quiet_hours": JSON})),
    "timeout": JSON, "seed": JSON, "extra": JSON})


def test_hostile_game_bodies_never_crash(api):
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(game=st.sampled_from(["carcassonne", "tiletum", "Carcassonne", "", None, 1]),
           seats=st.one_of(st.lists(SEAT, min_size=2, max_size=6), JSON), options=st.one_of(OPTIONS, JSON))
    def attack(game, seats, options):
        rv = api.post(API, json={"game": game, "seats": seats, "options": options})
        assert rv.status_code in (201, 400, 422), (game, seats, options, rv.status_code,
                                                   rv.get_data(as_text=True)[:300])
        if rv.status_code != 201:
            assert rv.mimetype == "application/problem+json" and rv.json["code"], rv.json
            return
        summary = api.get(f"{API}/{rv.json['id']}").json
        assert summary["game"] == game
        if game == "carcassonne":
            assert all(s["kind"] in ("human", "ai", "bot") for s in summary["seats"])
            meta = api.application.extensions["tablepost.service"].meta(rv.json["id"])
            assert not set(meta["options"]) - {"time_control", "timeout", "rated"}, meta["options"]
    attack()


def test_the_stand_in_plays_only_on_the_position_it_decided_for(redis_client, monkeypatch):
    """The player's own reply lands while the stand-in is thinking: the stand-in's move, chosen
    for the position before it, is refused as stale (409) and plays nothing, rather than being
    submitted at whatever version the game has reached."""
    from application import stand_in
    from application.errors import ServiceError
    from application.game_service import GameService
    from application.store import EventStore
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    g = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"},
                         {"name": "Cy", "email": "cy@x.test"}],
                        {"seed": TWINS[0], "time_control": {"days_per_move": 1}}, game="carcassonne")
    gid = g["id"]
    plan = stand_in.stand_in_plan

    def plan_while_the_player_moves(view, rng_seed, state, game=None, level=None):
        chosen = plan(view, rng_seed, state, game, level)
        svc.submit_for_seat(gid, 0, 1, [FIRST_MOVE])       # the player's reply, at that moment
        return chosen
    monkeypatch.setattr(stand_in, "stand_in_plan", plan_while_the_player_moves)
    with pytest.raises(ServiceError) as refused:
        stand_in.play_stand_in(svc, gid, 0)
    assert refused.value.code == "version-conflict", refused.value.code
    events = svc.store.events(gid)
    assert len(events) == 2 and events[-1]["move"] == FIRST_MOVE and not any(e.get("by") for e in events)


@pytest.mark.parametrize("seeds,prefix", [(TWINS, []), (LATER_TWINS, [FIRST_MOVE])],
                         ids=["at-the-start", "mid-game"])
def test_the_turn_email_does_not_tell_the_tile_it_will_reveal(redis_client, seeds, prefix):
    """The turn email of the twin games (the seat to act, in the same position, different next
    tiles) says the same, but for the game's id and the signed or secret parts of its links."""
    from application.game_service import GameService
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
    notifier = Notifier(svc, Outbox(redis_client, None), cfg)
    texts = []
    for seed in seeds:
        g = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"}],
                            {"seed": seed}, game="carcassonne")
        gid = g["id"]
        for i, move in enumerate(prefix):
            svc.submit_for_seat(gid, i % 2, i + 1, [move])
        meta, state = svc.load(gid)
        msg = notifier.turn_message(gid, meta, state, state.actor)
        text = "\n".join(f"{k}: {v}" for k, v in msg.items() if k not in ("Message-ID", "Date"))
        text += "".join(p.get_payload(decode=True).decode() for p in msg.walk()
                        if p.get_content_maintype() == "text")
        assert seed not in text and "/email-move" not in text
        text = re.sub(r"play\+[^@\s\"'<>]+@", "play+<signed>@", text)
        text = re.sub(r"=_tiletum_[0-9a-f]+", "<boundary>", text.replace(gid, "<id>"))   # a random boundary
        text = re.sub(r"([?&#;](?:sig|token|t|key|e|email|exp|s)=)[^&\"'\s<>]+", r"\1<secret>", text)
        texts.append(text)
    assert texts[0] == texts[1]


def test_a_finished_carcassonne_game_reads_the_same_after_archiving(redis_server, redis_client):
    """The operator's archive sweep over a finished Carcassonne game: every read answers the same
    from this process and from a fresh one, and a move is still refused as game-over."""
    import random
    import time

    from application import archive
    from application.finished import done, on_game_over
    app = make_app(redis_server.url)
    api, svc = app.test_client(), app.extensions["tablepost.service"]
    created = svc.create_game([{"name": "Ada", "email": "ada-arch@x.test"}, {"name": "Bob"}, {"name": "Cy"}],
                              {"seed": f"carc-archive-{time.time_ns()}"}, game="carcassonne")
    gid, token = created["id"], created["seats"][0]["token"]
    rng = random.Random(3)
    while True:
        _, state = svc.load(gid)
        if state.phase == "over":
            break
        moves = [x["move"] for x in svc.legal_moves(gid, created["seats"][state.actor]["token"])["moves"]]
        svc.submit_for_seat(gid, state.actor, state.version, [rng.choice(moves)])
    on_game_over(svc, gid)
    done(svc.store.r, gid)
    paths = ["", "/state", "/events", "/events?after=7", "/record", "/fairness", "/board.svg", "/legal-moves"]

    def reads(client):
        answers = {p: client.get(f"{API}/{gid}{p}", headers=bearer(token)) for p in paths}
        answers["page"] = client.get(f"/play/{gid}")
        return {p: (r.status_code, r.get_data(as_text=True)) for p, r in answers.items()}
    before = reads(api)
    assert all(s == 200 for s, _ in before.values()), {k: v[0] for k, v in before.items()}
    assert archive.archive_game(svc, gid, time.time() + 30 * 86400) == "archived"
    assert reads(api) == before
    fresh = make_app(redis_server.url).test_client()
    assert reads(fresh) == before
    version = svc.store.version(gid)
    rv = fresh.post(f"{API}/{gid}/moves", headers=bearer(token),
                    json={"expected_version": version, "moves": [FIRST_MOVE]})
    is_problem(rv, 422, "game-over")


LINE = st.one_of(MOVE_TEXT.filter(lambda t: not any(0xD800 <= ord(ch) <= 0xDFFF for ch in t)),
                 st.sampled_from([FIRST_MOVE, "vacation on", "vacation off", "> " + FIRST_MOVE, "-- ",
                                             "On Mon, Ada wrote:", "#" + FIRST_MOVE, "", "Thanks!"]))


def test_hostile_reply_bodies_play_one_move_or_nothing(mail):
    """Any body a reply may hold: the inbound pipeline answers (never raises, never a 500), and
    the game either gains exactly the one move of the reply or nothing at all."""
    from carcassonne import NotationError
    from carcassonne.notation import parse
    from mail.mailin import extract_moves
    from mail.reply_text import courtesy_split, normalize_move
    from mail.mailin_runtime import VACATION
    c, _ = mail

    def _parses(line: str) -> bool:
        try:
            parse(line)
        except (NotationError, ValueError):
            return False
        return True
    game = {}

    def fresh():
        game["id"], _ = _mail_game(c, TWINS[0], {"time_control": {"days_per_move": 3}})
    fresh()

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(lines=st.lists(LINE, max_size=6))
    @example(lines=[FIRST_MOVE, "Thanks!"])   # at least one reply that plays (the random draws
    @example(lines=["vacation on", FIRST_MOVE])  # need not hold one), and a setting with a move
    def attack(lines):
        gid = game["id"]
        before = c.get(f"{API}/{gid}/events").json["events"]
        result = _reply(c, gid, 0, 1, "\n".join(lines) + "\n")
        assert result["status"] in ("applied", "rejected"), result
        after = c.get(f"{API}/{gid}/events").json["events"]
        if after == before:  # nothing played: refused, or only settings ('vacation on') were sent
            # (a reply is read up to its first line that is no move once a move or setting was
            # read: what follows is a sign-off, ignored; mail.reply_text.courtesy_split)
            taken, _ = courtesy_split([normalize_move(x) for x in extract_moves("\n".join(lines) + "\n")],
                                      lambda x: bool(VACATION.match(x)) or _parses(x))
            assert result["status"] == "rejected" or all(VACATION.match(x) for x in taken), (lines, result)
        else:
            assert result["status"] == "applied", (lines, result)
            assert after[:-1] == before and after[-1]["seat"] == 0 and after[-1]["type"] == "MovePlayed"
            game["played"] = game.get("played", 0) + 1
            fresh()
        game["tries"] = game.get("tries", 0) + 1
    attack()
    assert game["tries"] >= 100 and game.get("played"), game


def test_refused_move_texts_are_not_remembered(api):
    """A client's junk (parsable, but refused) must not grow the process's memo of move texts,
    which is for the recorded moves replays read again."""
    from carcassonne import game as rules
    gid, tokens = create(api, 2, TWINS[0])
    before = len(rules._MOVES)
    for i in range(300):
        rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                      json={"expected_version": 1, "moves": [f"place {i},{-i} r90 farmer NE junk{i}"[:40]]})
        assert rv.status_code == 422
        rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                      json={"expected_version": 1, "moves": [f"place {i + 50},{i} r180"]})
        assert rv.status_code == 422
    assert len(rules._MOVES) <= before + 1, len(rules._MOVES) - before


def test_refused_tiletum_move_texts_are_not_remembered_either(api):
    from tiletum import game as rules
    rv = api.post(API, json={"seats": [{"name": "A"}, {"name": "B"}], "options": {"seed": "memo"}})
    gid, token = rv.json["id"], rv.json["seats"][0]["token"]
    before = len(rules._MOVES)
    for i in range(200):   # parsable, refused: odd spacing and case of the same few moves
        text = "TAKE" + " " * (1 + i % 40) + ("g4" if i < 100 else "Z9") + " " * (i // 40)
        rv = api.post(f"{API}/{gid}/moves", headers=bearer(token),
                      json={"expected_version": 1, "moves": [text, "king"]})
        assert rv.status_code in (200, 422), rv.json
        if rv.status_code == 200:
            break
    assert len(rules._MOVES) <= before + 5, len(rules._MOVES) - before


@pytest.mark.parametrize("game", ["carcassonne", "tiletum"])
def test_a_finished_game_with_an_ai_seat_is_followed_up_not_crashed(app, game):
    """The operator's view of the end of a rated game with an AI seat: the game-over follow-up
    (rating, tournament, indexes) runs through, and the game is unrated, saying why."""
    import random

    from application.finished import on_game_over
    from application.rating_service import RatingService
    api, svc = app.test_client(), app.extensions["tablepost.service"]
    rv = api.post(API, json={"game": game, "seats": [{"name": "Ann", "email": "ann-ai@x.test"},
                                                     {"name": "Hal", "kind": "ai", "level": "easy"}],
                             "options": {"seed": f"ai-rated-{game}"}})
    assert rv.status_code == 201, rv.json
    gid, tokens = rv.json["id"], [rv.json["seats"][0]["token"], AI_TOKEN]
    rng = random.Random(5)
    while True:
        _, state = svc.load(gid)
        if state.phase == "over":
            break
        moves = [m["move"] for m in svc.legal_moves(gid, tokens[state.actor])["moves"] if m["move"] != "undo"]
        svc.submit(gid, tokens[state.actor], state.version, [rng.choice(moves)])
    on_game_over(svc, gid)
    assert RatingService(svc).assess(gid) == {"unrated": "an AI seat plays in it"}
    assert RatingService(svc).record_game(gid) is False


@pytest.mark.parametrize(
    "key", ["k" * 4000, "\u00e9\u00e8", " ", "a\tb", "\x7f", "k1\\u0000", "../../etc", "*", "{x}"])
def test_hostile_idempotency_keys_are_clear_answers(api, key):
    gid, tokens = create(api, 2, TWINS[0])
    headers = {**bearer(tokens[0]), "Idempotency-Key": key.encode("utf-8").decode("latin-1")}
    body = {"expected_version": 1, "moves": [FIRST_MOVE]}
    rv = api.post(f"{API}/{gid}/moves", headers=headers, json=body)
    assert rv.status_code in (200, 400, 422), (rv.status_code, rv.get_data(as_text=True)[:300])
    if rv.status_code == 200:
        again = api.post(f"{API}/{gid}/moves", headers=headers, json=body)
        assert again.status_code == 200 and again.json == rv.json
        assert api.get(f"{API}/{gid}").json["version"] == 2
    else:
        assert rv.mimetype == "application/problem+json" and api.get(f"{API}/{gid}").json["version"] == 1
