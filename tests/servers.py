"""A real `tablepost serve` for end-to-end tests: its own embedded Redis under ``data``, gunicorn
and (unless ``--no-workers``) the Celery workers, beat, the seats worker and the mail
listener. Serve (gunicorn's arbiter) is one process group; Redis, each supervised part and each
gunicorn worker are a session (so a process group) of their own. ``start`` waits until /health
answers; a slow answer while the service boots on a busy machine counts as "not up yet", not as a failure."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import requests

from api.redis_server import free_port

BASE_ENV_DROP = ("REDIS_URL",)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Serve:
    def __init__(self, data, *args: str, env: dict | None = None, port: int | None = None,
                 drop_env: tuple[str, ...] = BASE_ENV_DROP, boot_seconds: float = 90, verbose: bool = True,
                 derived_mailin_port: bool = False, python: str | None = None, cwd=None):
        # verbose: every line of every part in output() (what most tests read); quiet: the console
        # an operator sees (tests/test_serve.py)
        self.data, self.args, self.port = data, (*args, "--verbose") if verbose else args, port or free_port()
        # a free port of its own for the email listener (serve's default, the web port + 25, may be
        # taken on a machine where many tests run servers at once)
        if "--mailin-port" not in self.args and not derived_mailin_port:
            self.args = (*self.args, "--mailin-port", str(free_port()))
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {k: v for k, v in os.environ.items() if k not in drop_env}
        # turn emails without the board PNG (most of a worker's CPU per email here) unless a test
        # asks for it: no test of serve looks at the pictures, which tests/test_deadlines.py and the
        # Carcassonne game by email check where they are made and sent
        self.env["TABLEPOST_MAIL_PICTURES"] = "0"
        self.env.update(env or {})
        self.boot_seconds = boot_seconds
        # another environment's interpreter (tests/test_example_game.py: a fresh one with a game
        # installed beside the platform), run from ``cwd`` so that it imports its own installed copy
        self.python, self.cwd = python or sys.executable, cwd
        self.proc = None
        self.log = None

    def start(self) -> "Serve":
        self.log = open(self.data / "serve.log", "a")
        self.log_start = self.log.tell()
        self.proc = subprocess.Popen(
            [self.python, "-m", "api.cli", "serve", "--port", str(self.port), "--data-dir", str(self.data),
             *self.args], stdout=self.log, stderr=subprocess.STDOUT, env=self.env, cwd=self.cwd,
            start_new_session=True)
        deadline = time.monotonic() + self.boot_seconds
        while True:
            try:
                if requests.get(self.url + "/health", timeout=5).status_code == 200:
                    return self
            except requests.RequestException:  # not up yet (refused, or still booting on a busy machine)
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.log.close()
                raise RuntimeError("tablepost serve did not come up:\n" + self.output()[-3000:])
            time.sleep(0.3)

    def output(self) -> str:
        """What this run of the service printed."""
        with open(self.data / "serve.log") as f:
            f.seek(self.log_start)
            return f.read()

    def part_groups(self) -> set[int]:
        """The process groups of the parts serve supervises (its children that lead a group)."""
        groups = set()
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.proc.pid and int(fields[2]) == int(entry):
                    groups.add(int(entry))
        return groups

    def kill(self) -> None:
        """SIGKILL every process of the service at once (no clean shutdown anywhere)."""
        groups = self.part_groups() | {self.proc.pid}
        for pgid in groups:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(10)
        time.sleep(1)
        self.log.close()

    def stop(self) -> str:
        """SIGTERM the service (SIGKILL after 30 s); returns what it printed."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if self.log is not None and not self.log.closed:
            self.log.close()
        return self.output()

    def __enter__(self) -> "Serve":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def wait_for(predicate, seconds: float = 60, what: str = "the service"):
    """Poll ``predicate`` until it returns something true (returned), for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        out = predicate()
        if out:
            return out
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


class HintWorker:
    """``tablepost serve``'s hints worker (api.cli.worker_command, queue ``hints``) on the Redis at
    ``redis_url`` (store and broker), in a process group of its own; ``send`` is a SEND_TASK for
    ``make_app`` that publishes the hint tasks only (a test's other tasks stay unsent)."""

    def __init__(self, redis_url: str, log_path, procs: int = 1):
        self.url, self.log_path, self.procs = redis_url, log_path, procs

    def __enter__(self) -> "HintWorker":
        import redis
        from api.broker import celery_send_task
        from api.cli import worker_command
        from application.hints import INFLIGHT
        from application.queues import HINTS
        client = redis.Redis.from_url(self.url)
        client.delete(INFLIGHT, HINTS)   # a previous test's backlog (this Redis is the session's)
        client.close()
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEPOST_")}
        env.update({"REDIS_URL": self.url, "CELERY_BROKER_URL": self.url, "PYTHONPATH": ROOT})
        self.out = open(self.log_path, "a")
        argv = worker_command(sys.executable, "workers.app", HINTS, self.procs)
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=self.out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        publish = celery_send_task(self.url)

        def send(name: str, args: list, queue: str) -> None:
            if queue == HINTS:
                publish(name, args, queue)
        self.send = send
        wait_for(lambda: self.proc.poll() is not None or "ready." in self.text(), 60, "the hints worker")
        assert self.proc.poll() is None, self.text()[-3000:]
        return self

    def text(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def __exit__(self, *exc) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.out.close()
