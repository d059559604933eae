"""Hints under load (prints figures; not a test): does hint work slow other requests?

    python bench/hints.py [--games N] [--samples S] [--level L] [--workers W] [--all-workers]

A real ``tablepost serve --no-workers`` (the API under gunicorn, W processes (default 1); tests/servers.py
``Serve``) and beside it the hints worker as serve starts it (``api.cli.worker_command``, queue
``hints``; tests/servers.py ``HintWorker``), on a Redis of the bench's own, with N unrated games: the
API and what computes its hints, nothing else (``--all-workers``: the whole ``tablepost serve``, every
worker, beat and the listener too, whose own timers then share the cores). The hints are computed by
the hints worker (application/hints.py), a process of its own at a lower CPU priority, never by
the API's processes.
First S plain GETs (``GET /api/v1/games/{id}``, one after another) on the idle server: p50 / p99.
Then N clients (threads of a process of their own) ask for a hint at once, one in each game, and
keep asking (after the Retry-After each answer gives) until they have it, while the same S GETs
are timed again. Printed: both p50 / p99 side by side and their ratio, and what the hint requests
got (200, 202, 429 ``hints-busy``) with the slowest refusal. Goal (issue 39): the p99 under hints
at most twice the idle p99.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import requests  # noqa: E402

from api.redis_server import EmbeddedRedis  # noqa: E402
from tests.servers import HintWorker, Serve  # noqa: E402

API = "/api/v1/games"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


def plain_gets(url: str, gid: str, samples: int, stop: threading.Event | None = None) -> list[float]:
    out = []
    with requests.Session() as s:
        for _ in range(samples):
            if stop is not None and stop.is_set():
                break
            t0 = time.perf_counter()
            rv = s.get(f"{url}{API}/{gid}", timeout=60)
            out.append(time.perf_counter() - t0)
            assert rv.status_code == 200, rv.text
            time.sleep(0.02)
    return out


def create_games(url: str, n: int) -> list[tuple[str, str]]:
    games = []
    with requests.Session() as s:
        for i in range(n):
            rv = s.post(url + API, timeout=30, json={"seats": [{"name": "Ann"}, {"name": "Bob"}]})
            assert rv.status_code == 201, rv.text
            g = rv.json()
            to_act = s.get(f"{url}{API}/{g['id']}", timeout=30).json()["to_act"][0]
            games.append((g["id"], g["seats"][to_act]["token"]))
    return games


def hint_until_answered(url: str, gid: str, token: str, seen: list, deadline: float) -> None:
    while time.monotonic() < deadline:   # a new connection each time (no keep-alive race after a wait)
        t0 = time.perf_counter()
        rv = requests.get(f"{url}{API}/{gid}/hint", headers={"Authorization": f"Bearer {token}"}, timeout=60)
        dt = time.perf_counter() - t0
        code = rv.json().get("code") if rv.status_code >= 400 else None
        seen.append((rv.status_code, code, dt))
        if rv.status_code == 200:
            return
        assert rv.status_code in (202, 429), rv.text
        time.sleep(float(rv.headers.get("Retry-After", "1")))


def hint_clients(url: str, games: list[tuple[str, str]], seconds: float) -> list:
    """The N hint clients, a thread each, in a process of their own (see :func:`measure`)."""
    seen: list = []
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=hint_until_answered, args=(url, gid, tok, seen, deadline))
               for gid, tok in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return seen


def measure(url: str, games: list[tuple[str, str]], samples: int, seconds: float = 120) -> dict:
    """The GETs timed idle, then while the hint clients ask. The hint clients run in a process of
    their own: in this one their 40 threads would hold the interpreter's lock while the timer's
    answer waits to be read, and the timer would measure this process, not the server."""
    probe = games[0][0]
    plain_gets(url, probe, 10)                   # warm-up
    idle = plain_gets(url, probe, samples)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as pool:
        clients = pool.submit(hint_clients, url, games, seconds)
        time.sleep(0.5)                          # the process is up and every hint request sent
        loaded = plain_gets(url, probe, samples)
        seen = clients.result()
    return {"idle": idle, "loaded": loaded, "seen": seen}


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--games", "8", "--samples", "40", "--level", "easy"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40, metavar="N", help="games, one hint request each (40)")
    ap.add_argument("--samples", type=int, default=200, metavar="S", help="plain GETs timed per phase (200)")
    ap.add_argument("--level", default="hard", help="TABLEPOST_HINT_LEVEL (default hard: the slowest)")
    ap.add_argument("--workers", type=int, default=1, help="gunicorn processes (default 1, as issue 39)")
    ap.add_argument("--all-workers", action="store_true",
                    help="the whole tablepost serve (every worker, beat, the listener), not the API and the "
                         "hints worker alone")
    a = ap.parse_args(argv)
    data = Path(tempfile.mkdtemp(prefix="tablepost-bench-hints-"))
    env = {"TABLEPOST_HINT_LEVEL": a.level, "TABLEPOST_CREATE_LIMIT": "100000/hour",
           "TABLEPOST_RATE_LIMIT": "100000"}
    redis_server = None
    try:
        if a.all_workers:
            with Serve(data, "--workers", str(a.workers), env=env) as serve:
                games = create_games(serve.url, a.games)
                r = measure(serve.url, games, a.samples)
        else:
            redis_server = EmbeddedRedis(data / "redis").start()
            env["REDIS_URL"] = redis_server.url
            with HintWorker(redis_server.url, data / "hints.log"), \
                    Serve(data, "--no-workers", "--workers", str(a.workers), env=env) as serve:
                games = create_games(serve.url, a.games)
                r = measure(serve.url, games, a.samples)
    finally:
        if redis_server is not None:
            redis_server.stop()
        shutil.rmtree(data, ignore_errors=True)
    idle, loaded, seen = r["idle"], r["loaded"], r["seen"]
    busy = [dt for status, code, dt in seen if code == "hints-busy"]
    worker = os.environ.get("TABLEPOST_WORKER", "gevent")
    parts = "every worker" if a.all_workers else "--no-workers, and the hints worker"
    print(f"hints under load: tablepost serve --workers {a.workers} (gunicorn, {worker}; {parts}: 1 process, "
          f"nice +19), "
          f"{a.games} unrated games, "
          f"level {a.level}, {os.cpu_count()} CPUs (shared); plain GET /api/v1/games/{{id}}, "
          f"{a.samples} per phase")
    print(f"{'':28}{'p50':>10}{'p99':>10}")
    print(f"{'idle':28}{pct(idle, .5):8.1f}ms{pct(idle, .99):8.1f}ms")
    print(f"{f'{a.games} hint requests in flight':28}{pct(loaded, .5):8.1f}ms{pct(loaded, .99):8.1f}ms")
    ratio = pct(loaded, .99) / pct(idle, .99)
    print(f"p99 loaded / idle: {ratio:.2f}x (goal <= 2x: {'PASS' if ratio <= 2 else 'BELOW'})")
    answered = sum(1 for s, _, _ in seen if s == 200)
    print(f"hint requests: {len(seen)} (200: {answered}, 202: {sum(1 for s, _, _ in seen if s == 202)}, "
          f"429 hints-busy: {len(busy)}); slowest refusal {max(busy, default=0) * 1000:.1f} ms; "
          f"mean GET {statistics.mean(loaded) * 1000:.1f} ms")
    return 0 if answered == a.games else 1


if __name__ == "__main__":
    sys.exit(main())
