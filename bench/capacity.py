"""Capacity figures for docs/deploy.md (prints figures; not a test).

    python bench/capacity.py [--games N] [--moves M]

On a Redis this script starts (api/redis_server.py), through the real application (the Flask
app in-process, no HTTP server, so the API's own CPU is what is measured):

* Redis memory per game in progress (``INFO used_memory`` delta per game, games of 3 players at
  about 120 events, with their indexes and snapshots);
* Redis commands per move (``INFO commandstats`` delta over M moves, by command) and Redis CPU
  per move (``INFO cpu`` delta): the moves per second one Redis core (one cluster shard) can take;
* API CPU per move (this process's CPU time over the same moves): moves per second per API core.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
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


def cpu_self() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def redis_cpu(r) -> float:
    info = r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def commands(r) -> dict[str, int]:
    return {k[len("cmdstat_"):]: v["calls"] for k, v in r.info("commandstats").items()}


class Table:
    def __init__(self, client, n_players: int, seed: str):
        created = client.post("/api/v1/games", json={"seats": [{"name": f"P{i}"} for i in range(n_players)],
                                                     "options": {"seed": seed}}).get_json()
        self.client, self.seed = client, seed
        self.id, self.tokens = created["id"], [s["token"] for s in created["seats"]]
        self.state = tiletum.new_game(n_players, seed=seed)[0]

    def move(self, rng: random.Random) -> bool:
        if self.state.phase == "over":
            return False
        seat = self.state.actor
        m = rng.choice(tiletum.legal_moves(self.state))
        rv = self.client.post(f"/api/v1/games/{self.id}/moves",
                              headers={"Authorization": f"Bearer {self.tokens[seat]}"},
                              json={"expected_version": self.state.version, "moves": [m]})
        assert rv.status_code == 200, rv.get_data(as_text=True)
        _, self.state = tiletum.play(self.state, seat, tiletum.parse(m), seed=self.seed)
        return True


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "5", "--moves", "100"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games in progress for the memory figure")
    ap.add_argument("--moves", type=int, default=3000, help="moves timed for the per-move figures")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        app = create_app(
            {"REDIS_URL": server.url, "ALLOW_SEEDED_GAMES": True, "RATE_LIMIT": 0, "SEND_TASK": False})
        client = app.test_client()
        r = app.extensions["tablepost.store"].r
        rng = random.Random(15)
        base = r.info("memory")["used_memory"]
        tables = [Table(client, 3, f"cap-{i}") for i in range(a.games)]
        for t in tables:
            for _ in range(120):
                if not t.move(rng):
                    break
        events = sum(t.state.version for t in tables)
        per_game = (r.info("memory")["used_memory"] - base) / a.games
        print(f"memory per game in progress: {per_game / 1024:.1f} KiB "
              f"({events / a.games:.0f} events a game, {per_game / (events / a.games):.0f} B per event, "
              f"{a.games} games of 3 players)")
        # per move: Redis commands and CPU, API CPU
        fresh = [Table(client, 3, f"cap-move-{i}") for i in range(64)]
        c0, rc0, ac0, w0 = commands(r), redis_cpu(r), cpu_self(), time.perf_counter()
        done = 0
        while done < a.moves:
            for t in fresh:
                if t.move(rng):
                    done += 1
            fresh = [t for t in fresh if t.state.phase != "over"] or [Table(client, 3, f"cap-more-{done}")]
        c1, rc1, ac1, w1 = commands(r), redis_cpu(r), cpu_self(), time.perf_counter()
        per = {k: (c1.get(k, 0) - c0.get(k, 0)) / done for k in c1}
        per = {k: v for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if v >= 0.01}
        total = sum(v for k, v in per.items() if k not in ("info",))
        redis_ms = (rc1 - rc0) / done * 1000
        api_ms = (ac1 - ac0) / done * 1000
        print(f"redis commands per move: {total:.2f} "
              f"({', '.join(f'{k} {v:.2f}' for k, v in per.items() if k != 'info')})")
        print(f"redis CPU per move: {redis_ms:.3f} ms -> about {1000 / redis_ms:,.0f} moves/s per Redis core "
              "(shard)")
        print(f"API CPU per move (in-process, no HTTP server): {api_ms:.2f} ms -> about {1000 / api_ms:,.0f} "
              f"moves/s per API core; wall {done / (w1 - w0):,.0f} moves/s here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
