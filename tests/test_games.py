"""The one game interface (games/): the registry by name, and each hosted game behind the same
methods -- new game, legal moves (sorted, unique, in notation and in words), play and replay to
the same position, snapshots back to a state, a seat's view without secrets, the record and its
verifier, events in words -- and their engine errors mapped to service errors in one place."""
from __future__ import annotations

import random
import sys

import pytest

import carcassonne
import games
from application import errors


def test_the_registry_by_name():
    assert games.NAMES == ("carcassonne", "pillars", "tiletum")
    assert games.get("pillars") is games.PILLARS
    assert games.get("tiletum") is games.TILETUM and games.get(None) is games.TILETUM
    assert games.get("carcassonne") is games.CARCASSONNE
    assert games.of_meta({}) is games.TILETUM and games.of_meta({"game": "carcassonne"}) is games.CARCASSONNE
    with pytest.raises(games.UnknownGame, match="chess"):
        games.get("chess")
    assert (games.CARCASSONNE.min_players, games.CARCASSONNE.max_players) == (2, 5)
    assert (games.TILETUM.min_players, games.TILETUM.max_players) == (2, 4)


def _play_out(game: games.Game, players: int, seed: str, limit: int) -> tuple[object, list[dict]]:
    state, events = game.new_game(players, seed, {})
    rng = random.Random(seed)
    for _ in range(limit):
        if game.is_over(state):
            break
        legal = game.legal_moves(state)
        notations = [m for m, _ in legal]
        assert notations == sorted(set(notations)) and all(d for _, d in legal)
        for m in notations[:5]:
            assert game.format(game.parse(m)) == m
        evs, state = game.play(state, game.actor(state), rng.choice(notations), seed)
        events += evs
    return state, events


LIMITS = {"tiletum": 60, "carcassonne": 200, "pillars": 400}   # moves to play; another game: 200


@pytest.mark.parametrize("name", list(games.GAMES))
def test_each_game_through_the_interface(name):
    players, limit = min(3, games.get(name).max_players), LIMITS.get(name, 200)
    game = games.get(name)
    seed = f"iface-{name}"
    state, events = _play_out(game, players, seed, limit)
    assert game.replay(events).to_doc() == state.to_doc()
    half = len(events) // 2
    assert game.replay(events[half:], game.replay(events[:half])).to_doc() == state.to_doc()
    if game.can_snapshot(state):
        assert game.from_doc(game.to_doc(state)).to_doc() == state.to_doc()
    assert len(game.scores(state)) == players and game.round(state) >= 1
    view = game.view(state, 1)
    assert (view["viewer"] == 1
            and view["to_act"] == ([] if game.actor(state) is None else [game.actor(state)]))
    assert seed not in str(view)
    texts = game.event_texts(events)
    assert len(texts) == len(events) and texts[0].startswith("The game starts with")
    assert game.event_texts(events, start=half) == texts[half:]
    record = game.write_record(events, {"SeedCommitment": game.seed_commitment(seed), "Seed": seed})
    assert game.verify_record(record) == []
    assert game.verify_record(record, seed + "x"), "a wrong seed is caught"


def test_a_whole_carcassonne_game_ends_with_winners_and_a_board():
    game = games.CARCASSONNE
    state, events = _play_out(game, 2, "iface-end", 200)
    assert game.is_over(state) and game.actor(state) is None and game.legal_moves(state) == []
    scores = game.scores(state)
    assert state.winners == [i for i, p in enumerate(scores) if p == max(scores)]
    assert game.winner(state) == (state.winners[0] if len(state.winners) == 1 else None)
    svg = game.board_svg(state)
    assert svg.startswith("<svg") and svg.count('<g class="tile"') == len(state.to_doc()["board"])


class _Scored:
    """A finished position as ``places`` reads it: scores, final turn order, solo, winner."""

    def __init__(self, scores, turn_order=None, solo=None, winner=None):
        self.seats = [type("Seat", (), {"score": v})() for v in scores]
        self.players, self.solo, self.winner = len(scores), solo, winner
        self.turn_order = turn_order if turn_order is not None else list(range(len(scores)))


def test_places_follow_each_games_tie_break():
    """Tiletum (rulebook, "Game end"): tied VP go to the player earlier in the final turn order,
    so the places are distinct; solo: the Cardinalbot's rule names the winner. Carcassonne has no
    tie-break: tied seats share the place (1, 1, 3)."""
    game = games.TILETUM
    assert game.places(_Scored([90, 120, 90], turn_order=[2, 0, 1])) == [3, 1, 2]
    assert game.places(_Scored([90, 90], turn_order=[1, 0])) == [2, 1]
    assert game.places(_Scored([80, 80], solo={"bot": 0, "human": 1}, winner=0)) == [1, 2], \
        "solo: the bot wins a tie"
    carc = games.CARCASSONNE
    state, _ = _play_out(carc, 3, "iface-places", 300)
    scores = carc.scores(state)
    assert carc.places(state) == [1 + sum(o > v for o in scores) for v in scores]
    assert [i for i, p in enumerate(carc.places(state)) if p == 1] == state.winners


@pytest.mark.parametrize("name, move, kind, code", [
    ("tiletum", "zzz nonsense", "invalid", "bad-notation"),
    ("carcassonne", "jump over", "invalid", "bad-notation"),
    ("carcassonne", "place 40,40 r0", "invalid", "illegal-move"),
])
def test_engine_errors_of_both_games_become_service_errors(name, move, kind, code):
    game = games.get(name)
    state, _ = game.new_game(2, "errs", {})
    with pytest.raises(errors.ENGINE_ERRORS) as caught:
        game.play(state, game.actor(state), move, "errs")
    e = errors.from_engine(caught.value, 3)
    assert (e.kind, e.code, e.extra["move_index"]) == (kind, code, 3)


@pytest.mark.parametrize("name", list(games.GAMES))
def test_not_your_turn_is_forbidden_in_every_game(name):
    module = sys.modules[games.get(name).state_type.__module__.split(".")[0]]   # the game's engine
    e = errors.from_engine(module.NotYourTurn("seat 1 is to play"))
    assert (e.kind, e.code) == ("forbidden", "not-your-turn")


def test_a_state_tells_its_game_and_both_games_have_the_email_channel():
    t, _ = games.TILETUM.new_game(2, "s", {})
    c, _ = games.CARCASSONNE.new_game(2, "s", {})
    assert games.of_state(t) is games.TILETUM and games.of_state(c) is games.CARCASSONNE
    with pytest.raises(games.UnknownGame):
        games.of_state({"format": "carcassonne-position/1"})
    assert games.TILETUM.email and games.CARCASSONNE.email
    # every legal move of a Carcassonne turn is typable from the email's rows
    rows = games.CARCASSONNE.email_moves(c, c.actor)
    typable = set()
    for head, words in rows:
        typable.add(head)
        if "add a follower: " in words:
            typable |= {f"{head} {spot}" for spot in words.split("add a follower: ")[1].split(", ")}
    assert typable == {m for m, _ in games.CARCASSONNE.legal_moves(c)}
    assert games.CARCASSONNE.email_moves(c, 1 - c.actor) == []


# --- creating a game: one path for every game (application/game_service.py, Rules.setup) ------------------

@pytest.fixture()
def service(redis_client):
    from application.game_service import GameService
    from application.store import EventStore
    return GameService(EventStore(redis_client), allow_seeded_games=True)


def _stored_games(redis_client) -> int:
    return sum(1 for _ in redis_client.scan_iter(match="g:*:meta", count=1000))


@pytest.mark.parametrize("name", games.NAMES)
@pytest.mark.parametrize("seat, options, code", [
    ({"name": "Bob", "kind": "ai", "level": "grandmaster"}, {}, "bad-seats"),
    ({"name": "Bob", "kind": "robot"}, {}, "bad-seats"),
    ({"name": "Bob", "tz": "Mars/Olympus_Mons"}, {}, "bad-time-zone"),
    ({"name": "Bob"}, {"time_control": {"hours_per_move": 3}}, "bad-time-control"),
    ({"name": "Bob"}, {"waiting_days": 2}, "bad-options"),
])
def test_every_game_is_created_through_the_same_checks(service, redis_client, name, seat, options, code):
    """Seat kinds, AI levels, time zones and the service's options are checked alike for every
    game, and a refused game stores nothing."""
    n = _stored_games(redis_client)
    with pytest.raises(errors.ServiceError) as e:
        service.create_game([{"name": "Ann"}, seat], options, game=name)
    assert e.value.code == code, e.value
    assert _stored_games(redis_client) == n


def test_each_game_seats_its_players_and_keeps_its_own_options(service):
    """The game's own setup: Tiletum seats the Cardinalbot first and keeps its options (solo at the
    default level, action_tiles); Carcassonne takes none of its own (another game's option at its default
    action_tiles is dropped) and keeps the service's."""
    solo = service.create_game([{"name": "Ann"}, {"name": "Cardinalbot", "kind": "cardinalbot"}],
                               {"action_tiles": "shuffled", "rated": False}, game="tiletum")
    assert [s["kind"] for s in solo["seats"]] == ["cardinalbot", "human"]
    assert service.meta(solo["id"])["options"] == {"rated": False, "action_tiles": "shuffled",
                                                   "solo": {"level": "deacon"}}
    with pytest.raises(errors.ServiceError) as e:
        service.create_game([{"name": "Ann"}, {"name": "Bob"}, {"name": "Bot", "kind": "cardinalbot"}], {},
                            game="tiletum")
    assert e.value.code == "bad-seats" and "a game against the Cardinalbot has 2 seats" in str(e.value)
    carc = service.create_game([{"name": "Ann"}, {"name": "Bob"}],
                               {"action_tiles": "printed", "rated": False}, game="carcassonne")
    meta = service.meta(carc["id"])
    assert meta["game"] == "carcassonne" and meta["options"] == {"rated": False}
    with pytest.raises(errors.ServiceError) as e:
        service.create_game([{"name": "Ann"}, {"name": "Bob"}], {"solo": {}}, game="carcassonne")
    assert e.value.code == "bad-options" and "solo" in str(e.value)


def test_finishing_places_follow_each_games_tie_break():
    """Pillars: most VP, then most gold, then shared; Carcassonne: equal points share the place;
    Tiletum: the rulebook's turn-order tie-break (as tournaments.model.final_places)."""
    from pillars.playout import random_game
    from tournaments.model import final_places
    state = random_game(3, "places").state
    state.vp, state.gold = [20, 20, 20], [5, 7, 5]
    assert games.PILLARS.places(state) == [2, 1, 2]
    state.vp, state.gold = [21, 20, 20], [0, 3, 3]
    assert games.PILLARS.places(state) == [1, 2, 2]
    carc, _ = carcassonne.new_game(3, "places")
    carc.scores = [8, 12, 8]
    assert games.CARCASSONNE.places(carc) == [2, 1, 2]
    tile, _ = games.TILETUM.new_game(3, "places", {})
    assert games.TILETUM.places(tile) == final_places(games.TILETUM.scores(tile), list(tile.turn_order))


def test_pillars_events_in_words_name_the_seats_and_leave_the_cards_texts_alone():
    from pillars.describe import said_by
    state, events = games.PILLARS.new_game(2, "words", {})
    evs, after = games.PILLARS.play(state, 0, "pass", "words")
    names = ["{seat0}", "{seat1}"]
    assert games.PILLARS.event_text(None, events[0], names).startswith("The game starts with 2 players: ")
    assert games.PILLARS.event_text(state, evs[0], names) == "{seat0} takes no more cards this round"
    assert games.PILLARS.event_text(state, evs[0]) == "Take no more cards this round"
    assert games.PILLARS.event_texts(events + evs, start=1, names=names) == [
        "{seat0} takes no more cards this round"]
    card = "Use the privilege \u201cIn any one round of your choice, you pay no taxes.\u201d"
    assert said_by(card, "Cy", "its") == "Cy uses" + card[3:]   # the card's own words unchanged
    assert (said_by("Return 1 sand to the board (more than you may carry over)", "Ann")
            == "Ann returns 1 sand to the board (more than they may carry over)")
    assert (said_by("End your conversions at the Cathedral", "Hal", "its")
            == "Hal ends its conversions at the Cathedral")
    assert said_by("Take C05 and discard it at once", "Bo") == "Bo takes C05 and discards it at once"
