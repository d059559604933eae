"""Train the learned correction to the Tiletum AI's evaluation (issue 43; docs/ai.md, "The learned
evaluation"). One command makes the model file from nothing:

    python tools/train_eval.py --procs 2 --work var/train --out ai/tiletum/data/learned_eval.json

1. **Games.** Solo games of the AI against the Cardinalbot (seeds ``train-eval-<i>`` for i from
   ``--start``: never a seed of the benchmarks, ``bench-ai-solo-<bot>-<i>``), the AI at the levels
   of ``--levels`` in turn (game i at the (i mod n)-th), the bot at the levels of ``--bots`` in
   turn; with chance ``--explore`` an AI decision is a random legal move instead (so that the data
   hold what a mistake leads to, as the search's leaves do). After each move of the AI, with
   chance ``--sample``, the position's features for the AI's seat (``ai.tiletum.evaluate.
   features``, under the presets' weights) are kept, and when the game ends each kept position
   gets the seat's final score. Everything is seeded: the same arguments give the same data.
   That is generation 1 (``--games``); each of the ``--generations`` after it plays
   ``--later-games`` more games (from index ``--later-start`` on) with the AI using the model
   fitted so far (``learned_w`` ``--policy-w``), so that the data hold the positions the search
   with that model seeks out and what they really lead to, and the model is fitted again to
   every generation's positions (the first generation's fit alone was exploited at once:
   docs/notes/ai-tuning.md, "Issue 43").
2. **The fit.** A ridge regression (scikit-learn's ``RidgeCV`` over standardized features, its
   penalty chosen by cross-validation) of what the evaluation misses: the final score less the
   evaluation's value at the position (the sum of the terms, the first features). The last
   ``--holdout`` share of the games is held out and the fit's error there printed next to the
   evaluation's own, round by round.
3. **The file.** The coefficients in the features' own units (the standardization folded in),
   the intercept and how the model was made (this command, seeds, games, positions, penalty,
   errors, library versions) as JSON: ``ai.tiletum.learned`` reads it with no library at all.

``--work DIR`` keeps each generation's positions and the models in between (a later run reuses
the positions found there, so a refit or one more generation costs only the new games);
``--data FILE.npz`` plays or reads one set of positions and fits it (no generations). Needs the
training libraries (numpy, scikit-learn: the ``test`` and ``train`` extras of pyproject.toml);
the service does not.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import ai  # noqa: E402
import tiletum  # noqa: E402
from ai.tiletum.evaluate import FEATURES, TERMS, features  # noqa: E402
from ai.tiletum.lookahead import next_turn_value  # noqa: E402
from ai.tiletum.search import in_turn, turn_key  # noqa: E402
from ai.tiletum.view import determinize, sample_seed  # noqa: E402
from ai.tiletum.learned import Model, Trees  # noqa: E402
from cardinalbot.policy import next_moves  # noqa: E402
from games.tiletum import view_doc  # noqa: E402
from tiletum.game import legal, play  # noqa: E402


def level_of(text: str, policy: str | None = None, policy_w: float = 1.0):
    """The AI's settings for a level's name or iteration budget; with ``policy`` (a model file)
    the learned correction is on at ``policy_w`` (a later generation's games: ``--policy``)."""
    settings = ai.resolve(int(text) if text.isdigit() else text)
    if policy:
        settings = ai.override(settings, {"learned_w": policy_w, "learned_file": policy})
    return settings


# the next-turn target (--target next_turn): the look-ahead's futures and next-turn search (hard's)
NEXT_FUTURES, NEXT_ITERATIONS = 4, 40


def next_turn_target(state, me: int, key: tuple, seed: str) -> float:
    """What the seat's next turn makes of ``state``, where its turn ``key`` has just ended, as the
    AI would see it: the mean over sampled futures of the look-ahead's next-turn value, from a
    determinization of the seat's view (never the game's hidden piles or seed)."""
    rng = random.Random(f"{seed}:next:{state.version}")
    root = determinize(view_doc(state, me), rng)
    seeds = [sample_seed(rng) for _ in range(NEXT_FUTURES)]
    return next_turn_value(root, me, key, seeds, NEXT_ITERATIONS)


def play_game(job) -> tuple[list[list[float]], int, list[int], int, bool, list[float] | None]:
    """One seeded solo game; the features of the sampled positions of the AI's seat, its final
    score, each position's round, the bot's final score, whether the AI won and (``next_turn``)
    each position's next-turn value."""
    index, level, bot, explore, sample, policy, policy_w, target = job
    seed = f"train-eval-{index}"
    state, _ = tiletum.new_game(2, seed, {"solo": {"level": bot}})
    rng = random.Random(seed)
    me = 1 - state.solo["bot"]
    rows, rounds, calls, ys = [], [], 0, []
    while state.phase != "over":
        seat = state.actor
        if seat == state.solo["bot"] and state.phase == "action":
            moves = next_moves(state, rng)
        elif rng.random() < explore:
            moves = [str(rng.choice(sorted(legal(state), key=str)))]
        else:
            moves = ai.decide(view_doc(state, seat), level_of(level, policy, policy_w), f"{seed}:{calls}")
            calls += 1
        for m in moves:
            before = state
            _, state = play(state, seat, m, seed=seed)
            if seat != me or state.phase == "over":
                continue
            if target == "next_turn":
                # the positions where the seat's turn has just ended, each with its next-turn value
                key = turn_key(before)
                if in_turn(before, me, key) and not in_turn(state, me, key) and rng.random() < sample:
                    rows.append(features(state, me))
                    rounds.append(state.round)
                    ys.append(next_turn_target(state, me, key, seed))
            elif rng.random() < sample:
                rows.append(features(state, me))
                rounds.append(state.round)
    return (rows, state.seats[me].score, rounds, state.seats[1 - me].score, state.winner == me,
            ys if target == "next_turn" else None)


CHECK_SEED, CHECK_MOVES = "learned-eval-check", 40


def check_position():
    """The position the model file's ``check`` is computed at (and tests/test_ai_learned.py again):
    a solo game against the bishop, seed ``CHECK_SEED``, after the first legal move (by notation)
    ``CHECK_MOVES`` times and then until the other seat (returned) is to act."""
    state, _ = tiletum.new_game(2, CHECK_SEED, {"solo": {"level": "bishop"}})
    me = 1 - state.solo["bot"]
    for k in range(1000):
        if k >= CHECK_MOVES and state.actor == me and state.phase == "action":
            break
        _, state = play(state, state.actor, min(legal(state), key=str), seed=CHECK_SEED)
    return state, me


def play_generation(a, games: int, start: int, policy: str | None) -> dict:
    """The positions of ``games`` games from index ``start``, the AI using ``policy`` (a model
    file) if given."""
    import numpy as np
    print(f"playing {games} games (seeds train-eval-{start}..{start + games - 1}; AI {a.levels}"
          f"{' with ' + policy if policy else ''}; bot {a.bots}; explore {a.explore}; sample {a.sample}) "
          f"on {a.procs} processes", flush=True)
    levels, bots = a.levels.split(","), a.bots.split(",")
    policy = os.path.abspath(policy) if policy else None
    jobs = [(i, levels[k % len(levels)], bots[k % len(bots)], a.explore, a.sample, policy, a.policy_w,
             a.target) for k, i in enumerate(range(start, start + games))]
    X, y, game, rnd, opp, won = [], [], [], [], [], []
    t0 = time.perf_counter()
    pool = ProcessPoolExecutor(a.procs) if a.procs > 1 else None
    for k, (rows, final, rounds, other, win, ys) in enumerate(pool.map(play_game, jobs, chunksize=4) if pool
                                                   else map(play_game, jobs)):
        X += rows
        y += [final] * len(rows) if ys is None else ys
        game += [k] * len(rows)
        rnd += rounds
        opp += [other] * len(rows)
        won += [win] * len(rows)
        if (k + 1) % max(1, games // 20) == 0:
            print(f"  {k + 1}/{games} games, {len(X)} positions, {time.perf_counter() - t0:.0f} s",
                  flush=True)
    if pool:
        pool.shutdown()
    return {"target": np.array(a.target if a.target == "next_turn" else "outcome"),
            "X": np.array(X, dtype=np.float64).reshape(-1, len(FEATURES)), "y": np.array(y, dtype=np.float64),
            "game": np.array(game), "round": np.array(rnd), "games": np.array(games),
            "opp": np.array(opp, dtype=np.float64), "won": np.array(won, dtype=np.float64)}


def merge(parts: list[dict]) -> dict:
    """Several data files (each a run of games) as one, their games numbered on."""
    import numpy as np
    kinds = {str(p.get("target", "outcome")) for p in parts}
    if len(kinds) > 1:
        raise SystemExit("these position files have different targets (next_turn and outcomes): "
                         "fit them apart")
    keys = ["X", "y", "round"] + [k for k in ("opp", "won") if all(k in p for p in parts)]
    out = {k: np.concatenate([p[k] for p in parts]) for k in keys}
    offsets = np.cumsum([0] + [int(p["games"]) for p in parts])
    out["game"] = np.concatenate([p["game"] + off for p, off in zip(parts, offsets)])
    out["games"] = np.array(int(offsets[-1]))
    out["target"] = np.array(kinds.pop())
    return out


def _export_trees(gbr, keep) -> list[dict]:
    """A fitted ``GradientBoostingRegressor``'s trees as :class:`ai.tiletum.learned.Trees` lists
    (over every feature: ``keep`` maps the fitted columns back), the learning rate folded in."""
    import numpy as np
    cols = np.flatnonzero(keep)
    out = []
    for est in gbr.estimators_[:, 0]:
        t = est.tree_
        leaf = t.children_left < 0
        out.append({"feature": [int(cols[f]) if not lf else 0 for f, lf in zip(t.feature, leaf)],
                    "threshold": [float(v) if not lf else 0.0 for v, lf in zip(t.threshold, leaf)],
                    "left": [int(i) for i in t.children_left], "right": [int(i) for i in t.children_right],
                    "value": [round(float(v) * gbr.learning_rate, 6) if lf else 0.0
                              for v, lf in zip(t.value[:, 0, 0], leaf)]})
    return out


def fit(data: dict, holdout: float, alphas, exclude: tuple[str, ...] = (), kind: str = "linear",
        target: str = "score", full: bool = False, trees: tuple[int, int, float] = (100, 3, 0.1)):
    """Fit a model (``kind``: ``linear``, a ridge regression; ``trees``, gradient-boosted trees of
    ``trees`` = (count, depth, learning rate)) of the outcome (``target``: the final ``score``, or
    the ``margin`` over the bot), less the evaluation's value unless ``full``."""
    import numpy as np
    import sklearn
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, game, rnd = data["X"], data["y"], data["game"], data["round"]
    if (str(data.get("target", "outcome")) == "next_turn") != (target == "next_turn"):
        raise SystemExit(f"these positions were played for --target "
                         f"{'next_turn' if target != 'next_turn' else 'score or margin'}, not {target}")
    if target == "margin":
        if "opp" not in data:
            raise SystemExit("these positions have no bot's final score (played before the margin was kept): "
                             "play them again for --target margin")
        y = y - data["opp"]
    elif target not in ("score", "next_turn"):
        raise SystemExit(f"unknown target {target!r}: score, margin or next_turn")
    hand = X[:, :len(TERMS)].sum(axis=1)            # the evaluation's value: the terms' sum
    resid = y if full else y - hand                  # what the model is fitted to
    unknown = set(exclude) - set(FEATURES)
    if unknown:
        raise SystemExit(f"unknown features to exclude: {', '.join(sorted(unknown))}")
    # an excluded feature (and its product with the game left) gets no coefficient
    keep = np.array([n not in exclude and n.removesuffix("*left") not in exclude for n in FEATURES])
    X = X[:, keep]
    games = int(data["games"])
    cut = int(games * (1 - holdout)) if holdout else games
    train, test = game < cut, game >= cut
    if train.sum() < 2:
        raise SystemExit("too few positions to fit: play more games")

    def make(mask):
        if kind == "trees":
            n, depth, rate = trees
            return GradientBoostingRegressor(n_estimators=n, max_depth=depth, learning_rate=rate,
                                             subsample=0.8, min_samples_leaf=20,
                                             random_state=0).fit(X[mask], resid[mask])
        folds = min(5, len(set(game[mask].tolist())))
        cv = list(GroupKFold(folds).split(X[mask], resid[mask], game[mask])) if folds >= 2 else None
        return make_pipeline(StandardScaler(), RidgeCV(alphas=alphas, cv=cv)).fit(X[mask], resid[mask])

    report = {"positions": int(len(y)), "games": games, "train_games": cut, "target": target,
              "full": full}
    if test.any():
        m = make(train)
        err = resid[test] - m.predict(X[test])
        base = y[test] - hand[test]                  # the evaluation's own error
        report["holdout_rmse"] = {"evaluation": round(float(np.sqrt((base ** 2).mean())), 2),
                                  "learned": round(float(np.sqrt((err ** 2).mean())), 2)}
        report["holdout_rmse_by_round"] = {
            str(r): [round(float(np.sqrt((base[rnd[test] == r] ** 2).mean())), 2),
                     round(float(np.sqrt((err[rnd[test] == r] ** 2).mean())), 2)]
            for r in range(1, 5) if (test & (rnd == r)).any()}
    final = make(np.ones(len(y), dtype=bool))      # the model kept: fitted to every game
    report["excluded"] = sorted(exclude)
    if kind == "trees":
        base = round(float(final.init_.constant_.ravel()[0]), 6)
        model = Trees(list(FEATURES), _export_trees(final, keep), base, full=full, target=target)
        report["trees"] = {"count": trees[0], "depth": trees[1], "learning_rate": trees[2]}
        # the exported ensemble predicts what the library does
        sample = X[:min(len(X), 200)]
        full_x = np.zeros((len(sample), len(FEATURES)))
        full_x[:, keep] = sample.astype(np.float32)     # the library compares float32 features
        mine = np.array([model.predict(list(r)) for r in full_x])
        if not np.allclose(mine, final.predict(sample), atol=1e-3 * max(1, len(model.trees))):
            raise SystemExit(f"the exported trees do not predict what the fitted ones do: "
                             f"{float(np.abs(mine - final.predict(sample)).max()):.3g} apart")
    else:
        scaler, ridge = final[0], final[1]
        scale = np.where(scaler.scale_ == 0, 1.0, scaler.scale_)
        kept = ridge.coef_ / scale
        intercept = float(ridge.intercept_ - (kept * scaler.mean_).sum())
        coef = np.zeros(len(FEATURES))
        coef[keep] = kept
        report["alpha"] = float(ridge.alpha_)
        model = Model(list(FEATURES), [round(float(c), 6) for c in coef], round(intercept, 6),
                      full=full, target=target)
    state, seat = check_position()
    report["check"] = {"seed": CHECK_SEED, "moves": CHECK_MOVES, "seat": seat,
                       "prediction": round(model.predict(features(state, seat)), 6)}
    report["versions"] = {"python": platform.python_version(), "numpy": np.__version__,
                          "scikit-learn": sklearn.__version__}
    model.meta = report
    return model, report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300, help="the first generation's games")
    ap.add_argument("--start", type=int, default=0, help="the first game's index (seed train-eval-<i>)")
    ap.add_argument("--generations", type=int, default=4,
                    help="generations: each after the first plays with the model fitted so far")
    ap.add_argument("--later-games", type=int, default=150, help="the games of each later generation")
    ap.add_argument("--later-start", type=int, default=3000, help="the first later generation's first index")
    ap.add_argument("--work", help="a folder for each generation's positions (reused if there) and models "
                    "(default: a new temporary folder)")
    ap.add_argument("--levels", default="easy,medium,medium",
                    help="the AI's levels, game by game in turn (names or iteration budgets)")
    ap.add_argument("--bots", default="bishop,bishop,deacon", help="the Cardinalbot's levels, in turn")
    ap.add_argument("--policy", help="a model file: the AI of the games uses it (a later generation's games, "
                    "so that the data hold the positions its own search seeks out)")
    ap.add_argument("--policy-w", type=float, default=1.0, help="the policy model's weight (learned_w)")
    ap.add_argument("--explore", type=float, default=0.05, help="chance of a random legal move a decision")
    ap.add_argument("--sample", type=float, default=0.5, help="chance a position after an AI move is kept")
    ap.add_argument("--holdout", type=float, default=0.2, help="share of the games held out (the error)")
    ap.add_argument("--alphas", default="0.1,1,10,100,1000,10000", help="the ridge penalties tried")
    ap.add_argument("--exclude", default="", help="features (comma-separated) the fit leaves out, with their "
                    "products with the game left: the correction cannot value them")
    ap.add_argument("--model", choices=("linear", "trees"), default="linear",
                    help="a ridge regression, or gradient-boosted regression trees (--trees)")
    ap.add_argument("--trees", default="100,3,0.1", help="the trees' count, depth and learning rate")
    ap.add_argument("--target", choices=("score", "margin", "next_turn"), default="score",
                    help="the outcome: the AI's final score, or its margin over the bot; or next_turn: "
                         "at the positions where the AI's turn ends, what its next turn makes of them")
    ap.add_argument("--full", action="store_true",
                    help="fit the outcome itself (a full evaluation), not what the evaluation misses")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--data", help="an .npz file of positions: written after the games, read instead of "
                    "playing (several, comma-separated: the runs' positions together)")
    ap.add_argument("--out", default=os.path.join(ROOT, "ai", "tiletum", "data", "learned_eval.json"))
    a = ap.parse_args(argv)
    import numpy as np
    exclude = tuple(filter(None, (x.strip() for x in a.exclude.split(","))))
    alphas = [float(x) for x in a.alphas.split(",")]
    n, depth, rate = a.trees.split(",")
    how = {"kind": a.model, "target": a.target, "full": a.full, "trees": (int(n), int(depth), float(rate))}
    files = a.data.split(",") if a.data else []
    if files and all(os.path.exists(f) for f in files):
        data = merge([dict(np.load(f)) for f in files])
        print(f"positions from {a.data}: {len(data['y'])} of {int(data['games'])} games", flush=True)
        model, report = fit(data, a.holdout, alphas, exclude, **how)
    elif a.data:
        data = play_generation(a, a.games, a.start, a.policy)
        os.makedirs(os.path.dirname(os.path.abspath(a.data)), exist_ok=True)
        np.savez_compressed(a.data, **data)
        model, report = fit(data, a.holdout, alphas, exclude, **how)
    else:
        # generation 1: the AI as it is; each later one: the AI with the model fitted so far, and
        # the fit to every generation's positions together
        work = a.work or tempfile.mkdtemp(prefix="train-eval-")
        os.makedirs(work, exist_ok=True)
        parts, policy = [], a.policy
        for k in range(1, a.generations + 1):
            games, start = ((a.games, a.start) if k == 1
                            else (a.later_games, a.later_start + (k - 2) * a.later_games))
            path = os.path.join(work, f"gen{k}-{start}-{games}.npz")
            if os.path.exists(path):
                parts.append(dict(np.load(path)))
                print(f"generation {k}: positions from {path}", flush=True)
            else:
                parts.append(play_generation(a, games, start, policy))
                np.savez_compressed(path, **parts[-1])
            model, report = fit(merge(parts), a.holdout, alphas, exclude, **how)
            brief = {x: report.get(x) for x in ("positions", "holdout_rmse", "alpha")}
            print(f"generation {k}: {json.dumps(brief)}", flush=True)
            if k < a.generations:
                policy = os.path.join(work, f"model-gen{k}.json")
                with open(policy, "w", encoding="utf-8") as f:
                    json.dump(model.to_doc(), f, indent=1)
    report["command"] = ("python tools/train_eval.py " + " ".join(
        f"--{k} {v}" for k, v in (("games", a.games), ("start", a.start), ("generations", a.generations),
                                   ("later-games", a.later_games), ("later-start", a.later_start),
                                   ("data", a.data), ("levels", a.levels),
                                   ("policy", a.policy), ("policy-w", a.policy_w),
                                   ("bots", a.bots), ("explore", a.explore), ("sample", a.sample),
                                   ("holdout", a.holdout), ("alphas", a.alphas),
                                   ("exclude", a.exclude or None), ("model", a.model),
                                   ("trees", a.trees if a.model == "trees" else None),
                                   ("target", a.target)) if v is not None)
        + (" --full" if a.full else ""))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(model.to_doc(), f, indent=1)
        f.write("\n")
    print(json.dumps({k: v for k, v in report.items() if k != "command"}), flush=True)
    print(f"wrote {a.out}", flush=True)


if __name__ == "__main__":
    main()
