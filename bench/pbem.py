"""Play-by-email benchmark (prints figures; not a test).

    python bench/pbem.py [--quick] [--turns N] [--emails M] [--burst B] [--sweep-seconds S]

The whole email path, with real parts on loopback: a Redis this script starts
(api/redis_server.py, the store and the Celery broker), an aiosmtpd SMTP server in this process
standing for the players' mailboxes (it stamps each message with ``time.perf_counter()`` as it
is received), ONE Celery worker process (``celery -A workers.app worker -Q email --pool solo``,
with REDIS_URL, TABLEPOST_SMTP_URL, TABLEPOST_MAIL_SECRET, TABLEPOST_MAIL_DOMAIN and TABLEPOST_PUBLIC_URL;
no beat), and the Flask app of ``tests.conftest.make_app(redis_url, SEND_TASK=None,
MAIL_SECRET=...)`` (its Flask test client), which publishes real Celery messages to that Redis.

  * latency, move to turn email: 2-player seeded games whose seats have email addresses are
    created through the app (each creation emails seat 0: untimed, it also proves the worker is
    up). Then, one turn at a time and round-robin over the games, the seat to act plays its
    turn through the API: the moves before the last (take a die, and a bonus tile or an action
    when the rules ask for one) in untimed POSTs (one, or two when a move of them reveals chance,
    which ends a batch), then the move that passes the decision to
    the other seat ('end') in its own POST. The time runs from just before that POST until the
    SMTP server has received the turn email of the other seat, matched by its recipient and by
    the (game, seat, version) of its Reply-To address. The next turn starts only once that email
    is in, so nothing queues. N turns (default 200; 40 with --quick) after a few warm-up turns.
    Goal: p50 < 200 ms. The moves are chosen on a local engine mirror of each seeded game, so
    the client needs no GET between moves;
  * throughput of one worker: M further games are created through an app that publishes nothing
    (so their turn emails are not yet due in the broker), then ``workers.notify_turn(game, 1)``,
    the very message the app sends on creation, is published for each of them as fast as the
    producer goes, and the time runs from just before the first publish until the SMTP server
    has received all M turn emails. Default M = 500 (100 with --quick), after a warm-up batch.
    Goal: >= 50 emails/s with the inline picture (issue 40; issue 15's 200 was without it; run
    with TABLEPOST_MAIL_PICTURES=0 for that one). Also the worker's own CPU time per email (user +
    system, from /proc, over the same span): emails per CPU-second of the worker is what one
    worker sends when it has a core to itself, and hardly moves with the load of other processes
    on a shared machine, unlike the rate; and the bytes per email as received;
  * the sweeps during a burst: a sweeps worker (``-Q sweeps --pool solo``) and Celery beat start,
    with every 30-second sweep scheduled every S seconds (``TABLEPOST_SWEEP_SECONDS``, default 10);
    once each sweep has run, B further games (default 1000; 200 with --quick) have their
    ``workers.notify_turn`` published at once, and until the email worker has sent them all, the
    bench reads the sweeps' heartbeats (application/heartbeat.py: when a worker started each).
    The delay of a sweep is how much later than its interval it started after its previous run.
    Goal: no sweep delayed by more than its interval during the burst.

Every subprocess and server is stopped at exit, also on Ctrl-C or SIGTERM.
"""
from __future__ import annotations

import argparse
import atexit
import email.parser
import email.policy
import logging
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

# Keep this script's own folder off sys.path (bench/api.py would shadow the "api" package).
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

from api.redis_server import EmbeddedRedis, die_with_parent, free_port  # noqa: E402

GOAL_LATENCY_P50_MS = 200.0
GOAL_EMAILS_PER_S = 50.0      # with the inline picture (issue 40)
SECRET = "bench-pbem-secret"
DOMAIN = "pbem.bench"
PUBLIC_URL = "http://127.0.0.1:9"
WAIT_EMAIL_S = 30.0            # one turn email
WAIT_WORKER_S = 90.0           # the worker's start-up and the first email
REPLY_TO = re.compile(r"play\+([A-Za-z0-9]+)\.(\d+)\.(\d+)\.", re.IGNORECASE)

_children: list[subprocess.Popen] = []


# --- the mailboxes ---------------------------------------------------------------------------------

class Inbox:
    """An aiosmtpd SMTP server on 127.0.0.1 keeping, for each turn email, when it was received
    (``time.perf_counter()``, stamped before anything else), keyed by its Reply-To's (game, seat,
    version)."""

    def __init__(self):
        from aiosmtpd.controller import Controller
        self.cond = threading.Condition()
        self.arrivals: dict[tuple[str, int, int], tuple[float, str, int]] = {}  # key -> (t, To, bytes)
        self.duplicates = 0
        self.others = 0   # received but not a turn email (no reply address)
        parser = email.parser.BytesHeaderParser(policy=email.policy.default)
        box = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                t = time.perf_counter()
                headers = parser.parsebytes(envelope.content)
                m = REPLY_TO.search(str(headers["Reply-To"] or ""))
                with box.cond:
                    if m is None:
                        box.others += 1
                    else:
                        key = (m.group(1), int(m.group(2)), int(m.group(3)))
                        if key in box.arrivals:
                            box.duplicates += 1
                        else:
                            box.arrivals[key] = (t, str(headers["To"] or ""), len(envelope.content))
                    box.cond.notify_all()
                return "250 OK"

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.started = False

    def start(self) -> "Inbox":
        self.controller.start()
        self.started = True
        return self

    def stop(self) -> None:
        if self.started:
            self.started = False
            self.controller.stop()

    def wait(self, keys: list[tuple[str, int, int]], timeout: float, worker: "Worker | None" = None) -> bool:
        """Until every key has arrived (True) or ``timeout`` seconds pass (False)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not all(k in self.arrivals for k in keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(min(left, 0.5))
                if worker is not None:
                    worker.check()
        return True


# --- the worker ------------------------------------------------------------------------------------

class Worker:
    def __init__(self, env: dict, log_path: str,
                 args: tuple[str, ...] = ("worker", "-Q", "email", "--pool", "solo")):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers.app", *args, "--loglevel", "WARNING"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent)
        _children.append(self.proc)

    def check(self) -> None:
        if self.proc.poll() is not None:
            raise RuntimeError(f"the Celery worker exited with {self.proc.returncode}: {self.tail()}")

    def tail(self) -> str:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()[-1200:]
        except OSError:
            return "(no log)"


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)   # Celery's warm shutdown (its own session)
        except ProcessLookupError:
            pass
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


def _cleanup() -> None:
    while _children:
        stop(_children.pop())


# --- games through the API -------------------------------------------------------------------------

@dataclass
class Game:
    gid: str
    seed: str
    tokens: list[str]
    emails: list[str]
    state: object                       # engine mirror (a seeded game is reproducible)
    rng: random.Random = field(repr=False, default_factory=random.Random)


def create_game(client, name: str) -> Game:
    from tiletum.game import new_game
    seed = f"bench-pbem-{name}"
    emails = [f"{name}.s0@players.bench", f"{name}.s1@players.bench"]
    rv = client.post("/api/v1/games", json={
        "seats": [{"name": "Ada", "email": emails[0]}, {"name": "Bob", "email": emails[1]}],
        "options": {"seed": seed}})
    if rv.status_code != 201:
        raise RuntimeError(f"creating a game: {rv.status_code} {rv.get_data(as_text=True)[:300]}")
    # players who play by email (docs/pbem.md): their addresses have acted on our email, and a turn
    # email goes at once (not held as for a seat playing live on its page, nor capped as a stranger's)
    from application.dashboard import mark_verified
    from application.notifications import set_delay_minutes
    r = client.application.extensions["tablepost.service"].store.r
    for address in emails:
        mark_verified(r, address)
        set_delay_minutes(r, address, 0)
    state, _ = new_game(2, seed)
    if rv.json["version"] != state.version:
        raise RuntimeError("the engine mirror does not match the server's game")
    return Game(rv.json["id"], seed, [s["token"] for s in rv.json["seats"]], emails, state,
                random.Random(seed))


def choose(state, rng: random.Random) -> str:
    """Take a die, then end as soon as the rules allow (a bonus tile is skipped; when an action
    must be chosen, any but buying)."""
    from tiletum.game import legal
    moves = sorted(str(m) for m in legal(state))
    if "end" in moves:
        return "end"
    takes = [m for m in moves if m.startswith("take ") and ">" not in m]
    if takes:
        return takes[rng.randrange(len(takes))]
    if "skip" in moves:
        return "skip"
    rest = [m for m in moves if not m.startswith("buy ")]
    return (rest or moves)[0]


@dataclass
class Turn:
    key: tuple[str, int, int] | None    # the turn email expected, None if the game ended
    to: str
    t0: float                           # just before the POST that passes the turn
    t1: float                           # that POST answered


def play_turn(client, g: Game) -> Turn:
    """The seat to act plays up to the move that passes the decision; that move is POSTed alone."""
    from tiletum.game import play
    seat, s, moves = g.state.actor, g.state, []
    for _ in range(50):
        m = choose(s, g.rng)
        _, s = play(s, seat, m, seed=g.seed, trusted=True)
        moves.append(m)
        if s.actor != seat or s.phase == "over":
            break
    else:
        raise RuntimeError(f"{g.gid}: seat {seat} could not end its turn")
    auth = {"Authorization": f"Bearer {g.tokens[seat]}"}
    version = g.state.version
    before = moves[:-1]
    while before:   # a batch ends at a move that reveals chance (a new round's dice): the rest again
        rv = client.post(f"/api/v1/games/{g.gid}/moves", headers=auth,
                         json={"expected_version": version, "moves": before})
        if rv.status_code != 200 or not rv.json.get("applied"):
            raise RuntimeError(f"{g.gid}: {before}: {rv.status_code} {rv.get_data(as_text=True)[:300]}")
        version, before = rv.json["version"], before[rv.json["applied"]:]
    t0 = time.perf_counter()
    rv = client.post(f"/api/v1/games/{g.gid}/moves", headers=auth,
                     json={"expected_version": version, "moves": moves[-1:]})
    t1 = time.perf_counter()
    if rv.status_code != 200 or rv.json["version"] != s.version:
        raise RuntimeError(f"{g.gid}: {moves[-1]}: {rv.status_code} {rv.get_data(as_text=True)[:300]}")
    g.state = s
    if s.phase == "over" or s.actor is None:
        return Turn(None, "", t0, t1)
    return Turn((g.gid, s.actor, s.version), g.emails[s.actor], t0, t1)


# --- the measures ----------------------------------------------------------------------------------

def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


@dataclass
class Latency:
    total: list[float] = field(default_factory=list)      # POST start -> email received, seconds
    post: list[float] = field(default_factory=list)       # the POST itself
    after: list[float] = field(default_factory=list)      # POST answered -> email received
    games: int = 0
    missing: int = 0
    wrong_to: int = 0
    ended: int = 0
    seconds: float = 0.0


def measure_latency(client, inbox: Inbox, worker: Worker, turns: int, warmup: int, n_games: int) -> Latency:
    out = Latency()
    games: list[Game] = []
    created = 0

    def new() -> Game:
        nonlocal created
        g = create_game(client, f"lat{created}")
        created += 1
        return g

    games = [new() for _ in range(n_games)]
    first = [(g.gid, 0, 1) for g in games]
    if not inbox.wait(first, WAIT_WORKER_S + n_games * 0.5, worker):
        raise RuntimeError(
            f"the creation emails did not all arrive ({sum(k in inbox.arrivals for k in first)}"
            f"/{len(first)}): {worker.tail()}")
    t_start = time.perf_counter()
    done = 0
    i = 0
    while done < warmup + turns:
        slot = i % len(games)
        i += 1
        turn = play_turn(client, games[slot])
        if turn.key is None:        # a finished game (its results emails are not turn emails)
            out.ended += 1
            games[slot] = new()
            if not inbox.wait([(games[slot].gid, 0, 1)], WAIT_EMAIL_S, worker):
                raise RuntimeError("a new game's creation email did not arrive")
            continue
        ok = inbox.wait([turn.key], WAIT_EMAIL_S, worker)
        done += 1
        if done <= warmup:
            continue
        if not ok:
            out.missing += 1
            continue
        t_arr, to, _ = inbox.arrivals[turn.key]
        if to != turn.to:
            out.wrong_to += 1
            continue
        out.total.append(t_arr - turn.t0)
        out.post.append(turn.t1 - turn.t0)
        out.after.append(t_arr - turn.t1)
    out.seconds = time.perf_counter() - t_start
    out.games = created
    return out


@dataclass
class Throughput:
    emails: int = 0
    arrived: int = 0
    seconds: float = 0.0          # first publish -> last email received
    publish: float = 0.0          # publishing all the messages
    steady: float = 0.0           # emails/s from the first to the last email received
    create: float = 0.0           # creating the games (not timed)
    mean_bytes: float = 0.0
    worker_cpu: float = 0.0       # the worker's CPU seconds (user + system) over the same span


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its threads (Linux /proc), else 0."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def measure_throughput(quiet_client, send, inbox: Inbox, worker: Worker, emails: int,
                       warmup: int) -> Throughput:
    out = Throughput(emails=emails)
    t = time.perf_counter()
    warm = [create_game(quiet_client, f"tpw{i}") for i in range(warmup)]
    games = [create_game(quiet_client, f"tp{i}") for i in range(emails)]
    out.create = time.perf_counter() - t
    for g in warm:
        send("workers.notify_turn", [g.gid, 1], "email")
    if not inbox.wait([(g.gid, 0, 1) for g in warm], WAIT_EMAIL_S + warmup, worker):
        raise RuntimeError("the throughput warm-up emails did not arrive")
    keys = [(g.gid, 0, 1) for g in games]
    cpu0 = cpu_seconds(worker.proc.pid)
    t0 = time.perf_counter()
    for g in games:
        send("workers.notify_turn", [g.gid, 1], "email")
    out.publish = time.perf_counter() - t0
    inbox.wait(keys, WAIT_EMAIL_S + emails / 5, worker)
    out.worker_cpu = cpu_seconds(worker.proc.pid) - cpu0
    with inbox.cond:
        got = [inbox.arrivals[k] for k in keys if k in inbox.arrivals]
    out.arrived = len(got)
    if got:
        times = [a[0] for a in got]
        out.seconds = max(times) - t0
        if len(times) > 1 and max(times) > min(times):
            out.steady = (len(times) - 1) / (max(times) - min(times))
        out.mean_bytes = sum(a[2] for a in got) / len(got)
    return out


@dataclass
class Sweeps:
    burst: int = 0
    arrived: int = 0
    seconds: float = 0.0                                        # first publish -> last email received
    interval: float = 0.0
    runs: dict[str, list[float]] = field(default_factory=dict)   # sweep -> start times during the burst
    delay: dict[str, float] = field(default_factory=dict)        # sweep -> its largest delay, seconds


def measure_sweeps(quiet_client, send, inbox: Inbox, redis_url: str, env: dict, tmp: str, burst: int,
                   interval: float, rate: float) -> Sweeps:
    """A sweeps worker and beat, then a burst of ``burst`` turn emails: each sweep's runs while the
    email worker works the burst off (waited for up to twice as long as ``rate``, the emails per
    second measured before, says it takes)."""
    import redis
    from application import heartbeat
    out = Sweeps(burst=burst, interval=interval)
    r = redis.Redis.from_url(redis_url)
    senv = dict(env, TABLEPOST_SWEEP_SECONDS=f"{interval:g}")
    sweeper = Worker(senv, os.path.join(tmp, "sweeps.log"), ("worker", "-Q", "sweeps", "--pool", "solo"))
    beat = Worker(senv, os.path.join(tmp, "beat.log"), ("beat", "--schedule", os.path.join(tmp, "beat")))
    games = [create_game(quiet_client, f"burst{i}") for i in range(burst)]
    watched = ("workers.sweep_outbox", "workers.sweep_notifications", "workers.sweep_deadlines",
               "workers.sweep_bot_turns", "workers.sweep_tournaments")
    deadline = time.monotonic() + WAIT_WORKER_S + 3 * interval
    while not all(n in (every := heartbeat.beats(r)) for n in watched):   # every sweep has run once
        if time.monotonic() > deadline:
            raise RuntimeError(f"the sweeps did not start: {sweeper.tail()} {beat.tail()}")
        sweeper.check()
        beat.check()
        time.sleep(0.2)
    keys = [(g.gid, 0, 1) for g in games]
    last = {n: every[n]["at"] for n in watched}
    runs: dict[str, list[float]] = {n: [] for n in watched}
    t0_wall, t0 = time.time(), time.perf_counter()
    for g in games:
        send("workers.notify_turn", [g.gid, 1], "email")
    wait_until = time.monotonic() + WAIT_EMAIL_S + 2 * burst / max(rate, 0.5)
    while time.monotonic() < wait_until:
        now = heartbeat.beats(r)
        for n in watched:
            at = now.get(n, {}).get("at")
            if at is not None and at > last[n]:
                runs[n].append(at)
                last[n] = at
        with inbox.cond:
            got = sum(k in inbox.arrivals for k in keys)
        if got == len(keys):
            break
        sweeper.check()
        time.sleep(0.1)
    end_wall = time.time()
    with inbox.cond:
        times = [inbox.arrivals[k][0] for k in keys if k in inbox.arrivals]
    out.arrived = len(times)
    out.seconds = (max(times) - t0) if times else 0.0
    for n in watched:
        starts = [every[n]["at"]] + runs[n] + [end_wall]      # the run before the burst .. its end
        gaps = [b - a for a, b in zip(starts, starts[1:]) if b >= t0_wall]
        out.runs[n] = runs[n]
        out.delay[n] = max(0.0, max(gaps, default=0.0) - interval)
    r.close()
    for w in (beat, sweeper):
        _children.remove(w.proc)
        stop(w.proc)
    return out


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


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--turns", "4", "--emails", "5", "--burst", "20"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a short run (40 turns, 100 emails)")
    ap.add_argument("--turns", type=int, default=None, metavar="N",
                    help="timed turns for the latency (default 200; 40 with --quick)")
    ap.add_argument("--emails", type=int, default=None, metavar="M",
                    help="turn emails for the throughput (default 500; 100 with --quick)")
    ap.add_argument("--burst", type=int, default=None, metavar="B",
                    help="turn emails in the burst the sweeps run through "
                         "(default 1000; 200 with --quick; 0: skip)")
    ap.add_argument("--sweep-seconds", type=float, default=10.0, metavar="S",
                    help="the sweeps' interval during the burst (default 10)")
    a = ap.parse_args(argv)
    turns = a.turns if a.turns is not None else (40 if a.quick else 200)
    emails = a.emails if a.emails is not None else (100 if a.quick else 500)
    burst = a.burst if a.burst is not None else (200 if a.quick else 1000)
    if turns < 1 or emails < 1:
        ap.error("--turns and --emails must be at least 1")
    warmup_turns = 5 if a.quick else 10
    warmup_emails = 10 if a.quick else 25
    n_games = max(8, turns // 8)   # about 8 turns per game: far from any game's end

    atexit.register(_cleanup)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    logging.getLogger("mail.log").setLevel(logging.WARNING)   # aiosmtpd's per-session log
    tmp = tempfile.mkdtemp(prefix="tablepost-bench-pbem-")
    redis_server = EmbeddedRedis(os.path.join(tmp, "redis"))
    inbox: Inbox | None = None
    worker: Worker | None = None
    try:
        redis_server.start()
        inbox = Inbox().start()
        env = {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"}
        env.update(REDIS_URL=redis_server.url, TABLEPOST_SMTP_URL=f"smtp://127.0.0.1:{inbox.port}",
                   TABLEPOST_MAIL_SECRET=SECRET, TABLEPOST_MAIL_DOMAIN=DOMAIN,
                   TABLEPOST_PUBLIC_URL=PUBLIC_URL,
                   PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p),
                   PYTHONDONTWRITEBYTECODE="1")
        worker = Worker(env, os.path.join(tmp, "worker.log"))

        from api.broker import celery_send_task
        from tests.conftest import make_app
        app = make_app(redis_server.url, SEND_TASK=None, MAIL_SECRET=SECRET)          # real Celery messages
        quiet = make_app(redis_server.url, SEND_TASK=False, MAIL_SECRET=SECRET)       # publishes nothing
        send = celery_send_task(redis_server.url)

        print(f"Tiletum play-by-email benchmark: {turns} timed turns (+{warmup_turns} warm-up) over "
              f"{n_games}+ games, {emails} emails (+{warmup_emails} warm-up) for the throughput; "
              f"one Celery worker (--pool solo) on Redis, aiosmtpd on loopback; "
              f"{os.cpu_count()} CPUs shared by Redis, the worker, the SMTP server and the client; "
              f"Python {sys.version.split()[0]}", flush=True)
        lat = measure_latency(app.test_client(), inbox, worker, turns, warmup_turns, n_games)
        print(f"  latency: {len(lat.total)} turns in {lat.seconds:.1f} s", file=sys.stderr, flush=True)
        thr = measure_throughput(quiet.test_client(), send, inbox, worker, emails, warmup_emails)
        print(f"  throughput: {thr.arrived}/{thr.emails} emails in {thr.seconds:.1f} s", file=sys.stderr,
              flush=True)
        swp = None
        if burst > 0:
            swp = measure_sweeps(quiet.test_client(), send, inbox, redis_server.url, env, tmp, burst,
                                 a.sweep_seconds, thr.arrived / thr.seconds if thr.seconds > 0 else 0.0)
            print(f"  burst: {swp.arrived}/{swp.burst} emails in {swp.seconds:.1f} s", file=sys.stderr,
                  flush=True)
        time.sleep(0.5)   # anything sent twice would arrive now
        duplicates, others = inbox.duplicates, inbox.others
        worker_alive = worker.proc.poll() is None
    finally:
        _cleanup()
        if inbox is not None:
            inbox.stop()
        redis_server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    p50 = quantile(lat.total, 0.5) * 1000
    rate = thr.arrived / thr.seconds if thr.seconds > 0 else 0.0
    complete = (thr.arrived == thr.emails and lat.missing == 0 and lat.wrong_to == 0
                and (swp is None or swp.arrived == swp.burst))

    def pq(xs: list[float]) -> str:
        return f"{quantile(xs, 0.5) * 1000:.1f} / {quantile(xs, 0.99) * 1000:.1f} ms"

    rows = [
        (f"move -> turn email received, p50 / p99 (n={len(lat.total)})", pq(lat.total),
         f"p50 < {GOAL_LATENCY_P50_MS:g} ms", verdict(p50 < GOAL_LATENCY_P50_MS and lat.missing == 0)),
        ("  of which the POST that passes the turn, p50 / p99", pq(lat.post), "", ""),
        ("  of which POST answered -> email received, p50 / p99", pq(lat.after), "", ""),
        ("move -> turn email received, max", f"{max(lat.total, default=float('nan')) * 1000:.1f} ms", "", ""),
        (f"one worker: turn emails sent (n={thr.emails})", f"{rate:.1f} emails/s",
         f">= {GOAL_EMAILS_PER_S:g} emails/s",
         verdict(rate >= GOAL_EMAILS_PER_S and thr.arrived == thr.emails)),
        ("  first -> last email received (steady rate)", f"{thr.steady:.1f} emails/s", "", ""),
        ("  per email (first publish -> last received)",
         f"{thr.seconds / max(thr.arrived, 1) * 1000:.2f} ms", "", ""),
        ("  publishing the notify_turn messages", f"{thr.publish * 1000:.0f} ms", "", ""),
        ("  the worker's CPU time per email", f"{thr.worker_cpu / max(thr.arrived, 1) * 1000:.2f} ms", "",
         ""),
        ("  emails per CPU-second of the worker",
         f"{thr.arrived / thr.worker_cpu if thr.worker_cpu > 0 else float('nan'):.1f} emails/s", "", ""),
        ("  bytes per email (mean, as received)", f"{thr.mean_bytes:.0f} B", "", ""),
    ]
    if swp is not None:
        worst = max(swp.delay.values(), default=0.0)
        rows += [
            (f"burst of {swp.burst} turn emails: received, in", f"{swp.arrived} in {swp.seconds:.1f} s",
             "", ""),
            (f"  a sweep's largest delay during it (interval {swp.interval:g} s)", f"{worst:.1f} s",
             f"<= {swp.interval:g} s", verdict(worst <= swp.interval)),
        ]
        rows += [(f"    {name.split('.')[-1]}: runs, largest delay", f"{len(swp.runs[name])}, {d:.1f} s",
                  "", "") for name, d in swp.delay.items()]
    print()
    table(("measure", "value", "goal", "verdict"), rows, right={1})
    print()
    print(f"Conditions: {os.cpu_count()} CPUs shared by Redis, the worker, the SMTP server and this client; "
          "ONE Celery worker, --pool solo (one task at a time; its emails go out over one kept-open SMTP "
          "connection), "
          "no beat; the app in-process (Flask test client), publishing through Redis.")
    print(f"Latency: {len(lat.total)} turns timed one at a time (each email awaited before the next "
          f"move), in {lat.games} games, {lat.missing} emails missing after {WAIT_EMAIL_S:g} s, "
          f"{lat.wrong_to} to the wrong recipient, {lat.ended} games ended and replaced. "
          f"Throughput: {thr.arrived}/{thr.emails} emails received, {thr.mean_bytes / 1024:.1f} KiB "
          f"each on average (text, HTML and the inline board PNG); {thr.emails} games created beforehand "
          f"in {thr.create:.1f} s (not timed). Emails received twice: {duplicates}; "
          f"other emails: {others}; worker alive at the end: {'yes' if worker_alive else 'no'}.")
    return 0 if complete and duplicates == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:   # everything was stopped on the way out (finally, atexit)
        print("interrupted", file=sys.stderr)
        sys.exit(130)
