"""The Pillars of the Earth AI's strength and speed (docs/ai.md, "The Pillars of the Earth"):
seeded games between two AI levels (or ``random``, uniformly random legal moves) with the seats
swapped (each seed is played twice, the two levels exchanging seats, so the first player's
advantage cancels), printing the first level's wins, its mean VP difference +- standard error
(over seeds, each seed the mean of its two games; with more players the difference is against
the other level's seat) and the decision time p50/p95 of every level. A game is won by the
better place (VP, then gold). Single process; not a timed test: figures to compare side by side.

    python bench/pillars_ai.py                               # the standard table (3 pairings)
    python bench/pillars_ai.py --pair hard medium --seeds 10
    python bench/pillars_ai.py --pair easy random --players 4 --others random
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
from pillars.playout import random_move  # noqa: E402

G = games.get("pillars")
TIMES: dict[str, list[float]] = {}   # level -> decision times (s), over everything run
ORDER = ["easy", "medium", "hard", "master"]


def one_game(seed: str, policies: list[str]) -> tuple[list[int], list[int]]:
    """A game with ``policies[seat]`` at each seat: the final VP and places (1 best, shared ties)."""
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
    return list(state.vp), G.places(state)


def pairing(a: str, b: str, seeds: int, first: int = 0, players: int = 2, others: str = "random") -> dict:
    """``a`` against ``b``: each seed twice, ``a`` in seat 0 and ``b`` in seat 1, then swapped; with
    more than two players the other seats play ``others``. Returns the figures."""
    diffs, wins, losses, ties, per_seed = [], 0, 0, 0, []
    rest = [others] * (players - 2)
    for i in range(first, first + seeds):
        seed = f"bench-pai-{players}-{i}"
        x, xp = one_game(seed, [a, b, *rest])
        y, yp = one_game(seed, [b, a, *rest])
        pair = [x[0] - x[1], y[1] - y[0]]
        for pa, pb in ((xp[0], xp[1]), (yp[1], yp[0])):   # a's place against b's
            wins += pa < pb
            losses += pa > pb
            ties += pa == pb
        diffs += pair
        per_seed.append(statistics.mean(pair))
        print(f"  seed {i}: {a} in seat 0 {x}, {b} in seat 0 {y}", file=sys.stderr, flush=True)
    se = statistics.stdev(per_seed) / len(per_seed) ** 0.5 if len(per_seed) > 1 else float("nan")
    return {"a": a, "b": b, "games": len(diffs), "wins": wins, "losses": losses, "ties": ties,
            "diff": statistics.mean(per_seed), "se": se, "seeds": (first, first + seeds - 1),
            "players": players}


def line(r: dict) -> str:
    return (f"{r['a']:>6} vs {r['b']:<6} ({r['players']} players, seeds {r['seeds'][0]}-{r['seeds'][1]}, "
            f"{r['games']} games, seats swapped): {r['a']} wins {r['wins']}, {r['b']} wins {r['losses']}, "
            f"ties {r['ties']}; VP difference {r['diff']:+5.1f} +- {r['se']:.1f}")


def times_table() -> str:
    def p(ts: list[float], q: float) -> float:
        return 1000 * ts[min(len(ts) - 1, int(len(ts) * q))]

    out = []
    for level, ts in sorted(TIMES.items(), key=lambda kv: ORDER.index(kv[0]) if kv[0] in ORDER else 9):
        ts = sorted(ts)
        out.append(f"{level:>6}: decision p50 {p(ts, 0.5):.0f} ms, p95 {p(ts, 0.95):.0f} ms, "
                   f"max {p(ts, 1.0):.0f} ms "
                   f"({len(ts)} decisions)")
    return "\n".join(out)


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--pair", "easy", "random", "--seeds", "1"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", nargs=2, metavar=("A", "B"), help="one pairing only (a level or 'random')")
    ap.add_argument("--seeds", type=int, default=10, help="seeds per pairing (two games each)")
    ap.add_argument("--first", type=int, default=0, help="the first seed number")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game")
    ap.add_argument("--others", default="random", help="the level of the seats beyond the two compared")
    a = ap.parse_args()
    pairs = [tuple(a.pair)] if a.pair else [("easy", "random"), ("medium", "easy"), ("hard", "medium")]
    for x, y in pairs:
        print(line(pairing(x, y, a.seeds, a.first, a.players, a.others)), flush=True)
    print(times_table())


if __name__ == "__main__":
    main()
