"""Paired solo benchmark for AI evaluation variants (a development tool; prints figures, not a test).

    python bench/ai_solo_paired.py --level hard --games 32 --variants base,nolook [--start 200] [--procs 2]

Plays the same seeded solo games against the Cardinalbot (seeds named as bench/ai.py names them,
numbered from ``--start``) once per variant. A variant is a name in ``VARIANTS`` below: a
function that sets module-level weights of ``ai.evaluate`` before its games (``base`` leaves them
as they are; ``old`` is the evaluation before issue 16's second round); a script may add its own
to ``VARIANTS`` and call ``main()``. Prints each game's scores and the AI's end state (Houses and
Pillars left in the supply and on the map, Resources unspent, Crests, Completed Buildings,
Cathedrals, Contracts), then per variant the mean ± sd, wins and decision times, and the paired
difference against the first variant (mean ± standard error).

Choose among variants on fresh seeds (``--start 200`` and up): seeds 30-61 were used to choose the
third round's variants and flatter them, and 0-99 are bench/ai.py's own (docs/ai.md, fourth round).
"""
from __future__ import annotations

import argparse
import importlib
import multiprocessing
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import ai  # noqa: E402
import ai.evaluate as ev  # noqa: E402
se = importlib.import_module("ai.search")   # not `import ai.search`: ai re-exports search()
import engine  # noqa: E402
from application.game_service import view_doc  # noqa: E402
from cardinalbot.policy import next_moves  # noqa: E402
from engine.board import completed_buildings, crest_count, houses_on_map, pillars_on_map  # noqa: E402
from engine.game import play  # noqa: E402

_DEFAULTS = {}
_LEVELS = dict(ai.LEVELS)
_LOOKAHEAD = dict(ai.LOOKAHEAD)


def _save(mod, names):
    for n in names:
        _DEFAULTS.setdefault((mod, n), getattr(mod, n))


def _reset():
    for (mod, n), v in _DEFAULTS.items():
        setattr(mod, n, v)
    ai.LEVELS.update(_LEVELS)
    ai.LOOKAHEAD.clear()
    ai.LOOKAHEAD.update(_LOOKAHEAD)


def _set(mod, **kw):
    _save(mod, kw)
    for k, v in kw.items():
        setattr(mod, k, v)


VARIANTS = {
    "base": lambda: None,
    "ucb": lambda: _set(se, ROOT_HALVING=False),
    "mean": lambda: _set(se, BACKUP="mean"),
    "x3": lambda: ai.LEVELS.__setitem__("hard", 1200),
    "nolook": lambda: ai.LOOKAHEAD.clear(),
    # the evaluation before issue 16's second round (no pieces or position terms; Characters in
    # the Storehouse, like any tile there, at 1 VP; Gold worth any other Resource)
    "old": lambda: _set(ev, PIECE_W=0.0, POS_W=0.0, CHAR_STORE_VP=1.0, STORE_VP=1.0, GOLD_FACTOR=1.0),
}


def play_solo(level, seed, bot, times):
    state, _ = engine.new_game(2, seed, {"solo": {"level": bot}})
    rng = random.Random(seed)
    calls = 0
    while state.phase != "over":
        seat = state.actor
        if seat == state.solo["bot"] and state.phase == "action":
            moves = next_moves(state, rng)
        else:
            t0 = time.perf_counter()
            moves = ai.decide(view_doc(state, seat), level, f"{seed}:{calls}")
            times.append(time.perf_counter() - t0)
            calls += 1
        for m in moves:
            _, state = play(state, seat, m, seed=seed)
    return state


def one_game(job):
    """A worker's game: the variant set up afresh, then the game; the figures printed and kept."""
    name, level, seed, bot = job
    _reset()
    if name.endswith(".json"):      # weights from a file, as bench/ai_tune.py writes them
        import json
        w = json.load(open(name))
        if "LOOKAHEAD" in w:
            ai.LOOKAHEAD["hard"] = tuple(w.pop("LOOKAHEAD"))
        import bench.ai_tune   # its ``apply`` sets the weights a file names (imported once a process)
        bench.ai_tune.apply(w)
    else:
        VARIANTS[name]()
    times = []
    s = play_solo(level, seed, bot, times)
    p = s.seats[1]
    line = (f"{name[-10:]:>10} {seed[-3:]:>4} AI {p.score:4d} bot {s.seats[0].score:4d}  "
            f"supply H{p.houses} P{p.pillars} map H{houses_on_map(s, 1)} P{pillars_on_map(s, 1)} "
            f"res {sum(p.res):2d} crests {crest_count(p)} done {completed_buildings(p)} "
            f"cath {len(p.cathedrals)} contracts {len(p.contracts)}")
    return p.score, s.seats[0].score, s.winner == 1, times, line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--level", default="medium")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--start", type=int, default=200, help="the first seed (fresh ones: 200 and up)")
    ap.add_argument("--bot", default="bishop")
    ap.add_argument("--variants", default="base")
    ap.add_argument("--procs", type=int, default=1, help="games played side by side")
    a = ap.parse_args()
    level = int(a.level) if a.level.isdigit() else a.level
    names = a.variants.split(",")
    res = {}
    pool = multiprocessing.Pool(a.procs) if a.procs > 1 else None
    for name in names:
        t0 = time.perf_counter()
        jobs = [(name, level, f"bench-ai-solo-{a.bot}-{i}", a.bot) for i in range(a.start, a.start + a.games)]
        games = pool.imap(one_game, jobs) if pool else map(one_game, jobs)
        mine, bots, wins, times = [], [], 0, []
        for score, bot, won, t, line in games:
            print(line, flush=True)
            mine.append(score)
            bots.append(bot)
            wins += won
            times += t
        times.sort()
        res[name] = mine
        sd = statistics.stdev(mine) if len(mine) > 1 else 0
        print(f"== {name}: AI {statistics.mean(mine):.1f} ± {sd:.1f}  "
              f"bot {statistics.mean(bots):.1f}  wins {wins}/{a.games}  "
              f"p50 {times[len(times) // 2] * 1000:.0f} ms "
              f"p95 {times[int(len(times)*.95)]*1000:.0f} ms  ({time.perf_counter() - t0:.0f} s)", flush=True)
    base = res[names[0]]
    for name in names[1:]:
        d = [x - y for x, y in zip(res[name], base)]
        sd = statistics.stdev(d) if len(d) > 1 else 0
        print(f"== {name} - {names[0]}: {statistics.mean(d):+.1f} ± {sd / len(d) ** .5:.1f} (se)")


if __name__ == "__main__":
    main()
