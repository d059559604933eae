"""AI player benchmark (prints figures; not a test).

    python bench/ai.py [--games N] [--solo-games M] [--levels easy,medium,hard]
                       [--solo-level hard] [--solo-bots priest,deacon,bishop] [--no-4p] [--procs P]
                       [--variant NAME=FIELD:VALUE,... [--variant-of hard]]

Plays seeded games in-process with the engine (no HTTP). Every AI decision is
``ai.decide(view_doc(state, seat), level, rng_seed)``: the AI sees only its seat's view. Reports,
per row, the mean ± sd of final scores and win rates (a tie goes to the earlier seat in turn
order, as in the rules):

  * each AI level in 4-player games against three random players, and against three copies of
    the greedy baseline of bench/cardinalbot.py (the AI's seat rotates over the four seats);
  * the AI levels against each other: 4-player games of one easy, one medium and one hard AI and
    one greedy player, seats rotated;
  * AI hard as the human seat of solo games against the Cardinalbot at priest, deacon and bishop,
    with the Fairs it attended per round;
  * the AI's decision time (one ``ai.decide`` call, which may answer with several moves) p50 / p95
    per level, over all the games above. Goals: hard p95 <= 2 s, easy p95 <= 100 ms.

``--games`` is the number of 4-player games per row (default 12), ``--solo-games`` the number of
solo games per Cardinalbot level (default 12). A level is a preset of ``ai.Settings``; ``--variant
name=field:value,...`` adds a level of that name, ``--variant-of``'s preset with the fields replaced
(bench/ai_variants.py), usable in ``--levels`` and ``--solo-level``. ``master`` (a time budget on
every core a decision) is measured only when named, with ``--procs 1``.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

# This file is called ai.py: keep its own folder off sys.path so that "import ai" finds the
# package (of this checkout), not this script.
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import ai  # noqa: E402
import tiletum  # noqa: E402
from games.tiletum import view_doc  # noqa: E402  (the pure one: the bench runs without the service's packages)
from bench.ai_variants import attendance_line, fairs_attended, parse_variants, settings_for  # noqa: E402
from cardinalbot.policy import next_moves  # noqa: E402
from tiletum.game import play  # noqa: E402


def _load_baselines():
    spec = importlib.util.spec_from_file_location("bench_cardinalbot", os.path.join(HERE, "cardinalbot.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_cardinalbot"] = mod
    spec.loader.exec_module(mod)
    return mod


BASE = _load_baselines()
TIMES: dict[str, list[float]] = defaultdict(list)
MAX_MOVES = 20000
LEVELS: dict[str, ai.Settings] = dict(ai.LEVELS)   # the presets, and the variants of --variant


def play_game(kinds: list[str], seed: str, solo: str | None = None,
              fairs: list | None = None) -> tiletum.GameState:
    """One game: ``kinds[seat]`` is 'random', 'greedy', an AI level, or 'cardinalbot' (solo); the
    rounds whose Fair seat 1 attended are appended to ``fairs``."""
    options = {"solo": {"level": solo}} if solo else None
    state, _ = tiletum.new_game(len(kinds), seed, options)
    rng = random.Random(seed)
    calls = 0
    for _ in range(MAX_MOVES):
        if state.phase == "over":
            return state
        seat = state.actor
        kind = kinds[seat]
        if solo and seat == state.solo["bot"] and state.phase == "action":
            moves = next_moves(state, rng)
        elif kind in LEVELS:
            t0 = time.perf_counter()
            moves = ai.decide(view_doc(state, seat), LEVELS[kind], f"{seed}:{calls}")
            TIMES[kind].append(time.perf_counter() - t0)
            calls += 1
        else:
            moves = [BASE.CHOOSERS[kind](state, seed, rng)]
        for m in moves:
            before = state
            _, state = play(state, seat, m, seed=seed)
            if fairs is not None and state.fairs_scored > before.fairs_scored:
                fairs.extend(fairs_attended(before, state, 1))
    raise RuntimeError(f"{seed}: the game did not end")


def mean_sd(xs) -> str:
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{statistics.mean(xs):6.1f} ± {sd:5.1f}"


def table(header, rows) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print(flush=True)


def against(level: str, opponent: str, games: int) -> tuple[str, ...]:
    mine, theirs, wins = [], [], 0
    for i in range(games):
        seat = i % 4
        kinds = [opponent] * 4
        kinds[seat] = level
        s = play_game(kinds, f"bench-ai-{opponent}-{i}")
        mine.append(s.seats[seat].score)
        theirs.extend(p.score for p in s.seats if p.seat != seat)
        wins += s.winner == seat
    return (level, f"3 x {opponent}", str(games), mean_sd(mine), mean_sd(theirs), f"{wins / games:.0%}")


def levels_match(levels: list[str], games: int) -> list[tuple[str, ...]]:
    lineup = list(levels) + ["greedy"] * (4 - len(levels))
    scores, wins = defaultdict(list), defaultdict(int)
    for i in range(games):
        kinds = lineup[-(i % 4):] + lineup[:-(i % 4)] if i % 4 else list(lineup)
        s = play_game(kinds, f"bench-ai-levels-{i}")
        for seat, k in enumerate(kinds):
            scores[k].append(s.seats[seat].score)
        wins[kinds[s.winner]] += 1
    n_of = {k: lineup.count(k) for k in lineup}
    return [(k, str(games), mean_sd(scores[k]),
             f"{wins[k] / games / n_of[k]:.0%}") for k in dict.fromkeys(lineup)]


def _solo_game(job) -> tuple[int, int, bool, list[float], list[int]]:
    """One solo game (in a worker process when --procs > 1): the scores, the AI's win, its times,
    the rounds whose Fair it attended."""
    level, settings, bot_level, i = job
    LEVELS[level] = settings               # a worker process knows the variants from here
    before = TIMES.pop(level, [])          # the 4-player games' times stay apart
    fairs = []
    s = play_game(["cardinalbot", level], f"bench-ai-solo-{bot_level}-{i}", solo=bot_level, fairs=fairs)
    times = TIMES.pop(level, [])
    if before:
        TIMES[level] = before
    return s.seats[1].score, s.seats[0].score, s.winner == 1, times, fairs


def solo_rows(level: str, games: int, bot_levels=("priest", "deacon", "bishop"),
              procs: int = 1) -> list[tuple[str, ...]]:
    rows = []
    pool = ProcessPoolExecutor(procs) if procs > 1 else None
    for bot_level in bot_levels:
        me, bot, wins, fairs = [], [], 0, []
        jobs = [(level, LEVELS[level], bot_level, i) for i in range(games)]
        for mine, theirs, won, times, f in (pool.map(_solo_game, jobs) if pool else map(_solo_game, jobs)):
            me.append(mine)
            bot.append(theirs)
            wins += won
            fairs.append(f)
            TIMES[f"{level} (solo games)"].extend(times)
        rows.append((f"AI {level}", bot_level, str(games), mean_sd(me), mean_sd(bot), f"{wins / games:.0%}",
                     attendance_line(fairs).split(": ")[1]))
    if pool:
        pool.shutdown()
    return rows


def _describe(s: ai.Settings) -> str:
    if s.parallel:
        return f"{s.seconds:g} s on {s.procs or os.cpu_count()} processes"
    return f"{s.iterations} iterations" + (f", look-ahead {s.lookahead}" if s.lookahead else "")


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "1", "--solo-games", "1", "--levels", "easy", "--solo-level", "easy",
              "--solo-bots", "priest"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=12, metavar="N", help="4-player games per row (default 12)")
    ap.add_argument("--solo-games", type=int, default=12, metavar="M",
                    help="solo games per Cardinalbot level (default 12)")
    ap.add_argument("--levels", default="easy,medium,hard",
                    help="the AI levels to measure (default easy,medium,hard)")
    ap.add_argument("--solo-level", default="hard", help="the AI level of the solo games (default hard)")
    ap.add_argument("--solo-bots", default="priest,deacon,bishop",
                    help="the Cardinalbot levels of the solo games (default priest,deacon,bishop)")
    ap.add_argument("--no-4p", action="store_true", help="skip the 4-player rows (only solo games and times)")
    ap.add_argument("--procs", type=int, default=1, metavar="P",
                    help="solo games played side by side in P processes (default 1)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=FIELD:VALUE,...",
                    help="a level NAME: --variant-of's preset with fields replaced (repeatable)")
    ap.add_argument("--variant-of", default="hard", help="the preset the variants start from (default hard)")
    a = ap.parse_args(argv)
    try:
        for name, spec in parse_variants("", a.variant).items():
            LEVELS[name] = settings_for(a.variant_of, spec)
    except ValueError as e:
        ap.error(str(e))
    levels = [x for x in a.levels.split(",") if x]
    bots = [x for x in a.solo_bots.split(",") if x]
    if any(b not in ("priest", "deacon", "bishop") for b in bots):
        ap.error("--solo-bots among priest, deacon, bishop")
    if a.games < 1 or a.solo_games < 0 or any(x not in LEVELS for x in levels + [a.solo_level]):
        ap.error(f"--games >= 1, --solo-games >= 0, levels among {', '.join(LEVELS)}")
    used = dict.fromkeys(levels + [a.solo_level])
    print(f"AI benchmark: {a.games} 4-player games per row, {a.solo_games} solo games per Cardinalbot level; "
          + "; ".join(f"{k}: {_describe(LEVELS[k])}" for k in used)
          + f"; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs", flush=True)
    t0 = time.perf_counter()
    if not a.no_4p:
        rows = [against(level, opp, a.games) for opp in ("random", "greedy") for level in levels]
        print("\nAI against three random or greedy players (4 players; mean ± sd of final scores)")
        table(("AI", "opponents", "games", "AI score", "opponents' scores", "AI wins"), rows)
    if len(levels) > 1 and not a.no_4p:
        print("AI levels against each other (4 players: " + ", ".join(levels)
              + ", greedy for the rest; seats rotated)")
        table(("player", "games", "score", "win rate"), levels_match(levels, a.games))
    if a.solo_games:
        print(f"AI {a.solo_level} as the human seat of solo games against the Cardinalbot")
        table(("player", "Cardinalbot", "games", "AI score", "Cardinalbot", "AI wins",
               "Fairs attended r1-r4"),
              solo_rows(a.solo_level, a.solo_games, bots, a.procs))
    print("Decision time (one ai.decide call)")
    trows = []
    for level in [*LEVELS, *(f"{x} (solo games)" for x in LEVELS)]:
        xs = TIMES.get(level)
        if xs:
            trows.append((level, _describe(LEVELS[level.split()[0]]), str(len(xs)),
                          f"{quantile(xs, .5) * 1000:.1f} ms", f"{quantile(xs, .95) * 1000:.1f} ms",
                          f"{max(xs) * 1000:.1f} ms"))
    table(("level", "budget", "decisions", "p50", "p95", "max"), trows)
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
