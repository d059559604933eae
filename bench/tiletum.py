"""Engine benchmark (prints figures; not a test).

    python bench/tiletum.py [--games K] [--quick]

Measures, on one core (a single process and thread):
  * complete random 4-player games per second (and moves per second), via tiletum.playout.random_game;
  * events replayed per second: the events of those games folded from scratch with replay()
    (how a game is loaded), and for comparison one event at a time with evolve_in_place (which also
    keeps undo history after every move, as evolve does);
  * random 2- and 3-player games per second.
Goals: >= 50 games/s for 4 players, >= 200,000 events/s replayed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# This file is called tiletum.py: keep its own folder off sys.path so that "import tiletum" finds
# the package (of this checkout), not this script.
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

from tiletum.game import evolve_in_place, replay  # noqa: E402
from tiletum.playout import random_game  # noqa: E402

GOAL_GAMES_4P = 50.0
GOAL_EVENTS = 200_000.0


def play_games(players: int, games: int, tag: str):
    """Play ``games`` random games: (seconds, total moves, list of event logs, final states)."""
    logs, finals, moves = [], [], 0
    t0 = time.perf_counter()
    for i in range(games):
        g = random_game(players, f"bench-{tag}-{players}p-{i}")
        moves += g.moves
        logs.append(g.events)
        finals.append(g.state)
    return time.perf_counter() - t0, moves, logs, finals


def replay_all(logs) -> tuple[float, list]:
    """Fold every log from scratch with replay(): (seconds, final states)."""
    t0 = time.perf_counter()
    out = [replay(events) for events in logs]
    return time.perf_counter() - t0, out


def stepwise_all(logs) -> float:
    """Fold every log one event at a time with evolve_in_place: seconds."""
    t0 = time.perf_counter()
    for events in logs:
        s = None
        for ev in events:
            s = evolve_in_place(s, ev)
    return time.perf_counter() - t0


def verdict(value: float, goal: float) -> str:
    return "PASS" if value >= goal else "BELOW"


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "5"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=None, metavar="K",
                    help="games per player count (default 100; 20 with --quick)")
    ap.add_argument("--quick", action="store_true", help="a short run (20 games per player count)")
    a = ap.parse_args(argv)
    k = a.games if a.games is not None else (20 if a.quick else 100)
    if k < 1:
        ap.error("--games must be at least 1")

    random_game(4, "bench-warmup")  # loads the component data, warms caches
    print(f"Tiletum engine benchmark: {k} games per player count, Python {sys.version.split()[0]}, "
          "one process, one thread (one core)")

    rows = []
    secs4, moves4, logs4, finals4 = play_games(4, k, "a")
    gps4 = k / secs4
    rows.append(("4-player random games", f"{gps4:,.1f} games/s", GOAL_GAMES_4P, gps4, "games/s"))
    rows.append(("4-player moves", f"{moves4 / secs4:,.0f} moves/s", None, None, None))

    n_events = sum(len(log) for log in logs4)
    secs_r, replayed = replay_all(logs4)
    eps = n_events / secs_r
    rows.append((f"replay ({n_events:,} events)", f"{eps:,.0f} events/s", GOAL_EVENTS, eps, "events/s"))
    step = n_events / stepwise_all(logs4)
    rows.append(("event by event (evolve_in_place)", f"{step:,.0f} events/s", None, None, None))
    mismatches = sum(1 for x, y in zip(replayed, finals4) if x != y)

    for players in (2, 3):
        secs, moves, _, _ = play_games(players, k, "c")
        figure = f"{k / secs:,.1f} games/s ({moves / secs:,.0f} moves/s)"
        rows.append((f"{players}-player random games", figure, None, None, None))

    width = max(len(r[0]) for r in rows)
    print()
    print(f"{'measure':<{width}}  {'figure':<32}  goal")
    print(f"{'-' * width}  {'-' * 32}  {'-' * 24}")
    for name, figure, goal, value, unit in rows:
        goal_txt = f">= {goal:,.0f} {unit}  {verdict(value, goal)}" if goal is not None else ""
        print(f"{name:<{width}}  {figure:<32}  {goal_txt}".rstrip())
    print()
    if mismatches:
        print(f"WARNING: {mismatches} replayed game(s) differ from the played final state")
        return 1
    print(f"replayed states match the played final states ({k} games)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
