"""Event-log benchmark (prints figures; not a test): what `GET /events?after=N` costs the server
for N near the end of a long game (issue 27).

    python bench/events_page.py [--turns T] [--undos U] [--reads R]

On a Redis this script starts (api/redis_server.py): one seeded 2-player game is played through
the game service (``submit_for_seat``, the move path of every channel), a random legal move at a
time; at the start of each of the first T turns the seat to act plays (a legal move, ``undo``) U
times, as a hostile seat would to grow the log. The service's bounds on undos are lifted in this
process (where the code has them), so the same game is built on the code before and after them. Then `GET
/events?after=N` is asked R times through the app (Flask's test client: the server's own time, no network) for
N = the version minus 10, and the median time is printed, with the game's length.

Run it on the code before and after a change to compare (the same arguments build the same game).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import tiletum  # noqa: E402
from api import create_app  # noqa: E402
from api.redis_server import EmbeddedRedis  # noqa: E402
from application import game_service  # noqa: E402

try:   # the move path's own module (issue 52), where the bounds are read
    from application import submit as move_path  # noqa: E402
except ImportError:   # a version of the code from before it: the bounds are game_service's
    move_path = game_service

# the same game on every version of the code: no bound on undos here (the bench builds the attack)
for module in {game_service, move_path}:
    module.MAX_UNDOS_PER_TURN = module.MAX_UNDOS_PER_REQUEST = 10**9


def build(svc, turns: int, undos: int, seed: str = "bench-events") -> str:
    """The long game: its id."""
    gid = svc.create_game([{"name": "A"}, {"name": "B"}], {"seed": seed}, game="tiletum")["id"]
    rng = random.Random(seed)
    turn_seen = None
    spammed = 0
    while True:
        _, state = svc.load(gid)
        if state.phase == "over":
            return gid
        seat = state.actor
        legal = sorted((str(m) for m in tiletum.legal(state) if str(m) != "undo"))
        turn = (state.round, seat, state.turn and state.turn.get("seat"))
        if spammed < turns and state.phase == "action" and turn != turn_seen and state.turn is not None:
            turn_seen = turn
            # a move that can be taken back: one that reveals nothing and does not end the turn
            probe = [m for m in legal if m != "end" and tiletum.play(state, seat, m, seed=seed)[1].undo_moves]
            if probe:
                spammed += 1
                batch = []
                for _ in range(undos):
                    batch += [probe[0], "undo"]
                for i in range(0, len(batch), 20):  # 10 pairs a request
                    _, state = svc.load(gid)
                    svc.submit_for_seat(gid, seat, state.version, batch[i:i + 20], stop_at_reveal=False)
                continue
        svc.submit_for_seat(gid, seat, state.version, [rng.choice(legal)])


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--turns", "2", "--undos", "10", "--reads", "3"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=20, help="turns that start with undo pairs")
    ap.add_argument("--undos", type=int, default=1000,
                    help="(move, undo) pairs at the start of each such turn")
    ap.add_argument("--reads", type=int, default=20)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tablepost-bench-events-") as tmp:
        server = EmbeddedRedis(os.path.join(tmp, "redis")).start()
        try:
            app = create_app({"REDIS_URL": server.url, "ALLOW_SEEDED_GAMES": True, "RATE_LIMIT": 0,
                              "TESTING": True, "SEND_TASK": False})
            svc = app.extensions["tablepost.service"]
            t0 = time.perf_counter()
            gid = build(svc, args.turns, args.undos)
            built = time.perf_counter() - t0
            version = svc.store.version(gid)
            client = app.test_client()
            after = max(0, version - 10)
            times = []
            for _ in range(args.reads):
                t = time.perf_counter()
                resp = client.get(f"/api/v1/games/{gid}/events?after={after}")
                times.append(time.perf_counter() - t)
                assert (resp.status_code == 200
                        and len(resp.get_json()["events"]) == version - after), resp.data[:300]
            first = client.get(f"/api/v1/games/{gid}/events").get_json()
            print(f"game: {version} events (built in {built:.1f} s); first page of GET /events: "
                  f"{len(first['events'])} events")
            print(f"GET /events?after={after}: median {statistics.median(times) * 1000:.2f} ms "
                  f"(min {min(times) * 1000:.2f}, max {max(times) * 1000:.2f}) over {args.reads} reads")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
