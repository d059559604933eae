"""The Pillars of the Earth on the service, through the one game interface (games/): whole games
of 2, 3 and 4 players over real HTTP against a real Redis -- created with ``game: pillars``,
played with the legal moves the server lists to the end, the position, summary and legal moves
checked against the served OpenAPI document, the event log in words, and the record that
replays and verifies with the engine's own verifier once the seed is revealed. Nothing served
before the end holds the seed; the bag is served as counts. Then a game with AI seats played to
its end through the API with the AI credential (``ai.generic`` with ``ai.pillars``), and a
finished game rated in its own pool."""
from __future__ import annotations

import hashlib
import random

import pytest
import requests
from openapi_schema_validator import OAS30Validator

import games
import pillars
from seats.ai_runner import play_ai_turn
from seats.client import ApiClient
from conftest import LiveServer, make_app
from tests.servers import HintWorker
from pillars.record import replay_record, verify_events

API = "/api/v1/games"
AI_TOKEN = "ai-credential-for-pillars-tests"


@pytest.fixture(scope="module")
def server(redis_server, tmp_path_factory):
    sent: list[tuple] = []
    with HintWorker(redis_server.url, tmp_path_factory.mktemp("hints") / "hints.log") as worker:
        app = make_app(redis_server.url, AI_TOKEN=AI_TOKEN,   # hints: the real worker
                       SEND_TASK=lambda name, args, queue: worker.send(name, args, queue) if queue == "hints"
                       else sent.append((name, args, queue)))
        with LiveServer(app) as live:
            live.app, live.sent = app, sent
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
        problems = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}"
                    for e in v.iter_errors(answer)]
        assert not problems, f"{path} breaks its schema: {problems[:3]}"


def _create(c: Client, players: int, seed: str | None) -> dict:
    body = {"game": "pillars", "seats": [{"name": f"P{i}"} for i in range(players)],
            "options": {} if seed is None else {"seed": seed}}
    r = c.call("POST", API, json=body)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("players,seed", [(2, "pil-rest-2p"), (3, None), (4, "pil-rest-4p")],
                         ids=["2p-seeded", "3p-secret-seed", "4p-seeded"])
def test_a_whole_pillars_game_over_rest(server, players, seed):
    c = Client(server)
    created = _create(c, players, seed)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    assert all(tokens) and [s["kind"] for s in created["seats"]] == ["human"] * players
    if seed is not None:
        assert created["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    rng = random.Random(f"moves-{players}")
    summary = c.call("GET", f"{API}/{gid}").json()
    assert (summary["game"], summary["status"], summary["phase"]) == ("pillars", "active", "cards")
    c.check("/api/v1/games/{game_id}", summary)
    moves = 0
    version = summary["version"]
    seat = summary["to_act"][0]
    while True:
        if moves % 40 == 0:  # the position, as a spectator and as a seat, typed and without secrets
            summary = c.call("GET", f"{API}/{gid}").json()
            c.check("/api/v1/games/{game_id}", summary)
            for token in (None, tokens[moves % players]):
                state = c.call("GET", f"{API}/{gid}/state", token).json()
                c.check("/api/v1/games/{game_id}/state", state)
                assert state["format"] == "pillars-position/1" and state["version"] == summary["version"]
                assert state["to_act"] == summary["to_act"] == [seat]
                assert state["vp"] == [s["score"] for s in summary["seats"]]
                assert len(state["bag"]) == players and all(isinstance(n, int) for n in state["bag"])
                assert "seed" not in state
        legal = c.call("GET", f"{API}/{gid}/legal-moves", tokens[seat]).json()
        if moves % 40 == 0:
            c.check("/api/v1/games/{game_id}/legal-moves", legal)
            other = tokens[(seat + 1) % players]
            assert c.call("GET", f"{API}/{gid}/legal-moves", other).json()["moves"] == [], "not its turn"
        listed = [m["move"] for m in legal["moves"]]
        assert listed == sorted(set(listed)) and listed and all(m["description"] for m in legal["moves"])
        # mostly the first moves listed (passes, small trades): a game of sensible length
        move = rng.choice(listed[:3] if rng.random() < 0.5 else listed)
        r = c.call("POST", f"{API}/{gid}/moves", tokens[seat],
                   json={"expected_version": version, "moves": [move]})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["version"] == version + 1 and body["applied"] == 1
        version, moves = body["version"], moves + 1
        if moves == 1:  # a wrong seat and an illegal move are refused, changing nothing
            r = c.call("POST", f"{API}/{gid}/moves", tokens[seat],
                       json={"expected_version": version, "moves": [move]})
            assert (r.status_code in (403, 422, 409)
                    and r.headers["Content-Type"].startswith("application/problem+json")), r.text
            actor = c.call("GET", f"{API}/{gid}").json()["to_act"][0]
            r = c.call("POST", f"{API}/{gid}/moves", tokens[actor],
                       json={"expected_version": version, "moves": ["take C24"]})
            assert r.status_code == 422 and r.json()["code"] == "illegal-move", r.text
            r = c.call("POST", f"{API}/{gid}/moves", tokens[actor],
                       json={"expected_version": version, "moves": ["jump"]})
            assert r.status_code == 422 and r.json()["code"] == "bad-notation", r.text
            assert c.call("GET", f"{API}/{gid}").json()["version"] == version
        to_act = body.get("to_act")
        if to_act is None:
            to_act = c.call("GET", f"{API}/{gid}").json()["to_act"]
        if not to_act:
            break
        seat = to_act[0]
    assert moves >= 100

    # --- the end: scores, winners, the seed revealed ----------------------------------------
    summary = c.call("GET", f"{API}/{gid}").json()
    assert summary["status"] == "finished"
    c.check("/api/v1/games/{game_id}", summary)
    final = c.call("GET", f"{API}/{gid}/state").json()
    c.check("/api/v1/games/{game_id}/state", final)
    assert final["phase"] == "over" and final["to_act"] == [] and final["final"] is not None
    scores = [s["score"] for s in summary["seats"]]
    assert scores == final["vp"] and final["round"] == 6
    best = max(zip(final["vp"], final["gold"]))
    assert final["winners"] == [i for i in range(players) if (final["vp"][i], final["gold"][i]) == best]
    assert summary["winner"] == (final["winners"][0] if len(final["winners"]) == 1 else None)
    fair = c.call("GET", f"{API}/{gid}/fairness").json()
    revealed = fair["seed"]
    assert fair["finished"] and hashlib.sha256(revealed.encode()).hexdigest() == created["seed_commitment"]
    assert "pillars-engine verify" in fair["verify"]
    if seed is not None:
        assert revealed == seed
    before_end = c.bodies[:-3]  # everything served before the end's summary, state and fairness
    assert not any(revealed in body for body in before_end), "the seed was served before the end"

    # --- the board picture is Pillars': every seat's row, the bag empty -------------------------
    svg = c.call("GET", f"{API}/{gid}/board.svg")
    assert svg.status_code == 200 and svg.headers["Content-Type"].startswith("image/svg+xml")
    assert svg.text.count('<g class="player"') == players and 'data-phase="over"' in svg.text
    png = c.call("GET", f"{API}/{gid}/board.png", params={"v": final["version"]})
    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n" and len(png.content) > 1000

    # --- the events in words replay to the served position ------------------------------------
    events = c.call("GET", f"{API}/{gid}/events", params={"limit": 1000}).json()["events"]
    assert [e["version"] for e in events] == list(range(1, summary["version"] + 1))
    assert all(e["text"] for e in events) and events[0]["type"] == "GameStarted"
    assert "{seat" not in " ".join(e["text"] for e in events) and "P0 " in events[1]["text"]
    bare = [{k: v for k, v in e.items() if k not in ("version", "text")} for e in events]
    assert pillars.replay(bare).vp == scores
    assert verify_events(bare, revealed, created["seed_commitment"]) == []

    # --- the record verifies with the engine's verifier ---------------------------------------
    text = c.call("GET", f"{API}/{gid}/record").text
    headers, rec_events, state = replay_record(text)
    assert headers["Game"] == "pillars" and headers["Seed"] == revealed
    assert headers["Result"] == " ".join(map(str, scores)) and state.vp == scores
    assert verify_events(rec_events, revealed, created["seed_commitment"]) == []
    assert verify_events(rec_events, revealed + "x", created["seed_commitment"]), "the check can fail"
    assert games.PILLARS.verify_record(text) == []


def test_the_record_and_events_before_the_end_hold_no_seed_and_a_hint_is_legal(server):
    c = Client(server)
    created = _create(c, 3, None)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    legal = c.call("GET", f"{API}/{gid}/legal-moves", tokens[0]).json()
    c.call("POST", f"{API}/{gid}/moves", tokens[0],
           json={"expected_version": 1, "moves": [legal["moves"][-1]["move"]]})
    text = c.call("GET", f"{API}/{gid}/record").text
    assert "[Seed " not in text and "[Result " not in text and '[Game "pillars"]' in text
    fair = c.call("GET", f"{API}/{gid}/fairness").json()
    assert fair["seed"] is None and fair["verify"] is None and not fair["finished"]
    # a hint (the generic AI's) is one of the seat's legal moves; not for another seat
    r = c.call("GET", f"{API}/{gid}/hint", tokens[1])
    legal = c.call("GET", f"{API}/{gid}/legal-moves", tokens[1]).json()
    assert r.status_code == 200 and r.json()["moves"][0] in {m["move"] for m in legal["moves"]}, r.text
    r = c.call("GET", f"{API}/{gid}/hint", tokens[0])
    assert r.status_code == 403 and r.json()["code"] == "not-your-turn"
    seed = server.app.extensions["tablepost.service"].store.seed(gid)
    assert not any(seed in body for body in c.bodies), "the seed was served"


@pytest.mark.parametrize("body, code", [
    ({"game": "pillars", "seats": [{"name": "A"}, {"name": "B", "kind": "cardinalbot"}]}, "bad-seats"),
    ({"game": "pillars", "seats": [{"name": "A"}, {"name": "B"}], "options": {"action_tiles": "shuffled"}},
     "bad-options"),
    ({"game": "pillars", "seats": [{"name": "A"}]}, "invalid-request"),
    ({"game": "pillars", "seats": [{"name": n} for n in "ABCDE"]}, "invalid-request"),
])
def test_bad_pillars_games_are_refused_clearly(server, body, code):
    c = Client(server)
    r = c.call("POST", API, json=body)
    assert r.status_code == 422 and r.headers["Content-Type"].startswith("application/problem+json"), r.text
    assert r.json()["code"] == code, r.text


def test_a_pillars_game_with_ai_seats_is_played_through_the_api_to_its_end(server):
    c = Client(server)
    sent = server.sent
    sent.clear()
    r = c.call("POST", API, json={"game": "pillars", "options": {"seed": "pil-ai"}, "seats": [
        {"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "easy"}, {"name": "Tron", "kind": "ai"}]})
    assert r.status_code == 201, r.text
    game = r.json()
    gid, token = game["id"], game["seats"][0]["token"]
    assert [s["kind"] for s in game["seats"]] == ["human", "ai", "ai"] and game["seats"][1]["token"] is None
    client = ApiClient(server.url, AI_TOKEN)
    rng = random.Random(gid)
    turns = {1: 0, 2: 0}
    for _ in range(1000):
        summary = c.call("GET", f"{API}/{gid}").json()
        if summary["status"] == "finished":
            break
        if summary["to_act"] == [0]:
            legal = c.call("GET", f"{API}/{gid}/legal-moves", token).json()
            move = rng.choice(legal["moves"])["move"]
            r = c.call("POST", f"{API}/{gid}/moves", token,
                       json={"expected_version": legal["version"], "moves": [move]})
            assert r.status_code == 200, r.text
            continue
        tasks = [t for t in sent if t[0] == "seats.play_ai_turn" and t[1][0] == gid]
        assert tasks, f"no AI task sent while seat {summary['to_act']} is to act"
        _, (task_gid, seat, version, level), _ = tasks[-1]
        assert [seat] == summary["to_act"] and level == {1: "easy", 2: "medium"}[seat]
        sent.clear()
        played = play_ai_turn(client, gid, seat, level, version)   # a seat often decides several times
        assert played >= 1
        turns[seat] += played
    assert summary["status"] == "finished" and summary["phase"] == "over"
    assert turns[1] >= 30 and turns[2] >= 30
    events = c.call("GET", f"{API}/{gid}/events", params={"limit": 1000}).json()["events"]
    assert any(e["text"].startswith("Robo ") for e in events), "the AI seats' moves in words, by name"


def test_a_finished_pillars_game_is_rated_in_its_own_pool(server):
    from application.rating_service import RatingService
    service = server.app.extensions["tablepost.service"]
    seats = [{"name": "Pilar", "email": "pilar.pil@example.org"},
             {"name": "Tomas", "email": "tomas.pil@example.org"}]
    created = service.create_game(seats, {"seed": "pil-rated"}, game="pillars")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    state, _ = pillars.new_game(2, "pil-rated")
    rng = random.Random(7)
    while not games.PILLARS.is_over(state):   # the engine picks (fast); the service plays each move
        move = rng.choice(pillars.legal_moves(state))
        service.submit(gid, tokens[state.actor], state.version, [move])
        _, state = pillars.play(state, state.actor, move, seed="pil-rated")
    assert service.summary(gid)["status"] == "finished"
    ratings = RatingService(service)
    assert ratings.assess(gid)["pool"] == "pillars:multiplayer"
    assert ratings.record_game(gid) is True and ratings.record_game(gid) is False
    board = Client(server).call("GET", "/api/v1/ratings", params={"pool": "pillars:multiplayer"}).json()
    assert {"Pilar", "Tomas"} <= {row["name"] for row in board["ratings"]}, board
    other = Client(server).call("GET", "/api/v1/ratings", params={"pool": "carcassonne:multiplayer"}).json()
    assert not {"Pilar", "Tomas"} & {row["name"] for row in other["ratings"]}


def test_the_generic_ai_beats_random_play_at_pillars():
    """medium (ai.generic with ai.pillars) against uniformly random legal moves, seats swapped:
    it wins every game, by some margin on the whole (each move checked as a player's would be)."""
    import ai
    from pillars.playout import random_move
    game = games.PILLARS
    margins = []
    for i in range(4):
        seed, me = f"vr{i}", i % 2
        rng = random.Random(seed)
        state, _ = game.new_game(2, seed, {})
        while not game.is_over(state):
            seat = state.actor
            move = (ai.decide(game.view(state, seat), "medium", f"{seed}:{state.version}")[0] if seat == me
                    else str(random_move(state, rng)))
            _, state = game.play(state, seat, move, seed)
        margins.append(state.vp[me] - state.vp[1 - me])
    assert all(m > 0 for m in margins) and sum(margins) / len(margins) > 10, margins


def test_the_pillars_ai_levels_play_legal_moves_deterministically_and_differ():
    """Every level (Pillars' own presets, ``ai.generic.GAME_LEVELS``) answers positions of every
    phase of a 2- and a 3-player game with one of the seat's legal moves, the same one for the same
    view, level and rng seed; the three presets differ (docs/ai.md, "The Pillars of the Earth")."""
    import ai
    from ai import generic
    from pillars.playout import random_move
    game = games.PILLARS
    presets = [generic.budget(level, games.PILLARS) for level in ("easy", "medium", "hard")]
    assert len(set(presets)) == 3, presets
    assert generic.budget("easy", games.PILLARS) != generic.budget("easy")   # its own, not Carcassonne's
    easy, medium, hard = presets
    assert easy[2:] == () and medium[2:] == hard[2:] == ("own",)       # medium adds the seat's next move
    assert hard[0] > medium[0] and hard[1] > medium[1]                   # hard searches wider
    phases = set()
    for players, seed in ((2, "lv2"), (3, "lv3")):
        rng = random.Random(seed)
        state, _ = game.new_game(players, seed, {})
        step = 0
        while not game.is_over(state):
            if step % 23 == 5:
                seat = state.actor
                view = game.view(state, seat)
                legal = {m for m, _ in game.legal_moves(state)}
                for level in ("easy", "medium", "hard"):
                    move = ai.decide(view, level, f"t{step}")
                    assert len(move) == 1 and move[0] in legal, (level, state.phase, move)
                    assert ai.decide(game.view(state, seat), level, f"t{step}") == move
                    game.play(state, seat, move[0], seed)             # the engine takes it
                phases.add(state.phase)
            _, state = game.play(state, state.actor, str(random_move(state, rng)), seed)
            step += 1
    assert {"cards", "builders"} <= phases, phases
