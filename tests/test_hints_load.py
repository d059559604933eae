"""Hints off the request path (issue 39): hint work runs in a bounded pool whose backlog cannot slow
other requests. A hint beyond the pool's room is refused at once (429 ``hints-busy``, Retry-After)
and costs nothing; a hint the server accepts (200 or 202) costs one of the seat's budget; and with
40 hint requests in flight a real ``tablepost serve`` (gunicorn) answers plain GETs at once. The
strict figure (loaded p99 within twice the idle p99) is bench/hints.py's; this test asserts the
structure with margins wide enough for a shared machine (the code before took 10 s)."""
from __future__ import annotations

import threading
import time

import pytest
import requests

from tests.conftest import LiveServer, make_app
from tests.servers import HintWorker, Serve

API = "/api/v1/games"


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def create(url, seed=None):
    body = {"seats": [{"name": "Ann"}, {"name": "Bob"}]}
    if seed:
        body["options"] = {"seed": seed}
    rv = requests.post(url + API, timeout=30, json=body)
    assert rv.status_code == 201, rv.text
    g = rv.json()
    to_act = requests.get(f"{url}{API}/{g['id']}", timeout=30).json()["to_act"][0]
    return g["id"], g["seats"][to_act]["token"]


@pytest.fixture()
def small_pool(redis_server, redis_client, tmp_path):
    """One hint process, no queue, no waiting, one hint an hour per seat, a slow level."""
    for k in redis_client.scan_iter("LIMITER*"):
        redis_client.delete(k)
    with HintWorker(redis_server.url, tmp_path / "hints.log") as worker:
        app = make_app(redis_server.url, RATE_LIMIT=1000, HINT_LIMIT="1/hour", HINT_LEVEL="hard", HINT_WAIT=0,
                       HINT_PROCS=1, HINT_QUEUE=0, CREATE_LIMIT="1000/hour", NEW_ADDRESS_LIMIT="1000/day",
                       SEND_TASK=worker.send)
        with LiveServer(app) as live:
            yield live.url


def test_a_hint_beyond_the_pools_room_is_refused_at_once_and_costs_nothing(small_pool):
    url = small_pool
    (a, tok_a), (b, tok_b) = create(url, "load-a"), create(url, "load-b")
    rv = requests.get(f"{url}{API}/{a}/hint", headers=bearer(tok_a), timeout=30)
    assert rv.status_code == 202, rv.text                     # A's search fills the pool
    t0 = time.perf_counter()
    rv = requests.get(f"{url}{API}/{b}/hint", headers=bearer(tok_b), timeout=30)
    took = time.perf_counter() - t0
    assert rv.status_code == 429, rv.text
    assert rv.headers["Content-Type"] == "application/problem+json"
    assert rv.json()["code"] == "hints-busy" and int(rv.headers["Retry-After"]) >= 1
    assert took < 5, took                                     # at once, not after a wait for A
    # A's answer comes (asking again costs nothing), then B's hint is accepted: the refusal cost nothing
    for _ in range(600):
        rv = requests.get(f"{url}{API}/{a}/hint", headers=bearer(tok_a), timeout=30)
        if rv.status_code == 200:
            break
        assert rv.status_code == 202, rv.text
        time.sleep(0.1)
    assert rv.status_code == 200, rv.text
    rv = requests.get(f"{url}{API}/{b}/hint", headers=bearer(tok_b), timeout=30)
    assert rv.status_code == 202, rv.text


def test_an_accepted_hint_costs_one_even_before_its_answer(small_pool):
    """A 202 started a search: it is charged. The seat's next position (budget 1/hour) is refused."""
    url = small_pool
    gid, tok = create(url, "load-charge")
    rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(tok), timeout=30)
    assert rv.status_code == 202, rv.text
    lm = requests.get(f"{url}{API}/{gid}/legal-moves", headers=bearer(tok), timeout=10).json()
    rv = requests.post(f"{url}{API}/{gid}/moves", headers=bearer(tok), timeout=10,
                       json={"expected_version": lm["version"], "moves": [lm["moves"][0]["move"]]})
    assert rv.status_code == 200, rv.text
    deadline = time.monotonic() + 120
    while True:   # wait until the pool has room again, so that only the budget can refuse
        rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(tok), timeout=30)
        if rv.json().get("code") != "hints-busy" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert rv.status_code == 429, rv.text
    assert rv.json()["code"] == "rate-limited" and int(rv.headers["Retry-After"]) > 0


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def test_forty_hints_in_flight_do_not_slow_a_plain_get_under_gunicorn(tmp_path):
    """One API process, as issue 39 measured it, and the slowest level, the hints computed by serve's
    hints worker: the code before held a request thread per hint, and a plain GET took 10 s."""
    env = {"TABLEPOST_HINT_LEVEL": "hard", "TABLEPOST_CREATE_LIMIT": "100000/hour"}
    with Serve(tmp_path, "--workers", "1", env=env) as serve:
        url = serve.url
        games = [create(url) for _ in range(40)]
        probe = games[0][0]

        def gets(n):
            out = []
            with requests.Session() as s:
                for _ in range(n):
                    t0 = time.perf_counter()
                    assert s.get(f"{url}{API}/{probe}", timeout=60).status_code == 200
                    out.append(time.perf_counter() - t0)
                    time.sleep(0.02)
            return out

        gets(10)
        idle = gets(60)
        answers: list = []

        def ask(gid, tok):
            t0 = time.perf_counter()
            rv = requests.get(f"{url}{API}/{gid}/hint", headers=bearer(tok), timeout=60)
            answers.append((rv.status_code, rv.json().get("code"), rv.headers.get("Retry-After"),
                            rv.headers.get("Content-Type"), time.perf_counter() - t0))

        threads = [threading.Thread(target=ask, args=g) for g in games]
        for t in threads:
            t.start()
        loaded = gets(60)
        for t in threads:
            t.join(120)
    assert len(answers) == 40
    accepted = [a for a in answers if a[0] in (200, 202)]
    refused = [a for a in answers if a[0] == 429]
    assert len(accepted) + len(refused) == 40, answers
    # one hint process and room for 2 more searches, for the whole service
    assert 1 <= len(accepted) <= 3, answers
    for status, code, retry, ctype, took in refused:
        assert code == "hints-busy" and int(retry) >= 1 and ctype == "application/problem+json"
        assert took < 5, took
    # the refused are told to come back at different times (2 to 4 s: TABLEPOST_HINT_RETRY and twice
    # it), so they do not all come back at once (bench/hints.py: the p99 under hints was 3.6-7.7x
    # idle with every client back after the same 2 s, 1.3-1.7x with the spread)
    retries = [int(a[2]) for a in refused]
    assert set(retries) <= {2, 3, 4} and len(set(retries)) > 1, retries
    # the code before: 10.5 s. This guards against that stall, not a speed target (bench/hints.py
    # measures the ratio): 40 clients connecting at once to one worker on a loaded 2-core CI machine
    # held the first GET 1.1 s once, so the bound leaves room for that burst and stays far below 10 s
    assert p99(loaded) < max(2.5, 4 * p99(idle)), (p99(idle), p99(loaded))
