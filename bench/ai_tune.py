"""Tune the AI's evaluation weights by SPSA on seeded solo games (a development tool; prints figures).

    python bench/ai_tune.py --level medium --iters 300 --pairs 8 --out /tmp/tune.jsonl

Simultaneous perturbation stochastic approximation (Spall 1998): each iteration draws a random
sign for every weight, plays the same ``--pairs`` fresh seeded solo games against the Cardinalbot
with the weights moved up and down by one step in those directions, and moves the weights along
the paired score difference. The seeds (``tune-<k>-<j>``) are never those of bench/ai.py, so the
tuned weights are measured there out of sample. Each line of ``--out`` is one iteration: the
weights, their running (Polyak) mean, and both sides' mean score.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import ai.evaluate as ev  # noqa: E402
import bench.ai_solo_paired as PAIRED  # noqa: E402  (its play_solo: the same seeded solo games)

# name: (step, low, high); the start is the module's value
PARAMS = {
    "RES13": (0.08, 0.0, 1.5), "RES4": (0.08, 0.0, 1.0), "GOLD_FACTOR": (0.2, 0.0, 1.5),
    "ROOM_VP": (0.6, 0.0, 5.0), "STORE_VP": (0.3, -1.0, 3.0), "CHAR_STORE_VP": (0.5, -3.0, 3.0),
    "AP_BONUS_VP": (1.0, 0.0, 8.0), "MAP_VP": (0.6, 0.0, 5.0), "AP_VP": (0.2, 0.0, 1.5),
    "FUTURE_FAIR_WEIGHT": (0.2, 0.0, 1.5), "SUPPLY_VP": (0.3, -3.0, 3.0), "PIECE_W": (0.3, 0.0, 2.0),
    "PLACE_FRAC": (0.1, 0.0, 1.0), "POS_W": (1.0, 0.0, 8.0), "KING_FUTURE_W": (0.25, 0.0, 1.5),
    "FAIR_REACH_W": (0.15, 0.0, 1.0), "CONTRACT_W": (0.2, 0.0, 1.5), "CATH_W": (0.2, 0.0, 1.5),
    "CREST_W": (1.5, 0.0, 10.0),
}


def current() -> dict[str, float]:
    out = {}
    for n in PARAMS:
        if n == "RES13":
            out[n] = ev.RESOURCE_VP[0]
        elif n == "RES4":
            out[n] = ev.RESOURCE_VP[3]
        else:
            out[n] = getattr(ev, n)
    return out


def apply(w: dict[str, float]) -> None:
    for n, v in w.items():
        if n == "RES13":
            ev.RESOURCE_VP = (v, v, v, ev.RESOURCE_VP[3])
        elif n == "RES4":
            ev.RESOURCE_VP = ev.RESOURCE_VP[:3] + (v,)
        else:
            setattr(ev, n, v)


def play_one(args) -> tuple[int, int]:
    w, seed, level, bot = args
    apply(w)
    state = PAIRED.play_solo(level, seed, bot, [])
    return state.seats[1].score, state.seats[0].score


def clip(w):
    return {n: min(PARAMS[n][2], max(PARAMS[n][1], v)) for n, v in w.items()}


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
    ap.add_argument("--first", type=int, default=0, help="the first iteration's number (its seeds, the step's decay)")
    a = ap.parse_args()
    level = int(a.level) if a.level.isdigit() else a.level
    theta = current()
    if a.start:
        theta.update(json.load(open(a.start)))
    mean = dict(theta)
    rng = random.Random(1)
    with multiprocessing.Pool(a.procs) as pool, open(a.out, "a") as out:
        for k in range(a.first, a.first + a.iters):
            delta = {n: rng.choice((-1, 1)) for n in PARAMS}
            plus = clip({n: theta[n] + PARAMS[n][0] * delta[n] for n in PARAMS})
            minus = clip({n: theta[n] - PARAMS[n][0] * delta[n] for n in PARAMS})
            seeds = [f"tune-{k}-{j}" for j in range(a.pairs)]
            jobs = [(plus, s, level, a.bot) for s in seeds] + [(minus, s, level, a.bot) for s in seeds]
            res = pool.map(play_one, jobs)
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
