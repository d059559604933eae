"""Solo games over the API: the bot seat, the bot credential, and waking the bot after a save."""
from __future__ import annotations

import pytest

from tests.conftest import make_app

BOT_TOKEN = "bot-credential-for-tests"


@pytest.fixture()
def sent():
    return []


@pytest.fixture()
def bot_app(redis_server, sent):
    return make_app(redis_server.url, BOT_TOKEN=BOT_TOKEN,
                    SEND_TASK=lambda name, args, queue: sent.append((name, tuple(args), queue)))


def create_solo(client, level="priest", human_first=True):
    seats = [{"name": "Ada"}, {"name": "Cardinal", "kind": "cardinalbot"}]
    if not human_first:
        seats.reverse()
    rv = client.post("/api/v1/games",
                     json={"seats": seats, "options": {"solo": {"level": level}, "seed": "solo-api"}})
    assert rv.status_code == 201, rv.json
    return rv.json


def test_a_solo_game_puts_the_bot_first_and_wakes_it(bot_app, sent):
    c = bot_app.test_client()
    g = create_solo(c)
    assert [s["kind"] for s in g["seats"]] == ["cardinalbot", "human"]
    assert g["seats"][0]["token"] is None and g["seats"][1]["token"]
    assert sent == [("seats.play_automa_turn", (g["id"], 0, 1), "seats")], \
        "the bot is first player: its turn is enqueued at creation, and nothing else"
    turns = c.get("/api/v1/bot/turns", headers={"Authorization": f"Bearer {BOT_TOKEN}"}).json["turns"]
    assert {"game_id": g["id"], "seat": 0, "version": 1} in turns


def test_the_bot_credential_acts_only_for_the_bot_seat(bot_app, sent):
    c = bot_app.test_client()
    g = create_solo(c, human_first=False)
    bot = {"Authorization": f"Bearer {BOT_TOKEN}"}
    legal = c.get(f"/api/v1/games/{g['id']}/legal-moves", headers=bot).json
    assert legal["seat"] == 0 and legal["moves"]
    human = {"Authorization": f"Bearer {g['seats'][1]['token']}"}
    assert c.get(f"/api/v1/games/{g['id']}/legal-moves", headers=human).json["moves"] == []
    # the bot credential on a game without a bot seat is refused
    two = c.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}).json
    rv = c.get(f"/api/v1/games/{two['id']}/legal-moves", headers=bot)
    assert rv.status_code == 403 and rv.json["code"] == "not-a-bot-seat"
    # the due-turns list needs the bot credential
    assert c.get("/api/v1/bot/turns", headers=human).status_code == 401


def test_bot_moves_through_the_api_and_the_due_index_follows(bot_app, sent):
    c = bot_app.test_client()
    g = create_solo(c)
    bot = {"Authorization": f"Bearer {BOT_TOKEN}"}
    version = 1
    while True:  # the bot plays its first turn with the first legal move each time
        legal = c.get(f"/api/v1/games/{g['id']}/legal-moves", headers=bot).json
        if not legal["moves"]:
            break
        rv = c.post(f"/api/v1/games/{g['id']}/moves", headers=bot,
                    json={"expected_version": version, "moves": [legal["moves"][0]["move"]]})
        assert rv.status_code == 200, rv.json
        version = rv.json["version"]
    summary = c.get(f"/api/v1/games/{g['id']}").json
    assert summary["to_act"] == [1]
    names = [name for name, _, _ in sent]
    assert names.count("seats.play_automa_turn") == 1, "the bot's own moves enqueue nothing more"
    assert names[-1] == "workers.notify_turn", "the human is told it is their turn, once"
    assert names.count("workers.notify_turn") == 1
    turns = c.get("/api/v1/bot/turns", headers=bot).json["turns"]
    assert all(t["game_id"] != g["id"] for t in turns), "no longer due once the human is to act"


def test_bad_solo_requests(bot_app):
    c = bot_app.test_client()
    rv = c.post("/api/v1/games",
                json={"seats": [{"name": "A", "kind": "cardinalbot"}, {"name": "B", "kind": "cardinalbot"}],
                      "options": {"solo": {"level": "priest"}}})
    assert rv.status_code == 422
    rv = c.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B", "kind": "cardinalbot"}],
                                       "options": {"solo": {"level": "archbishop"}}})
    assert rv.status_code == 422


def test_a_lost_bot_message_is_swept(redis_server):
    """The broker was down when the game was created: the sweep re-sends the due turn."""
    import redis as redislib

    from application.scheduling import BotScheduler

    def broken(*a):
        raise ConnectionError("broker down")

    app = make_app(redis_server.url, BOT_TOKEN=BOT_TOKEN, SEND_TASK=broken)
    g = create_solo(app.test_client())
    sent = []
    sched = BotScheduler(redislib.Redis.from_url(redis_server.url), lambda name, args,
                         q: sent.append(tuple(args)))
    assert sched.sweep(older_than=0) >= 1
    assert (g["id"], 0, 1) in sent
