"""The Pillars of the Earth: notation round trips, game records (replay, verify, tampering) and
the pillars-engine command line."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pillars import cli
from pillars.errors import IllegalMove, NotationError, PositionError
from pillars.game import new_game
from pillars.notation import FIELDS, RESOURCES, Move, parse
from pillars.playout import random_game
from pillars.record import RecordError, parse_record, replay_record, verify_events, write_record
from pillars.state import GameState

CRAFT = st.one_of(
    st.integers(1, 24).map(lambda n: f"C{n:02d}"),
    st.tuples(st.sampled_from(["MM", "WW", "SC"]), st.integers(0, 3)).map(lambda t: f"{t[0]}{t[1]}"),
)
PRIV = st.integers(1, 16).map(lambda n: f"P{n:02d}")
NUM = st.integers(1, 99).map(str)
RESCARD = st.tuples(st.sampled_from(RESOURCES[:3]), st.integers(2, 4)).map(lambda t: f"{t[0]}{t[1]}")
PLAIN = [f for f in FIELDS if f not in ("kingsbridge", "shiring")]
MOVES = st.one_of(
    st.sampled_from(["pass", "keep", "redraw", "protect", "decline", "done"]).map(Move),
    RESCARD.map(lambda c: Move("take", (c,))),
    CRAFT.map(lambda c: Move("take", (c,))),
    st.tuples(CRAFT, CRAFT).map(lambda t: Move("take", (t[0], "discard", t[1]))),
    st.sampled_from(PLAIN).map(lambda f: Move("place", (f,))),
    PRIV.map(lambda p: Move("place", ("kingsbridge", p))),
    CRAFT.map(lambda c: Move("place", ("shiring", c))),
    st.sampled_from(RESOURCES[:3]).map(lambda r: Move("collect", (r,))),
    PRIV.map(lambda p: Move("privilege", (p,))),
    CRAFT.map(lambda c: Move("discard", (c,))),
    st.tuples(st.sampled_from(RESOURCES[:3]), NUM).map(lambda t: Move("buy", t)),
    st.tuples(st.sampled_from(RESOURCES), NUM).map(lambda t: Move("sell", t)),
    st.tuples(CRAFT, NUM).map(lambda t: Move("use", t)),
    st.sampled_from(RESOURCES).map(lambda r: Move("drop", (r,))),
)


@given(MOVES)
def test_notation_round_trip(m):
    assert parse(str(m)) == m
    assert parse("  " + str(m).upper().replace(" ", "   ") + " ") == m


@given(st.text(max_size=40))
@settings(max_examples=300)
def test_any_text_is_a_move_or_a_notation_error(text):
    try:
        m = parse(text)
    except NotationError:
        return
    assert parse(str(m)) == m


@pytest.mark.parametrize("text", ["", "take", "take wood5", "buy metal 1", "use C05 0", "use C05 ３",
                                  "place kingsbridge", "place shiring P04", "place garden", "jump"])
def test_bad_notation(text):
    with pytest.raises(NotationError):
        parse(text)


@pytest.fixture(scope="module")
def game():
    return random_game(3, "record-test")


def test_record_replays_and_verifies(game):
    text = write_record(game.events, {"Seat0": 'Ann "the" builder', "Seed": "record-test"})
    headers, events, state = replay_record(text)
    assert headers["Seat0"] == 'Ann "the" builder'
    assert state == game.state and len(events) == len(game.events)
    assert verify_events(events, "record-test") == []
    assert verify_events(events, "another seed")   # every draw differs from another seed's
    assert verify_events(events, "record-test", commitment="00") == [
        "the seed does not match the published commitment"]


def test_record_tampering_is_caught(game):
    text = write_record(game.events)
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if "{builder " in line)
    seat = int(lines[i].split("{builder ")[1][0])
    other = lines[i].replace(f"{{builder {seat}", f"{{builder {9}")
    with pytest.raises(RecordError):
        replay_record("\n".join(lines[:i] + [other] + lines[i + 1:]))
    extra = lines[i].replace("}", ", tax 3}")
    with pytest.raises(RecordError):
        replay_record("\n".join(lines[:i] + [extra] + lines[i + 1:]))
    bad = lines[i].replace("{builder", "{dragon")
    with pytest.raises(RecordError):
        parse_record("\n".join(lines[:i] + [bad] + lines[i + 1:]))
    j = next(k for k, line in enumerate(lines) if line.endswith(": pass"))
    cheat = lines[j].replace(": pass", ": use C24 9")
    with pytest.raises((IllegalMove, NotationError)):
        replay_record("\n".join(lines[:j] + [cheat] + lines[j + 1:]))
    with pytest.raises(RecordError):
        replay_record(text.replace('[Game "pillars"]', '[Game "carcassonne"]'))


def test_position_document_errors():
    s, _ = new_game(2, "doc")
    d = s.to_doc()
    assert GameState.from_doc(json.loads(json.dumps(d))) == s
    for bad in ({**d, "format": "x"}, {**d, "players": 5}, {**d, "gold": [40, 20]},
                {**d, "field": {**d["field"], "stone": 0}}, {**d, "craftsmen": [["C99"], []]},
                {k: v for k, v in d.items() if k != "bag"}, {**d, "actor": None}):
        with pytest.raises(PositionError):
            GameState.from_doc(bad)


def test_cli(tmp_path, capsys):
    pos = tmp_path / "pos.json"
    assert cli.main(["new", "--players", "2", "--seed", "cli"]) == 0
    pos.write_text(capsys.readouterr().out)
    assert cli.main(["legal", str(pos)]) == 0
    moves = capsys.readouterr().out.split("\n")
    assert "pass" in moves
    assert cli.main(["play", str(pos), "pass", "pass"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["phase"] == "builders" and after["seed"] == "cli"
    assert cli.main(["play", str(pos), "use C05 1"]) == 1
    assert "[not-now]" in capsys.readouterr().err
    rec = tmp_path / "game.txt"
    args = ["random-game", "--players", "4", "--seed", "c", "--games", "2", "--record", str(rec)]
    assert cli.main(args) == 0
    assert "games/s" in capsys.readouterr().out
    assert cli.main(["replay", str(rec)]) == 0
    assert json.loads(capsys.readouterr().out)["phase"] == "over"
    assert cli.main(["verify", str(rec)]) == 0
    assert cli.main(["verify", str(rec), "--seed", "wrong"]) == 1
    capsys.readouterr()
    pos.write_text("{}")
    assert cli.main(["legal", str(pos)]) == 2
