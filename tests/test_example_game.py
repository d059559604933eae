"""The example game end to end (issue 52, "Prove it with an example game"): Connect Four, a
distribution of its own (examples/connect-four), installed beside the platform in a fresh virtual
environment -- the platform from this checkout with its pinned requirements, then the example with
nothing else changed -- and played through `tablepost serve` run from that environment: two seats
to the end over the API, a seat against the AI, its page (the generic game page), a move by email
reply, a lobby game whose open seat is joined, and a tournament.

The environment is made with uv from its cache (the one `make` installs the root environment
with), else with ``python -m venv`` and pip: a few seconds with a warm cache."""
from __future__ import annotations

import email
import email.policy
import email.utils
import os
import re
import shutil
import smtplib
import subprocess
import sys
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
import requests

from api.redis_server import free_port
from tests.servers import Serve, wait_for

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "connect-four"
GAME = "connect-four"
TIMINGS: dict[str, float] = {}

# one test (its steps in order): a parallel run builds the environment and starts the service once,
# in one worker, first of its share
pytestmark = [pytest.mark.slow, pytest.mark.long(30)]


def _run(*argv, **kwargs) -> str:
    out = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=300, **kwargs)
    assert out.returncode == 0, f"{' '.join(map(str, argv))} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout


def platform_copy(to: Path) -> Path:
    """The platform's sources as its wheel takes them (pyproject's packages), copied: a build writes
    build/ and its metadata beside the sources, which the checkout (and the tests reading it) keep out of."""
    import tomllib
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"]
    to.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, to / name)
    for top in sorted({p.split(".")[0] for p in packages}):
        shutil.copytree(ROOT / top, to / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return to


def fresh_environment(where: Path) -> Path:
    """A new virtual environment with the platform (from this checkout, its pinned runtime
    requirements, no resolving) and then the example game installed the way a user would; its python."""
    uv = Path(sys.executable).with_name("uv")
    python = where / "bin" / "python"
    t0 = time.monotonic()
    if uv.exists():
        _run(uv, "venv", "-q", where, "--python", sys.executable)
        pip = [uv, "pip", "install", "-q", "--python", python]
    else:   # pragma: no cover - the root environment always has uv (Makefile)
        _run(sys.executable, "-m", "venv", where)
        pip = [python, "-m", "pip", "install", "-q"]
    _run(*pip, "--no-deps", "-r", ROOT / "requirements" / "runtime.txt")
    TIMINGS["requirements"] = time.monotonic() - t0
    t1 = time.monotonic()
    _run(*pip, "--no-deps", platform_copy(where.parent / "platform"))
    TIMINGS["platform"] = time.monotonic() - t1
    t2 = time.monotonic()
    # from a copy: a build writes its metadata beside the sources (tablepost_connect_four.egg-info), and
    # the suite reads examples/connect-four (pyproject's pythonpath), where that would register the game
    source = shutil.copytree(EXAMPLE, where.parent / "connect-four",
                             ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__", "tests"))
    _run(*pip, source)   # with its dependencies: the platform, already there
    TIMINGS["example"] = time.monotonic() - t2
    return python


@pytest.fixture(scope="module")
def env_python(tmp_path_factory):
    where = tmp_path_factory.mktemp("c4") / "env"
    python = fresh_environment(where)
    yield python
    shutil.rmtree(where, ignore_errors=True)


@pytest.fixture(scope="module")
def service(env_python, tmp_path_factory):
    data = tmp_path_factory.mktemp("c4-serve")
    mailin = free_port()
    server = Serve(data, "--workers", "2", "--allow-seeded-games", "--mailin-port", str(mailin),
                   python=str(env_python), cwd=str(data),
                   drop_env=("REDIS_URL", "TABLEPOST_SMTP_URL", "TABLEPOST_MAIL_SECRET", "TABLEPOST_DATA_DIR",
                             "TABLEPOST_PUBLIC_URL", "PYTHONPATH"),
                   env={"TABLEPOST_SWEEP_SECONDS": "1", "TABLEPOST_MAIL_DUE_SECONDS": "1",
                        "TABLEPOST_BOT_DUE_SECONDS": "1", "TABLEPOST_RATE_LIMIT": "0",
                        "TABLEPOST_MAIL_PICTURES": "1"})
    server.mailin = mailin
    with server:
        yield server


def step_the_installed_game_is_registered_from_its_own_environment(env_python, tmp_path):
    """The fresh environment imports the installed copies (not this checkout) and finds the game."""
    code = ("import games, api, tablepost_connect_four as c; "
            "print(games.get('connect-four').title, api.__file__, c.__file__, sep='|')")
    title, api_file, game_file = _run(env_python, "-c", code, cwd=tmp_path).strip().split("|")
    assert title == "Connect Four" and "site-packages" in api_file and "site-packages" in game_file
    assert str(ROOT) not in api_file
    out = _run(env_python.with_name("connect-four-engine"), "random-game", "--players", "2", "--seed", "x",
               "--games", "3")
    assert out.count("winner") == 3
    installing = sum(TIMINGS.values())
    print(f"fresh environment: {TIMINGS} ({installing:.1f} s)")
    assert installing < 60, f"installing into a fresh environment took {installing:.0f} s: {TIMINGS}"


def _auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _create(http, url, seats, **options) -> dict:
    rv = http.post(f"{url}/api/v1/games", timeout=10, json={"game": GAME, "seats": seats, "options": options})
    assert rv.status_code == 201, rv.text
    return rv.json()


def _play_to_end(http, url, gid, tokens: dict[int, str], pick=lambda moves: moves[len(moves) // 2],
                 limit: float = 120) -> dict:
    """Play the seats of ``tokens`` (the others are the AI's) until the game is over."""
    deadline = time.monotonic() + limit
    while True:
        g = http.get(f"{url}/api/v1/games/{gid}", timeout=10).json()
        if g["status"] == "finished":
            return g
        assert time.monotonic() < deadline, f"the game stalled: {g}"
        seat = g["to_act"][0]
        if seat not in tokens:
            time.sleep(0.1)
            continue
        me = _auth(tokens[seat])
        legal = http.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=me, timeout=10).json()
        moves = [m["move"] for m in legal["moves"]]
        rv = http.post(f"{url}/api/v1/games/{gid}/moves", headers=_auth(tokens[seat]), timeout=10,
                       json={"expected_version": legal["version"], "moves": [pick(moves)]})
        assert rv.status_code in (200, 409), rv.text


def step_two_seats_play_a_game_to_the_end_over_the_api(service):
    http = requests.Session()
    url = service.url
    catalog = http.get(f"{url}/api/v1/catalog", timeout=10).json()
    assert GAME in [g["name"] for g in catalog["games"]]
    g = _create(http, url, [{"name": "Ada"}, {"name": "Bob"}], seed="e2e-two")
    gid, tokens = g["id"], {s["seat"]: s["token"] for s in g["seats"]}
    state = http.get(f"{url}/api/v1/games/{gid}/state", headers=_auth(tokens[0]), timeout=10).json()
    assert state["format"] == "connect-four-position/1" and state["to_act"] == [0]
    legal = http.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=_auth(tokens[0]), timeout=10).json()
    assert [m["move"] for m in legal["moves"]] == [f"drop {c}" for c in "abcdefg"]
    assert legal["moves"][3]["description"] == "Drop a disc in column d (it lands on the bottom row)"
    rv = http.post(f"{url}/api/v1/games/{gid}/moves", headers=_auth(tokens[1]), timeout=10,
                   json={"expected_version": legal["version"], "moves": ["drop d"]})
    assert rv.status_code in (403, 409, 422), rv.text   # not Bob's turn
    rv = http.post(f"{url}/api/v1/games/{gid}/moves", headers=_auth(tokens[0]), timeout=10,
                   json={"expected_version": legal["version"], "moves": ["drop z"]})
    assert rv.status_code == 422 and rv.headers["Content-Type"].startswith("application/problem+json")
    # both drop in the first open column: columns a to c fill up, then Ada's fourth on the bottom row
    done = _play_to_end(http, url, gid, tokens, pick=lambda moves: moves[0])
    assert done["winner"] == 0 and [s["score"] for s in done["seats"]] == [1, 0]
    events = http.get(f"{url}/api/v1/games/{gid}/events", timeout=10).json()["events"]
    assert len(events) == 20 and events[-1]["text"] == (
        "Ada drops a red disc in column d (it lands on the bottom row); four in a row: Ada wins")
    svg = http.get(f"{url}/api/v1/games/{gid}/board.svg", timeout=10)
    assert svg.headers["Content-Type"].startswith("image/svg+xml") and 'class="disc seat0"' in svg.text
    record = http.get(f"{url}/api/v1/games/{gid}/record", timeout=10).text
    assert '[Game "connect-four"]' in record and "1. s0: drop a" in record
    fairness = http.get(f"{url}/api/v1/games/{gid}/fairness", timeout=10).json()
    assert fairness["finished"] and "connect-four-engine verify" in fairness["verify"]


def step_a_game_against_the_ai_seat(service):
    http = requests.Session()
    g = _create(http, service.url, [{"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "easy"}],
                seed="e2e-ai")
    tokens = {0: g["seats"][0]["token"]}
    done = _play_to_end(http, service.url, g["id"], tokens, pick=lambda moves: moves[0], limit=180)
    events = http.get(f"{service.url}/api/v1/games/{g['id']}/events", timeout=10).json()["events"]
    assert "drop a" in [e["move"] for e in events if e.get("seat") == 1], "the AI blocks column a"
    assert done["winner"] == 1, "the AI wins against a seat that only drops in the first open column"


def step_its_page_is_the_generic_game_page(service, tmp_path):
    http = requests.Session()
    g = _create(http, service.url, [{"name": "Ada"}, {"name": "Bob"}], seed="e2e-page")
    rv = http.get(f"{service.url}/play/{g['id']}", timeout=10, headers={"Accept": "text/html"})
    assert rv.status_code == 200 and 'id="board-wrap"' in rv.text and 'id="unit"' in rv.text
    from tests.browser import browser_missing
    if browser_missing():
        return
    from playwright.sync_api import expect, sync_playwright

    from tests.browser import launch, screenshot, wait_until
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.set_default_timeout(20_000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{service.url}/play/{g['id']}#token={g['seats'][0]['token']}")
            wait_until(page, "Number(document.body.dataset.version || 0) > 0")
            expect(page.locator("#title")).to_have_text("Connect Four: Ada and Bob")
            expect(page.locator("#moves button.move")).to_have_count(7)
            page.locator('#moves button[data-move="drop d"]').click()
            expect(page.locator("#history li")).to_have_count(2)
            expect(page.locator("#board-wrap svg g.disc")).to_have_count(1)
            expect(page.locator("#history li").nth(1)).to_have_text(
                "Ada drops a red disc in column d (it lands on the bottom row)")
            screenshot(page, "connect-four-page.png")
            assert not errors, errors
        finally:
            browser.close()


def _sink_emails(service, to: str) -> list[email.message.EmailMessage]:
    sink = Path(service.data) / "mail"
    found = []
    for path in sorted(sink.glob("*.eml")) if sink.exists() else []:
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if msg["To"] == to:
            found.append(msg)
    return found


def _send(service, msg: EmailMessage) -> None:
    deadline = time.monotonic() + 20
    while True:   # the listener may still be starting
        try:
            with smtplib.SMTP("127.0.0.1", service.mailin, timeout=5) as s:
                s.send_message(msg)
            return
        except OSError:
            assert time.monotonic() < deadline, "the email listener is not up"
            time.sleep(0.3)


def step_a_move_by_email_reply(service):
    http = requests.Session()
    ada = f"ada-{os.getpid()}@home.test"
    g = _create(http, service.url, [{"name": "Ada", "email": ada}, {"name": "Bob", "email": "bob@home.test"}],
                seed="e2e-mail")
    turn = wait_for(lambda: _sink_emails(service, ada), 60, "Ada's turn email")[0]
    assert g["id"] in turn["Subject"]
    body = turn.get_body(("plain",)).get_content()
    assert "drop d" in body and "a b c d e f g" in body, body
    reply = EmailMessage()
    reply["From"], reply["To"], reply["Subject"] = ada, turn["Reply-To"], "Re: " + turn["Subject"]
    reply["Message-ID"] = email.utils.make_msgid(domain="home.test")
    reply.set_content("d\n")
    _send(service, reply)
    wait_for(lambda: http.get(f"{service.url}/api/v1/games/{g['id']}", timeout=5).json()["version"] >= 2,
             30, "the reply played")
    events = http.get(f"{service.url}/api/v1/games/{g['id']}/events", timeout=10).json()["events"]
    assert (events[1]["seat"], events[1]["move"]) == (0, "drop d")
    # the reply accepted Ada's email too: her next turn email shows the board as a picture
    rv = http.post(f"{service.url}/api/v1/games/{g['id']}/moves", headers=_auth(g["seats"][1]["token"]),
                   timeout=10, json={"expected_version": 2, "moves": ["drop c"]})
    assert rv.status_code == 200, rv.text
    said = "Bob drops a yellow disc in column c"   # since her last turn ("Played: d." came between)
    again = wait_for(lambda: [m for m in _sink_emails(service, ada)
                              if said in m.get_body(("plain",)).get_content()], 60, "Ada's next turn")[0]
    assert any(part.get_content_type() == "image/png" for part in again.walk()), "the board as a picture"


def step_a_lobby_game_with_an_open_seat_joined(service):
    http = requests.Session()
    url = service.url
    host = f"host-{os.getpid()}@home.test"
    g = _create(http, url, [{"name": "Host", "email": host}, {"kind": "open"}])
    assert g["status"] == "waiting"
    listed = http.get(f"{url}/api/v1/lobby", params={"limit": 100}, timeout=10).json()["games"]
    assert any(e["id"] == g["id"] and e["game"] == GAME and e["open_seats"] == 1 for e in listed)
    dana = f"dana-{os.getpid()}@home.test"
    rv = http.post(f"{url}/api/v1/lobby/{g['id']}/join", json={"name": "Dana", "email": dana}, timeout=10)
    assert rv.status_code == 202, rv.text
    link = wait_for(lambda: _sink_emails(service, dana), 60, "the join link")[0]
    token = re.search(r"#join=([\w.~-]+)", link.get_body(("plain",)).get_content()).group(1)
    rv = http.post(f"{url}/api/v1/lobby/confirm", json={"token": token}, timeout=10)
    assert rv.status_code == 200, rv.text
    joined = rv.json()
    summary = http.get(f"{url}/api/v1/games/{g['id']}", timeout=10).json()
    assert summary["status"] == "active" and [s["name"] for s in summary["seats"]] == ["Host", "Dana"]
    tokens = {0: g["seats"][0]["token"], joined["seat"]: joined["token"]}
    done = _play_to_end(http, url, g["id"], tokens)
    assert done["status"] == "finished"


def step_a_tournament_of_it(service):
    http = requests.Session()
    url = service.url
    rv = http.post(f"{url}/api/v1/tournaments", timeout=10, json={
        "name": "Four in a row", "game": GAME, "format": "round_robin", "table_size": 2, "invite": True,
        "seed": "e2e-tournament"})
    assert rv.status_code == 201, rv.text
    created = rv.json()
    tid, organizer = created["id"], _auth(created["organizer_token"])
    entries = []
    for name in ("Ann", "Ben", "Cy"):
        rv = http.post(f"{url}/api/v1/tournaments/{tid}/entries", headers=organizer, timeout=10,
                       json={"name": name, "email": f"{name.lower()}-{os.getpid()}@home.test"})
        assert rv.status_code == 201, rv.text
        entries.append(rv.json())
    rv = http.post(f"{url}/api/v1/tournaments/{tid}/start", headers=organizer, timeout=10)
    assert rv.status_code == 200, rv.text

    def open_round():
        t = http.get(f"{url}/api/v1/tournaments/{tid}", timeout=10).json()
        if t["status"] == "finished":
            return t, None
        r = t["rounds"][-1] if t["rounds"] and not t["rounds"][-1]["closed"] else None
        return (t, r) if r is not None and all(tb.get("game") for tb in r["tables"]) else None

    for _ in range(10):
        t, r = wait_for(open_round, 60, "a round's games")
        if r is None:
            break
        tokens: dict[str, dict[int, str]] = {}
        for e in entries:
            mine = http.get(f"{url}/api/v1/tournaments/{tid}/my-games", headers=_auth(e["entry_token"]),
                            timeout=10).json()
            for game in mine["games"]:
                tokens.setdefault(game["game"], {})[game["seat"]] = game["token"]
        for tb in r["tables"]:
            if tb["game"] in tokens:
                _play_to_end(http, url, tb["game"], tokens[tb["game"]])
        def moved_on(done=r["round"]):
            now = open_round()   # None: between rounds, the next one's games not made yet
            return now is None or now[1] is None or now[1]["round"] != done
        wait_for(moved_on, 60, f"round {r['round']} to close")
    t = http.get(f"{url}/api/v1/tournaments/{tid}", timeout=10).json()
    assert t["status"] == "finished" and t["game"] == GAME
    assert all(tb["result"] is not None for rd in t["rounds"] for tb in rd["tables"] if tb["game"])


def test_connect_four_installed_beside_the_platform_is_played_end_to_end(env_python, service, tmp_path):
    step_the_installed_game_is_registered_from_its_own_environment(env_python, tmp_path)
    step_two_seats_play_a_game_to_the_end_over_the_api(service)
    step_a_game_against_the_ai_seat(service)
    step_its_page_is_the_generic_game_page(service, tmp_path)
    step_a_move_by_email_reply(service)
    step_a_lobby_game_with_an_open_seat_joined(service)
    step_a_tournament_of_it(service)
