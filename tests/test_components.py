"""The component data: counts from the component list, well-formed effects, sources on every
record, and the map facts the rule texts state (shared/data/tiletum/rulebook_map_constraints.json)."""
from __future__ import annotations

import json
import pathlib

import pytest

from tiletum.components import BASIC_ACTIONS, RESOURCES, components

C = components()
SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "tiletum"

ATOMS = {"gain", "vp", "any", "action", "move", "move_and_place", "place_here", "building_bonus", "king",
         "add_ap", "die_resource", "place_anywhere", "teleport", "move_town"}


def dist(a, b):
    return C.distances[a][b]


def test_tile_counts_match_the_component_list():
    counts = {pile: len(ids) for pile, ids in C.pile_ids.items()}
    assert counts == {"bonus": 54, "contract": 26, "character": 45, "cathedral": 25, "cost": 9,
                      "town": 8, "fair": 11, "corruption": 6}


def test_player_count_tiles():
    assert [len(C.tiles_for("character", n)) for n in (2, 3, 4)] == [35, 40, 45]
    assert [sum(C.bonus_space_count(t, n) for t in C.towns) for n in (2, 3, 4)] == [8, 10, 12]
    for town in C.towns:  # with 2 players at most one House space per Town, Tiletum apart
        if town != "Tiletum":
            assert len(C.house_spaces(town, 2)) <= 1
    assert len(C.house_spaces("Tiletum", 4)) == 4, "every player starts with a House in Tiletum"


def test_every_record_has_a_source():
    for t in C.tiles.values():
        assert t.raw.get("source"), t.id
    for town, rec in C.map_doc["towns"].items():
        assert rec.get("source"), town
    assert all(e.get("source") for e in C.map_doc["edges"])
    for k in C.board_doc:
        if not k.startswith("_") and k != "sources":
            assert k in C.board_doc["sources"], f"board.json key {k} has no source note"


def _atoms():
    for t in C.tiles.values():
        for field in ("bonus", "effect", "benefit"):
            for atom in t.raw.get(field) or ():
                yield t.id, atom
    for sp in C.crest_spaces:
        for atom in sp["bonus"]:
            yield "crest space", atom
    for town in C.towns.values():
        for h in town.house_spaces:
            for atom in h.get("reward") or ():
                yield town.id, atom


def test_effects_use_only_known_atoms():
    for where, atom in _atoms():
        assert len(atom) == 1 or set(atom) in ({"action", "ap"}, {"move", "times"}), (where, atom)
        assert set(atom) & ATOMS, (where, atom)
        if "gain" in atom:
            assert set(atom["gain"]) <= set(RESOURCES), (where, atom)
        if "action" in atom:
            assert atom["action"] in BASIC_ACTIONS + ("any",), (where, atom)


def test_tile_kinds():
    for t in C.pile_ids["character"]:
        assert C.tiles[t].raw["type"] in BASIC_ACTIONS and C.tiles[t].raw["action"] == C.tiles[t].raw["type"]
    assert sorted(C.tiles[t].raw["value"] for t in C.pile_ids["corruption"]) == [0, 0, 1, 1, 2, 2]
    assert sum(1 for t in C.pile_ids["cost"] if C.tiles[t].raw.get("unavailable")) == 1
    crests = [C.tiles[t].raw["crest"] for t in C.pile_ids["contract"] if C.tiles[t].kind == "crest"]
    assert sorted(crests) == sorted(C.crest_families), "one Crest of each family in the Contract pile"
    stacks = {town: [t for t in C.pile_ids["cathedral"] if C.tiles[t].raw["cathedral"] == town]
              for town in C.cathedral_towns}
    assert all(stacks.values()) and sum(map(len, stacks.values())) == 25
    assert {"Frankfurt", "Verona"} <= {C.tiles[t].raw["town"] for t in C.pile_ids["town"]}


def test_fair_tiles_match_the_shared_facts():
    known = {"SetHousePillarX6": 6, "SetContractCathedralX5": 5, "ContractsX3": 3, "KingTrackPlus3": 3,
             "SetContractCrestX6": 6, "HousesX2": 2, "UpperFloorCharactersX3": 3, "CrestsX3": 3,
             "PillarsX2": 2, "CompletedBuildingsX5": 5, "CathedralsX4": 4}
    assert {t: C.tiles[t].raw["vp"] for t in C.pile_ids["fair"]} == known
    assert C.fair_board_values[2] == 3, "Verona example: 3 preprinted for the round-3 Fair"


# --- the map facts stated by the rule texts (rulebook_map_constraints.json, "hard") ---------

def test_map_is_connected_and_has_the_named_spots():
    assert len(C.spots) == 29 and sum(1 for s in C.spots if C.is_town(s)) == 23
    assert all(len(d) == 29 for d in C.distances.values())
    assert set(C.cathedral_towns) == {"London", "Koeln", "Paris", "Praha", "Bordeaux", "Wien", "Lyon",
                                      "Milano", "Firenze"}
    for road in (s for s in C.spots if not C.is_town(s)):
        a, b = road.split("_")
        assert set(C.adjacent[road]) == {a, b}, "a road space lies between the two towns it is named after"


def test_rulebook_distances():
    assert dist("London", "Venezia") == 9                     # "London to Venice is 9 moves"
    for town in ("Lyon", "Koeln", "Paris", "Antwerpen", "Brugge"):
        assert dist("London", town) <= 6                       # within the Architect's 6-AP reach
    # "only Troyes and Frankfurt are within reach (1 move)": the only adjacent Towns
    assert {s for s in C.adjacent["Strasbourg"] if C.is_town(s)} == {"Troyes", "Frankfurt"}
    assert dist("Frankfurt", "Troyes") == 2
    assert "Nuernberg" in C.adjacent["Frankfurt"] and "Praha" in C.adjacent["Nuernberg"]
    assert dist("Firenze", "Venezia") <= 2                     # "quite close"


def test_rulebook_map_spaces():
    for town in ("Antwerpen", "Brugge", "Nuernberg", "Venezia"):
        assert C.bonus_space_count(town, 2) >= 1, f"{town} has a Bonus tile space (rulebook examples)"
    assert C.towns["London"].cathedral and C.towns["Praha"].cathedral
    assert C.house_spaces("Genova", 2), "Genova has a House space (Merchant example)"


@pytest.mark.skipif(not SHARED.exists(), reason="shared/ is not beside the project")
def test_spots_are_those_of_the_shared_data():
    spots = json.loads((SHARED / "map_spots.json").read_text())
    assert set(spots["towns"]) == {s for s in C.spots if C.is_town(s)}
    assert set(spots["road_spaces"]) == {s for s in C.spots if not C.is_town(s)}
    constraints = json.loads((SHARED / "rulebook_map_constraints.json").read_text())
    assert len(constraints["hard"]) >= 10  # the facts checked one by one above
