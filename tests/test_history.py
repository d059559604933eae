"""The event log in words (GET /events gives each event a `text`)."""
from __future__ import annotations

import random
import time

import tiletum
from games.tiletum import event_texts


def test_events_carry_their_text(client):
    g = client.post("/api/v1/games",
                    json={"seats": [{"name": "A"}, {"name": "B"}], "options": {"seed": "words"}}).json
    gid, auth = g["id"], {"Authorization": f"Bearer {g['seats'][0]['token']}"}
    legal = client.get(f"/api/v1/games/{gid}/legal-moves", headers=auth).json
    take = next(m for m in legal["moves"] if m["move"].startswith("take "))
    rv = client.post(f"/api/v1/games/{gid}/moves", headers=auth,
                     json={"expected_version": 1, "moves": [take["move"]]})
    assert rv.status_code == 200
    rv = client.post(f"/api/v1/games/{gid}/moves", headers=auth,
                     json={"expected_version": 2, "moves": ["undo"]})
    assert rv.status_code == 200, rv.json
    events = client.get(f"/api/v1/games/{gid}/events").json["events"]
    # who did what, by name, in the third person ("A took the yellow 4 die: ...")
    took = take["description"].replace("Take the", "A took the", 1).replace(": gain", ":").replace(
        " and perform the", " and the")
    assert [e["text"] for e in events] == ["The game starts with 2 players", took,
                                           "A took back their last move"]
    later = client.get(f"/api/v1/games/{gid}/events?after=2").json["events"]
    assert [e["version"] for e in later] == [3] and later[0]["text"] == "A took back their last move"
    assert client.get(f"/api/v1/games/{gid}/events?after=3").json["events"] == []


def test_a_whole_game_in_words_quickly():
    state, events = tiletum.new_game(3, "words-game")
    rng = random.Random(3)
    while state.phase != "over":
        evs, state = tiletum.play(state, state.actor, rng.choice(tiletum.legal(state)), seed="words-game")
        events += evs
    t = time.perf_counter()
    texts = event_texts(events)
    took = time.perf_counter() - t
    assert len(texts) == len(events) and all(texts)
    assert not any(t == e.get("move") for t, e in zip(texts, events) if e["type"] == "MovePlayed"), \
        "every move is described in words"
    assert took < 2.0, f"{len(events)} events described in {took:.2f}s"
