"""``GET /api/v1/games``: the games in progress that anyone may watch (the home page lists them,
issue 28). Only what each game's page shows a spectator: the game, its round, its seats' names,
its start, its tournament; never a token, an email or a seed. A game leaves the list when it ends
(at once) or is gone (at the next listing). The dashboard's games say which game each is."""
from __future__ import annotations

import uuid

import pytest
import redis

from application.dashboard import dashboard_key_for
from application.indexes import ACTIVE
from tests.conftest import make_app
from tests.test_dashboard import finish


@pytest.fixture()
def app(redis_server):
    """The app on a Redis database of this module's own: the list holds this module's games only."""
    url = redis_server.url.rsplit("/", 1)[0] + "/8"
    redis.Redis.from_url(url).flushdb()
    return make_app(url)


def create(client, seats, game="tiletum", **options):
    rv = client.post("/api/v1/games", json={"game": game, "seats": seats, "options": options})
    assert rv.status_code == 201, rv.get_json()
    return rv.get_json()


def test_the_list_shows_games_in_progress_newest_first_with_public_facts_only(app):
    client = app.test_client()
    mail = f"pub-{uuid.uuid4().hex[:8]}@players.test"
    old = create(client, [{"name": "Ann", "email": mail}, {"name": "Bob"}], seed="pub-old")
    carc = create(client, [{"name": "Cleo"}, {"name": "Dan"}, {"name": "Eve"}], game="carcassonne")
    r = app.extensions["tablepost.service"].store.r
    r.zadd(ACTIVE.key(old["id"]), {old["id"]: 1_000_000_000})   # created long ago: listed last
    rv = client.get("/api/v1/games?status=active&limit=20")
    assert rv.status_code == 200
    listed = rv.get_json()["games"]
    assert [g["id"] for g in listed] == [carc["id"], old["id"]]
    assert listed[0] == {"id": carc["id"], "game": "carcassonne", "round": 1,
                         "players": ["Cleo", "Dan", "Eve"],
                         "tournament": None, "started": listed[0]["started"]}
    assert listed[1]["game"] == "tiletum" and listed[1]["players"] == ["Ann", "Bob"]
    text = rv.get_data(as_text=True)
    for secret in [mail, *(s["token"] for s in old["seats"] + carc["seats"] if s.get("token"))]:
        assert secret not in text
    assert "seed" not in text
    assert [g["id"] for g in client.get("/api/v1/games?limit=1").get_json()["games"]] == [carc["id"]]


def test_a_game_leaves_the_list_when_it_ends_or_is_gone(app):
    client = app.test_client()
    service = app.extensions["tablepost.service"]
    over = create(client, [{"name": "Fay"}, {"name": "Gus"}], seed="pub-over")
    gone = create(client, [{"name": "Hal"}, {"name": "Ivy"}])
    kept = create(client, [{"name": "Jo"}, {"name": "Kim"}])
    finish(client, service, over["id"])
    r = service.store.r
    assert r.zscore(ACTIVE.key(over["id"]), over["id"]) is None, "off the list as it ends"
    r.delete(*r.keys(f"g:{{{gone['id']}}}:*"))   # a game deleted behind the service's back
    ids = [g["id"] for g in client.get("/api/v1/games").get_json()["games"]]
    assert kept["id"] in ids and over["id"] not in ids and gone["id"] not in ids
    assert r.zscore(ACTIVE.key(gone["id"]), gone["id"]) is None, "a game that is gone leaves the index"


@pytest.mark.parametrize("query",
                         ["status=finished", "status=", "limit=0", "limit=51", "limit=x", "limit=-1"])
def test_a_bad_query_is_422_and_changes_nothing(app, query):
    client = app.test_client()
    game = create(client, [{"name": "Lu"}, {"name": "Mo"}])
    rv = client.get(f"/api/v1/games?{query}")
    assert rv.status_code == 422 and rv.mimetype == "application/problem+json"
    assert rv.get_json()["code"] == "invalid-request"
    assert game["id"] in [g["id"] for g in client.get("/api/v1/games").get_json()["games"]]


def test_the_dashboard_says_which_game_each_is(app):
    client = app.test_client()
    service = app.extensions["tablepost.service"]
    mail = f"which-{uuid.uuid4().hex[:8]}@players.test"
    tiletum = create(client, [{"name": "Ann", "email": mail}, {"name": "Bob"}], seed="which-t")
    carc = create(client, [{"name": "Cy"}, {"name": "Ann", "email": mail}], game="carcassonne")
    done = create(client, [{"name": "Ann", "email": mail}, {"name": "Dee"}], seed="which-done")
    finish(client, service, done["id"])
    key = dashboard_key_for(service.store.r, mail)
    for _ in range(2):  # the second time, the finished game's result comes from the dashboard's cache
        out = client.get("/api/v1/me/games", headers={"Authorization": f"Bearer {key}"}).get_json()
        names = {g["game"]: g["game_name"] for g in out["to_move"] + out["waiting"] + out["finished"]}
        assert names == {tiletum["id"]: "tiletum", carc["id"]: "carcassonne", done["id"]: "tiletum"}
