"""Slow clients against the server ``make run`` starts (prints figures; not a test).

    python bench/slow_clients.py [--clients N] [--seconds S] [--workers gevent,gthread]

For each candidate worker class of gunicorn (``TABLEPOST_WORKER``, api/gunicorn_conf.py), a real
``tablepost serve --no-workers`` (the API as ``make run`` serves it: 2 processes, its own Redis;
tests/servers.py ``Serve``) gets N connections from this process that trickle their requests: half
send a request line and then one byte of a header at a time, half send their headers and then one
byte of a 100-byte body at a time, each byte a second apart (inside the client timeout, so none is
ever given up on; a connection the server closes is opened again at once). Meanwhile a plain GET
(``GET /api/v1/games/{id}``, one after another, 10 s timeout: a timeout counts as 10 s) is timed
for S seconds. Printed per candidate: the GET's p50 / p99 / max and how many failed, with the
trickling connections open, side by side. Goal (issue 39): p99 under 1 s with 200 connections.
"""
from __future__ import annotations

import argparse
import os
import selectors
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import requests  # noqa: E402

from tests.servers import Serve  # noqa: E402

GET_TIMEOUT = 10.0
BODY = b'{"seats": [{"name": "A"}, {"name": "B"}]}'.ljust(100)


class Trickler:
    """N sockets that each send their request one byte a second, in one thread (a selector)."""

    def __init__(self, port: int, n: int, interval: float = 1.0):
        self.port, self.n, self.interval = port, n, interval
        self.stop = threading.Event()
        self.reopened = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def opening(self, i: int) -> tuple[bytes, bytes]:
        """What connection ``i`` sends at once, and what it then trickles."""
        if i % 2:
            return (b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100\r\n\r\n", BODY)
        return b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\n", b"X-Slow: " + b"a" * 4000 + b"\r\n\r\n"

    def open(self, i: int):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        head, rest = self.opening(i)
        s.sendall(head)
        s.setblocking(False)
        return [s, rest, i]

    def run(self) -> None:
        conns = [self.open(i) for i in range(self.n)]
        sel = selectors.DefaultSelector()
        for c in conns:
            sel.register(c[0], selectors.EVENT_READ, c)
        while not self.stop.is_set():
            t0 = time.monotonic()
            for c in list(conns):
                s, rest, i = c
                try:
                    if rest:
                        s.send(rest[:1])
                        c[1] = rest[1:]
                except OSError:
                    pass
            while time.monotonic() - t0 < self.interval and not self.stop.is_set():
                for key, _ in sel.select(timeout=0.1):
                    c = key.data
                    try:
                        data = c[0].recv(65536)
                    except OSError:
                        data = b""
                    if not data:   # closed (or answered): open it again at once
                        sel.unregister(c[0])
                        c[0].close()
                        new = self.open(c[2])
                        c[:] = new
                        sel.register(c[0], selectors.EVENT_READ, c)
                        self.reopened += 1
        for c in conns:
            c[0].close()


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


def measure(worker: str, clients: int, seconds: float) -> dict:
    data = Path(tempfile.mkdtemp(prefix="tablepost-bench-slow-"))
    env = {"TABLEPOST_WORKER": worker, "TABLEPOST_CREATE_LIMIT": "100000/hour",
           "TABLEPOST_RATE_LIMIT": "100000"}
    try:
        with Serve(data, "--no-workers", env=env) as serve:
            rv = requests.post(serve.url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]},
                               timeout=30)
            gid = rv.json()["id"]
            trickler = Trickler(serve.port, clients)
            trickler.thread.start()
            time.sleep(3)   # every connection open and trickling
            times, failed = [], 0
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                t0 = time.perf_counter()
                try:
                    rv = requests.get(f"{serve.url}/api/v1/games/{gid}", timeout=GET_TIMEOUT)
                    ok = rv.status_code == 200
                except requests.RequestException:
                    ok = False
                times.append(time.perf_counter() - t0 if ok else GET_TIMEOUT)
                failed += not ok
                time.sleep(0.05)
            trickler.stop.set()
            trickler.thread.join(10)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return {"times": times, "failed": failed, "reopened": trickler.reopened}


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--clients", "20", "--seconds", "2", "--workers", "gevent"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=200, metavar="N", help="trickling connections (200)")
    ap.add_argument("--seconds", type=float, default=20, metavar="S", help="how long GETs are timed (20)")
    ap.add_argument("--workers", default="gevent,gthread", help="worker classes compared (TABLEPOST_WORKER)")
    a = ap.parse_args(argv)
    print(f"slow clients: tablepost serve --no-workers (gunicorn, 2 processes), {a.clients} connections "
          f"trickling headers or bodies one byte a second, plain GET /api/v1/games/{{id}} for "
          f"{a.seconds:g} s; {os.cpu_count()} CPUs (shared)")
    print(f"{'worker':10}{'GETs':>7}{'failed':>8}{'p50':>10}{'p99':>10}{'max':>10}{'reopened':>10}")
    for worker in a.workers.split(","):
        r = measure(worker, a.clients, a.seconds)
        t = r["times"]
        print(f"{worker:10}{len(t):7d}{r['failed']:8d}{pct(t, .5):8.1f}ms{pct(t, .99):8.1f}ms"
              f"{max(t) * 1000:8.1f}ms{r['reopened']:10d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
