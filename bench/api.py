"""API benchmark (prints figures; not a test).

    python bench/api.py [--quick] [--threads N] [--seconds S] [--loads K]

Through the whole stack, in one run and with the same settings for both servers (gunicorn,
2 workers, gthread, 4 threads each, on a Redis this script starts from api/redis_server.py):

  * the API, ``api:create_app()``: N client threads play random legal moves in many games, one
    move per ``POST /api/v1/games/{id}/moves`` (auth, load, decide, append): moves per second
    and p50/p99 latency;
  * the ceiling, bench/bare_app.py: the same clients and bodies against a bare Flask app doing
    one Redis XADD per request;
  * their ratio (goal: the API >= 50% of the ceiling);
  * the load time of a game of 1,000 events through ``GameService.load`` with the default
    snapshot interval (goal: p50 < 5 ms over K loads).

The moves come from tiletum random playouts of seeded games (the server runs with
TABLEPOST_ALLOW_SEEDED_GAMES=1), so that the clients know the legal moves without asking. The
clients use plain http.client keep-alive connections, and share the machine with the servers:
the client CPU is printed with the figures.
"""
from __future__ import annotations

import argparse
import atexit
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

# This file is called api.py: keep its own folder off sys.path so that "import api" finds the
# package (of this checkout), not this script.
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

from api.redis_server import EmbeddedRedis, free_port  # noqa: E402

GOAL_RATIO = 0.50
GOAL_LOAD_P50_MS = 5.0
LOAD_EVENTS = 1000
BIN = os.path.dirname(sys.executable)

_children: list[subprocess.Popen] = []


# --- processes -------------------------------------------------------------------------------

def gunicorn(app: str, port: int, env: dict, log: str, chdir: str) -> subprocess.Popen:
    exe = os.path.join(BIN, "gunicorn")
    cmd = [exe if os.path.exists(exe) else "gunicorn", "-w", "2", "-k", "gthread", "--threads", "4",
           "-b", f"127.0.0.1:{port}", "--chdir", chdir, "--error-logfile", log, "--log-level", "warning", app]
    proc = subprocess.Popen(cmd, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    _children.append(proc)
    return proc


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()  # gunicorn's master stops its workers on SIGTERM
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _cleanup() -> None:
    while _children:
        stop(_children.pop())


def wait_http(proc: subprocess.Popen, port: int, method: str, path: str, body: str | None, log: str,
              timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}: {_tail(log)}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
            status = conn.getresponse().status
            conn.close()
            if status < 500:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"gunicorn on port {port} did not answer in time: {_tail(log)}")
        time.sleep(0.1)


def _tail(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()[-800:]
    except OSError:
        return "(no log)"


# --- the games the clients play ----------------------------------------------------------------

@dataclass
class Script:
    """A seeded random game: its players, its seed and its moves as (seat, move text)."""
    players: int
    seed: str
    moves: list[tuple[int, str]]


def scripts(count: int) -> list[Script]:
    from tiletum.playout import random_game
    out = []
    for i in range(count):
        players = 2 + i % 3
        seed = f"bench-api-{players}p-{i}"
        g = random_game(players, seed)
        out.append(Script(players, seed, [(ev["seat"], ev["move"]) for ev in g.events[1:]]))
    return out


# --- the clients ---------------------------------------------------------------------------------

class Client:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, port: int):
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def post(self, path: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body)
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            try:
                self.conn.request("POST", path, body=data, headers=hdrs)
                resp = self.conn.getresponse()
                raw = resp.read()
                if resp.getheader("Connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return resp.status, (json.loads(raw) if raw else {})
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)   # seconds, of requests that ended in the window
    moves: int = 0
    errors: int = 0
    games: int = 0
    client_cpu: float = 0.0
    seconds: float = 0.0

    def merge(self, other: "Run") -> None:
        n = self.seconds + other.seconds
        self.client_cpu = (self.client_cpu * self.seconds + other.client_cpu * other.seconds) / n
        self.latencies += other.latencies
        self.moves += other.moves
        self.errors += other.errors
        self.games += other.games
        self.seconds = n

    def quantile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))]


def drive(port: int, target: str, pool: list[Script], threads: int, warmup: float, seconds: float) -> Run:
    """``threads`` clients submit moves for ``warmup + seconds``; figures are of the last ``seconds``."""
    run = Run(seconds=seconds)
    lock = threading.Lock()
    start = threading.Barrier(threads + 1)
    window: list[float] = [0.0, 0.0]

    def play(client: Client, script: Script, mine: Run, name: str, t_from: float, t_to: float) -> None:
        """One game, until it ends or the window closes."""
        if target == "api":
            status, created = client.post("/api/v1/games", {
                "seats": [{"name": f"P{i}"} for i in range(script.players)],
                "options": {"seed": script.seed}})
            if status != 201:
                mine.errors += 1
                return
            tokens, version = [s["token"] for s in created["seats"]], created["version"]
            path = f"/api/v1/games/{created['id']}/moves"
        else:
            tokens, version, path = [f"t{i}" for i in range(4)], 1, f"/bare/{name}"
        mine.games += 1
        for seat, move in script.moves:
            t0 = time.perf_counter()
            if t0 >= t_to:
                return
            status, out = client.post(path, {"expected_version": version, "moves": [move]},
                                      {"Authorization": f"Bearer {tokens[seat]}"})
            t1 = time.perf_counter()
            if status != 200:
                mine.errors += 1
                print(f"{target}: {status} {out}", file=sys.stderr)
                return
            version = out["version"] if target == "api" else version + 1
            if t_from <= t1 <= t_to:
                mine.latencies.append(t1 - t0)
                mine.moves += 1

    def worker(k: int) -> None:
        client, mine = Client(port), Run()
        start.wait()
        t_from, t_to = window
        g = k
        while time.perf_counter() < t_to:
            try:
                play(client, pool[g % len(pool)], mine, f"{target}-{k}-{g}", t_from, t_to)
            except (http.client.HTTPException, OSError, ValueError) as e:
                mine.errors += 1
                print(f"{target} client {k}: {type(e).__name__}: {e}", file=sys.stderr)
                client = Client(port)
            g += threads
        with lock:
            run.latencies.extend(mine.latencies)
            run.moves += mine.moves
            run.errors += mine.errors
            run.games += mine.games

    workers = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(threads)]
    for t in workers:
        t.start()
    now = time.perf_counter()
    window[:] = [now + warmup, now + warmup + seconds]
    cpu0 = time.process_time()
    start.wait()
    for t in workers:
        t.join()
    run.client_cpu = (time.process_time() - cpu0) / (warmup + seconds)
    return run


# --- load time of a long game --------------------------------------------------------------------

def long_game(redis_url: str, events: int, loads: int) -> tuple[float, float, int, int, float]:
    """Build a game of ``events`` events through the service (random legal moves, many of them
    taken back with 'undo', which is how a real game grows past a few hundred events), then time
    ``loads`` loads. Returns the cold p50 and p99 in ms (a process that has not cached the game:
    snapshot + tail), the version, the snapshot's version and the warm (cached) p50."""
    import redis

    from application.game_service import MAX_UNDOS_PER_TURN, GameService
    from application.store import EventStore, key
    from tiletum.game import legal

    store = EventStore(redis.Redis.from_url(redis_url))
    svc = GameService(store, allow_seeded_games=True)  # the default snapshot interval
    for attempt in range(10):
        rng = random.Random(attempt)
        created = svc.create_game([{"name": f"P{i}"} for i in range(4)], {"seed": f"bench-long-{attempt}"},
                                  game="tiletum")
        gid, tokens = created["id"], [s["token"] for s in created["seats"]]
        _, state = svc.load(gid)
        actor, turn_undos = None, 0   # the service takes back at most MAX_UNDOS_PER_TURN in a turn
        while state.version < events and state.phase != "over":
            if state.actor != actor:
                actor, turn_undos = state.actor, 0
            if state.undo_moves and turn_undos < MAX_UNDOS_PER_TURN and rng.random() < 0.75:
                move = "undo"
                turn_undos += 1
            else:
                options = legal(state)
                move = str(options[rng.randrange(len(options))])
            svc.submit(gid, tokens[state.actor], state.version, [move])
            _, state = svc.load(gid)
        if state.version == events:
            break
    else:
        raise RuntimeError(f"no game reached {events} events")
    raw = store.r.get(key(gid, "snap"))
    snap_version = int(raw.split(b"\n", 1)[0]) if raw else 0
    for _ in range(20):
        svc.load(gid)

    def timed(cold: bool) -> list[float]:
        out = []
        for _ in range(loads):
            if cold:  # a process that has not seen this game: snapshot + tail from Redis
                svc.cache = type(svc.cache)()
            t0 = time.perf_counter()
            svc.load(gid)
            out.append(time.perf_counter() - t0)
        return sorted(out)

    cold, warm = timed(True), timed(False)
    pick = lambda ts, q: ts[min(len(ts) - 1, int(q * len(ts)))] * 1000  # noqa: E731
    return pick(cold, 0.5), pick(cold, 0.99), state.version, snap_version, pick(warm, 0.5)


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--quick"]


# --- main ----------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a short run (8 threads, 4 s per server, 200 loads)")
    ap.add_argument("--threads", type=int, default=None, metavar="N",
                    help="client threads (default 16; 8 quick)")
    ap.add_argument("--seconds", type=float, default=None, metavar="S",
                    help="measured seconds per server (default 15 in 3 rounds; 4 quick), after warm-ups")
    ap.add_argument("--loads", type=int, default=200, metavar="K",
                    help="timed loads of the long game (default 200)")
    a = ap.parse_args(argv)
    threads = a.threads or (8 if a.quick else 16)
    seconds = a.seconds or (4.0 if a.quick else 15.0)
    warmup = 1.0 if a.quick else 2.0
    rounds = 1 if a.quick else 3
    if threads < 1 or seconds <= 0 or a.loads < 1:
        ap.error("--threads, --seconds and --loads must be positive")

    atexit.register(_cleanup)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = tempfile.mkdtemp(prefix="tablepost-bench-api-")
    redis_server = EmbeddedRedis(os.path.join(tmp, "redis"))
    try:
        redis_server.start()
        env = {"REDIS_URL": redis_server.url, "TABLEPOST_ALLOW_SEEDED_GAMES": "1",
               "TABLEPOST_RATE_LIMIT": "0",
               "PYTHONDONTWRITEBYTECODE": "1"}
        api_port, bare_port = free_port(), free_port()
        api_log, bare_log = os.path.join(tmp, "api.log"), os.path.join(tmp, "bare.log")
        api_proc = gunicorn("api:create_app()", api_port, env, api_log, ROOT)
        bare_proc = gunicorn("bare_app:create_app()", bare_port, env, bare_log, HERE)
        pool = scripts(max(12, threads * 2))
        wait_http(api_proc, api_port, "GET", "/health", None, api_log)
        wait_http(bare_proc, bare_port, "POST", "/bare/probe", "{}", bare_log)

        print(f"Tiletum API benchmark: {threads} client threads, {seconds:g} s per server ({rounds} "
              f"interleaved round(s), each after {warmup:g} s of warm-up); "
              "gunicorn -w 2 -k gthread --threads 4; "
              f"{os.cpu_count()} CPUs shared by servers, Redis and clients; Python {sys.version.split()[0]}")
        api, bare = Run(), Run()
        for _ in range(rounds):  # interleaved, so that a slow spell of the machine hits both alike
            api.merge(drive(api_port, "api", pool, threads, warmup, seconds / rounds))
            bare.merge(drive(bare_port, "bare", pool, threads, warmup, seconds / rounds))
        stop(api_proc)
        stop(bare_proc)
        load_p50, load_p99, version, snap, warm_p50 = long_game(redis_server.url, LOAD_EVENTS, a.loads)
    finally:
        _cleanup()
        redis_server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    api_rate, bare_rate = api.moves / api.seconds, bare.moves / bare.seconds
    ratio = api_rate / bare_rate if bare_rate else 0.0

    def pq(run: Run) -> str:
        return f"{run.quantile(0.5) * 1000:.1f} / {run.quantile(0.99) * 1000:.1f} ms"

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "BELOW"

    rows = [
        ("API: moves submitted", f"{api_rate:,.0f} moves/s", "", ""),
        ("API: latency p50 / p99", pq(api), "", ""),
        ("bare XADD app: requests", f"{bare_rate:,.0f} req/s", "", ""),
        ("bare XADD app: latency p50 / p99", pq(bare), "", ""),
        ("API / bare ceiling", f"{ratio:.0%}", f">= {GOAL_RATIO:.0%}", verdict(ratio >= GOAL_RATIO)),
        (f"load, {version} events (snapshot at {snap}) p50", f"{load_p50:.2f} ms",
         f"< {GOAL_LOAD_P50_MS:g} ms", verdict(load_p50 < GOAL_LOAD_P50_MS)),
        (f"load, {version} events p99 ({a.loads} loads)", f"{load_p99:.2f} ms", "", ""),
        ("load, same game already cached p50", f"{warm_p50:.2f} ms", "", ""),
    ]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    print()
    print(f"{'measure':<{w0}}  {'value':>{w1}}  {'goal':<{w2}}  verdict")
    for name, value, goal, result in rows:
        print(f"{name:<{w0}}  {value:>{w1}}  {goal:<{w2}}  {result}".rstrip())
    print()
    print(f"API: {api.moves:,} moves in {api.games} games, {api.errors} errors, client CPU "
          f"{api.client_cpu:.0%} of a core; bare: {bare.moves:,} requests, {bare.errors} errors, client CPU "
          f"{bare.client_cpu:.0%}")
    return 0 if api.errors == 0 and bare.errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
