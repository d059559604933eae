"""A complete Tiletum bot (docs/bots.md): follows its game's event stream and, whenever its seat
is to act, plays a random legal move. Only needs `requests`.

    python random_bot.py https://tiletum.example bot.3fa9c2d41b7e.XXXX GAME_ID
"""
import json
import random
import sys

import requests


def play(server: str, token: str, game: str, rng=random.Random()) -> dict:
    api = f"{server}/api/v1/games/{game}"
    auth = {"Authorization": f"Bearer {token}"}
    me = requests.get(api + "/legal-moves", headers=auth, timeout=30).json()["seat"]
    last_id, acted_at = "0", 0
    while True:  # a stream lasts a few minutes; reconnect where it stopped (Last-Event-ID)
        with requests.get(api + "/stream", headers={"Last-Event-ID": last_id}, stream=True, timeout=60) as r:
            r.raise_for_status()
            event = None
            for line in r.iter_lines(decode_unicode=True):
                if line.startswith("id:"):
                    last_id = line[3:].strip()
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event == "end":
                    return requests.get(api, timeout=30).json()  # the game is over: its summary
                elif line.startswith("data:") and event == "turn":
                    turn = json.loads(line[5:])
                    if me in turn["to_act"] and turn["version"] > acted_at:
                        acted_at = turn["version"]
                        move(api, auth, rng)
                elif line == "":
                    event = None


def move(api: str, auth: dict, rng) -> None:
    legal = requests.get(api + "/legal-moves", headers=auth, timeout=30).json()
    choices = [m["move"] for m in legal["moves"] if m["move"] != "undo"]
    if not choices:
        return
    r = requests.post(api + "/moves", headers=auth, timeout=30,
                      json={"expected_version": legal["version"], "moves": [rng.choice(choices)]})
    if r.status_code not in (200, 409):  # 409: the game moved on meanwhile; the stream says what now
        raise RuntimeError(f"{r.status_code} {r.text}")


if __name__ == "__main__":
    print(play(*sys.argv[1:4]))
