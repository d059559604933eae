"""Game records and the seed check (tiletum.record, tiletum.fairness, CLI replay/verify)."""
from __future__ import annotations

import pytest

from tiletum import IllegalMove, play
from tiletum.chance import seed_commitment
from tiletum.cli import main
from tiletum.fairness import verify_events
from tiletum.playout import random_game
from tiletum.record import RecordError, parse_record, replay_record, write_record


@pytest.fixture(scope="module")
def game():
    return random_game(3, "record-test")


def test_record_replays_to_the_same_final_state(game):
    text = write_record(game.events, {"Seat0": "Alice", "SeedCommitment": seed_commitment("record-test")})
    headers, events, state = replay_record(text)
    assert headers["Seat0"] == "Alice"
    assert state.to_doc() == game.state.to_doc()
    assert [e.get("move") for e in events] == [e.get("move") for e in game.events]


def test_record_keeps_undo(game):
    # play a few moves of a new game with an undo in the middle and record them
    from tiletum import legal, new_game
    s, events = new_game(2, "u")
    for _ in range(6):
        m = sorted(legal(s), key=str)[0]
        evs, s = play(s, s.actor, m, seed="u")
        events += evs
        if s.undo_moves:
            evs, s = play(s, s.actor, "undo", seed="u")
            events += evs
            break
    assert any(e["type"] == "MoveUndone" for e in events)
    _, replayed, state = replay_record(write_record(events))
    assert state.to_doc() == s.to_doc()


def test_a_tampered_record_is_refused(game):
    text = write_record(game.events)
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("1. "))
    lines[i] = lines[i].replace("take", "take", 1).split(" | ")[0].replace("take ", "take Z")  # bad die
    with pytest.raises(Exception):
        replay_record("\n".join(lines))
    with pytest.raises(RecordError):
        parse_record("not a record")


def test_seed_check_accepts_the_true_seed_and_rejects_others(game):
    assert verify_events(game.events, "record-test", seed_commitment("record-test")) == []
    problems = verify_events(game.events, "another-seed")
    assert problems and "setup" in problems[0]
    assert "commitment" in verify_events(game.events, "record-test", seed_commitment("x"))[0]


def test_cli_replay_and_verify(tmp_path, capsys, game):
    path = tmp_path / "game.txt"
    path.write_text(write_record(game.events, {"SeedCommitment": seed_commitment("record-test")}))
    assert main(["replay", str(path)]) == 0
    assert '"phase": "over"' in capsys.readouterr().out
    assert main(["verify", str(path), "--seed", "record-test"]) == 0
    assert capsys.readouterr().out.startswith("ok:")
    assert main(["verify", str(path), "--seed", "nope"]) == 1
    assert "commitment" in capsys.readouterr().err
    assert main(["verify", str(path)]) == 2   # the seed is only known after the game


def test_illegal_move_in_a_record_is_reported():
    from tiletum import new_game
    s, events = new_game(2, "bad")
    events.append({"type": "MovePlayed", "seat": 1, "move": "end", "chance": []})
    with pytest.raises(IllegalMove):
        replay_record(write_record(events))
