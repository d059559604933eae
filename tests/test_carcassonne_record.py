"""Carcassonne records, the seed check, the position document and seat view, events in words, the
board picture and the ``carcassonne-engine`` CLI."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from carcassonne import GameState, IllegalMove, legal_moves, new_game, play, replay, view_doc
from carcassonne.chance import seed_commitment
from carcassonne.cli import main
from carcassonne.describe import describe, describe_event, describe_final, event_texts, tile_name
from carcassonne.playout import random_game
from carcassonne.record import RecordError, parse_record, replay_record, verify_events, write_record
from carcassonne.rules import placements
from carcassonne.pieces import tile_words
from carcassonne.svg import board_svg, hand_svg, tile_svg

SEED = "record-test"


@pytest.fixture(scope="module")
def game():
    return random_game(3, SEED)


def test_record_round_trip_and_verify(game):
    text = write_record(game.events, {"Seat0": 'Ann "the" \\ \n', "SeedCommitment": seed_commitment(SEED)})
    headers, events, state = replay_record(text)
    assert headers["Seat0"] == 'Ann "the" \\ \n' and headers["Game"] == "carcassonne"
    assert state == game.state and [e["move"] for e in events[1:]] == [e["move"] for e in game.events[1:]]
    assert verify_events(events, SEED, headers["SeedCommitment"]) == []
    assert "commitment" in verify_events(events, "another seed", headers["SeedCommitment"])[0]
    # a tampered draw: swap a drawn tile for its twin with(out) a shield, so the record still replays
    twin = {"F": "G", "G": "F", "M": "N", "N": "M", "O": "P", "P": "O", "Q": "R", "R": "Q", "S": "T",
            "T": "S"}
    _, parsed = parse_record(text)
    n = next(n for n, ev in enumerate(parsed[1:-1], 1) if ev["chance"][-1][1] in twin
             and twin[ev["chance"][-1][1]] in replay(parsed[:n + 1]).pile)
    drawn = parsed[n]["chance"][-1][1]
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(f"{n}. "))
    lines[i] = lines[i].replace(f"tile {drawn}}}", f"tile {twin[drawn]}}}")
    later = next(k for k in range(i + 1, len(lines)) if f"tile {twin[drawn]}" in lines[k])
    lines[later] = lines[later].replace(f"tile {twin[drawn]}", f"tile {drawn}", 1)  # the twins trade places
    _, ev2, _ = replay_record("\n".join(lines))
    problems = verify_events(ev2, SEED)
    assert problems == [f"move {n} ({parsed[n]['move']}): the tiles drawn differ from the seed's"]


def test_a_record_with_an_illegal_move_or_of_another_game_is_refused(game):
    text = write_record(game.events)
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith("2. "))
    lines[i] = "2. s1: place 40,40 r0 {tile E}"
    with pytest.raises(IllegalMove) as e:
        replay_record("\n".join(lines))
    assert e.value.code == "not-adjacent"
    with pytest.raises(RecordError):
        replay_record(text.replace('[Game "carcassonne"]', '[Game "tiletum"]'))
    with pytest.raises(RecordError):
        replay_record("1. s0: place 0,1 r0\n")


def test_draws_are_keyed_by_the_reveal_count_and_no_order_is_stored():
    s, events = new_game(2, "k")
    s2, _ = new_game(2, "k")
    assert s == s2 and events[0]["chance"] == [["tile", s.tile]]
    move = legal_moves(s)[0]
    ev_a, a = play(s, 0, move, seed="k")
    ev_b, b = play(s, 0, move, seed="k")
    assert ev_a == ev_b and a == b and a.reveals == s.reveals + 1 == 2
    doc = a.to_doc()
    assert isinstance(doc["pile"], dict) and sum(doc["pile"].values()) == doc["pile_size"] == 69
    assert "k" not in json.dumps({k: v for k, v in doc.items() if k != "pile"}).replace('"', " ").split()
    assert "seed" not in doc and view_doc(a, 1)["viewer"] == 1
    # the draw depends on the seed and the reveal count, not on the move: no move can steer it
    drawn = {play(s, 0, m, seed="k")[0][0]["chance"][-1][1] for m in legal_moves(s)}
    assert drawn == {ev_a[0]["chance"][-1][1]}
    assert {play(s, 0, move, seed=x)[0][0]["chance"][-1][1] for x in ("k", "other", "third")} == {"V", "O",
                                                                                                  "E"}


def test_position_document_round_trip_and_validation(game):
    mid = replay(game.events[:25])
    doc = mid.to_doc()
    assert GameState.from_doc(json.loads(json.dumps(doc))) == mid
    from carcassonne import PositionError
    bad = json.loads(json.dumps(doc))
    bad["supply"][0] += 1
    with pytest.raises(PositionError):
        GameState.from_doc(bad)
    bad = json.loads(json.dumps(doc))
    bad["board"][3]["rot"] = (bad["board"][3]["rot"] + 90) % 360
    bad["board"][3]["tile"] = "C"
    with pytest.raises(PositionError):
        GameState.from_doc(bad)


def test_events_in_words():
    s, events = new_game(2, "words")
    assert "start tile" in describe_event(None, events[0])
    s.pile.remove("E")
    s.pile.append(s.tile)
    s.pile.sort()
    s.tile = "E"
    said = describe(s, "place 0,1 r180 knight S")
    assert said == ("Place a tile with a city on the south side, 1 north of the start tile, turned 180°, "
                    "with a knight on its south city"), "the tile and the cell in words, not 'tile E', 0,1"
    evs, after = play(s, 0, "place 0,1 r180 knight S", seed="words")
    text = describe_event(s, evs[0])
    assert "Seat 0 placed a tile with a city on the south side, 1 north of the start tile" in text
    assert "Completed city of 2 tiles: 4 points to seat 0; followers back: 1 to seat 0." in text
    assert f"Seat 1 draws {tile_name(after.tile)}." in text and "tile " + after.tile not in text
    assert "Ann placed" in describe_event(s, evs[0], names=["Ann", "Bob"])
    g = random_game(2, "words-final")
    assert describe_final(g.state).startswith("Final scoring:")
    last = describe_event(replay(g.events[:-1]), g.events[-1])
    assert "That was the last tile." in last
    texts = event_texts(g.events)
    assert len(texts) == len(g.events) and texts[0] == "The game starts with 2 players"
    assert texts[-1].startswith("Place a tile with ") and "Final scoring:" in texts[-1]
    assert event_texts(g.events, start=len(g.events) - 1) == texts[-1:]
    scoring = [t for t in texts if "points to seat" in t and "Final" not in t]
    assert scoring and all(t.startswith("Place a tile with ") for t in texts[1:])
    assert not any(re.search(r"\btile [A-X]\b|-?\d+,-?\d+", t) for t in texts), "no letter, no x,y"


def test_board_picture(game):
    mid = replay(game.events[:30])
    svg = board_svg(mid, fits=True)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    tiles = [g for g in root.iter(ns + "g") if g.get("class") == "tile"]
    followers = [g for g in root.iter(ns + "g") if g.get("class") == "follower"]
    fits = [r for r in root.iter(ns + "rect") if r.get("class") == "fit"]
    assert len(tiles) == len(mid.tiles) and len(followers) == len(mid.meeples)
    assert sorted((int(r.get("data-x")), int(r.get("data-y"))) for r in fits) == sorted(
        {(x, y) for x, y, _ in placements(mid)})
    assert board_svg(mid) == board_svg(replay(game.events[:30]))  # pure
    last = [r for r in root.iter(ns + "rect") if r.get("class") == "last"]
    x, y = mid.tiles[-1][:2]
    tile_g = next(g for g in tiles if (int(g.get("data-x")), int(g.get("data-y"))) == (x, y))
    assert len(last) == 1 and float(last[0].get("x")) == float(tile_g[1].get("x")) + 1
    one = ET.fromstring(tile_svg("F", 90))
    # the picture says what the tile is as it lies, never its letter (issue 42: no component id)
    assert len([r for r in one.iter(ns + "polygon")]) == 1
    assert one.get("aria-label") == tile_words("F", 90) \
        == "a city with a shield joining the north and south sides"
    assert tile_svg("F", 90) != tile_svg("F", 0)
    hand = ET.fromstring(hand_svg("V"))
    assert hand.get("aria-label") == "the tile in hand, a road from south to west, in its four turns"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_new_legal_play_score_describe_svg(tmp_path, capsys):
    code, out, _ = run(capsys, "new", "--players", "3", "--seed", "cli")
    assert code == 0
    pos = tmp_path / "pos.json"
    pos.write_text(out)
    code, out, _ = run(capsys, "legal", str(pos))
    moves = out.split("\n")[:-1]
    assert code == 0 and moves == sorted(moves) and moves
    code, out, _ = run(capsys, "play", str(pos), moves[0])
    assert code == 0 and json.loads(out)["version"] == 2 and json.loads(out)["seed"] == "cli"
    nxt = tmp_path / "next.json"
    nxt.write_text(out)
    code, out, err = run(capsys, "play", str(nxt), "place 50,50 r0")
    assert code == 1 and "not-adjacent" in err and out == ""
    code, out, err = run(capsys, "play", str(nxt), "fly away")
    assert code == 1 and "bad-notation" in err
    code, out, _ = run(capsys, "score", str(nxt))
    assert json.loads(out)["phase"] == "play"
    code, out, _ = run(capsys, "describe", str(nxt))
    assert code == 0 and "to place tile" in out
    code, out, _ = run(capsys, "svg", str(nxt))
    assert code == 0 and out.startswith("<svg")
    nxt.write_text("{}")
    code, _, err = run(capsys, "legal", str(nxt))
    assert code == 2 and "position" in err


def test_cli_random_game_replay_verify(tmp_path, capsys):
    rec = tmp_path / "game.txt"
    code, out, _ = run(capsys, "random-game", "--players", "2", "--seed", "r", "--games", "2", "--record",
                       str(rec))
    assert code == 0 and "games/s" in out and out.count("winners") == 2
    code, out, _ = run(capsys, "replay", str(rec))
    assert code == 0 and json.loads(out)["phase"] == "over"
    code, out, _ = run(capsys, "verify", str(rec))
    assert code == 0 and out.startswith("ok")
    code, _, err = run(capsys, "verify", str(rec), "--seed", "wrong")
    assert code == 1 and "commitment" in err


# --- a damaged position document is refused with PositionError, never a crash ----------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from carcassonne import PositionError  # noqa: E402

_LEAVES = st.sampled_from(
    [None, -1, 0, 1, 99, "x", "", [], {}, [1], {"a": 1}, 1.5, True, "D", "C", "farmer", "NE"])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.lists(st.integers(0, 1000), min_size=1, max_size=4), _LEAVES)
def test_a_damaged_document_loads_or_is_refused(game_n, path, leaf):
    doc = json.loads(json.dumps(_DOCS.setdefault(game_n, replay(_GAME.events[:game_n]).to_doc())))
    node = doc
    for i, step in enumerate(path):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = keys[step % len(keys)]
        if i == len(path) - 1 or not isinstance(node[key], (dict, list)):
            node[key] = leaf
            break
        node = node[key]
    try:
        s = GameState.from_doc(doc)
    except PositionError as e:
        assert e.code == "bad-position" and e.message
    else:
        legal_moves(s)  # a document that loads is one the rules can work with


_GAME = random_game(3, "damaged")
_DOCS: dict = {}
