"""No hints in a rated game (issue 27): an ordinary game whose seats have their own email addresses
is rated as much as a tournament's, so `GET /hint` is 403 `hints-off` there too. The game summary
says whether a game is rated (`rated`), by the predicate the ratings use (application/rated.py):
a game the summary calls rated is rated when it ends, and one it calls unrated is not."""
from __future__ import annotations

import random

import pytest

import tiletum
from application.rating_service import RatingService
from tests.conftest import make_app
from tests.servers import HintWorker

API = "/api/v1/games"


@pytest.fixture()
def app(redis_server, tmp_path):
    with HintWorker(redis_server.url, tmp_path / "hints.log") as worker:   # computes the unrated games' hints
        yield make_app(redis_server.url, HINT_LEVEL="easy", SEND_TASK=worker.send)


@pytest.fixture()
def client(app):
    return app.test_client()


def create(client, seats, options=None, seed="hints-rated"):
    rv = client.post(API, json={"seats": seats, "options": {"seed": seed, **(options or {})}})
    assert rv.status_code == 201, rv.get_json()
    return rv.get_json()


def hint(client, g):
    to_act = client.get(f"{API}/{g['id']}").get_json()["to_act"][0]
    token = g["seats"][to_act]["token"]
    return client.get(f"{API}/{g['id']}/hint", headers={"Authorization": f"Bearer {token}"})


TWO = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Ben", "email": "ben@example.org"}]


@pytest.mark.parametrize("seats, options, rated", [
    (TWO, {}, True),                                                            # an ordinary game: rated
    (TWO, {"rated": False}, False),                                             # created unrated
    ([{"name": "Ann", "email": "ann@example.org"}, {"name": "Ben"}], {}, False),  # a seat with no address
    ([{"name": "Ann", "email": "ann@example.org"}, {"name": "Ann 2", "email": "ANN@example.org"}], {}, False),
    ([{"name": "Ann", "email": "ann@example.org"}, {"name": "AI", "kind": "ai", "level": "easy"}], {}, False),
])
def test_hints_are_off_in_every_rated_game_and_the_summary_says_which(client, seats, options, rated):
    g = create(client, seats, options)
    assert client.get(f"{API}/{g['id']}").get_json()["rated"] is rated
    if g["seats"][client.get(f"{API}/{g['id']}").get_json()["to_act"][0]]["token"] is None:
        pytest.skip("the AI seat is to act")
    rv = hint(client, g)
    if rated:
        assert rv.status_code == 403 and rv.get_json()["code"] == "hints-off", rv.get_json()
        assert rv.headers["Content-Type"] == "application/problem+json"
    else:
        assert rv.status_code == 200 and rv.get_json()["moves"], rv.get_json()


@pytest.mark.parametrize("seats, rated", [(TWO, True), ([{"name": "Ann"}, {"name": "Ben"}], False)])
def test_the_summary_says_what_the_ratings_do(app, client, seats, rated):
    svc = app.extensions["tablepost.service"]
    g = create(client, seats, seed=f"hints-rated-{rated}")
    rng = random.Random(3)
    while True:
        _, state = svc.load(g["id"])
        if state.phase == "over":
            break
        moves = sorted(str(m) for m in tiletum.legal(state) if str(m) != "undo")
        svc.submit_for_seat(g["id"], state.actor, state.version, [rng.choice(moves)])
    assert client.get(f"{API}/{g['id']}").get_json()["rated"] is rated
    assessed = RatingService(svc).assess(g["id"])
    assert ("unrated" not in assessed) is rated, assessed
