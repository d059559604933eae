"""The Carcassonne AI's strength and speed (docs/ai.md, "Carcassonne"): seeded 2-player games
between two AI levels with the seats swapped (each seed is played twice, the two levels
exchanging seats, so the first player's advantage cancels), printing the first level's wins, its
mean score difference +- standard error (over seeds, each seed the mean of its two games), and
the decision time p50/p95 of every level. Not a timed test: figures to compare side by side.

    python bench/carcassonne_ai.py                          # the standard table (3 pairings)
    python bench/carcassonne_ai.py --pair easy hard --seeds 10
    python bench/carcassonne_ai.py --pair easy random --seeds 4
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
TIMES: dict[str, list[float]] = {}   # level -> decision times (s), over everything run


def one_game(seed: str, policies: list[str]) -> list[int]:
    state, _ = G.new_game(len(policies), seed, {})
    rng = random.Random(seed)
    while not G.is_over(state):
        seat = state.actor
        level = policies[seat]
        if level == "random":
            move = str(random_move(state, rng))
        else:
            t = time.perf_counter()
            move = ai.decide(G.view(state, seat), level, f"{seed}:{state.version}")[0]
            TIMES.setdefault(level, []).append(time.perf_counter() - t)
        _, state = G.play(state, seat, move, seed)
    return list(state.scores)


def pairing(a: str, b: str, seeds: int, first: int = 0) -> dict:
    """``a`` against ``b``: each seed twice, ``a`` first and then second. Returns the figures."""
    diffs, wins, losses, ties, per_seed = [], 0, 0, 0, []
    for i in range(first, first + seeds):
        seed = f"bench-cai-2-{i}"
        x = one_game(seed, [a, b])
        y = one_game(seed, [b, a])
        pair = [x[0] - x[1], y[1] - y[0]]
        for d in pair:
            wins += d > 0
            losses += d < 0
            ties += d == 0
        diffs += pair
        per_seed.append(statistics.mean(pair))
        print(f"  seed {i}: {a} first {x}, {b} first {y}", file=sys.stderr, flush=True)
    se = statistics.stdev(per_seed) / len(per_seed) ** 0.5 if len(per_seed) > 1 else float("nan")
    return {"a": a, "b": b, "games": len(diffs), "wins": wins, "losses": losses, "ties": ties,
            "diff": statistics.mean(per_seed), "se": se}


def line(r: dict) -> str:
    return (f"{r['a']:>6} vs {r['b']:<6} ({r['games']} games, seats swapped): {r['a']} wins {r['wins']}, "
            f"{r['b']} wins {r['losses']}, ties {r['ties']}; score difference {r['diff']:+5.1f} +- "
            f"{r['se']:.1f}")


def times_table() -> str:
    out = []
    for level, ts in sorted(TIMES.items(), key=lambda kv: ["easy", "medium", "hard"].index(kv[0])
                            if kv[0] in ("easy", "medium", "hard") else 9):
        ts = sorted(ts)
        p = lambda q: 1000 * ts[min(len(ts) - 1, int(len(ts) * q))]  # noqa: E731
        out.append(f"{level:>6}: decision p50 {p(0.5):.0f} ms, p95 {p(0.95):.0f} ms, max {p(1.0):.0f} ms "
                   f"({len(ts)} decisions)")
    return "\n".join(out)


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--pair", "easy", "random", "--seeds", "1"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", nargs=2, metavar=("A", "B"), help="one pairing only (a level or 'random')")
    ap.add_argument("--seeds", type=int, default=10, help="seeds per pairing (two games each)")
    ap.add_argument("--first", type=int, default=0, help="the first seed number")
    a = ap.parse_args()
    pairs = [tuple(a.pair)] if a.pair else [("medium", "easy"), ("hard", "easy"), ("hard", "medium")]
    for x, y in pairs:
        print(line(pairing(x, y, a.seeds, a.first)), flush=True)
    print(times_table())


if __name__ == "__main__":
    main()
