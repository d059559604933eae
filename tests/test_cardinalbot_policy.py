"""Known-value tests of the Cardinalbot's decision policy (``cardinalbot/policy.py``): the worked
examples of the solo rulebook (/work/shared/rules/tiletum-rulebook.md, from "Cardinalbot's
Turn"), each preference and tie-breaker on a small position, and robustness (random positions,
whole games against a random player).

The map and tiles are partly reconstructed (``tiletum/data``), so each example is set up to give
the book's *situation* with the engine's data: distances are the engine's, the towns are the
book's where the engine's map agrees (London/Antwerpen/Brugge/Lyon/Koeln/Paris,
Strasbourg/Frankfurt/Troyes), and where a printed value is lost (Action Wheel position of an
Action, Contract offer costs) an equivalent one is chosen and said so.
"""
from __future__ import annotations

import json
import random
import statistics
import time

import pytest

import tiletum
from tiletum import solo, solo_turn
from tiletum.actions import wheel_action
from tiletum.components import components
from tiletum.game import legal
from tiletum.playout import random_game

from cardinalbot import decrees, policy

try:
    from tests import positions as P
except ImportError:  # pragma: no cover - tests/ on sys.path without the package
    import positions as P

C = components()
SEED = "seed"


@pytest.fixture(autouse=True)
def strict(monkeypatch):
    """A planned move that is not legal is a failure, not a silent fallback."""
    monkeypatch.setattr(policy, "STRICT", True)


class NoRandom(random.Random):
    """For positions without ties: the policy must not draw a random number."""

    def random(self):  # every method of random.Random goes through random() or getrandbits()
        raise AssertionError("the policy used rng without a tie")

    def getrandbits(self, k):
        raise AssertionError("the policy used rng without a tie")


# --- building positions ----------------------------------------------------------------------------

def solo_position(rnd: int = 1, wheel=(), decree_row=None, challenges=(), **res) -> tiletum.GameState:
    """A solo game (no Challenges) at the start of the bot's turn in round ``rnd``: the given
    dice, no Bonus tiles on the Action tiles or the map, the bot's resources exactly ``res``."""
    s, _ = tiletum.new_game(2, SEED, {"solo": {"challenges": list(challenges)}})
    s = s.clone()
    s.round, s.fairs_scored = rnd, rnd - 1
    s.wheel = sorted(wheel)
    if decree_row is not None:
        s.solo["decrees"] = list(decree_row)
        s.solo["decree_pos"] = 0
    P.clear_action_bonuses(s)
    for town in list(s.map_bonus):
        P.set_map_bonus(s, town, [])
    P.set_res(s, 0, **res)
    return s


def value_on(s, action: str) -> int:
    """The die value that lands on ``action`` this round."""
    return next(v for v in range(1, 7) if wheel_action(s, v) == action)


def set_cathedral(s, town: str, cost: str, top: str | None = None):
    """Give ``town`` the Construction Cost tile ``cost`` (swapping with the town that had it) and
    optionally a one-tile Cathedral stack; other towns' stacks are left as they are."""
    costs = dict(s.cathedral_cost)
    other = next((t for t, x in costs.items() if x == cost), town)
    costs[other], costs[town] = costs[town], cost
    s.cathedral_cost = costs
    stack = dict(s.cathedral_stack)
    for t in {town, other}:
        if C.tiles[costs[t]].raw.get("unavailable"):
            stack[t] = []
        elif not stack.get(t):
            stack[t] = sorted((k for k in C.pile_ids["cathedral"] if C.tiles[k].raw["cathedral"] == t),
                              key=lambda k: (C.tiles[k].vp, k))
    if top is not None:
        stack[town] = [top]
    s.cathedral_stack = stack
    return s


def pillar(s, seat: int, town: str):
    s.pillars.setdefault(town, []).append(seat)
    if seat == 0:
        s.seats[0].pillars -= 1
    return s


def house(s, seat: int, town: str):
    s.houses.setdefault(town, []).append(seat)
    return s


def start_action(s, action: str, ap: int):
    """Put the bot in the middle of its turn, about to resolve ``action`` with ``ap`` AP."""
    s.solo["stage"] = "action"
    s.solo["act"] = {"action": action, "ap": ap, "stage": 0, "discarded": False}
    solo_turn._normalise(s)
    return s


def start_tasks(s):
    s.solo["stage"], s.solo["act"] = "tasks", None
    return s


def apply(s, moves, seed="t"):
    for m in moves:
        assert m in tiletum.legal_moves(s), f"{m!r} not legal: {tiletum.legal_moves(s)}"
        _, s = tiletum.play(s, s.actor, m, seed=seed)
    return s


def bot_turn(s, rng, seed="t"):
    """Play the bot's whole turn with the policy; return (all moves, batches, final state)."""
    bot = s.solo["bot"]
    batches = []
    while s.actor == bot and s.phase == "action":
        moves = policy.next_moves(s, rng)
        batches.append(moves)
        s = apply(s, moves, seed)
        if moves[-1] == "end":
            break
    return [m for b in batches for m in b], batches, s


def first(s, rng=None):
    return policy.next_moves(s, rng or NoRandom())


def take(s):
    """The bot's next single move (no tie allowed)."""
    return policy.decide(s.clone(), NoRandom(), {})


# --- the worked examples ---------------------------------------------------------------------------

def test_example_noblesse_oblige_falls_through_to_busy_hands():
    """Solo rules, step 6 example. Noblesse Oblige: no new Crest within the Architect's 6 AP
    (London -> Venezia is 9 moves), none within the Merchant's reach, and the new Crest in the
    Contract offer costs 3 AP (the one it has is cheaper). Busy Hands: a Character action; of
    the blue, yellow and light-gray dice there it takes blue, as it needs 3 more Iron for its
    7-Iron Contract; after the action its Tasks fulfil that Contract for 11 + 5 VP.

    The engine's wheel never puts the Contract action at 2 AP with the Architect at 6 AP, so the
    only die for the Contract option here is a Joker die (1 AP); the same die is the only one
    for the Merchant, so the Merchant stands 2 moves from the Crest instead of 1."""
    s = solo_position(1, decree_row=["noblesse_oblige", "busy_hands", "everlasting_fame", "worldly_riches"],
                      iron=4)
    assert value_on(s, "architect") == 1 and value_on(s, "character") == 3 and value_on(s, "joker") == 6
    s.wheel = sorted(["S1", "I3", "G3", "W3", "F6", "S5"])
    bot = s.seats[0]
    bot.architect, bot.merchant = "London", "Milano"
    P.set_map_bonus(s, "Venezia", ["B03"])            # a lion Crest
    assert C.distances["London"]["Venezia"] == 9 and C.distances["Milano"]["Venezia"] == 2
    P.remove_tile(s, "B01")
    s.solo["crests"][0] = "B01"                         # it has the eagle
    P.set_offer(s, "contract", ["K13", "K03", "K22", "K21", "K01"])  # new cup Crest (3 AP), eagle (1 AP)
    P.remove_tile(s, "K11")
    s.solo["contracts"] = ["K11"]                       # 7 Iron for 11 VP
    P.set_action_bonus(s, "character", "B41")
    assert not decrees.condition_met(s, "new_crest_in_reach", "architect", "S1")
    assert not decrees.condition_met(s, "new_crest_in_reach", "merchant", "F6")
    assert not decrees.condition_met(s, "new_crest_in_offer", "contract", "F6")
    assert decrees.choose_die(s, NoRandom())[2:] == ("busy_hands", 0)
    moves, batches, after = bot_turn(s, random.Random(1))
    assert moves[0] == "take I3"
    assert after.seats[0].res[4] == 0 and "K11" in after.solo["fulfilled"]
    # the fulfilment is worth 11 + 5 VP
    before = apply(s, moves[:moves.index("fulfil K11")])
    done = apply(before, ["fulfil K11"])
    assert done.seats[0].score - before.seats[0].score == 16
    assert before.seats[0].res[4] == 7 and done.seats[0].res[4] == 0


def test_example_architect_action_from_london():
    """Architect action with 6 AP from London: a Pillar in London; of the Bonus tiles in reach
    it takes the one in Antwerpen (a Miscellaneous Helper) over the one in Brugge (a Resource
    Helper); then it moves to Lyon: of the Cathedrals in reach without its Pillar (Lyon, Koeln),
    Lyon is worth more; Paris is worth even more but it has a Pillar there."""
    s = solo_position(1, wheel=["S1", "F2", "G3", "W4", "I5", "S5"], decree_row=["proud_pillars"])
    s.seats[0].architect = "London"
    set_cathedral(s, "London", "X1")
    set_cathedral(s, "Bordeaux", "X9")                  # the unavailable one (6 moves away)
    set_cathedral(s, "Paris", "X8")                     # 9 + 5 VP, but it has a Pillar there
    set_cathedral(s, "Lyon", "X6")                      # 7 + 6 VP
    set_cathedral(s, "Koeln", "X2")                     # 3 + 6 VP
    pillar(s, 0, "Paris")
    P.set_map_bonus(s, "Antwerpen", ["B38"])
    P.set_map_bonus(s, "Brugge", ["B45"])
    d = C.distances["London"]
    assert (d["Brugge"], d["Antwerpen"], d["Koeln"], d["Paris"], d["Lyon"]) == (2, 3, 4, 4, 6)
    assert decrees.die_ap(s, "S1", "architect") == 6
    assert policy.cathedral_vp(s, "Lyon") > policy.cathedral_vp(s, "Koeln")
    assert policy.cathedral_vp(s, "Paris") > policy.cathedral_vp(s, "Lyon")
    moves = first(s)
    assert moves == ["take S1", "pillar", "tile B38", "architect Lyon", "end"]
    after = apply(s, moves)
    assert after.seats[0].architect == "Lyon" and 0 in after.pillars["London"]


def test_example_merchant_action_from_strasbourg():
    """Merchant action (1 AP) from Strasbourg, where the player has the House: of the two
    closest Towns it moves to Frankfurt (the upcoming Fair) over Troyes for 1 Gold, builds, has
    no Bonus tile within its reach of 1, and extends its reach to Troyes, the closest Town where
    it can build, with no Gold left to pay."""
    s = solo_position(3, decree_row=["mercantile_empire"], gold=1)
    assert value_on(s, "merchant") == 6 and s.fair_towns[s.fairs_scored] == "Frankfurt"
    s.wheel = ["F1", "G3", "S6", "W2"]
    s.seats[0].merchant = "Strasbourg"
    for town in ("Strasbourg", "Koeln", "Leipzig", "Nuernberg", "Hamburg", "Antwerpen", "Praha"):
        house(s, 1, town)                               # full for two players
    d = C.distances
    assert d["Strasbourg"]["Frankfurt"] == d["Strasbourg"]["Troyes"] == 1
    assert policy.towns_in_reach("Frankfurt", 1) == ["Koeln", "Leipzig", "Nuernberg", "Strasbourg"]
    assert d["Frankfurt"]["Troyes"] == 2
    moves = first(s)
    assert moves == ["take S6", "merchant Frankfurt", "house", "merchant Troyes", "end"]
    mid = apply(s, moves[:2])
    assert mid.seats[0].res[0] == 0
    after = apply(s, moves)
    assert after.seats[0].merchant == "Troyes" and 0 in after.houses["Frankfurt"]
    assert after.seats[0].res[0] == 0


def test_example_character_action():
    """Character action with 4 AP and one Character in its supply: (1) it places it top left;
    (2) it takes one of the types it has one of, the leftmost on its board (Character type over
    King type), the one with the higher value; (3) places it below the first, completing the
    column (Crest already there): the +1 AP marker goes on the Character action; (4) takes the
    King-type tile."""
    s = solo_position(1, wheel=["F3", "G1", "S2", "W5"], decree_row=["familiar_faces"])
    assert value_on(s, "character") == 3
    so = s.solo
    for t in ("C16", "C40", "C06", "B01"):
        P.remove_tile(s, t)
    so["columns"][0][0] = "C16"                         # Character type (gain 1 Food)
    so["columns"][1][0] = "C40"                         # King type
    so["crests"][0] = "B01"
    so["supply"] = ["C06"]                              # Contract type
    P.set_offer(s, "character", ["C28", "C12", "C43", "C10", "C19"])
    rest = [t for t in s.piles["character"] if t != "C17"]
    s.piles["character"] = ["C17"]                      # the refill: a Character type
    s.box = sorted(s.box + rest)
    assert policy.character_value("C10") > policy.character_value("C12")
    b1 = first(s)
    assert b1 == ["take F3", "place C06", "char 4"]
    s = apply(s, b1)
    assert s.solo["columns"][2][0] == "C06" and s.solo["supply"] == ["C10"]
    b2 = first(s)
    assert b2 == ["place C10", "char 3"]
    mid = apply(s, b2[:1])
    assert mid.solo["columns"][0] == ["C16", "C10"] and mid.seats[0].ap_bonus == {"character": 1}
    s = apply(s, b2)
    assert s.solo["supply"] == ["C43"] and s.solo["stage"] == "tasks"
    assert first(s) == ["end"]


def test_example_contract_action():
    """Contract action with 5 AP, the eagle Crest, 4 Wool and 1 Iron: it takes the new cup Crest
    (3 AP); the ready 3-Wool Contract costs 3 AP, more than it has left; so it takes the 2-AP
    Contract that misses one resource, not the 1-AP one that misses 4 Iron; no AP is left."""
    s = solo_position(3, decree_row=["business_is_business"], wool=4, iron=1)
    assert value_on(s, "contract") == 2
    s.wheel = ["S2", "G1", "F3", "I5", "W6", "G6"]
    P.remove_tile(s, "B01")
    s.solo["crests"][0] = "B01"
    P.set_offer(s, "contract", ["K13", "K03", "K23", "K22", "K10"])
    assert [C.contract_offer_costs[i] for i in range(5)] == [3, 3, 2, 2, 1]
    assert solo.payment(s, "K13") is not None
    assert [policy.missing_resources(s, t) for t in ("K23", "K22", "K10")] == [3, 1, 4]
    moves = first(s)
    assert moves == ["take S2", "contract 2", "contract 4", "end"]
    after = apply(s, moves)
    assert after.solo["inactive"] == ["K03"] and after.solo["contracts"] == ["K22"]


def test_example_reach():
    """With 1 AP from Strasbourg only Troyes and Frankfurt are within reach."""
    assert policy.towns_in_reach("Strasbourg", 1) == ["Frankfurt", "Troyes"]
    s = solo_position(1)
    P.set_map_bonus(s, "Troyes", ["B41"])
    P.set_map_bonus(s, "Antwerpen", ["B03"])           # a Crest, but 3 moves away
    assert policy.best_tile(s, "Strasbourg", 1, NoRandom()) == "B41"
    assert policy.best_tile(s, "Strasbourg", 3, NoRandom()) == "B03"


# --- the die ---------------------------------------------------------------------------------------

def test_action_option_prefers_regular_die_with_more_ap():
    # G1 architect 6 AP, S6 Joker 1 AP
    s = solo_position(1, wheel=["G1", "S6", "F4"], decree_row=["proud_pillars"])
    assert take(s) == "take G1"


def test_action_option_prefers_joker_die_with_as_many_ap_or_more():
    s = solo_position(4, wheel=["G4", "S3", "F1"], decree_row=["proud_pillars"])
    assert wheel_action(s, 4) == "architect" and wheel_action(s, 3) == "joker"
    moves = first(s)
    assert moves[:2] == ["take S3", "action architect"]  # 5b: the Decree's Action
    assert apply(s, moves[:2]).solo["act"]["ap"] == 4


def test_die_priority_on_the_card():
    s = solo_position(1, wheel=["S5", "F5", "G2"], decree_row=["king_and_country"])  # G > F > IW > S
    assert take(s) == "take F5"


def test_blue_light_gray_icon_is_the_one_it_needs():
    s = solo_position(1, wheel=["I2", "W2", "S2"], decree_row=["mercantile_empire"], iron=5)  # IW > F > G > S
    P.remove_tile(s, "K13")
    s.solo["contracts"] = ["K13"]                        # 3 Wool
    assert take(s) == "take W2"
    s.solo["contracts"] = ["K08"]                        # 3 Iron, it has 5: needs nothing; fewer Wool
    assert take(s) == "take W2"
    s.solo["contracts"] = []
    s.seats[0].res = [0, 0, 3, 0, 1]                     # fewer Iron than Wool
    assert take(s) == "take I2"


def test_unspecified_colour_tie_is_random():
    s = solo_position(1, wheel=["I2", "W2"], decree_row=["mercantile_empire"], iron=2, wool=2)
    seen = {first(s, random.Random(i))[0] for i in range(20)}
    assert seen == {"take I2", "take W2"}


def test_condition_failing_moves_to_the_next_option():
    s = solo_position(1, wheel=["S6", "S3", "G1"], decree_row=["glorious_spires"])  # no Pillar: Architect
    assert take(s) == "take G1"
    pillar(s, 0, "Lyon")                                 # 1 Pillar > 0 Cathedrals: highest Stone die
    assert take(s) == "take S6"


def test_pillars_against_houses():
    s = solo_position(1, wheel=["G1", "S2"], decree_row=["buildings_forever"])
    assert take(s) == "take G1"                      # 1 House (Tiletum) vs 0 Pillars: Architect
    pillar(s, 0, "Lyon")
    pillar(s, 0, "Koeln")
    assert take(s) == "take S2"                      # Pillars > Houses: Merchant
    s = solo_position(1, wheel=["G1", "S2"], decree_row=["everlasting_fame"])
    assert take(s) == "take G1"                      # Houses >= Pillars: Architect
    pillar(s, 0, "Lyon")
    pillar(s, 0, "Koeln")
    assert take(s) == "take S2"


def test_all_options_fail_moves_to_the_next_card():
    s = solo_position(1, wheel=["G3", "F5"], decree_row=["proud_pillars", "familiar_faces"])
    assert decrees.choose_die(s, NoRandom())[2:] == ("familiar_faces", 0)
    assert take(s) == "take G3"


def test_worldly_riches_highest_die_ties_by_most_required():
    s = solo_position(1, wheel=["S6", "G6", "F3"], decree_row=["worldly_riches"])
    assert solo.most_required(s) == ["G"]
    assert take(s) == "take G6"
    P.remove_tile(s, "K08")
    s.solo["contracts"] = ["K08"]                        # Iron
    s.wheel = ["S6", "G6", "I6", "F3"]
    assert take(s) == "take I6"


def test_highest_of_a_colour():
    s = solo_position(1, wheel=["F2", "F4", "G5"], decree_row=["familiar_faces"])
    assert take(s) == "take F4"                      # no Character die: highest pink
    s = solo_position(1, wheel=["I2", "W4", "G4"], decree_row=["business_is_business"])
    s.solo["decrees"] = ["business_is_business"]
    P.remove_tile(s, "K08")
    s.solo["contracts"] = ["K08"]                        # needs Iron: the highest blue
    card = solo.decree("business_is_business")
    assert decrees.evaluate_option(s, card, card["options"][2], NoRandom()) == ("I2", None)
    s.wheel = ["W4", "G4"]                               # no blue: the highest light gray
    assert decrees.evaluate_option(s, card, card["options"][2], NoRandom()) == ("W4", None)


def test_greatest_need():
    s = solo_position(2, wheel=["W1", "W5", "G6", "I6"], decree_row=["family_alliances"])
    P.remove_tile(s, "K13")
    s.solo["contracts"] = ["K13"]                        # 3 Wool
    assert take(s) == "take W5"
    s.wheel = ["G2", "G6", "I6"]                          # no light gray: yellow
    assert take(s) == "take G6"


def test_new_crest_in_reach_depends_on_the_die():
    s = solo_position(1, wheel=["S1", "G6"], decree_row=["noblesse_oblige"])
    s.seats[0].architect = "London"
    P.set_map_bonus(s, "Antwerpen", ["B03"])            # 3 moves
    assert take(s) == "take S1"                      # 6 AP reach it
    P.set_map_bonus(s, "Antwerpen", [])
    P.set_map_bonus(s, "Hamburg", ["B03"])
    P.set_map_bonus(s, "Venezia", ["B05"])
    P.remove_tile(s, "B04")
    s.solo["inactive"] = ["B04"]                         # it has the lion already
    s.seats[0].merchant = "London"
    s.solo["decrees"] = ["noblesse_oblige", "worldly_riches"]
    assert C.distances["London"]["Hamburg"] == 5 and C.distances["London"]["Venezia"] == 9
    assert not decrees.condition_met(s, "new_crest_in_reach", "architect", "S1")
    assert take(s) == "take G6"                      # the lion is not new: Worldly Riches


def test_new_crest_in_offer_within_the_contract_ap():
    s = solo_position(1, wheel=["G4", "S5"], decree_row=["noblesse_oblige", "king_and_country"])
    assert value_on(s, "contract") == 4
    P.set_offer(s, "contract", ["K13", "K03", "K22", "K21", "K12"])
    assert take(s) == "take G4"                      # cup Crest in a 3-AP slot, 3 AP
    P.remove_tile(s, "B05")
    s.solo["inactive"] = ["B05"]                         # has the cup now
    assert take(s) == "take S5"                      # falls to King and Country


def test_joker_without_an_action_on_the_decree():
    """5c: the King if it is lower than the player, else Merchant with at least as many
    Pillars as Houses, else Architect."""
    s = solo_position(1, wheel=["G6", "S2"], decree_row=["worldly_riches"])
    assert wheel_action(s, 6) == "joker"
    bot, human = s.solo["bot"], s.solo["human"]
    s.king_pos[human] = s.king_pos[bot] + 1
    assert first(s)[:2] == ["take G6", "action king"]
    s.king_pos[human] = s.king_pos[bot]
    assert first(s)[:2] == ["take G6", "action architect"]   # 1 House, 0 Pillars
    pillar(s, 0, "Lyon")
    assert first(s, random.Random(0))[:2] == ["take G6", "action merchant"]
    # called at the joker stage (the batch was cut): the same rule
    s2 = apply(s, ["take G6"])
    assert s2.solo["stage"] == "joker" and take(s2) == "action merchant"


def test_joker_stage_reconstructs_the_decree_action():
    s = solo_position(4, wheel=["G4", "S3", "F1"], decree_row=["proud_pillars"])
    s2 = apply(s, ["take S3"])
    assert s2.solo["stage"] == "joker"
    assert take(s2) == "action architect"


def test_deep_coffers_gains_the_most_required_resource():
    s = solo_position(1, wheel=["G6", "S1"], decree_row=["proud_pillars"], challenges=["deep_coffers"])
    P.remove_tile(s, "K13")
    s.solo["contracts"] = ["K13"]
    moves = first(s)
    assert moves[:2] == ["take S1", "gain W"]


# --- Bonus tiles -----------------------------------------------------------------------------------

def _best(s, tiles):
    for t in tiles:
        P.remove_tile(s, t)
    s.map_bonus = {"Troyes": list(tiles)}
    return policy.best_tile(s, "Troyes", 0, NoRandom())


def test_bonus_tile_categories_in_order():
    s = solo_position(1)
    assert _best(s, ["B13", "B22", "B41", "B38", "B03"]) == "B03"       # Crest
    assert _best(s, ["B13", "B22", "B41", "B38"]) == "B38"              # Miscellaneous
    assert _best(s, ["B13", "B22", "B41"]) == "B41"                     # Resource/VP
    assert _best(s, ["B13", "B22"]) == "B22"                            # Action
    assert _best(s, ["B13"]) == "B13"


def test_crest_tie_breakers():
    s = solo_position(1)
    s.solo["inactive"] = ["B04"]
    P.remove_tile(s, "B04")
    assert _best(s, ["B03", "B05"]) == "B05"            # one it does not have
    P.put_in_storehouse(s, 1, "B06")                    # the player has a cup
    assert _best(s, ["B05", "B07"]) == "B07"            # one the player does not have
    assert _best(s, ["B03", "B38"]) == "B03"            # a Crest it has still ranks first


def test_resource_helper_tie_breakers():
    s = solo_position(1)
    assert _best(s, ["B41", "B45", "B46"]) == "B46"     # most VP (2)
    assert _best(s, ["B41", "B47", "B51"]) == "B51"     # most resources (4)
    assert _best(s, ["B41", "B49"]) == "B49"            # 3 each: most "any" icons


def test_action_helper_and_bonus_contract_tie_breakers():
    s = solo_position(1)
    assert _best(s, ["B19", "B22", "B36"]) == "B36"     # +3 AP
    P.set_res(s, 0, wool=2)
    assert _best(s, ["B13", "B16"]) == "B13"            # 0 missing vs 3
    assert _best(s, ["B15", "B16"]) == "B15"


# --- Architect: the Cathedral ----------------------------------------------------------------------

def _cathedral_setup(origin):
    s = solo_position(1)
    s.pillars = {t: [0] for t in C.cathedral_towns}     # all excluded unless freed below
    return s


def _free(s, *towns):
    for t in towns:
        s.pillars[t].remove(0)


def test_cathedral_highest_total_vp():
    s = _cathedral_setup("Strasbourg")
    set_cathedral(s, "London", "X9")
    _free(s, "Koeln", "Lyon")
    set_cathedral(s, "Koeln", "X8", "T04")              # 9 + 2
    set_cathedral(s, "Lyon", "X1", "T20")               # 2 + 6
    assert policy.best_cathedral(s, "Strasbourg", 2, NoRandom()) == "Koeln"


def test_cathedral_the_player_does_not_have_then_lower_stone_then_closer():
    s = _cathedral_setup("Strasbourg")
    set_cathedral(s, "London", "X9")
    _free(s, "Koeln", "Milano")
    set_cathedral(s, "Koeln", "X4", "T05")              # 3 Stone, 5 + 4
    set_cathedral(s, "Milano", "X5", "T21")             # 4 Stone, 6 + 3
    assert policy.cathedral_vp(s, "Koeln") == policy.cathedral_vp(s, "Milano")
    assert policy.best_cathedral(s, "Strasbourg", 2, NoRandom()) == "Koeln"     # lower Stone
    s.seats[1].cathedrals.append("T06")                  # the player has built (contributed to) Koeln
    assert policy.best_cathedral(s, "Strasbourg", 2, NoRandom()) == "Milano"    # player lacks it
    s = _cathedral_setup("Frankfurt")
    set_cathedral(s, "London", "X9")
    _free(s, "Koeln", "Praha")
    set_cathedral(s, "Koeln", "X3", "T05")              # 3 Stone, 4 + 4
    set_cathedral(s, "Praha", "X4", "T10")              # 3 Stone, 5 + 3
    assert C.distances["Frankfurt"]["Koeln"] == 1 and C.distances["Frankfurt"]["Praha"] == 2
    assert policy.best_cathedral(s, "Frankfurt", 3, NoRandom()) == "Koeln"      # closer


def test_cathedral_a_players_pillar_is_not_having_built_it():
    """Summary card, Architect Action: "Move to best Cathedral (highest VP > you haven't built it >
    lowest cost > closer)"; solo rules, Architect Action 3: "the Cathedral you do not yet have".
    Having it means having contributed to it (taken one of its Cathedral tiles), not having a
    Pillar there (issue 14, item 4)."""
    s = _cathedral_setup("London")
    set_cathedral(s, "Bordeaux", "X9")
    _free(s, "Koeln", "Paris")
    set_cathedral(s, "Koeln", "X3", "T05")              # 3 Stone, 4 + 4
    set_cathedral(s, "Paris", "X6", "T07")              # 4 Stone, 7 + 1
    assert policy.cathedral_vp(s, "Koeln") == policy.cathedral_vp(s, "Paris") == 8
    assert C.distances["London"]["Koeln"] == C.distances["London"]["Paris"] == 4
    pillar(s, 1, "Koeln")                                # a Pillar, but no Koeln tile
    assert policy.best_cathedral(s, "London", 4, NoRandom()) == "Koeln"         # lower cost
    assert policy.best_cathedral(s, "London", 1, NoRandom()) == "Koeln"         # out of reach too
    s.seats[1].cathedrals.append("T06")                  # now the player has built Koeln
    assert policy.best_cathedral(s, "London", 4, NoRandom()) == "Paris"


def test_cathedral_none_in_reach_closest():
    s = _cathedral_setup("London")
    set_cathedral(s, "Bordeaux", "X9")
    _free(s, "Koeln", "Wien")
    set_cathedral(s, "Koeln", "X1", "T04")
    set_cathedral(s, "Wien", "X8", "T17")
    assert C.distances["London"]["Koeln"] == 4 < C.distances["London"]["Wien"]
    assert policy.best_cathedral(s, "London", 1, NoRandom()) == "Koeln"
    assert policy.best_cathedral(s, "London", 8, NoRandom()) == "Wien"


def test_cathedral_ignores_the_unavailable_one_its_own_and_where_it_stands():
    s = _cathedral_setup("Strasbourg")
    set_cathedral(s, "Lyon", "X9")
    _free(s, "Lyon", "Koeln", "Paris")
    pillar(s, 1, "Koeln")                                # the player's Pillar does not exclude it
    s.seats[0].architect = "Paris"
    assert policy.cathedral_targets(s) == ["Koeln"]


# --- Merchant: where to go -------------------------------------------------------------------------

def test_merchant_town_tie_breakers():
    s = solo_position(2)
    s.fair_towns = ["Tiletum", "Frankfurt", "Hamburg", "Toulouse"]
    towns = ["Frankfurt", "Troyes", "Leipzig", "Lyon"]
    rng = NoRandom()
    assert policy.best_town(s, "Strasbourg", towns, 2, rng) == "Frankfurt"     # the next Fair
    s.fair_towns = ["Tiletum", "Toulouse", "Hamburg", "Frankfurt"]
    assert policy.best_town(s, "Strasbourg", towns, 2, rng) == "Troyes"        # printed VP
    # other reward
    assert policy.best_town(s, "Strasbourg", ["Frankfurt", "Leipzig", "Lyon"], 2, rng) == "Leipzig"
    assert policy.best_town(s, "Strasbourg", ["Frankfurt", "Lyon"], 2, rng) == "Frankfurt"  # closer
    # none in reach: closest
    assert policy.best_town(s, "Strasbourg", ["Lyon", "Toulouse"], 1, rng) == "Lyon"
    # the Fair, in reach
    assert policy.best_town(s, "Strasbourg", ["Lyon", "Toulouse"], 4, rng) == "Toulouse"


def test_merchant_relocation_beyond_its_gold_goes_to_the_closest():
    s = solo_position(1, gold=0)
    s.seats[0].merchant = "Strasbourg"
    house(s, 1, "Strasbourg")
    s.fair_towns = ["Tiletum", "Toulouse", "Hamburg", "Frankfurt"]
    s = start_action(s, "merchant", 1)
    # Frankfurt and Troyes at 1: printed VP
    assert first(s, random.Random(0))[:2] == ["merchant Troyes", "house"]


def test_merchant_final_move_within_reach():
    s = solo_position(1)
    s.seats[0].merchant = "Strasbourg"
    s.fair_towns = ["Tiletum", "Toulouse", "Hamburg", "Frankfurt"]
    s = start_action(s, "merchant", 2)
    moves = first(s)
    assert moves[0] == "house"
    # in reach 2 from Strasbourg: Troyes (1 VP) beats the Building-bonus Towns and the closer Frankfurt
    assert moves[1] == "merchant Troyes"


# --- Character -------------------------------------------------------------------------------------

def test_character_ignores_types_it_has_two_of_and_discards():
    s = solo_position(1)
    so = s.solo
    for t in ("C16", "C17", "C37", "C38"):
        P.remove_tile(s, t)
    so["columns"][0] = ["C16", "C17"]                   # two Character type
    so["columns"][1] = ["C37", None]
    so["supply"] = ["C38"]                               # and two King type, one in its supply
    P.set_offer(s, "character", ["C10", "C43", "C12", "C11", "C44"])
    s.box = sorted(s.box + s.piles["character"])
    s.piles["character"] = []                            # the discard brings the same five back
    s = start_action(s, "character", 2)
    assert take(s) == "place C38"
    s.solo["supply"], s.solo["columns"][1] = [], ["C37", "C38"]
    assert first(s) == ["discard"]                       # every tile is of a type it has two of
    s = apply(s, ["discard"])
    assert first(s) == ["skip", "end"]                   # once per action only


def test_character_prefers_the_leftmost_type_it_has_one_of_then_value():
    s = solo_position(1)
    so = s.solo
    for t in ("C37", "C19"):
        P.remove_tile(s, t)
    so["columns"][0] = ["C37", None]                    # King
    so["columns"][1] = ["C19", None]                    # Architect
    P.set_offer(s, "character", ["C28", "C25", "C43", "C40", "C10"])
    s = start_action(s, "character", 1)
    assert first(s) == ["char 3"]                        # King (leftmost column): C43 (2 VP) over C40 (1 AP)
    P.set_offer(s, "character", ["C28", "C25", "C26", "C10", "C11"])
    assert first(s) == ["char 3"]                        # Architect: C26 (2 Stone) over C25 (1)
    P.set_offer(s, "character", ["C28", "C16", "C10", "C12", "C33"])
    # only types it has none of: per type the higher value (C10 over C16, C12; C33 over C28), then random
    assert {first(s, random.Random(i))[0] for i in range(30)} == {"char 3", "char 5"}


# --- Contract --------------------------------------------------------------------------------------

def test_contract_crests_right_to_left():
    s = solo_position(1, iron=1)
    P.set_offer(s, "contract", ["K01", "K13", "K22", "K02", "K21"])
    s = start_action(s, "contract", 4)
    # the lion (2 AP); the eagle costs 3, 2 left: nothing ready; K21 misses 1 Wool; then Wool,
    # and the Tasks fulfil K21
    assert first(s) == ["contract 4", "contract 5", "gain W", "fulfil K21", "end"]


def test_contract_ready_ones_by_vp_then_cheaper_slot_and_no_step_c():
    s = solo_position(1, wool=12)
    # 4 VP, 2 VP, 11 VP, 5 VP, 7 VP (all Wool)
    P.set_offer(s, "contract", ["K13", "K12", "K16", "K19", "K15"])
    s = start_action(s, "contract", 6)
    moves = first(s)
    # 11 VP (slot 3, 2 AP) then 7 VP (slot 5, 1 AP) -- K16 7 + K15 5 = 12 Wool: nothing else ready
    assert moves[:2] == ["contract 3", "contract 5"]
    assert moves[2:5] == ["gain G", "gain G", "gain G"]  # no step C after step B took some
    s = solo_position(1, wool=3)
    P.set_offer(s, "contract", ["K21", "K13", "K07", "K12", "K26"])
    s = start_action(s, "contract", 3)
    assert take(s) == "contract 2"                  # K13 (4 VP), slot 2 (3 AP)
    s = solo_position(1, wool=2, iron=2)
    P.set_offer(s, "contract", ["K07", "K16", "K23", "K12", "K11"])
    s = start_action(s, "contract", 6)
    assert first(s)[:2] == ["contract 4", "contract 1"]  # 2 VP each: the cheaper slot first


def test_contract_step_c_needs_a_free_space_then_resources():
    s = solo_position(1)
    P.set_offer(s, "contract", ["K11", "K23", "K25", "K13", "K10"])
    P.remove_tile(s, "K07")
    P.remove_tile(s, "K08")
    s.solo["contracts"] = ["K07", "K08"]
    s = start_action(s, "contract", 2)
    assert first(s)[:2] == ["gain I", "gain I"]           # both spaces taken: no step C; Iron


def test_contract_step_c_ties_go_right():
    s = solo_position(1)
    P.set_offer(s, "contract", ["K11", "K12", "K07", "K21", "K13"])
    s = start_action(s, "contract", 2)
    # K12 (2 Wool), K07 (2 Iron), K21 (1+1) miss 2 each at 2 AP or less; rightmost affordable: slot 4
    assert take(s) == "contract 4"


# --- Tasks -----------------------------------------------------------------------------------------

def test_tasks_crest_under_a_full_column_else_leftmost():
    s = solo_position(1, food=6)
    so = s.solo
    for t in ("C16", "C17", "C37", "C38", "B03", "B05"):
        P.remove_tile(s, t)
    so["columns"][0] = ["C16", None]
    so["columns"][2] = ["C37", "C38"]
    so["inactive"] = ["B03", "B05"]
    start_tasks(s)
    moves = first(s)
    assert moves == ["crest B03 3", "crest B05 1", "end"]


def test_tasks_cathedral_most_vp_first_then_contracts_fewest_resources():
    s = solo_position(1, stone=10, wool=10, iron=10)
    set_cathedral(s, "London", "X9")
    set_cathedral(s, "Koeln", "X1", "T04")              # 2 + 2
    set_cathedral(s, "Lyon", "X3", "T20")               # 4 + 6
    pillar(s, 0, "Koeln")
    pillar(s, 0, "Lyon")
    for t in ("K23", "K12", "K08"):
        P.remove_tile(s, t)
    s.solo["contracts"] = ["K23", "K12"]
    start_tasks(s)
    assert first(s) == ["cathedral Lyon", "cathedral Koeln", "fulfil K12", "fulfil K23", "end"]


# --- interface -------------------------------------------------------------------------------------

def test_next_moves_does_not_change_its_state_and_is_reproducible():
    s, _ = tiletum.new_game(2, "pure", {"solo": {"level": "bishop"}})
    before = s.to_doc()
    a = policy.next_moves(s, random.Random(7))
    assert s.to_doc() == before
    assert policy.next_moves(s, random.Random(7)) == a


def test_state_from_view():
    from games.tiletum import view_doc
    for i in range(5):
        s, _ = tiletum.new_game(2, f"view-{i}", {"solo": {"level": "deacon"}})
        rng = random.Random(i)
        for _ in range(40 + 17 * i):
            moves = sorted(legal(s), key=str)  # legal() order depends on set hashing
            _, s = tiletum.play(s, s.actor, moves[rng.randrange(len(moves))], seed="v", trusted=True)
        while not (s.actor == s.solo["bot"] and s.phase == "action"):
            moves = sorted(legal(s), key=str)  # legal() order depends on set hashing
            _, s = tiletum.play(s, s.actor, moves[rng.randrange(len(moves))], seed="v", trusted=True)
        view = json.loads(json.dumps(view_doc(s, 1)))   # as the API serves it
        assert isinstance(view["piles"]["character"], int)
        t = policy.state_from_view(view)
        assert t.piles == {k: [] for k in s.piles} and t.corruption_pool == []
        assert policy.next_moves(t, random.Random(3)) == policy.next_moves(s, random.Random(3))


def test_requires_the_bots_decision():
    s, _ = tiletum.new_game(2, "x", {"solo": {"level": "priest"}})
    s = apply(s, policy.next_moves(s, random.Random(0)))
    while s.actor == s.solo["bot"]:
        s = apply(s, policy.next_moves(s, random.Random(0)))
    with pytest.raises(ValueError):
        policy.next_moves(s, random.Random(0))


# --- robustness ------------------------------------------------------------------------------------

def _bot_positions(n: int) -> list[tiletum.GameState]:
    found = []

    def collect(state, move, events, new):
        if new.solo and new.actor == new.solo["bot"] and new.phase == "action":
            found.append(new)

    i = 0
    out = []
    while len(out) < n:
        found.clear()
        random_game(2, f"policy-positions-{i}", options={"solo": {"level": "bishop"}}, on_move=collect)
        out.extend(found[::7][: n - len(out)])
        i += 1
    return out


def test_random_positions_give_legal_batches():
    positions = _bot_positions(200)
    stages = set()
    for k, s in enumerate(positions):
        stages.add(s.solo["stage"] if s.solo["stage"] != "action" else s.solo["act"]["action"])
        moves = policy.next_moves(s, random.Random(k))
        assert moves, "an empty batch"
        assert moves[0] in tiletum.legal_moves(s)
        apply(s, moves, seed=f"p{k}")
    assert stages == {"die", "coffers", "joker", "architect", "merchant", "character", "contract", "king",
                      "tasks"}


def play_game(seed: str, level: str):
    """The bot plays the policy, the player random legal moves; (final state, next_moves times)."""
    s, _ = tiletum.new_game(2, seed, {"solo": {"level": level}})
    bot_rng, human_rng = random.Random(seed), random.Random(seed + "/human")
    times = []
    for _ in range(20000):
        if s.phase == "over":
            break
        if s.actor == s.solo["bot"] and s.phase == "action":
            t0 = time.perf_counter()
            moves = policy.next_moves(s, bot_rng)
            times.append(time.perf_counter() - t0)
            for m in moves:
                _, s = tiletum.play(s, s.actor, m, seed=seed)
        else:
            moves = sorted(legal(s), key=str)  # legal() order depends on set hashing
            _, s = tiletum.play(s, s.actor, moves[human_rng.randrange(len(moves))], seed=seed, trusted=True)
    return s, times


@pytest.mark.slow
@pytest.mark.parametrize("level", ["priest", "deacon", "bishop"])
def test_full_games_against_a_random_player(level):
    scores, times = [], []
    for i in range(30):
        s, t = play_game(f"policy-{level}-{i}", level)
        assert s.phase == "over" and s.final is not None
        scores.append(s.seats[s.solo["bot"]].score)
        times.extend(t)
    print(f"\n{level}: Cardinalbot mean final score {statistics.mean(scores):.1f} over {len(scores)} games; "
          f"next_moves p50 {1000 * statistics.median(times):.3f} ms (n={len(times)})")
    assert statistics.mean(scores) > 10


def test_the_bots_picks_do_not_change_with_the_to_act_field_of_api_2():
    """API 2.0 added ``to_act`` to the served position (docs/api-changes.md); the bot keys its
    randomness on the position as served before, so it chooses exactly as it did."""
    from games.tiletum import view_doc
    from seats.runner import bot_rng
    from tiletum import new_game
    state, _ = new_game(2, "to-act-bot", {"solo": {"level": "deacon"}})
    view = view_doc(state, None)
    assert view["to_act"] == [state.actor]
    before = {k: v for k, v in view.items() if k != "to_act"}  # what API 1.0 served
    assert bot_rng("g1", view).random() == bot_rng("g1", before).random()
    assert policy.state_from_view(view).actor == policy.state_from_view(before).actor == state.actor
