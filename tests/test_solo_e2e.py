"""End to end: `tablepost serve` (its own Redis, gunicorn, the Celery workers), a solo game at each
level created over HTTP, a scripted player for the human seat, and the Cardinalbot worker
playing its turns over HTTP until the game finishes with a winner."""
from __future__ import annotations

import random
import time

import pytest
import requests

from tests.servers import Serve


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    with Serve(tmp_path_factory.mktemp("serve"), "--workers", "2", "--allow-seeded-games",
               env={"TABLEPOST_SWEEP_SECONDS": "2", "TABLEPOST_BOT_DUE_SECONDS": "3"}) as server:
        yield server.url


@pytest.mark.parametrize("level", ["priest", "deacon", "bishop"])
def test_a_solo_game_against_the_cardinalbot_worker(service, level):
    http = requests.Session()
    rv = http.post(f"{service}/api/v1/games", json={
        "seats": [{"name": "Ada"}, {"name": "Cardinal", "kind": "cardinalbot"}],
        "options": {"solo": {"level": level}, "seed": f"e2e-{level}"}}, timeout=10)
    assert rv.status_code == 201, rv.text
    game = rv.json()
    gid, token = game["id"], game["seats"][1]["token"]
    me = {"Authorization": f"Bearer {token}"}
    rng = random.Random(level)
    bot_turns_seen = 0
    deadline = time.monotonic() + 240
    last_version = 0
    while True:
        summary = http.get(f"{service}/api/v1/games/{gid}", timeout=10).json()
        if summary["status"] == "finished":
            break
        assert time.monotonic() < deadline, f"the game stalled at version {summary['version']}: {summary}"
        if summary["to_act"] == [1]:
            legal = http.get(f"{service}/api/v1/games/{gid}/legal-moves", headers=me, timeout=10).json()
            moves = [m["move"] for m in legal["moves"]]
            move = "end" if "end" in moves and rng.random() < 0.3 else rng.choice(moves)
            rv = http.post(f"{service}/api/v1/games/{gid}/moves", headers=me, timeout=10,
                           json={"expected_version": legal["version"], "moves": [move]})
            assert rv.status_code in (200, 409), rv.text
        else:
            if summary["version"] != last_version:
                bot_turns_seen += 1
                last_version = summary["version"]
            time.sleep(0.05)
    assert summary["winner"] in (0, 1)
    assert summary["round"] == 4 and summary["phase"] == "over"
    events = http.get(f"{service}/api/v1/games/{gid}/events", timeout=10).json()["events"]
    bot_moves = [e for e in events if e.get("seat") == 0 and e["type"] == "MovePlayed"]
    assert len([e for e in bot_moves if e["move"].startswith("take ")]) == 12, "the bot took 12 dice"
    assert any(o[0] == "decree-die" for e in bot_moves for o in e["chance"]) or any(
        o[0] == "decree-die" for e in events for o in e.get("chance", [])), "Decree dice are recorded"
