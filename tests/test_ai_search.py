"""The AI's search (ai.tiletum.search: sequential halving at the root, max backup) and its look-ahead past
the turn (ai.tiletum.lookahead: the root's best few moves judged by the seat's next turn)."""
from __future__ import annotations

import importlib
import random

import pytest

import ai
import tiletum
from ai.tiletum import lookahead
from ai.tiletum.view import determinize, sample_seed
from cardinalbot.policy import next_moves
from tiletum.game import legal_moves, play
from games.tiletum import view_doc

se = importlib.import_module("ai.tiletum.search")   # (the package's ``search`` is the function)


def solo_die_choice(seed: str):
    """The AI seat's first decision in a solo game against the bishop: which die to take."""
    state, _ = tiletum.new_game(2, seed, {"solo": {"level": "bishop"}})
    while state.actor == state.solo["bot"]:
        for m in next_moves(state, random.Random(seed)):
            _, state = play(state, state.actor, m, seed=seed)
    return state


@pytest.mark.parametrize("seed", ["halving-1", "halving-2", "halving-3"])
def test_every_move_at_the_root_is_searched_below_before_one_is_preferred(seed):
    """Sequential halving: each root move gets iterations of its own beyond its first score, and
    the last rounds' moves the most (UCB1 alone left most dice at the one visit of the expansion)."""
    state = solo_die_choice(seed)
    tree = se.search(state, state.actor, 400, random.Random(1))
    kids = tree.children
    assert len(kids) > 8
    assert all(ch.n >= 2 for ch in kids.values()), sorted((ch.n, t) for t, ch in kids.items())[:3]
    top = max(kids.values(), key=lambda ch: ch.n)
    assert top.n >= 400 // len(kids) * 2


def test_a_node_is_worth_the_best_line_found_below_it():
    """Max backup: a node's value is the best value backed up through it (at least its best
    child's; more where, in some sampled future, the turn ended there), and the root's is its best
    move's."""
    state = solo_die_choice("max-backup")
    tree = se.search(state, state.actor, 200, random.Random(3))
    assert tree.best == max(ch.best for ch in tree.children.values())
    stack, checked = [tree], 0
    while stack:
        node = stack.pop()
        if node.children:
            assert node.best >= max(ch.best for ch in node.children.values())
            assert node.best >= node.w / node.n - 1e-9
            assert node.worth == node.best
            checked += 1
            stack.extend(node.children.values())
    assert checked > 5


def test_best_line_follows_the_best_child_ties_by_notation():
    root = se.Node()
    root.children = {"b": se.Node(1, 5.0), "a": se.Node(1, 7.0), "c": se.Node(1, 7.0)}
    root.children["a"].children = {"x": se.Node(1, 2.0), "y": se.Node(1, 3.0)}
    root.children["c"].children = {"z": se.Node(1, 9.0)}
    assert lookahead.best_line(root) == ["a", "y"]          # a and c tie at 7: a by notation
    assert lookahead.best_line(root.children["b"]) == []


def test_finish_turn_plays_the_line_then_best_moves_to_the_end_of_the_turn():
    state = solo_die_choice("look-finish")
    seat = state.actor
    key = se.turn_key(state)
    first = next(m for m in legal_moves(state) if m.startswith("take ") and ">" not in m)   # e.g. take W1
    s = state.clone()
    lookahead.finish_turn(s, seat, key, "sampled", [first, "not a move"])
    assert not se.in_turn(s, seat, key)
    assert s.seats[seat].dice == [first.split()[1]]          # the line's die, then on to the end
    assert state.actor == seat and se.in_turn(state, seat, key)   # the position itself is untouched


def test_to_next_turn_stops_at_the_seats_next_turn_or_the_end():
    state = solo_die_choice("look-next")
    seat = state.actor
    s = state.clone()
    lookahead.finish_turn(s, seat, se.turn_key(state), "sampled", [])
    assert lookahead.to_next_turn(s, seat, se.turn_key(state), "sampled", random.Random(1))
    assert s.actor == seat and s.phase == "action" and se.turn_key(s) != se.turn_key(state)
    assert s.turn["die"] is None                             # its next turn, not yet begun
    while True:                                              # on to the end of the game
        key = se.turn_key(s)
        lookahead.finish_turn(s, seat, key, "sampled", [])
        if not lookahead.to_next_turn(s, seat, key, "sampled", random.Random(2)):
            break
    assert s.phase == "over"


def test_to_next_turn_when_the_last_turn_of_a_round_is_followed_by_the_first_of_the_next():
    """At 3 players the seat that ends round 3 can open round 4 (the King track sets the order):
    its next turn has begun at once, and nothing of it is played for it."""
    seed = "edge-5"
    state, _ = tiletum.new_game(3, seed)
    rng = random.Random(seed)
    while True:
        seat, key = state.actor, se.turn_key(state)
        ms = legal_moves(state)
        _, after = play(state, seat, ms[rng.randrange(len(ms))], seed=seed, trusted=True)
        if (after.phase == "action" and after.actor == seat and key[1] == "action"
            and se.turn_key(after) != key):
            break
        state = after
    assert se.turn_key(after)[:3] == (key[0] + 1, "action", 0)
    s = after.clone()
    assert lookahead.to_next_turn(s, seat, key, "sampled", random.Random(1))
    assert s.to_doc() == after.to_doc()


@pytest.mark.parametrize("seed", ["look-rerank-1", "look-rerank-2"])
def test_rerank_picks_one_of_the_k_best_moves_deterministically(seed):
    state = solo_die_choice(seed)
    seat = state.actor
    tree = se.search(state, seat, 120, random.Random(4))
    top = sorted(tree.children, key=lambda t: (-tree.children[t].worth, t))
    pick = lookahead.rerank(tree, state, seat, random.Random(9), 3, 2, 20)
    assert pick in top[:3]
    assert lookahead.rerank(tree, state, seat, random.Random(9), 3, 2, 20) == pick
    assert lookahead.rerank(tree, state, seat, random.Random(9), 1, 2, 20) == top[0]


def test_hard_decisions_look_past_the_turn(monkeypatch):
    assert ai.LEVELS["hard"].lookahead
    calls = []
    original = lookahead.rerank

    def spy(*args):
        calls.append(args[4:7])
        return original(*args)

    monkeypatch.setattr(ai, "rerank", spy)
    state = solo_die_choice("look-hard")
    view = view_doc(state, state.actor)
    moves = ai.decide(view, "hard", 3)
    assert calls == [ai.LEVELS["hard"].lookahead]
    assert moves[0] in legal_moves(state)
    ai.decide(view, "medium", 3)
    assert len(calls) == 1                                   # medium does not


def test_the_look_ahead_never_reads_the_games_seed(monkeypatch):
    from tiletum import chance as engine_chance
    keys = []
    original = engine_chance.SeededSource.__init__

    def spy(self, seed, nonce):
        keys.append(seed)
        original(self, seed, nonce)

    state = solo_die_choice("look-secret")
    view = view_doc(state, state.actor)
    rng = random.Random(1)
    det = determinize(view, rng)
    tree = se.search(det, det.actor, 60, rng)
    monkeypatch.setattr(engine_chance.SeededSource, "__init__", spy)
    lookahead.rerank(tree, det, det.actor, random.Random(2), 2, 2, 10)
    assert keys and "look-secret" not in keys
    assert sample_seed(random.Random(2)) in keys             # the futures are the search's own
