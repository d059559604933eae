"""What the AI benchmarks share: variants of a level as ``ai.Settings`` overrides, and the Fairs a
seat attended (a development tool's helpers; bench/ai.py, bench/ai_solo_paired.py, bench/ai_tune.py).

A variant is a name and an override of a level's preset (``ai.override``)::

    --variant x10=iterations:4000 --variant fairs=fair_plan_w:1,crest_plan_w:1

(a tuple's items split by ``/``: ``lookahead:5/4/40``; ``lookahead:none`` switches it off). The
named variants below can be used by name; a ``.json`` file of field -> value (as bench/ai_tune.py
writes them) is a variant too.
"""
from __future__ import annotations

import json
import os
import statistics

import ai
from tiletum.flow import participates

# Not a benchmark of its own (a helper of the others): `make soak` only imports it (tests/test_bench.py).
QUICK_ARGS = None

# name -> override of the level measured (docs/notes/ai-tuning.md says what each was for)
VARIANTS = {
    "base": "",
    "x3": "iterations:1200",
    "x10": "iterations:4000",
    "nolook": "lookahead:none",
    "widelook": "lookahead:5/4/40",
    # round-end planning (issue 31): each term alone, and all three
    "fairs": "fair_plan_w:1",
    "kingplan": "king_plan_w:1",
    "crests": "crest_plan_w:1",
    "plan": "fair_plan_w:1,king_plan_w:1,crest_plan_w:1",
    # the learned correction to the evaluation (issue 43; ai/tiletum/learned.py, tools/train_eval.py)
    "learned": "learned_w:1",
    "learned_half": "learned_w:0.5",
    # the evaluation before issue 16's second round
    "old": "piece_w:0,pos_w:0,char_store_vp:1,store_vp:1,gold_factor:1",
}


def parse_variants(names: str, specs: list[str]) -> dict[str, str]:
    """The variants to run, in order: ``names`` (comma-separated names of :data:`VARIANTS` or
    ``.json`` files) then each ``name=field:value,...`` of ``specs``."""
    out: dict[str, str] = {}
    for n in filter(None, (x.strip() for x in names.split(","))):
        if n.endswith(".json"):
            out[n] = n
        elif n in VARIANTS:
            out[n] = VARIANTS[n]
        else:
            raise ValueError(
                f"unknown variant {n!r}: one of {', '.join(VARIANTS)}, a .json file, or --variant")
    for spec in specs:
        name, sep, over = spec.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"a variant is name=field:value,..., not {spec!r}")
        out[name.strip()] = over
    return out


def settings_for(level, spec: str) -> ai.Settings:
    """The level's preset with the variant's override (``spec``: text, or a .json file's name)."""
    base = ai.resolve(level)
    if spec.endswith(".json") and ":" not in spec:   # not an override naming a file (learned_file:x.json)
        with open(spec) as f:
            w = {k.lower(): tuple(v) if isinstance(v, list) else v for k, v in json.load(f).items()}
        r = list(base.resource_vp)       # bench/ai_tune.py's names for resource_vp's rounds
        if "res13" in w:
            r[:3] = [w.pop("res13")] * 3
        if "res4" in w:
            r[3] = w.pop("res4")
        return ai.override(base, {**w, "resource_vp": tuple(r)})
    return ai.override(base, spec)


def check(level, variants: dict[str, str]) -> None:
    """Every variant's settings made once, so that a bad field is an error before any game."""
    for spec in variants.values():
        settings_for(level, spec)


def fairs_attended(before, after, seat: int) -> list[int]:
    """The rounds whose Fair ``seat`` attended, of the Fairs scored between ``before`` and ``after``
    (one move apart: the seat's House or Merchant is where it was when the move was made)."""
    return [r for r in range(before.fairs_scored + 1, after.fairs_scored + 1)
            if participates(before, seat, before.fair_towns[r - 1])]


def attendance_line(per_game: list[list[int]]) -> str:
    """Fair attendance per round: how many of the games' Fairs of rounds 1-4 the seat attended."""
    n = len(per_game)
    return "Fairs attended r1-r4: " + " ".join(f"{sum(r in g for g in per_game)}/{n}" for r in range(1, 5))


def mean_sd(xs) -> str:
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{statistics.mean(xs):.1f} ± {sd:.1f}"


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def cores() -> int:
    return os.cpu_count() or 1
