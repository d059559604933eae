"""Review and reliability benchmark (prints figures; not a test).

    python bench/review.py [--level medium] [--seed 1] [--moves N]

For each hosted game, a 2-player game of random legal moves (seeded) is reviewed for seat 0 by
the game's AI at ``--level`` (``ai.review_decisions``, what ``workers.review_game`` computes):
the decisions, the seconds it takes, the plain sum of the estimated losses against the game's
bound (``review_bound``: what the game could give) and the figure shown, the sum bounded
(application/review.py). Then the cost of the reliability counters on the move path
(``application.reliability.moved`` for a person's move: the turn's start and the delay) and of
reading a player's figures, on a Redis this script starts from api/redis_server.py.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.dirname(HERE))

import redis  # noqa: E402

import ai  # noqa: E402
import games  # noqa: E402
from api.redis_server import EmbeddedRedis  # noqa: E402
from application import reliability  # noqa: E402
from application.players import player_id  # noqa: E402

QUICK_ARGS = ["--level", "1", "--moves", "300"]


def random_game(game, seed: int, limit: int):
    state, events = game.new_game(2, f"bench-{seed}", {})
    events = list(events)
    rng = random.Random(seed)
    while not game.is_over(state) and len(events) < limit:
        move = rng.choice(game.legal_moves(state))[0]
        evs, state = game.play(state, game.actor(state), move, f"bench-{seed}")
        events.extend(evs)
    return state, events


def review_figures(level, seed: int, limit: int) -> None:
    print(f"review of seat 0 at level {level} (a random 2-player game each)")
    print(f"{'game':14} {'decisions':>9} {'seconds':>8} {'raw sum':>8} {'bound':>6} {'shown':>6}")
    for game in games.GAMES.values():
        state, events = random_game(game, seed, limit)
        started = time.perf_counter()
        decisions = ai.review_decisions(game, events, 0, level, f"bench:{seed}")
        took = time.perf_counter() - started
        raw = sum(d["loss"] for d in decisions)
        reviewed = games.reviewed(game)
        bound = reviewed.review_bound(state, 0) if reviewed is not None else 0.0
        print(f"{game.name:14} {len(decisions):9d} {took:8.2f} {raw:8.1f} {bound:6.1f} {min(raw, bound):6.1f}"
              + ("" if game.is_over(state) else f"  (first {len(events)} events)"))


def reliability_figures(n: int = 3000) -> None:
    srv = EmbeddedRedis(tempfile.mkdtemp(prefix="bench-review-")).start()
    r = redis.Redis.from_url(srv.url)
    game = games.CARCASSONNE
    state, _ = game.new_game(2, "bench", {})
    meta = {"game": game.name, "seats": [{"kind": "human", "name": "A", "email": "a@bench.test"},
                                         {"kind": "human", "name": "B", "email": "b@bench.test"}]}
    times = []
    now = 1e9
    for i in range(n):
        now += 10
        t = time.perf_counter()
        reliability.moved(r, "bench-game", meta, state, i % 2, None, now)
        times.append(time.perf_counter() - t)
    times.sort()
    pid = player_id(r, "a@bench.test")
    t = time.perf_counter()
    for _ in range(1000):
        reliability.of_player(r, pid)
    read = (time.perf_counter() - t) / 1000
    print(f"reliability.moved per person's move: p50 {times[n // 2] * 1e3:.2f} ms, "
          f"p99 {times[int(n * 0.99)] * 1e3:.2f} ms; a player's figures read in {read * 1e3:.2f} ms "
          f"({reliability.of_player(r, pid)['moves_timed']} delays kept)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--level", default="medium", help="an AI level's name, or a small budget (a number)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--moves", type=int, default=10_000, help="review at most this many events of each game")
    args = ap.parse_args()
    level = int(args.level) if args.level.isdigit() else args.level
    review_figures(level, args.seed, args.moves)
    reliability_figures()


if __name__ == "__main__":
    main()
