"""Bot accounts (docs/bots.md): registration (token once, stored as a hash, rate-limited like
game creation), seating a registered bot, the bot acting with its own token for its seat only,
and the example bot of docs/examples playing whole games against `tablepost serve`."""
from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.conftest import make_app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "random_bot.py"


def register(client, name="RandomRita", email="owner@example.org", **kw):
    return client.post("/api/v1/bots", json={"name": name, "email": email}, **kw)


def test_register_a_bot_and_read_it(client, redis_client):
    r = register(client)
    assert r.status_code == 201, r.get_json()
    bot = r.get_json()
    assert set(bot) == {"id", "name", "token", "owner_key"} and bot["name"] == "RandomRita"
    assert (bot["token"].startswith(f"bot.{bot['id']}.")
            and bot["owner_key"].startswith(f"botowner.{bot['id']}."))
    stored = redis_client.hgetall(f"bot:{{{bot['id']}}}")
    assert stored[b"token_hash"].decode() == hashlib.sha256(bot["token"].encode()).hexdigest()
    assert bot["token"].encode() not in b"".join(stored.values()), "the token itself is stored"
    assert bot["owner_key"].encode() not in b"".join(stored.values()), "the owner key itself is stored"
    shown = client.get(f"/api/v1/bots/{bot['id']}")
    assert shown.status_code == 200 and shown.get_json() == {"id": bot["id"], "name": "RandomRita"}
    assert client.get("/api/v1/bots/000000000000").get_json()["code"] == "bot-not-found"
    for body in ({"name": "x"}, {"email": "a@example.org"}, {"name": "x", "email": "not-an-email"},
                 {"name": "x", "email": "a@example.org", "token": "mine"}):
        bad = client.post("/api/v1/bots", json=body)
        assert bad.status_code == 422 and bad.mimetype == "application/problem+json", body


def test_a_game_seats_a_bot_which_moves_with_its_own_token_in_its_seat_only(client):
    bot = register(client).get_json()
    other = register(client, "Other").get_json()
    r = client.post("/api/v1/games", json={"seats": [{"name": "Ann"}, {"kind": "bot", "bot": bot["id"],
                                                                         "owner_key": bot["owner_key"]}],
                                           "options": {"seed": "bots-1"}})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()
    assert game["seats"][1] == {"seat": 1, "name": "RandomRita", "kind": "bot", "token": None}
    gid, ann = game["id"], game["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {bot['token']}"}
    lm = client.get(f"/api/v1/games/{gid}/legal-moves", headers=auth).get_json()
    assert lm["seat"] == 1 and lm["moves"] == []  # Ann starts
    # Ann moves; then the bot plays its turn through the same endpoints
    ann_lm = client.get(f"/api/v1/games/{gid}/legal-moves",
                        headers={"Authorization": f"Bearer {ann}"}).get_json()
    version = ann_lm["version"]
    while True:
        s = client.get(f"/api/v1/games/{gid}").get_json()
        if s["to_act"] == [1]:
            break
        lm = client.get(f"/api/v1/games/{gid}/legal-moves",
                        headers={"Authorization": f"Bearer {ann}"}).get_json()
        mv = next(m["move"] for m in lm["moves"] if m["move"] != "undo")
        assert client.post(f"/api/v1/games/{gid}/moves", headers={"Authorization": f"Bearer {ann}"},
                           json={"expected_version": lm["version"], "moves": [mv]}).status_code == 200
    lm = client.get(f"/api/v1/games/{gid}/legal-moves", headers=auth).get_json()
    assert lm["seat"] == 1 and lm["moves"]
    # Ann's token cannot act for the bot's seat, nor the other bot's, nor a forged bot token
    body = {"expected_version": lm["version"], "moves": [lm["moves"][0]["move"]]}
    assert client.post(f"/api/v1/games/{gid}/moves", headers={"Authorization": f"Bearer {ann}"},
                       json=body).get_json()["code"] == "not-your-turn"
    r = client.post(f"/api/v1/games/{gid}/moves", headers={"Authorization": f"Bearer {other['token']}"},
                    json=body)
    assert r.status_code == 403 and r.get_json()["code"] == "not-in-this-game"
    forged = bot["token"][:-4] + ("AAAA" if not bot["token"].endswith("AAAA") else "BBBB")
    r = client.post(f"/api/v1/games/{gid}/moves", headers={"Authorization": f"Bearer {forged}"}, json=body)
    assert r.status_code == 401
    assert client.get(f"/api/v1/games/{gid}").get_json()["version"] == lm["version"], ("a refused move "
                                                                                       "changed the game")
    r = client.post(f"/api/v1/games/{gid}/moves", headers=auth, json=body)
    assert r.status_code == 200 and r.get_json()["events"][0]["seat"] == 1
    assert version < r.get_json()["version"]


def test_bad_bot_seats_are_refused(client):
    bot = register(client).get_json()
    cases = [([{"name": "Ann"}, {"kind": "bot", "bot": "000000000000"}], "unknown-bot"),
             ([{"kind": "bot", "bot": bot["id"], "owner_key": bot["owner_key"]},
               {"kind": "bot", "bot": bot["id"], "owner_key": bot["owner_key"]}], "bad-seats"),
             ([{"name": "Ann"}, {"name": "Ben", "owner_key": bot["owner_key"]}], "invalid-request"),
             ([{"name": "Ann"}, {"kind": "bot"}], "invalid-request"),
             ([{"name": "Ann"}, {"name": "Ben", "bot": bot["id"]}], "invalid-request"),
             ([{"name": "Ann"}, {"kind": "human"}], "invalid-request")]
    for seats, code in cases:
        r = client.post("/api/v1/games", json={"seats": seats})
        assert r.status_code == 422 and r.get_json()["code"] == code, (seats, r.get_json())


def test_registration_is_rate_limited_like_game_creation(redis_server):
    app = make_app(redis_server.url, RATE_LIMIT=600, CREATE_LIMIT="2/hour", TRUSTED_PROXIES=1)
    c = app.test_client()
    addr = {"X-Forwarded-For": f"198.51.100.{random.randrange(1, 250)}"}
    assert [register(c, headers=addr).status_code for _ in range(3)] == [201, 201, 429]
    other = {"X-Forwarded-For": "203.0.113.7" if addr["X-Forwarded-For"] != "203.0.113.7" else "203.0.113.8"}
    assert register(c, headers=other).status_code == 201


@pytest.mark.parametrize("human", [False, True], ids=["two-bots", "bot-vs-test"])
def test_the_example_bot_plays_a_whole_game_against_tiletum_serve(tmp_path, human):
    """docs/examples/random_bot.py, run as its own process, plays to the end of a game: against
    itself (two bot accounts), or against a human seat played by this test."""
    from tests.servers import Serve
    with Serve(tmp_path, "--workers", "1", "--threads", "16", "--no-workers",
               env={"TABLEPOST_RATE_LIMIT": "0", "TABLEPOST_STREAM_KEEPALIVE": "2"}) as srv:
        bots = [requests.post(f"{srv.url}/api/v1/bots", json={"name": f"Bot{i}", "email": "o@example.org"},
                              timeout=10).json() for i in range(2)]
        seats = [{"kind": "bot", "bot": bots[0]["id"], "owner_key": bots[0]["owner_key"]},
                 {"name": "Tess"} if human
                 else {"kind": "bot", "bot": bots[1]["id"], "owner_key": bots[1]["owner_key"]}]
        game = requests.post(f"{srv.url}/api/v1/games", json={"seats": seats}, timeout=10).json()
        gid = game["id"]
        procs = [subprocess.Popen([sys.executable, str(EXAMPLE), srv.url, b["token"], gid],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for b in bots[:1 if human else 2]]
        try:
            if human:
                auth = {"Authorization": f"Bearer {game['seats'][1]['token']}"}
                rng = random.Random(1)
                with requests.get(f"{srv.url}/api/v1/games/{gid}/stream", stream=True, timeout=60) as r:
                    for line in r.iter_lines(decode_unicode=True):
                        if line.startswith("event: end"):
                            break
                        if not line.startswith("data:") or '"to_act":[1]' not in line:
                            continue
                        lm = requests.get(f"{srv.url}/api/v1/games/{gid}/legal-moves", headers=auth,
                                          timeout=10).json()
                        choices = [m["move"] for m in lm["moves"] if m["move"] != "undo"]
                        if choices:
                            requests.post(f"{srv.url}/api/v1/games/{gid}/moves", headers=auth, timeout=10,
                                          json={"expected_version": lm["version"],
                                                "moves": [rng.choice(choices)]})
            outs = [p.communicate(timeout=600) for p in procs]
        finally:
            for p in procs:
                p.kill()
        assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
        summary = requests.get(f"{srv.url}/api/v1/games/{gid}", timeout=10).json()
        assert summary["status"] == "finished" and summary["winner"] is not None
        assert all(gid in out for out, _ in outs), "the bot did not print the final summary"
        events = requests.get(f"{srv.url}/api/v1/games/{gid}/events", timeout=10).json()["events"]
        assert {e["seat"] for e in events if e["type"] == "MovePlayed"} == {0, 1}


def test_a_carcassonne_game_seats_a_bot_account_which_plays_its_seat_to_the_end(client):
    """Bot accounts are game-generic: the same token plays a seat of a Carcassonne game."""
    import random
    bot = register(client, "Meeple", "m@example.org").get_json()
    r = client.post("/api/v1/games", json={"game": "carcassonne", "seats": [
        {"name": "Ann"}, {"kind": "bot", "bot": bot["id"], "owner_key": bot["owner_key"]}]})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()
    gid = game["id"]
    assert game["seats"][1]["token"] is None and game["seats"][1]["name"] == "Meeple"
    tokens = {0: game["seats"][0]["token"], 1: bot["token"]}
    rng = random.Random(gid)
    for _ in range(200):
        summary = client.get(f"/api/v1/games/{gid}").get_json()
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        lm = client.get(f"/api/v1/games/{gid}/legal-moves", headers=auth).get_json()
        assert lm["seat"] == seat, lm
        r = client.post(f"/api/v1/games/{gid}/moves", headers=auth,
                        json={"expected_version": lm["version"], "moves": [rng.choice(lm["moves"])["move"]]})
        assert r.status_code == 200, r.get_json()
    assert summary["status"] == "finished"
