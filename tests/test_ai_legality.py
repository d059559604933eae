"""The AI player never sends an illegal move and answers every decision of the rules.

Games are played to their end, seeded, with every move of the AI checked twice: it must be in
``tiletum.legal_moves`` of the real position, and ``tiletum.play`` (which checks it) must accept it
with the game's own seed. The AI is given only its seat's view (``games.tiletum.view_doc``).

* many games (2, 3 and 4 players, and the human seat of solo games at each Cardinalbot level)
  with one AI seat at a budget of one search iteration (a one-move greedy choice: the cheapest
  level, so that many games fit in the time; a hundred more under ``make soak``) and the other
  seats random;
* a few games with every seat played by the AI at the ``easy`` level, and a solo game at ``hard``
  (which looks past the turn, ``ai.tiletum.lookahead``; a fifth of its root iterations).
"""
from __future__ import annotations

import dataclasses

import random
from collections import Counter

import pytest

import ai
import tiletum
from cardinalbot.policy import next_moves
from tiletum.game import legal_moves, play
from games.tiletum import view_doc
from tests.soak import SOAK_SCALE

SOLO_LEVELS = ("priest", "deacon", "bishop")


def play_game(players: int, seed: str, ai_seats, budget, solo: str | None = None,
              seen: Counter | None = None):
    options = {"solo": {"level": solo}} if solo else None
    state, _ = tiletum.new_game(players, seed, options)
    bot = state.solo["bot"] if solo else None
    rng = random.Random(seed)
    calls = 0
    while state.phase != "over":
        seat = state.actor
        if seat == bot and state.phase == "action":
            for m in next_moves(state, rng):
                _, state = play(state, seat, m, seed=seed)
        elif seat in ai_seats:
            plan = ai.decide(view_doc(state, seat), budget, f"{seed}:{calls}")
            calls += 1
            assert plan, "the AI answered a decision with no move"
            for m in plan:
                assert (state.actor == seat
                        and state.phase != "over"), f"{seed}: a planned move after the decision ended"
                assert m in legal_moves(state), f"{seed}: illegal AI move {m!r}"
                if seen is not None:
                    top = state.agenda[-1] if state.agenda else None
                    seen[top["kind"] if top and top["t"] == "choice" else m.split()[0]] += 1
                _, state = play(state, seat, m, seed=seed)   # checks the move again
        else:
            moves = legal_moves(state)
            _, state = play(state, seat, moves[rng.randrange(len(moves))], seed=seed, trusted=True)
    return state, calls


@pytest.mark.parametrize("chunk", range(2))   # 40 games in two parts, which a parallel run spreads
def test_games_with_one_ai_seat_never_an_illegal_move(chunk):
    ai_seat_games(range(chunk * 5, chunk * 5 + 5))


@pytest.mark.soak
@pytest.mark.parametrize("chunk", range(5))
def test_many_more_games_with_one_ai_seat_never_an_illegal_move(chunk):
    """The soak run (`make soak`): 100 more games (times TABLEPOST_SOAK_SCALE, tests/soak.py), on
    seeds the suite does not play."""
    share = 5 * SOAK_SCALE
    ai_seat_games(range(10 + chunk * share, 10 + (chunk + 1) * share))


def ai_seat_games(indexes: range) -> None:
    """For each index, a 2-, 3- and 4-player game with one AI seat (at a one-iteration budget) and
    a solo game: every move the AI sends is legal, and every game ends."""
    seen: Counter = Counter()
    games = 0
    for i in indexes:
        for players in (2, 3, 4):
            seat = i % players
            state, calls = play_game(players, f"ai-legal-{players}-{i}", {seat}, 1, seen=seen)
            assert calls > 0 and state.final is not None
            games += 1
        level = SOLO_LEVELS[i % 3]
        state, calls = play_game(2, f"ai-legal-solo-{i}", {1}, 1, solo=level, seen=seen)
        assert calls > 0 and state.final is not None
        games += 1
    assert games == 4 * len(indexes)
    # it met (and answered) the decisions of the rules, not only die-taking (a Building's bonuses,
    # which its own play seldom leads to, are met in random play in the test below)
    for kind in ("take", "end", "action_tile", "resource", "king_tile"):
        assert seen[kind] > 0, (kind, seen)


@pytest.mark.parametrize("players, solo", [(2, None), (3, None), (4, None), (2, "bishop")])
def test_every_seat_by_the_ai_at_easy_to_the_end(players, solo):
    seats = {1} if solo else set(range(players))
    state, calls = play_game(players, f"ai-easy-{players}-{solo}", seats, "easy", solo=solo)
    assert state.phase == "over" and calls >= 3 * 4 * len(seats)


@pytest.mark.long(20)
def test_a_solo_game_at_hard_with_the_look_ahead_never_an_illegal_move():
    """Hard reranks its best root moves by the next turn (ai.tiletum.lookahead): what it sends is still
    taken from the legal moves of the real position, to the end of a game."""
    hard = ai.LEVELS["hard"]
    assert hard.lookahead
    # hard's search and look-ahead, with a fifth of its root iterations: what is checked is that
    # the moves sent are legal, which does not depend on how long the root search ran
    quick = dataclasses.replace(hard, iterations=hard.iterations // 5)
    state, calls = play_game(2, "ai-hard-solo", {1}, quick, solo="bishop")
    assert state.phase == "over" and calls >= 12


def test_every_kind_of_pending_decision_met_in_random_play_gets_a_legal_answer():
    """Decisions the AI's own play seldom leads to (a Building's bonuses when it has placed few
    Characters, say) are found in random games, and the AI answers each kind of them, at a
    one-iteration budget and at easy, with moves the engine accepts."""
    answered: Counter = Counter()
    for i in range(40):
        seed = f"ai-choices-{i}"
        state, _ = tiletum.new_game(3, seed)
        rng = random.Random(seed)
        while state.phase != "over":
            top = state.agenda[-1] if state.agenda else None
            kind = top["kind"] if top and top["t"] == "choice" else None
            if kind is not None and answered[kind] < 2:
                seat = state.actor
                budget = (1, "easy")[answered[kind]]
                plan = ai.decide(view_doc(state, seat), budget, f"{seed}:{kind}")
                assert plan
                s = state
                for m in plan:
                    assert s.actor == seat and m in legal_moves(s), (seed, kind, m)
                    _, s = play(s, seat, m, seed=seed)
                answered[kind] += 1
            moves = legal_moves(state)
            _, state = play(state, state.actor, moves[rng.randrange(len(moves))], seed=seed, trusted=True)
    kinds = ("action_tile", "resource", "joker", "king_tile", "move", "any_action", "teleport", "building",
             "move_place", "die_resource", "building_chars", "place_anywhere", "move_town", "place_here")
    assert {k: answered[k] for k in kinds} == dict.fromkeys(kinds, 2), answered
