"""Chance cannot be steered with moves that change nothing (issue 13).

A seat that plays an undoable move and takes it back (``X``, ``undo``) is back in the same
position, so the next reveal must give exactly what it would have given at once. Under rules
version 1 outcomes were keyed by the event count, which such pairs shift; from rules version 2
they are keyed by the number of reveals so far (``engine/chance.py``).
"""
from __future__ import annotations

import random

import pytest

from engine import legal, new_game, play

SOLO = {"solo": {"level": "deacon"}}


def _reveals(state, move: str, seed: str) -> list:
    """The chance outcomes ``move`` records when played now (empty if it reveals nothing)."""
    evs, _ = play(state, state.actor, move, seed=seed, trusted=True)
    return evs[-1]["chance"]


def _undoable_moves(state, seed: str) -> list[str]:
    """Legal moves of the actor that ``undo`` can take back."""
    out = []
    for m in sorted((str(m) for m in legal(state))):
        _, after = play(state, state.actor, m, seed=seed, trusted=True)
        if after.undo_moves:
            out.append(m)
    return out


def steering_chances(players: int, seed: str, options: dict | None = None, wanted: int = 6,
                     max_moves: int = 3000) -> list[tuple]:
    """Positions of a seeded random playout where the actor could play an undoable move and has a
    move that reveals something with more than one possible outcome: (state, reveal, undoables)."""
    rng = random.Random(seed + ":moves")
    state, _ = new_game(players, seed, options)
    found = []
    for _ in range(max_moves):
        if state.phase == "over" or len(found) >= wanted:
            break
        moves = sorted(str(m) for m in legal(state))
        revealing = [m for m in moves if _reveals(state, m, seed)]
        if revealing:
            undoables = _undoable_moves(state, seed)
            if undoables:
                found.append((state, revealing[rng.randrange(len(revealing))], undoables))
        _, state = play(state, state.actor, moves[rng.randrange(len(moves))], seed=seed, trusted=True)
    return found


def _after_pairs(state, pairs: list[str], seed: str):
    for x in pairs:
        _, state = play(state, state.actor, x, seed=seed)
        _, state = play(state, state.actor, "undo", seed=seed)
    return state


@pytest.mark.parametrize("players,seed,options", [
    (2, "steer-2", None), (3, "steer-3", None), (4, "steer-4", None), (2, "steer-solo", SOLO),
])
def test_undo_pairs_before_a_reveal_do_not_change_it(players, seed, options):
    cases = steering_chances(players, seed, options)
    assert len(cases) >= 3, "the playout should offer undoable moves before a reveal"
    for state, reveal, undoables in cases:
        direct = _reveals(state, reveal, seed)
        assert direct
        for k, x in enumerate(undoables[:4]):
            # one pair, and k + 2 pairs of assorted moves: the position is the same, so is the draw
            once = _after_pairs(state, [x], seed)
            many = _after_pairs(state, [x] + undoables[: k + 1], seed)
            assert once.to_doc() | {"version": 0} == state.to_doc() | {"version": 0}
            assert _reveals(once, reveal, seed) == direct, f"'{x}', 'undo' changed what '{reveal}' reveals"
            assert _reveals(many, reveal, seed) == direct, f"undo pairs changed what '{reveal}' reveals"


def test_a_whole_game_with_undo_pairs_draws_the_same():
    """The same moves with undo pairs sprinkled in give the same outcomes to the end (solo
    included: the Cardinalbot's deck and dice as well)."""
    for players, seed, options in [(3, "steer-game-3", None), (2, "steer-game-solo", SOLO)]:
        rng = random.Random(seed)
        state, _ = new_game(players, seed, options)
        plain, paired = [], []
        shadow = state
        while state.phase != "over":
            moves = sorted(str(m) for m in legal(state))
            move = moves[rng.randrange(len(moves))]
            undoables = _undoable_moves(shadow, seed) if rng.random() < 0.3 else []
            if undoables:
                shadow = _after_pairs(shadow, [undoables[rng.randrange(len(undoables))]], seed)
            evs, state = play(state, state.actor, move, seed=seed, trusted=True)
            plain.append(evs[-1]["chance"])
            evs, shadow = play(shadow, shadow.actor, move, seed=seed, trusted=True)
            paired.append(evs[-1]["chance"])
            assert shadow.to_doc() | {"version": 0} == state.to_doc() | {"version": 0}
        assert shadow.version > state.version, "undo pairs were played"
        assert paired == plain
