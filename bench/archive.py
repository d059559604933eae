"""Archive benchmark (prints figures; not a test): Redis memory per finished game before and
after archiving (application/archive.py).

    python bench/archive.py [--games N] [--quick]

On a Redis this script starts (api/redis_server.py, the project's redis-server binary):
  * N seeded random games of 2, 3 and 4 players (in turn) are played to the end through the
    engine, one move at a time, and stored through the store as the service stores them (the
    game created by ``GameService.create_game`` with an email per seat, each move's events
    appended at its version, a snapshot where the service writes one);
  * the memory of each finished game: ``MEMORY USAGE`` of its keys (``g:{<id>}:*``) summed, and
    the growth of ``INFO used_memory`` from before the games were stored (which also counts the
    players' dashboard entries, which archiving keeps);
  * then every game is archived (``archive.sweep`` with no grace period), and the same figures
    are taken again; goal: at least 10x less per game (the keys' sum);
  * the time to archive a game, and the time to load a game cold (no cached state) before and
    after (an archived game is decompressed and replayed from its first event).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import redis  # noqa: E402

import tiletum  # noqa: E402
from api.redis_server import EmbeddedRedis  # noqa: E402
from application import archive  # noqa: E402
from application.game_service import GameService, StateCache  # noqa: E402
from application.store import EventStore, key  # noqa: E402

GOAL = 10.0


def play_and_store(svc: GameService, players: int, seed: str) -> tuple[str, int]:
    """One random game played to the end through the engine and stored move by move."""
    created = svc.create_game(
        [{"name": f"Player {i}", "email": f"p{i}.{seed}@example.org"} for i in range(players)],
        {"seed": seed}, game="tiletum")
    gid = created["id"]
    store = svc.store
    rng = random.Random(seed)
    state, _ = tiletum.new_game(players, seed)
    snap = 0
    while state.phase != "over":
        moves = sorted(tiletum.legal(state), key=str)
        evs, new = tiletum.play(state, state.actor, str(moves[rng.randrange(len(moves))]), seed=seed)
        store.append(gid, state.version, evs)
        state = new
        if state.version - snap >= svc.snapshot_every and not state.undo_moves:  # GameService's rule
            store.save_snapshot(gid, state.version, state.to_doc())
            snap = state.version
    archive.schedule(store.r, gid, time.time() - 1)  # its follow-up is done
    return gid, state.version


def key_bytes(r: redis.Redis, gid: str) -> int:
    """MEMORY USAGE of the game's keys summed (a missing key counts 0). A finished game has no
    Idempotency-Key records here (they expire after 24 h anyway)."""
    pipe = r.pipeline(transaction=False)
    for what in ("events", "snap", "meta", "seed", "archive"):
        pipe.memory_usage(key(gid, what), samples=0)
    return sum(x or 0 for x in pipe.execute())


def used(r: redis.Redis) -> int:
    return int(r.info("memory")["used_memory"])


def cold_loads_ms(svc: GameService, ids: list[str]) -> float:
    out = []
    for gid in ids:
        svc.cache = StateCache()
        t0 = time.perf_counter()
        svc.load(gid)
        out.append((time.perf_counter() - t0) * 1000)
    out.sort()
    return out[len(out) // 2]


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "6"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=None, metavar="N",
                    help="finished games (default 300; 60 quick)")
    ap.add_argument("--quick", action="store_true", help="a short run (60 games)")
    a = ap.parse_args(argv)
    n = a.games if a.games is not None else (60 if a.quick else 300)
    if n < 3:
        ap.error("--games must be at least 3")
    tmp = tempfile.mkdtemp(prefix="tablepost-bench-archive-")
    server = EmbeddedRedis(os.path.join(tmp, "redis")).start()
    try:
        r = redis.Redis.from_url(server.url)
        svc = GameService(EventStore(r), allow_seeded_games=True)
        r.memory_purge() if hasattr(r, "memory_purge") else None
        base = used(r)
        t0 = time.perf_counter()
        games = [play_and_store(svc, 2 + i % 3, f"bench-archive-{i}") for i in range(n)]
        played = time.perf_counter() - t0
        ids = [g for g, _ in games]
        events = sum(v for _, v in games)
        before_keys = sum(key_bytes(r, g) for g in ids)
        before_used = used(r) - base
        load_before = cold_loads_ms(svc, ids[:50])

        t0 = time.perf_counter()
        counts = archive.sweep(svc, 0, limit=n + 1)
        took = time.perf_counter() - t0
        if counts.get("archived") != n:
            raise SystemExit(f"not every game was archived: {counts}")
        r.memory_purge() if hasattr(r, "memory_purge") else None
        after_keys = sum(key_bytes(r, g) for g in ids)
        after_used = used(r) - base
        load_after = cold_loads_ms(svc, ids[:50])
        by_players = {}
        for i, (gid, v) in enumerate(games):
            by_players.setdefault(2 + i % 3, []).append(v)

        print(f"Tiletum archive benchmark: {n} finished random games (2-4 players, {events / n:.0f} events "
              f"on average; played and stored in {played:.1f} s), Redis {r.info('server')['redis_version']}")
        for p, vs in sorted(by_players.items()):
            print(f"  {p} players: {len(vs)} games, {sum(vs) / len(vs):.0f} events on average")
        print("memory per finished game        live       archived   ratio")
        print(f"  MEMORY USAGE of its keys   {before_keys / n:8.0f} B  {after_keys / n:8.0f} B  "
              f"{before_keys / after_keys:5.1f}x")
        print(f"  INFO used_memory growth    {before_used / n:8.0f} B  {after_used / n:8.0f} B  "
              f"{before_used / max(after_used, 1):5.1f}x  (includes the players' dashboard entries, kept)")
        print(f"  per event (keys)           {before_keys / events:8.1f} B  {after_keys / events:8.1f} B")
        print(f"archiving: {took / n * 1000:.2f} ms per game ({n / took:.0f} games/s, one process)")
        print(f"cold load p50 (50 games):    {load_before:.2f} ms live, {load_after:.2f} ms archived")
        ratio = before_keys / after_keys
        print(f"goal: at least {GOAL:.0f}x less per finished game: {'PASS' if ratio >= GOAL else 'BELOW'} "
              f"({ratio:.1f}x)")
        return 0
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
