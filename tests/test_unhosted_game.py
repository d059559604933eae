"""A stored game whose rules are not installed (an operator removed the game's distribution, or a
service started without it): nothing of it is lost, the list of games in progress leaves it out
rather than failing for every game, its own requests are a problem+json with a stable code, in the
reader's language, and it plays again once its rules are back. A Redis of its own: the game it leaves
behind would otherwise be in the other tests' lists."""
from __future__ import annotations

import pytest

from tests.conftest import make_app
from tests.examples import hosting

API = "/api/v1/games"


@pytest.fixture()
def own_redis(tmp_path):
    from api.redis_server import EmbeddedRedis
    server = EmbeddedRedis(tmp_path / "redis").start()
    yield server
    server.stop()


def test_a_game_whose_rules_are_gone_is_kept_and_refused_clearly(own_redis):
    app = make_app(own_redis.url)
    c, svc = app.test_client(), app.extensions["tablepost.service"]
    other = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Cy"}, {"name": "Di"}]}).json["id"]
    with hosting("connect-four"):
        # (by the service: the app's request schemas list the games installed when it was built)
        created = svc.create_game([{"name": "Ada"}, {"name": "Bob"}], {}, game="connect-four")
        gid, token = created["id"], created["seats"][0]["token"]
        assert {g["id"] for g in c.get(API).json["games"]} == {gid, other}
    # its rules uninstalled: the others' list still answers, without it
    for lang in ("en", "de"):
        rv = c.get(f"{API}?status=active&lang={lang}")
        assert rv.status_code == 200, rv.get_data(as_text=True)
        assert [g["id"] for g in rv.json["games"]] == [other]
    # the game itself: a clear refusal, the code stable, the detail in the reader's language
    rv = c.get(f"{API}/{gid}", headers={"Accept-Language": "de"})
    assert rv.status_code == 500 and rv.mimetype == "application/problem+json", rv.get_data(as_text=True)
    assert rv.json["code"] == "game-not-hosted" and "connect-four" in rv.json["detail"]
    assert "nicht installiert" in rv.json["detail"]
    rv = c.post(f"{API}/{gid}/moves", headers={"Authorization": f"Bearer {token}"},
                json={"expected_version": 1, "moves": ["drop 1"]})
    assert rv.status_code == 500 and rv.json["code"] == "game-not-hosted"
    # installed again: listed and played as before (nothing was lost)
    with hosting("connect-four"):
        assert {g["id"] for g in c.get(API).json["games"]} == {gid, other}
        moves = c.get(f"{API}/{gid}/legal-moves", headers={"Authorization": f"Bearer {token}"}).json
        first = moves["moves"][0]["move"] if isinstance(moves["moves"][0], dict) else moves["moves"][0]
        rv = c.post(f"{API}/{gid}/moves", headers={"Authorization": f"Bearer {token}"},
                    json={"expected_version": 1, "moves": [first]})
        assert rv.status_code == 200, rv.json
