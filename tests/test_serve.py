"""`tablepost serve`: one command starts Redis (AOF on, files under --data-dir), the API under
gunicorn and the workers; stopping it stops Redis; a restart on the same data dir finds every
game again."""
from __future__ import annotations

import os
import random
import re
import signal
import time
from datetime import datetime

import pytest
import requests

from api.redis_server import free_port
from tests.servers import Serve, wait_for


def api_only(data, port) -> Serve:
    return Serve(data, "--workers", "1", "--no-workers", port=port)


def test_serve_runs_the_api_on_its_own_redis_and_keeps_games_across_restarts(tmp_path):
    port = free_port()
    first = api_only(tmp_path, port).start()
    url = first.url
    try:
        assert requests.get(url + "/api/docs", timeout=5).status_code == 200
        game = requests.post(url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]},
                             timeout=5).json()
        gid, token = game["id"], game["seats"][0]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        move = requests.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=auth,
                            timeout=5).json()["moves"][0]["move"]
        rv = requests.post(f"{url}/api/v1/games/{gid}/moves", headers=auth, timeout=5,
                           json={"expected_version": 1, "moves": [move]})
        assert rv.status_code == 200 and rv.json()["version"] == 2
        events_before = requests.get(f"{url}/api/v1/games/{gid}/events", timeout=5).json()["events"]
    finally:
        output = first.stop()
    assert "API docs: http://127.0.0.1:" in output and "/api/docs" in output
    # issue 42: the address a person wants comes first, before Redis's and the parts' lines
    first_line = output.lstrip().splitlines()[0]
    assert first_line.endswith(f"its home page will be http://127.0.0.1:{port}/"), output[:300]
    assert "Redis stopped" in output
    assert (tmp_path / "redis" / "appendonly.aof").exists()
    # the embedded Redis is gone with the service
    import redis
    port_line = [line for line in output.splitlines() if "(Redis redis://" in line][0]
    redis_url = port_line.split("(Redis ")[1].rstrip(")")
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()
        alive = True
    except redis.ConnectionError:
        alive = False
    assert not alive, "stopping tablepost serve stops its Redis"

    again = api_only(tmp_path, port).start()
    try:
        after = requests.get(f"{url}/api/v1/games/{gid}/events", timeout=5).json()["events"]
        assert after == events_before, "every move survives a restart of the whole service"
        assert requests.get(f"{url}/api/v1/games/{gid}", timeout=5).json()["version"] == 2
    finally:
        again.stop()


def test_serve_plays_by_email_out_of_the_box(tmp_path):
    """With no mail settings, tablepost serve writes turn emails to its local sink and takes
    replies on its own SMTP listener (--mailin-port)."""
    import email
    import email.policy
    import smtplib
    from email.message import EmailMessage

    mailin = free_port()
    server = Serve(tmp_path, "--workers", "1", "--mailin-port", str(mailin),
                   drop_env=("REDIS_URL", "TABLEPOST_SMTP_URL", "TABLEPOST_MAIL_SECRET", "TABLEPOST_DATA_DIR",
                             "TABLEPOST_PUBLIC_URL")).start()
    url = server.url
    try:
        g = requests.post(url + "/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@home.test"},
                                                                 {"name": "Bob", "email": "bob@home.test"}]},
                          timeout=5).json()
        sink = tmp_path / "mail"
        deadline = time.monotonic() + 30
        while not (sink.exists() and list(sink.glob("*.eml"))):
            assert time.monotonic() < deadline, "no turn email in the local sink:\n" + server.output()[-3000:]
            time.sleep(0.2)
        turn = email.message_from_bytes(sorted(sink.glob("*.eml"))[0].read_bytes(),
                                        policy=email.policy.default)
        assert turn["To"] == "ada@home.test" and g["id"] in turn["Subject"]
        move = next(line.split()[0] + " " + line.split()[1] for line in
                    turn.get_body(("plain",)).get_content().splitlines() if line.startswith("  take "))
        reply = EmailMessage()
        reply["From"], reply["To"], reply["Subject"] = "ada@home.test", turn["Reply-To"], "Re: turn"
        reply["Message-ID"] = email.utils.make_msgid(domain="home.test")
        reply.set_content(move)
        deadline = time.monotonic() + 20
        while True:  # the listener may still be starting
            try:
                with smtplib.SMTP("127.0.0.1", mailin, timeout=5) as s:
                    s.send_message(reply)
                break
            except OSError:
                assert time.monotonic() < deadline, "the email listener is not up"
                time.sleep(0.3)
        deadline = time.monotonic() + 20
        while requests.get(f"{url}/api/v1/games/{g['id']}", timeout=5).json()["version"] < 2:
            assert time.monotonic() < deadline, "the reply was not played:\n" + server.output()[-3000:]
            time.sleep(0.2)
        assert "[mail sink] to ada@home.test" in server.output(), "the sink prints what it writes"
    finally:
        server.stop()


def _processes_in_session(sid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry))
    return found


@pytest.mark.long(16)
def test_ctrl_c_stops_the_parts_then_the_api_then_redis_and_exits_0(tmp_path):
    """Ctrl-C at the terminal is SIGINT to the whole foreground process group: serve and whatever
    shares its group. The parts stop first (none is started again), then gunicorn gracefully (no
    worker killed, and an open event stream, which would last minutes, ends at once), then Redis,
    which nothing uses any more; serve exits with status 0."""
    import threading
    server = Serve(tmp_path, "--workers", "2", "--mailin-port", str(free_port()), boot_seconds=120).start()
    try:
        # every part is up (Celery's workers answer /health once they are ready), Redis among them
        deadline = time.monotonic() + 60
        while requests.get(server.url + "/health", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, server.output()[-3000:]
            time.sleep(0.3)
        groups = server.part_groups()   # Redis, the five parts and gunicorn's workers: each a session
        assert len(groups) >= 7, groups
        redis_url = next(line for line in server.output().splitlines() if "(Redis redis://" in line)
        redis_url = redis_url.split("(Redis ")[1].rstrip(")")
        game = requests.post(server.url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]},
                             timeout=10).json()
        stream = requests.get(f"{server.url}/api/v1/games/{game['id']}/stream", stream=True, timeout=30)
        read = []
        reader = threading.Thread(target=lambda: read.extend(stream.iter_content(None)), daemon=True)
        reader.start()
        wait_for(lambda: b"event: turn" in b"".join(read), 20, "the stream's first frames")
        os.killpg(server.proc.pid, signal.SIGINT)   # what the terminal does on Ctrl-C
        code = server.proc.wait(60)
        reader.join(5)
        assert not reader.is_alive(), "the event stream was left open"
    finally:
        output = server.stop()
    shutdown = output[output.index("Handling signal: int"):]
    assert code == 0, output[-3000:]
    order = ["stopping the workers, the scheduler and the inbound SMTP listener",
             "stopping the API (gunicorn", "Shutting down: Master", "the API stopped", "Redis stopped"]
    at = [shutdown.index(line) for line in order]
    assert at == sorted(at), shutdown
    # gunicorn's own timestamps (to the second): its workers were gone before graceful_timeout
    # (10 s), which is what an event stream left open would have held them for (then SIGKILL). Not
    # tighter: gevent's worker looks at its open connections once a second, and a loaded CI machine
    # has taken 7 s for the whole stop (a tighter bound flaked there).
    stamp = [datetime.strptime(re.search(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) ", line).group(1),
                               "%Y-%m-%d %H:%M:%S") for line in shutdown.splitlines()
             if "stopping the API (gunicorn" in line or "Shutting down: Master" in line]
    assert len(stamp) == 2 and (stamp[1] - stamp[0]).total_seconds() < 10, shutdown
    for part in ("the seats worker", "the service worker", "the sweeps worker", "the scheduler (beat)",
                 "the inbound SMTP listener"):
        assert at[0] < shutdown.index(f"{part} stopped") < at[1], shutdown
    # (gunicorn says "Worker (pid:N) was sent SIGKILL!" for a worker it had to kill; ERROR: Celery's
    # and gunicorn's level for what went wrong)
    for bad in ("Cannot connect to redis", "Connection refused", "Connection to broker lost",
                "restarting it in", "SIGKILL", "killing it", "Traceback", "ERROR"):
        assert bad not in shutdown, f"{bad!r} while stopping:\n{shutdown}"
    # nothing is left behind, and the embedded Redis is gone
    assert [pid for sid in groups for pid in _processes_in_session(sid)] == []
    import redis
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()


def test_the_console_is_quiet_and_the_parts_log_to_files_and_two_services_do_not_collide(tmp_path):
    """issue 52: serve's console shows the addresses and what starts and stops; each part's output
    goes to DIR/log/<part>.log (the requests to access.log only); the email listener's port follows
    the web port, so two services on other ports and data dirs run side by side."""
    import smtplib
    import socket

    def web_port() -> int:
        """A free port whose listener's port (+25) is free too, below the range the system hands out
        for port 0 (32768 and up on Linux), where the other tests' servers get theirs (free_port): a
        CI run once lost the listener's port to one of them between this check and the start."""
        rng = random.Random()
        while True:
            port = rng.randrange(20000, 32000)
            try:
                with socket.socket() as a, socket.socket() as b:
                    a.bind(("127.0.0.1", port))
                    b.bind(("127.0.0.1", port + 25))
                return port
            except OSError:
                continue
    one = web_port()
    two = web_port()
    first = Serve(tmp_path / "one", "--workers", "1", port=one, verbose=False, derived_mailin_port=True)
    second = Serve(tmp_path / "two", "--workers", "1", port=two, verbose=False, derived_mailin_port=True)
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    try:
        first.start()
        second.start()
        for server, port in ((first, one), (second, two)):
            for _ in range(3):
                assert requests.get(server.url + "/api/v1/catalog", timeout=5).status_code == 200
            with smtplib.SMTP("127.0.0.1", port + 25, timeout=5) as s:   # each its own listener
                assert s.noop()[0] == 250
    finally:
        out = first.stop()
        second.stop()
    lines = out.strip().splitlines()
    assert len(lines) < 40, out
    assert f"replies by email: SMTP on 127.0.0.1:{one + 25}" in out and f"http://127.0.0.1:{one}/" in out
    assert "starting the service worker" in out and "the service worker stopped" in out
    for noise in ("celery@", "[tasks]", "Booting worker", "GET /api/v1/catalog", "INFO"):
        assert noise not in out, f"{noise!r} on the quiet console:\n{out}"
    log = tmp_path / "one" / "log"
    assert "/api/v1/catalog" in (log / "access.log").read_text()
    assert "Booting worker" in (log / "api.log").read_text()
    for part in ("service-worker", "seats-worker", "sweeps-worker", "scheduler",
                 "inbound-smtp-listener"):
        assert (log / f"{part}.log").stat().st_size > 0, part
    assert f"logs: {log}/<part>.log" in out


def test_a_part_s_warnings_reach_the_console_and_its_info_does_not():
    from api.cli import console_worthy
    follows = False
    shown = []
    error, timeout = ("[2025-01-01 10:00:01,000: ERROR/MainProcess] Task failed",
                      "[2025-01-01 10:00:03 +0000] [12] [WARNING] Worker timeout")
    for line in ["[2025-01-01 10:00:00,000: INFO/MainProcess] Connected to redis",
                 error, "Traceback (most recent call last):",
                 '  File "x.py", line 1', "ValueError: no",
                 "[2025-01-01 10:00:02 +0000] [12] [INFO] Booting worker with pid: 12",
                 timeout,
                 "[2025-01-01 10:00:04,000: WARNING/ForkPoolWorker-1] [mail sink] to a@b"]:
        show, follows = console_worthy(line, follows)
        if show:
            shown.append(line)
    assert shown == [error, "Traceback (most recent call last):", '  File "x.py", line 1', "ValueError: no",
                     timeout,
                     "[2025-01-01 10:00:04,000: WARNING/ForkPoolWorker-1] [mail sink] to a@b"]
