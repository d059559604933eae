"""The AI player of Carcassonne (docs/ai.md, "Any game: the generic search"): its search works over
the game interface (``ai.generic`` over ``games.Game``), with Carcassonne's evaluation
(``ai.carcassonne``). Legal in every position of many seeded games, deterministic, reading only
the served view; better than random play; AI seats of a Carcassonne game created and played
through the REST API with the AI credential, and the hint endpoint."""
from __future__ import annotations

import random

import pytest
import requests

import ai
import games
from ai import carcassonne as evaluation
from ai import generic
from carcassonne.rules import random_move
from seats.ai_runner import play_ai_turn
from seats.client import ApiClient
from tests.conftest import LiveServer, make_app
from tests.servers import HintWorker

G = games.get("carcassonne")
API = "/api/v1/games"
AI_TOKEN = "ai-credential-for-carcassonne-tests"


def play_game(players: int, seed: str, policy) -> object:
    """A whole game, each move checked by the engine as a player's would be (``play`` without
    ``trusted``: an illegal move raises)."""
    state, _ = G.new_game(players, seed, {})
    while not G.is_over(state):
        seat = state.actor
        move = policy(state, seat)
        _, state = G.play(state, seat, move, seed)
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_easy_ai_seats_play_whole_games_with_only_legal_moves(players):
    for i in range(2):
        seed = f"cai-legal-{players}-{i}"
        final = play_game(players, seed, lambda s,
                          seat: ai.decide(G.view(s, seat), "easy", f"{seed}:{s.version}")[0])
        assert G.is_over(final) and sum(final.scores) > 0


@pytest.mark.parametrize("level,players", [("medium", 3), ("hard", 2), ("hard", 3)])
def test_answers_are_legal_and_deterministic_and_read_only_the_view(level, players):
    state, _ = G.new_game(players, "cai-det", {})
    rng = random.Random(5)
    for _ in range(20):   # a position some way into the game
        _, state = G.play(state, state.actor, str(random_move(state, rng)), "cai-det")
    view = G.view(state, state.actor)
    assert "seed" not in view
    moves = ai.decide(view, level, "r1")
    assert len(moves) == 1 and moves[0] in {m for m, _ in G.legal_moves(state)}
    assert ai.decide(view, level, "r1") == moves                 # same view, level, rng seed
    assert ai.decide(dict(view), level, "r1") == moves
    # the view is all it reads: a state rebuilt from the document alone (no seed anywhere) decides alike
    other = G.from_doc({k: v for k, v in view.items() if k not in ("viewer", "to_act")})
    assert ai.decide(G.view(other, state.actor), level, "r1") == moves


def test_the_ai_refuses_a_position_where_the_seat_has_no_decision():
    state, _ = G.new_game(2, "cai-no", {})
    with pytest.raises(ValueError):
        ai.decide(G.view(state, 1 - state.actor), "easy", 0)
    with pytest.raises(ValueError):
        ai.decide(G.view(state, state.actor), "godlike", 0)


def test_easy_beats_random_play_clearly():
    margins = []
    for i in range(3):
        seed = f"cai-vs-random-{i}"
        rng = random.Random(seed)
        final = play_game(2, seed, lambda s, seat: (ai.decide(G.view(s, seat), "easy", seed)[0] if seat == 0
                                                     else str(random_move(s, rng))))
        margins.append(final.scores[0] - final.scores[1])
    assert all(m > 10 for m in margins), margins


def test_the_evaluation_counts_what_followers_will_score():
    """A follower on an incomplete city is worth its points now and some of its completion; a
    follower kept in supply is worth something while tiles remain; a finished game is its score."""
    state, _ = G.new_game(2, "cai-eval", {})
    est = evaluation.estimates(state)
    assert est[0] == est[1] > 0                                      # followers in supply only
    rng = random.Random(3)
    while not G.is_over(state):
        _, state = G.play(state, state.actor, str(random_move(state, rng)), "cai-eval")
    assert evaluation.estimates(state) == [float(v) for v in state.scores]


# --- through the REST API ----------------------------------------------------------------------------

@pytest.fixture()
def live(redis_server, tmp_path):
    sent: list[tuple] = []
    with HintWorker(redis_server.url, tmp_path / "hints.log") as worker:   # hints: the real worker
        app = make_app(redis_server.url, AI_TOKEN=AI_TOKEN, BOT_TOKEN="bot-credential-for-cai-tests",
                       SEND_TASK=lambda name, args, queue: worker.send(name, args, queue) if queue == "hints"
                       else sent.append((name, args, queue)))
        with LiveServer(app) as server:
            yield server.url, sent


def test_a_carcassonne_game_with_ai_seats_is_played_through_the_api_to_its_end(live):
    url, sent = live
    http = requests.Session()
    rv = http.post(url + API, timeout=10, json={"game": "carcassonne", "seats": [
        {"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "easy"}, {"name": "Tron", "kind": "ai"}]})
    assert rv.status_code == 201, rv.text
    game = rv.json()
    gid = game["id"]
    assert [s["kind"] for s in game["seats"]] == ["human", "ai", "ai"]
    assert game["seats"][1]["token"] is None
    me = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    # a hint for the human seat is one of its legal moves
    hint = http.get(f"{url}{API}/{gid}/hint", headers=me, timeout=30)
    assert hint.status_code == 200, hint.text
    legal = http.get(f"{url}{API}/{gid}/legal-moves", headers=me, timeout=10).json()
    assert hint.json()["moves"][0] in {m["move"] for m in legal["moves"]}
    client = ApiClient(url, AI_TOKEN)
    rng = random.Random(gid)
    turns = {1: 0, 2: 0}
    for _ in range(400):
        summary = http.get(f"{url}{API}/{gid}", timeout=10).json()
        if summary["status"] == "finished":
            break
        if summary["to_act"] == [0]:
            legal = http.get(f"{url}{API}/{gid}/legal-moves", headers=me, timeout=10).json()
            rv = http.post(f"{url}{API}/{gid}/moves", headers=me, timeout=10,
                           json={"expected_version": legal["version"],
                                 "moves": [rng.choice(legal["moves"])["move"]]})
            assert rv.status_code == 200, rv.text
            continue
        tasks = [t for t in sent if t[0] == "seats.play_ai_turn"]
        assert tasks, f"no AI task sent while seat {summary['to_act']} is to act"
        _, (task_gid, seat, version, level), queue = tasks[-1]
        assert task_gid == gid and [seat] == summary["to_act"] and level == {1: "easy", 2: "medium"}[seat]
        sent.clear()
        assert play_ai_turn(client, gid, seat, level, version) == 1
        turns[seat] += 1
    assert summary["status"] == "finished" and summary["phase"] == "over"
    assert turns[1] >= 20 and turns[2] >= 20
    # a made-up level, or a seat kind Carcassonne does not have, creates nothing
    rv = http.post(url + API, timeout=10, json={"game": "carcassonne", "seats": [
        {"name": "A"}, {"name": "B", "kind": "ai", "level": "god"}]})
    assert rv.status_code == 422
    rv = http.post(url + API, timeout=10, json={"game": "carcassonne", "seats": [
        {"name": "A"}, {"name": "B", "kind": "cardinalbot"}]})
    assert rv.status_code == 422 and "seats" in rv.text


def test_the_next_tile_outcomes_are_every_tile_that_fits_weighted_by_its_count():
    """hard's chance node: the tile in hand replaced by each face-down tile that fits somewhere,
    weighted by how many there are (the one in hand put back); each outcome a consistent position."""
    from collections import Counter

    from carcassonne.rules import placeable

    state, _ = G.new_game(2, "cai-next", {})
    rng = random.Random(4)
    for _ in range(30):
        _, state = G.play(state, state.actor, str(random_move(state, rng)), "cai-next")
    pool = Counter(state.pile) + Counter([state.tile])
    outcomes = generic.chances(games.CARCASSONNE)(state)
    got = {o.tile: w for w, o in outcomes}
    assert got == {t: float(n) for t, n in pool.items() if placeable(state, t)}
    assert len(got) == len(outcomes) > 5
    assert sum(got.values()) == sum(n for t, n in pool.items() if placeable(state, t))
    for w, o in outcomes:
        assert Counter(o.pile) + Counter([o.tile]) == pool and o.actor == state.actor
        assert G.from_doc(o.to_doc()) == o                          # a position the rules accept
        assert o.tiles == state.tiles and o.scores == state.scores
    assert any(o is state for _, o in outcomes)                     # the drawn tile is the state itself
    final = play_game(2, "cai-next-end", lambda s, seat: str(random_move(s, rng)))
    assert generic.chances(games.CARCASSONNE)(final) == [(1.0, final)]


def test_the_generic_levels_and_budget():
    assert generic.budget("easy") == (1, 0)
    assert generic.budget("hard")[2:] == ("expect+own",) and generic.budget("medium")[2:] == ("own",)
    assert generic.budget(0) == (1, 0)
    with pytest.raises(ValueError):
        generic.budget(-1)


def test_the_stand_in_plays_a_late_carcassonne_turn_with_the_ai(redis_client):
    """The deadline passes in a Carcassonne game: the stand-in places the tile with the AI at the
    stand-in level from the seat's view, labelled in the log and the record."""
    from datetime import datetime, timezone

    from application.deadline_store import DEADLINES, REMINDERS
    from application.deadlines import Deadlines
    from application.stand_in import STAND_IN_LEVEL
    from application.game_service import GameService
    from application.store import EventStore

    redis_client.delete(*DEADLINES.keys(), *REMINDERS.keys())
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    t = [datetime(2026, 11, 18, 9, 0, tzinfo=timezone.utc).timestamp()]
    gid = svc.create_game([{"name": "Ada"}, {"name": "Bob"}],
                          {"seed": "cai-stand-in", "time_control": {"days_per_move": 1}},
                          game="carcassonne")["id"]
    _, before = svc.load(gid)
    seat = before.actor
    dl = Deadlines(svc, None, lambda: t[0])
    dl.start_turn(gid, svc.meta(gid), seat, before.version)
    t[0] += 25 * 3600
    assert dl.sweep()["stand_in_turns"] == 1
    _, after = svc.load(gid)
    assert after.actor != seat and after.version == before.version + 1
    played = [e for e in svc.store.events(gid) if e.get("by") == "stand-in"]
    assert [e["move"] for e in played] == ai.decide(G.view(before, seat), STAND_IN_LEVEL,
                                                    f"{gid}:{before.version}")
    assert "[stand-in]" in svc.record(gid)
