"""Tune the AI's evaluation weights by SPSA on seeded solo games (a development tool; prints figures).

    python bench/ai_tune.py --level medium --iters 300 --pairs 8 --out /tmp/tune.jsonl

Simultaneous perturbation stochastic approximation (Spall 1998): each iteration draws a random
sign for every weight, plays the same ``--pairs`` fresh seeded solo games against the Cardinalbot
with the weights moved up and down by one step in those directions, and moves the weights along
the paired score difference. The seeds (``tune-<k>-<j>``) are never those of bench/ai.py, so the
tuned weights are measured there out of sample. Each line of ``--out`` is one iteration: the
weights, their running (Polyak) mean, and both sides' mean score. The weights are fields of
``ai.Settings`` (``res13`` and ``res4`` stand for ``resource_vp``'s rounds 1-3 and 4); a side's
settings are the level's preset with them replaced, passed to each game (no module is patched).
``--variant field:value,...`` changes the preset the tuning starts from (e.g. the planning terms
switched on, ``fair_plan_w:1``, to tune them with the rest).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import ai  # noqa: E402
import bench.ai_solo_paired as PAIRED  # noqa: E402  (its play_solo: the same seeded solo games)

# ai.Settings field: (step, low, high); the start is the preset's value
PARAMS = {
    "res13": (0.08, 0.0, 1.5), "res4": (0.08, 0.0, 1.0), "gold_factor": (0.2, 0.0, 1.5),
    "room_vp": (0.6, 0.0, 5.0), "store_vp": (0.3, -1.0, 3.0), "char_store_vp": (0.5, -3.0, 3.0),
    "ap_bonus_vp": (1.0, 0.0, 8.0), "map_vp": (0.6, 0.0, 5.0), "ap_vp": (0.2, 0.0, 1.5),
    "future_fair_weight": (0.2, 0.0, 1.5), "supply_vp": (0.3, -3.0, 3.0), "piece_w": (0.3, 0.0, 2.0),
    "place_frac": (0.1, 0.0, 1.0), "pos_w": (1.0, 0.0, 8.0), "king_future_w": (0.25, 0.0, 1.5),
    "fair_reach_w": (0.15, 0.0, 1.0), "contract_w": (0.2, 0.0, 1.5), "cath_w": (0.2, 0.0, 1.5),
    "crest_w": (1.5, 0.0, 10.0),
    "fair_plan_w": (0.3, 0.0, 3.0), "king_plan_w": (0.3, 0.0, 3.0), "crest_plan_w": (0.3, 0.0, 3.0),
}


def current(base: ai.Settings) -> dict[str, float]:
    out = {}
    for n in PARAMS:
        if n == "res13":
            out[n] = base.resource_vp[0]
        elif n == "res4":
            out[n] = base.resource_vp[3]
        else:
            out[n] = getattr(base, n)
    return out


def settings(base: ai.Settings, w: dict[str, float]) -> ai.Settings:
    """``base`` with the weights ``w`` (``res13``/``res4`` into ``resource_vp``)."""
    w = dict(w)
    r = list(base.resource_vp)
    if "res13" in w:
        r[:3] = [w.pop("res13")] * 3
    if "res4" in w:
        r[3] = w.pop("res4")
    return ai.override(base, {**w, "resource_vp": tuple(r)})


def play_one(args) -> tuple[int, int]:
    s, seed, bot = args
    state = PAIRED.play_solo(s, seed, bot, [])
    return state.seats[1].score, state.seats[0].score


def clip(w):
    return {n: min(PARAMS[n][2], max(PARAMS[n][1], v)) for n, v in w.items()}


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--level", "easy", "--iters", "1", "--pairs", "1", "--procs", "1", "--out", "{tmp}/tune.jsonl"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--level", default="medium")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--bot", default="bishop")
    ap.add_argument("--a", type=float, default=0.04, help="step size, in steps per VP of difference")
    ap.add_argument("--out", default="/tmp/ai_tune.jsonl")
    ap.add_argument("--start", help="a JSON file of starting weights")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--first", type=int, default=0,
                    help="the first iteration's number (its seeds, the step's decay)")
    ap.add_argument("--variant", default="", metavar="FIELD:VALUE,...",
                    help="the preset's fields to change first")
    a = ap.parse_args()
    level = int(a.level) if a.level.isdigit() else a.level
    base = ai.override(ai.resolve(level), a.variant)
    theta = current(base)
    if a.start:
        theta.update(json.load(open(a.start)))
    mean = dict(theta)
    rng = random.Random(1)
    with ProcessPoolExecutor(a.procs) as pool, open(a.out, "a") as out:
        for k in range(a.first, a.first + a.iters):
            delta = {n: rng.choice((-1, 1)) for n in PARAMS}
            plus = clip({n: theta[n] + PARAMS[n][0] * delta[n] for n in PARAMS})
            minus = clip({n: theta[n] - PARAMS[n][0] * delta[n] for n in PARAMS})
            seeds = [f"tune-{k}-{j}" for j in range(a.pairs)]
            jobs = ([(settings(base, plus), s, a.bot) for s in seeds]
                    + [(settings(base, minus), s, a.bot) for s in seeds])
            res = list(pool.map(play_one, jobs))
            fp = sum(r[0] for r in res[:a.pairs]) / a.pairs
            fm = sum(r[0] for r in res[a.pairs:]) / a.pairs
            gk = a.a / (1 + k / 100) ** 0.602
            theta = clip({n: theta[n] + gk * (fp - fm) / 2 * delta[n] * PARAMS[n][0] for n in PARAMS})
            mean = {n: mean[n] + (theta[n] - mean[n]) / (k - a.first + 2) for n in PARAMS}
            out.write(json.dumps({"k": k, "plus": fp, "minus": fm, "theta": theta, "mean": mean}) + "\n")
            out.flush()
            print(f"{k:4d} +{fp:6.1f} -{fm:6.1f}  " + " ".join(f"{n}={v:.2f}" for n, v in theta.items()),
                  flush=True)


if __name__ == "__main__":
    main()
