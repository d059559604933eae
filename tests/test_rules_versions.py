"""A game is played to its end under the rules version it started with.

Rules version 2 changed four things (issue 14): the Wool Contracts move the Merchant Town to
Town, only fulfilled Contracts fill Contract spaces, the player chooses a House space, and two
reconstructed Character types. A game that started under version 1 is folded from its stored
events and goes on being played; if the new rules applied to it, an old answer such as
'merchant Paris_Bordeaux' after a Wool Contract would no longer fit, and a Building could change
type under a player's feet. So each change is read through the game's version (GameState.rules;
tiletum/data/tiles.json keeps the old tile values under "rules1"). Each test plays the same
position under both versions.
"""
from __future__ import annotations

import copy

import pytest

import tiletum

try:
    from tests.positions import C, do, fulfilled, give, put_die, put_in_storehouse, set_offer
    from tests.test_rare_rules import illegal, start
except ImportError:  # pragma: no cover - run from tests/
    from positions import C, do, fulfilled, give, put_die, put_in_storehouse, set_offer
    from test_rare_rules import illegal, start


def as_rules(s, version: int):
    """The same position in a game started under ``version`` (version 1 kept no reveal count)."""
    s = copy.deepcopy(s)
    s.reveals = None if version == 1 else (s.reveals or 1)
    assert s.rules == version
    return s


def test_a_new_game_is_version_2_and_a_rules_1_document_stays_version_1():
    state, events = tiletum.new_game(3, "versions")
    assert events[0]["rules"] == tiletum.RULES_VERSION == "2" and state.rules == 2
    doc = state.to_doc()
    doc.pop("reveals")  # a position document written before version 2
    assert tiletum.GameState.from_doc(doc).rules == 1


@pytest.mark.parametrize("version, expected", [
    (1, ["merchant Paris_Bordeaux", "merchant Tiletum", "merchant Troyes", "skip"]),   # one space
    (2, ["merchant Bordeaux", "merchant Tiletum", "merchant Troyes", "skip"]),         # Town to Town
])
def test_the_wool_contract_move_follows_the_games_version(version, expected):
    s = start()
    s.seats[0].merchant = "Paris"
    put_in_storehouse(s, 0, "K15")
    give(s, 0, wool=7)
    s = as_rules(s, version)
    s, _ = do(s, "fulfil K15")
    assert tiletum.legal_moves(s) == expected
    s, _ = do(s, expected[0])
    assert s.seats[0].merchant == expected[0].split()[1] and not s.agenda


@pytest.mark.parametrize("version", [1, 2])
def test_a_held_contract_fills_a_space_only_under_version_1(version):
    s = start()
    fulfilled(s, 0, ["K07", "K08", "K12", "K13", "K21"])
    put_in_storehouse(s, 0, "K22")
    set_offer(s, "contract", ["K10", "K15", "K23", "K26", "K09"])
    put_die(s, "contract", 1)
    s = as_rules(s, version)
    s, _ = do(s, "take G1")
    if version == 1:
        assert "contract 5" not in tiletum.legal_moves(s)
        illegal(s, "contract 5", "contract-spaces-full")
    else:
        assert "contract 5" in tiletum.legal_moves(s)


@pytest.mark.parametrize("version", [1, 2])
def test_the_house_space_is_chosen_only_under_version_2(version):
    s = start(players=4)
    s.seats[0].merchant = "Wien"
    put_die(s, "merchant", 4)
    s = as_rules(s, version)
    s, _ = do(s, "take G4")
    moves = tiletum.legal_moves(s)
    if version == 1:
        assert "house" in moves and "house 2" not in moves
        s, _ = do(s, "house")
        assert s.houses["Wien"] == [0]                       # printed order: space 1
    else:
        assert "house 1" in moves and "house 2" in moves and "house" not in moves


@pytest.mark.parametrize("version", [1, 2])
def test_the_character_types_follow_the_games_version(version):
    """Version 2 made C36 ('2 Wool') the type of C11 ('1 Gold and 1 Wool'), as the rulebook's
    Character Action example needs; version 1 games keep C36 a Merchant Character."""
    old = {"C15": "character", "C36": "merchant"}
    new = {"C15": "merchant", "C36": "character"}
    for tile in ("C15", "C36"):
        assert C.tile_raw(tile, 1)["type"] == old[tile] and C.tile_raw(tile, 2)["type"] == new[tile]
        assert C.tiles[tile].raw["type"] == new[tile]
    gold_wool = "C11"
    assert C.tiles[gold_wool].raw["bonus"] == [{"gain": {"gold": 1, "wool": 1}}]
    s = start()
    put_in_storehouse(s, 0, gold_wool, "C36")
    put_die(s, "character", 2)
    s = as_rules(s, version)
    s, _ = do(s, "take G2")
    b = next(i + 1 for i, n in enumerate(C.building_rooms) if n == 2)
    s, _ = do(s, f"place {gold_wool} {b}.2")
    if version == 2:
        s, _ = do(s, f"place C36 {b}.1")                     # the same type: the same Building
        assert s.seats[0].rooms[b - 1] == ["C36", gold_wool]
    else:
        illegal(s, f"place C36 {b}.1", "building-type")


def test_old_fixture_games_fold_and_check_under_version_1():
    """The games recorded under version 1 (tests/fixtures) replay with every move checked by the
    version-1 rules, to their recorded final positions."""
    import json
    from pathlib import Path
    fixtures = sorted((Path(__file__).parent / "fixtures" / "games").glob("rules1-*.json"))
    assert fixtures
    for f in fixtures:
        game = json.loads(f.read_text())
        events = game["events"]
        state = tiletum.replay(events[:1])
        assert state.rules == 1
        for ev in events[1:]:
            if ev["type"] == "MovePlayed":
                move = tiletum.parse(ev["move"])
                assert tiletum.check(state, ev["seat"], move) is None, (f.name, ev["move"])
            state = tiletum.evolve(state, ev)
        assert state.rules == 1
