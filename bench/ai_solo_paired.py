"""Paired solo benchmark for AI variants (a development tool; prints figures, not a test).

    python bench/ai_solo_paired.py --level hard --games 100 --procs 16 --variants base,fairs \
        [--variant mine=fair_plan_w:1.5,crest_plan_w:0.5] [--start 300] [--bot bishop]

Plays the same seeded solo games against the Cardinalbot (seeds named as bench/ai.py names them,
numbered from ``--start``) once per variant, ``--procs`` games side by side (one process each; a
``master`` decision's own processes come on top: give master ``procs:N`` in its variant and
``--procs`` so that their product is the cores). A variant is the level's ``ai.Settings`` with
fields replaced (bench/ai_variants.py: ``--variants`` names of its ``VARIANTS`` or ``.json``
files of weights, ``--variant name=field:value,...``); the first is the base of the paired
differences. Prints each game's scores, the AI's end state and the Fairs it attended, then per
variant the mean ± sd, wins, Fair attendance per round (of rounds 1-4, over the games) and the
decision time p50 / p95, and the paired difference against the first variant (mean ± standard
error).

Choose among variants on fresh seeds: 0-99 are bench/ai.py's own, 30-61 and 200-295 were used to
choose issue 16's variants (docs/notes/ai-tuning.md); issue 31's measurements start at 300.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import ai  # noqa: E402
import ai.tiletum.parallel  # noqa: E402
import tiletum  # noqa: E402
from games.tiletum import view_doc  # noqa: E402  (the pure one: the bench runs without the service's packages)
from bench.ai_variants import attendance_line, check, fairs_attended, parse_variants, quantile, settings_for  # noqa: E402
from cardinalbot.policy import next_moves  # noqa: E402
from tiletum.board import completed_buildings, crest_count, houses_on_map, pillars_on_map  # noqa: E402
from tiletum.game import play  # noqa: E402


def play_solo(settings, seed, bot, times, fairs=None, play_move=play):
    """One solo game of the AI (``settings``: a level's name or ``ai.Settings``) against the
    Cardinalbot at ``bot``; the decision times are appended to ``times``, the rounds whose Fair
    the AI attended to ``fairs``. Each of the game's moves is played by ``play_move`` (as
    ``tiletum.game.play``: bench/ai_vp_sources.py watches the moves through it)."""
    state, _ = tiletum.new_game(2, seed, {"solo": {"level": bot}})
    rng = random.Random(seed)
    calls = 0
    while state.phase != "over":
        seat = state.actor
        if seat == state.solo["bot"] and state.phase == "action":
            moves = next_moves(state, rng)
        else:
            t0 = time.perf_counter()
            moves = ai.decide(view_doc(state, seat), settings, f"{seed}:{calls}")
            times.append(time.perf_counter() - t0)
            calls += 1
        for m in moves:
            before = state
            _, state = play_move(state, seat, m, seed=seed)
            if fairs is not None and state.fairs_scored > before.fairs_scored:
                fairs.extend(fairs_attended(before, state, 1))
    return state


def one_game(job):
    """A worker's game; the figures printed and kept."""
    name, settings, seed, bot = job
    times, fairs = [], []
    try:
        s = play_solo(settings, seed, bot, times, fairs)
    finally:  # master's own worker processes end with the game: a run of master games then
        ai.tiletum.parallel.shutdown()  # exits when its last game is done (it hung at exit without this)
    p = s.seats[1]
    line = (f"{name[-10:]:>10} {seed[-3:]:>4} AI {p.score:4d} bot {s.seats[0].score:4d}  "
            f"supply H{p.houses} P{p.pillars} map H{houses_on_map(s, 1)} P{pillars_on_map(s, 1)} "
            f"res {sum(p.res):2d} crests {crest_count(p)} done {completed_buildings(p)} "
            f"cath {len(p.cathedrals)} contracts {len(p.contracts)} fairs {''.join(map(str, fairs)) or '-'}")
    return p.score, s.seats[0].score, s.winner == 1, times, fairs, line


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--level", "easy", "--games", "1", "--variants", "base"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="hard",
                    help="the level the variants start from (a name or iterations)")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--start", type=int, default=300, help="the first seed (fresh ones: 300 and up)")
    ap.add_argument("--bot", default="bishop", choices=("priest", "deacon", "bishop"))
    ap.add_argument("--variants", default="base",
                    help="comma-separated names (bench/ai_variants.py) or .json files")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=FIELD:VALUE,...",
                    help="a variant as an override of the level's settings (repeatable)")
    ap.add_argument("--procs", type=int, default=1, help="games played side by side (processes)")
    a = ap.parse_args(argv)
    level = int(a.level) if a.level.isdigit() else a.level
    try:
        variants = parse_variants(a.variants, a.variant)
        check(level, variants)
    except ValueError as e:
        ap.error(str(e))
    print(f"paired solo games: level {a.level} against the {a.bot}, seeds {a.start}-{a.start + a.games - 1}, "
          f"{a.procs} processes, {os.cpu_count()} CPUs; variants: "
          + "; ".join(f"{n} ({s or 'the preset'})" for n, s in variants.items()), flush=True)
    res = {}
    pool = ProcessPoolExecutor(a.procs) if a.procs > 1 else None
    for name, spec in variants.items():
        settings = settings_for(level, spec)
        t0 = time.perf_counter()
        jobs = [(name, settings, f"bench-ai-solo-{a.bot}-{i}", a.bot) for i in range(a.start,
                                                                                     a.start + a.games)]
        games = pool.map(one_game, jobs) if pool else map(one_game, jobs)
        mine, bots, wins, times, fairs = [], [], 0, [], []
        for score, bot, won, t, f, line in games:
            print(line, flush=True)
            mine.append(score)
            bots.append(bot)
            wins += won
            times += t
            fairs.append(f)
        res[name] = mine
        sd = statistics.stdev(mine) if len(mine) > 1 else 0
        print(f"== {name}: AI {statistics.mean(mine):.1f} ± {sd:.1f}  bot {statistics.mean(bots):.1f}  "
              f"wins {wins}/{a.games}  {attendance_line(fairs)}  decision p50 "
              f"{quantile(times, .5) * 1000:.0f} ms p95 {quantile(times, .95) * 1000:.0f} ms max "
              f"{max(times) * 1000:.0f} ms  "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    names = list(variants)
    base = res[names[0]]
    for name in names[1:]:
        d = [x - y for x, y in zip(res[name], base)]
        sd = statistics.stdev(d) if len(d) > 1 else 0
        print(f"== {name} - {names[0]}: {statistics.mean(d):+.1f} ± {sd / len(d) ** .5:.1f} (se)")
    if pool:
        pool.shutdown()


if __name__ == "__main__":
    main()
