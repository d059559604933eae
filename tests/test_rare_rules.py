"""Rules that a random playout rarely reaches, each pinned by a hand-built position.

Every test cites the rulebook (/work/shared/rules/tiletum-rulebook.md). Refusals are checked by
their stable ``IllegalMove.code`` and by the position being left unchanged.
"""
from __future__ import annotations

import pytest

import tiletum
from tiletum.flow import fair_vp

try:
    from tests.positions import *  # noqa: F401,F403
    from tests import positions as P
except ImportError:  # pragma: no cover
    from positions import *  # noqa: F401,F403
    import positions as P

C = P.C
ACTIONS5 = ("architect", "merchant", "character", "contract", "king")


def ap(s):
    for e in s.agenda:
        if e["t"] == "frame" and e["main"]:
            return e["ap"]
    raise AssertionError("no Action in progress")


def illegal(s, move, code, seat=None):
    """``move`` is refused with ``code`` (an IllegalMove) and ``s`` is left unchanged."""
    before = s.to_doc()
    seat = s.actor if seat is None else seat
    with pytest.raises(tiletum.IllegalMove) as exc:
        tiletum.play(s, seat, move, seed="t")
    assert exc.value.code == code, f"{move!r}: expected {code}, got {exc.value.code}: {exc.value}"
    assert s.to_doc() == before, "a refused move must not change the position"
    return exc.value


def start(players=3, seat=0, **kw):
    s = position(players, **kw)
    set_turn(s, seat)
    clear_action_bonuses(s)
    set_cathedral_cost(s, "Lyon", "X9")
    return s


def helper(effect):
    """A Helper Bonus tile with exactly this effect (reconstructed data: looked up)."""
    return next(t for t in tiles_of("helper", pile="bonus") if C.tiles[t].raw["effect"] == effect)


def crest_of(family, pile="bonus"):
    return tiles_of("crest", pile=pile, crest=family)


def _to_king_phase(s, last_seat, source=None):
    set_turn(s, last_seat, cycle=2, last=True)
    return quick_turn(s, source=source)


# ============================================================================================
# A full Storehouse: no tile of any kind can be taken
# ============================================================================================

FULL = "Types of Tiles: 'If your Storehouse is full, you cannot take a tile.'"


def test_full_storehouse_action_bonus_tile_is_not_offered():
    """Action phase Step 2 and Types of Tiles: 'You must have at least one empty space in the
    Storehouse on your Player board.' The Bonus tile on the chosen Action stays there."""
    s = start()
    fill_storehouse(s, 0)
    put_die(s, "merchant", 4)
    tile = "B30"
    set_action_bonus(s, "merchant", tile)
    check_position(s)
    s, _ = do(s, "take G4")
    assert pending(s)["t"] == "frame"                  # no decision about the tile
    assert f"tile {tile}" not in tiletum.legal_moves(s)
    assert s.action_bonus["merchant"] == tile and tile not in s.seats[0].store
    illegal(s, f"tile {tile}", "no-such-tile")         # it is not a map tile either


def test_full_storehouse_action_bonus_tile_offered_when_there_is_room():
    """Action phase Step 2: 'If the associated Action still has a Bonus tile, you may take it'
    (the control case of the test above)."""
    s = start()
    put_die(s, "merchant", 4)
    set_action_bonus(s, "merchant", "B30")
    s, _ = do(s, "take G4")
    assert pending(s)["kind"] == "action_tile"
    assert tiletum.legal_moves(s) == ["skip", "tile B30"]
    s, _ = do(s, "tile B30")
    assert s.seats[0].store == ["B30"] and s.action_bonus["merchant"] is None


def test_full_storehouse_map_tile_refused():
    """Merchant/Architect Action: 'Take one Bonus tile from the Town ... and place it in your
    Storehouse.' """ + FULL
    for action in ("merchant", "architect"):
        t = start()
        fill_storehouse(t, 0)
        set_map_bonus(t, "Brugge", ["B30"])
        t.seats[0].merchant = t.seats[0].architect = "Brugge"
        put_die(t, action, 3)
        t, _ = do(t, "take G3")
        illegal(t, "tile B30", "storehouse-full")
        assert "tile B30" not in tiletum.legal_moves(t)


def test_full_storehouse_character_refused():
    """Character Action: 'Take a Character tile from the Character offer and place it in your
    Storehouse'. """ + FULL
    s = start()
    fill_storehouse(s, 0)
    put_die(s, "character", 3)
    s, _ = do(s, "take G3")
    for slot in range(1, 6):
        illegal(s, f"char {slot}", "storehouse-full")
    assert not any(m.startswith("char ") for m in tiletum.legal_moves(s))
    s, _ = do(s, "discard")                              # discarding the offer is still allowed


def test_full_storehouse_contract_refused():
    """Contract Action: 'Take a Contract tile from the offer ... and place it in your
    Storehouse.' """ + FULL
    s = start()
    fill_storehouse(s, 0)
    set_offer(s, "contract", ["K07", "K08", "K12", "K13", crest_of("eagle", "contract")[0]])
    put_die(s, "contract", 1)
    s, _ = do(s, "take G1")
    for slot in range(1, 6):
        illegal(s, f"contract {slot}", "storehouse-full")


def test_full_storehouse_king_tile_discarded_automatically():
    """King phase: the highest player 'takes (or discards) the Bonus tile'; with a full
    Storehouse it cannot be taken, so it is discarded without a decision."""
    s = position(3)
    no_fair(s)
    fill_storehouse(s, 2)
    set_king(s, [(0, 0), (0, 1), (3, 2)])
    tile = s.king_bonus
    store = list(s.seats[2].store)
    s = _to_king_phase(s, 0)
    assert s.round == 2 and s.phase == "action"       # nobody was asked
    assert s.seats[2].store == store
    assert tile in s.box
    check_position(s)


# ============================================================================================
# Contracts: all Contract spaces taken
# ============================================================================================

def _all_contract_spaces_taken(s, seat=0):
    contracts = ["K07", "K08", "K12", "K13", "K21", "K22"]
    assert len(contracts) == len(C.contract_spaces)
    fulfilled(s, seat, contracts)
    return s


def test_no_contract_when_all_contract_spaces_are_taken():
    """Contracts: 'If there are no more open Contract spaces on your Player board to accommodate
    new Contracts, you may not take anymore Contracts.' A Crest tile from the offer is not a
    Contract and may still be taken."""
    s = start()
    _all_contract_spaces_taken(s)
    crest = crest_of("eagle", "contract")[0]
    set_offer(s, "contract", ["K10", "K15", "K23", "K26", crest])
    check_position(s)
    put_die(s, "contract", 1)
    s, _ = do(s, "take G1")
    for slot in range(1, 5):
        illegal(s, f"contract {slot}", "contract-spaces-full")
    s, _ = do(s, "contract 5")
    assert s.seats[0].store == [crest]


def test_no_bonus_contract_when_all_contract_spaces_are_taken():
    """Bonus tiles showing Contracts are Contracts too ('Such Bonus tiles may be interchangeably
    referred to as Contract tiles'): not offered on the Action, refused on the map."""
    bonus_contract = tiles_of("contract", pile="bonus")[0]
    s = start()
    _all_contract_spaces_taken(s)
    put_die(s, "merchant", 3)
    set_action_bonus(s, "merchant", bonus_contract)
    other = tiles_of("contract", pile="bonus")[1]
    set_map_bonus(s, "Brugge", [other])
    s.seats[0].merchant = "Brugge"
    check_position(s)
    s, _ = do(s, "take G3")
    assert pending(s)["t"] == "frame"
    assert s.action_bonus["merchant"] == bonus_contract
    illegal(s, f"tile {other}", "contract-spaces-full")


def test_contract_with_the_sixth_space_open_while_holding_one():
    """Contracts: 'If there are no more open Contract spaces on your Player board to accommodate
    new Contracts, you may not take anymore Contracts'; summary, Contract Action: 'You can not take
    a new Contract Tile if all 6 Contract spaces on your Player Board are full.' Only spaces
    covered by fulfilled Contracts count: with 5 fulfilled and 1 held, the sixth space is open and
    a new Contract may be taken (issue 14, item 2; docs/tiletum-rulings.md)."""
    s = start()
    fulfilled(s, 0, ["K07", "K08", "K12", "K13", "K21"])
    put_in_storehouse(s, 0, "K22")
    set_offer(s, "contract", ["K10", "K15", "K23", "K26", "K09"])
    check_position(s)
    put_die(s, "contract", 1)
    s, _ = do(s, "take G1")
    assert "contract 5" in tiletum.legal_moves(s)
    s, _ = do(s, "contract 5")
    assert s.seats[0].store == ["K22", "K09"]
    assert len(s.seats[0].contracts) == 5


def test_no_fulfilling_when_all_six_contract_spaces_are_covered():
    """Tasks: a fulfilled Contract moves 'to the leftmost open Contract space'; with all six
    covered there is none, so a Contract held in the Storehouse cannot be fulfilled."""
    s = start()
    _all_contract_spaces_taken(s)
    put_in_storehouse(s, 0, "K10")
    give(s, 0, iron=9)
    check_position(s)
    assert "fulfil K10" not in tiletum.legal_moves(s)
    illegal(s, "fulfil K10", "contract-spaces-full")


# ============================================================================================
# The King track
# ============================================================================================

def test_king_track_cap_at_plus_15():
    """King Action: 'Your marker on this track can never go above the "+15 VP" position.'"""
    top = C.king_values[-1]
    assert top == 15
    s = start()
    set_king(s, [(0, 1), (0, 2), (13, 0)])
    put_die(s, "king", 1)                       # 6 AP
    s, _ = do(s, "take G1", "king")
    assert king_value(s, 0) == 15
    # a Helper's King Action at the top: refused
    h = helper([{"action": "king", "ap": 2}])
    put_in_storehouse(s, 0, h)
    s, _ = do(s, f"use {h}")
    assert pending(s)["ap"] == 2
    illegal(s, "king", "king-track-top")
    assert "king" not in tiletum.legal_moves(s)
    s, _ = do(s, "skip")


def test_king_step_from_a_contract_at_the_top_is_lost():
    """Contract benefit 'advance one space on the King track' cannot pass +15."""
    s = start()
    set_king(s, [(15, 0)])
    put_in_storehouse(s, 0, "K10")
    give(s, 0, iron=5)
    score = s.seats[0].score
    s, _ = do(s, "fulfil K10")
    assert king_value(s, 0) == 15
    assert s.seats[0].score == score + C.tiles["K10"].raw["vp"] + (C.contract_spaces[0].get("vp") or 0)


def test_king_tie_bottommost_takes_tile_and_first_place():
    """King phase: 'If multiple players are tied for the highest position on the King track, the
    tie is broken in favor of the player with the bottommost marker.' Step 2: '... the tie is
    broken in favor of the player with the bottommost marker (as they were there first).'"""
    s = position(4)
    no_fair(s)
    set_king(s, [(2, 3), (4, 1), (4, 0), (4, 2)])   # on +4: 1 at the bottom, then 0, then 2
    tile = s.king_bonus
    s = _to_king_phase(s, 3)
    assert s.actor == 1
    assert tiletum.legal_moves(s) == ["skip", f"tile {tile}"]
    s, _ = do(s, f"tile {tile}")
    assert tile in s.seats[1].store
    assert s.turn_order == [1, 0, 2, 3]


def test_king_action_lands_on_top_so_loses_ties():
    """King Action: 'If you end up on a step already occupied by other player markers, place yours
    on top.' A later arrival loses the tie for first place."""
    s = start(players=3, seat=0)
    set_king(s, [(0, 0), (3, 1), (0, 2)])
    put_die(s, "king", 4)
    s, _ = do(s, "take G4", "king")
    assert king_stack(s, 3) == [1, 0]
    assert tiletum.board.king_ranking(s)[:2] == [1, 0]


def test_king_track_fair_tile_can_lose_vp_and_score_floor():
    """Appendix, Fair tiles (King track tile): 'It is possible to lose Victory Points when this
    tile is evaluated.' Playing the Game: 'Your marker on the Scoring track may never go below
    "0."'"""
    rnd = 1
    s = position(3, round=rnd)
    set_fair(s, rnd, town="Tiletum", tile="KingTrackPlus3")   # every player has a House there
    per = C.fair_board_values[rnd - 1] + C.tiles["KingTrackPlus3"].raw["vp"]
    set_king(s, [(-10, 0), (-1, 1), (2, 2)])
    s.seats[0].score = 3
    before = [p.score for p in s.seats]
    # seat 0: 3 - 10 -> 0 (King phase), then (per - 10) < 0 -> stays 0
    assert per - 10 < 0
    assert fair_vp(s, 0) == per - 10
    s = _to_king_phase(s, 0)
    s, _ = do(s, "skip", source=FirstSource())
    assert s.seats[0].score == 0
    assert s.seats[1].score == before[1] - 1 + per - 1
    assert s.seats[2].score == before[2] + 2 + per + 2


def test_score_never_below_zero_in_the_king_phase():
    """Playing the Game: 'Your marker on the Scoring track may never go below "0."'"""
    s = position(3)
    no_fair(s)
    set_king(s, [(-5, 0), (0, 1), (1, 2)])
    s.seats[0].score = 2
    s = _to_king_phase(s, 1)
    s, _ = do(s, "skip")
    assert s.seats[0].score == 0
    check_position(s)


# ============================================================================================
# Dice: the 6 <-> 1 wrap
# ============================================================================================

def test_six_wraps_to_one_and_back():
    """Action phase Step 2: 'A value of 6 can be changed into a value of 1 (and vice versa) by
    spending 2 Gold.'"""
    s = start()
    set_wheel(s, "I6", "F1")
    set_res(s, 0, gold=2)
    moves = tiletum.legal_moves(s)
    assert "take I6>1" in moves and "take F1>6" in moves
    assert "take I6>2" not in moves and "take I6>4" not in moves   # 4 Gold needed
    t, _ = do(s, "take I6>1")
    assert res(t, 0)["gold"] == 0 and res(t, 0)["iron"] == 1 and t.seats[0].dice == ["I1"]
    t, _ = do(s, "take F1>6")
    assert res(t, 0)["gold"] == 0 and res(t, 0)["food"] == 6 and t.seats[0].dice == ["F6"]
    give(s, 0, gold=2)
    t, _ = do(s, "take I6>2")                       # 6 -> 1 -> 2: 4 Gold
    assert res(t, 0)["gold"] == 0 and res(t, 0)["iron"] == 2


# ============================================================================================
# Crests
# ============================================================================================

def test_crest_uniqueness():
    """Crests: 'You may never have multiple Crests of the same type anywhere on your Player
    board.' Appendix: 'You may never take a Crest you already possess.'"""
    b1, b2 = crest_of("eagle")[:2]           # two eagle Bonus tiles
    k1 = crest_of("eagle", "contract")[0]    # the eagle Contract-pile Crest
    for where in ("store", "board"):
        def own(s, tile):
            if where == "store":
                put_in_storehouse(s, 0, tile)
            else:
                place_crest(s, 0, 3, tile)

        # from the Contract offer
        s = start()
        own(s, b1)
        set_offer(s, "contract", ["K07", "K08", "K12", "K13", k1])
        check_position(s)
        put_die(s, "contract", 1)
        s, _ = do(s, "take G1")
        illegal(s, "contract 5", "crest-duplicate")
        # from the map, and the Bonus tile of the chosen Action
        t = start()
        own(t, k1)
        set_map_bonus(t, "Brugge", [b1])
        set_action_bonus(t, "merchant", b2)
        t.seats[0].merchant = "Brugge"
        put_die(t, "merchant", 1)
        check_position(t)
        t, _ = do(t, "take G1")
        assert pending(t)["t"] == "frame"           # the Action's Crest tile is not offered
        assert t.action_bonus["merchant"] == b2
        illegal(t, f"tile {b1}", "crest-duplicate")
    # another family is fine
    s = start()
    put_in_storehouse(s, 0, b1)
    lion = crest_of("lion", "contract")[0]
    set_offer(s, "contract", ["K07", "K08", "K12", "K13", lion])
    put_die(s, "contract", 1)
    s, _ = do(s, "take G1", "contract 5")
    assert s.seats[0].store == [b1, lion]


def test_crest_king_tile_of_a_family_already_owned_is_discarded():
    """King phase + Crests: a Crest the highest player may not take is discarded."""
    s = position(3)
    no_fair(s)
    eagles = crest_of("eagle")
    put_in_storehouse(s, 2, eagles[0])
    set_king_bonus(s, eagles[1])
    set_king(s, [(0, 0), (0, 1), (3, 2)])
    s = _to_king_phase(s, 0)
    assert s.round == 2
    assert eagles[1] in s.box and eagles[1] not in s.seats[2].store


def test_crest_placement_costs_and_space_rules():
    """Tasks: 'Spend Food to move a Crest tile from your Storehouse to a dedicated empty space
    below a Building on your Player board. Each Crest space has a different Food cost.'"""
    s = start()
    a, b = crest_of("eagle")[0], crest_of("lion")[0]
    put_in_storehouse(s, 0, a, b)
    space = len(C.crest_spaces)                       # the cheapest (5 VP)
    food = C.crest_spaces[space - 1]["food"]
    set_res(s, 0, food=food - 1)
    illegal(s, f"crest {a} {space}", "not-enough-food")
    give(s, 0, food=1)
    score = s.seats[0].score
    s, _ = do(s, f"crest {a} {space}")
    assert res(s, 0)["food"] == 0 and s.seats[0].crests[space - 1] == a
    assert s.seats[0].score == score + 5
    give(s, 0, food=food)
    illegal(s, f"crest {b} {space}", "crest-space-taken")
    illegal(s, f"crest K07 {space}", "not-in-storehouse")


# ============================================================================================
# Cathedrals
# ============================================================================================

def test_cathedral_contribution_once_per_cathedral_with_a_pillar():
    """Tasks: 'Contribute to the building of any Cathedral where you already have a Pillar. Spend
    the required amount of Stone, as depicted on the Construction Cost tile for that Cathedral,
    and take the topmost Cathedral tile. Score the number of Victory Points depicted on both the
    Construction Cost tile and the Cathedral tile. You may only contribute to the building of a
    specific Cathedral once.'"""
    s = start()
    town = "Paris"
    cost = C.tiles[s.cathedral_cost[town]].raw
    put_pillar(s, 0, town)
    put_pillar(s, 1, town)
    check_position(s)
    stack = list(s.cathedral_stack[town])
    assert [C.tiles[t].raw["vp"] for t in stack] == sorted(C.tiles[t].raw["vp"] for t in stack)
    set_res(s, 0, stone=cost["stone"] - 1)
    illegal(s, f"cathedral {town}", "not-enough-stone")
    give(s, 0, stone=1 + cost["stone"])
    illegal(s, "cathedral Koeln", "no-pillar-there")
    illegal(s, "cathedral Verona", "no-cathedral")
    score = s.seats[0].score
    s, _ = do(s, f"cathedral {town}")
    top = stack[-1]
    assert s.seats[0].cathedrals == [top]
    assert s.cathedral_stack[town] == stack[:-1]
    assert s.seats[0].score == score + cost["vp"] + C.tiles[top].raw["vp"]
    assert res(s, 0)["stone"] == cost["stone"]
    illegal(s, f"cathedral {town}", "cathedral-once")
    # another player contributing later takes the next tile down
    s, _ = do(s, "take " + sorted(s.wheel)[0])
    s = skip_choices(s)
    s, _ = do(s, "end")
    set_turn(s, 1)
    set_res(s, 1, stone=cost["stone"])
    score1 = s.seats[1].score
    s, _ = do(s, f"cathedral {town}")
    assert s.seats[1].cathedrals == [stack[-2]]
    assert s.seats[1].score == score1 + cost["vp"] + C.tiles[stack[-2]].raw["vp"]
    check_position(s)


def test_unavailable_cathedral_refuses_pillars():
    """Setup 8 / Game board: 'You cannot place a Pillar at the Cathedral in the Town containing
    this tile, since that Cathedral will not be built during this game.'"""
    s = start()
    town = unavailable_cathedral(s)
    assert town == "Lyon" and s.cathedral_stack[town] == []
    s.seats[0].architect = town
    put_die(s, "architect", 2)
    s, _ = do(s, "take G2")
    illegal(s, "pillar", "cathedral-unavailable")
    assert "pillar" not in tiletum.legal_moves(s)
    # nor through the Crest space bonus 'Place a Pillar ... onto any Cathedral'
    crest = crest_of("eagle")[0]
    put_in_storehouse(s, 0, crest)
    space = next(i + 1 for i, x in enumerate(C.crest_spaces) if x["bonus"] == [{"place_anywhere": "pillar"}])
    give(s, 0, food=C.crest_spaces[space - 1]["food"])
    s, _ = do(s, f"crest {crest} {space}")
    moves = tiletum.legal_moves(s)
    assert f"pillar {town}" not in moves
    assert "pillar Paris" in moves


# ============================================================================================
# The end of the game: a tie
# ============================================================================================

@pytest.mark.parametrize("order", [[1, 2, 0], [2, 1, 0]])
def test_final_tie_goes_to_the_earlier_in_turn_order(order):
    """End of the Game: 'In case of a tie, the tied player that is first in Turn Order wins.'
    (Seats 1 and 2 tie on VP; the King track keeps the turn order unchanged.)"""
    first, second, last = order
    s = position(3, round=4)
    set_king_bonus(s, None)
    no_fair(s)
    s.turn_order = list(order)
    set_king(s, [(0, first), (0, second), (0, last)])
    for seat in (first, second):
        set_res(s, seat)
    s.seats[first].score = 40 - C.king_last_round_vp       # the top of the King track gets 4
    s.seats[second].score = 40
    s.seats[last].score = 0
    s = _to_king_phase(s, last)
    assert s.phase == "over"
    assert s.turn_order == order
    assert s.seats[first].score == s.seats[second].score == 40
    assert s.winner == first


# ============================================================================================
# Helpers
# ============================================================================================

def test_add_ap_helper_only_after_taking_a_die_and_only_to_the_die_action():
    """Appendix, Helpers: 'Add 1/2/3 Action Points to your current Action. These can only be
    applied to the Action associated with your chosen die and not to any Actions provided by
    another Helper or other game effects.'"""
    s = start()
    add2 = helper([{"add_ap": 2}])
    merch = helper([{"action": "merchant", "ap": 2}])
    put_in_storehouse(s, 0, add2, merch)
    put_die(s, "king", 4)
    illegal(s, f"use {add2}", "helper-timing")
    s, _ = do(s, "take G4", f"use {merch}")
    assert pending(s)["action"] == "merchant" and pending(s)["ap"] == 2
    s, _ = do(s, f"use {add2}")
    assert pending(s)["action"] == "merchant" and pending(s)["ap"] == 2   # the Helper's Action: unchanged
    assert ap(s) == 3 + 2                                                # the die's King Action
    assert add2 in s.box


def test_die_resource_helper_only_before_taking_a_die():
    """Appendix, Helpers: 'Use when choosing a die. Choose one type of Resource. Take Resources of
    that type instead of the type that matches the color of your chosen die.'"""
    s = start()
    h = helper([{"die_resource": True}])
    put_in_storehouse(s, 0, h)
    set_wheel(s, "I3", "G2")
    set_res(s, 0)
    t, _ = do(s, "take I3")
    illegal(t, f"use {h}", "helper-timing")
    s, _ = do(s, f"use {h}")
    assert pending(s)["kind"] == "die_resource"
    assert "skip" not in tiletum.legal_moves(s)
    s, _ = do(s, "gain W", "take I3")
    assert res(s, 0)["wool"] == 3 and res(s, 0)["iron"] == 0
    assert h in s.box and h not in s.seats[0].store


def test_action_helper_pushes_an_extra_action_that_skip_abandons():
    """Appendix, Helpers: 'Take a Merchant Action with 2/3 Action Points.' The extra Action may be
    left unfinished ('skip'); the Helper is 'afterwards removed from the game'."""
    s = start()
    h = helper([{"action": "merchant", "ap": 2}])
    put_in_storehouse(s, 0, h)
    put_die(s, "king", 4)
    s, _ = do(s, "take G4", f"use {h}")
    assert pending(s) == {"t": "frame", "seat": 0, "action": "merchant", "ap": 2, "main": False}
    illegal(s, "end", "finish-first")
    illegal(s, "king", "wrong-action")
    s, _ = do(s, "merchant Brugge")
    assert s.seats[0].merchant == "Brugge" and pending(s)["ap"] == 1
    s, _ = do(s, "skip")
    assert pending(s)["main"] and pending(s)["action"] == "king" and ap(s) == 3
    illegal(s, "skip", "nothing-to-skip")
    assert h in s.box
    s, _ = do(s, "end")


def test_action_helper_before_the_die():
    """Helpers: 'a Helper can be used for its ability at any time during your turn' - also before
    taking the die; the die is taken once the extra Action is over."""
    s = start()
    h = helper([{"action": "architect", "ap": 2}])
    put_in_storehouse(s, 0, h)
    s, _ = do(s, f"use {h}")
    illegal(s, "take " + sorted(s.wheel)[0], "finish-first")
    illegal(s, "end", "take-a-die")
    s, _ = do(s, "architect Paris", "architect Troyes")
    assert pending(s) is None and s.seats[0].architect == "Troyes"
    assert any(m.startswith("take ") for m in tiletum.legal_moves(s))


def test_any_action_helper_asks_which_action():
    """Appendix, Helpers: 'Take an Action of your choice with 1 Action Point.'"""
    s = start()
    h = helper([{"action": "any", "ap": 1}])
    put_in_storehouse(s, 0, h)
    s, _ = do(s, f"use {h}")
    assert sorted(tiletum.legal_moves(s)) == sorted(f"action {a}" for a in ACTIONS5)
    s, _ = do(s, "action king")
    assert pending(s)["action"] == "king" and pending(s)["ap"] == 1
    s, _ = do(s, "king")
    assert king_value(s, 0) == 1


# ============================================================================================
# The Joker
# ============================================================================================

def test_joker_all_ap_on_one_action_with_its_building_bonus():
    """Joker Action: 'Choose one of the other five Actions. Spend all your Action Points on the
    options available for that Action. All Action Points must be used to perform the same Action.
    You cannot split them between multiple Actions.' Player Boards: the Completed-Building bonus
    'also applies when you perform the matching Action using the Joker Action.'"""
    s = start()
    s.seats[0].ap_bonus = {"merchant": 2}       # as if a merchant-type Building were Completed
    put_die(s, "joker", 3)                      # 4 AP
    set_action_bonus(s, "joker", "B43")
    s, _ = do(s, "take G3")
    assert pending(s)["kind"] == "action_tile"  # the Joker's Bonus tile first
    s, _ = do(s, "tile B43")
    assert pending(s)["kind"] == "joker"
    illegal(s, "skip", "choice-expected")
    illegal(s, "end", "choice-expected")
    s, _ = do(s, "action merchant")
    assert pending(s)["action"] == "merchant" and ap(s) == 4 + 2
    illegal(s, "architect Paris", "wrong-action")
    illegal(s, "king", "wrong-action")
    s, _ = do(s, "merchant Paris", "merchant Troyes", "merchant Strasbourg", "house")
    assert ap(s) == 2 and s.houses["Strasbourg"] == [0]

    # without a bonus for the chosen Action: 7 - value only
    t = start()
    t.seats[0].ap_bonus = {"merchant": 2}
    put_die(t, "joker", 3)
    t, _ = do(t, "take G3", "action king")
    assert ap(t) == 4


# ============================================================================================
# The first exchange bonus
# ============================================================================================

def test_first_exchange_bonus_once_per_turn_even_across_contract_actions():
    """Contract Action: 'The first time you do this during your turn, receive one bonus Resource
    of your choice.' A second Contract Action in the same turn (from a Helper) gives no bonus;
    the next turn does."""
    s = start()
    h = helper([{"action": "contract", "ap": 2}])
    put_in_storehouse(s, 0, h)
    set_res(s, 0, food=3)
    put_die(s, "contract", 6, colour="S")     # 1 AP
    s, _ = do(s, "take S6", "exchange F G")
    assert pending(s)["kind"] == "resource"
    s, _ = do(s, "gain I", f"use {h}", "exchange F G")
    assert pending(s)["t"] == "frame" and not pending(s)["main"]
    assert res(s, 0) == {"gold": 2, "food": 1, "wool": 0, "stone": 6, "iron": 1}
    s, _ = do(s, "skip", "end")
    # next turn of the same player: the bonus again
    set_turn(s, 0)
    put_die(s, "contract", 5, colour="S")
    s, _ = do(s, "take S5", "exchange F G")
    assert pending(s)["kind"] == "resource"


# ============================================================================================
# Undo
# ============================================================================================

def test_undo_takes_back_moves_without_a_reveal():
    """Undo (service rule): a move that revealed nothing can be taken back, one at a time, back to
    the start of the turn."""
    s0 = start()
    put_die(s0, "merchant", 2)
    s1, e1 = do(s0, "take G2")
    s2, e2 = do(s1, "merchant Paris")
    s3, e3 = do(s2, "undo")
    assert e3[0]["type"] == "MoveUndone"
    assert doc_without_version(s3) == doc_without_version(s1)
    s4, e4 = do(s3, "undo")
    assert doc_without_version(s4) == doc_without_version(s0)
    illegal(s4, "undo", "nothing-to-undo")
    # the events fold to the same position (decide/evolve agree, undo included)
    assert tiletum.replay(e1 + e2 + e3 + e4, state=s0) == s4
    folded = s0
    for ev in e1 + e2 + e3 + e4:
        folded = tiletum.evolve(folded, ev)
    assert folded == s4


def test_undo_refused_at_turn_start():
    s = start()
    illegal(s, "undo", "nothing-to-undo")


def test_undo_cannot_pass_a_draw():
    """Taking a Character refills the offer from the face-down pile: that draw cannot be taken
    back, nor anything before it; later moves can."""
    s = start()
    put_die(s, "character", 2)
    t = tiles_of("character", players=3, type="king")[0]
    put_in_storehouse(s, 0, t)
    s, _ = do(s, "take G2", "char 1")
    assert s.undo_moves == []
    illegal(s, "undo", "nothing-to-undo")
    after_draw = s
    s, _ = do(s, f"place {t} 4.1")
    s, _ = do(s, "undo")
    assert doc_without_version(s) == doc_without_version(after_draw)
    illegal(s, "undo", "nothing-to-undo")


def test_undo_cannot_pass_the_end_of_a_turn():
    s = start()
    s = quick_turn(s)
    assert s.actor == 1
    illegal(s, "undo", "nothing-to-undo")


# ============================================================================================
# Illegal moves: a stable code, nothing changed
# ============================================================================================

def _mid_turn():
    s = start()
    put_die(s, "merchant", 4)
    s, _ = do(s, "take G4")
    return s


@pytest.mark.parametrize("move,code", [
    ("take G4", "die-taken"),
    ("king", "wrong-action"),
    ("merchant Venezia", "not-adjacent"),
    ("house", "house-already"),
    ("tile B01", "no-such-tile"),
    ("skip", "nothing-to-skip"),
    ("buy G", "same-resource"),
    ("fulfil K07", "not-in-storehouse"),
    ("use B41", "not-in-storehouse"),
    ("cathedral Paris", "no-pillar-there"),
    ("gain W", "no-decision"),
    ("action king", "no-decision"),
])
def test_illegal_moves_mid_turn(move, code):
    illegal(_mid_turn(), move, code)


@pytest.mark.parametrize("move,code", [
    ("end", "take-a-die"),
    ("merchant Paris", "no-action"),
    ("take G6>1", "no-such-die"),
])
def test_illegal_moves_at_turn_start(move, code):
    s = start()
    set_wheel(s, "G3", "I5")
    illegal(s, move, code)


def test_not_your_turn():
    s = start()
    e = illegal(s, "take " + sorted(s.wheel)[0], "not-your-turn", seat=1)
    assert isinstance(e, tiletum.NotYourTurn)


def test_bad_notation_is_not_an_illegal_move():
    s = start()
    before = s.to_doc()
    with pytest.raises(tiletum.NotationError):
        tiletum.play(s, 0, "fly to the moon", seed="t")
    assert s.to_doc() == before


def test_no_move_after_the_game_is_over():
    s = position(3, round=4)
    set_king_bonus(s, None)
    no_fair(s)
    s = _to_king_phase(s, 2)
    assert s.phase == "over" and tiletum.legal_moves(s) == []
    illegal(s, "end", "game-over", seat=0)


def test_fulfil_a_contract_pays_scores_and_frees_the_pillar():
    """Tasks: 'Fulfill a Contract in your Storehouse by spending the Resources depicted on the
    tile. Move the Contract tile ... to the leftmost open Contract space on your Player board.
    Take the Pillar from that space (if any) ... Score any Victory Points indicated on the
    Contract tile itself as well as on the space you cover.'"""
    s = start()
    fulfilled(s, 0, ["K07"])
    put_in_storehouse(s, 0, "K22")
    set_res(s, 0, iron=2, wool=1)
    illegal(s, "fulfil K22", "not-enough-resources")
    give(s, 0, wool=1)
    pillars, score = s.seats[0].pillars, s.seats[0].score
    s, _ = do(s, "fulfil K22")
    space = C.contract_spaces[1]
    assert s.seats[0].contracts == ["K07", "K22"] and res(s, 0)["iron"] == 0
    assert s.seats[0].pillars == pillars + (1 if space.get("pillar") else 0)
    assert s.seats[0].score == score + C.tiles["K22"].raw["vp"] + (space.get("vp") or 0)
    # identical resources: the player names which
    bonus = tiles_of("contract", pile="bonus")[0]
    n = C.tiles[bonus].raw["identical"]
    put_in_storehouse(s, 0, bonus)
    give(s, 0, stone=n)
    illegal(s, f"fulfil {bonus}", "choose-resource")
    s, _ = do(s, f"fulfil {bonus} S")
    assert res(s, 0)["stone"] == 0
    check_position(s)


# ============================================================================================
# Bonuses that need a decision
# ============================================================================================

def test_building_bonus_house_space():
    """Appendix, Game board: 'After building a House on a space with this symbol, immediately
    select one of your Buildings (regardless of whether it is Completed or not) that includes at
    least one Character, and receive each Character bonus once. You may receive the bonuses in
    any order and may choose to ignore the bonuses provided by some or all of the Characters.'"""
    town = next(t for t in sorted(C.towns) if C.house_spaces(t, 3)
                and C.house_spaces(t, 3)[0].get("reward") == [{"building_bonus": True}])
    s = start()
    gold_wool = next(t for t in tiles_of("character", players=3, type="character")
                     if C.tiles[t].raw["bonus"] == [{"gain": {"gold": 1, "wool": 1}}])
    gold_iron = next(t for t in tiles_of("character", players=3, type="character")
                     if C.tiles[t].raw["bonus"] == [{"gain": {"gold": 1, "iron": 1}}])
    vp_king = next(t for t in tiles_of("character", players=3, type="king")
                   if C.tiles[t].raw["bonus"] == [{"vp": 2}])
    place_in_rooms(s, 0, 2, [gold_iron, gold_wool])
    place_in_rooms(s, 0, 4, [vp_king])
    s.seats[0].merchant = town
    check_position(s)
    put_die(s, "merchant", 4, colour="S")
    s, _ = do(s, "take S4", "house")
    assert sorted(tiletum.legal_moves(s)) == ["building 2", "building 4", "skip"]  # not the empty ones
    s, _ = do(s, "building 2")
    assert sorted(tiletum.legal_moves(s)) == sorted([f"bonus {gold_iron}", f"bonus {gold_wool}", "skip"])
    before = res(s, 0)
    s, _ = do(s, f"bonus {gold_wool}")                      # any order
    assert res(s, 0)["gold"] == before["gold"] + 1 and res(s, 0)["wool"] == before["wool"] + 1
    assert tiletum.legal_moves(s) == sorted([f"bonus {gold_iron}", "skip"])  # each once
    s, _ = do(s, "skip")                                    # ignore the rest
    assert pending(s)["main"] and res(s, 0)["iron"] == before["iron"]


def test_wool_contract_moves_the_merchant_to_an_adjacent_town_not_a_road_space():
    """Appendix, Contract tiles: 'Pay 5/7 Wool to gain 7/11 Victory Points and move your Merchant
    from one Town to an adjacent Town.' Unlike the Character tiles ('from one space to an adjacent
    space') the move ends in a Town: one reached through at most one road space (docs/tiletum-rulings.md;
    issue 14, item 1). From Paris: Tiletum and Troyes next to it, Bordeaux beyond Paris_Bordeaux."""
    assert C.adjacent["Paris"] == ("Paris_Bordeaux", "Tiletum", "Troyes")
    for tile in ("K15", "K16"):
        assert C.tiles[tile].raw["benefit"] == [{"move_town": "merchant"}]
        s = start()
        s.seats[0].merchant = "Paris"
        put_in_storehouse(s, 0, tile)
        give(s, 0, wool=7)
        check_position(s)
        s, _ = do(s, f"fulfil {tile}")
        assert pending(s)["kind"] == "move_town"
        assert tiletum.legal_moves(s) == ["merchant Bordeaux", "merchant Tiletum", "merchant Troyes", "skip"]
        illegal(s, "merchant Paris_Bordeaux", "choice-expected")
        s2, _ = do(s, "merchant Bordeaux")                   # one move, through the road space
        assert s2.seats[0].merchant == "Bordeaux" and not s2.agenda
        s3, _ = do(s, "skip")                                # may stay
        assert s3.seats[0].merchant == "Paris" and not s3.agenda
    # from a road space (where a Merchant Action may leave it): the Towns at its two ends
    s = start()
    s.seats[0].merchant = "Paris_Bordeaux"
    put_in_storehouse(s, 0, "K15")
    give(s, 0, wool=5)
    s, _ = do(s, "fulfil K15")
    assert tiletum.legal_moves(s) == ["merchant Bordeaux", "merchant Paris", "skip"]


def test_house_space_the_player_chooses_when_rewards_differ():
    """Merchant Action: 'Add a House from your personal supply to a Town ... If the House space
    contains a Building Bonus, receive it now'; Game board: 'some spaces are only available in
    games with 3+ or 4 players'. Nothing says the spaces fill in order, so with 4 players in Wien
    (space 1 without reward, space 2 the 4-player space with 2 VP) the player chooses (issue 14,
    item 3): the legal moves name each space, a plain 'house' is ambiguous."""
    spaces = C.house_spaces("Wien", 4)
    assert [sp.get("reward") for sp in spaces] == [None, [{"vp": 2}]]
    assert len(C.house_spaces("Wien", 3)) == 1
    s = start(players=4)
    s.seats[0].merchant = "Wien"
    put_die(s, "merchant", 4)                                 # 3 AP
    s, _ = do(s, "take G4")
    moves = tiletum.legal_moves(s)
    assert "house 1" in moves and "house 2" in moves and "house" not in moves
    illegal(s, "house", "choose-house-space")
    score = s.seats[0].score
    s, _ = do(s, "house 2")                                   # the rewarded space, leaving 1 empty
    assert s.houses["Wien"] == [None, 0] and s.seats[0].score == score + 2
    check_position(s)
    # the next player finds one empty space: a plain 'house', which takes space 1 (no reward)
    s = skip_choices(s)
    s, _ = do(s, "end")
    s.seats[s.actor].merchant = "Wien"
    seat = s.actor
    put_die(s, "merchant", 4)
    s, _ = do(s, "take G4")
    assert "house" in tiletum.legal_moves(s) and "house 1" not in tiletum.legal_moves(s)
    illegal(s, "house 1", "no-house-space-choice")
    score = s.seats[seat].score
    s, _ = do(s, "house")
    assert s.houses["Wien"] == [seat, 0] and s.seats[seat].score == score
    check_position(s)


def test_house_space_choice_for_a_crest_placement_anywhere():
    """Crest placement bonus: 'Place a House from your supply onto any Town on the map. There
    must be an available House space in the chosen Town' -- any of them, named when their rewards
    differ (Hamburg with 3 players: space 1 gives 2 VP, the 3+ space 2 nothing)."""
    assert [sp.get("reward") for sp in C.house_spaces("Hamburg", 3)] == [[{"vp": 2}], None]
    s = start()
    crest = crest_of("eagle")[0]
    put_in_storehouse(s, 0, crest)
    give(s, 0, food=6)
    s, _ = do(s, f"crest {crest} 1")
    moves = tiletum.legal_moves(s)
    assert "house Hamburg 1" in moves and "house Hamburg 2" in moves and "house Hamburg" not in moves
    assert "house Paris" in moves                             # one space: no number
    illegal(s, "house Hamburg", "choice-expected")
    s, _ = do(s, "house Hamburg 2")
    assert s.houses["Hamburg"] == [None, 0]
    check_position(s)


def test_plain_house_recorded_under_rules_1_keeps_its_meaning():
    """Until rules version 2 a plain 'house' filled the first empty space in printed order. Folded
    from a stored event it still does; a checked replay of a record rewrites it to 'house 1'."""
    from tiletum.game import legacy_move
    s = start(players=4)
    s.seats[0].merchant = "Wien"
    put_die(s, "merchant", 4)
    s, _ = do(s, "take G4")
    old = {"type": "MovePlayed", "seat": 0, "move": "house", "rules": "1", "chance": []}
    folded = tiletum.evolve(s, old)
    assert folded.houses["Wien"] == [0]
    assert legacy_move(s, 0, tiletum.parse("house")) == tiletum.parse("house 1")
    assert legacy_move(s, 0, tiletum.parse("house 2")) == tiletum.parse("house 2")


def test_character_move_and_place_bonus_in_any_order():
    """Appendix, Character tiles: 'You may move your Merchant from one space to an adjacent space.
    If your Merchant is in a Town where you do not have a House and there is an empty House space
    available, you may place a House where your Merchant is. You may perform those Actions in any
    order and decide to use just part of this bonus.'"""
    tile = next(t for t in tiles_of("character", players=3, type="merchant")
                if C.tiles[t].raw["bonus"] == [{"move_and_place": "merchant"}])
    s = start()
    put_in_storehouse(s, 0, tile)
    put_die(s, "character", 4)
    s, _ = do(s, "take G4", f"place {tile} 4.1")
    moves = tiletum.legal_moves(s)
    assert "house" not in moves                              # a House in Tiletum already
    assert "merchant Paris" in moves and "skip" in moves
    s, _ = do(s, "merchant Paris")
    assert tiletum.legal_moves(s) == ["house", "skip"]       # moved once only
    s, _ = do(s, "house")
    assert s.houses["Paris"] == [0] and pending(s)["main"]


def test_completed_before_the_die_boosts_the_die_taken_later():
    """Player Boards: 'From this point onward, you have a bonus of 1/2/3 Action Points (for a
    Building with 1/2/3 Rooms) every time you select that Action.' Here the Building is completed
    by a Crest placed as a Task before the die is taken."""
    s = start()
    king = tiles_of("character", players=3, type="king")[0]
    place_in_rooms(s, 0, 4, [king])
    crest = crest_of("eagle")[0]
    put_in_storehouse(s, 0, crest)
    give(s, 0, food=C.crest_spaces[3]["food"])
    s, _ = do(s, f"crest {crest} 4")
    s = skip_choices(s)
    assert s.seats[0].ap_bonus == {"king": C.building_ap[3]}
    put_die(s, "king", 4)
    s, _ = do(s, "take G4")
    assert ap(s) == 3 + C.building_ap[3]


def test_king_action_spends_all_its_ap_at_once():
    """King Action: 'for each Action Point you have, advance your marker one step on the King
    track.' (The engine moves the marker by all the AP of the Action in one move.)"""
    s = start()
    put_die(s, "king", 2)
    s, _ = do(s, "take G2", "king")
    assert king_value(s, 0) == 5 and ap(s) == 0
    illegal(s, "king", "no-action-points")


# ============================================================================================
# Fair tiles (Appendix): what each one counts
# ============================================================================================

def _fair_board():
    """Seat 0: 3 Houses and 2 Pillars on the map, 3 fulfilled Contracts, 1 Cathedral tile,
    Crests: 2 placed + 1 in the Storehouse; Characters: Building 1 full (floors 1-3), Building 2
    only floor 2, Building 4 full (1 Room)."""
    s = start()
    kings = tiles_of("character", players=3, type="king")[:3]
    place_in_rooms(s, 0, 1, kings)                                  # frees a roof House
    place_in_rooms(s, 0, 2, [None, tiles_of("character", players=3, type="contract")[0]])
    place_in_rooms(s, 0, 4, [tiles_of("character", players=3, type="merchant")[0]])
    for town in ("Brugge", "Hamburg"):
        put_house(s, 0, town)                                       # + Tiletum = 3
    for town in ("Paris", "London"):
        put_pillar(s, 0, town)
    fulfilled(s, 0, ["K07", "K12", "K21"])
    s.seats[0].cathedrals.append(s.cathedral_stack["Paris"].pop())
    place_crest(s, 0, 1, crest_of("eagle")[0])
    place_crest(s, 0, 2, crest_of("lion")[0])
    put_in_storehouse(s, 0, crest_of("cup")[0])
    return check_position(s)


FAIR_COUNTS = {
    "SetHousePillarX6": 2,          # sets of 1 House and 1 Pillar on the map: min(3, 2)
    "SetContractCathedralX5": 1,    # sets of 1 fulfilled Contract and 1 Cathedral tile: min(3, 1)
    "ContractsX3": 3,               # fulfilled Contracts
    "SetContractCrestX6": 3,        # sets of 1 fulfilled Contract and 1 Crest: min(3, 3)
    "HousesX2": 3,                  # Houses on the map (Tiletum included)
    "UpperFloorCharactersX3": 3,    # Characters on floors 2 and 3
    "CrestsX3": 3,                  # Crest tiles on the Player board (Storehouse included)
    "PillarsX2": 2,                 # Pillars on the map
    "CompletedBuildingsX5": 2,      # Buildings completely filled with Characters (Crest or not)
    "CathedralsX4": 1,              # Cathedral tiles
}


@pytest.mark.parametrize("tile,count", sorted(FAIR_COUNTS.items()))
@pytest.mark.parametrize("rnd", [1, 4])
def test_fair_tile_conditions(tile, count, rnd):
    """Appendix, Fair tiles, and Fair scoring: 'Add this number [the board value] to the value
    printed on the Fair tile itself. This sum represents the total number of Victory Points
    (board+tile) you will receive, multiplied by the number of times you meet condition depicted
    on the Fair tile itself.' (Crests 'anywhere on your Player Board': rules summary.)"""
    s = _fair_board()
    s.round = rnd
    set_fair(s, rnd, town="Tiletum", tile=tile)
    per = C.fair_board_values[rnd - 1] + C.tiles[tile].raw["vp"]
    assert fair_vp(s, 0) == per * count
    assert fair_vp(s, 1) == (per if tile == "HousesX2" else 0)  # seat 1: only its Tiletum House
