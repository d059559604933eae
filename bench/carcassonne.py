"""Carcassonne engine benchmark (prints figures; not a test).

    python bench/carcassonne.py [--games K]

Measures (the fastest of ``--rounds`` rounds), on one core (a single process and thread):
  * complete random 4-player games per second (and moves per second), via
    carcassonne.playout.random_game (a uniformly random legal move each turn);
  * events replayed per second: the events of those games folded from scratch with replay();
  * random 2- and 5-player games per second.
Goal: >= 100 random 4-player games/s.

The machine may be shared: the rates are computed from this process's CPU time
(``time.process_time``), with the wall-clock time shown alongside.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from carcassonne.game import replay  # noqa: E402
from carcassonne.playout import random_game  # noqa: E402

GOAL_GAMES_4P = 100.0


def play_games(players: int, games: int, tag: str):
    logs, finals, moves = [], [], 0
    t0, w0 = time.process_time(), time.perf_counter()
    for i in range(games):
        g = random_game(players, f"bench-{tag}-{players}p-{i}")
        moves += g.moves
        logs.append(g.events)
        finals.append(g.state)
    return (time.process_time() - t0, time.perf_counter() - w0), moves, logs, finals


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "5", "--rounds", "1"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="4-player games per round (default 100)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the fastest is reported (default 3)")
    a = ap.parse_args(argv)
    play_games(4, 20, "warm")  # warm the caches (tile rotations, fitting rotations, cell moves)
    (t, wall), moves, logs, finals = min((play_games(4, a.games, "4") for _ in range(a.rounds)),
                                         key=lambda r: r[0][0])
    gps = a.games / t
    print(f"random 4-player games: {a.games} in {t:.2f}s CPU ({wall:.2f}s wall) = {gps:.1f} games/s, "
          f"{moves / t:,.0f} moves/s "
          f"(goal >= {GOAL_GAMES_4P:.0f} games/s: {'met' if gps >= GOAL_GAMES_4P else 'NOT met'})")
    events = sum(len(e) for e in logs)
    best = None
    for _ in range(a.rounds):
        t0, w0 = time.process_time(), time.perf_counter()
        again = [replay(e) for e in logs]
        run = (time.process_time() - t0, time.perf_counter() - w0)
        best = run if best is None or run[0] < best[0] else best
    t, wall = best
    assert all(x == y for x, y in zip(again, finals)), "replay differs from the played game"
    print(f"events replayed: {events:,} in {t:.2f}s CPU ({wall:.2f}s wall) = {events / t:,.0f} events/s")
    for players in (2, 5):
        n = max(a.games // 3, 10)
        (t, wall), moves, _, _ = play_games(players, n, str(players))
        print(f"random {players}-player games: {n} in {t:.2f}s CPU ({wall:.2f}s wall) = {n / t:.1f} games/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
