"""Connect Four's rules: dropping, the four lines, the draw, refusals with their rule, the notation
read back as written (Hypothesis), and seeded random playouts with the invariants after every move."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_common.errors import IllegalMove, NotationError, NotYourTurn, PositionError
from tablepost_connect_four import rules
from tablepost_connect_four.cli import random_game
from tablepost_connect_four.record import replay_record, verify_events, write_record
from tablepost_connect_four.rules import (GameState, Move, decide, evolve, legal_moves, new_game, parse, play,
                                         replay)


def played(*columns: str) -> tuple[GameState, list[dict]]:
    """The position after the seats drop in ``columns`` in turn (seat 0 first)."""
    state, events = new_game(2, "seed")
    for col in columns:
        evs, state = play(state, state.actor, col, "seed")
        events += evs
    return state, events


def test_a_disc_falls_to_the_lowest_empty_cell_and_the_turn_passes():
    state, _ = played("d", "d", "c")
    assert state.columns[3] == [0, 1] and state.columns[2] == [0]
    assert state.actor == 1 and state.phase == "play" and state.discs == 3 and state.version == 4


@pytest.mark.parametrize("moves, line", [
    ("a b a b a b a", [(0, 0), (0, 1), (0, 2), (0, 3)]),                  # up a column
    ("a a b b c c d", [(0, 0), (1, 0), (2, 0), (3, 0)]),                  # across
    ("a b b c c d c d d g d", [(0, 0), (1, 1), (2, 2), (3, 3)]),          # rising diagonal
    ("g f f e e d e d d a d", [(3, 3), (4, 2), (5, 1), (6, 0)]),          # falling diagonal
])
def test_four_in_a_row_wins_at_once(moves, line):
    state, _ = played(*moves.split())
    assert state.phase == "over" and state.winner == 0 and state.actor is None
    assert sorted(state.line) == line
    assert legal_moves(state) == [] and rules.scores(state) == [1, 0]


def test_the_second_seat_wins_too():
    state, _ = played("a", "b", "a", "b", "a", "b", "g", "b")
    assert state.winner == 1 and rules.scores(state) == [0, 1]


# a full board with no four in a row: columns filled in pairs, the pattern shifted every two columns
DRAW = ("a b a b a b b a b a b a c d c d c d d c d c d c e f e f e f f e f e f e g g g g g g").split()


def test_a_full_board_without_four_in_a_row_is_a_draw():
    state, _ = played(*DRAW)
    assert state.discs == 42 and state.phase == "over" and state.winner is None and state.line is None
    assert rules.scores(state) == [0, 0]


def test_a_full_column_a_finished_game_and_a_move_out_of_turn_are_refused_with_their_rule():
    state, _ = played("a", "a", "a", "b", "a", "a", "a")
    assert len(state.columns[0]) == 6
    with pytest.raises(IllegalMove) as e:
        decide(state, state.actor, "drop a")
    assert e.value.code == "column-full" and e.value.rule == "Dropping a disc"
    assert "drop a" not in legal_moves(state)
    with pytest.raises(NotYourTurn) as e2:
        decide(state, 1 - state.actor, "drop b")
    assert e2.value.code == "not-your-turn"
    over, _ = played("a", "b", "a", "b", "a", "b", "a")
    with pytest.raises(IllegalMove) as e3:
        decide(over, 1, "drop c")
    assert e3.value.code == "game-over"


@pytest.mark.parametrize("text", ["", "drop", "drop h", "h", "drop dd", "put d", "drop 4", "d e"])
def test_text_that_is_no_move_is_a_notation_error(text):
    with pytest.raises(NotationError):
        parse(text)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 6), st.sampled_from(["{}", "drop {}", " DROP  {} ", "{} "]), st.booleans())
def test_the_notation_reads_back_as_written(column, form, upper):
    move = Move(column)
    letter = rules.LETTERS[column].upper() if upper else rules.LETTERS[column]
    assert parse(str(move)) == move and str(parse(str(move))) == str(move)
    assert parse(form.format(letter)) == move


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_any_text_parses_to_a_move_or_a_notation_error(text):
    try:
        move = parse(text)
    except NotationError:
        return
    assert parse(str(move)) == move


def check_invariants(state: GameState, events: list[dict]) -> None:
    assert state.discs == state.version - 1 == len(events) - 1
    heights = [len(c) for c in state.columns]
    assert all(0 <= h <= rules.ROWS for h in heights)
    counts = [sum(c.count(seat) for c in state.columns) for seat in (0, 1)]
    assert counts[0] - counts[1] in (0, 1), "seat 0 drops first, then they alternate"
    legal = legal_moves(state)
    assert legal == sorted(set(legal))
    if state.phase == "over":
        assert state.actor is None and legal == []
        assert state.winner is not None or state.discs == 42
    else:
        assert state.winner is None and state.actor == state.discs % 2
        assert legal == [f"drop {rules.LETTERS[c]}" for c in range(7) if heights[c] < 6]
    assert GameState.from_doc(state.to_doc()).to_doc() == state.to_doc()
    assert replay(events).to_doc() == state.to_doc()


@pytest.mark.parametrize("seed", [f"playout-{i}" for i in range(25)])
def test_random_playouts_keep_the_invariants_after_every_move(seed):
    rng = random.Random(seed)
    state, events = new_game(2, seed)
    folded = replay(events)
    while state.phase != "over":
        move = rng.choice(legal_moves(state))
        evs = decide(state, state.actor, move, seed)
        for ev in evs:
            folded = evolve(folded, ev)
        _, state = play(state, state.actor, move, seed)
        events += evs
        assert folded.to_doc() == state.to_doc()
        check_invariants(state, events)
    if state.winner is not None:   # the winning line is four of the winner's discs in a line
        cells = state.line
        assert tuple(cells) in rules.LINES and all(state.cell(c, r) == state.winner for c, r in cells)
    record = write_record(events, {"SeedCommitment": rules_seed(seed)})
    _, again, final = replay_record(record)
    assert final.to_doc() == state.to_doc() and len(again) == len(events)
    assert verify_events(again, seed, rules_seed(seed)) == []
    assert verify_events(again, seed + "!", rules_seed(seed))


def rules_seed(seed: str) -> str:
    from rules_common.chance import seed_commitment
    return seed_commitment(seed)


def test_random_game_playouts_end():
    for i in range(20):
        game = random_game(2, f"rg-{i}")
        assert game.state.phase == "over" and 7 <= game.moves <= 42


def test_a_position_that_is_not_one_is_refused():
    doc = new_game(2, "s")[0].to_doc()
    for bad in ({**doc, "format": "chess"}, {**doc, "columns": [[2]] * 7}, {**doc, "columns": [[]] * 6},
                {**doc, "phase": "play", "actor": None}, {k: v for k, v in doc.items() if k != "version"}):
        with pytest.raises(PositionError):
            GameState.from_doc(bad)


def test_the_engine_takes_two_players_and_no_options():
    from rules_common.errors import EngineError
    with pytest.raises(EngineError):
        new_game(3, "s")
    with pytest.raises(EngineError):
        new_game(2, "s", {"board": "8x7"})
