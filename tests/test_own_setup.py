"""Each game owns its setup (issue 52): a game declares its options and its automa (games/setup.py),
and the service builds from the declarations alone what it takes, checks, lists, documents, rates and
plays. Pebbles (tests/toy_game.py), a game outside the platform with an option of its own (``pile``,
``colour``) and an automa of its own (the Pebblebot, levels ``sprout`` and ``oak``, which the
Cardinalbot has not), is registered into a real ``tablepost serve`` (every process of it: a
``sitecustomize`` on the path registers it at start, as an installed game would be) and is created
through the HTTP API with its options, refused with them for another game, listed in the catalog and
the OpenAPI document, played against its automa by the seats worker, and rated in its automa's own
pool: with no edit of the platform."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests

import games
from games.base import BadSetup
from games.setup import Automa, Level, Option, OptionError
from tests import toy_game
from tests.servers import Serve

TESTS = Path(__file__).resolve().parent
PEBBLES = toy_game.PEBBLES


# --- the declarations, checked by the game's generic setup ------------------------------------------

def test_a_game_s_setup_takes_its_declared_options_with_their_defaults_and_refuses_others():
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    assert PEBBLES.setup(seats, {"pile": 5}) == (seats, {"pile": 5, "colour": "grey"},
                                                 {"pile": 5, "colour": "grey"})
    for bad in ({"pile": 31}, {"pile": "5"}, {"pile": True}, {"colour": "red"}, {"action_tiles": "shuffled"},
                {"bot": {"level": "priest"}}, {"bot": {"level": "oak", "greedy": 1}}, {"bot": "oak"}):
        with pytest.raises(BadSetup) as e:
            PEBBLES.setup(seats, bad)
        assert e.value.code == "bad-options", bad
    # Carcassonne declares no option: Pebbles' is refused there, by name
    with pytest.raises(BadSetup, match="takes none of these options: pile"):
        games.CARCASSONNE.setup(seats, {"pile": 5})


def test_a_game_against_its_automa_seats_the_automa_as_declared():
    ann, bot = {"name": "Ann"}, {"name": "Pebblebot", "kind": "pebblebot"}
    seats, kept, engine = PEBBLES.setup([ann, bot], {})
    assert seats == [bot, ann] and kept["bot"] == engine["bot"] == {"level": "sprout"}   # its default level
    assert PEBBLES.setup([ann, bot], {"bot": {"level": "oak"}})[1]["bot"] == {"level": "oak"}
    with pytest.raises(BadSetup) as e:
        PEBBLES.setup([ann, {"name": "Bob"}], {"bot": {"level": "oak"}})   # no seat for it
    assert e.value.code == "bad-seats" and "the Pebblebot" in e.value.message


def test_declarations_refuse_what_cannot_be():
    with pytest.raises(ValueError):
        Option("x", "X", "x", kind="colour")
    with pytest.raises(ValueError):
        Option("x", "X", "x", kind="choice")   # no choices
    with pytest.raises(ValueError):
        Automa(kind="ai", title="t", name="n", levels=(Level("a", "A"),), default_level="a", policy="m:f")
    with pytest.raises(ValueError):
        Automa(kind="k", title="t", name="n", levels=(Level("a", "A"),), default_level="b", policy="m:f")
    with pytest.raises(OptionError):
        Option("n", "N", "n", kind="choices", choices=toy_game.OPTIONS[1].choices,
               max=1).check(["grey", "white"])


def test_tiletum_keeps_its_names_and_a_new_game_s_pools_follow_the_default():
    bot = games.TILETUM.automa
    assert bot is not None and bot.pool_of("tiletum", "deacon") == "solo:deacon"
    assert bot.player_of("tiletum", "bishop") == "cardinalbot:bishop"
    assert PEBBLES.automa.pool_of("pebbles", "oak") == "pebbles:automa:oak"
    assert games.TILETUM.own_options == ("action_tiles", "solo") and games.CARCASSONNE.automa is None


def test_the_seat_player_plays_the_automa_by_the_policy_its_game_declares():
    """seats/runner.py finds the served view's game by its format and calls the declared policy."""
    from seats import runner
    games.register(toy_game.SPEC)
    state, _ = PEBBLES.new_game(2, "s", {"pile": 7, "bot": {"level": "oak"}})
    state = PEBBLES.play(state, 1, "take 1", "s")[1]   # the person first; now the automa (seat 0)
    sent = []

    class Client:
        def state(self, gid):
            return PEBBLES.view(state, 0)

        def submit(self, gid, version, moves, key=None):
            nonlocal state
            sent.append(moves)
            for m in moves:
                state = PEBBLES.play(state, 0, m, "s")[1]
            return {}
    try:
        assert runner.play_automa_turn(Client(), "g1", 0, 2) == 1
    finally:
        games.unregister("pebbles")
    assert sent == [["take 2"]] and state.pile == 4 and state.actor == 1


# --- through a real service ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def service(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nimport toy_game\ntoy_game.register()\n")
    with Serve(tmp_path_factory.mktemp("serve-own-setup"), "--workers", "1",
               env={"PYTHONPATH": str(site), "TABLEPOST_SWEEP_SECONDS": "2",
                    "TABLEPOST_BOT_DUE_SECONDS": "3"}) as server:
        yield server.url


def test_a_new_game_with_its_own_option_and_automa_needs_no_platform_edit(service):
    http = requests.Session()
    cat = {g["name"]: g for g in http.get(f"{service}/api/v1/catalog", timeout=10).json()["games"]}
    peb = cat["pebbles"]
    assert [o["name"] for o in peb["option_specs"]] == ["pile", "colour"]
    assert peb["option_specs"][0] | {"description": None} == {
        "name": "pile", "title": "Pebbles", "kind": "integer", "default": 10, "min": 3, "max": 30,
        "tournament": True, "choices": [], "description": None}
    assert peb["automa"]["kind"] == "pebblebot" and peb["automa"]["option"] == "bot"
    assert [v["pool"] for v in peb["automa"]["levels"]] == ["pebbles:automa:sprout", "pebbles:automa:oak"]
    assert {p["pool"] for p in peb["pools"]} == {"pebbles:multiplayer", "pebbles:automa:sprout",
                                                 "pebbles:automa:oak"}
    assert cat["tiletum"]["automa"]["levels"][0]["pool"] == "solo:priest"   # Tiletum's as they were

    doc = http.get(f"{service}/api/openapi.json", timeout=10).json()["components"]["schemas"]
    assert {"pile", "colour", "bot", "action_tiles", "solo"} <= set(doc["GameOptions"]["properties"])
    assert doc["GameOptions"]["properties"]["pile"]["maximum"] == 30
    assert {"sprout", "oak"} == set(doc["BotOptions"]["properties"]["level"]["enum"])
    assert "pebblebot" in doc["SeatIn"]["properties"]["kind"]["enum"]
    assert "pile" in doc["TournamentCreate"]["properties"]
    assert "pebbles" in doc["GameCreate"]["properties"]["game"]["enum"]

    # refused: its option for another game, another game's option for it, a bad value, another level
    for body in ({"game": "carcassonne", "seats": [{"name": "A"}, {"name": "B"}], "options": {"pile": 5}},
                 {"game": "pebbles", "seats": [{"name": "A"}, {"name": "B"}],
                  "options": {"action_tiles": "shuffled"}},
                 {"game": "tiletum", "seats": [{"name": "A"}, {"name": "B", "kind": "cardinalbot"}],
                  "options": {"bot": {"level": "oak"}}}):
        rv = http.post(f"{service}/api/v1/games", json=body, timeout=10)
        assert rv.status_code == 422 and rv.json()["code"] == "bad-options", (body, rv.text)
    for body in ({"game": "pebbles", "seats": [{"name": "A"}, {"name": "B"}], "options": {"pile": 99}},
                 {"game": "pebbles", "seats": [{"name": "A"}, {"name": "B", "kind": "pebblebot"}],
                  "options": {"bot": {"level": "bishop"}}}):
        rv = http.post(f"{service}/api/v1/games", json=body, timeout=10)
        assert rv.status_code == 422 and rv.json()["code"] == "invalid-request", (body, rv.text)
    rv = http.post(f"{service}/api/v1/tournaments", timeout=10, json={
        "name": "Cup", "game": "carcassonne", "format": "round_robin", "table_size": 2, "pile": 5})
    assert rv.status_code == 422 and "pile is an option of Pebbles, not of Carcassonne" in rv.text

    # created with its option, against its automa at a level of its own, which the seats worker plays
    rv = http.post(f"{service}/api/v1/games", timeout=10, json={
        "game": "pebbles", "seats": [{"name": "Ann", "email": "ann@pebbles.example"},
                                     {"name": "Pebblebot", "kind": "pebblebot"}],
        "options": {"pile": 6, "bot": {"level": "oak"}}})
    assert rv.status_code == 201, rv.text
    game = rv.json()
    assert [(s["kind"], s["token"] is None) for s in game["seats"]] == [("pebblebot", True), ("human", False)]
    gid, me = game["id"], {"Authorization": f"Bearer {game['seats'][1]['token']}"}
    deadline = time.monotonic() + 120
    while True:
        summary = http.get(f"{service}/api/v1/games/{gid}", timeout=10).json()
        if summary["status"] == "finished":
            break
        assert time.monotonic() < deadline, f"the Pebblebot did not play: {summary}"
        if summary["to_act"] == [1]:
            rv = http.post(f"{service}/api/v1/games/{gid}/moves", headers=me, timeout=10,
                           json={"expected_version": summary["version"], "moves": ["take 1"]})
            assert rv.status_code in (200, 409), rv.text
        time.sleep(0.1)
    assert summary["winner"] == 0 and summary["rated"]   # 6 -1 =5, it takes 1 (4), -1 = 3, it takes 3
    events = http.get(f"{service}/api/v1/games/{gid}/events", timeout=10).json()["events"]
    assert [e["move"] for e in events if e["type"] == "MovePlayed" and e["seat"] == 0] == ["take 1", "take 3"]

    # rated in its automa's own pool, the automa named as it declares
    deadline = time.monotonic() + 60
    while True:
        rv = http.get(f"{service}/api/v1/ratings/automa:pebbles:oak", timeout=10)
        if rv.status_code == 200:
            break
        assert time.monotonic() < deadline, rv.text
        time.sleep(0.3)
    bot = rv.json()
    assert bot["name"] == "Pebblebot (oak)" and set(bot["ratings"]) == {"pebbles:automa:oak"}
    assert bot["ratings"]["pebbles:automa:oak"]["rating"] > 1500
    board = http.get(f"{service}/api/v1/ratings?pool=pebbles:automa:oak", timeout=10).json()
    assert board["pool"] == "pebbles:automa:oak" and "Ann" in [r["name"] for r in board["ratings"]]
