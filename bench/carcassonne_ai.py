"""The Carcassonne AI's strength and speed (docs/ai.md, "Carcassonne"): seeded games of one AI
seat (seat 0) against the others at a given policy, printing mean +- sd of scores, wins and the
decision time p50/p95 of the AI seat. Not a timed test: figures to compare side by side.

    python bench/carcassonne_ai.py                     # the standard table
    python bench/carcassonne_ai.py --level hard --opponent easy --players 2 --games 10
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ai  # noqa: E402
import games  # noqa: E402
from carcassonne.rules import random_move  # noqa: E402

G = games.get("carcassonne")


def one_game(players: int, seed: str, policies: list[str]) -> tuple[list[int], list[float]]:
    state, _ = G.new_game(players, seed, {})
    rng = random.Random(seed)
    times: list[float] = []
    while not G.is_over(state):
        seat = state.actor
        if policies[seat] == "random":
            move = str(random_move(state, rng))
        else:
            t = time.perf_counter()
            move = ai.decide(G.view(state, seat), policies[seat], f"{seed}:{state.version}")[0]
            if seat == 0:
                times.append(time.perf_counter() - t)
        _, state = G.play(state, seat, move, seed)
    return list(state.scores), times


def run(level: str, opponent: str, players: int, n: int) -> str:
    mine, best_other, wins, times = [], [], 0, []
    for i in range(n):
        scores, t = one_game(players, f"bench-cai-{players}-{i}", [level] + [opponent] * (players - 1))
        mine.append(scores[0])
        best_other.append(max(scores[1:]))
        wins += scores[0] > max(scores[1:])
        times += t
        print(f"  game {i + 1}/{n}: {scores}", file=sys.stderr, flush=True)
    times.sort()
    p = lambda q: 1000 * times[min(len(times) - 1, int(len(times) * q))]  # noqa: E731
    return (f"{level:>6} vs {players - 1} x {opponent:<6} ({players}p, {n} games): AI {statistics.mean(mine):5.1f} "
            f"+- {statistics.pstdev(mine):4.1f}, best other {statistics.mean(best_other):5.1f}; wins {wins}/{n}; "
            f"decision p50 {p(0.5):.0f} ms p95 {p(0.95):.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--level")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=6)
    a = ap.parse_args()
    if a.level:
        print(run(a.level, a.opponent, a.players, a.games))
        return
    for level, opponent, players, n in [("easy", "random", 2, a.games), ("easy", "random", 4, a.games),
                                        ("medium", "easy", 2, a.games), ("hard", "easy", 2, a.games),
                                        ("hard", "medium", 2, a.games), ("hard", "easy", 5, max(2, a.games // 3))]:
        print(run(level, opponent, players, n), flush=True)


if __name__ == "__main__":
    main()
