"""Look past the turn: the root's best few moves judged by what the seat's next turn makes of them.

The turn search (``ai.tiletum.search``) scores a line by the evaluation where the turn ends, so a move
that pays only on a later turn (the Architect moved next to a Cathedral, Stone kept for it, a
die left for the next turn) is worth what the evaluation happens to see in it. Here each of the
``k`` best moves at the root is played on along the best line the search found after it (and,
where that line stops or no longer applies, by the one-move best choice) to the end of the turn;
the other seats then play until the seat's next turn (by a random legal move each: a model of
which dice and spaces they take, not of how well they play); and a small search of that next
turn gives the value: the best the seat can reach by its end. Each move is judged on the same
sampled futures (common random numbers), so the comparison is paired. Pure and deterministic
for a given position and ``random.Random``, like the search. ``rerank_totals`` is the part a
worker of the root-parallel search (``ai.tiletum.parallel``) runs on futures of its own, until a deadline.
"""
from __future__ import annotations

import random
import time

from tiletum.game import play_in_place
from tiletum.state import GameState

from .evaluate import turn_end_correction, value
from .search import Node, in_turn, moves_of, search, turn_key
from ..settings import DEFAULT, Settings
from .view import sample_seed

MAX_MOVES = 600   # a safety bound on the moves played between this turn and the next


def best_line(node: Node) -> list[str]:
    """The best line found below ``node``: each step the child of the best value (ties by notation)."""
    out = []
    while node.children:
        text = max(sorted(node.children), key=lambda t: node.children[t].worth)
        out.append(text)
        node = node.children[text]
    return out


def _greedy_move(s: GameState, seat: int, seed: str, w: Settings = DEFAULT):
    best, best_move = float("-inf"), None
    for _, m in sorted(moves_of(s).items()):
        c = s.clone()
        play_in_place(c, seat, m, seed, trusted=True, undo=False)
        v = value(c, seat, w)
        if v > best:
            best, best_move = v, m
    return best_move


def finish_turn(s: GameState, seat: int, key: tuple, seed: str, line: list[str],
                w: Settings = DEFAULT) -> None:
    """Play ``line`` on ``s`` while it is legal and the turn lasts, then the one-move best choice
    to the end of the turn (in place)."""
    for text in line:
        if not in_turn(s, seat, key):
            return
        moves = moves_of(s)
        if text not in moves:
            break
        play_in_place(s, seat, moves[text], seed, trusted=True, undo=False)
    for _ in range(MAX_MOVES):
        if not in_turn(s, seat, key):
            return
        play_in_place(s, seat, _greedy_move(s, seat, seed, w), seed, trusted=True, undo=False)


def to_next_turn(s: GameState, seat: int, key: tuple, seed: str, rng: random.Random,
                 w: Settings = DEFAULT) -> bool:
    """After the seat's turn ``key``, play the other seats (a random legal move each) and the
    seat's own decisions between its turns (the one-move best choice) until the seat's next turn
    starts (which may be at once: the last to play in a round can be the first of the next);
    False if the game ended."""
    for _ in range(MAX_MOVES):
        if s.phase == "over":
            return False
        if s.actor == seat and s.phase == "action" and turn_key(s) != key:
            return True
        if s.actor == seat:
            play_in_place(s, seat, _greedy_move(s, seat, seed, w), seed, trusted=True, undo=False)
        else:
            moves = sorted(moves_of(s).items())
            play_in_place(s, s.actor, moves[rng.randrange(len(moves))][1], seed, trusted=True, undo=False)
    return False


def next_turn(s: GameState, seat: int, key: tuple, seed: str, iterations: int,
              w: Settings = DEFAULT) -> float:
    """What the seat's next turn makes of ``s``, where its turn ``key`` has ended, on the sampled
    future ``seed``: the other seats played to that turn (``to_next_turn``, on ``s`` in place), then
    the best value a search of ``iterations`` iterations reaches by its end (the value at the end of
    the game, if it ends first)."""
    sub = random.Random(seed)
    if to_next_turn(s, seat, key, seed, sub, w):
        return search(s, seat, iterations, sub, w).best
    return value(s, seat, w)


def next_turn_value(s: GameState, seat: int, key: tuple, seeds, iterations: int,
                    w: Settings = DEFAULT) -> float:
    """The mean of :func:`next_turn` over the sampled futures ``seeds`` (``s`` unchanged): the
    target of a learned model of kind ``next_turn`` (``tools/train_eval.py --target next_turn``)."""
    return sum(next_turn(s.clone(), seat, key, seed, iterations, w) for seed in seeds) / len(seeds)


def ranked_lines(tree: Node, k: int) -> list[tuple[str, list[str]]]:
    """The ``k`` best root moves of ``tree`` (by value, ties by notation), each with the best line
    found after it."""
    ranked = sorted(tree.children.items(), key=lambda x: (-x[1].worth, x[0]))[:k]
    return [(text, [text, *best_line(node)]) for text, node in ranked]


def rerank_totals(lines: list[tuple[str, list[str]]], root: GameState, seat: int, seeds, iterations: int,
                  w: Settings = DEFAULT, deadline: float | None = None) -> tuple[list[float], int]:
    """Each line's next turn summed over the sampled futures ``seeds`` (every line on the same
    futures), and how many futures were summed: with a ``deadline`` it starts a future only if the
    last one took less than the time left, and a future the deadline cuts short is left out.
    Where the learned term counts only where the turn ends (``w.learned_where`` "turn_end"), each
    line's value is the next turn's plus that term at the position where this turn ended
    (``evaluate.turn_end_correction``)."""
    key = turn_key(root)
    totals = [0.0] * len(lines)
    done = 0
    took = 0.0
    for seed in seeds:
        if deadline is not None and time.perf_counter() + took > deadline:
            break
        t0 = time.perf_counter()
        row = []
        for _, line in lines:
            if deadline is not None and time.perf_counter() > deadline:
                return totals, done
            s = root.clone()
            finish_turn(s, seat, key, seed, line, w)
            extra = turn_end_correction(s, seat, w)   # the learned term where it counts here only
            row.append(next_turn(s, seat, key, seed, iterations, w) + extra)
        totals = [t + v for t, v in zip(totals, row)]
        done += 1
        took = time.perf_counter() - t0
    return totals, done


def rerank(tree: Node, root: GameState, seat: int, rng: random.Random, k: int, samples: int,
           iterations: int, w: Settings = DEFAULT) -> str:
    """The root move, among the ``k`` best of ``tree``, whose next turn is worth the most on
    ``samples`` sampled futures (a next-turn search of ``iterations`` iterations each)."""
    lines = ranked_lines(tree, k)
    if len(lines) < 2:
        return lines[0][0]
    seeds = [sample_seed(rng) for _ in range(samples)]
    totals, _ = rerank_totals(lines, root, seat, seeds, iterations, w)
    return pick(lines, totals)


def pick(lines: list[tuple[str, list[str]]], totals: list[float]) -> str:
    """The line of the highest total (the first of equal ones)."""
    best, best_text = float("-inf"), None
    for (text, _), total in zip(lines, totals):
        if total > best:
            best, best_text = total, text
    return best_text
