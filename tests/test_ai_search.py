"""The AI's search (ai.tiletum.search: sequential halving at the root, max backup) and its look-ahead past
the turn (ai.tiletum.lookahead: the root's best few moves judged by the seat's next turn)."""
from __future__ import annotations

import importlib
import random

import pytest

import ai
import tiletum
from ai.tiletum import lookahead, player
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

    monkeypatch.setattr(player, "rerank", spy)
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


def _positions_kept(tree, path=()):
    """Every node of ``tree`` that keeps its position, with the moves from the root to it."""
    if tree.state is not None:
        yield path, tree
    for text, ch in (tree.children or {}).items():
        yield from _positions_kept(ch, (*path, text))


def _mid_game(players: int, seed: str, decisions: int):
    """A position ``decisions`` decisions of the AI's seat into a game of easy AIs (4 players) or
    of easy against the bishop (solo)."""
    opts = {"solo": {"level": "bishop"}} if players == 2 else {}
    state, _ = tiletum.new_game(players, seed, opts)
    rng, calls = random.Random(seed), 0
    while calls < decisions and state.phase != "over":
        seat = state.actor
        if state.solo is not None and seat == state.solo["bot"] and state.phase == "action":
            moves = next_moves(state, rng)
        else:
            moves = ai.decide(view_doc(state, seat), "easy", f"{seed}:{calls}")
            calls += 1
        for m in moves:
            _, state = play(state, seat, m, seed=seed)
    return state


@pytest.mark.parametrize("players,seed,decisions", [(2, "kept-1", 0), (2, "kept-2", 9), (2, "kept-3", 21),
                                                    (4, "kept-4", 5), (4, "kept-5", 30)])
def test_a_position_is_kept_in_the_tree_only_where_every_future_reaches_the_same(players, seed, decisions):
    """A node keeps its position (so that an iteration starts there, not at the root) only where
    no move from the root to it drew or rolled anything: replayed under another sampled future,
    the moves to it give exactly the position kept. Where a move draws, nothing below is kept."""
    state = _mid_game(players, seed, decisions)
    root = determinize(view_doc(state, state.actor), random.Random(0))
    tree = se.search(root, root.actor, 300, random.Random(2))
    kept = list(_positions_kept(tree))
    assert kept and kept[0][1] is tree and tree.state is root
    for path, node in kept:
        for other in ("another-future", "yet-another"):
            s = root.clone()
            for text in path:
                event = se.play_in_place(s, root.actor, se.moves_of(s)[text], other, trusted=True, undo=False)
                assert not event["chance"], path
            assert s.to_doc() == node.state.to_doc(), path
            if node.moves is not None:
                assert sorted(node.moves) == sorted(se.moves_of(s)), path


def test_nodes_below_a_draw_keep_no_position():
    """Taking a die can reveal (a Character, a Contract drawn to refill): the nodes below a move
    that drew keep no position, so their positions are played again in each sampled future."""
    found = False
    for i in range(12):
        state = _mid_game(2, f"drawn-{i}", 3 + i)
        root = determinize(view_doc(state, state.actor), random.Random(0))
        tree = se.search(root, root.actor, 200, random.Random(3))
        kept = {path for path, _ in _positions_kept(tree)}

        def walk(node, path):
            nonlocal found
            for text, ch in (node.children or {}).items():
                p = (*path, text)
                if ch.children and p not in kept and path in kept:
                    s = root.clone()
                    for t in path:
                        se.play_in_place(s, root.actor, se.moves_of(s)[t], "x", trusted=True, undo=False)
                    ev = se.play_in_place(s, root.actor, se.moves_of(s)[text], "x", trusted=True, undo=False)
                    assert ev["chance"], p       # a visited node keeps no position only below a draw
                    found = True
                    assert not any(q[:len(p)] == p for q in kept), p
                walk(ch, p)
        walk(tree, ())
    assert found, "no searched move drew in these positions: the test needs others"


def test_the_positions_kept_are_bounded_and_change_no_result(monkeypatch):
    """A long timed search (master) keeps at most ``KEEP_MAX`` positions; past the bound iterations
    replay their moves, and the tree is the same visit for visit and value for value."""
    state = _mid_game(2, "kept-bound", 4)
    root = determinize(view_doc(state, state.actor), random.Random(0))
    full = se.search(root, root.actor, 300, random.Random(5))
    monkeypatch.setattr(se, "KEEP_MAX", 7)
    small = se.search(root, root.actor, 300, random.Random(5))
    kept = list(_positions_kept(small))
    assert small.kept == 7 and len(kept) == 8          # the root's own position and 7 more
    assert full.kept > 7

    def same(a, b):
        assert (a.n, a.w, a.best) == (b.n, b.w, b.best)
        assert sorted(a.children or ()) == sorted(b.children or ())
        for t in a.children or ():
            same(a.children[t], b.children[t])
    same(full, small)
