"""Cardinalbot benchmark (prints figures; not a test).

    python bench/cardinalbot.py [--quick] [--games N] [--api-games M]

Measures, in one run:

  * the policy's decision time: every call of ``cardinalbot.policy.next_moves`` (one batch of
    moves, up to the next reveal) in all the in-process games below, p50 / p99, and per bot turn
    (the calls of one turn summed). Goal: p50 < 10 ms per decision;
  * a whole bot turn through the API: an EmbeddedRedis (api/redis_server.py), the Flask app of
    ``tests.conftest.make_app(redis_url, BOT_TOKEN=..., ALLOW_SEEDED_GAMES=True,
    RATE_LIMIT=0)`` on a threaded werkzeug server (``tests.conftest.LiveServer``), M seeded solo
    games created over HTTP (levels in turn), the human seat playing uniformly random legal moves
    over HTTP (GET legal-moves, POST moves) and each bot turn played by
    ``seats.runner.play_automa_turn(ApiClient(url, BOT_TOKEN), game_id)`` (the seats worker's), timed
    as a whole (every GET state, decision and POST moves until the human is to act). Goal: p50 < 100 ms.
    With a BOT_TOKEN and no SEND_TASK the app publishes a Celery message for each save that leaves
    the bot to act, as in production, into this Redis; no worker consumes them here;
  * strength: N seeded solo games per level (priest, deacon, bishop) against each opponent,
    in-process with the engine (no HTTP): the bot plays ``next_moves`` applied one move at a
    time with ``tiletum.play(state, state.actor, move, seed=game_seed)``. Per level and opponent:
    the mean, standard deviation, min and max final score of the Cardinalbot and of the human
    seat, and the bot's win rate (the human wins only with strictly more VP). Both opponents
    play the same N seeds (the same setups and chance seeds).

The opponents (the human seat):

  * random: at each decision, a uniformly random legal move (``tiletum.legal``, sorted by
    notation so that the choice does not depend on set order), from ``random.Random(seed)``;
  * greedy: at each decision, every legal move (sorted by notation) is played on a copy with
    ``tiletum.play(state, seat, move, seed=game_seed)`` and the position after it is scored by
    what the seat would have if the game ended there (``greedy_value``: its score plus the final
    scoring's Houses x Pillars, Completed Buildings and Resources, the Resources at 1 VP per 4 as
    a fraction, so that each one counts). With the game's seed a move that draws or rolls reveals
    exactly what it will in the game, so the greedy player sees the outcome of its move (but
    never looks further than one move). Then a seeded random choice (``random.Random(seed)``)
    among the moves that gain the most; when none gains, among the moves other than 'end' that
    lose nothing, and 'end' only when every other move loses (until issue 16 it scored only the
    VP a move gains and ended its turn as soon as nothing gained VP: about 13 VP, less than
    random play's 28; now about 39 against random's 28 in 4-player games).

The bot's own random tie-breaks use ``random.Random(seed + ':bot')``. ``--quick`` is 20 games per
level per opponent and 3 API games; the default is 200 and 20. One warm-up game per level (and
one untimed API game) runs before any timing.
"""
from __future__ import annotations

import argparse
import logging
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field

# This file is called cardinalbot.py: keep its own folder off sys.path so that "import
# cardinalbot" finds the package (of this checkout), not this script.
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

from cardinalbot.policy import next_moves  # noqa: E402
from tiletum.game import legal, new_game, play  # noqa: E402

LEVELS = ("priest", "deacon", "bishop")
OPPONENTS = ("random", "greedy")
GOAL_DECISION_P50_MS = 10.0
GOAL_API_TURN_P50_MS = 100.0
BOT_TOKEN = "bench-cardinalbot-credential"
MAX_MOVES = 20000  # a game is a couple of hundred moves


def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def pq_ms(xs: list[float]) -> str:
    return f"{quantile(xs, 0.5) * 1000:.2f} / {quantile(xs, 0.99) * 1000:.2f} ms"


# --- the opponents ---------------------------------------------------------------------------------

def random_move(state, seed: str, rng: random.Random) -> str:
    moves = sorted(str(m) for m in legal(state))
    return moves[rng.randrange(len(moves))]


def greedy_value(state, seat: int) -> float:
    """What ``seat`` would have if the game ended now (its final score at the end of the game)."""
    from tiletum.flow import final_breakdown
    p = state.seats[seat]
    if state.phase == "over":
        return float(p.score)
    b = final_breakdown(state, p)
    return p.score + b["houses_x_pillars"] + b["buildings_vp"] + b["resources"] / 4


def greedy_move(state, seed: str, rng: random.Random) -> str:
    seat = state.actor
    before = greedy_value(state, seat)
    gains = {}
    for m in sorted(str(m) for m in legal(state)):
        _, after = play(state, seat, m, seed=seed, trusted=True)
        gains[m] = greedy_value(after, seat) - before
    best = max(gains.values())
    if best <= 0:  # nothing gains: any move that loses nothing, 'end' only when there is none
        keep = [m for m, g in gains.items() if g >= 0 and m != "end"]
        if keep:
            return keep[rng.randrange(len(keep))]
    tied = [m for m, g in gains.items() if g == best]
    return tied[rng.randrange(len(tied))]


CHOOSERS = {"random": random_move, "greedy": greedy_move}


# --- in-process games ------------------------------------------------------------------------------

@dataclass
class Result:
    bot: int
    human: int
    bot_won: bool


@dataclass
class Timings:
    decisions: list[float] = field(default_factory=list)   # seconds per next_moves call
    turns: list[float] = field(default_factory=list)       # seconds of next_moves per bot turn
    decisions_per_turn: list[int] = field(default_factory=list)
    moves_per_turn: list[int] = field(default_factory=list)


def play_game(seed: str, level: str, opponent: str, timings: Timings | None) -> Result:
    state, _ = new_game(2, seed, {"solo": {"level": level}})
    bot = state.solo["bot"]
    bot_rng, human_rng = random.Random(seed + ":bot"), random.Random(seed)
    choose = CHOOSERS[opponent]
    turn_secs, turn_calls, turn_moves = 0.0, 0, 0
    for _ in range(MAX_MOVES):
        if state.phase == "over":
            break
        if state.actor == bot:
            if state.phase != "action":
                raise RuntimeError(f"{seed}: the bot is to act in the {state.phase} phase")
            t0 = time.perf_counter()
            moves = next_moves(state, bot_rng)
            dt = time.perf_counter() - t0
            for m in moves:
                _, state = play(state, state.actor, m, seed=seed)
            turn_secs += dt
            turn_calls += 1
            turn_moves += len(moves)
            if timings is not None:
                timings.decisions.append(dt)
            if not (state.actor == bot and state.phase == "action"):  # the bot's turn is over
                if timings is not None:
                    timings.turns.append(turn_secs)
                    timings.decisions_per_turn.append(turn_calls)
                    timings.moves_per_turn.append(turn_moves)
                turn_secs, turn_calls, turn_moves = 0.0, 0, 0
        else:
            _, state = play(state, state.actor, choose(state, seed, human_rng), seed=seed, trusted=True)
    else:
        raise RuntimeError(f"{seed}: the game did not end within {MAX_MOVES} moves")
    human = state.solo["human"]
    return Result(state.seats[bot].score, state.seats[human].score, state.winner == bot)


def strength(games: int, timings: Timings) -> dict[tuple[str, str], list[Result]]:
    out: dict[tuple[str, str], list[Result]] = {}
    total, done = games * len(LEVELS) * len(OPPONENTS), 0
    t0 = time.perf_counter()
    for opponent in OPPONENTS:
        for level in LEVELS:
            rows = out.setdefault((level, opponent), [])
            for i in range(games):
                rows.append(play_game(f"bench-cardinalbot-{level}-{i}", level, opponent, timings))
                done += 1
                if done % 50 == 0 or done == total:
                    print(f"  in-process games: {done}/{total} ({level} vs {opponent}), "
                          f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return out


# --- through the API -------------------------------------------------------------------------------

@dataclass
class ApiRun:
    turns: list[float] = field(default_factory=list)     # seconds per whole bot turn
    batches: list[int] = field(default_factory=list)     # POST moves per bot turn
    requests: list[int] = field(default_factory=list)    # HTTP requests per bot turn
    human_requests: list[float] = field(default_factory=list)  # seconds per human GET+POST
    games: int = 0
    bot_wins: int = 0


def api_game(url: str, seed: str, level: str, run: ApiRun | None) -> None:
    import requests

    from seats.client import ApiClient
    from seats.runner import play_automa_turn

    http = requests.Session()
    rv = http.post(f"{url}/api/v1/games", timeout=30, json={
        "seats": [{"name": "Ada"}, {"name": "Cardinal", "kind": "cardinalbot"}],
        "options": {"solo": {"level": level}, "seed": seed}})
    if rv.status_code != 201:
        raise RuntimeError(f"creating a game: {rv.status_code} {rv.text[:300]}")
    created = rv.json()
    gid = created["id"]
    human = next(s for s in created["seats"] if s["kind"] != "cardinalbot")
    me = {"Authorization": f"Bearer {human['token']}"}
    counter = [0]
    bot_session = requests.Session()
    bot_session.hooks["response"].append(lambda r, *a, **k: counter.__setitem__(0, counter[0] + 1))
    bot = ApiClient(url, BOT_TOKEN, session=bot_session)
    rng = random.Random(seed)
    stalls = 0
    for _ in range(MAX_MOVES):
        t0 = time.perf_counter()
        lm = http.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=me, timeout=30).json()
        moves = sorted(m["move"] for m in lm["moves"])
        if moves:
            move = moves[rng.randrange(len(moves))]
            rv = http.post(f"{url}/api/v1/games/{gid}/moves", headers=me, timeout=30,
                           json={"expected_version": lm["version"], "moves": [move]})
            if rv.status_code != 200:
                raise RuntimeError(f"{seed}: the human's move: {rv.status_code} {rv.text[:300]}")
            if run is not None:
                run.human_requests.append(time.perf_counter() - t0)
            continue
        if not lm["to_act"]:
            break  # the game is over (no seat to act: API 2.0 made to_act a list, [] when over)
        counter[0] = 0
        t0 = time.perf_counter()
        batches = play_automa_turn(bot, gid)
        dt = time.perf_counter() - t0
        if batches == 0:
            stalls += 1
            if stalls > 3:
                raise RuntimeError(f"{seed}: seat {lm['to_act']} is to act but neither side can move")
            continue
        stalls = 0
        if run is not None:
            run.turns.append(dt)
            run.batches.append(batches)
            run.requests.append(counter[0])
    else:
        raise RuntimeError(f"{seed}: the game did not end within {MAX_MOVES} moves")
    summary = http.get(f"{url}/api/v1/games/{gid}", timeout=30).json()
    if summary["status"] != "finished":
        raise RuntimeError(f"{seed}: the game is not finished: {summary}")
    if run is not None:
        run.games += 1
        bot_seat = next(s["seat"] for s in summary["seats"] if s["kind"] == "cardinalbot")
        run.bot_wins += summary["winner"] == bot_seat


def through_api(games: int) -> tuple[ApiRun, int]:
    """Returns the run and the number of Celery messages left in the Redis queue."""
    import redis

    from api.redis_server import EmbeddedRedis
    from tests.conftest import LiveServer, make_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    tmp = tempfile.mkdtemp(prefix="tablepost-bench-cardinalbot-")
    server = EmbeddedRedis(os.path.join(tmp, "redis"))
    run = ApiRun()
    try:
        server.start()
        app = make_app(server.url, BOT_TOKEN=BOT_TOKEN, ALLOW_SEEDED_GAMES=True,
                       RATE_LIMIT=0)
        with LiveServer(app) as live:
            api_game(live.url, "bench-cardinalbot-api-warmup", "deacon", None)
            for i in range(games):
                level = LEVELS[i % len(LEVELS)]
                api_game(live.url, f"bench-cardinalbot-api-{level}-{i}", level, run)
                print(f"  API games: {i + 1}/{games}", file=sys.stderr, flush=True)
        queued = redis.Redis.from_url(server.url).llen("cardinalbot")
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return run, queued


# --- main ----------------------------------------------------------------------------------------

def verdict(ok: bool) -> str:
    return "PASS" if ok else "BELOW"


def table(header: tuple[str, ...], rows: list[tuple[str, ...]], right: set[int] = frozenset()) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells):
        padded = (c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
        return "  ".join(padded).rstrip()

    print(line(header))
    print(line(tuple("-" * w for w in widths)))
    for r in rows:
        print(line(r))


def describe(xs: list[int]) -> str:
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{statistics.mean(xs):6.1f} ± {sd:5.1f}  [{min(xs):3d}, {max(xs):3d}]"


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "2", "--api-games", "1"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="a short run (20 games per level per opponent, 3 API games)")
    ap.add_argument("--games", type=int, default=None, metavar="N",
                    help="in-process games per level per opponent (default 200; 20 with --quick)")
    ap.add_argument("--api-games", type=int, default=None, metavar="M",
                    help="solo games played through the API (default 20; 3 with --quick)")
    a = ap.parse_args(argv)
    games = a.games if a.games is not None else (20 if a.quick else 200)
    api_games = a.api_games if a.api_games is not None else (3 if a.quick else 20)
    if games < 1 or api_games < 1:
        ap.error("--games and --api-games must be at least 1")

    for level in LEVELS:  # warm-up: component data, caches
        play_game(f"bench-cardinalbot-warmup-{level}", level, "random", None)
    print(f"Cardinalbot benchmark: {games} in-process games per level per opponent "
          f"({games * len(LEVELS) * len(OPPONENTS)} in all), {api_games} games through the API; "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs", flush=True)

    timings = Timings()
    t0 = time.perf_counter()
    results = strength(games, timings)
    secs_inproc = time.perf_counter() - t0
    t0 = time.perf_counter()
    run, queued = through_api(api_games)
    secs_api = time.perf_counter() - t0

    d50 = quantile(timings.decisions, 0.5) * 1000
    a50 = quantile(run.turns, 0.5) * 1000
    rows = [
        (f"policy: next_moves per decision p50 / p99 (n={len(timings.decisions):,})",
         pq_ms(timings.decisions),
         f"p50 < {GOAL_DECISION_P50_MS:g} ms", verdict(d50 < GOAL_DECISION_P50_MS)),
        ("policy: max per decision", f"{max(timings.decisions) * 1000:.2f} ms", "", ""),
        (f"policy: per bot turn, decisions summed (n={len(timings.turns):,})", pq_ms(timings.turns), "", ""),
        ("policy: decisions / moves per bot turn (mean)",
         f"{statistics.mean(timings.decisions_per_turn):.2f} / "
         f"{statistics.mean(timings.moves_per_turn):.1f}", "", ""),
        (f"API: whole bot turn p50 / p99 (n={len(run.turns)})", pq_ms(run.turns),
         f"p50 < {GOAL_API_TURN_P50_MS:g} ms", verdict(a50 < GOAL_API_TURN_P50_MS)),
        ("API: max bot turn", f"{max(run.turns) * 1000:.2f} ms", "", ""),
        ("API: batches / HTTP requests per bot turn (mean)",
         f"{statistics.mean(run.batches):.2f} / {statistics.mean(run.requests):.2f}", "", ""),
        ("API: human move (GET legal-moves + POST) p50 / p99", pq_ms(run.human_requests), "", ""),
    ]
    print()
    table(("measure", "value", "goal", "verdict"), rows, right={1})

    print()
    print(f"Strength: final scores, mean ± sd [min, max], over {games} seeded solo games per row")
    srows = []
    for opponent in OPPONENTS:
        for level in LEVELS:
            rs = results[(level, opponent)]
            wins = sum(r.bot_won for r in rs)
            srows.append((level, opponent, str(len(rs)), describe([r.bot for r in rs]),
                          describe([r.human for r in rs]), f"{wins / len(rs):.1%}"))
    table(("level", "opponent", "games", "Cardinalbot", "human seat", "bot wins"), srows, right={2, 5})

    print()
    n_games = sum(len(r) for r in results.values())
    print(f"in-process: {len(timings.decisions):,} bot decisions in {n_games} games, "
          f"{secs_inproc:.1f} s; API: {run.games} games (+1 warm-up), {len(run.turns)} bot turns, "
          f"Cardinalbot won {run.bot_wins}, {secs_api:.1f} s, werkzeug threaded server; "
          f"{queued} Celery messages left unconsumed in the Redis queue 'cardinalbot'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
