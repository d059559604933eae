"""Determinized Monte Carlo tree search over the seat's own turn.

The tree holds the seat's decisions from the current position to the end of its turn (or of
its King-track decision): every node is a sequence of the seat's moves, keyed by their notation.
Each iteration samples one future (a chance seed, ``ai.tiletum.view.sample_seed``), so a move that
draws or rolls leads to a different position in each iteration (information-set MCTS: a child is
selected only among the moves legal in this iteration's position). An iteration walks down by
UCB1, and at the first node not yet expanded it plays every legal move once and scores each
resulting position with the heuristic evaluation (``ai.tiletum.evaluate.value``); the best of them is
backed up the path. So the root's first iteration is already a one-move greedy choice, and
more iterations look deeper into the turn: which die, which Action, which Tasks, in which order.

A node is worth the best value backed up through it: the turn is the seat's own plan, so a move
is as good as the best line found after it, not the mean of every line tried (the mean held a move
down by the poor lines explored on the way; measured, docs/notes/ai-tuning.md). The root's
iterations are shared among its moves by sequential halving (``search``; plain UCB1 there lost).
The exploration constant and the evaluation's weights come from the ``ai.settings.Settings``
passed in.

The search stops at the end of the seat's turn: the other seats' replies are not searched (the
evaluation scores the position as the seat's estimated final VP). Everything is deterministic
for a given position, iteration budget and ``random.Random``.
"""
from __future__ import annotations

import math
import random
import time

from tiletum.game import legal, play_in_place
from tiletum.notation import Move
from tiletum.state import GameState

from .evaluate import value
from ..settings import DEFAULT, Settings
from .view import sample_seed


# At most this many positions kept in one search's tree (some 5 KB each): beyond it an iteration
# replays the moves from the deepest position kept, so a long timed search (master) stays in bounds
KEEP_MAX = 6000


class Node:
    __slots__ = ("n", "w", "best", "children", "state", "moves", "kept")

    def __init__(self, n: int = 0, w: float = 0.0):
        self.n, self.w = n, w
        self.best = w if n else float("-inf")
        self.children: dict[str, Node] | None = None
        # The node's position and its legal moves, kept where they are the same in every
        # iteration: no move from the root to here drew or rolled anything, so the sampled future
        # cannot change them. An iteration then starts from the deepest such node on its path
        # rather than replaying the moves to it from the root (the results are the same; each
        # decision's tree, and the positions in it, are dropped once the decision is made).
        self.state: GameState | None = None
        self.moves: dict[str, Move] | None = None
        self.kept = 0                   # (the root's) positions kept in the tree so far

    @property
    def worth(self) -> float:
        """What the node is worth to the search: the best value backed up through it."""
        return self.best

    def merge(self, other: Node) -> None:
        """Add ``other``'s statistics to this node's, child by child (root-parallel search,
        ``ai.tiletum.parallel``): visits and values summed, the best the better of the two."""
        self.n += other.n
        self.w += other.w
        self.best = max(self.best, other.best)
        if other.children:
            if self.children is None:
                self.children = {}
            for text, ch in other.children.items():
                mine = self.children.get(text)
                if mine is None:
                    self.children[text] = ch
                else:
                    mine.merge(ch)

    def pruned(self, min_visits: int = 2) -> Node:
        """A copy of the tree with every child of the root but, below it, only the nodes visited
        at least ``min_visits`` times (and each kept node's best child): what a worker sends back."""
        def copy(node: Node, depth: int) -> Node:
            out = Node(node.n, node.w)
            out.best = node.best
            if node.children:
                kids = node.children
                top = max(kids, key=lambda t: (kids[t].best, t))
                out.children = {t: copy(ch, depth + 1) for t, ch in kids.items()
                                if depth == 0 or ch.n >= min_visits or t == top}
            return out
        return copy(self, 0)


def turn_key(s: GameState) -> tuple:
    return (s.round, s.phase, s.cycle, s.turn_pos)


def in_turn(s: GameState, seat: int, key: tuple) -> bool:
    return s.phase != "over" and s.actor == seat and turn_key(s) == key


def moves_of(s: GameState) -> dict[str, Move]:
    """The legal moves, by notation (never ``undo``, which ``legal`` does not list)."""
    return {str(m): m for m in legal(s)}


def _expand(node: Node, s: GameState, seat: int, moves: dict[str, Move], seed: str, w: Settings) -> float:
    """Play each legal move not yet a child of ``node`` on a copy of ``s`` and score it.
    Returns the best score found."""
    if node.children is None:
        node.children = {}
    best = float("-inf")
    for text in sorted(moves):
        if text in node.children:
            continue
        c = s.clone()
        play_in_place(c, seat, moves[text], seed, trusted=True, undo=False)
        v = value(c, seat, w)
        node.children[text] = Node(1, v)
        best = max(best, v)
    return best


def _select(node: Node, legal_texts, explore: float) -> str:
    log_n = math.log(max(node.n, 1))
    best, best_text = float("-inf"), None
    for text in sorted(legal_texts):
        ch = node.children[text]
        u = ch.worth + explore * math.sqrt(log_n / ch.n)
        if u > best:
            best, best_text = u, text
    return best_text


def _iterate(tree: Node, root: GameState, seat: int, key: tuple, rng: random.Random, w: Settings,
             first: str | None = None) -> None:
    """One iteration: a sampled future, down by UCB1 (through the root's child ``first`` if
    given) to the first node not yet expanded, which is expanded; the best value backed up."""
    seed = sample_seed(rng)
    if tree.state is None:
        tree.state = root           # never changed: a move is played on a copy (``own``)
    s, own = tree.state, False      # own: s is this iteration's copy, which a move may change
    node, path = tree, [tree]
    while True:
        if not in_turn(s, seat, key):
            v = value(s, seat, w)
            break
        moves = node.moves
        if moves is None:
            moves = moves_of(s)
            if node.state is not None:
                node.moves = moves
        if node.children is None or any(t not in node.children for t in moves):
            v = _expand(node, s, seat, moves, seed, w)
            break
        text = first if first is not None and node is tree else _select(node, moves, w.explore)
        child = node.children[text]
        if child.state is not None:
            s, own = child.state, False
        else:
            if not own:
                s, own = s.clone(), True
            drew = play_in_place(s, seat, moves[text], seed, trusted=True, undo=False)["chance"]
            if node.state is not None and not drew and tree.kept < KEEP_MAX:   # the same in every future
                child.state, own = s, False
                tree.kept += 1
        node = child
        path.append(node)
    for nd in path:
        nd.n += 1
        nd.w += v
        if v > nd.best:
            nd.best = v


def search(root: GameState, seat: int, iterations: int, rng: random.Random, w: Settings = DEFAULT,
           deadline: float | None = None) -> Node:
    """Run ``iterations`` iterations from ``root`` (where ``seat`` is to act); return the tree.
    With a ``deadline`` (``time.perf_counter()``) it stops there even if iterations are left.

    The first iteration expands the root. The rest are shared among the root's moves by
    sequential halving (Karnin, Koren and Somekh 2013): in each round every move still in the
    running gets the same number of iterations below it, then the better half (by value) goes on.
    Every move at the root, every die above all, is thus looked into as deeply as its rivals
    before one is preferred: UCB1 alone locked onto whichever move was first searched deeper,
    since a move searched a few moves further always looks better than one scored a move deep."""
    key = turn_key(root)
    tree = Node()
    _iterate(tree, root, seat, key, rng, w)
    budget = max(1, iterations) - 1
    alive = sorted(tree.children or ())
    if len(alive) > 1:
        rounds = math.ceil(math.log2(len(alive)))
        while budget > 0 and len(alive) > 1:
            per = max(1, budget // (len(alive) * rounds))
            for text in alive:
                for _ in range(per):
                    if budget <= 0:
                        break
                    if deadline is not None and time.perf_counter() > deadline:
                        return tree
                    _iterate(tree, root, seat, key, rng, w, text)
                    budget -= 1
            rounds = max(1, rounds - 1)
            alive = sorted(alive, key=lambda t: (-tree.children[t].worth, t))[:math.ceil(len(alive) / 2)]
    for _ in range(budget):
        if deadline is not None and time.perf_counter() > deadline:
            break
        _iterate(tree, root, seat, key, rng, w)
    return tree


def best_child(node: Node) -> str:
    """The move to play: the best value (``Node.worth``, the best line under max backup) among the
    children visited at least half as often as the most visited one (ties by notation)."""
    top = max(ch.n for ch in node.children.values())
    ok = sorted((text, ch.worth) for text, ch in node.children.items() if ch.n * 2 >= top)
    return max(ok, key=lambda x: x[1])[0]
