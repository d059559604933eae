"""A record is text anyone can hand to ``replay``/``verify`` (the engines' CLIs, the game
interface's ``verify_record``): whatever it claims, a malformed record is an engine error that
says what is wrong (``RecordError``, ``IllegalMove``, ``NotationError``), never a crash. The
setup and the recorded outcomes are the dangerous part, since replay trusts them to fold a move
in: each test tampers with them in a real game's record, for every game."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import carcassonne.playout
import tiletum.playout
import games
import pillars.playout
from rules_common.errors import EngineError, RecordError

SETUPS = ['{}', '[1,2]', '[[\\"x\\",1]]', '[[\\"tile\\"]]', '[]', '[[\\"draw:bonus\\",\\"NOPE\\"]]', 'null']


def record_of(name: str, moves: int) -> str:
    """A real record of the first ``moves`` moves of a seeded random 2-player game."""
    play = {"tiletum": tiletum.playout.random_game, "carcassonne": carcassonne.playout.random_game,
            "pillars": pillars.playout.random_game}[name]
    g = play(2, f"malformed-{name}")
    game = games.get(name)
    text = game.write_record(g.events[:moves + 1],
                             {"SeedCommitment": game.seed_commitment(f"malformed-{name}")})
    return text


RECORDS = {name: record_of(name, 40) for name in games.NAMES}


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_the_untouched_record_replays_and_verifies(name):
    game = games.get(name)
    _, events, _ = game.replay_record(RECORDS[name])
    assert len(events) > 10
    assert game.verify_record(RECORDS[name], seed=f"malformed-{name}") == []


@pytest.mark.parametrize("name", sorted(RECORDS))
@pytest.mark.parametrize("setup", SETUPS)
def test_an_impossible_setup_is_a_record_error(name, setup):
    text = re.sub(r'\[Setup ".*"\]', lambda m: f'[Setup "{setup}"]', RECORDS[name])
    with pytest.raises(RecordError) as e:
        games.get(name).replay_record(text)
    assert "setup" in e.value.message
    problems = games.get(name).verify_record(text, seed="x")
    assert problems and "setup" in problems[0]


def outcome_spans(text: str) -> list[tuple[int, int]]:
    """Where each recorded outcome's value stands in the record's move lines."""
    spans = []
    for m in re.finditer(r"\{([^}]*)\}", text):
        for part in re.finditer(r"[\w:]+ ([^,}]+)", m.group(0)):
            spans.append((m.start() + part.start(1), m.start() + part.end(1)))
    return spans


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(RECORDS)), data=st.data())
def test_a_tampered_outcome_never_crashes_replay(name, data):
    text = RECORDS[name]
    spans = outcome_spans(text)
    assert spans, "the record has recorded outcomes to tamper with"
    start, end = data.draw(st.sampled_from(spans))
    value = data.draw(st.sampled_from(["0", "7", "-1", "X99", "B07", "K12", "A", "Z", "tile", ""]))
    tampered = text[:start] + value + text[end:]
    game = games.get(name)
    try:
        game.replay_record(tampered)
    except EngineError:
        pass   # said what is wrong; anything else would be a crash
    problems = game.verify_record(tampered, seed=f"malformed-{name}")
    assert isinstance(problems, list)
    if tampered != text:
        assert problems, "a changed outcome never verifies against the seed"
