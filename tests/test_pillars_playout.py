"""The Pillars of the Earth: seeded random games for 2, 3 and 4 players with the invariants
checked after every move, legal moves against the checks, and decide never changing its state."""
from __future__ import annotations

import random

import pytest

from pillars import rules
from pillars.errors import EngineError
from pillars.game import check, decide, evolve, legal_moves, new_game, play
from pillars.playout import random_game
from pillars.state import GameState, cards, conserved

C = cards()
TAXING = ("E01", "E06")   # the events that take VP


class Watch:
    """Invariants after every move of a game."""

    def __init__(self):
        self.rounds = set()
        self.moves = 0

    def __call__(self, old: GameState, move, events, new: GameState) -> None:
        self.moves += 1
        self.rounds.add(new.round)
        assert conserved(new) == C.cubes, "cubes conserved"
        assert all(0 <= g <= C.gold_cap for g in new.gold), new.gold
        assert all(len(c) <= 5 for c in new.craftsmen), new.craftsmen
        assert all(min(r) >= 0 for r in new.res)
        assert new.round - old.round in (0, 1)
        drawn = [k for ev in events for k, _ in ev["chance"]]
        for seat in range(new.players):
            if new.vp[seat] < old.vp[seat]:   # only taxes and the VP-taking events take VP
                assert ("tax" in drawn or (old.queue and old.queue[0][0] == "taxes")
                        or new.event in TAXING or old.event in TAXING), (move, old.vp, new.vp)
            if new.phase in ("builders", "placing"):   # workers: on cards or in the wool mill
                on_cards = sum(C.rescards[t]["workers"] for t in new.taken[seat])
                assert on_cards + new.wool[seat] == new.workers(seat)
            if new.phase == "cards":
                assert new.free_workers(seat) >= 0
                if old.round != new.round:   # carried over: at most 5 (7 with the patron)
                    assert sum(new.res[seat]) <= rules.carry_limit(new, seat)
        if new.phase != "over":
            assert new.actor is not None and legal_moves(new), "someone always decides"


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("k", range(4))
def test_random_games_keep_the_invariants(players, k):
    w = Watch()
    g = random_game(players, f"inv-{players}-{k}", on_move=w)
    assert g.state.phase == "over" and w.rounds == {1, 2, 3, 4, 5, 6}
    assert g.state.winners and g.state.final["vp"] == g.state.vp
    best = max(g.state.vp)
    assert all(g.state.vp[i] == best for i in g.state.winners)


@pytest.mark.parametrize("players", [2, 4])
def test_legal_moves_and_checks_agree(players):
    """At positions along a random game, every legal move passes check, and a move from the whole
    vocabulary of moves seen passes check only if it is legal."""
    g = random_game(players, f"agree-{players}")
    vocab = sorted({ev["move"] for ev in g.events[1:]})
    state = evolve(None, g.events[0])
    rng = random.Random(players)
    for ev in g.events[1:]:
        if rng.random() < 0.15:
            legal = set(legal_moves(state))
            assert legal == {str(m) for m in rules.legal(state)}
            assert legal_moves(state) == sorted(legal)
            for m in legal:
                assert check(state, state.actor, m) is None, m
            for m in vocab:
                if m not in legal:
                    err = check(state, state.actor, m)
                    assert err is not None, f"{m!r} passes check but is not legal"
        state = evolve(state, ev)
    assert state == g.state


def test_decide_never_changes_its_state_and_evolve_agrees():
    state, events = new_game(3, "pure")
    rng = random.Random(3)
    for _ in range(400):
        if state.phase == "over":
            break
        before = state.to_doc()
        moves = legal_moves(state)
        with pytest.raises(EngineError):
            decide(state, state.actor, "use C99 7", seed="pure")
        evs = decide(state, state.actor, rng.choice(moves), seed="pure")
        assert state.to_doc() == before
        new = evolve(state, evs[0])
        assert state.to_doc() == before
        _, again = play(state, state.actor, evs[0]["move"], seed="pure")
        assert again == new
        state = new


def test_same_seed_same_game_and_position_documents_round_trip():
    a = random_game(4, "same")
    b = random_game(4, "same")
    assert a.events == b.events and a.state == b.state
    s = evolve(None, a.events[0])
    for i, ev in enumerate(a.events[1:]):
        s = evolve(s, ev)
        if i % 5 == 0 or s.phase == "over":
            assert GameState.from_doc(s.to_doc()) == s
