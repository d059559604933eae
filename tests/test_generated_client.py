"""A third-party client as a new developer would make one (issue 17): generated with
openapi-python-client from the document the server serves, imported, and used to play a whole
2-player game and a whole solo game against the Cardinalbot over real HTTP. The generated client
raises on any status the document does not list and parses every answer into its typed models,
so the document and the service cannot drift apart without this failing."""
from __future__ import annotations

import importlib
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from seats.client import ApiClient
from seats.runner import play_turn
from conftest import LiveServer, make_app

BOT_TOKEN = "bot-credential-for-the-generated-client"
MAIL_SECRET = "mail-secret-for-the-generated-client"
PACKAGE = "tiletum_generated_client"


@pytest.fixture(scope="module")
def server(redis_server):
    with LiveServer(make_app(redis_server.url, BOT_TOKEN=BOT_TOKEN, MAIL_SECRET=MAIL_SECRET)) as live:
        yield live


@pytest.fixture(scope="module")
def gen(server, tmp_path_factory):
    """The client package generated from the served document (once), imported."""
    generator = (shutil.which("openapi-python-client")
                 or str(Path(sys.executable).with_name("openapi-python-client")))
    if not Path(generator).exists():
        pytest.fail("openapi-python-client is not installed (pip install -e '.[test]')")
    root = tmp_path_factory.mktemp("generated")
    spec = root / "openapi.json"
    spec.write_text(json.dumps(requests.get(server.url + "/api/openapi.json", timeout=10).json()),
                    encoding="utf-8")
    done = subprocess.run([generator, "generate", "--path", str(spec), "--meta", "none",
                           "--output-path", str(root / PACKAGE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(root))
    try:
        modules = {name: importlib.import_module(f"{PACKAGE}.{name}") for name in (
            "client", "models", "api.games.create_game", "api.games.get_game", "api.games.get_game_state",
            "api.games.get_legal_moves", "api.games.submit_moves", "api.games.get_events",
            "api.games.get_record", "api.games.get_fairness", "api.play.get_board_picture",
            "api.email.confirm_email_move",
            "api.lobby.list_lobby", "api.lobby.join_game", "api.lobby.confirm_join")}
    finally:
        sys.path.remove(str(root))
    return type("Generated", (),
                {"root": root / PACKAGE, "document": json.loads(spec.read_text(encoding="utf-8")),
                 **{k.rsplit(".", 1)[-1]: v for k, v in modules.items()}})


def _play(gen, url: str, seats, options, seed: str) -> dict:
    m = gen.models
    anyone = gen.client.Client(base_url=url, raise_on_unexpected_status=True)
    created = gen.create_game.sync(client=anyone, body=m.GameCreate(
        seats=seats, options=m.GameOptions.from_dict({**options, "seed": seed})))
    assert isinstance(created, m.GameCreated), created
    gid = created.id
    seat_clients = {s.seat: gen.client.AuthenticatedClient(base_url=url, token=s.token,
                                                           raise_on_unexpected_status=True)
                    for s in created.seats if s.token}
    bot = ApiClient(url, BOT_TOKEN, backoff=0.01)
    rng = random.Random(seed)
    moves = bot_turns = 0
    while True:
        summary = gen.get_game.sync(gid, client=anyone)
        assert isinstance(summary, m.GameSummary), summary
        if summary.status == m.GameSummaryStatus.FINISHED:
            break
        (seat,) = summary.to_act
        if seat not in seat_clients:  # the Cardinalbot's seat: the Cardinalbot plays it
            assert play_turn(bot, gid) >= 1
            bot_turns += 1
            continue
        me = seat_clients[seat]
        legal = gen.get_legal_moves.sync(gid, client=me)
        assert isinstance(legal, m.LegalMoves) and legal.to_act == [seat], legal
        names = [x.move for x in legal.moves]
        move = "end" if "end" in names and rng.random() < 0.8 else rng.choice(names)
        answer = gen.submit_moves.sync(gid, client=me,
                                       body=m.MovesIn(expected_version=legal.version, moves=[move]))
        assert isinstance(answer, m.MovesOut) and answer.applied == 1, answer
        moves += 1
        if moves % 40 == 1:  # the typed position, as the seat to act sees it
            position = gen.get_game_state.sync(gid, client=me)
            assert isinstance(position, m.TiletumPosition), position
            assert isinstance(position.seats[seat], m.SeatState) and position.viewer == seat
            assert position.phase in set(m.TiletumPositionPhase)
    me = next(iter(seat_clients.values()))
    final = gen.get_game_state.sync(gid, client=me)
    assert isinstance(final, m.TiletumPosition) and final.phase == m.TiletumPositionPhase.OVER
    assert final.to_act == []
    assert final.winner == summary.winner and final.final is not None
    events = gen.get_events.sync(gid, client=anyone)
    assert isinstance(events, m.EventsOut) and events.events[0].type_ == m.EventType.GAMESTARTED
    record = gen.get_record.sync(gid, client=anyone)
    assert isinstance(record, str) and seed in record  # the seed is in the record once the game is over
    fairness = gen.get_fairness.sync(gid, client=anyone)
    assert isinstance(fairness, m.Fairness) and fairness.seed == seed
    picture = gen.get_board_picture.sync(gid, client=anyone)  # not JSON: read as bytes, no JSONDecodeError
    assert picture.payload.read().startswith(b"<svg")
    return {"moves": moves, "bot_turns": bot_turns, "summary": summary, "final": final}


def test_a_generated_client_plays_a_whole_two_player_game(gen, server):
    m = gen.models
    got = _play(gen, server.url, [m.SeatIn(name="Ann"), m.SeatIn(name="Ben")], {}, "generated-2p")
    assert got["moves"] >= 50 and got["summary"].winner in (0, 1)
    assert [s.kind for s in got["summary"].seats] == [m.SeatSummaryKind.HUMAN] * 2


def test_a_generated_client_plays_a_whole_solo_game_against_the_cardinalbot(gen, server):
    m = gen.models
    got = _play(gen, server.url,
                [m.SeatIn(name="Cardinal", kind=m.SeatInKind.CARDINALBOT), m.SeatIn(name="Ada")],
                {"solo": {"level": "deacon"}}, "generated-solo")
    assert got["bot_turns"] >= 12 and got["summary"].winner in (0, 1)
    solo = got["final"].solo
    assert isinstance(solo, m.SoloBoard) and solo.level == m.SoloBoardLevel.DEACON
    assert [s.kind for s in got["summary"].seats] == [m.SeatSummaryKind.CARDINALBOT, m.SeatSummaryKind.HUMAN]


def test_the_generated_client_has_every_operation(gen):
    """No operation is left out of the client (the generator skips one whose request or answer
    it cannot read, as it skipped the inbound email webhook before issue 17)."""
    missing = []
    for path, item in gen.document["paths"].items():
        for method, op in item.items():
            if method not in ("get", "put", "post", "delete", "patch"):
                continue
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", op["operationId"]).lower()
            if not (gen.root / "api" / op["tags"][0] / f"{snake}.py").exists():
                missing.append(f"{method.upper()} {path} ({op['operationId']})")
    assert not missing, f"operations the generated client lacks: {missing}"


def test_the_generated_client_opens_an_email_link(gen, server):
    """An email link's page is HTML, read as text, with the link's signed query parameters passed
    by name as the document lists them."""
    from types import SimpleNamespace
    from urllib.parse import parse_qsl, urlsplit

    from mail import addresses
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier

    m = gen.models
    anyone = gen.client.Client(base_url=server.url, raise_on_unexpected_status=True)
    created = gen.create_game.sync(client=anyone,
                                   body=m.GameCreate(seats=[m.SeatIn(name="A"), m.SeatIn(name="B")]))
    cfg = MailConfig(secret=MAIL_SECRET, domain="pbem.localhost", from_addr="x@pbem.localhost",
                     public_url=server.url)
    # emails now link the page /email/move/<id> (api/email_pages.py); the API operation still answers
    # the links of emails sent before, signed over its own path
    link = addresses.signed_url(cfg.secret, cfg.public_url, f"/api/v1/games/{created.id}/email-move",
                                seat="0", version=str(created.version), move="take G4")
    assert urlsplit(Notifier.move_url(SimpleNamespace(cfg=cfg), created.id, 0, created.version,
                                      "take G4")).path == f"/email/move/{created.id}"
    params = dict(parse_qsl(urlsplit(link).query))
    page = gen.confirm_email_move.sync(created.id, client=anyone, **params)
    assert isinstance(page, str) and "take G4" in page and "<form method=post>" in page
    forged = gen.confirm_email_move.sync(created.id, client=anyone, **{**params, "move": "take G5"})
    assert isinstance(forged, m.Problem) and forged.code == "bad-signature"


def test_the_generated_client_joins_a_waiting_game(gen, server, redis_server):
    """A game with an open seat, found in the lobby, joined by email and confirmed by the link's
    token (docs/lobby.md): the typed answers, and the game starts."""
    import redis

    from application import links

    m = gen.models
    anyone = gen.client.Client(base_url=server.url, raise_on_unexpected_status=True)
    created = gen.create_game.sync(client=anyone, body=m.GameCreate(
        seats=[m.SeatIn(name="Host", email="host@generated.test"), m.SeatIn(kind=m.SeatInKind.OPEN)]))
    assert isinstance(created, m.GameCreated) and created.status == m.GameCreatedStatus.WAITING
    assert created.seed_commitment is None and created.creator_token
    listed = gen.list_lobby.sync(client=anyone, limit=100)
    assert isinstance(listed, m.LobbyList) and created.id in [g.id for g in listed.games]
    asked = gen.join_game.sync(created.id, client=anyone,
                               body=m.LobbyJoinIn(name="Guest", email="guest@generated.test"))
    assert isinstance(asked, m.LobbyJoinOut) and asked.status == m.LobbyJoinOutStatus.PENDING
    r = redis.Redis.from_url(redis_server.url)
    (key,) = r.keys(f"g:{{{created.id}}}:join:*")
    token = links.join_token(r, created.id, key.decode().rsplit(":", 1)[1])
    seated = gen.confirm_join.sync(client=anyone, body=m.LobbyConfirmIn(token=token))
    assert (isinstance(seated, m.LobbyJoinOut) and seated.status == m.LobbyJoinOutStatus.SEATED
            and seated.started)
    summary = gen.get_game.sync(created.id, client=anyone)
    assert (summary.status == m.GameSummaryStatus.ACTIVE
            and [s.name for s in summary.seats] == ["Host", "Guest"])
    # the link opened again leads back to the seat (docs/lobby.md), never to its token
    again = gen.confirm_join.sync(client=anyone, body=m.LobbyConfirmIn(token=token))
    assert isinstance(again, m.LobbyJoinOut) and again.again and again.play_url == seated.play_url


def test_the_generated_client_resigns_replays_and_asks_for_a_rematch(gen, server):
    """Issue 41's endpoints through the generated client: a resignation ends a 2-player game, the
    position at an earlier version is typed like the current one, and a rematch both seats asked
    for starts the new game."""
    sys.path.insert(0, str(gen.root.parent))
    try:
        resign = importlib.import_module(f"{PACKAGE}.api.together.resign")
        rematch = importlib.import_module(f"{PACKAGE}.api.together.rematch")
    finally:
        sys.path.remove(str(gen.root.parent))
    m = gen.models
    anyone = gen.client.Client(base_url=server.url, raise_on_unexpected_status=True)
    created = gen.create_game.sync(client=anyone,
                                   body=m.GameCreate(seats=[m.SeatIn(name="A"), m.SeatIn(name="B")]))
    seats = [gen.client.AuthenticatedClient(base_url=server.url, token=s.token) for s in created.seats]
    early = gen.get_game_state.sync(created.id, client=anyone, version=1)
    assert isinstance(early, m.TiletumPosition) and early.version == 1
    done = resign.sync(created.id, client=seats[1])
    assert isinstance(done, m.Resigned) and done.status == "finished" and done.winner == 0
    again = resign.sync(created.id, client=seats[0])
    assert isinstance(again, m.Problem) and again.code == "game-over"
    asked = rematch.sync(created.id, client=seats[0])
    assert isinstance(asked, m.Rematch) and asked.status == "proposed" and asked.new_game is None
    started = rematch.sync(created.id, client=seats[1])
    assert isinstance(started, m.Rematch) and started.status == "started" and started.new_game
    assert gen.get_game.sync(started.new_game, client=anyone).seats[0].name == "B"
