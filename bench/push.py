"""Event-stream benchmark (prints figures; not a test).

    python bench/push.py [--listeners 64,256,1000] [--moves 5]

How many Server-Sent-Event listeners one API process holds (docs/push.md): for each count L,
one gunicorn worker process (gthread, L + 8 threads, ``TABLEPOST_STREAM_LISTENERS`` = L, on a
Redis this script starts) gets L open ``GET /api/v1/games/{id}/stream`` connections (all on one
game, the worst case: every move wakes every listener), then a player makes moves. Printed per L:

  * whether all L were accepted (and that listener L+1 gets 503 too-many-listeners);
  * the fan-out time: from a move's answer to the last listener having the event (p50 / max);
  * the latency of an ordinary request (GET /games/{id}) while the L streams are open;
  * the worker process's resident memory, and per listener.

The listeners are raw sockets read by one selector thread in this script (the client's cost is
not the server's).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

from api.redis_server import EmbeddedRedis, free_port  # noqa: E402

BIN = os.path.dirname(sys.executable)


def start_api(port: int, redis_url: str, listeners: int, log) -> subprocess.Popen:
    exe = os.path.join(BIN, "gunicorn")
    env = dict(os.environ, REDIS_URL=redis_url, TABLEPOST_RATE_LIMIT="0", TABLEPOST_ALLOW_SEEDED_GAMES="1",
               TABLEPOST_STREAM_LISTENERS=str(listeners), TABLEPOST_STREAM_KEEPALIVE="15",
               TABLEPOST_STREAM_PER_ADDRESS="0")  # every listener is this one client
    proc = subprocess.Popen([exe, "-w", "1", "-k", "gthread", "--threads", str(listeners + 8),
                             "--worker-connections", str(listeners + 100),
                             "--bind", f"127.0.0.1:{port}", "api:create_app()"], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/health")
            if c.getresponse().status == 200:
                return proc
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the API did not start")


def call(port, method, path, body=None, token=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None


def open_stream(port: int, gid: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /api/v1/games/{gid}/stream?after=1 HTTP/1.1\r\nHost: x\r\n"
              "Accept: text/event-stream\r\n\r\n".encode())
    return s


def worker_rss_kb(master: int) -> int:
    kids = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
    total = 0
    for pid in kids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def run(listeners: int, moves: int, redis_url: str, log) -> None:
    port = free_port()
    api = start_api(port, redis_url, listeners, log)
    socks: list[socket.socket] = []
    try:
        _, g = call(port, "POST", "/api/v1/games", {"seats": [{"name": "A"}, {"name": "B"}],
                                                     "options": {"seed": f"bench-push-{listeners}"}})
        gid, tokens = g["id"], [s["token"] for s in g["seats"]]
        rss0 = worker_rss_kb(api.pid)
        sel = selectors.DefaultSelector()
        for _ in range(listeners):
            s = open_stream(port, gid)
            socks.append(s)
        bufs = {s.fileno(): b"" for s in socks}
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)

        def pump(until_marker: bytes, deadline: float) -> float:
            """Read until every socket's buffer has ``until_marker``; the time the last one had it."""
            waiting = {fd for fd, b in bufs.items() if until_marker not in b}
            last = time.perf_counter()
            while waiting and time.perf_counter() < deadline:
                for key, _ in sel.select(timeout=0.5):
                    try:
                        chunk = key.fileobj.recv(65536)
                    except BlockingIOError:
                        continue
                    bufs[key.fd] += chunk
                    if key.fd in waiting and until_marker in bufs[key.fd]:
                        waiting.discard(key.fd)
                        last = time.perf_counter()
            if waiting:
                raise RuntimeError(f"{len(waiting)} of {listeners} listeners never got {until_marker!r}")
            return last

        pump(b"event: turn", time.perf_counter() + 60)  # every stream is open and has said hello
        accepted = sum(1 for b in bufs.values() if b.startswith(b"HTTP/1.1 200"))
        st_extra, _ = call(port, "GET", f"/api/v1/games/{gid}/stream")
        rss = worker_rss_kb(api.pid)
        t0 = time.perf_counter()
        call(port, "GET", f"/api/v1/games/{gid}")
        plain_ms = (time.perf_counter() - t0) * 1000
        fan = []
        for i in range(moves):
            _, s = call(port, "GET", f"/api/v1/games/{gid}")
            seat = s["to_act"][0]
            _, lm = call(port, "GET", f"/api/v1/games/{gid}/legal-moves", token=tokens[seat])
            move = next(m["move"] for m in lm["moves"] if m["move"] != "undo")
            call(port, "POST", f"/api/v1/games/{gid}/moves",
                 {"expected_version": lm["version"], "moves": [move]}, token=tokens[seat])
            t_answer = time.perf_counter()
            last = pump(f"id: {lm['version'] + 1}\n".encode(), time.perf_counter() + 60)
            fan.append((last - t_answer) * 1000)
        print(f"{listeners:6d} listeners: accepted {accepted}/{listeners}, one more -> {st_extra}; "
              f"fan-out p50 {statistics.median(fan):7.1f} ms, max {max(fan):7.1f} ms; "
              f"GET /games/{{id}} with them open {plain_ms:6.1f} ms; worker RSS {rss / 1024:6.1f} MB "
              f"({(rss - rss0) / max(1, listeners):5.1f} kB per listener)", flush=True)
    finally:
        for s in socks:
            s.close()
        api.terminate()  # open streams hold the graceful shutdown up to its timeout
        try:
            api.wait(40)
        except subprocess.TimeoutExpired:
            api.kill()
            api.wait(5)


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--listeners", "8", "--moves", "2"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--listeners", default="64,256,1000")
    ap.add_argument("--moves", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-push-")
    redis = EmbeddedRedis(os.path.join(tmp, "redis")).start()
    print("one gunicorn gthread worker per run, threads = listeners + 8, worker_connections = listeners + "
          f"100; Redis {redis.url}; cores: {os.cpu_count()}")
    try:
        with open(os.path.join(tmp, "api.log"), "w") as log:
            for n in [int(x) for x in a.listeners.split(",")]:
                run(n, a.moves, redis.url, log)
    finally:
        redis.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
