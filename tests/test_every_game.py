"""Every registered game (``games.GAMES``) through the one game interface, by the same checks
(issue 38; OpenSpiel's random-simulation test): random games played to their end or a move limit,
with the interface's invariants checked after every move -- who acts, the legal moves (sorted,
unique, in words, each notation read back as written), the phase among the game's own, the
stand-in's fallback a legal move, the search's moves the legal ones, each seat's view (its own,
who acts, no seed), the events in words, the events folded one by one giving the state played --
and at the end the record replayed and verified. A fourth game registered is checked by this file
without an edit of it, and so is each example game (examples/<name>/, tests/examples.py)."""
from __future__ import annotations

import json
import random

import pytest

import games
from tests.examples import EVERY, hosting

# moves per simulated game: enough to reach every phase of each game, cheap enough for the suite
LIMIT = 150
SEEDS = ("sim-1", "sim-2")


def check_position(game: games.Game, state, players: int, seed: str) -> list[str]:
    """The interface's invariants in one position; returns the legal moves' notations."""
    over = game.is_over(state)
    actor = game.actor(state)
    assert game.phase(state) in game.phases
    assert (game.phase(state) == "over") == over, "the phase says over exactly when the game is over"
    assert len(game.scores(state)) == players and game.round(state) >= 1
    legal = game.legal_moves(state)
    notations = [m for m, _ in legal]
    assert notations == sorted(set(notations)) and all(isinstance(d, str) and d for _, d in legal)
    if over:
        assert legal == [] and len(game.places(state)) == players
        return []
    assert actor in range(players) and notations, "a game not over has a seat to act with a move"
    for m in notations:
        assert game.format(game.parse(m)) == m, "a legal move reads back as it is written"
    assert game.fallback_move(state) in notations, "the stand-in's fixed rule plays a legal move"
    automa = game.automa_seat(state)
    assert automa is None or automa in range(players)
    if isinstance(game, games.Search):
        assert [str(m) for m in game.search_moves(state)] == notations
    for seat in [None, *range(players)]:
        view = game.view(state, seat)
        assert view["viewer"] == seat and view["to_act"] == [actor]
        assert view["format"] == game.position_format
        assert seed not in json.dumps(view), "no view holds the seed"
    return notations


@pytest.fixture
def hosted(name):
    """The game of the test's ``name``, hosted for the test (an example game registered)."""
    with hosting(name) as game:
        yield game


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", EVERY)
def test_random_games_keep_the_interface_invariants_after_every_move(name, seed, hosted):
    game = hosted
    rng = random.Random(f"{name}:{seed}")
    players = rng.randint(game.min_players, game.max_players)
    state, events = game.new_game(players, seed, {})
    folded = game.replay(events)
    for _ in range(LIMIT):
        notations = check_position(game, state, players, seed)
        if not notations:
            break
        before = state
        evs, state = game.play(state, game.actor(state), rng.choice(notations), seed)
        assert evs, "a move is recorded as events"
        for ev in evs:
            text = game.event_text(before, ev)
            assert isinstance(text, str) and text
            folded = game.evolve(folded, ev)
            before = folded
        events += evs
        assert game.to_doc(folded) == game.to_doc(state), "the events folded one by one give the state played"
    texts = game.event_texts(events)
    assert len(texts) == len(events) and all(texts)
    # the record: written, replayed with every move checked, verified against the seed
    record = game.write_record(events, {"SeedCommitment": game.seed_commitment(seed), "Seed": seed})
    _, replayed_events, final = game.replay_record(record)
    assert game.to_doc(final) == game.to_doc(state) and len(replayed_events) == len(events)
    assert game.verify_record(record) == []
    assert game.verify_record(record, seed + "x"), "a wrong seed is caught"


@pytest.mark.parametrize("name", EVERY)
def test_each_game_declares_what_the_service_asks_of_it(name, hosted):
    """What the service and the pages read of a game is declared (games/base.py), not guessed."""
    game = games.get(name)
    assert game.name == name and game.title and game.min_players <= game.max_players
    assert game.phases and game.phases[-1] == "over" and len(set(game.phases)) == len(game.phases)
    assert set(game.seat_kinds) <= {"human", "ai", "bot", "cardinalbot"} and "human" in game.seat_kinds
    assert not game.review or "ai" in game.seat_kinds, "a review is the game's AI's"
    if "ai" in game.seat_kinds:
        assert isinstance(game, games.Search), "AI seats need the generic search (or an AI of the game's own)"
    if game.email:
        assert games.email_texts(game) is game
    state, _ = game.new_game(game.min_players, "declared", {})
    assert game.to_doc(state)["format"] == game.position_format


@pytest.mark.parametrize("name", EVERY)
def test_the_stand_in_plays_the_games_own_fixed_rule_when_the_ai_fails(name, monkeypatch, hosted):
    """application/stand_in.py asks the game for its fixed rule (``fallback_move``); it names no
    game (before, it asked ``game is not games.TILETUM`` and read Tiletum's agenda itself)."""
    import ai
    from application import stand_in

    def broken(*args, **kwargs):
        raise RuntimeError("the AI is down")

    monkeypatch.setattr(ai, "decide", broken)
    game = games.get(name)
    state, _ = game.new_game(game.min_players, "fallback", {})
    seat = game.actor(state)
    plan = stand_in.stand_in_plan(game.view(state, seat), "fallback:1", state, game, "easy")
    assert plan == [game.fallback_move(state)]
    assert str(plan[0]) in [m for m, _ in game.legal_moves(state)]
