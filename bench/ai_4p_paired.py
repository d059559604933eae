"""Paired 4-player benchmark of an AI variant against the base (a development tool; prints
figures, not a test).

    python bench/ai_4p_paired.py --level hard --games 24 --start 500 --procs 2 \
        --variant cand=learned_w:1,learned_file:var/train/m.json [--others medium]

Each seed is played twice: the variant in one seat and the base (the level's preset) in the seat
across the table (two seats on), the other two seats at ``--others``; then the same seed with the
two swapped, so that the seats' order, the tiles and the dice are the same for both (seeds
``bench-ai-4p-<i>``, numbered from ``--start``; the variant's seat rotates with the seed: seed
i puts it first in seat ``i mod 4``). Prints each game, then the variant's and the base's mean
score, their wins (the game's winner) and their place against each other, and the paired
difference (variant less base over the two games of a seed, mean ± standard error over seeds),
with the decision times of the two.

A variant is the level's ``ai.Settings`` with fields replaced (``--variant name=field:value,...``
as in bench/ai_solo_paired.py, or a name of bench/ai_variants.py's ``VARIANTS``).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import ai  # noqa: E402
import tiletum  # noqa: E402
from games.tiletum import view_doc  # noqa: E402
from bench.ai_variants import check, parse_variants, quantile, settings_for  # noqa: E402
from tiletum.game import play  # noqa: E402


def one_game(job):
    """One 4-player game: ``players`` the settings of each seat; the scores, the winner and the
    decision times of the two measured seats (``a``, ``b``)."""
    seed, players, a, b = job
    state, _ = tiletum.new_game(4, seed)
    calls, times = 0, {a: [], b: []}
    while state.phase != "over":
        seat = state.actor
        t0 = time.perf_counter()
        moves = ai.decide(view_doc(state, seat), players[seat], f"{seed}:{calls}")
        if seat in times:
            times[seat].append(time.perf_counter() - t0)
        calls += 1
        for m in moves:
            _, state = play(state, seat, m, seed=seed)
    return [q.score for q in state.seats], state.winner, times


# The smallest run, which `make soak` makes (tests/test_bench.py).
QUICK_ARGS = ["--level", "easy", "--others", "2", "--games", "1", "--variant", "cand=explore:1"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="hard", help="the base: a level's name or iterations")
    ap.add_argument("--others", default="medium", help="the level of the other two seats")
    ap.add_argument("--games", type=int, default=8, help="seeds (each played twice)")
    ap.add_argument("--start", type=int, default=500, help="the first seed")
    ap.add_argument("--variants", default="", help="a name of bench/ai_variants.py or a .json file")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=FIELD:VALUE,...")
    ap.add_argument("--procs", type=int, default=1, help="games played side by side (processes)")
    a = ap.parse_args(argv)
    level = int(a.level) if a.level.isdigit() else a.level
    others = ai.resolve(int(a.others) if a.others.isdigit() else a.others)
    try:
        variants = parse_variants(a.variants, a.variant) if (a.variants or a.variant) else {}
        check(level, variants)
    except ValueError as e:
        ap.error(str(e))
    if len(variants) != 1:
        ap.error("name one variant (--variant name=field:value,... or --variants name)")
    (name, spec), = variants.items()
    base, cand = settings_for(level, ""), settings_for(level, spec)
    print(f"paired 4-player games: {name} ({spec}) against {a.level}, the others at {a.others}, seeds "
          f"{a.start}-{a.start + a.games - 1} (each twice, the two swapped), {a.procs} processes", flush=True)
    jobs = []
    for i in range(a.start, a.start + a.games):
        s1, s2 = i % 4, (i + 2) % 4
        for c_seat, b_seat in ((s1, s2), (s2, s1)):
            players = [others] * 4
            players[c_seat], players[b_seat] = cand, base
            jobs.append((f"bench-ai-4p-{i}", players, c_seat, b_seat))
    t0 = time.perf_counter()
    pool = ProcessPoolExecutor(a.procs) if a.procs > 1 else None
    results = list(pool.map(one_game, jobs) if pool else map(one_game, jobs))
    if pool:
        pool.shutdown()
    c_scores, b_scores, c_wins, b_wins, c_ahead, diffs, c_t, b_t = [], [], 0, 0, 0, [], [], []
    for k in range(0, len(jobs), 2):
        pair = 0.0
        for (seed, _, cs, bs), (scores, winner, times) in zip(jobs[k:k + 2], results[k:k + 2]):
            print(f"{seed.rsplit('-', 1)[1]:>5} {name} seat {cs} {scores[cs]:4d}  "
                  f"base seat {bs} {scores[bs]:4d}  "
                  f"others {' '.join(str(x) for j, x in enumerate(scores) if j not in (cs, bs))}  "
                  f"winner seat {winner}", flush=True)
            c_scores.append(scores[cs])
            b_scores.append(scores[bs])
            c_wins += winner == cs
            b_wins += winner == bs
            c_ahead += scores[cs] > scores[bs]
            c_t += times[cs]
            b_t += times[bs]
            pair += scores[cs] - scores[bs]
        diffs.append(pair / 2)
    n = len(c_scores)
    se = statistics.stdev(diffs) / len(diffs) ** .5 if len(diffs) > 1 else 0.0
    print(f"== {name}: {statistics.mean(c_scores):.1f}  base: {statistics.mean(b_scores):.1f}  wins {name} "
          f"{c_wins}/{n}, base {b_wins}/{n}; {name} ahead of base in {c_ahead}/{n}  decision p50 / p95 "
          f"{name} {quantile(c_t, .5) * 1000:.0f} / {quantile(c_t, .95) * 1000:.0f} ms, base "
          f"{quantile(b_t, .5) * 1000:.0f} / {quantile(b_t, .95) * 1000:.0f} ms  "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"== {name} - base: {statistics.mean(diffs):+.1f} ± {se:.1f} (se, over {len(diffs)} seeds)",
          flush=True)


if __name__ == "__main__":
    main()
