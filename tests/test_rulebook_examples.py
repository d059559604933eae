"""Known-value tests: one per worked example of the multiplayer rulebook
(/work/shared/rules/tiletum-rulebook.md, up to "Cardinalbot's Turn").

The book's pictures are lost, so where an example depends on a printed value that is only
reconstructed in ``tiletum/data`` (Contract offer costs, Crest space costs, Character bonuses,
Fair board values ...) the value is looked up through ``tiletum.components.components()`` and the
test checks the *rule*, not the guessed number. Colours of the examples are mapped to seats.
"""
from __future__ import annotations

import pytest

import tiletum
from tiletum.board import corruption, reset_red
from tiletum.flow import fair_vp, final_breakdown, participates, score_fair

try:
    from tests.positions import *  # noqa: F401,F403
    from tests import positions as P
except ImportError:  # pragma: no cover - tests/ on sys.path without the package
    from positions import *  # noqa: F401,F403
    import positions as P

C = P.C


def ap(s):
    """Action Points left in the Action in progress (the main frame of the turn)."""
    for e in s.agenda:
        if e["t"] == "frame" and e["main"]:
            return e["ap"]
    raise AssertionError("no Action in progress")


def illegal(s, move, code):
    """Assert ``move`` by the seat to act is refused with ``code`` and changes nothing."""
    before = s.to_doc()
    with pytest.raises(tiletum.IllegalMove) as exc:
        tiletum.play(s, s.actor, move, seed="t")
    assert exc.value.code == code, f"{move!r}: expected {code}, got {exc.value.code}: {exc.value}"
    assert s.to_doc() == before
    return exc.value


# ============================================================================================
# Action phase, Step 1: Corruption
# ============================================================================================

def test_corruption_example_direct():
    """Action phase, Step 1 (Corruption example): 'a "2 Corruption" token is revealed. First the
    green marker moves to the "-2 VP" position. Then the orange and blue markers move (without
    changing their order in the stack) to the "0 VP" position.'

    Also: 'A marker may not be moved beyond the leftmost (lowest) position of the King track'
    and 'always start with the ones that are on the leftmost (lowest) spaces'.
    """
    GREEN, ORANGE, BLUE = 0, 1, 2
    s = position(3)
    set_king(s, [(0, GREEN), (2, ORANGE), (2, BLUE)])  # orange under blue on +2
    corruption(s, 2)
    assert king_value(s, GREEN) == -2
    assert king_value(s, ORANGE) == king_value(s, BLUE) == 0
    assert king_stack(s, 0) == [ORANGE, BLUE], "the stack order must not change"

    # the floor: extra movement is ignored; the leftmost marker moves (and lands) first
    lowest = C.king_values[0]
    s = position(3)
    A, B, D = 0, 1, 2
    set_king(s, [(lowest, A), (lowest + 2, D), (lowest + 1, B)])
    corruption(s, 2)
    assert [king_value(s, x) for x in (A, B, D)] == [lowest, lowest, lowest]
    # A did not move (stays at the bottom); B was left of D so it moved first
    assert king_stack(s, lowest) == [A, B, D]

    # a "0" token moves nobody
    s = position(3)
    set_king(s, [(0, A), (3, B), (-1, D)])
    before = (list(s.king_pos), list(s.king_seq))
    corruption(s, 0)
    assert (s.king_pos, s.king_seq) == before


def test_corruption_example_by_a_real_reveal():
    """Action phase, Step 1: 'The first player reveals the rightmost face-down Corruption token
    and moves the markers of all players on the King track according to the number on the
    token.' Here the only tokens left face down are "2"s, so ending the last turn of the first
    cycle must reveal a "2" and move green 0 -> -2 and the orange/blue stack +2 -> 0."""
    GREEN, ORANGE, BLUE = 0, 1, 2
    s = position(3)
    set_turn(s, BLUE, cycle=0, last=True)
    set_king(s, [(0, GREEN), (2, ORANGE), (2, BLUE)])
    twos = tokens_of_value(2)
    assert twos, "the component data must have a '2' Corruption token"
    s.corruption_pool = sorted(twos)
    revealed_before = list(s.corruption_revealed)

    s = quick_turn(s)  # BLUE takes a die (not on the King Action) and ends: cycle 2 begins

    assert s.cycle == 1 and s.turn["seat"] == s.turn_order[0]
    new = [t for t in s.corruption_revealed if t not in revealed_before]
    assert len(new) == 1 and new[0] in twos
    assert king_value(s, GREEN) == -2
    assert king_stack(s, 0) == [ORANGE, BLUE]


# ============================================================================================
# King phase
# ============================================================================================

def _to_king_phase(s, last_seat, source=None):
    """End the last turn of the third cycle: the King phase starts."""
    set_turn(s, last_seat, cycle=2, last=True)
    return quick_turn(s, source=source)


def test_king_phase_example_scoring_and_bonus_tile():
    """King phase, Step 1: 'The player whose marker is highest on the King track takes (or
    discards) the Bonus tile next to the track. ... Then, all players score points as indicated
    by their position on the King track.' Example: 'Blue receives 3 Victory Points. Neither
    Orange nor Purple receive any Victory Points (but also do not lose any Victory Points), and
    Green loses 2 Victory Points. The Bonus tile from the space next to the King track is
    awarded to the Blue player.'"""
    BLUE, ORANGE, PURPLE, GREEN = 0, 1, 2, 3
    s = position(4)
    no_fair(s)
    set_king(s, [(0, ORANGE), (0, PURPLE), (-2, GREEN), (3, BLUE)])
    tile = s.king_bonus
    assert tile is not None
    scores = [p.score for p in s.seats]

    s = _to_king_phase(s, ORANGE)

    # the decision is Blue's: take the tile or discard it
    assert s.phase == "king" and s.actor == BLUE
    assert tiletum.legal_moves(s) == sorted(["skip", f"tile {tile}"])
    s, _ = do(s, f"tile {tile}", source=FirstSource())

    assert s.round == 2
    assert tile in s.seats[BLUE].store
    assert [p.score - sc for p, sc in zip(s.seats, scores)] == [3, 0, 0, -2]


def test_king_phase_discarding_the_tile_puts_it_out_of_the_game():
    """King phase, Step 1: the highest player 'takes (or discards) the Bonus tile'."""
    BLUE, ORANGE, GREEN = 0, 1, 2
    s = position(3)
    no_fair(s)
    set_king(s, [(0, ORANGE), (1, GREEN), (4, BLUE)])
    tile = s.king_bonus
    s = _to_king_phase(s, ORANGE)
    assert s.actor == BLUE
    s, _ = do(s, "skip", source=FirstSource())
    assert tile not in s.seats[BLUE].store
    assert tile in s.box
    assert s.king_bonus is not None and s.king_bonus != tile  # replenished in Cleanup (round 1)


def test_king_phase_turn_order_example():
    """King phase, Step 2: 'the player who is highest on the King track becomes the first
    player ... If multiple players share the same spot on the King track, the tie is broken in
    favor of the player with the bottommost marker (as they were there first).' Example: 'When
    the new Turn Order is established, Orange will be first, Blue second, and Green third.'
    (The picture is lost: here Orange and Blue share +2 with Orange at the bottom, Green is at
    -1.)"""
    GREEN, BLUE, ORANGE = 0, 1, 2  # the old turn order is Green, Blue, Orange
    s = position(3)
    no_fair(s)
    set_king(s, [(-1, GREEN), (2, ORANGE), (2, BLUE)])
    s = _to_king_phase(s, ORANGE)
    # ORANGE (bottommost of the tie) takes the King tile decision
    assert s.actor == ORANGE
    s, _ = do(s, "skip", source=FirstSource())
    assert s.turn_order == [ORANGE, BLUE, GREEN]
    assert s.turn["seat"] == ORANGE and s.actor == ORANGE  # round 2 starts with Orange


def test_king_phase_red_markers_reset_with_previously_lowest_on_top():
    """King phase, Step 2: 'Any player markers in the lower (red) part of the King track are
    moved up to 0, preserving their respective order. (Stack the markers ... so that the
    previously lowest placed marker will be at the top of the stack on the "0 VP" space.)
    Markers in the higher (blue) part should not be moved.'"""
    A, B, D, E = 0, 1, 2, 3
    # directly
    s = position(4)
    set_king(s, [(0, A), (-3, B), (-1, D), (5, E)])
    reset_red(s)
    assert king_stack(s, 0) == [A, D, B]
    assert king_value(s, E) == 5

    # in a real King phase (the round-2 Corruption token is forced to a "0" by FirstSource)
    s = position(4)
    no_fair(s)
    set_king(s, [(0, A), (-3, B), (-1, D), (5, E)])
    s = _to_king_phase(s, A)
    assert s.actor == E
    s, _ = do(s, "skip", source=FirstSource())
    assert s.round == 2 and token_value(s.corruption_revealed[-1]) == 0
    assert king_stack(s, 0) == [A, D, B]
    assert king_value(s, E) == 5
    assert s.turn_order == [E, A, D, B]


def test_king_phase_last_round_no_tile_scores_4():
    """King phase, Step 1: 'If there is no Bonus tile available (during the last round), that
    player scores 4 Victory Points.' (Cleanup: the King tile is not replenished after round 3.)"""
    BLUE, ORANGE, GREEN = 0, 1, 2
    s = position(3, round=4)
    set_king_bonus(s, None)
    no_fair(s)
    set_king(s, [(0, ORANGE), (1, GREEN), (2, BLUE)])
    before = [p.score for p in s.seats]
    s = _to_king_phase(s, ORANGE)
    assert s.phase == "over"
    got = [s.final[str(x)]["before"] - before[x] for x in range(3)]
    assert got == [C.king_last_round_vp + 2, 0, 1]
    assert C.king_last_round_vp == 4


def test_king_tile_is_not_replenished_after_round_3():
    """Cleanup, 1: 'Replenish the Bonus tile on the King track (don't do it in the Cleanup phase
    of the 3rd round).'"""
    s = position(3, round=3)
    no_fair(s)
    set_king(s, [(0, 0), (0, 1), (2, 2)])
    s = _to_king_phase(s, 1)
    s, _ = do(s, "skip")
    assert s.round == 4 and s.king_bonus is None


# ============================================================================================
# Fair phase
# ============================================================================================

def _verona_round_3(players=3):
    s = position(players, round=3)
    set_fair(s, 3, town="Verona", tile="ContractsX3")
    return s


def test_verona_fair_example():
    """Fair phase (Verona example): 'During the 3rd round of the game, the Fair takes place in
    Verona. The amount of Victory Points awarded is 6 (3 preprinted on the board plus 3 on the
    Fair tile) for each fulfilled Contract. The Blue player will participate in the Fair scoring
    since their Merchant is present in Verona. With 3 fulfilled Contracts on their Player board,
    Blue receives a total of 18 Victory Points.'"""
    BLUE, RED, GREEN = 0, 1, 2
    s = _verona_round_3()
    assert C.fair_board_values[2] == 3 and C.tiles["ContractsX3"].raw["vp"] == 3
    s.seats[BLUE].merchant = "Verona"
    fulfilled(s, BLUE, ["K07", "K08", "K12"])
    fulfilled(s, RED, ["K13", "K21"])        # neither a House nor the Merchant in Verona
    fulfilled(s, GREEN, ["K22"])
    put_house(s, GREEN, "Verona")            # a House there also qualifies
    assert participates(s, BLUE, "Verona") and participates(s, GREEN, "Verona")
    assert not participates(s, RED, "Verona")
    assert fair_vp(s, BLUE) == 18

    before = [p.score for p in s.seats]
    score_fair(s)
    assert [p.score - b for p, b in zip(s.seats, before)] == [18, 0, 6]


def test_verona_fair_example_played():
    """The Verona example through a real end of round 3 (all markers on 0, King tile declined)."""
    BLUE, RED, GREEN = 0, 1, 2
    s = _verona_round_3()
    s.seats[BLUE].merchant = "Verona"
    fulfilled(s, BLUE, ["K07", "K08", "K12"])
    fulfilled(s, RED, ["K13", "K21"])
    fulfilled(s, GREEN, ["K22"])
    put_house(s, GREEN, "Verona")
    set_king(s, [(0, BLUE), (0, RED), (0, GREEN)])
    before = [p.score for p in s.seats]
    s = _to_king_phase(s, RED)
    assert s.actor == BLUE  # bottommost of the tie on 0
    s, _ = do(s, "skip")
    assert s.round == 4
    assert [p.score - b for p, b in zip(s.seats, before)] == [18, 0, 6]


def test_king_track_fair_tile_scored_before_reset():
    """Appendix, Fair tiles: 'This is a special tile that needs to be scored before resetting the
    King track! Score the total Victory Points from this tile and those printed on the board,
    and then score Victory Points according to your position on the King track. (This is not a
    multiplier.) It is possible to lose Victory Points when this tile is evaluated.'"""
    BLUE, GREEN, PURPLE = 0, 1, 2
    rnd = 2
    s = position(3, round=rnd)
    set_fair(s, rnd, town="Verona", tile="KingTrackPlus3")
    per = C.fair_board_values[rnd - 1] + C.tiles["KingTrackPlus3"].raw["vp"]
    s.seats[BLUE].merchant = "Verona"
    put_house(s, GREEN, "Verona")
    set_king(s, [(-3, GREEN), (-2, PURPLE), (5, BLUE)])  # Purple is not at the Fair
    before = [p.score for p in s.seats]
    s = _to_king_phase(s, PURPLE)
    assert s.actor == BLUE
    s, _ = do(s, "skip", source=FirstSource())
    gained = [p.score - b for p, b in zip(s.seats, before)]
    # King phase position + Fair (board + tile) + position again (before the red reset)
    assert gained == [5 + per + 5, -3 + per - 3, -2]
    # and the red markers were reset afterwards
    assert king_value(s, GREEN) == 0 and king_value(s, PURPLE) == 0


# ============================================================================================
# Actions in Detail
# ============================================================================================

def _action_position(action, value, players=3, seat=0, colour="G"):
    s = position(players)
    set_turn(s, seat)
    clear_action_bonuses(s)
    set_cathedral_cost(s, "Lyon", "X9")  # Lyon is the unavailable Cathedral in these tests
    put_die(s, action, value, colour)
    return check_position(s)


@pytest.mark.parametrize("value,expected", [(1, 6), (2, 5), (3, 4), (4, 3), (5, 2), (6, 1)])
def test_action_points_are_seven_minus_the_die(value, expected):
    """Actions in Detail: 'This value is always equal to 7 minus the value of the corresponding
    die.' (Examples: value-3 -> 4 AP, value-2 -> 5 AP, value-4 -> 3 AP, value-1 -> 6 AP.)"""
    s = _action_position("architect", value)
    s, _ = do(s, f"take G{value}")
    assert ap(s) == expected
    assert s.agenda[-1]["action"] == "architect"


def test_architect_example_value_3_gives_4_ap():
    """Architect Action: 'Example: Blue takes a value-3 die from the Architect Action Tile. This
    gives them 4 Action Points.' 1 AP moves the Architect one spot (road spaces count), 1 AP adds
    a Pillar where the Architect is."""
    s = _action_position("architect", 3)
    p0 = s.seats[0]
    pillars = p0.pillars
    s, _ = do(s, "take G3")
    assert ap(s) == 4
    s, _ = do(s, "architect Paris")                # 1 AP
    s, _ = do(s, "pillar")                         # 1 AP
    assert 0 in s.pillars["Paris"] and s.seats[0].pillars == pillars - 1
    s, _ = do(s, "architect Paris_Bordeaux")       # 1 AP: a road space is a spot
    s, _ = do(s, "architect Bordeaux")             # 1 AP
    assert s.seats[0].architect == "Bordeaux" and ap(s) == 0
    illegal(s, "pillar", "no-action-points")
    illegal(s, "architect Toulouse", "no-action-points")
    s, _ = do(s, "end")


def test_architect_example_value_2_gives_5_ap_and_pillar_rules():
    """Architect Action: '1 AP: Add a Pillar ... Your Architect must be located in a Town with at
    least one empty Pillar space and you may not already have a Pillar at that Cathedral.'
    (value-2 die: 5 AP.) Road spaces: 'cannot place Houses or Pillars here.'"""
    s = _action_position("architect", 2)
    s, _ = do(s, "take G2")
    assert ap(s) == 5
    illegal(s, "pillar", "no-cathedral")           # Tiletum has no Cathedral
    s, _ = do(s, "architect Paris", "pillar")
    illegal(s, "pillar", "pillar-already")
    s, _ = do(s, "architect Paris_Bordeaux")
    illegal(s, "pillar", "no-cathedral")           # a road space
    s, _ = do(s, "architect Bordeaux", "pillar")
    assert ap(s) == 0
    assert 0 in s.pillars["Paris"] and 0 in s.pillars["Bordeaux"]
    illegal(s, "architect Toulouse", "no-action-points")


def test_pillar_needs_an_empty_space_and_a_pillar_in_supply():
    """Architect Action: 'Your Architect must be located in a Town with at least one empty Pillar
    space'; Pillars come 'from your personal supply'."""
    s = _action_position("architect", 2)
    n = C.pillar_space_count("Bordeaux", 3)
    for other in (1, 2)[:n]:
        put_pillar(s, other, "Bordeaux")
    assert len(s.pillars["Bordeaux"]) == n
    s.seats[0].architect = "Bordeaux"
    s, _ = do(s, "take G2")
    illegal(s, "pillar", "no-pillar-space")
    s.seats[0].architect = "Paris"
    s.seats[0].pillars = 0
    illegal(s, "pillar", "no-pillar")


def test_merchant_example_value_4_gives_3_ap():
    """Merchant Action: 'Example: Blue takes a value-4 die from the Merchant Action tile. This
    gives them 3 Action Points.' Options: move 1 spot (1 AP), take the Bonus tile of the Town
    (1 AP), add a House (1 AP)."""
    s = _action_position("merchant", 4)
    set_map_bonus(s, "Brugge", ["B43"])
    houses = s.seats[0].houses
    s, _ = do(s, "take G4")
    assert ap(s) == 3
    illegal(s, "house", "house-already")           # everyone starts with a House in Tiletum
    s, _ = do(s, "merchant Brugge")
    s, _ = do(s, "tile B43")
    assert s.seats[0].store[-1] == "B43" and s.map_bonus["Brugge"] == []
    reward = C.house_spaces("Brugge", 3)[0].get("reward")
    score = s.seats[0].score
    s, _ = do(s, "house")
    assert s.houses["Brugge"] == [0] and s.seats[0].houses == houses - 1
    assert ap(s) == 0
    assert reward is None or s.seats[0].score >= score
    illegal(s, "merchant Tiletum", "no-action-points")


def test_house_placement_rules():
    """Merchant Action: 'Your Merchant must be located in a Town with at least one empty House
    space and you may not already have a House in that Town. If the House space contains a
    Building Bonus, receive it now.' Road spaces: 'cannot place Houses or Pillars here.'"""
    s = _action_position("merchant", 1)
    n = len(C.house_spaces("Verona", 3))
    for other in (1, 2)[:n]:
        put_house(s, other, "Verona")
    check_position(s)
    s, _ = do(s, "take G1")
    s.seats[0].merchant = "Verona"
    illegal(s, "house", "no-house-space")
    s.seats[0].merchant = "London_Brugge"
    illegal(s, "house", "not-a-town")
    # a VP House space: its reward is received at once
    vp_town = next(t for t in sorted(C.towns) if C.house_spaces(t, 3)
                   and (C.house_spaces(t, 3)[0].get("reward") or [{}])[0].get("vp"))
    vp = C.house_spaces(vp_town, 3)[0]["reward"][0]["vp"]
    s.seats[0].merchant = vp_town
    score = s.seats[0].score
    s, _ = do(s, "house")
    assert s.seats[0].score == score + vp
    # no House left in the supply
    s.seats[0].merchant = "Genova"
    s.seats[0].houses = 0
    illegal(s, "house", "no-house")


def test_character_action_example():
    """Character Action example: 'Blue takes a value-2 die from the Character Action. This gives
    them 5 Action Points. Blue spends their first Action Point to take a Character tile from the
    game board ... The vacated space on the game board is immediately refilled. ... Then, Blue
    spends 2 Action Points to place one of their Characters into a Room on floor 2 and 1 more
    Action Point to place another Character on floor 1 of the same Building. This is allowed,
    since both Characters are the same. Blue receives the printed benefits on the placed tiles
    ... Since all floors of this Building are now occupied, Blue immediately moves the
    Building's House to their supply.'"""
    s = _action_position("character", 2)
    p = s.seats[0]
    # two Characters of one type with resource bonuses (reconstructed data: look them up)
    kind = "character"
    same = [t for t in tiles_of("character", players=3, type=kind)
            if all("gain" in a for a in C.tiles[t].raw["bonus"])][:2]
    other = tiles_of("character", players=3, type="king")[0]
    assert len(same) == 2
    rest = [t for t in s.piles["character"] if t not in same and t != other][:3]
    set_offer(s, "character", [same[0], same[1]] + rest)
    put_in_storehouse(s, 0, other)
    res0 = list(p.res)
    pile = len(s.piles["character"])

    s, _ = do(s, "take G2")
    assert ap(s) == 5
    res0[0] += 2  # the yellow die's 2 Gold
    s, _ = do(s, "char 1")
    assert s.character_offer[0] not in (None, same[0])        # refilled at once
    s, _ = do(s, "char 2")
    assert s.character_offer[1] not in (None, same[1])
    assert len(s.piles["character"]) == pile - 2
    assert s.seats[0].store[-2:] == same and ap(s) == 3

    b = next(i + 1 for i, n in enumerate(C.building_rooms) if n == 2)
    houses = s.seats[0].houses
    s, _ = do(s, f"place {same[0]} {b}.2")                      # 2 AP
    illegal(s, f"place {other} {b}.1", "building-type")         # a different type
    b2 = next(i + 1 for i, n in enumerate(C.building_rooms) if n >= 1 and i + 1 != b)
    illegal(s, f"place {same[1]} {b2}.1", "building-type")      # same type, other Building
    s, _ = do(s, f"place {same[1]} {b}.1")                      # 1 AP
    assert ap(s) == 0
    p = s.seats[0]
    assert p.rooms[b - 1] == [same[1], same[0]]
    # both bonuses received
    expect = list(res0)
    for t in same:
        for atom in C.tiles[t].raw["bonus"]:
            for r, n in atom["gain"].items():
                expect[P.RES_NAMES.index(r)] += n
    assert p.res == expect
    # the filled Building's roof House goes to the supply
    assert p.roofs[b - 1] is False and p.houses == houses + 1


def test_character_action_example_as_printed():
    """Character Action example, with the printed Characters: 'Then, Blue spends 2 Action Points
    to place one of their Characters into a Room on floor 2 and 1 more Action Point to place
    another Character on floor 1 of the same Building. This is allowed, since both Characters are
    the same. Blue receives the printed benefits on the placed tiles: 1 Gold and 1 Wool for the
    first Character and 2 Wool for the second Character. Since all floors of this Building are
    now occupied, Blue immediately moves the Building's House to their supply.' The '1 Gold and
    1 Wool' and the '2 Wool' Characters are therefore of one type (tiletum/data/tiles.json)."""
    gold_wool = [t for t in tiles_of("character", players=3)
                 if C.tiles[t].raw["bonus"] == [{"gain": {"gold": 1, "wool": 1}}]]
    two_wool = [t for t in tiles_of("character", players=3)
                if C.tiles[t].raw["bonus"] == [{"gain": {"wool": 2}}]]
    assert gold_wool and two_wool
    first, second = gold_wool[0], two_wool[0]
    assert C.tiles[first].raw["type"] == C.tiles[second].raw["type"]
    s = _action_position("character", 2)
    rest = [t for t in s.piles["character"] if t not in (first, second)][:3]
    set_offer(s, "character", [first, second] + rest)
    check_position(s)
    s, _ = do(s, "take G2", "char 1", "char 2")                  # 5 AP, two spent
    assert ap(s) == 3 and s.seats[0].store[-2:] == [first, second]
    b = next(i + 1 for i, n in enumerate(C.building_rooms) if n == 2)
    p0 = s.seats[0]
    gold, wool, houses = res(s, 0)["gold"], res(s, 0)["wool"], p0.houses
    s, _ = do(s, f"place {first} {b}.2")                         # 2 AP: 1 Gold and 1 Wool
    assert (res(s, 0)["gold"], res(s, 0)["wool"]) == (gold + 1, wool + 1)
    s, _ = do(s, f"place {second} {b}.1")                        # 1 AP: 2 Wool, same Building
    assert (res(s, 0)["gold"], res(s, 0)["wool"]) == (gold + 1, wool + 3)
    p0 = s.seats[0]
    assert ap(s) == 0 and p0.rooms[b - 1] == [second, first]
    assert p0.roofs[b - 1] is False and p0.houses == houses + 1  # the roof House to the supply


def test_character_placement_costs_the_floor():
    """Character Action: '1/2/3 AP: Move a Character tile from your Storehouse to a Room on floor
    1/2/3 ... The cost in Action Points is equal to the floor of the Room.'"""
    s = _action_position("character", 5)  # 2 AP
    t = tiles_of("character", players=3, type="king")[0]
    put_in_storehouse(s, 0, t)
    s, _ = do(s, "take G5")
    assert ap(s) == 2
    illegal(s, f"place {t} 1.3", "no-action-points")
    illegal(s, f"place {t} 4.2", "no-such-room")
    s, _ = do(s, f"place {t} 1.2")
    assert ap(s) == 0


def test_contract_action_example():
    """Contract Action example: 'Blue takes a value-1 die from the Contract Action. This gives
    them 6 Action Points. First, Blue spends 1 Action Point to exchange 1 Food for 1 Gold. Since
    they exchanged something this turn, they also receive a bonus Resource. Blue chooses 1 Iron.
    Then, Blue spends 2 Action Points to take the Contract tile from the outlined space. Finally,
    Blue spends 3 Action Points to take the Contract tile from this other outlined space.'
    'At the end of your turn, shift all Contract tiles in the offer to the right until all empty
    positions are filled, then replenish the offer.' (Slot costs are reconstructed: looked up.)"""
    costs = C.contract_offer_costs
    two = costs.index(2) + 1
    three = costs.index(3) + 1
    s = _action_position("contract", 1, colour="S")
    offer = ["K07", "K08", "K12", "K13", "K21"]
    set_offer(s, "contract", offer)
    set_res(s, 0, gold=0, food=1, wool=0, stone=0, iron=0)

    s, _ = do(s, "take S1")
    assert ap(s) == 6 and res(s, 0)["stone"] == 1
    s, _ = do(s, "exchange F G")
    assert pending(s)["kind"] == "resource"        # the first exchange's bonus Resource
    s, _ = do(s, "gain I")
    assert res(s, 0) == {"gold": 1, "food": 0, "wool": 0, "stone": 1, "iron": 1}
    assert ap(s) == 5
    s, _ = do(s, f"contract {two}")
    assert ap(s) == 3
    s, _ = do(s, f"contract {three}")
    assert ap(s) == 0
    assert s.seats[0].store[-2:] == [offer[two - 1], offer[three - 1]]
    assert s.contract_offer[two - 1] is None and s.contract_offer[three - 1] is None  # not yet refilled

    s, _ = do(s, "end")
    left = [t for i, t in enumerate(offer) if i + 1 not in (two, three)]
    assert s.contract_offer[-len(left):] == left, "remaining tiles slide to the right"
    assert all(t is not None and t not in offer for t in s.contract_offer[:2])  # refilled on the left


def test_contract_second_exchange_gives_no_bonus():
    """Contract Action: 'Exchange one of your Resources for a different Resource. The first time
    you do this during your turn, receive one bonus Resource of your choice.'"""
    s = _action_position("contract", 1, colour="S")
    set_res(s, 0, food=2, wool=1)
    s, _ = do(s, "take S1", "exchange F G", "gain I", "exchange F G")
    assert pending(s)["t"] == "frame"              # no second bonus decision
    assert res(s, 0) == {"gold": 2, "food": 0, "wool": 1, "stone": 1, "iron": 1}
    s, _ = do(s, "exchange W I")
    assert res(s, 0) == {"gold": 2, "food": 0, "wool": 0, "stone": 1, "iron": 2}
    assert ap(s) == 3
    illegal(s, "exchange F G", "not-enough-resources")
    illegal(s, "exchange G G", "same-resource")


def test_contract_take_needs_the_slot_cost_in_ap():
    """Contract Action: 'Take a Contract tile from the offer, spending the number of Action Points
    indicated below its space in the offer'."""
    costs = C.contract_offer_costs
    dear = costs.index(max(costs)) + 1
    value = 7 - (max(costs) - 1)          # a die giving one AP less than the dearest slot
    s = _action_position("contract", value)
    s, _ = do(s, f"take G{value}")
    assert ap(s) == max(costs) - 1
    illegal(s, f"contract {dear}", "no-action-points")


def test_king_action_example():
    """King Action example: 'Blue takes a value-4 die from the King Action. This gives them 3
    Action Points. The blue marker moves up 3 spaces on the King track. Since there is a marker
    already where Blue ends their move, the blue marker is placed on top of the orange and
    purple markers.'"""
    BLUE, ORANGE, PURPLE = 0, 1, 2
    s = _action_position("king", 4, seat=BLUE)
    set_king(s, [(3, ORANGE), (3, PURPLE), (0, BLUE)])
    s, _ = do(s, "take G4")
    assert ap(s) == 3
    s, _ = do(s, "king")
    assert king_value(s, BLUE) == 3
    assert king_stack(s, 3) == [ORANGE, PURPLE, BLUE]
    assert ap(s) == 0


# ============================================================================================
# Player Boards: the Completed Building
# ============================================================================================

def _king_building(s, seat, floors=3, crest_in_store=True):
    """Building 1 (3 Rooms) holding King-type Characters on floors 1..``floors``."""
    kings = tiles_of("character", players=3, type="king")
    place_in_rooms(s, seat, 1, kings[:floors])
    crest = tiles_of("crest", pile="bonus", players=3)[0]
    if crest_in_store:
        put_in_storehouse(s, seat, crest)
    return kings, crest


def test_completed_building_example():
    """Player Boards example: 'Blue spends three Action Points to place a Character from their
    Storehouse into a Room on floor 3. After receiving the corresponding benefit from the placed
    Character, Blue spends 6 Food to move a Crest from their Storehouse to the empty spot below
    the same Building. After receiving the corresponding benefit from placing the Crest, Blue's
    Building becomes a Completed Building. Immediately Blue takes the corresponding Bonus Action
    Point marker and places it into the matching section (King Action) of the Action Wheel. From
    now on, Blue has a bonus of 3 Action Points when taking a King Action.'"""
    assert C.building_rooms[0] == 3 and C.building_ap[0] == 3
    food = C.crest_spaces[0]["food"]
    s = _action_position("character", 3)  # 4 AP
    kings = tiles_of("character", players=3, type="king")
    place_in_rooms(s, 0, 1, kings[:2])
    third = next(t for t in kings[2:] if C.tiles[t].raw["bonus"][0].get("vp"))
    put_in_storehouse(s, 0, third)
    crest = tiles_of("crest", pile="bonus", players=3)[0]
    put_in_storehouse(s, 0, crest)
    give(s, 0, food=food)
    score = s.seats[0].score
    houses = s.seats[0].houses

    s, _ = do(s, "take G3")
    assert ap(s) == 4
    s, _ = do(s, f"place {third} 1.3")                 # 3 AP, completes the Rooms
    assert ap(s) == 1
    assert s.seats[0].score == score + C.tiles[third].raw["bonus"][0]["vp"]
    assert s.seats[0].houses == houses + 1            # roof House to the supply
    assert s.seats[0].ap_bonus == {}                   # not Completed yet: no Crest
    food_before = res(s, 0)["food"]
    s, _ = do(s, f"crest {crest} 1")
    assert res(s, 0)["food"] == food_before - food
    assert s.seats[0].crests[0] == crest
    # the Crest space bonus (a House anywhere) is offered; declining it is allowed
    assert pending(s)["t"] == "choice"
    s = skip_choices(s)
    assert s.seats[0].ap_bonus == {"king": 3}
    assert ap(s) == 1                                  # the current Action (Character) is not boosted

    # next turn: a King Action with a value-4 die gives 3 + 3 AP
    s, _ = do(s, "end")
    set_turn(s, 0)
    put_die(s, "king", 4)
    s, _ = do(s, "take G4")
    assert ap(s) == 3 + 3
    k = king_value(s, 0)
    s, _ = do(s, "king")
    assert king_value(s, 0) == k + 6


def test_completed_building_bonus_applies_to_the_current_action():
    """Player Boards: 'the Action associated with that Character type immediately becomes
    stronger for you (including the current Action, if applicable).'"""
    s = _action_position("king", 4)
    _, crest = _king_building(s, 0)
    give(s, 0, food=C.crest_spaces[0]["food"])
    s, _ = do(s, "take G4")
    assert ap(s) == 3
    s, _ = do(s, f"crest {crest} 1")
    s = skip_choices(s)
    assert ap(s) == 6
    s, _ = do(s, "king")
    assert king_value(s, 0) == 6


def test_completed_building_bonus_with_the_joker():
    """Player Boards: 'This bonus also applies when you perform the matching Action using the
    Joker Action.' Joker: 'Spend all your Action Points on the options available for that
    Action.'"""
    s = _action_position("joker", 5)
    _king_building(s, 0, crest_in_store=False)
    place_crest(s, 0, 1, tiles_of("crest", pile="bonus", players=3)[0])
    s.seats[0].ap_bonus = {"king": 3}
    s, _ = do(s, "take G5")
    assert pending(s)["kind"] == "joker"
    assert sorted(tiletum.legal_moves(s)) == sorted(f"action {a}" for a in
                                                   ("architect", "merchant", "character", "contract", "king"))
    s, _ = do(s, "action king")
    assert ap(s) == 2 + 3
    s, _ = do(s, "king")
    assert king_value(s, 0) == 5


def test_completed_building_bonus_not_for_helper_actions():
    """Player Boards: 'This bonus only applies to Action Points received when choosing a die and
    not to any Actions provided by a Helper or other game effect.'"""
    s = _action_position("king", 4)
    s.seats[0].ap_bonus = {"king": 3}
    helper = next(t for t in tiles_of("helper", players=3)
                  if C.tiles[t].raw["effect"] == [{"action": "king", "ap": 2}])
    put_in_storehouse(s, 0, helper)
    s, _ = do(s, f"use {helper}")
    assert pending(s) == {"t": "frame", "seat": 0, "action": "king", "ap": 2, "main": False}
    s, _ = do(s, "king")
    assert king_value(s, 0) == 2
    assert helper in s.box and helper not in s.seats[0].store


def test_rightmost_building_gives_no_action_bonus():
    """Player Boards: 'Completing the rightmost Building on your Player board does not provide
    any Action bonuses.'"""
    s = _action_position("king", 4)
    crest = tiles_of("crest", pile="bonus", players=3)[0]
    put_in_storehouse(s, 0, crest)
    last = len(C.crest_spaces)
    give(s, 0, food=C.crest_spaces[last - 1]["food"])
    s, _ = do(s, "take G4", f"crest {crest} {last}")
    s = skip_choices(s)
    assert s.seats[0].ap_bonus == {}
    assert ap(s) == 3
    assert final_breakdown(s, s.seats[0])["completed_buildings"] == 1


# ============================================================================================
# End of the Game and Final Scoring
# ============================================================================================

def _blue_final_position():
    """Blue (seat 0): 5 Houses and 5 Pillars on the map, 4 Completed Buildings, and 3 Iron,
    5 Gold and 1 Wool."""
    BLUE = 0
    s = position(3, round=4)
    set_king_bonus(s, None)
    set_cathedral_cost(s, "Lyon", "X9")
    # 4 Completed Buildings: Buildings 2, 4, 5 (Rooms of one type each) and the rightmost one
    types = ("king", "merchant", "architect")
    for b, kind in zip((2, 4, 5), types):
        n = C.building_rooms[b - 1]
        place_in_rooms(s, BLUE, b, tiles_of("character", players=3, type=kind)[:n])  # roof Houses freed
    families = C.crest_families
    crests = [tiles_of("crest", pile="bonus", players=3, crest=f)[0] for f in families[:4]]
    for space, crest in zip((2, 4, 5, 6), crests):
        place_crest(s, BLUE, space, crest)
    fulfilled(s, BLUE, ["K07", "K12", "K21"])                  # frees 3 more Pillars
    for town in ("Brugge", "Hamburg", "Koeln", "Frankfurt"):   # + Tiletum = 5
        put_house(s, BLUE, town)
    for town in ("London", "Koeln", "Paris", "Praha", "Wien"):
        put_pillar(s, BLUE, town)
    set_res(s, BLUE, iron=3, gold=5, wool=1)
    return check_position(s)


def test_final_scoring_example_breakdown():
    """End of the Game, example: '1. There are 5 blue Pillars and 5 blue Houses on the game board,
    so Blue scores 25 Victory Points. 2. Blue has 4 Completed Buildings (see above), which scores
    them 10 Victory Points. 3. Blue also has 3 Iron, 5 Gold, and 1 Wool, which scores them
    another 2 Victory Points. The total ... is 25 + 10 + 2 = 37 Victory Points.'"""
    s = _blue_final_position()
    b = final_breakdown(s, s.seats[0])
    assert (b["houses"], b["pillars"], b["houses_x_pillars"]) == (5, 5, 25)
    assert (b["completed_buildings"], b["buildings_vp"]) == (4, 10)
    assert (b["resources"], b["resources_vp"]) == (9, 2)
    assert b["houses_x_pillars"] + b["buildings_vp"] + b["resources_vp"] == 37


@pytest.mark.parametrize("n,vp", [(0, 0), (1, 0), (2, 0), (3, 5), (4, 10), (5, 20), (6, 30)])
def test_completed_buildings_table(n, vp):
    """Final Scoring 2: 'For 1/2/3/4/5/6 of them, gain 0/0/5/10/20/30 Victory Points.'"""
    assert C.completed_buildings_vp[n] == vp


def test_final_scoring_example_played_to_the_end():
    """The final scoring example through the real end of round 4: Blue gains exactly 37."""
    BLUE = 0
    s = _blue_final_position()
    no_fair(s)
    set_king(s, [(0, BLUE), (1, 1), (0, 2)])
    score = s.seats[BLUE].score
    s = _to_king_phase(s, 1)
    assert s.phase == "over" and s.actor is None
    f = s.final[str(BLUE)]
    assert f["before"] == score
    assert f["total"] - f["before"] == 37
    assert s.seats[BLUE].score == score + 37


# ============================================================================================
# Action phase, Step 2: shifting a die with Gold
# ============================================================================================

@pytest.mark.parametrize("die,target,gold", [
    ("I3", 1, 4), ("I3", 4, 2), ("I6", 1, 2), ("I1", 6, 2), ("I2", 6, 4), ("I3", 6, 6), ("I5", 5, 0),
])
def test_gold_shifts_a_die(die, target, gold):
    """Action phase, Step 2: 'Immediately before taking a die, you may spend 2 Gold to add or
    subtract 1 to the value of your chosen die (this can be done multiple times). The value of
    the die is permanently changed, affecting number of Resources provided and the type of Action
    associated with the die. A value of 6 can be changed into a value of 1 (and vice versa) by
    spending 2 Gold.'"""
    s = position(3)
    set_turn(s, 0)
    clear_action_bonuses(s)
    set_wheel(s, die, "G2")
    set_res(s, 0, gold=gold, iron=0)
    move = f"take {die}" if int(die[1]) == target else f"take {die}>{target}"
    s, _ = do(s, move)
    assert res(s, 0)["gold"] == 0 and res(s, 0)["iron"] == target
    assert s.seats[0].dice == [f"I{target}"]
    assert die not in s.wheel or s.wheel.count(die) == 0
    action = tiletum.actions.wheel_action(s, target)
    if action == "joker":
        assert pending(s)["kind"] == "joker"
    else:
        assert pending(s)["action"] == action and ap(s) == 7 - target


def test_gold_shift_needs_enough_gold():
    """Action phase, Step 2: 2 Gold per step; without it the shift is refused, nothing changes."""
    s = position(3)
    set_turn(s, 0)
    set_wheel(s, "I3", "G2")
    set_res(s, 0, gold=5)
    illegal(s, "take I3>6", "not-enough-gold")          # 3 steps either way: 6 Gold
    illegal(s, "take I4", "no-such-die")
