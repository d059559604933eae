"""The command line, ``tiletum-engine`` (tiletum/cli.py)."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tiletum import GameState, legal_moves, new_game, play
from tiletum.cli import main
from tiletum.game import replay
from tiletum.playout import random_game

ROOT = Path(__file__).resolve().parents[1]
GAME_LINE = re.compile(r"^game (\d+): seed (\S+) scores ((?:-?\d+ )+)winner seat (\d) \((\d+) moves\)$")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def write(tmp_path: Path, doc: dict, name: str = "pos.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def position(state: GameState, seed: str | None) -> dict:
    doc = state.to_doc()
    if seed is not None:
        doc["seed"] = seed
    return doc


def strip_seed(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "seed"}


@pytest.fixture(scope="module")
def game2():
    """A complete seeded 2-player random game: (seed, playout, move texts in order)."""
    seed = "cli-test-2p"
    g = random_game(2, seed)
    return seed, g, [ev["move"] for ev in g.events[1:]]


# --- new ---------------------------------------------------------------------------------------

def test_new_prints_the_position_with_its_seed_and_round_trips(capsys):
    rc, out, err = run(capsys, "new", "--players", "3", "--seed", "s-42")
    assert (rc, err) == (0, "")
    doc = json.loads(out)
    assert doc["seed"] == "s-42"
    assert doc["players"] == 3 and doc["version"] == 1 and doc["phase"] == "action"
    expected, _ = new_game(3, "s-42")
    assert strip_seed(doc) == expected.to_doc()
    state = GameState.from_doc(strip_seed(doc))
    assert state.to_doc() == strip_seed(doc)
    assert legal_moves(state) == legal_moves(expected) != []


def test_new_shuffled_actions_sets_the_option(capsys):
    rc, out, _ = run(capsys, "new", "--players", "4", "--seed", "sh", "--shuffled-actions")
    doc = json.loads(out)
    assert rc == 0 and doc["options"] == {"action_tiles": "shuffled"}
    assert strip_seed(doc) == new_game(4, "sh", {"action_tiles": "shuffled"})[0].to_doc()
    plain = json.loads(run(capsys, "new", "--players", "4", "--seed", "sh")[1])
    assert plain["options"] == {}
    assert sorted(doc["action_tiles"]) == sorted(plain["action_tiles"])


def test_new_rejects_a_bad_player_count(capsys):
    with pytest.raises(SystemExit) as e:
        main(["new", "--players", "5", "--seed", "x"])
    assert e.value.code == 2
    assert capsys.readouterr().out == ""


# --- legal -------------------------------------------------------------------------------------

def test_legal_lists_the_engine_moves(capsys, tmp_path):
    state, _ = new_game(2, "lg")
    path = write(tmp_path, position(state, "lg"))
    rc, out, err = run(capsys, "legal", path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == legal_moves(state)
    assert all(line.startswith("take ") for line in out.splitlines())
    rc, out, _ = run(capsys, "legal", path, "--json")
    assert rc == 0 and json.loads(out) == {"seat": state.actor, "moves": legal_moves(state)}


def test_legal_reads_stdin(capsys, monkeypatch):
    state, _ = new_game(3, "stdin")
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(position(state, "stdin"))))
    rc, out, _ = run(capsys, "legal", "-")
    assert rc == 0 and out.splitlines() == legal_moves(state)


# --- play --------------------------------------------------------------------------------------

def test_play_a_legal_move_then_score(capsys, tmp_path):
    state, _ = new_game(2, "pl")
    move = legal_moves(state)[0]
    rc, out, err = run(capsys, "play", write(tmp_path, position(state, "pl")), move)
    assert (rc, err) == (0, "")
    doc = json.loads(out)
    _, expected = play(state, state.actor, move, seed="pl")
    assert doc == position(expected, "pl")
    assert doc["version"] == 2 and doc["seats"][0]["dice"] == [move.split()[1]]

    rc, out, _ = run(capsys, "score", write(tmp_path, doc, "next.json"))
    assert rc == 0
    assert json.loads(out) == {"round": 1, "phase": "action",
                               "scores": {"0": expected.seats[0].score, "1": expected.seats[1].score},
                               "final": None, "winner": None}


def test_play_several_moves_equals_one_at_a_time_and_the_event_fold(capsys, tmp_path, game2):
    seed, g, moves = game2
    n = 60  # crosses the end of round 1 (King phase, Cleanup, new round: draws and rolls)
    assert any(ev["chance"] for ev in g.events[1:n + 1]), "the prefix should include chance outcomes"
    start = write(tmp_path, position(new_game(2, seed)[0], seed), "start.json")

    rc, out, err = run(capsys, "play", start, *moves[:n])
    assert (rc, err) == (0, "")
    batch = json.loads(out)

    path = start
    for i, move in enumerate(moves[:n]):
        rc, out, err = run(capsys, "play", path, move)
        assert (rc, err) == (0, ""), (i, move, err)
        path = write(tmp_path, json.loads(out), "step.json")
    stepwise = json.loads(Path(path).read_text())

    assert batch == stepwise
    assert batch == position(replay(g.events[:n + 1]), seed)
    assert batch["round"] == 2


def test_play_a_whole_game_then_score_and_legal(capsys, tmp_path, game2):
    seed, g, moves = game2
    rc, out, _ = run(capsys, "play", write(tmp_path, position(new_game(2, seed)[0], seed)), *moves)
    assert rc == 0
    end = write(tmp_path, json.loads(out), "end.json")
    score = json.loads(run(capsys, "score", end)[1])
    assert score["phase"] == "over" and score["round"] == 4
    assert score["scores"] == {str(p.seat): p.score for p in g.state.seats}
    assert score["final"] == g.state.final and score["final"]["0"]["total"] == g.state.seats[0].score
    assert score["winner"] == g.state.winner
    assert run(capsys, "legal", end) == (0, "", "")
    assert json.loads(run(capsys, "legal", end, "--json")[1]) == {"seat": None, "moves": []}
    rc, out, err = run(capsys, "play", end, "end")
    assert (rc, out) == (1, "")
    assert err == "illegal move 1 'end': the game is over [game-over]\n"


def test_an_illegal_move_exits_1_with_one_line_and_no_position(capsys, tmp_path):
    state, _ = new_game(2, "il")
    path = write(tmp_path, position(state, "il"))
    rc, out, err = run(capsys, "play", path, "end")
    assert (rc, out) == (1, "")
    assert err == "illegal move 1 'end': take a die before ending your turn [take-a-die]\n"

    # the third move is the bad one: nothing at all is printed on stdout
    first = legal_moves(state)[0]
    rc, out, err = run(capsys, "play", path, first, "skip", first)
    assert (rc, out) == (1, "")
    assert err.count("\n") == 1 and err.startswith(f"illegal move 3 '{first}': ")
    assert err.rstrip().endswith("]")


def test_bad_notation_exits_1(capsys, tmp_path):
    state, _ = new_game(2, "bn")
    path = write(tmp_path, position(state, "bn"))
    rc, out, err = run(capsys, "play", path, "fly to Roma")
    assert (rc, out) == (1, "")
    assert err == "illegal move 1 'fly to Roma': unknown verb 'fly' [bad-notation]\n"
    rc, out, err = run(capsys, "play", path, legal_moves(state)[0], "take G9")
    assert (rc, out) == (1, "")
    assert err.startswith("illegal move 2 'take G9': ") and err.endswith("[bad-notation]\n")
    assert err.count("\n") == 1


def test_undo_works_within_one_invocation(capsys, tmp_path, game2):
    seed, g, moves = game2
    state, _ = new_game(2, seed)
    assert g.events[1]["chance"] == []  # the first take draws nothing, so it can be taken back
    rc, out, _ = run(capsys, "play", write(tmp_path, position(state, seed)), moves[0], "undo")
    assert rc == 0
    doc = json.loads(out)
    assert doc["version"] == state.version + 2
    assert {**doc, "version": state.version} == position(state, seed)


def test_a_position_without_seed_plays_until_chance_is_needed(capsys, tmp_path, game2):
    seed, g, moves = game2
    first_chance = next(i for i, ev in enumerate(g.events[1:]) if ev["chance"])
    state, _ = new_game(2, seed)
    path = write(tmp_path, position(state, None))

    rc, out, _ = run(capsys, "play", path, *moves[:first_chance])
    assert rc == 0 and "seed" not in json.loads(out)
    assert json.loads(out) == replay(g.events[:first_chance + 1]).to_doc()

    rc, out, err = run(capsys, "play", path, *moves[:first_chance + 1])
    assert (rc, out) == (2, "")
    assert "seed" in err and err.count("\n") == 1

    rc, out, _ = run(capsys, "play", path, "--seed", seed, *moves[:first_chance + 1])
    assert rc == 0 and json.loads(out) == position(replay(g.events[:first_chance + 2]), seed)


# --- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("content", [None, "{not json", '["a list"]', '{"format": "other"}',
                                     '{"format": "tiletum-position/1", "players": 2}'])
@pytest.mark.parametrize("command", ["legal", "score", "play"])
def test_a_bad_file_exits_2(capsys, tmp_path, content, command):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    argv = [command, str(path)] + (["end"] if command == "play" else [])
    rc, out, err = run(capsys, *argv)
    assert (rc, out) == (2, "")
    assert err.count("\n") == 1 and str(path) in err


def test_a_bad_seed_or_an_inconsistent_position_exits_2(capsys, tmp_path):
    state, _ = new_game(2, "bad")
    rc, out, err = run(capsys, "play", write(tmp_path, {**position(state, None), "seed": 7}), "end")
    assert (rc, out) == (2, "") and "seed" in err
    rc, out, err = run(capsys, "legal", write(tmp_path, {**position(state, "bad"), "actor": 7}))
    assert (rc, out) == (2, "") and err.count("\n") == 1


# --- random-game -------------------------------------------------------------------------------

def test_random_game_prints_one_line_per_game_and_is_reproducible(capsys):
    outputs = []
    for _ in range(2):
        rc, out, err = run(capsys, "random-game", "--players", "3", "--seed", "rg", "--games", "2")
        assert (rc, err) == (0, "")
        lines = out.splitlines()
        assert len(lines) == 3
        assert re.fullmatch(r"2 games in \d+\.\d+s: \d+\.\d games/s", lines[2])
        outputs.append(lines[:2])
    assert outputs[0] == outputs[1]
    for i, line in enumerate(outputs[0]):
        m = GAME_LINE.match(line)
        assert m, line
        g = random_game(3, f"rg-{i}")
        assert (int(m.group(1)), m.group(2)) == (i, f"rg-{i}")
        assert [int(x) for x in m.group(3).split()] == [p.score for p in g.state.seats]
        assert (int(m.group(4)), int(m.group(5))) == (g.state.winner, g.moves)


def test_help_names_every_command(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    for cmd in ("new", "legal", "play", "score", "random-game"):
        assert cmd in out


# --- the entry point, as a process ---------------------------------------------------------------

def test_entry_point_in_a_subprocess(tmp_path):
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}

    def cli(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tiletum.cli", *argv], input=stdin, capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=60)

    new = cli("new", "--players", "2", "--seed", "proc")
    assert new.returncode == 0 and new.stderr == ""
    (tmp_path / "pos.json").write_text(new.stdout)
    legal = cli("legal", "pos.json")
    state, _ = new_game(2, "proc")
    assert legal.returncode == 0 and legal.stdout.splitlines() == legal_moves(state)
    move = legal.stdout.splitlines()[-1]
    played = cli("play", "-", move, stdin=new.stdout)
    assert played.returncode == 0 and played.stderr == ""
    after = play(state, 0, move, seed="proc")[1]
    assert json.loads(played.stdout) == position(after, "proc")
    score = cli("score", "-", stdin=played.stdout)
    assert score.returncode == 0
    assert json.loads(score.stdout)["scores"] == {"0": after.seats[0].score, "1": after.seats[1].score}
    bad = cli("play", "pos.json", "end")
    assert (bad.returncode, bad.stdout) == (1, "") and bad.stderr.count("\n") == 1
