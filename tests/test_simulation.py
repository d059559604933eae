"""Seeded random playouts over every player count, checking invariants after every move
(in the manner of OpenSpiel's random simulation test).

Light checks run after every move of every game; heavy checks (every legal move actually
applied, probes of non-listed moves, JSON round trip, step-wise evolve) run on a subset.
"""
from __future__ import annotations

import json
import random

import pytest

from tiletum import (GameState, IllegalMove, NotationError, check, evolve, legal, legal_moves, parse, play,
                    replay)
from tiletum.components import BASIC_ACTIONS, components
from tiletum.playout import random_game
from tiletum.validate import problems
from tests.soak import SOAK_SCALE

GAMES = {2: 30, 3: 25, 4: 25}       # 80 complete games in every run of the suite
SOAK_GAMES = 100 * SOAK_SCALE       # per player count, other seeds, under `make soak` (marker soak)
HEAVY_GAMES = 1                     # per player count (two more under `make soak`)
SOAK_HEAVY_GAMES = 2 * SOAK_SCALE


def light_check(old: GameState, move, events, new: GameState) -> None:
    assert not problems(new), problems(new)
    if new.phase == "over":
        return
    texts = legal_moves(new)
    assert texts, "a live game always has a legal move"
    assert texts == sorted(set(texts)), "legal moves are sorted and unique"
    for t in texts:
        m = parse(t)
        assert str(m) == t and parse(str(m)) == m, f"notation round trip of {t!r}"
        assert check(new, new.actor, m) is None, f"listed move {t!r} is refused"
    assert events and all(e["type"] == "MovePlayed" for e in events)


def probes(s: GameState) -> list[str]:
    """Plausible-looking moves of every verb, most of them illegal here."""
    c = components()
    p = s.seats[s.actor]
    rng = random.Random(s.version)
    tiles = set(p.store) | {t for t in s.contract_offer + s.character_offer if t} | {
        t for v in s.map_bonus.values() for t in v} | set(rng.sample(sorted(c.tiles), 12))
    spots = {p.merchant, p.architect, *c.adjacent[p.merchant], *rng.sample(c.spots, 4)}
    out = [f"take {col}{v}" for col in "GFWSI" for v in range(1, 7)]
    out += [f"take {d}>{t}" for d in set(s.wheel) for t in range(1, 7)]
    out += [f"{verb} {x}" for verb in ("merchant", "architect") for x in spots]
    out += [f"{verb} {x}" for verb in ("house", "pillar", "cathedral") for x in spots if c.is_town(x)]
    out += [f"{verb} {t}" for verb in ("tile", "use", "bonus", "fulfil") for t in tiles]
    out += [f"fulfil {t} {r}" for t in tiles for r in "GW"]
    out += [f"place {t} {b}.{f}" for t in p.store for b in range(1, 7) for f in range(1, 4)]
    out += [f"crest {t} {i}" for t in tiles for i in (1, 4, 6)]
    out += [f"{verb} {i}" for verb in ("char", "contract") for i in range(1, 6)]
    out += [f"building {i}" for i in range(1, 7)]
    out += [f"exchange {a} {b}" for a in "GFWSI" for b in "GFWSI"]
    out += [f"{v} {r}" for v in ("buy", "gain") for r in "GFWSI"]
    out += [f"action {a}" for a in BASIC_ACTIONS]
    out += ["house", "pillar", "king", "discard", "skip", "end"]
    return out


def heavy_check(seed: str):
    def run(old: GameState, move, events, new: GameState) -> None:
        light_check(old, move, events, new)
        # the event folds to the same state, and the old state was not touched
        assert evolve(old, events[0]).to_doc() == new.to_doc()
        doc = new.to_doc()
        assert GameState.from_doc(json.loads(json.dumps(doc))).to_doc() == doc
        if new.phase == "over":
            return
        listed = set(legal_moves(new))
        for t in listed:  # every listed move is really accepted
            play(new, new.actor, t, seed=seed)
        before = new.to_doc()
        for t in probes(new):
            try:
                m = parse(t)
            except NotationError:
                continue
            if str(m) in listed:
                continue
            assert check(new, new.actor, m) is not None, f"{t!r} accepted but not listed"
            with pytest.raises(IllegalMove):
                play(new, new.actor, m, seed=seed)
        assert new.to_doc() == before, "a refused move changed the state"
    return run


def assert_finished(result) -> None:
    s = result.state
    assert s.phase == "over" and s.round == 4 and s.fairs_scored == 4
    assert s.final is not None and set(s.final) == {str(i) for i in range(s.players)}
    for seat, b in s.final.items():
        assert b["total"] == s.seats[int(seat)].score
        assert b["total"] == (
            b["before"] + b["houses_x_pillars"] + b["buildings_vp"] + b.get("contracts_vp", 0)
            + b["resources_vp"])
    best = max(p.score for p in s.seats)
    assert s.seats[s.winner].score == best
    if s.solo is None:
        assert s.winner == next(seat for seat in s.turn_order if s.seats[seat].score == best)
    else:  # the player wins only with strictly more VP
        assert (s.winner == s.solo["human"]) == (
            s.seats[s.solo["human"]].score > s.seats[s.solo["bot"]].score)
    assert legal(s) == [] and legal_moves(s) == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_keep_invariants(players):
    for i in range(GAMES[players]):
        random_playout_checked(players, f"sim-{players}-{i}")


@pytest.mark.soak
@pytest.mark.parametrize("part", range(4))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_more_random_playouts_keep_invariants(players, part):
    """The soak run: more games (tests/soak.py: 100 per player count, times TABLEPOST_SOAK_SCALE) on
    seeds the suite does not play."""
    share = SOAK_GAMES // 4
    for i in range(part * share, (part + 1) * share):
        random_playout_checked(players, f"soak-{players}-{i}")


def random_playout_checked(players: int, seed: str) -> None:
    result = random_game(players, seed, on_move=light_check)
    assert_finished(result)
    assert replay(result.events).to_doc() == result.state.to_doc()


@pytest.mark.long(7)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_heavy_playouts_apply_every_move_and_reject_probes(players):
    for i in range(HEAVY_GAMES):
        seed = f"heavy-{players}-{i}"
        result = random_game(players, seed, on_move=heavy_check(seed))
        assert_finished(result)


@pytest.mark.soak
@pytest.mark.long(8)   # the 4-player one is the soak's longest: first, not alone at the end
@pytest.mark.parametrize("players", [2, 3, 4])
def test_more_heavy_playouts_apply_every_move_and_reject_probes(players):
    for i in range(HEAVY_GAMES, HEAVY_GAMES + SOAK_HEAVY_GAMES):
        seed = f"heavy-{players}-{i}"
        result = random_game(players, seed, on_move=heavy_check(seed))
        assert_finished(result)


def test_same_seed_same_game_and_different_seed_differs():
    a = random_game(3, "repeat")
    b = random_game(3, "repeat")
    assert a.events == b.events
    c = random_game(3, "other")
    assert c.events[0]["chance"] != a.events[0]["chance"]


SOLO_GAMES = 15   # per level


@pytest.mark.parametrize("level", ["priest", "deacon", "bishop"])
def test_random_solo_playouts_keep_invariants(level):
    """Random legal moves for both seats of solo games: the Cardinalbot's mechanics, its
    board's tiles and the solo phases keep every invariant."""
    for i in range(SOLO_GAMES):
        seed = f"solo-{level}-{i}"
        result = random_game(2, seed, options={"solo": {"level": level}}, on_move=light_check)
        assert_finished(result)
        assert result.state.solo["decrees"] == components_tail(), "one Decree leaves the row per Fair"
        assert replay(result.events).to_doc() == result.state.to_doc()


def components_tail():
    from tiletum.solo import data
    return data()["decree_tail"]


def test_playouts_are_the_same_in_every_process():
    """legal() has one order everywhere (no set iteration order leaks in), so a seeded random
    game is the same game in any process, whatever PYTHONHASHSEED."""
    import os
    import subprocess
    import sys
    code = ("from tiletum.playout import random_game; r = random_game(3, 'hash-check'); "
            "print([p.score for p in r.state.seats], r.moves)")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(h)}).stdout for h in (1, 2, 3)}
    assert len(outs) == 1, outs


def test_the_quick_free_house_space_check_agrees_with_the_spaces_over_playouts():
    """``has_free_house_space`` (what the AI's evaluation asks thousands of times a decision) says
    the same as the list of free spaces, in every Town after every move of random games."""
    from tiletum.board import free_house_spaces, has_free_house_space
    towns = list(components().towns)
    seen = set()

    def agree(old, move, events, new):
        for town in towns:
            free = bool(free_house_spaces(new, town))
            assert has_free_house_space(new, town) == free, (town, new.houses.get(town))
            seen.add(free)
    for players in (2, 3, 4):
        random_game(players, f"free-house-{players}", on_move=agree)
    assert seen == {True, False}
