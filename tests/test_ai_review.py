"""Game review (issue 31; application/review.py, GET /api/v1/games/{id}/review): a short seeded game
played to the end through the service, the review task computed here synchronously, and the API's
answers: 409 before the end, 202 while computing (the task sent once), the review once stored,
private to its seat in a rated game and readable by anyone in a game that is not rated."""
from __future__ import annotations

import pytest

import games

import ai
from application.review import Reviews, review_key
from tests.conftest import make_app

API = "/api/v1/games"


@pytest.fixture()
def setup(redis_server):
    sent = []
    app = make_app(redis_server.url, SEND_TASK=lambda name, args, queue: sent.append((name, args, queue)))
    return app, app.test_client(), sent


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def create(client, seed, emails=False, **options):
    seats = [{"name": f"P{i}", **({"email": f"p{i}-{seed}@example.org"} if emails else {})} for i in range(2)]
    rv = client.post(API, json={"seats": seats, "options": {"seed": seed, **options}})
    assert rv.status_code == 201, rv.get_data(as_text=True)
    g = rv.get_json()
    return g["id"], [s["token"] for s in g["seats"]]


def play_to_the_end(app, game_id, tokens):
    """Every seat played by the AI at a one-iteration budget, through the game service."""
    service = app.extensions["tablepost.service"]
    import games
    n = 0
    while True:
        _, state = service.load(game_id)
        if state.phase == "over":
            return state
        seat = state.actor
        moves = ai.decide(games.TILETUM.view(state, seat), 1, n)
        service.submit(game_id, tokens[seat], state.version, moves)
        n += 1


def test_a_review_is_made_after_the_game_by_a_background_task_and_is_the_seats_own(setup):
    app, client, sent = setup
    gid, tokens = create(client, "review-rated", emails=True)
    rv = client.get(f"{API}/{gid}/review?seat=0", headers=bearer(tokens[0]))
    assert rv.status_code == 409 and rv.get_json()["code"] == "game-not-over"
    play_to_the_end(app, gid, tokens)
    sent.clear()
    # computing: 202 with Retry-After, the task sent once however often asked
    for _ in range(2):
        rv = client.get(f"{API}/{gid}/review?seat=0", headers=bearer(tokens[0]))
        assert rv.status_code == 202 and rv.headers["Retry-After"] == "5"
        assert rv.get_json() == {"status": "computing", "retry_after": 5}
    assert [s for s in sent if s[0] == "workers.review_game"] == [
        ("workers.review_game", [gid, 0], "reviews")], "on its own queue, never ahead of an email"
    # the task, here synchronously (what workers.review_game runs), at a small budget
    reviews = Reviews(app.extensions["tablepost.service"], level=2)
    doc = reviews.compute(gid, 0)
    assert reviews.compute(gid, 0) == doc                     # idempotent: stored once
    rv = client.get(f"{API}/{gid}/review?seat=0", headers=bearer(tokens[0]))
    assert rv.status_code == 200, rv.get_data(as_text=True)
    got = rv.get_json()
    assert got["seat"] == 0 and got["decisions"] and got["decisions"] == doc["decisions"]
    assert all(d["loss"] >= 0 and d["played"] and d["preferred"] and d["position"].startswith("Round ")
               for d in got["decisions"])
    assert any(d["played"] != d["preferred"] for d in got["decisions"])
    losses = [got["decisions"][i]["loss"] for i in got["costliest"]]
    assert 0 < len(losses) <= 5 and losses == sorted(losses, reverse=True)
    assert losses[0] == max(d["loss"] for d in got["decisions"])
    versions = [d["version"] for d in got["decisions"]]
    assert versions == sorted(versions)
    # a rated game's review is its seat's own
    rv = client.get(f"{API}/{gid}/review?seat=0", headers=bearer(tokens[1]))
    assert rv.status_code == 403 and rv.get_json()["code"] == "review-private"
    rv = client.get(f"{API}/{gid}/review?seat=0")
    assert rv.status_code == 401
    # bad input: a clear 422, nothing computed
    for q in ("", "?seat=7", "?seat=x"):
        rv = client.get(f"{API}/{gid}/review{q}", headers=bearer(tokens[0]))
        assert rv.status_code == 422, (q, rv.get_data(as_text=True))
    rv = client.get(f"{API}/{gid}/review?seat=1", headers=bearer(tokens[1]))
    assert rv.status_code == 202                              # seat 1's own: being made


def test_a_review_of_a_game_that_is_not_rated_is_public(setup):
    app, client, _ = setup
    gid, tokens = create(client, "review-public", rated=False)
    play_to_the_end(app, gid, tokens)
    Reviews(app.extensions["tablepost.service"], level=1).compute(gid, 1)
    rv = client.get(f"{API}/{gid}/review?seat=1")               # anyone
    assert rv.status_code == 200 and rv.get_json()["seat"] == 1
    app.extensions["tablepost.service"].store.r.delete(review_key(gid, 1))


def play_randomly(app, game_id, tokens, seed):
    """Every seat plays a random legal move (seeded), through the game service, to the end."""
    import random

    import games
    service = app.extensions["tablepost.service"]
    rng = random.Random(seed)
    while True:
        meta, state = service.load(game_id)
        game = games.of_meta(meta)
        if game.is_over(state):
            return game, state
        seat = game.actor(state)
        move = rng.choice(game.legal_moves(state))[0]
        service.submit(game_id, tokens[seat], state.version, [move])


@pytest.mark.parametrize("name", list(games.NAMES))
def test_every_game_has_a_review_whose_figures_are_bounded_by_what_the_game_could_give(setup, name):
    """Each decision's estimated loss, and the total, are at most the best final score of the game
    (the AI's raw estimates of a randomly played game add up to far more: the bound is what makes
    them make sense); each decision's version is the replay's step where both moves are legal."""
    app, client, _ = setup
    rv = client.post(API, json={"game": name, "seats": [{"name": "A"}, {"name": "B"}],
                                "options": {"rated": False,
                                            **({"seed": "bounded"} if name == "tiletum" else {})}})
    assert rv.status_code == 201, rv.get_data(as_text=True)
    gid, tokens = rv.get_json()["id"], [s["token"] for s in rv.get_json()["seats"]]
    if name == "tiletum":
        import games
        state = play_to_the_end(app, gid, tokens)
        game = games.TILETUM
    else:
        game, state = play_randomly(app, gid, tokens, name)
    service = app.extensions["tablepost.service"]
    doc = Reviews(service, level=2).compute(gid, 0)
    got = client.get(f"{API}/{gid}/review?seat=0").get_json()
    assert got == doc
    scores = game.scores(state)
    assert doc["bound"] == max(scores) and doc["score"] == scores[0]
    assert doc["decisions"] and any(d["loss"] > 0 for d in doc["decisions"])
    assert all(0 <= d["loss"] <= doc["bound"] for d in doc["decisions"])
    assert doc["total_loss"] <= doc["bound"]
    assert doc["total_loss"] == min(doc["raw_total"], doc["bound"])
    assert doc["score_unit"] == game.score_unit
    for i in doc["costliest"]:
        d = doc["decisions"][i]
        _, at = service.state_at(gid, d["version"])
        legal = dict(game.legal_moves(at))
        assert d["played"] in legal and d["preferred"] in legal and game.actor(at) == 0
        assert legal[d["played"]] == d["played_words"] and legal[d["preferred"]] == d["preferred_words"]
    # a stored review whose raw figures exceed the bound (a review stored before it) reads bounded
    raw = dict(doc, decisions=[dict(d, loss=d["loss"] + 10 * doc["bound"]) for d in doc["decisions"]])
    raw.pop("bound")
    import json
    service.store.r.set(review_key(gid, 0), json.dumps(raw))
    again = client.get(f"{API}/{gid}/review?seat=0").get_json()
    assert all(d["loss"] == doc["bound"] for d in again["decisions"])
    assert again["total_loss"] == doc["bound"] < again["raw_total"]


def test_the_first_answer_and_every_later_read_of_a_review_agree(setup, monkeypatch):
    """A loss the AI estimates above the bound: the review's figures are the same when it is first
    computed and when it is read again (raw_total is the plain sum of the AI's own estimates both
    times; stored bounded, the second read summed the cut losses instead)."""
    app, client, _ = setup
    gid, tokens = create(client, "review-agree", rated=False)
    state = play_to_the_end(app, gid, tokens)
    service = app.extensions["tablepost.service"]
    import games
    bound = games.TILETUM.review_bound(state, 0)
    estimates = [{"version": 1, "played": "end", "best": "end", "loss": bound * 3},
                 {"version": 2, "played": "end", "best": "end", "loss": 2.5}]
    monkeypatch.setattr(ai, "review_decisions", lambda *a, **k: [dict(d) for d in estimates])
    first = Reviews(service, level=2).compute(gid, 0)
    again = Reviews(service, level=2).compute(gid, 0)
    read = client.get(f"{API}/{gid}/review?seat=0").get_json()
    assert first == again
    assert [d["loss"] for d in read["decisions"]] == [d["loss"] for d in first["decisions"]]
    assert (read["raw_total"], read["total_loss"], read["bound"]) == \
        (first["raw_total"], first["total_loss"], first["bound"])
    assert first["raw_total"] == round(bound * 3 + 2.5, 1) and first["total_loss"] == round(bound, 1)
    assert max(d["loss"] for d in first["decisions"]) == round(bound, 1)
