"""Engine-level tests of the solo rules (the Cardinalbot), each pinned by a hand-built position.

Every test cites the passage of the solo rulebook it checks
(/work/shared/rules/tiletum-rulebook.md, from "Cardinalbot's Turn" to the end). Seat 0 is the
Cardinalbot, seat 1 the player. Positions start from ``tiletum.new_game(2, seed, {'solo': ...})``
and are edited on a clone; moves are played with ``tests.positions.do`` (which also checks that
``play`` and ``evolve`` agree). Where the engine breaks a solo rule, the test still asserts the
rulebook behaviour and is marked ``xfail(strict=True)`` with the bug described.
"""
from __future__ import annotations

import pytest

import tiletum
from tiletum import flow
from tiletum import solo as SOLO
from tiletum.chance import ReplayChance
from tiletum.validate import problems

try:
    from tests.positions import *  # noqa: F401,F403
    from tests import positions as P
except ImportError:  # pragma: no cover
    from positions import *  # noqa: F401,F403
    import positions as P

C = P.C
SEED = "seed"
GOLD, FOOD, WOOL, STONE, IRON = range(5)
ALL_CHALLENGES = ("very_special_friends", "resourceful_clergy", "whispers_in_the_kings_ear",
                  "ecclesiastical_income", "visitors_to_the_curia", "deep_coffers",
                  "favor_at_the_court", "ready_for_action")
FIVE_ACTIONS = ("architect", "merchant", "character", "contract", "king")


# ============================================================================================
# helpers
# ============================================================================================

def new_solo(challenges=(), seed=SEED, **spec):
    """A fresh solo game: (state, GameStarted event)."""
    opt = dict(spec)
    if challenges is not None and "level" not in spec:
        opt["challenges"] = list(challenges)
    s, events = tiletum.new_game(2, seed, {"solo": opt})
    return s, events[0]


def bot_turn(challenges=(), seed=SEED):
    """A clone of a fresh solo game at the start of the Cardinalbot's first turn, with every
    Action's Bonus tile removed (back to the pile) and no die on the Action Wheel."""
    s, _ = new_solo(challenges, seed=seed)
    s = s.clone()
    clear_action_bonuses(s)
    s.wheel = []
    assert s.actor == 0 and s.solo["stage"] == "die"
    return s


def take(s, action, value, colour="G"):
    """Put a ``colour``+``value`` die on ``action`` and let the bot take it."""
    put_die(s, action, value, colour)
    s, _ = do(s, f"take {colour}{value}")
    return s


def act(s):
    return s.solo["act"]


def refused(s, move, code="bot-move", seat=None):
    """``move`` raises IllegalMove with ``code`` and leaves ``s`` unchanged."""
    before = s.to_doc()
    seat = s.actor if seat is None else seat
    with pytest.raises(tiletum.IllegalMove) as exc:
        tiletum.play(s, seat, move, seed=SEED)
    assert exc.value.code == code, f"{move!r}: expected {code}, got {exc.value.code}: {exc.value}"
    assert s.to_doc() == before, "a refused move must not change the position"
    return exc.value


def to_tasks(s, action="king", value=6, colour="S"):
    """Take a die and skip its Action: the bot is at its Tasks."""
    s = take(s, action, value, colour)
    while s.solo["stage"] != "tasks":
        s, _ = do(s, "skip")
    return s


def bot_quick(s, seed=P.SEED, source=None):
    """Finish the bot's turn as plainly as possible: take the lowest die, skip, end."""
    assert s.actor == 0
    if s.solo["stage"] == "die":
        s, _ = do(s, "take " + sorted(s.wheel)[0], seed=seed)
    while s.solo["stage"] != "tasks":
        stage = s.solo["stage"]
        move = {"coffers": "gain G", "joker": "action king"}.get(stage)
        if move is None:  # the Architect/Merchant steps are fixed: skip only where the rules allow
            legal = tiletum.legal_moves(s)
            move = "skip" if "skip" in legal else legal[0]
        s, _ = do(s, move, seed=seed)
    s, _ = do(s, "end", seed=seed, source=source)
    return s


def bot_value(s):
    return king_value(s, 0)


def finish_round(s, source=None):
    """Make it the player's (last) turn of the third cycle and play it plainly: the King phase,
    the Fair and (unless round 4) the next round's start follow. The player takes a single
    G3 die on the Contract Action and skips it."""
    set_turn(s, 1, cycle=2, last=True)
    put_die(s, "contract", 3, "G", keep=False)
    set_action_bonus(s, "contract", None)
    return quick_turn(s, source=source)


def with_bot_board(s, columns=None, crests=None, inactive=None, supply=None, contracts=None,
                   fulfilled=None):
    """Put tiles on the bot's board (taken out of wherever they were)."""
    so = s.solo
    if columns is not None:
        for col in columns:
            for t in col:
                if t is not None:
                    remove_tile(s, t)
        so["columns"] = [list(c) for c in columns] + [[None, None] for _ in range(5 - len(columns))]
    if crests is not None:
        for t in crests:
            if t is not None:
                remove_tile(s, t)
        so["crests"] = list(crests) + [None] * (5 - len(crests))
    for key, tiles in (("inactive", inactive), ("supply", supply), ("contracts", contracts),
                       ("fulfilled", fulfilled)):
        if tiles is not None:
            for t in tiles:
                remove_tile(s, t)
            so[key] = list(tiles)
    return s


def consistent(s):
    found = problems(s)
    assert not found, found
    return s


# ============================================================================================
# Setup (solo rules, "Setup" steps 1-11)
# ============================================================================================

DECREE_OF_FAIR = {
    "SetHousePillarX6": "buildings_forever", "KingTrackPlus3": "king_and_country",
    "HousesX2": "mercantile_empire", "SetContractCrestX6": "family_alliances",
    "ContractsX3": "business_is_business", "SetContractCathedralX5": "religious_communities",
    "CrestsX3": "noblesse_oblige", "PillarsX2": "proud_pillars",
    "UpperFloorCharactersX3": "familiar_faces", "CompletedBuildingsX5": "busy_hands",
    "CathedralsX4": "glorious_spires",
}


def test_setup_bot_is_seat_0_and_first_player():
    """Setup 1 and 4: 'Set the game up for two players' ... 'Place the Cardinalbot's markers on
    ... the first space of the Turn Order track, and the "10" space of the Scoring track.'"""
    s, _ = new_solo()
    assert s.players == 2 and len(s.seats) == 2
    assert s.solo["bot"] == 0 and s.solo["human"] == 1
    assert s.turn_order == [0, 1]
    assert s.actor == 0 and s.turn["seat"] == 0 and s.solo["stage"] == "die"
    assert s.seats[0].score == 10 and s.seats[1].score == 10
    consistent(s)


def test_setup_king_marker_on_plus_3():
    """Setup 4: 'Place the Cardinalbot's markers on the "3 VP" position of the King track'."""
    s, _ = new_solo()
    assert bot_value(s) == 3
    assert king_value(s, 1) == 0


def test_setup_king_marker_on_plus_5_with_favor_at_the_court():
    """Favor at the Court: 'At Step 4 of the solo game's Setup ... place its marker on the
    "+5 VP" position (instead of "+3 VP").'"""
    s, _ = new_solo(["favor_at_the_court"])
    assert bot_value(s) == 5
    assert king_value(s, 1) == 0


def test_setup_resources():
    """Setup 6: 'Since the Cardinalbot starts the game as the first player, it receives 1 of each
    of the five resources. As the second player, you receive 1 each of Iron, Food, Wool, and
    Stone and 3 Gold, as normal.'"""
    s, _ = new_solo()
    assert res(s, 0) == {"gold": 1, "food": 1, "wool": 1, "stone": 1, "iron": 1}
    assert res(s, 1) == {"gold": 3, "food": 1, "wool": 1, "stone": 1, "iron": 1}


def test_setup_houses_and_pillars():
    """Setup 8: 'All 7 Pillars and all 7 Houses of the Cardinalbot are available to be built
    from the very beginning of the game ... (The Cardinalbot starts with a House already placed
    on Tiletum, just like a human player.)'"""
    s, _ = new_solo()
    bot = s.seats[0]
    assert bot.houses == 7 and bot.pillars == 7
    assert 0 in s.houses["Tiletum"] and 1 in s.houses["Tiletum"]
    assert not any(bot.roofs), "the Cardinalbot's board has no roofs holding Houses"
    assert sum(1 for seats in s.pillars.values() if 0 in seats) == 0


@pytest.mark.parametrize("challenges,expected", [((), [1, 1, 2, 2, 3]),
                                                 (("ready_for_action",), [3, 2, 2, 1, 1])])
def test_setup_column_ap_markers(challenges, expected):
    """Setup 3: 'Place the Bonus Action Point markers ... on top of each of its 5 Character
    Building columns, in left to right order: 1,1,2,2,3'; Ready for Action: '+3, +2, +2, +1,
    +1 (left to right)'."""
    s, _ = new_solo(challenges)
    assert s.solo["column_ap"] == expected
    assert s.solo["columns"] == [[None, None]] * 5 and s.solo["crests"] == [None] * 5


@pytest.mark.parametrize("seed", ["seed", "a", "b", "c", "d", "e"])
def test_setup_decree_row(seed):
    """Setup 9: 'Place all six of these cards in a row ... Card corresponding to the first Fair
    tile ... fourth Fair tile, Everlasting Fame, Worldly Riches.'"""
    s, ev = new_solo(seed=seed)
    assert s.solo["decrees"] == [DECREE_OF_FAIR[f] for f in s.fair_tiles] + ["everlasting_fame",
                                                                             "worldly_riches"]


@pytest.mark.parametrize("seed", ["seed", "a", "b", "c", "d", "e", "f", "g"])
def test_setup_bot_merchant_on_an_unused_town_tile(seed):
    """Setup 10: 'Draw an unused Town tile, and place the Cardinalbot's Merchant there on the
    map.' (The player's pieces start in Tiletum as usual.)"""
    s, ev = new_solo(seed=seed)
    unused = set(C.pile_ids["town"]) - set(s.fair_towns)
    bot = s.seats[0]
    assert bot.merchant in {C.tiles[t].raw["town"] for t in unused}
    assert bot.merchant not in s.fair_towns
    assert ["bot-town", bot.merchant] in ev["chance"]
    assert s.seats[1].merchant == "Tiletum" and s.seats[1].architect == "Tiletum"
    # its Architect starts at a Cathedral that will be built (the cost tile shown is lost)
    assert C.towns[bot.architect].cathedral
    assert not C.tiles[s.cathedral_cost[bot.architect]].raw.get("unavailable")


@pytest.mark.parametrize("level,n", [("priest", 1), ("deacon", 3), ("bishop", 5)])
def test_setup_levels_draw_challenges(level, n):
    """Setup 5: 'Cardinal Priest (Easy): Draw 1 random Challenge card ... Cardinal Deacon
    (Normal): Draw 3 ... Cardinal Bishop (Hard): Draw 5'."""
    seen = set()
    for seed in ("a", "b", "c", "d", "e", "f"):
        s, ev = new_solo(None, seed=seed, level=level)
        ch = s.solo["challenges"]
        assert len(ch) == n and len(set(ch)) == n and set(ch) <= set(ALL_CHALLENGES)
        assert s.solo["level"] == level
        assert sorted(v for k, v in ev["chance"] if k == "challenge") == sorted(ch)
        seen.update(ch)
    assert len(seen) > n, "the Challenges are drawn at random"


def test_setup_default_level_is_deacon():
    """Setup 5: Cardinal Deacon is the 'Normal' level (the engine's default)."""
    s, _ = tiletum.new_game(2, SEED, {"solo": {}})
    assert s.solo["level"] == "deacon" and len(s.solo["challenges"]) == 3


@pytest.mark.parametrize("given", [[], ["deep_coffers"], ["ready_for_action", "deep_coffers"],
                                   list(ALL_CHALLENGES)])
def test_setup_explicit_challenge_list_used_as_given(given):
    """Setup 5: 'Alternatively, you may wish to select which and how many Challenge cards to
    play with'."""
    s, ev = new_solo(given)
    assert sorted(s.solo["challenges"]) == sorted(given)
    assert s.solo["level"] is None
    assert not any(k == "challenge" for k, _ in ev["chance"])


@pytest.mark.parametrize("spec", [{"level": "pope"}, {"level": "Priest"},
                                  {"challenges": ["deep_coffers", "no_such_card"]},
                                  {"challenges": ["Deep Coffers"]}])
def test_setup_unknown_level_or_challenge_refused(spec):
    """Setup 5: the three levels and the 8 Challenge cards are the only options."""
    with pytest.raises(ValueError):
        tiletum.new_game(2, SEED, {"solo": spec})


@pytest.mark.parametrize("players", [1, 3, 4])
def test_setup_solo_needs_exactly_two_seats(players):
    """Setup 1: 'Set the game up for two players' (the Cardinalbot and you)."""
    with pytest.raises(ValueError):
        tiletum.new_game(players, SEED, {"solo": {"level": "priest"}})
    tiletum.new_game(2, SEED, {"solo": {"level": "priest"}})


# ============================================================================================
# The start of the bot's turn: the Decree dice ("On the Cardinalbot's Turn", steps 1-2)
# ============================================================================================

def test_decree_dice_rolled_at_game_start_for_the_first_bot_turn():
    """Steps 1-2: 'Return the Cardinalbot to the leftmost Decree card at the beginning of each of
    its turns' ... 'Roll the two Cardinalbot dice, and calculate the difference ... Move the
    Cardinalbot that many Decree cards to the right. If it would move Cardinalbot past the last
    card, it just stops there.'"""
    for seed in ("seed", "a", "b", "c", "d"):
        s, ev = new_solo(seed=seed)
        rolls = [v for k, v in ev["chance"] if k == "decree-die"]
        assert len(rolls) == 2 and ev["chance"][-2:] == [["decree-die", rolls[0]], ["decree-die", rolls[1]]]
        assert s.solo["roll"] == rolls
        assert s.solo["decree_pos"] == min(abs(rolls[0] - rolls[1]), len(s.solo["decrees"]) - 1)


def human_turn_events(s):
    """The player takes the lowest die, declines every option and ends: (state, end events)."""
    assert s.actor == 1
    if not s.wheel:
        put_die(s, "contract", 3)
    s, _ = do(s, "take " + sorted(s.wheel)[0])
    while not (pending(s)["t"] == "frame" and pending(s)["main"]):
        s, _ = do(s, "action king" if pending(s).get("kind") == "joker" else "skip")
    return do(s, "end")


def test_decree_dice_rolled_and_position_reset_every_bot_turn():
    """Step 1: back to the leftmost Decree 'at the beginning of each of its turns'; step 2: a
    new roll each turn. The roll is in the chance outcomes of the event that starts the turn."""
    s = bot_turn()
    s.wheel = ["G1", "G2", "G3", "G4", "F1", "F2", "F3", "F4"]
    for _ in range(2):
        s = bot_quick(s)
        s.solo["decree_pos"], s.solo["roll"] = 5, None   # wherever it was: the next turn starts afresh
        clear_action_bonuses(s)
        s, events = human_turn_events(s)
        assert s.actor == 0 and s.solo["stage"] == "die"
        rolls = [v for k, v in events[-1]["chance"] if k == "decree-die"]
        assert len(rolls) == 2
        assert s.solo["roll"] == rolls
        assert s.solo["decree_pos"] == min(abs(rolls[0] - rolls[1]), len(s.solo["decrees"]) - 1)
    assert s.cycle == 2


@pytest.mark.parametrize("dice,row,expected", [((1, 1), 6, 0), ((2, 5), 6, 3), ((6, 1), 6, 5),
                                               ((1, 6), 5, 4), ((6, 1), 3, 2), ((5, 1), 3, 2),
                                               ((3, 4), 3, 1)])
def test_decree_position_is_the_difference_capped_at_the_last_card(dice, row, expected):
    """Step 2: 'Move the Cardinalbot that many Decree cards to the right. If it would move
    Cardinalbot past the last card, it just stops there.' (Rows shrink by one per Fair.)"""
    s = bot_turn()
    s.solo["decrees"] = s.solo["decrees"][6 - row:]
    s.solo["decree_pos"] = 4
    SOLO.start_bot_turn(s, ReplayChance([["decree-die", dice[0]], ["decree-die", dice[1]]]))
    assert s.solo["decree_pos"] == expected
    assert s.solo["roll"] == list(dice)
    assert s.solo["stage"] == "die" and s.solo["act"] is None and s.solo["fulfils"] == 0


def test_bot_never_shifts_dice():
    """Step 3 picks 'a die matching its specification' from the wheel: the Cardinalbot takes dice
    as rolled (it never pays Gold to change a die's value)."""
    s = bot_turn()
    set_res(s, 0, gold=20)
    s.wheel = ["G5", "S2", "W2"]
    assert tiletum.legal_moves(s) == ["take G5", "take S2", "take W2"]
    refused(s, "take G5>4")
    refused(s, "take S2>1")
    refused(s, "take G4")          # not on the wheel


# ============================================================================================
# Taking a die ("On the Cardinalbot's Turn", step 4; "Cardinalbot's Action Resolution")
# ============================================================================================

@pytest.mark.parametrize("colour,index", [("G", GOLD), ("F", FOOD), ("W", WOOL), ("S", STONE), ("I", IRON)])
def test_die_gives_resources_by_colour_and_value(colour, index):
    """Step 4: 'The Cardinalbot receives the resources corresponding to the drafted die as you
    would'."""
    s = bot_turn()
    before = list(s.seats[0].res)
    s = take(s, "king", 4, colour)
    after = s.seats[0].res
    for i in range(5):
        assert after[i] - before[i] == (4 if i == index else 0)
    assert s.seats[0].dice == [f"{colour}4"]
    assert f"{colour}4" not in s.wheel


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_action_points_are_seven_minus_the_die(value):
    """Action Resolution: 'One to six, depending on the position on the Action Wheel, the same way
    as for you.'"""
    s = bot_turn()
    s = take(s, "contract", value)
    assert act(s) == {"action": "contract", "ap": 7 - value, "stage": 0, "discarded": False}


def test_action_points_include_the_column_bonus():
    """Action Resolution: 'Plus the value of the Action Points bonus token, if one is placed in
    the matching section of the Action Wheel'."""
    s = bot_turn()
    s.seats[0].ap_bonus = {"contract": 2}
    t = take(s.clone(), "contract", 4)
    assert act(t)["ap"] == 3 + 2
    t = take(s.clone(), "character", 4)
    assert act(t)["ap"] == 3


def test_joker_die_asks_for_the_action_and_uses_that_actions_bonus():
    """Step 5b/5c: with a die from the Joker action the Cardinalbot resolves the Action the
    Decree (or 5c) names; Action Resolution: the bonus token counts 'in the action being
    resolved, if the current section is the Joker'."""
    s = bot_turn()
    s.seats[0].ap_bonus = {"king": 3}
    s = take(s, "joker", 5, "W")
    assert s.solo["stage"] == "joker"
    assert tiletum.legal_moves(s) == [f"action {a}" for a in sorted(FIVE_ACTIONS)]
    assert s.seats[0].res[WOOL] == 1 + 5
    t, _ = do(s, "action king")
    assert act(t)["action"] == "king" and act(t)["ap"] == 2 + 3
    t, _ = do(s, "action merchant")
    assert act(t)["action"] == "merchant" and act(t)["ap"] == 2


def test_action_bonus_crest_goes_to_inactive_crests():
    """Step 4: 'collects the Bonus tile from the action if one is available, resolving it
    immediately'; page 14: 'If the Cardinalbot gains a Crest it does not already have, place it
    in the Storehouse ... to designate that it is inactive.'"""
    s = bot_turn()
    set_action_bonus(s, "king", "B01")
    score = s.seats[0].score
    s = take(s, "king", 4)
    assert s.action_bonus["king"] is None
    assert s.solo["inactive"] == ["B01"]
    assert s.seats[0].score == score and s.seats[0].store == []
    consistent(s)


@pytest.mark.parametrize("where", ["inactive", "active"])
def test_action_bonus_duplicate_crest_is_removed(where):
    """Page 14: 'If the Cardinalbot gains a Crest it already has (active OR inactive), that
    Crest is immediately removed from the game.'"""
    s = bot_turn()
    if where == "inactive":
        with_bot_board(s, inactive=["B02"])
    else:
        with_bot_board(s, crests=[None, "B02"])
    set_action_bonus(s, "king", "B01")          # the other eagle Crest
    s = take(s, "king", 4)
    assert s.action_bonus["king"] is None
    assert "B01" in s.box
    assert "B01" not in s.solo["inactive"] and "B01" not in s.solo["crests"]
    consistent(s)


@pytest.mark.parametrize("tile", ["B38", "B53", "B41", "B43", "B47", "B51", "B19", "B22", "B30",
                                  "B32", "B36", "B13", "B16"])
def test_action_bonus_other_tiles_removed_without_effect(tile):
    """Page 14: 'If the Cardinalbot gains any other tile (other than a Crest), it is removed
    from the game without any effect.' (No Challenge in play.)"""
    s = bot_turn()
    set_action_bonus(s, "king", tile)
    before_res, before_vp, before_king = list(s.seats[0].res), s.seats[0].score, s.king_pos[0]
    other = take(s.clone(), "contract", 6)          # a die on another Action: the tile stays
    assert other.action_bonus["king"] == tile
    s = take(s, "king", 6, "S")
    assert s.action_bonus["king"] is None and tile in s.box
    assert s.seats[0].res == [before_res[0], before_res[1], before_res[2], before_res[3] + 6, before_res[4]]
    assert s.seats[0].score == before_vp and s.king_pos[0] == before_king
    assert act(s)["ap"] == 1, "an Action Helper does not add Action Points to the bot"
    assert s.seats[0].store == []
    assert s.solo["contracts"] == [] and s.solo["fulfilled"] == [] and s.solo["inactive"] == []
    consistent(s)


# ============================================================================================
# Reach, the Architect and the Merchant ("Cardinalbot's Reach and Extending Reach", "Architect
# Action", "Merchant Action")
# ============================================================================================

def clear_map(s):
    for town in list(s.map_bonus):
        set_map_bonus(s, town, [])
    return s


def test_reach_tiles_within_ap_distance_taken_without_moving():
    """Reach: 'up to as many spaces from the relevant piece (Architect/Merchant) as the number of
    Action Points'; Architect 2: 'The Cardinalbot takes that tile ... without moving there and
    without spending an Action Point.'"""
    s = bot_turn()
    clear_map(s)
    s.seats[0].architect = "Lyon"
    set_map_bonus(s, "Troyes", ["B43"])        # 1 space from Lyon
    set_map_bonus(s, "Toulouse", ["B05"])      # 2
    set_map_bonus(s, "Venezia", ["B01"])       # 3
    set_map_bonus(s, "Brugge", ["B41"])        # 4
    consistent(s)
    s = take(s, "architect", 5)                # 2 AP
    s, _ = do(s, "pillar")
    assert act(s)["ap"] == 2
    tiles = [m for m in tiletum.legal_moves(s) if m.startswith("tile ")]
    assert tiles == ["tile B05", "tile B43"]
    refused(s, "tile B01")
    refused(s, "tile B41")
    res_before = list(s.seats[0].res)
    s, _ = do(s, "tile B05")
    assert s.seats[0].architect == "Lyon"
    assert act(s)["ap"] == 2 and act(s)["stage"] == 3
    assert s.map_bonus["Toulouse"] == [] and s.solo["inactive"] == ["B05"]
    assert s.seats[0].res == res_before
    refused(s, "tile B43")                    # one tile per Action
    consistent(s)


def test_reach_grows_with_action_points():
    """Reach is the number of Action Points 'available to the Cardinalbot during the current
    resolution' (a 1-die gives 6 AP)."""
    s = bot_turn()
    clear_map(s)
    s.seats[0].architect = "Lyon"
    set_map_bonus(s, "Brugge", ["B41"])        # 4 spaces
    set_map_bonus(s, "Hamburg", ["B43"])       # 5 spaces
    put_pillar(s, 0, "Lyon")                   # no Pillar to build: straight to the tile step
    t = take(s.clone(), "architect", 3)        # 4 AP
    assert [m for m in tiletum.legal_moves(t) if m.startswith("tile ")] == ["tile B41"]
    t = take(s.clone(), "architect", 6)        # 1 AP
    assert [m for m in tiletum.legal_moves(t) if m.startswith("tile ")] == []


def test_architect_pillar_is_free():
    """Architect 1: 'The Cardinalbot places a Pillar in the Architect's current location. This does
    not cost an Action Point.'"""
    s = bot_turn()
    s.seats[0].architect = "Lyon"
    s = take(s, "architect", 4)
    assert "pillar" in tiletum.legal_moves(s)
    res_before, vp = list(s.seats[0].res), s.seats[0].score
    s, _ = do(s, "pillar")
    assert s.pillars["Lyon"] == [0] and s.seats[0].pillars == 6
    assert s.seats[0].res == res_before and s.seats[0].score == vp
    assert act(s)["ap"] == 3
    refused(s, "pillar")
    consistent(s)


def test_architect_no_pillar_where_it_has_one():
    """Architect 1 builds a Pillar only where it can (one Pillar per Cathedral per player)."""
    s = bot_turn()
    s.seats[0].architect = "Lyon"
    put_pillar(s, 0, "Lyon")
    s = take(s, "architect", 4)
    assert "pillar" not in tiletum.legal_moves(s)
    refused(s, "pillar")


def test_architect_builds_its_pillar_before_the_tile_and_the_move():
    """Architect Action: 'SUMMARY: Place Pillar, Reach Bonus, Reach to Relocate'; step 1: 'The
    Cardinalbot places a Pillar in the Architect's current location.' Steps 2-3 come after it, so
    while the Pillar can be built, taking a tile or moving first is not a solo move (as the engine
    already requires for the Merchant's House)."""
    s = bot_turn()
    clear_map(s)
    set_map_bonus(s, "Troyes", ["B43"])
    s.seats[0].architect = "Lyon"
    s = take(s, "architect", 4)
    assert "pillar" in tiletum.legal_moves(s)
    assert tiletum.legal_moves(s) == ["pillar"]   # the Pillar comes first, not optional
    refused(s, "tile B43")
    refused(s, "architect Milano")


@pytest.mark.parametrize("target,dist,gold_paid", [("Milano", 1, 0), ("Paris", 2, 0), ("Bordeaux", 3, 1),
                                                   ("Koeln", 4, 2), ("Praha", 5, 3)])
def test_architect_extending_reach_costs_gold_beyond_reach(target, dist, gold_paid):
    """Extending reach: 'when attempting to move to a space beyond its reach, each additional
    space costs 1 Gold.' Within reach the move is free."""
    s = bot_turn()
    clear_map(s)                               # no Bonus tile in reach: step 2 takes nothing
    s.seats[0].architect = "Lyon"
    s = take(s, "architect", 5)                # 2 AP
    s, _ = do(s, "pillar")
    set_res(s, 0, gold=5)
    assert C.distances["Lyon"][target] == dist
    s, _ = do(s, f"architect {target}")
    assert s.seats[0].architect == target
    assert s.seats[0].res[GOLD] == 5 - gold_paid
    assert s.solo["stage"] == "tasks"


def test_architect_extending_reach_pays_what_it_has():
    """Extending reach: 'If it doesn't have enough Gold, it pays all it has, and still moves to
    its target.'"""
    s = bot_turn()
    clear_map(s)                               # no Bonus tile in reach: step 2 takes nothing
    s.seats[0].architect = "Lyon"
    s = take(s, "architect", 6, "S")           # 1 AP
    s, _ = do(s, "pillar")
    set_res(s, 0, gold=1, stone=3)
    s, _ = do(s, "architect Praha")            # 5 spaces: 4 beyond reach
    assert s.seats[0].architect == "Praha"
    assert res(s, 0) == {"gold": 0, "food": 0, "wool": 0, "stone": 3, "iron": 0}
    consistent(s)


def test_architect_moves_only_to_a_cathedral_without_its_pillar():
    """Architect 3-4: 'Find a Cathedral without one of the Cardinalbot's Pillars ... The
    Cardinalbot always ignores the Cathedral with the "unavailable" Cost tile ... moves its
    Architect directly to the selected Cathedral's Town.'"""
    s = bot_turn()
    clear_map(s)                               # no Bonus tile in reach: the move is next
    s.seats[0].architect = "Lyon"
    put_pillar(s, 0, "Paris")
    s = take(s, "architect", 4)
    s, _ = do(s, "pillar")
    moves = {m.split()[1] for m in tiletum.legal_moves(s) if m.startswith("architect ")}
    unavailable = unavailable_cathedral(s)
    assert moves == {t for t in available_cathedrals(s) if t not in ("Lyon", "Paris")}
    refused(s, "architect Troyes")             # no Cathedral
    refused(s, "architect Paris")              # it has a Pillar there
    refused(s, f"architect {unavailable}")     # the unavailable Cathedral


def test_merchant_builds_where_it_is_without_relocating():
    """Merchant 1: 'If the Cardinalbot can legally build a House in the current location of its
    Merchant, skip this step.' Merchant 2: '... This does not cost an Action Point.'"""
    s = bot_turn()
    s.seats[0].merchant = "Praha"
    s = take(s, "merchant", 4)
    assert tiletum.legal_moves(s) == ["house"]   # building is step 2, not optional
    refused(s, "merchant Wien")
    res_before, vp = list(s.seats[0].res), s.seats[0].score
    s, _ = do(s, "house")
    assert s.houses["Praha"] == [0] and s.seats[0].houses == 6
    assert s.seats[0].res == res_before and s.seats[0].score == vp
    assert act(s)["ap"] == 3 and act(s)["stage"] == 2
    refused(s, "house")
    consistent(s)


@pytest.mark.parametrize("target,gold_left", [("Wien", 4), ("Frankfurt", 3), ("Koeln", 2)])
def test_merchant_relocates_only_when_it_cannot_build_paying_gold_per_space(target, gold_left):
    """Merchant 1: 'If the Cardinalbot already has a House or cannot build a House in its
    Merchant's current location, find a Town with an available House space ... moves its Merchant
    directly to that Town, spending 1 Gold for each space moved ... This entire step does not cost
    any Action Points.'"""
    s = bot_turn()
    s.seats[0].merchant = "Praha"
    put_house(s, 1, "Praha")                  # the only 2-player House space of Praha is taken
    s = take(s, "merchant", 6, "S")            # 1 AP: the relocation does not depend on reach
    set_res(s, 0, gold=5)
    legal = tiletum.legal_moves(s)
    assert "house" not in legal
    assert "merchant Tiletum" not in legal     # it has a House there
    assert "merchant Praha" not in legal
    s, _ = do(s, f"merchant {target}")
    assert s.seats[0].merchant == target and s.seats[0].res[GOLD] == gold_left
    assert act(s)["ap"] == 1
    assert tiletum.legal_moves(s) == ["house"]   # building is step 2, not optional
    s, _ = do(s, "house")
    assert 0 in s.houses[target]
    consistent(s)


def test_merchant_relocation_pays_what_it_has():
    """Merchant 1: 'Even if the Cardinalbot does not possess enough Gold, its Merchant still moves
    to the selected Town, spending all the Gold it does have.'"""
    s = bot_turn()
    s.seats[0].merchant = "Praha"
    put_house(s, 1, "Praha")
    s = take(s, "merchant", 6, "S")
    set_res(s, 0, gold=1)
    s, _ = do(s, "merchant Bordeaux")          # 7 spaces
    assert s.seats[0].merchant == "Bordeaux" and s.seats[0].res[GOLD] == 0


def test_merchant_does_not_relocate_to_a_town_where_it_cannot_build():
    """Merchant 1: the relocation target is 'a Town with an available House space'."""
    s = bot_turn()
    s.seats[0].merchant = "Praha"
    put_house(s, 1, "Praha")
    put_house(s, 1, "Wien")
    s = take(s, "merchant", 4)
    refused(s, "merchant Wien")
    refused(s, "merchant Tiletum")
    refused(s, "merchant Paris_Bordeaux")       # a road space


@pytest.mark.parametrize("town,vp", [("Bordeaux", 3), ("Hamburg", 2), ("Troyes", 1), ("Paris", 0),
                                     ("Antwerpen", 0), ("Milano", 0)])
def test_merchant_house_scores_only_printed_vp(town, vp):
    """Merchant 2: 'The Cardinalbot ignores all printed rewards on House spaces on the Main board
    except victory points, which it gains normally.' (Antwerpen and Milano have a Building bonus
    space.)"""
    s = bot_turn()
    s.seats[0].merchant = town
    s = take(s, "merchant", 4)
    res_before, score = list(s.seats[0].res), s.seats[0].score
    s, _ = do(s, "house")
    assert s.seats[0].score == score + vp
    assert s.seats[0].res == res_before
    assert s.solo["supply"] == [] and s.agenda == []
    consistent(s)


def test_merchant_tile_in_reach_then_final_move_extending_reach():
    """Merchant 3-5: a Bonus tile within reach of the Merchant (after building), then the move,
    extending reach at 1 Gold per space beyond it."""
    s = bot_turn()
    clear_map(s)
    s.seats[0].merchant = "Praha"
    set_map_bonus(s, "Nuernberg", ["B43"])     # 1 space
    set_map_bonus(s, "Hamburg", ["B01"])       # 2 spaces
    s = take(s, "merchant", 6, "S")            # 1 AP
    s, _ = do(s, "house")
    assert [m for m in tiletum.legal_moves(s) if m.startswith("tile ")] == ["tile B43"]
    s, _ = do(s, "tile B43")
    assert s.seats[0].merchant == "Praha" and "B43" in s.box
    set_res(s, 0, gold=3)
    s, _ = do(s, "merchant Koeln")             # 3 spaces: 2 beyond reach
    assert s.seats[0].merchant == "Koeln" and s.seats[0].res[GOLD] == 1
    assert s.solo["stage"] == "tasks"


def test_merchant_final_move_only_to_a_town_where_it_could_build():
    """Merchant 4: 'Find a Town with an available House space within the reach ... If no such
    Towns are within reach, extend its reach to select the Town without its House closest to its
    Merchant'."""
    s = bot_turn()
    s.seats[0].merchant = "Praha"
    put_house(s, 1, "Wien")
    s = take(s, "merchant", 4)
    s, _ = do(s, "house")
    refused(s, "merchant Tiletum")             # it has a House there
    refused(s, "merchant Wien")                # no free House space


# ============================================================================================
# The Character action ("Character Action")
# ============================================================================================

def test_character_placement_top_row_leftmost_then_below_a_matching_one():
    """Character A: 'If it has a Character of that type already, the Cardinalbot places the new
    one below the first. If the Cardinalbot does not have a Character of that type, it places it
    in the leftmost empty space of the higher row. Printed rewards on Character tiles are
    ignored.'"""
    s = bot_turn()
    with_bot_board(s, supply=["C10", "C19", "C11"])
    s = take(s, "character", 3, "S")           # 4 AP
    res_before, vp = list(s.seats[0].res), s.seats[0].score
    assert {"place C10", "place C11", "place C19"} <= set(tiletum.legal_moves(s))
    s, _ = do(s, "place C10")
    assert s.solo["columns"][0] == ["C10", None] and act(s)["ap"] == 3
    s, _ = do(s, "place C19")
    assert s.solo["columns"][1] == ["C19", None] and act(s)["ap"] == 2
    s, _ = do(s, "place C11")
    assert s.solo["columns"][0] == ["C10", "C11"] and act(s)["ap"] == 1
    assert s.solo["supply"] == []
    assert s.seats[0].res == res_before and s.seats[0].score == vp     # rewards ignored
    consistent(s)


def test_character_placed_below_a_matching_one_not_leftmost():
    """Character A: a Character of a type it has goes below the first of that type."""
    s = bot_turn()
    with_bot_board(s, columns=[["C37", None], ["C19", None]], supply=["C38", "C10"])
    s = take(s, "character", 3)
    s, _ = do(s, "place C10")
    assert s.solo["columns"][2] == ["C10", None]
    s, _ = do(s, "place C38")
    assert s.solo["columns"][0] == ["C37", "C38"]
    consistent(s)


def test_character_of_a_type_it_has_two_of_cannot_be_placed():
    """The Cardinalbot's Board: 'All the Cardinalbot's buildings have space for exactly two
    Character tiles.'"""
    s = bot_turn()
    with_bot_board(s, columns=[["C37", "C38"]], supply=["C43"])
    s = take(s, "character", 3)
    assert "place C43" not in tiletum.legal_moves(s)
    refused(s, "place C43")


def test_character_take_from_offer_costs_one_ap_and_refills():
    """Character B: 'the Cardinalbot takes a Character tile from the offer' (for an Action
    Point); 'Keep the Cardinalbot's supply of Character tiles below its board'."""
    s = bot_turn()
    set_offer(s, "character", ["C10", "C19", "C28", "C37", "C01"])
    s = take(s, "character", 5)                # 2 AP
    s, _ = do(s, "char 2")
    assert s.solo["supply"] == ["C19"] and act(s)["ap"] == 1
    assert s.character_offer[1] not in (None, "C19") and s.character_offer[0] == "C10"
    refused(s, "char 1")                       # "do the first possible": place before taking
    s, _ = do(s, "place C19")
    assert s.solo["supply"] == [] and s.solo["columns"][0][0] == "C19"
    assert s.solo["stage"] == "tasks"
    consistent(s)


def test_character_discard_is_free_and_once_per_action():
    """Character B: 'it discards all tiles from the offer, refilling immediately. This does not
    cost an Action Point, and it can be done only once per Character action.'"""
    s = bot_turn()
    old = ["C10", "C19", "C28", "C37", "C01"]
    set_offer(s, "character", old)
    s = take(s, "character", 5)
    s, _ = do(s, "discard")
    assert act(s)["ap"] == 2
    assert not set(old) & set(s.character_offer) and all(s.character_offer)
    assert set(old) <= set(s.piles["character"])
    assert "discard" not in tiletum.legal_moves(s)
    refused(s, "discard")
    consistent(s)


# ============================================================================================
# The Contract action ("Contract Action") and the King action ("King Action")
# ============================================================================================

CONTRACT_OFFER = ["K07", "K01", "K12", "K02", "K13"]    # costs 3, 3, 2, 2, 1 Action Points


def contract_turn(value=1, colour="S", **resources):
    s = bot_turn()
    set_offer(s, "contract", list(CONTRACT_OFFER))
    s = take(s, "contract", value, colour)
    set_res(s, 0, **resources)
    return s


def test_contract_action_crest_goes_to_inactive():
    """Contract A: 'It takes all Crests it does not yet have ... Place the taken Crests on the
    Storehouse on the bottom-right corner of its board to indicate that they are inactive.'"""
    s = contract_turn()
    vp = s.seats[0].score
    s, _ = do(s, "contract 2")                 # K01, an eagle Crest, 3 AP
    assert s.solo["inactive"] == ["K01"] and s.seats[0].score == vp
    assert act(s)["ap"] == 3
    consistent(s)


def test_contract_action_crest_it_has_refused():
    """Contract A: 'Crests it does not yet have'; page 14: 'You are still not allowed to take a
    second copy of any Crest'."""
    s = bot_turn()
    with_bot_board(s, crests=["B01"])
    set_offer(s, "contract", list(CONTRACT_OFFER))
    s = take(s, "contract", 1)
    refused(s, "contract 2")
    assert "contract 2" not in tiletum.legal_moves(s) and "contract 4" in tiletum.legal_moves(s)


def test_contract_action_ready_contract_fulfilled_at_once():
    """Contract B: 'Immediately after taking such a Contract tile, the Cardinalbot fulfills it'
    and step 6C: 'scoring the VP shown plus an additional 5 VP, placing the Contract tile face
    down into its fulfilled pile.'"""
    s = contract_turn(iron=2, food=1)
    vp = s.seats[0].score
    s, _ = do(s, "contract 1")                 # K07: 2 Iron for 2 VP
    assert s.solo["fulfilled"] == ["K07"] and s.solo["contracts"] == []
    assert s.seats[0].score == vp + 2 + 5
    assert res(s, 0) == {"gold": 0, "food": 1, "wool": 0, "stone": 0, "iron": 0}
    assert act(s)["ap"] == 3
    consistent(s)


def test_contract_action_unready_contract_goes_on_a_space():
    """Contract C: 'it takes one Contract tile ... Place this Contract on an empty Contract space
    on its board.'"""
    s = contract_turn(wool=1)
    vp = s.seats[0].score
    s, _ = do(s, "contract 5")                 # K13: 3 Wool
    assert s.solo["contracts"] == ["K13"] and s.solo["fulfilled"] == []
    assert s.seats[0].score == vp and s.seats[0].res[WOOL] == 1
    consistent(s)


def test_contract_action_at_most_two_unfulfilled_contracts():
    """The Cardinalbot's Board: 'It can never have more than two unfulfilled Contracts at the same
    time.' Contract: 'When taking "ready" Contracts, the Cardinalbot does not need to have an empty
    Contract space'."""
    s = bot_turn()
    with_bot_board(s, contracts=["K08", "K22"])
    set_offer(s, "contract", list(CONTRACT_OFFER))
    s = take(s, "contract", 1, "S")
    set_res(s, 0, iron=2)
    refused(s, "contract 5")                   # K13 is not ready: no space for it
    refused(s, "contract 3")                   # K12 neither
    s, _ = do(s, "contract 1")                 # K07 is ready: fulfilled at once
    assert s.solo["fulfilled"] == ["K07"] and s.solo["contracts"] == ["K08", "K22"]


def test_contract_action_takes_only_one_unready_contract():
    """Contract C: 'If Point B was skipped and it has at least one empty Contract space: it takes
    one Contract tile ... Place this Contract on an empty Contract space on its board.' D: 'For
    each remaining Action Point, the Cardinalbot receives one of its most required resources'."""
    s = contract_turn(value=1)                 # 6 AP, nothing to pay with, two empty spaces
    s, _ = do(s, "contract 5")                 # K13 (1 AP): not ready, onto a space
    assert s.solo["contracts"] == ["K13"] and act(s)["ap"] == 5
    refused(s, "contract 3")                   # K12 (2 AP) is not ready either: a second one
    refused(s, "contract 1")


def test_contract_action_gains_resources_per_ap_and_respects_costs():
    """Contract D: 'For each remaining Action Point, the Cardinalbot receives one of its most
    required resources'; 'respecting the costs printed below the tiles ... ignoring any tile it
    does not have enough Action Points left for'."""
    s = contract_turn(value=5)                 # 2 AP
    refused(s, "contract 1")                   # costs 3
    s, _ = do(s, "gain I")
    assert s.seats[0].res[IRON] == 1 and act(s)["ap"] == 1
    refused(s, "contract 3")                   # costs 2
    s, _ = do(s, "gain W")
    assert s.seats[0].res[WOOL] == 1 and s.solo["stage"] == "tasks"


def test_king_action_moves_up_per_ap():
    """King Action: 'The Cardinalbot's marker moves up the King track by the number of spaces
    corresponding to the available Action Points.'"""
    s = bot_turn()
    s = take(s, "king", 3)
    assert bot_value(s) == 3
    s, _ = do(s, "king")
    assert bot_value(s) == 7 and s.solo["stage"] == "tasks"


# ============================================================================================
# Tasks ("On the Cardinalbot's Turn", step 6)
# ============================================================================================

def test_task_crest_costs_three_food_and_scores_5():
    """Step 6a: 'If the Cardinalbot possesses an inactive Crest ... and can pay 3 Food ..., it
    spends 3 Food and places the Crest (activating it) on the bottom row of its Player board and
    scores 5 VP.'"""
    s = to_tasks(bot_turn())
    with_bot_board(s, inactive=["B01"])
    set_res(s, 0, food=4, gold=2)
    vp = s.seats[0].score
    assert {f"crest B01 {i}" for i in range(1, 6)} <= set(tiletum.legal_moves(s))
    s, _ = do(s, "crest B01 2")
    assert s.solo["crests"] == [None, "B01", None, None, None] and s.solo["inactive"] == []
    assert res(s, 0) == {"gold": 2, "food": 1, "wool": 0, "stone": 0, "iron": 0}
    assert s.seats[0].score == vp + 5
    refused(s, "crest B01 3")
    consistent(s)


@pytest.mark.parametrize("food,gold,left", [(1, 4, (0, 0)), (0, 6, (0, 0)), (2, 5, (0, 3))])
def test_task_crest_missing_food_paid_with_two_gold_each(food, gold, left):
    """Step 6a: '(or is able to make up the difference to 3 Food with 2 Gold each)'."""
    s = to_tasks(bot_turn())
    with_bot_board(s, inactive=["B01"])
    set_res(s, 0, food=food, gold=gold)
    vp = s.seats[0].score
    s, _ = do(s, "crest B01 1")
    assert (s.seats[0].res[FOOD], s.seats[0].res[GOLD]) == left
    assert s.seats[0].score == vp + 5


@pytest.mark.parametrize("food,gold", [(1, 3), (0, 5), (2, 1), (0, 0)])
def test_task_crest_unaffordable_refused(food, gold):
    """Step 6a: only if it 'can pay 3 Food (or ... with 2 Gold each)'."""
    s = to_tasks(bot_turn())
    with_bot_board(s, inactive=["B01"])
    set_res(s, 0, food=food, gold=gold, stone=5)
    assert not any(m.startswith("crest") for m in tiletum.legal_moves(s))
    refused(s, "crest B01 1")


def test_column_completed_by_the_crest_puts_its_ap_marker_on_its_action():
    """The Cardinalbot's Board: 'If the Cardinalbot has placed two Character tiles and a Crest
    tile in the same building, it places its Bonus Action point marker in the appropriate section
    of the Action Wheel.' Action Resolution: 'Plus the value of the Action Points bonus token'."""
    s = to_tasks(bot_turn())
    with_bot_board(s, columns=[["C10", "C11"]], inactive=["B01"])
    set_res(s, 0, food=3)
    s, _ = do(s, "crest B01 1")
    assert s.seats[0].ap_bonus == {"character": 1}
    # its next Character action has the bonus, other Actions do not
    s, _ = do(s, "end")
    clear_action_bonuses(s)
    s, _ = human_turn_events(s)
    assert s.actor == 0
    put_die(s, "character", 4)
    put_die(s, "king", 5)
    t, _ = do(s, "take G4")
    assert act(t)["action"] == "character" and act(t)["ap"] == 3 + 1
    t, _ = do(s, "take G5")
    assert act(t)["ap"] == 2


def test_column_completed_by_the_second_character():
    """The Cardinalbot's Board: two Characters and a Crest complete a building whatever the
    order; column 5 carries the +3 marker."""
    s = bot_turn()
    with_bot_board(s, columns=[["C10", None], ["C19", None], ["C28", None], ["C01", None],
                               ["C37", None]], crests=[None, None, None, None, "B01"], supply=["C38"])
    s = take(s, "character", 5)
    assert s.seats[0].ap_bonus == {}
    s, _ = do(s, "place C38")
    assert s.solo["columns"][4] == ["C37", "C38"]
    assert s.seats[0].ap_bonus == {"king": 3}


def test_column_with_a_crest_but_one_character_is_not_completed():
    """The Cardinalbot's Board: the marker moves only with two Characters and a Crest."""
    s = to_tasks(bot_turn())
    with_bot_board(s, columns=[["C10", None]], inactive=["B01"])
    set_res(s, 0, food=3)
    s, _ = do(s, "crest B01 1")
    assert s.seats[0].ap_bonus == {}


def cathedral_position(stone=0, gold=0):
    s = bot_turn()
    set_cathedral_cost(s, "Lyon", "X1")          # 2 Stone, 2 VP
    set_cathedral_cost(s, "London", "X9")        # the unavailable one
    put_pillar(s, 0, "Lyon")
    s = to_tasks(s)
    set_res(s, 0, stone=stone, gold=gold)
    return consistent(s)


def test_task_cathedral_with_stone_scores_cost_and_tile_vp():
    """Step 6b: 'If the Cardinalbot has a Pillar present at a Cathedral it hasn't built yet and it
    can pay enough Stone to build it ..., it builds the Cathedral (spending the Stone and gaining
    the depicted VP).'"""
    s = cathedral_position(stone=3)
    top = s.cathedral_stack["Lyon"][-1]
    vp = s.seats[0].score
    assert "cathedral Lyon" in tiletum.legal_moves(s)
    s, _ = do(s, "cathedral Lyon")
    assert s.seats[0].cathedrals == [top] and top not in s.cathedral_stack["Lyon"]
    assert s.seats[0].res[STONE] == 1
    assert s.seats[0].score == vp + 2 + C.tiles[top].raw["vp"]
    refused(s, "cathedral Lyon")                 # once per Cathedral
    consistent(s)


@pytest.mark.parametrize("stone,gold,left", [(1, 2, (0, 0)), (0, 5, (0, 1))])
def test_task_cathedral_missing_stone_paid_with_two_gold_each(stone, gold, left):
    """Step 6b: '(or it can make up the difference to the required amount of Stone with 2 Gold
    each)'."""
    s = cathedral_position(stone=stone, gold=gold)
    vp = s.seats[0].score
    s, _ = do(s, "cathedral Lyon")
    assert (s.seats[0].res[STONE], s.seats[0].res[GOLD]) == left
    assert s.seats[0].score == vp + 2 + 6


def test_task_cathedral_refused_without_stone_or_pillar():
    """Step 6b: only with a Pillar there and enough Stone (or 2 Gold per missing Stone)."""
    s = cathedral_position(stone=1, gold=1)
    refused(s, "cathedral Lyon")
    s = cathedral_position(stone=9)
    refused(s, "cathedral Milano")               # no Pillar of the bot there
    refused(s, "cathedral London")


def contract_tasks(contracts, **resources):
    s = to_tasks(bot_turn())
    with_bot_board(s, contracts=contracts)
    set_res(s, 0, **resources)
    return consistent(s)


@pytest.mark.parametrize("tile,resources,paid", [
    # plain Iron / Wool Contracts; 2 Gold per missing Iron or Wool (6C III)
    ("K07", dict(iron=2), dict(iron=2)),
    ("K07", dict(iron=1, gold=2), dict(iron=1, gold=2)),
    ("K07", dict(gold=4, stone=5), dict(gold=4)),
    ("K21", dict(iron=1, gold=2, food=9), dict(iron=1, gold=2)),
    # 'any resource' (identical) part: Gold first (6C I.1)
    ("K17", dict(iron=2, gold=2, food=9, wool=5), dict(iron=2, gold=2)),
    # then Food if it has 4 or more, the first 3 being reserved (6C I.2, the Board)
    ("K17", dict(iron=2, gold=1, food=5, wool=3), dict(iron=2, food=2)),
    ("K19", dict(wool=2, food=6), dict(wool=2, food=2)),
    # Food 4 leaves only 1 spendable: Wool or Iron, whichever it has more of (6C I.3)
    ("K17", dict(iron=2, gold=1, food=4, wool=3), dict(iron=2, wool=2)),
    ("K17", dict(iron=5, food=3, wool=1), dict(iron=4)),
    ("K19", dict(wool=2, iron=3, food=3), dict(wool=2, iron=2)),
])
def test_task_contract_payment_order(tile, resources, paid):
    """Step 6C: 'On tiles showing "any resource", the Cardinalbot spends resources in the
    following priority order: Gold, Food (if it has 4 or more), then Wool or Iron (whichever it
    has more of). The Cardinalbot never spends Stone on Contracts.' ... 'Keep the first 3 Food
    tokens ... not to spend those resources for fulfilling Contracts.' ... 'If it does not have
    enough Wool or Iron, it can spend 2 Gold for each missing Wool or Iron.' Scores 'the VP
    shown plus an additional 5 VP'."""
    s = contract_tasks([tile], **resources)
    vp = s.seats[0].score
    assert f"fulfil {tile}" in tiletum.legal_moves(s)
    s, _ = do(s, f"fulfil {tile}")
    expected = {r: resources.get(r, 0) - paid.get(r, 0) for r in RES_NAMES}
    assert res(s, 0) == expected
    assert s.solo["fulfilled"] == [tile] and s.solo["contracts"] == []
    assert s.seats[0].score == vp + C.tiles[tile].raw["vp"] + 5
    consistent(s)


@pytest.mark.parametrize("tile,resources", [
    ("K07", dict(iron=1, gold=1, stone=9)),           # 1 Gold short
    ("K17", dict(iron=2, stone=9, food=3)),           # never Stone; reserved Food kept
    ("K17", dict(iron=2, food=4, gold=1, wool=1)),    # 1 spendable Food is not 2
    ("K19", dict(wool=2, food=4, stone=8, gold=1)),
])
def test_task_contract_unaffordable_refused(tile, resources):
    """Step 6C: 'If the Cardinalbot possesses an unfulfilled Contract tile and enough resources to
    fulfill it' (never Stone, never its 3 reserved Food)."""
    s = contract_tasks([tile], **resources)
    assert f"fulfil {tile}" not in tiletum.legal_moves(s)
    refused(s, f"fulfil {tile}")


def test_task_contracts_at_most_two_per_turn():
    """Step 6c: 'It performs this Task up to two times, if possible.' (A third unfulfilled
    Contract cannot exist on its two spaces, so this position is hand-made.)"""
    s = contract_tasks(["K07", "K12"], iron=6, wool=6)
    s.solo["contracts"].append("K21")
    remove_tile(s, "K21")
    s, _ = do(s, "fulfil K07")
    s, _ = do(s, "fulfil K12")
    assert s.solo["fulfils"] == 2
    assert "fulfil K21" not in tiletum.legal_moves(s)
    refused(s, "fulfil K21")


def test_task_contract_count_resets_each_turn():
    """Step 6c: 'up to two times' in each of its turns."""
    s = contract_tasks(["K07", "K12"], iron=6, wool=6)
    s, _ = do(s, "fulfil K07")
    s, _ = do(s, "fulfil K12")
    s, _ = do(s, "end")
    clear_action_bonuses(s)
    s, _ = human_turn_events(s)
    assert s.actor == 0 and s.solo["fulfils"] == 0


def fair_at(s, rnd, town=None, tile=None):
    """Set the Fair town and/or Fair tile of round ``rnd``, keeping every tile in one place (the
    Town and Fair tiles replaced go back to the box)."""
    if town is not None:
        towns = list(s.fair_towns)
        if town in towns:
            i = towns.index(town)
            towns[i], towns[rnd - 1] = towns[rnd - 1], towns[i]
        else:
            assert rnd > 1, "the first Fair is always held in Tiletum"
            s.box.append(towns[rnd - 1])
            s.box.remove(town)
            towns[rnd - 1] = town
        s.fair_towns = towns
    if tile is not None:
        tiles = list(s.fair_tiles)
        if tile in tiles:
            i = tiles.index(tile)
            tiles[i], tiles[rnd - 1] = tiles[rnd - 1], tiles[i]
        else:
            s.box.append(tiles[rnd - 1])
            s.box.remove(tile)
            tiles[rnd - 1] = tile
        s.fair_tiles = tiles
    s.box.sort()
    return s


NOBODY = "Verona"      # an unused Town tile for seed 'seed'; nobody's pieces are there


# ============================================================================================
# The King phase (solo rules, "Flow of Play: King phase")
# ============================================================================================

def king_phase_position(markers, king_bonus=None, challenges=(), rnd=2):
    """The player's last turn of round ``rnd``, with the King track set (``[(VP, seat), ...]``
    bottom -> top) and a Fair that scores nothing (Contracts, in a town where nobody is)."""
    s = bot_turn(challenges)
    s.round = rnd
    set_king(s, markers)
    set_king_bonus(s, king_bonus)
    fair_at(s, rnd, town=NOBODY, tile="ContractsX3")
    return consistent(s)


@pytest.mark.parametrize("start", [-10, -2, 0, 1, 2])
def test_king_phase_bot_below_plus_3_resets_to_plus_3(start):
    """King phase: 'If the Cardinalbot is below the "+3 VP" position of the King track, reset its
    marker to the "+3 VP" position, not the "0 VP" position.' It still scores its position first
    ('including scoring positive or negative VP')."""
    s = king_phase_position([(start, 0), (6, 1)])
    vp, human_vp = s.seats[0].score, s.seats[1].score
    s = finish_round(s, source=FirstSource())
    assert s.round == 3
    assert bot_value(s) == 3
    assert s.seats[0].score == max(0, vp + start)
    assert s.seats[1].score == human_vp + 6 + 4       # its position, and 4 VP (no King tile)
    assert s.turn_order == [1, 0]


def test_king_phase_player_in_the_red_still_resets_to_0():
    """King phase: the player's reset is unchanged ('Performed normally ... for both you and the
    Cardinalbot, with the following exceptions')."""
    s = king_phase_position([(-3, 1), (-4, 0)])
    s = finish_round(s, source=FirstSource())
    assert king_value(s, 1) == 0 and bot_value(s) == 3


@pytest.mark.parametrize("start", [3, 4, 9])
def test_king_phase_bot_at_or_above_plus_3_stays(start):
    """King phase: only a marker below +3 is moved; 'Markers in the higher (blue) part should not
    be moved'."""
    s = king_phase_position([(0, 1), (start, 0)])
    s = finish_round(s, source=FirstSource())
    assert bot_value(s) == start


@pytest.mark.parametrize("start,after", [(-1, 5), (3, 5), (4, 5), (5, 5), (6, 6)])
def test_king_phase_favor_at_the_court_resets_to_plus_5(start, after):
    """Favor at the Court: 'after Step 2 of each King phase if the Cardinalbot's position on the
    King track is below the "+5 VP" position, place its marker on the "+5 VP" position (instead
    of "+3 VP").'"""
    s = king_phase_position([(start, 0), (8, 1)], challenges=["favor_at_the_court"])
    s = finish_round(s, source=FirstSource())
    assert bot_value(s) == after


@pytest.mark.parametrize("markers", [[(4, 0), (4, 1)], [(4, 1), (4, 0)]],
                         ids=["bot-below-in-the-stack", "bot-above-in-the-stack"])
def test_king_phase_tie_goes_to_the_bot(markers):
    """King phase: 'If tied for position, the Cardinalbot is always first (taking first player
    position), even if your marker is below its marker.' 'If the Cardinalbot is first, it collects
    the Bonus tile and resolves it immediately.'"""
    s = king_phase_position(markers, king_bonus="B01")
    vp, human_vp = s.seats[0].score, s.seats[1].score
    s = finish_round(s, source=FirstSource())
    assert s.round == 3
    assert s.turn_order == [0, 1]
    assert s.solo["inactive"] == ["B01"] and "B01" not in s.seats[1].store
    assert s.seats[0].score == vp + 4 and s.seats[1].score == human_vp + 4
    assert s.actor == 0                              # the bot starts round 2
    consistent(s)


def test_king_phase_player_strictly_above_is_first():
    """King phase: 'If your marker is higher than its marker on the King track, you will be first
    player in the following round, just as in the multiplayer rules.'"""
    s = king_phase_position([(5, 0), (6, 1)], king_bonus="B43")
    s = finish_round(s, source=FirstSource())
    assert s.phase == "king" and s.actor == 1
    assert s.agenda[-1]["kind"] == "king_tile" and tiletum.legal_moves(s) == ["skip", "tile B43"]
    s, _ = do(s, "tile B43", source=FirstSource())
    assert s.turn_order == [1, 0] and s.seats[1].store == ["B43"]


@pytest.mark.parametrize("tile,where", [("B01", "inactive"), ("B43", "box"), ("B16", "box")])
def test_king_phase_bot_resolves_the_king_tile_at_once(tile, where):
    """King phase: 'it collects the Bonus tile and resolves it immediately. (See page 14 on how
    the Cardinalbot resolves various Bonus tiles.)'"""
    s = king_phase_position([(0, 1), (5, 0)], king_bonus=tile)
    res_before, vp = list(s.seats[0].res), s.seats[0].score
    s = finish_round(s, source=FirstSource())
    assert s.king_bonus != tile
    if where == "inactive":
        assert s.solo["inactive"] == [tile]
    else:
        assert tile in s.box and s.solo["inactive"] == []
    assert s.seats[0].res == res_before and s.seats[0].score == vp + 5
    consistent(s)


def test_king_phase_last_round_bot_scores_4_vp():
    """King phase: 'In the final round, it gains 4 VP as printed on the board instead.'"""
    s = king_phase_position([(0, 1), (3, 0)], rnd=4)
    set_res(s, 0)
    vp = s.seats[0].score
    s = finish_round(s)
    assert s.phase == "over"
    assert s.final["0"]["before"] == vp + 3 + 4
    s = king_phase_position([(3, 0), (4, 1)], rnd=4)
    set_res(s, 0)
    s = finish_round(s)
    assert s.final["0"]["before"] == vp + 3


# ============================================================================================
# The Fair phase (solo rules, "Flow of Play: Fair phase")
# ============================================================================================

def fair_board(s):
    """A bot board: 3 fulfilled Contracts, 2 active Crests and 1 inactive, top row 3, two filled
    columns, Houses in Tiletum and Praha, Pillars in Lyon, Milano and Paris, 1 Cathedral."""
    with_bot_board(s, columns=[["C10", "C11"], ["C19", None], ["C28", "C29"]],
                   crests=["B03", None, None, "B07"], inactive=["B05"],
                   fulfilled=["K07", "K12", "K13"])
    set_cathedral_cost(s, "Lyon", "X1")
    set_cathedral_cost(s, "London", "X9")
    put_house(s, 0, "Praha")
    for town in ("Lyon", "Milano", "Paris"):
        put_pillar(s, 0, town)
    s.seats[0].cathedrals = [s.cathedral_stack["Lyon"].pop()]
    s.seats[0].merchant = s.seats[0].architect = "Lyon"
    return consistent(s)


FAIR_COUNTS = {
    "ContractsX3": 3,                  # 'count the (face-down) tiles in its fulfilled Contracts pile'
    "CrestsX3": 2,                     # 'count the (active) tiles on its Player board'
    "SetContractCrestX6": 2,
    "SetContractCathedralX5": 1,
    "UpperFloorCharactersX3": 3,       # 'only count the Cardinalbot's 2nd (top) level'
    "CompletedBuildingsX5": 2,         # 'no change to how the Cardinalbot scores Buildings completely filled'
    "HousesX2": 2,                     # 'count its Pillars and Houses on the Main board normally'
    "PillarsX2": 3,
    "SetHousePillarX6": 2,
    "CathedralsX4": 1,                 # 'count the Cathedral tiles collected near its Player board'
}


@pytest.mark.parametrize("tile", sorted(FAIR_COUNTS))
def test_fair_bot_counts(tile):
    """Fair phase: 'For Contracts, count the (face-down) tiles in its fulfilled Contracts pile.
    For Crests, count the (active) tiles on its Player board (not the unplaced/inactive ones in
    its supply). For Columns and Houses, count its Pillars and Houses on the Main board normally.
    For Cathedrals, count the Cathedral tiles collected ... (When scoring for Characters on levels
    2 and 3, only count the Cardinalbot's 2nd (top) level; there is no change to how the
    Cardinalbot scores Buildings completely filled with Characters tiles.)'"""
    s = fair_board(bot_turn())
    fair_at(s, 1, tile=tile)
    per = C.fair_board_values[0] + C.tiles[tile].raw["vp"]
    assert flow.fair_vp(s, 0) == per * FAIR_COUNTS[tile]


@pytest.mark.parametrize("tile", ["CrestsX3", "UpperFloorCharactersX3", "ContractsX3"])
def test_fair_bot_scores_without_presence(tile):
    """Fair phase: 'the Cardinalbot scores even if it does not have a Merchant or a House present
    in the city the Fair is being held in.' (The player, absent, scores nothing.)"""
    s = fair_board(bot_turn())
    s.round = 2
    set_king(s, [(0, 1), (3, 0)])
    set_king_bonus(s, "B43")
    fair_at(s, 2, town=NOBODY, tile=tile)
    assert NOBODY not in (s.seats[0].merchant, s.seats[1].merchant)
    assert 0 not in s.houses.get(NOBODY, ()) and 1 not in s.houses.get(NOBODY, ())
    consistent(s)
    vp, human_vp = s.seats[0].score, s.seats[1].score
    s = finish_round(s, source=FirstSource())
    per = C.fair_board_values[1] + C.tiles[tile].raw["vp"]
    assert s.seats[0].score == vp + 3 + per * FAIR_COUNTS[tile]
    assert s.seats[1].score == human_vp
    assert s.round == 3


def test_fair_king_track_tile_scored_before_the_bot_reset():
    """Appendix, Fair tiles: the King-track tile 'needs to be scored before resetting the King
    track'; for the bot as for you."""
    s = bot_turn()
    s.round = 2
    set_king(s, [(0, 1), (-2, 0)])
    set_king_bonus(s, None)
    fair_at(s, 2, town=NOBODY, tile="KingTrackPlus3")
    vp = s.seats[0].score
    s = finish_round(s, source=FirstSource())
    per = C.fair_board_values[1] + 3
    assert s.seats[0].score == vp - 2 + per - 2
    assert bot_value(s) == 3


def test_after_the_fair_the_leftmost_decree_leaves_the_row():
    """Fair phase: 'After the Fair, return the leftmost Decree card (the one corresponding to the
    Fair just scored) to the box, and place the Cardinalbot on the now-leftmost card'."""
    s = bot_turn()
    row = list(s.solo["decrees"])
    s = finish_round(s, source=FirstSource())
    assert s.round == 2 and s.solo["decrees"] == row[1:]
    assert s.solo["decree_pos"] <= len(row) - 2
    for rnd in (2, 3):
        s.solo["stage"] = "die"
        s = finish_round(s, source=FirstSource())
        assert s.round == rnd + 1 and s.solo["decrees"] == row[rnd:]
    assert s.solo["decrees"][-2:] == ["everlasting_fame", "worldly_riches"]


# ============================================================================================
# Final scoring (solo rules, "Final Scoring")
# ============================================================================================

def final_position(contracts=(), **resources):
    """Round 4, the player's last turn; the bot: Houses in Tiletum, Praha and Wien, Pillars in Lyon
    and Milano, on +3 with the player on 0 (no Fair VP: no fulfilled Contracts)."""
    s = king_phase_position([(0, 1), (3, 0)], rnd=4)
    set_cathedral_cost(s, "London", "X9")
    put_house(s, 0, "Praha")
    put_house(s, 0, "Wien")
    put_pillar(s, 0, "Lyon")
    put_pillar(s, 0, "Milano")
    with_bot_board(s, contracts=list(contracts))
    set_res(s, 0, **resources)
    return consistent(s)


def test_final_scoring_houses_times_pillars_and_resources():
    """Final Scoring 1: 'Multiply the number of its Houses on the map by the number of its Pillars
    on the map.' 3: '1 VP for every four leftover resources.'"""
    s = final_position(iron=7, stone=2, food=3, wool=1, gold=2)
    vp = s.seats[0].score
    s = finish_round(s)
    f = s.final["0"]
    assert f["before"] == vp + 3 + 4
    assert (f["houses"], f["pillars"], f["houses_x_pillars"]) == (3, 2, 6)
    assert f["contracts_fulfilled_at_end"] == [] and f["contracts_vp"] == 0
    assert f["resources"] == 15 and f["resources_vp"] == 3
    assert s.seats[0].score == f["total"] == vp + 7 + 6 + 3
    assert res(s, 0) == {"gold": 2, "food": 3, "wool": 1, "stone": 2, "iron": 7}   # no conversion


def test_final_scoring_converts_stone_and_food_and_fulfils_contracts():
    """Final Scoring 2: 'If the Cardinalbot has one or more unfulfilled Contracts on its board, it
    converts all of its Stone and Food (including that in its reserve) into Gold, then attempts to
    fulfill those Contracts' (6C: 2 Gold per missing Wool/Iron; VP shown + 5)."""
    s = final_position(["K13"], wool=1, stone=2, food=3, iron=7)
    vp = s.seats[0].score
    s = finish_round(s)
    f = s.final["0"]
    assert f["contracts_fulfilled_at_end"] == ["K13"]
    assert f["contracts_vp"] == 4 + 5
    assert s.solo["fulfilled"] == ["K13"] and s.solo["contracts"] == []
    # 5 Gold from Stone and Food, 4 of them for the 2 missing Wool
    assert res(s, 0) == {"gold": 1, "food": 0, "wool": 0, "stone": 0, "iron": 7}
    assert f["resources_vp"] == 2
    assert s.seats[0].score == vp + 7 + 6 + 9 + 2


def test_final_scoring_reserved_food_pays_any_resource_part():
    """Final Scoring 2: '(including that in its reserve)': its 3 reserved Food, become Gold, pay
    the 'any resource' part."""
    s = final_position(["K17"], iron=2, food=3)
    s = finish_round(s)
    assert s.final["0"]["contracts_fulfilled_at_end"] == ["K17"]
    assert s.final["0"]["contracts_vp"] == 5 + 5
    assert res(s, 0) == {"gold": 1, "food": 0, "wool": 0, "stone": 0, "iron": 0}


def test_final_scoring_contract_it_cannot_pay_stays():
    """Final Scoring 2: it 'attempts' to fulfil them; one it still cannot pay scores nothing."""
    s = final_position(["K23"], iron=1, stone=1, food=1)      # 4 Iron and 4 Wool: 14 Gold short
    s = finish_round(s)
    f = s.final["0"]
    assert f["contracts_fulfilled_at_end"] == [] and f["contracts_vp"] == 0
    assert res(s, 0) == {"gold": 2, "food": 0, "wool": 0, "stone": 0, "iron": 1}
    assert f["resources_vp"] == 0


@pytest.mark.parametrize("bot,human,winner", [(30, 30, 0), (30, 31, 1), (31, 30, 0), (0, 0, 0)])
def test_final_player_wins_only_with_strictly_more_vp(bot, human, winner):
    """Final Scoring: 'You win if you have more VP than the Cardinalbot. If there is a tie or if
    you have fewer VP, the Cardinalbot wins.' (Here nobody scores anything at the end.)"""
    s = bot_turn()
    s.round = 4
    set_res(s, 0)
    set_res(s, 1)
    s.seats[0].score, s.seats[1].score = bot, human
    s.turn_order = [1, 0]                    # the player even first in turn order
    flow.final_scoring(s)
    assert s.phase == "over"
    assert (s.seats[0].score, s.seats[1].score) == (bot, human)
    assert s.winner == winner


# ============================================================================================
# The Challenge cards (solo rules, "Challenges"): each compared with and without the card
# ============================================================================================

def both(challenge, scenario, others=()):
    """Run ``scenario(state)`` on the same position without and with ``challenge``."""
    out = []
    for challenges in (list(others), list(others) + [challenge]):
        s = bot_turn(challenges)
        assert (challenge in s.solo["challenges"]) == (len(challenges) > len(others))
        out.append(scenario(s))
    return out


def gain_action_tile(tile, colour="S", value=6, before=None):
    """Scenario: the Action Bonus tile on the King action is ``tile``; the bot takes the King die.
    Returns what the bot gained apart from the die: resources, VP, King steps; its Contracts,
    fulfilled pile, and whether the tile went out of the game."""
    def run(s):
        if before:
            before(s)
        set_action_bonus(s, "king", tile)
        res0, vp0, king0 = list(s.seats[0].res), s.seats[0].score, s.king_pos[0]
        s = take(s, "king", value, colour)
        gained = [a - b for a, b in zip(s.seats[0].res, res0)]
        gained["GFWSI".index(colour)] -= value
        consistent(s)
        return {"res": dict(zip(RES_NAMES, gained)), "vp": s.seats[0].score - vp0,
                "king": s.king_pos[0] - king0, "contracts": list(s.solo["contracts"]),
                "fulfilled": list(s.solo["fulfilled"]), "boxed": tile in s.box}
    return run


NOTHING = {"gold": 0, "food": 0, "wool": 0, "stone": 0, "iron": 0}


@pytest.mark.parametrize("tile", ["B38", "B53"])
def test_very_special_friends_miscellaneous_helper_gives_5_gold(tile):
    """Very Special Friends: 'When the Cardinalbot takes a Miscellaneous Helper tile (#2 on the
    priority chart), it receives 5 Gold immediately.'"""
    without, with_ = both("very_special_friends", gain_action_tile(tile))
    assert without["res"] == NOTHING and without["boxed"]
    assert with_["res"] == dict(NOTHING, gold=5) and with_["boxed"] and with_["vp"] == 0


def test_very_special_friends_bonus_contract_fulfilled_when_ready():
    """Very Special Friends: 'When the Cardinalbot takes a Bonus Contract tile (#5 on the priority
    chart), it is treated as a regular Contract tile obtained via a Contract action (and is
    either fulfilled immediately ...'"""
    def gold(s):
        set_res(s, 0, gold=3)
    without, with_ = both("very_special_friends", gain_action_tile("B14", before=gold))   # 2 identical, 2 VP
    assert without["boxed"] and without["vp"] == 0 and without["res"] == NOTHING
    assert with_["fulfilled"] == ["B14"] and not with_["boxed"]
    assert with_["vp"] == 2 + 5 and with_["res"] == dict(NOTHING, gold=-2)


def test_very_special_friends_bonus_contract_on_a_space_or_out_of_play():
    """Very Special Friends: '... or placed on an empty Contract space on its board, or removed
    from play if no empty space is available).'"""
    without, with_ = both("very_special_friends", gain_action_tile("B16"))                 # 5 identical
    assert without["boxed"] and without["contracts"] == []
    assert with_["contracts"] == ["B16"] and not with_["boxed"] and with_["vp"] == 0

    def full(s):
        with_bot_board(s, contracts=["K08", "K13"])
    without, with_ = both("very_special_friends", gain_action_tile("B16", before=full))
    assert with_["boxed"] and with_["contracts"] == ["K08", "K13"]


def test_very_special_friends_applies_to_the_king_tile():
    """King phase: the bot resolves the King Bonus tile as on page 14, 'often overridden by
    Challenge cards'."""
    gold = []
    for challenges in ([], ["very_special_friends"]):
        s = king_phase_position([(0, 1), (4, 0)], king_bonus="B38", challenges=challenges)
        g = s.seats[0].res[GOLD]
        s = finish_round(s, source=FirstSource())
        gold.append(s.seats[0].res[GOLD] - g)
    assert gold == [0, 5]


@pytest.mark.parametrize("tile,gain,vp", [("B41", dict(gold=3), 0), ("B43", {}, 3),
                                          ("B45", dict(gold=2), 1), ("B46", dict(gold=1), 2),
                                          ("B51", dict(iron=1, wool=1, stone=1, food=1), 0)])
def test_resourceful_clergy_resource_and_vp_helpers(tile, gain, vp):
    """Resourceful Clergy: 'When the Cardinalbot takes a Resource or VP Helper tile (#3 on the
    priority chart), it receives the VP and/or resources shown immediately.'"""
    without, with_ = both("resourceful_clergy", gain_action_tile(tile))
    assert without["res"] == NOTHING and without["vp"] == 0 and without["boxed"]
    assert with_["res"] == dict(NOTHING, **gain) and with_["vp"] == vp and with_["boxed"]


@pytest.mark.parametrize("contracts,setup_res,expected", [
    ((), {}, dict(gold=2)),                                  # nothing else needed: Gold
    (("K08",), {}, dict(iron=2)),                            # an unfulfilled Contract of Iron
    (("K13",), dict(iron=1), dict(wool=2)),                  # ... of Wool
])
def test_resourceful_clergy_any_resource_is_the_most_required(contracts, setup_res, expected):
    """Resourceful Clergy: '"any resource" icons are treated as its most required resources.'
    Most Required Resource: '... Iron/Wool for Contracts. If it has one or more unfulfilled
    Contracts: Iron or Wool (whichever it needs to gain more of ...). Gold.'"""
    def before(s):
        with_bot_board(s, contracts=list(contracts))
        set_res(s, 0, **setup_res)
    without, with_ = both("resourceful_clergy", gain_action_tile("B47", before=before))   # any 2
    assert without["res"] == NOTHING
    assert with_["res"] == dict(NOTHING, **expected)


def test_resourceful_clergy_any_resource_stone_for_a_cathedral():
    """Most Required Resource: 'Stone for Cathedrals. If the Cardinalbot is able to build at least
    one Cathedral tile due to having a Pillar in place but does not have enough stone'."""
    def before(s):
        set_cathedral_cost(s, "Lyon", "X1")
        set_cathedral_cost(s, "London", "X9")
        put_pillar(s, 0, "Lyon")
        with_bot_board(s, contracts=["K08"])
        set_res(s, 0, stone=1)
    without, with_ = both("resourceful_clergy", gain_action_tile("B49", colour="G", before=before))  # any 3
    assert without["res"] == NOTHING
    assert with_["res"] == dict(NOTHING, stone=1, iron=2), "Stone until it has enough, then Iron"


@pytest.mark.parametrize("tile", ["B19", "B22", "B30", "B32", "B36"])
def test_whispers_in_the_kings_ear_action_helper_advances_on_the_king_track(tile):
    """Whispers in the King's Ear: 'When the Cardinalbot takes an Action Helper tile (#4 on the
    priority chart), it advances one space on the King track.'"""
    without, with_ = both("whispers_in_the_kings_ear", gain_action_tile(tile))
    assert without["king"] == 0 and with_["king"] == 1
    assert with_["vp"] == 0 and with_["res"] == NOTHING and with_["boxed"]


def test_whispers_not_for_other_helpers():
    """Whispers in the King's Ear applies to Action Helpers only."""
    without, with_ = both("whispers_in_the_kings_ear", gain_action_tile("B43"))
    assert without["king"] == with_["king"] == 0


@pytest.mark.parametrize("tile,vp", [("B19", 1), ("B22", 2), ("B27", 3), ("B33", 1), ("B34", 2),
                                     ("B36", 3)])
def test_ecclesiastical_income_action_helper_gives_its_ap_as_vp(tile, vp):
    """Ecclesiastical Income: 'When the Cardinalbot takes an Action Helper tile (#4 on the priority
    chart), it gains VP equal to the Action Points value shown on the tile (1, 2, or 3 VP).'"""
    without, with_ = both("ecclesiastical_income", gain_action_tile(tile))
    assert without["vp"] == 0 and with_["vp"] == vp
    assert with_["king"] == 0 and with_["res"] == NOTHING


def test_ecclesiastical_income_and_whispers_together():
    """Both Challenges apply to the same Action Helper."""
    without, with_ = both("ecclesiastical_income", gain_action_tile("B22"),
                          others=["whispers_in_the_kings_ear"])
    assert (without["vp"], without["king"]) == (0, 1)
    assert (with_["vp"], with_["king"]) == (2, 1)


def place_one(tile, before=None):
    def run(s):
        if before:
            before(s)
        with_bot_board(s, supply=[tile])
        s = take(s, "character", 6, "S")
        res0, vp0 = list(s.seats[0].res), s.seats[0].score
        s, _ = do(s, f"place {tile}")
        consistent(s)
        return {"res": dict(zip(RES_NAMES, (a - b for a, b in zip(s.seats[0].res, res0)))),
                "vp": s.seats[0].score - vp0}
    return run


@pytest.mark.parametrize("tile,gain,vp", [
    ("C10", dict(gold=1, iron=1), 0),      # 'receives 1 Iron and 1 Gold when placing this tile'
    ("C17", dict(food=2), 0),
    ("C26", dict(stone=2), 0),
    ("C37", dict(gold=2), 0),
    ("C43", {}, 2),                        # VP shown
    ("C12", {}, 1),                        # 1 Action Point
    ("C14", {}, 2),
    ("C19", {}, 1),                        # one move
    ("C20", {}, 2),                        # two moves
    ("C15", {}, 2),                        # Architect and Merchant moves
    ("C21", {}, 2),                        # move and build
    ("C32", {}, 2),
    ("C23", {}, 1),                        # build here
    ("C34", {}, 1),
    ("C01", dict(gold=1), 1),              # 1 Contract AP and 1 'any resource' (its most required)
])
def test_visitors_to_the_curia_character_bonuses(tile, gain, vp):
    """Visitors to the Curia: 'When the Cardinalbot places a Character on its Player board during
    Point A of its Character action, it receives a bonus accordingly: For each resource and/or VP
    shown on the Character tile, it receives it. For each depicted Action Point, movement option,
    or build option, it receives 1 VP instead.'"""
    without, with_ = both("visitors_to_the_curia", place_one(tile))
    assert without == {"res": NOTHING, "vp": 0}, "Character action A: 'Printed rewards ... are ignored'"
    assert with_ == {"res": dict(NOTHING, **gain), "vp": vp}


def test_deep_coffers_extra_resource_per_die():
    """Deep Coffers: 'The Cardinalbot receives an additional resource every time it takes a die
    from the Action Wheel.'"""
    def run(s):
        res0 = list(s.seats[0].res)
        s = take(s, "contract", 4, "W")
        stage = s.solo["stage"]
        if stage == "coffers":
            assert tiletum.legal_moves(s) == ["gain F", "gain G", "gain I", "gain S", "gain W"]
            refused(s, "skip")
            s, _ = do(s, "gain S")
        assert act(s) == {"action": "contract", "ap": 3, "stage": 0, "discarded": False}
        return stage, [a - b for a, b in zip(s.seats[0].res, res0)]
    without, with_ = both("deep_coffers", run)
    assert without == ("action", [0, 0, 4, 0, 0])
    assert with_ == ("coffers", [0, 0, 4, 1, 0])


def test_deep_coffers_with_a_joker_die():
    """Deep Coffers: 'every time it takes a die' (the Joker too); then the Joker's Action."""
    s = bot_turn(["deep_coffers"])
    s = take(s, "joker", 3, "F")
    assert s.solo["stage"] == "coffers"
    s, _ = do(s, "gain I")
    assert s.solo["stage"] == "joker" and s.seats[0].res[IRON] == 2 and s.seats[0].res[FOOD] == 4
    s, _ = do(s, "action king")
    assert act(s)["ap"] == 4


def test_favor_at_the_court_start_and_reset():
    """Favor at the Court: 'At Step 4 of the solo game's Setup, and after Step 2 of each King phase
    if the Cardinalbot's position on the King track is below the "+5 VP" position, place its
    marker on the "+5 VP" position (instead of "+3 VP").'"""
    def run(s):
        start = bot_value(s)
        s = king_phase_position([(0, 1), (4, 0)], challenges=s.solo["challenges"])
        s = finish_round(s, source=FirstSource())
        return start, bot_value(s)
    assert both("favor_at_the_court", run) == [(3, 4), (5, 5)]


def test_ready_for_action_column_markers_reversed():
    """Ready for Action: 'assign the Cardinalbot's Bonus Action Point markers to its Character
    Building columns in this order: +3, +2, +2, +1, +1'. The first completed column gives +3."""
    def run(s):
        s = to_tasks(s)
        with_bot_board(s, columns=[["C10", "C11"], [None, None], [None, None], [None, None],
                                   ["C37", "C38"]], inactive=["B01", "B03"])
        set_res(s, 0, food=6)
        s, _ = do(s, "crest B01 1")
        s, _ = do(s, "crest B03 5")
        return s.seats[0].ap_bonus
    assert both("ready_for_action", run) == [{"character": 1, "king": 3}, {"character": 3, "king": 1}]


# ============================================================================================
# Refused bot moves: IllegalMove, nothing changed
# ============================================================================================

def stage_positions():
    """The bot at each stage of its turn."""
    out = {}
    s = bot_turn(["deep_coffers"])
    s.wheel = ["G4", "S5"]
    put_action_at(s, "architect", 4)
    out["die"] = s
    t, _ = do(s, "take G4")
    out["coffers"] = t
    j = bot_turn()
    out["joker"] = take(j, "joker", 4)
    a = bot_turn()
    a.seats[0].architect = "Lyon"
    out["architect"] = take(a, "architect", 4)
    m = bot_turn()
    m.seats[0].merchant = "Praha"
    out["merchant"] = take(m, "merchant", 4)
    ch = bot_turn()
    set_offer(ch, "character", ["C10", "C19", "C28", "C37", "C01"])
    out["character"] = take(ch, "character", 5)
    c = bot_turn()
    set_offer(c, "contract", list(CONTRACT_OFFER))
    out["contract"] = take(c, "contract", 6)
    out["king"] = take(bot_turn(), "king", 4)
    out["tasks"] = to_tasks(bot_turn())
    return out


REFUSED = {
    "die": ["end", "skip", "king", "action king", "take G5", "take G4>3", "pillar", "gain G",
            "fulfil K07", "crest B01 1", "cathedral Lyon"],
    "coffers": ["end", "skip", "action king", "pillar", "take S5"],
    "joker": ["end", "skip", "king", "take G5", "gain G", "pillar"],
    "architect": ["end", "house", "king", "merchant Wien", "char 1", "take S5",
                  "action king", "architect Lyon", "gain G", "discard"],
    "merchant": ["end", "pillar", "merchant Wien", "architect Milano", "tile B01", "take S5", "king"],
    "character": ["end", "place C10", "contract 1", "gain G", "pillar", "king",
                  "take S5"],
    "contract": ["end", "contract 1", "contract 2", "char 1", "pillar", "king", "take S5",
                 "fulfil K07"],
    "king": ["end", "pillar", "gain G", "contract 5", "take S5", "action king"],
    "tasks": ["take S5", "pillar", "king", "skip", "gain G", "fulfil K07", "crest B01 1",
              "cathedral Lyon", "action king"],
}


@pytest.mark.parametrize("stage", sorted(REFUSED))
def test_refused_bot_moves_change_nothing(stage):
    """Every solo step allows only its own moves ('On the Cardinalbot's Turn', steps 1-6):
    anything else raises IllegalMove and leaves the position as it was."""
    s = stage_positions()[stage]
    legal = tiletum.legal_moves(s)
    for move in REFUSED[stage]:
        assert move not in legal, (stage, move)
        refused(s, move)


def test_moves_out_of_turn_are_refused():
    """The Cardinalbot's turn is its own; the player's turn is the player's."""
    s = bot_turn()
    put_die(s, "king", 4)
    s.wheel = sorted(s.wheel + ["S2"])
    before = s.to_doc()
    with pytest.raises(tiletum.NotYourTurn):
        tiletum.play(s, 1, "take G4", seed=SEED)
    assert s.to_doc() == before
    s = take(s, "king", 4)
    s, _ = do(s, "king")
    s, _ = do(s, "end")
    assert s.actor == 1
    with pytest.raises(tiletum.NotYourTurn):
        tiletum.play(s, 0, "take " + sorted(s.wheel)[0], seed=SEED)


def test_bot_moves_cannot_be_taken_back():
    """The bot's moves are decisions of the rules, never taken back ('undo' is the player's)."""
    s = take(bot_turn(), "king", 4)
    refused(s, "undo", code="nothing-to-undo")


def test_legal_moves_are_exactly_the_accepted_ones():
    """Every move ``legal_moves`` lists for the bot is accepted, at every stage."""
    for stage, s in stage_positions().items():
        for move in tiletum.legal_moves(s):
            tiletum.play(s, s.actor, move, seed=SEED)


def test_bot_turns_replay_from_their_events():
    """The Decree dice and every draw of the bot's turns are recorded in the events, so a solo
    game folds back from its log (engine contract; the dice are 'rolled', step 2)."""
    s, ev = tiletum.new_game(2, SEED, {"solo": {"level": "bishop"}})
    events = list(ev)

    def play(move):
        nonlocal s
        evs, s = tiletum.play(s, s.actor, move, seed=SEED)
        events.extend(evs)

    for _ in range(4):                         # two turns each
        if s.actor == 0:
            play("take " + sorted(s.wheel)[0])
            while s.solo["stage"] != "tasks":
                legal = tiletum.legal_moves(s)
                play({"coffers": "gain G", "joker": "action king"}.get(
                    s.solo["stage"], "skip" if "skip" in legal else legal[0]))
            play("end")
        else:
            play("take " + sorted(s.wheel)[0])
            while not (pending(s)["t"] == "frame" and pending(s)["main"]):
                play("action king" if pending(s).get("kind") == "joker" else "skip")
            play("end")
    assert sum(1 for e in events[1:] for k, _ in e["chance"] if k == "decree-die") == 4
    assert tiletum.replay(events) == s
