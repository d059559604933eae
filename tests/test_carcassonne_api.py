"""Carcassonne on the service, through the one game interface (games/): whole games of 2 and 4
players over real HTTP against a real Redis -- created with ``game: carcassonne``, played with
the legal moves the server lists to the end, the position, summary and legal moves checked
against the served OpenAPI document, the event log in words, and the record that replays and
verifies with Carcassonne's own verifier once the seed is revealed. Nothing served before the
end holds the seed; no position holds an order of the face-down tiles."""
from __future__ import annotations

import hashlib
import json
import random

import pytest
import requests
from openapi_schema_validator import OAS30Validator

import carcassonne
import games
from carcassonne.record import replay_record, verify_events
from conftest import LiveServer, make_app
from tests.servers import HintWorker

API = "/api/v1/games"


@pytest.fixture(scope="module")
def server(redis_server, tmp_path_factory):
    with HintWorker(redis_server.url, tmp_path_factory.mktemp("hints") / "hints.log") as worker:
        app = make_app(redis_server.url, SEND_TASK=worker.send)   # hints: the real worker, nothing else
        with LiveServer(app) as live:
            live.app = app
            live.document = requests.get(live.url + "/api/openapi.json", timeout=10).json()
            yield live


class Client:
    """A session that keeps every body it was served (to search them for the seed afterwards)."""

    def __init__(self, server):
        self.url, self.s, self.bodies = server.url, requests.Session(), []
        self.document = server.document

    def call(self, method: str, path: str, token: str | None = None, **kw) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.s.request(method, self.url + path, headers=headers, timeout=30, **kw)
        self.bodies.append(r.text)
        return r

    def check(self, path: str, answer: dict) -> None:
        ok = self.document["paths"][path]["get"]["responses"]["200"]
        schema = ok["content"]["application/json"]["schema"]
        v = OAS30Validator({**schema, "components": self.document["components"]})
        problems = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}" for e in v.iter_errors(
            answer)]
        assert not problems, f"{path} breaks its schema: {problems[:3]}"


def _create(c: Client, players: int, seed: str | None) -> dict:
    body = {"game": "carcassonne", "seats": [{"name": f"P{i}"} for i in range(players)],
            "options": {} if seed is None else {"seed": seed}}
    r = c.call("POST", API, json=body)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("players,seed", [(2, "carc-rest-2p"), (4, None)],
                         ids=["2p-seeded", "4p-secret-seed"])
def test_a_whole_carcassonne_game_over_rest(server, players, seed):
    c = Client(server)
    created = _create(c, players, seed)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    assert all(tokens) and [s["kind"] for s in created["seats"]] == ["human"] * players
    if seed is not None:
        assert created["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    rng = random.Random(f"moves-{players}")
    summary = c.call("GET", f"{API}/{gid}").json()
    assert (summary["game"], summary["status"], summary["phase"]) == ("carcassonne", "active", "play")
    c.check("/api/v1/games/{game_id}", summary)
    moves = 0
    while True:
        summary = c.call("GET", f"{API}/{gid}").json()
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        if moves % 10 == 0:  # the position, as a spectator and as a seat, typed and without secrets
            for token in (None, tokens[moves % players]):
                state = c.call("GET", f"{API}/{gid}/state", token).json()
                c.check("/api/v1/games/{game_id}/state", state)
                assert state["format"] == "carcassonne-position/1" and state["version"] == summary["version"]
                assert (state["to_act"] == summary["to_act"]
                        and state["scores"] == [s["score"] for s in summary["seats"]])
                assert sum(state["pile"].values()) == state["pile_size"], ("the face-down tiles are counts "
                                                                           "only")
                assert "seed" not in state and not any(isinstance(v, list) for v in state["pile"].values())
            c.check("/api/v1/games/{game_id}", summary)
        other = tokens[(seat + 1) % players]
        assert c.call("GET", f"{API}/{gid}/legal-moves", other).json()["moves"] == [], "not its turn"
        legal = c.call("GET", f"{API}/{gid}/legal-moves", tokens[seat]).json()
        if moves % 10 == 0:
            c.check("/api/v1/games/{game_id}/legal-moves", legal)
        listed = [m["move"] for m in legal["moves"]]
        assert listed == sorted(set(listed)) and listed and all(m["description"] for m in legal["moves"])
        assert legal["can_undo"] is False
        move = rng.choice(listed)
        r = c.call("POST", f"{API}/{gid}/moves", tokens[seat],
                   json={"expected_version": summary["version"], "moves": [move]})
        assert r.status_code == 200, r.text
        assert r.json()["version"] == summary["version"] + 1 and r.json()["applied"] == 1
        moves += 1
        if moves == 1:  # a wrong seat and an illegal move are refused, changing nothing
            r = c.call("POST", f"{API}/{gid}/moves", tokens[seat],
                       json={"expected_version": summary["version"] + 1, "moves": [move]})
            assert (r.status_code in (403, 422)
                    and r.headers["Content-Type"].startswith("application/problem+json"))
            actor = c.call("GET", f"{API}/{gid}").json()["to_act"][0]
            r = c.call("POST", f"{API}/{gid}/moves", tokens[actor],
                       json={"expected_version": summary["version"] + 1, "moves": ["place 40,40 r0"]})
            assert r.status_code == 422 and r.json()["code"] == "illegal-move", r.text
            r = c.call("POST", f"{API}/{gid}/moves", tokens[actor],
                       json={"expected_version": summary["version"] + 1, "moves": ["jump"]})
            assert r.status_code == 422 and r.json()["code"] == "bad-notation", r.text
            assert c.call("GET", f"{API}/{gid}").json()["version"] == summary["version"] + 1
    assert moves >= 40  # 71 tiles to draw, less any set aside

    # --- the end: scores, winners, the seed revealed ----------------------------------------
    c.check("/api/v1/games/{game_id}", summary)
    final = c.call("GET", f"{API}/{gid}/state").json()
    c.check("/api/v1/games/{game_id}/state", final)
    assert final["phase"] == "over" and final["to_act"] == [] and final["final"] is not None
    scores = [s["score"] for s in summary["seats"]]
    assert scores == final["scores"] and max(scores) > 0
    assert final["winners"] == [i for i, p in enumerate(scores) if p == max(scores)]
    assert summary["winner"] == (final["winners"][0] if len(final["winners"]) == 1 else None)
    fair = c.call("GET", f"{API}/{gid}/fairness").json()
    revealed = fair["seed"]
    assert fair["finished"] and hashlib.sha256(revealed.encode()).hexdigest() == created["seed_commitment"]
    assert "carcassonne-engine verify" in fair["verify"]
    if seed is not None:
        assert revealed == seed
    before_end = c.bodies[:-2]  # everything served before the final state and the fairness answer
    assert not any(revealed in body for body in before_end), "the seed was served before the end"

    # --- the board picture is Carcassonne's: every tile placed, drawn -----------------------------
    svg = c.call("GET", f"{API}/{gid}/board.svg")
    assert svg.status_code == 200 and svg.headers["Content-Type"].startswith("image/svg+xml")
    assert svg.text.count('<g class="tile"') == len(final["board"]) > 40
    # what the turn email links
    png = c.call("GET", f"{API}/{gid}/board.png", params={"v": final["version"]})
    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n" and len(png.content) > 1000

    # --- the events in words replay to the served position ------------------------------------
    events = c.call("GET", f"{API}/{gid}/events").json()["events"]
    assert [e["version"] for e in events] == list(range(1, summary["version"] + 1))
    assert all(e["text"] for e in events) and events[0]["type"] == "GameStarted"
    bare = [{k: v for k, v in e.items() if k not in ("version", "text")} for e in events]
    assert carcassonne.replay(bare).to_doc()["scores"] == scores
    assert verify_events(bare, revealed, created["seed_commitment"]) == []

    # --- the record verifies with Carcassonne's verifier --------------------------------------
    text = c.call("GET", f"{API}/{gid}/record").text
    headers, rec_events, state = replay_record(text)
    assert headers["Game"] == "carcassonne" and headers["Seed"] == revealed
    assert headers["Result"] == " ".join(map(str, scores)) and state.scores == scores
    assert verify_events(rec_events, revealed, created["seed_commitment"]) == []
    assert verify_events(rec_events, revealed + "x", created["seed_commitment"]), "the check can fail"
    assert games.CARCASSONNE.verify_record(text) == []
    tampered = text.replace(f'[Seed "{revealed}"]', f'[Seed "{revealed}0"]')
    assert tampered != text and games.CARCASSONNE.verify_record(tampered)


def test_the_record_and_events_before_the_end_hold_no_seed(server):
    c = Client(server)
    created = _create(c, 3, None)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    legal = c.call("GET", f"{API}/{gid}/legal-moves", tokens[0]).json()
    c.call("POST", f"{API}/{gid}/moves", tokens[0],
           json={"expected_version": 1, "moves": [legal["moves"][0]["move"]]})
    text = c.call("GET", f"{API}/{gid}/record").text
    assert "[Seed " not in text and "[Result " not in text and '[Game "carcassonne"]' in text
    fair = c.call("GET", f"{API}/{gid}/fairness").json()
    assert fair["seed"] is None and fair["verify"] is None and not fair["finished"]
    # a hint (the generic AI's, docs/ai.md) is one of the seat's legal moves; not for another seat
    r = c.call("GET", f"{API}/{gid}/hint", tokens[1])
    legal = c.call("GET", f"{API}/{gid}/legal-moves", tokens[1]).json()
    assert r.status_code == 200 and r.json()["moves"][0] in {m["move"] for m in legal["moves"]}
    r = c.call("GET", f"{API}/{gid}/hint", tokens[0])
    assert r.status_code == 403 and r.json()["code"] == "not-your-turn"
    seed = server.app.extensions["tablepost.service"].store.seed(gid)
    assert not any(seed in body for body in c.bodies), "the seed was served"


@pytest.mark.parametrize("body, code", [
    ({"game": "carcassonne", "seats": [{"name": "A"}, {"name": "B", "kind": "cardinalbot"}]}, "bad-seats"),
    ({"game": "carcassonne", "seats": [{"name": "A"}, {"name": "B"}],
      "options": {"action_tiles": "shuffled"}},
     "bad-options"),
    ({"game": "carcassonne", "seats": [{"name": "A"}]}, "invalid-request"),
    ({"game": "carcassonne", "seats": [{"name": n} for n in "ABCDEF"]}, "invalid-request"),
    # as it always was for Tiletum
    ({"game": "tiletum", "seats": [{"name": n} for n in "ABCDE"]}, "invalid-request"),
    ({"game": "chess", "seats": [{"name": "A"}, {"name": "B"}]}, "invalid-request"),
])
def test_bad_games_are_refused_clearly(server, body, code):
    c = Client(server)
    r = c.call("POST", API, json=body)
    assert r.status_code == 422 and r.headers["Content-Type"].startswith("application/problem+json"), r.text
    assert r.json()["code"] == code, r.text


def test_five_players(server):
    c = Client(server)
    created = _create(c, 5, "carc-five")
    state = c.call("GET", f"{API}/{created['id']}/state").json()
    assert state["players"] == 5 and state["supply"] == [7] * 5 and json.dumps(state).count("carc-five") == 0


def test_a_finished_carcassonne_game_is_rated_in_its_own_pool(server):
    from application.rating_service import RatingService
    service = server.app.extensions["tablepost.service"]
    # names of this test's own: other tests rate Tiletum players named Ann in the same Redis
    seats = [{"name": "Annika", "email": "ann.carc@example.org"},
             {"name": "Benedikt", "email": "ben.carc@example.org"}]
    created = service.create_game(seats, {"seed": "carc-rated"}, game="carcassonne")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(7)
    while True:
        summary = service.summary(gid)
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        moves = service.legal_moves(gid, tokens[seat])["moves"]
        service.submit(gid, tokens[seat], summary["version"], [rng.choice(moves)["move"]])
    ratings = RatingService(service)
    assert ratings.assess(gid)["pool"] == "carcassonne:multiplayer"
    assert ratings.record_game(gid) is True and ratings.record_game(gid) is False
    c = Client(server)
    board = c.call("GET", "/api/v1/ratings", params={"pool": "carcassonne:multiplayer"}).json()
    names = {row["name"] for row in board["ratings"]}
    assert board["total"] >= 2 and {"Annika", "Benedikt"} <= names, board
    scores = [s["score"] for s in summary["seats"]]
    best = next(r for r in board["ratings"]
                if r["name"] == ("Annika" if scores[0] >= scores[1] else "Benedikt"))
    assert best["rating"] >= 1500
    tiletum = c.call("GET", "/api/v1/ratings", params={"pool": "tiletum:multiplayer"}).json()
    assert not {"Annika", "Benedikt"} & {row["name"] for row in tiletum["ratings"]}, "rated in Tiletum's pool"
    # the dashboard of a player lists the finished Carcassonne game with its places
    from application.dashboard import dashboard_key_for
    key = dashboard_key_for(service.store.r, "ann.carc@example.org")
    me = c.call("GET", "/api/v1/me/games", key)
    assert me.status_code == 200, me.text
    done = [g for g in me.json()["finished"] if g["game"] == gid]
    assert len(done) == 1, me.text


def test_each_carcassonne_move_queues_the_next_turn_email(redis_server):
    """The email channel (mail/) plays Carcassonne through the game interface: the game's start
    and every move that hands the tile to the next seat queue its turn email (tests/
    test_carcassonne_email.py sends them), and the game over is sent on once (it rates the game)."""
    sent = []
    app = make_app(redis_server.url, SEND_TASK=lambda name, args, queue: sent.append(name))
    service = app.extensions["tablepost.service"]
    seats = [{"name": "A", "email": "a.mail@example.org"}, {"name": "B", "email": "b.mail@example.org"}]
    t = service.create_game(seats, {"seed": "mail-t"}, game="tiletum")
    assert "workers.notify_turn" in sent
    sent.clear()
    created = service.create_game(seats, {"seed": "mail-c"}, game="carcassonne")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    moves = 0
    while service.summary(gid)["status"] != "finished":
        summary = service.summary(gid)
        seat = summary["to_act"][0]
        move = service.legal_moves(gid, tokens[seat])["moves"][0]["move"]
        service.submit(gid, tokens[seat], summary["version"], [move])
        moves += 1
    # one at the start, one after every move but the last
    assert sent.count("workers.notify_turn") == moves and sent.count("workers.game_over") == 1, sent
    assert t["id"] != gid
