"""The tournament service and the ratings of finished games, on a real Redis: entering, starting,
withdrawing, round deadlines and adjudication, knockouts, errors; hand-checked standings from a
folded event stream; ratings pools for multiplayer and solo games."""
from __future__ import annotations

import random

import pytest

import tiletum
from application.indexes import RATED
from application.rating_service import RatingService
from application.game_service import GameService
from application.store import EventStore
from application.tournament_service import TournamentService
from tournaments.model import fold
from games.tiletum import stand_in_move


class Clock:
    def __init__(self, t: float = 1_800_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def env(redis_client):
    games = GameService(EventStore(redis_client), allow_seeded_games=True)
    clock = Clock()
    return games, TournamentService(games, clock=clock), clock


def finish(games: GameService, game_id: str, rng: random.Random | None = None,
           stop_after: int | None = None) -> None:
    """Play a game to its end (or ``stop_after`` moves) as the service would, seat by seat."""
    n = 0
    while True:
        meta, state = games.load(game_id)
        if state.phase == "over" or (stop_after is not None and n >= stop_after):
            return
        seat = state.actor
        m = rng.choice(sorted(tiletum.legal(state), key=str)) if rng else stand_in_move(state)
        games.submit_for_seat(game_id, seat, state.version, [str(m)])
        n += 1


def make(ts: TournamentService, n: int, **kw) -> tuple[str, str, dict]:
    body = {"name": "T", "format": "swiss", "rounds": 3, "table_size": 2, "seed": "svc",
            "entries": [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(n)], **kw}
    out = ts.create(body)
    return out["id"], out["organizer_token"], out


def test_entries_need_the_code_and_close_when_play_begins(env):
    games, ts, _ = env
    tid, org, out = make(ts, 2, invite=True)
    from application.errors import ServiceError
    with pytest.raises(ServiceError) as e:
        ts.enter(tid, None, {"name": "X", "email": "x@example.org", "invite": "wrong"})
    assert e.value.code == "bad-invitation"
    sent: list = []
    ts.send = lambda name, args, queue: sent.append((name, args)) or True
    # with the code: the same answer whether the address is entered already or not (issue 39)
    asks = [ts.enter(tid, None, {"name": "Y", "email": who, "invite": out["invite_code"]})
            for who in ("P0@example.org", "z@example.org")]
    assert asks[0] == asks[1] == {"tournament": tid, "status": "pending", "emailed": True}
    assert [name for name, _ in sent] == ["workers.tournament_entry_ask"] * 2
    assert len(ts.load(tid).entrants) == 2, "nothing entered before the owner confirms"
    # the owner of z@ opens the emailed link: entered, once
    nonce = sent[1][1][1]
    with pytest.raises(ServiceError) as e:
        ts.confirm_entry(tid, nonce + ".forged")
    assert e.value.code == "bad-entry-link"
    entry = ts.confirm_entry(tid, ts.confirm_token(tid, nonce))
    assert entry["name"] == "Y" and ts.my_games(tid, entry["entry_token"])["games"] == []
    with pytest.raises(ServiceError) as e:
        ts.confirm_entry(tid, ts.confirm_token(tid, nonce))
    assert e.value.code == "bad-entry-link"
    # the organizer, who owns the tournament, is told
    with pytest.raises(ServiceError) as e:
        ts.enter(tid, org, {"name": "Y", "email": "P0@example.org"})
    assert e.value.code == "already-entered"
    with pytest.raises(ServiceError) as e:
        ts.start(tid, "not-the-organizer")
    assert e.value.kind == "unauthorized"
    ts.start(tid, org)
    with pytest.raises(ServiceError) as e:
        ts.enter(tid, org, {"name": "Late", "email": "late@example.org"})
    assert e.value.code == "entries-closed"
    with pytest.raises(ServiceError) as e:
        ts.start(tid, org)
    assert e.value.code == "already-started"


def test_a_start_date_in_the_past_starts_at_once_and_a_future_one_waits(env):
    games, ts, clock = env
    tid, _, _ = make(ts, 4, start_at=clock.t + 3600)
    assert ts.view(tid)["status"] == "open"
    ts.sweep()  # (the sweep also sees other tests' tournaments in this Redis)
    assert ts.view(tid)["status"] == "open"
    clock.t += 3601
    ts.sweep()
    v = ts.view(tid)
    assert v["status"] == "running" and len(v["rounds"][0]["tables"]) == 2
    tid2, _, _ = make(ts, 2, start_at=clock.t - 1)
    assert ts.view(tid2)["status"] == "running"


def test_a_start_while_another_process_advances_the_tournament_waits_for_it(env):
    """The sweep holds a tournament's lock a moment now and then (open ones too): a start that
    came then did nothing and answered as if it had started the tournament, which stayed open
    for good (found when a loaded test machine ran the two at once)."""
    import threading
    from application.errors import ServiceError
    games, ts, _ = env
    tid, token, _ = make(ts, 4)
    held = ts.store.lock(tid)   # the sweep (another process) is advancing it right now
    threading.Timer(0.3, ts.store.unlock, (tid, held)).start()
    v = ts.start(tid, token)
    assert v["status"] == "running" and len(v["rounds"][0]["tables"]) == 2
    assert all(tb["game"] for tb in v["rounds"][0]["tables"])
    # held past the wait: a clear refusal, and the tournament is as it was
    tid2, token2, _ = make(ts, 4)
    held = ts.store.lock(tid2)
    ts.lock_wait = 0.3
    before = ts.store.events(tid2)
    with pytest.raises(ServiceError) as e:
        ts.start(tid2, token2)
    assert e.value.code == "tournament-busy" and ts.store.events(tid2) == before
    ts.store.unlock(tid2, held)
    assert ts.start(tid2, token2)["status"] == "running"


def test_advance_is_idempotent_and_never_creates_a_game_twice(env):
    games, ts, _ = env
    tid, org, _ = make(ts, 4)
    ts.start(tid, org)
    before = ts.load(tid).version
    assert ts.advance(tid) == 0 and ts.load(tid).version == before
    # a crash after creating a game but before recording it: the next step finds the game
    t = ts.load(tid)
    game = t.rounds[0].tables[0].game
    assert games.meta(game)["tournament"] == {"id": tid, "round": 1, "table": 1}
    from application.game_service import GameExists
    with pytest.raises(GameExists):
        games.create_game([{"name": "a"}, {"name": "b"}], {}, game_id=game, game="tiletum")
    version = games.store.version(game)
    again = ts._start_game(t, t.rounds[0].tables[0])  # the step redone after a crash
    assert again == {"type": "GameStarted", "round": 1, "table": 1, "game": game}
    assert games.store.version(game) == version and games.meta(game)["tournament"]["id"] == tid


def test_a_round_closes_when_its_games_finish_and_the_next_is_paired(env):
    games, ts, _ = env
    tid, org, _ = make(ts, 4)
    ts.start(tid, org)
    t = ts.load(tid)
    for tb in t.rounds[0].tables:
        finish(games, tb.game)
        ts.advance(tid)
    t = ts.load(tid)
    assert t.rounds[0].closed and len(t.rounds) == 2
    assert all(tb.result is not None for tb in t.rounds[0].tables)
    # Swiss: winners meet winners
    winners = {tb.result["players"][tb.result["finish"].index(1)] for tb in t.rounds[0].tables}
    assert any(set(tb.players) == winners for tb in t.rounds[1].tables)


def test_a_round_deadline_adjudicates_unfinished_games_by_current_vp(env):
    games, ts, clock = env
    tid, org, _ = make(ts, 4, round_days=10)
    ts.start(tid, org)
    t = ts.load(tid)
    done, open_ = t.rounds[0].tables
    finish(games, done.game)
    finish(games, open_.game, stop_after=40)
    ts.advance(tid)
    assert not ts.load(tid).rounds[0].closed
    clock.t += 10 * 86400 + 1
    ts.advance(tid)
    t = ts.load(tid)
    assert t.rounds[0].closed and len(t.rounds) == 2
    res = t.rounds[0].tables[1].result
    _, state = games.load(open_.game)
    assert state.phase != "over"
    assert res["adjudicated"] is True and res["scores"] == [s.score for s in state.seats]
    a, b = res["scores"]
    assert res["finish"] == ([1, 1] if a == b else [1, 2] if a > b else [2, 1])
    assert t.rounds[0].tables[0].result["adjudicated"] is False


def test_a_withdrawn_player_forfeits_open_games_and_is_not_paired_again(env):
    games, ts, _ = env
    tid, org, _ = make(ts, 4)
    ts.start(tid, org)
    t = ts.load(tid)
    quitter = t.rounds[0].tables[0].players[0]
    token = ts.entry_token(tid, quitter)
    mine = ts.my_games(tid, token)["games"]
    assert len(mine) == 1 and mine[0]["seat"] == 0
    out = ts.withdraw(tid, token)
    assert out["withdrawn"] is True
    from application.errors import ServiceError
    with pytest.raises(ServiceError) as e:
        ts.withdraw(tid, token)
    assert e.value.code == "already-withdrawn"
    # the stand-in plays the withdrawn seat; the opponent plays on to the end
    game = t.rounds[0].tables[0].game
    for _ in range(400):
        _, state = games.load(game)
        if state.phase == "over":
            break
        assert state.actor != 0, "the withdrawn seat is played by the stand-in"
        games.submit_for_seat(game, state.actor, state.version, [str(stand_in_move(state))])
        from application.deadlines import Deadlines
        _, state = games.load(game)
        if state.actor == 0 and state.phase != "over":
            Deadlines(games, None, lambda: 0).stand_in(game, 0)  # what the turn email task does
    finish(games, t.rounds[0].tables[1].game)
    ts.advance(tid)
    t = ts.load(tid)
    res = t.rounds[0].tables[0].result
    assert res["forfeits"] == [quitter] and res["dropped"] == [quitter]
    rows = {r["player"]: r for r in t.standings()}
    assert rows[quitter]["points"] == 0 and rows[quitter]["withdrawn"] is True
    assert rows[quitter]["vp"] == 0, "a forfeiter's VP do not count"
    assert all(quitter not in tb.players for tb in t.rounds[1].tables)
    assert quitter not in t.rounds[1].byes
    assert len(t.rounds[1].tables) == 1 and len(t.rounds[1].byes) == 1, "3 players left: one table, one bye"


def test_the_organizer_withdraws_by_public_id(env):
    games, ts, _ = env
    tid, org, out = make(ts, 3)
    pid = out["players"][2]["player"]
    assert ts.withdraw(tid, org, pid)["player"] == pid
    ts.start(tid, org)
    t = ts.load(tid)
    assert len(t.rounds[0].tables) == 1 and t.rounds[0].byes == []


def test_a_knockout_runs_to_one_winner(env):
    games, ts, _ = env
    tid, org, _ = make(ts, 5, format="knockout", table_size=2)
    ts.start(tid, org)
    for _ in range(10):
        t = ts.load(tid)
        if t.finished is not None:
            break
        for tb in t.current.tables:
            finish(games, tb.game)
        ts.advance(tid)
    t = ts.load(tid)
    assert t.finished is not None
    assert [len(r.tables) for r in t.rounds] == [2, 1, 1]  # 5 -> 3 (seed 1 bye) -> 2 -> 1
    assert t.rounds[0].byes == [list(t.entrants)[0]]
    assert len(t.survivors()) == 1
    assert ts.load(tid).survivors()[0] in t.rounds[-1].tables[0].players
    assert tid not in ts.store.running()


def test_three_player_swiss_tables(env):
    games, ts, _ = env
    tid, org, _ = make(ts, 7, table_size=3, rounds=2)
    ts.start(tid, org)
    t = ts.load(tid)
    assert sorted(len(tb.players) for tb in t.rounds[0].tables) == [2, 2, 3]
    for tb in t.rounds[0].tables:
        finish(games, tb.game, random.Random(1))
    ts.advance(tid)
    t = ts.load(tid)
    for tb in t.rounds[0].tables:
        assert sorted(tb.result["finish"]) == list(range(1, len(tb.players) + 1))
    assert len(t.rounds) == 2


def test_standings_of_a_folded_stream_hand_checked(env):
    """Round 1: A beats B (60-50); C, D, E at one table finish C 70, E 65, D 40. Round 2:
    C beats A (55-55 on VP, C earlier in turn order), D beats E (30-20) and B has the bye.
    Points: C 1 + 1 = 2; A 1 + 0 = 1; D 0 + 1 = 1; E 1/2 + 0 = 1/2; B 0 + bye 1 = 1.
    Order: C (2); then A, D, B on 1 point: VP A 115, D 70, B 50; then E."""
    ev = [{"type": "TournamentCreated",
           "definition": {"format": "swiss", "rounds": 2, "table_size": 3, "name": "x",
                          "invite": False, "rated": True},
           "organizer": "h", "at": 0}]
    for p in "ABCDE":
        ev.append({"type": "PlayerEntered", "player": p, "name": p, "via": "list", "at": 0})

    def result(r, tb, players, scores, finish):
        return {"type": "GameResult", "round": r, "table": tb, "game": f"g{r}{tb}", "players": players,
                "scores": scores, "finish": finish, "forfeits": [], "dropped": [], "adjudicated": False}
    ev += [{"type": "RoundPaired", "round": 1, "tables": [["A", "B"], ["C", "D", "E"]], "byes": [], "at": 0,
            "deadline": None},
           result(1, 1, ["A", "B"], [60, 50], [1, 2]), result(1, 2, ["C", "D", "E"], [70, 40, 65], [1, 3, 2]),
           {"type": "RoundClosed", "round": 1, "at": 1},
           {"type": "RoundPaired", "round": 2, "tables": [["C", "A"], ["D", "E"]], "byes": ["B"], "at": 1,
            "deadline": None},
           result(2, 1, ["C", "A"], [55, 55], [1, 2]), result(2, 2, ["D", "E"], [30, 20], [1, 2]),
           {"type": "RoundClosed", "round": 2, "at": 2}]
    t = fold("x", ev)
    assert t.complete()
    rows = t.standings()
    assert [(r["player"], r["points"], r["vp"]) for r in rows] == [
        ("C", 2.0, 125), ("A", 1.0, 115), ("D", 1.0, 70), ("B", 1.0, 50), ("E", 0.5, 85)]


# --- ratings ---------------------------------------------------------------------------------

def test_finished_games_are_rated_once_in_their_pool(env, redis_client):
    games, ts, _ = env
    ratings = RatingService(games)
    made = games.create_game(
        [{"name": "Ann", "email": "ann@r.example"}, {"name": "Bob", "email": "bob@r.example"}],
        {"seed": "rated-1"}, game="tiletum")
    assert ratings.record_game(made["id"]) is False, "not finished yet"
    finish(games, made["id"])
    assert ratings.record_game(made["id"]) is True
    assert ratings.record_game(made["id"]) is False, "once"
    pool = "tiletum:multiplayer"
    board = ratings.leaderboard(pool, 0, ratings.leaderboard(pool, 0, 1)["total"])
    # by player id (from the email): other tests on this Redis rate players named Ann and Bob too
    from application.players import player_id
    ids = {player_id(redis_client, "ann@r.example"): "Ann", player_id(redis_client, "bob@r.example"): "Bob"}
    rows = {ids[r["player"]]: r for r in board["ratings"] if r["player"] in ids}
    assert set(rows) == {"Ann", "Bob"}
    _, state = games.load(made["id"])
    winner = ["Ann", "Bob"][state.winner]
    loser = "Bob" if winner == "Ann" else "Ann"
    assert rows[winner]["rating"] > 1500 > rows[loser]["rating"]
    # Glicko-2 from 1500/350/0.06, one win against 1500/350: 1662.3 / 290.3 (computed by the method)
    from tournaments.ratings import Rating, update
    expected = update(Rating(), [(Rating(), 1.0)])
    assert rows[winner]["rating"] == round(expected.mu, 1) and rows[winner]["rd"] == round(expected.rd, 1)
    hist = ratings.player(rows[winner]["player"])["history"]
    assert hist[-1]["game"] == made["id"] and hist[-1]["before"]["rating"] == 1500.0


def test_unrated_games_and_seats_without_email_are_not_rated(env, redis_client):
    games, _, _ = env
    ratings = RatingService(games)
    a = games.create_game([{"name": "A", "email": "a@u.example"}, {"name": "B", "email": "b@u.example"}],
                          {"seed": "u1", "rated": False}, game="tiletum")
    b = games.create_game([{"name": "A", "email": "a@u.example"}, {"name": "B"}], {"seed": "u2"},
                          game="tiletum")
    for g in (a, b):
        finish(games, g["id"])
        assert ratings.record_game(g["id"]) is False
    assert redis_client.hget(RATED.key(a["id"]), a["id"]).decode() == "unrated: created unrated"
    assert b"email" in redis_client.hget(RATED.key(b["id"]), b["id"])


def test_solo_games_are_rated_in_their_level_pool_against_the_bot(env, redis_client):
    games = GameService(EventStore(redis_client), allow_seeded_games=True, bot_token="bot-secret")
    ratings = RatingService(games)
    g = games.create_game(
        [{"name": "Solo", "email": "solo@s.example"}, {"name": "Cardinal", "kind": "cardinalbot"}],
        {"seed": "solo-rated", "solo": {"level": "bishop"}}, game="tiletum")
    from cardinalbot.policy import next_moves
    for _ in range(2000):
        meta, state = games.load(g["id"])
        if state.phase == "over":
            break
        if state.actor == state.solo["bot"]:
            games.submit(g["id"], "bot-secret", state.version, next_moves(state, random.Random(0)))
        else:
            games.submit_for_seat(g["id"], state.actor, state.version, [str(stand_in_move(state))])
    assert ratings.record_game(g["id"]) is True
    board = ratings.leaderboard("solo:bishop", 0, 50)
    names = {r["player"] for r in board["ratings"]}
    assert "cardinalbot:bishop" in names
    assert all(r["player"] != "cardinalbot:bishop" for r in ratings.leaderboard("tiletum:multiplayer", 0,
                                                                                500)["ratings"])


def test_every_tournament_and_rating_error_code_is_documented():
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "tournaments.md").read_text()
    codes = set()
    for f in ("application/tournament_service.py", "application/rating_service.py",
              "api/resources/tournaments.py"):
        text = (root / f).read_text()
        codes |= set(re.findall(r'errors\.(?:invalid|forbidden|missing|refused|failed)\("([a-z-]+)"', text))
        codes |= set(re.findall(r'ApiError\(\d+, "([a-z-]+)"', text))
    assert codes, "found the codes"
    missing = sorted(c for c in codes if f"`{c}`" not in doc)
    assert not missing, f"error codes not in docs/tournaments.md: {missing}"


# --- the pages -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/tournaments", "/tournaments/Tsomething"])
def test_the_tournament_pages_are_valid_html_with_labelled_controls(client, path):
    import html5lib
    from xml.etree import ElementTree as ET
    rv = client.get(path)
    assert rv.status_code == 200 and rv.mimetype == "text/html"
    assert rv.headers["Referrer-Policy"] == "no-referrer"
    text = rv.get_data(as_text=True)
    doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)  # raises on a parse error
    ids = [e.get("id") for e in doc.iter() if e.get("id")]
    assert len(ids) == len(set(ids)), "ids are unique"
    parents = {c: p for p in doc.iter() for c in p}
    for e in doc.iter():
        if e.tag in ("input", "select", "textarea"):
            node, labelled = e, False
            while node is not None:
                labelled |= node.tag == "label"
                node = parents.get(node)
            assert labelled or e.get("aria-label"), f"{ET.tostring(e)[:80]} has no label"
        if e.tag == "button":
            assert "".join(e.itertext()).strip() or e.get("aria-label"), "every button has a name"
    assert "/api/v1/tournaments" in text
    assert ("location.hash" in text) if path != "/tournaments" else ('"#organizer="' in text), \
        "secrets travel in the URL fragment"
    assert "?token" not in text and "?invite" not in text
