"""The Pillars of the Earth: the rules' own examples and rules as known values, each test citing
its section of shared/rules/pillars-of-the-earth.md (docs/pillars.md for the rulings)."""
from __future__ import annotations

import pytest

from pillars import rules
from pillars.chance import NoChance, RecordingChance, ReplayChance, SeededSource
from pillars.errors import NotationError, NotYourTurn
from pillars.game import check, decide, legal_moves, new_game, play
from pillars.notation import parse
from pillars.state import RI, cards, conserved

STEP = {f.__name__: i for i, f in enumerate(rules.STEPS)}
C = cards()


def fresh(players: int = 2):
    return new_game(players, "known-values")[0]


def give(s, seat, **cubes):
    """Cubes from the board's fields to a player (so the cube count stays the box's)."""
    for r, n in cubes.items():
        s.field[RI[r]] -= n
        s.res[seat][RI[r]] += n


def at_step(s, name):
    s.phase, s.step, s.queue = "actions", STEP[name], []
    s.event = s.event or "E04"


def seeded():
    """Draws from a test seed (for moves that may end the round and reveal the next one)."""
    return RecordingChance(SeededSource("test", 1))


def act(s, text, chance=None):
    """Play a legal move of the seat to act in place (what it reveals drawn from a test seed
    unless ``chance`` says)."""
    seat = s.actor
    assert check(s, seat, text) is None, check(s, seat, text)
    rules.apply(s, seat, parse(text), chance or RecordingChance(SeededSource("test", 1)))


# --- 13. Cathedral ---------------------------------------------------------------------------
def test_cathedral_example():
    """13. Cathedral, the example: 5 sand, 3 stone, 1 metal; potter 2 sand -> 2 VP, mortar mixer
    3 sand -> 1 VP, stonemason 2 stone -> 1 VP, architect 1 VP, tool maker 2 gold (metal kept):
    5 VP in all, 1 stone and the metal left."""
    s = fresh()
    s.craftsmen[0] = ["C06", "MM0", "SC0", "C08", "C04"]
    give(s, 0, sand=5, stone=3, metal=1)
    s.gold[0] = 10
    at_step(s, "step_cathedral")
    rules.run(s, seeded())
    assert s.queue == [["cathedral", 0]] and s.actor == 0
    vp = s.vp[0]
    for text in ("use C06 2", "use MM0 1", "use SC0 1", "use C08 1"):
        act(s, text)
    _, after = play(s, 0, "use C04 1", seed="x")   # the last conversion ends the round
    assert after.vp[0] == vp + 5
    assert after.gold[0] == 12
    assert after.res[0] == [1, 0, 0, 1]
    assert after.round == 2 and conserved(after) == C.cubes


def test_woodworker_capacity_and_formula():
    """THE CRAFTSMEN: the woodworker turns 2 wood into 1 VP, at most 4 times (8 wood -> 4 VP)."""
    s = fresh()
    give(s, 0, wood=10)
    at_step(s, "step_cathedral")
    rules.run(s, seeded())
    assert "use WW0 4" in legal_moves(s) and "use WW0 5" not in legal_moves(s)
    assert check(s, 0, "use WW0 5")[0] == "over-capacity"
    vp = s.vp[0]
    act(s, "use WW0 4")
    assert s.vp[0] == vp + 4 and s.res[0][RI["wood"]] == 2


@pytest.mark.parametrize("cid, cubes, n, vp, gold", [
    ("SC0", {"stone": 2}, 1, 1, 0),          # the starting stonecutter: 2 stone -> 1 VP
    ("C05", {"stone": 1}, 1, 1, 0),          # the mason: 1 stone -> 1 VP (with a mortar mixer)
    ("C12", {"stone": 1}, 1, 2, 0),          # the sculptor: 1 stone -> 2 VP
    ("C09", {"wood": 2}, 2, 0, 8),           # the master woodworker: 1 wood -> 4 gold, twice
    ("C10", {}, 4, 4, -12),                  # the goldsmith: 12 gold -> 4 VP
])
def test_craftsman_formulas(cid, cubes, n, vp, gold):
    """THE CRAFTSMEN: each named formula of the rules."""
    s = fresh()
    if cid not in s.craftsmen[0]:
        s.craftsmen[0] = ["MM0", "WW0", cid]
    give(s, 0, **cubes)
    s.gold[0] = 20
    at_step(s, "step_cathedral")
    rules.run(s, seeded())
    vp0 = s.vp[0]
    act(s, f"use {cid} {n}")
    assert s.vp[0] - vp0 == vp and s.gold[0] - 20 == gold
    assert sum(s.res[0]) == 0


def test_tool_maker_keeps_the_metal_and_needs_it():
    """THE CRAFTSMEN: the tool maker gives 2 gold to an owner with at least 1 metal, not consumed."""
    s = fresh()
    s.craftsmen[0] = ["WW0", "C04"]
    give(s, 0, metal=1, wood=2)
    s.gold[0] = 5
    at_step(s, "step_cathedral")
    rules.run(s, seeded())
    act(s, "use C04 1")
    assert s.gold[0] == 7 and s.res[0][RI["metal"]] == 1
    s2 = fresh()
    s2.craftsmen[0] = ["WW0", "C04"]
    give(s2, 0, wood=2)
    at_step(s2, "step_cathedral")
    rules.run(s2, NoChance())
    assert check(s2, 0, "use C04 1")[0] == "needs-metal"


def test_mason_needs_a_mortar_mixer():
    """Requirements for Craftsmen: without a mortar mixer, no VP with a mason."""
    s = fresh()
    s.craftsmen[0] = ["WW0", "SC0", "C05"]
    give(s, 0, stone=1, wood=2)
    at_step(s, "step_cathedral")
    rules.run(s, seeded())
    assert check(s, 0, "use C05 1")[0] == "needs-mortar-mixer"
    assert all(not m.startswith("use C05") for m in legal_moves(s))


def test_carry_over_limit():
    """13. Cathedral, note: no more than 5 resources carried over; the rest is discarded."""
    s = fresh()
    s.craftsmen[0] = ["C05"]   # a mason without a mortar mixer: nothing to convert with
    give(s, 0, sand=4, metal=3)
    at_step(s, "step_cathedral")
    rules.run(s, seeded())
    assert s.queue[0] == ["carry", 0]
    assert legal_moves(s) == ["drop metal", "drop sand"]
    act(s, "drop sand")
    _, after = play(s, 0, "drop sand", seed="x")
    assert sum(after.res[0]) == 5 and conserved(after) == C.cubes


# --- 12. Market -----------------------------------------------------------------------------
def test_market_example():
    """12. Kingsbridge Resource Market, the example, step by step (Green seat 0, Red seat 1)."""
    s = fresh()
    s.spots["market"] = [0, 1, None, None]
    s.gold = [7, 2]
    give(s, 0, metal=1)
    give(s, 1, stone=1)
    at_step(s, "step_market")
    rules.run(s, NoChance())
    assert s.actor == 0
    act(s, "buy wood 2")
    assert s.gold[0] == 1
    act(s, "sell stone 1")
    assert s.gold[1] == 6
    act(s, "sell metal 1")
    assert s.gold[0] == 6
    act(s, "buy wood 2")
    assert s.gold[1] == 0 and s.market[RI["wood"]] == 0
    assert check(s, 0, "buy wood 1")[0] == "market-sold-out"
    assert check(s, 0, "sell wood 1")[0] == "bought-and-sold"
    act(s, "buy sand 3")
    assert s.gold[0] == 0 and s.res[0][RI["sand"]] == 3
    act(s, "pass")     # Red passes
    assert s.actor == 0
    act(s, "pass")     # Green passes: the market is over, the Cathedral follows
    assert s.queue[0][0] in ("cathedral", "carry")
    assert conserved(s) == C.cubes


def test_market_requirements_and_metal():
    """Requirements for Craftsmen: no stone sold without a stonecutter, no wood bought without a
    woodworker; 12.: metal cannot be bought."""
    s = fresh()
    s.craftsmen[0] = ["MM0"]
    s.spots["market"] = [0, None, None, None]
    give(s, 0, stone=2)
    at_step(s, "step_market")
    rules.run(s, NoChance())
    assert check(s, 0, "sell stone 1")[0] == "needs-stonecutter"
    assert check(s, 0, "buy wood 1")[0] == "needs-woodworker"
    assert not any(m.startswith("buy metal") for m in legal_moves(s))
    with pytest.raises(NotationError):
        parse("buy metal 1")


# --- Phase II: master builders ---------------------------------------------------------------
def builders(players=2, bag=None, start=0):
    s = fresh(players)
    s.phase, s.start, s.cost, s.redraw_used = "builders", start, 7, False
    s.bag = sorted(bag if bag is not None else [x for x in range(players) for _ in range(3)])
    s.gold = [30] * players
    return s


def test_pass_moves_the_cost_marker():
    """Phase II, example: Red passed at 7 gold; the cost marker moves to 6."""
    s = builders()
    s.redraw_used = True
    rules.draw_builder(s, ReplayChance([["builder", 1]]))
    assert s.actor == 1 and s.cost == 7
    act(s, "pass", ReplayChance([["builder", 0]]))
    assert s.cost == 6 and s.passers == [1]
    act(s, "place priory", ReplayChance([["builder", 1]]))
    assert s.gold[0] == 24 and s.cost == 5


def test_cost_curve_seven_down_to_free():
    """Phase II: 7 gold for the first placement, 6 for the second, ... 1 for the seventh, then free."""
    s = builders(4)
    s.redraw_used = True
    paid = []
    order = [0, 1, 2, 3] * 3
    rules.draw_builder(s, ReplayChance([["builder", order[0]]]))
    for k in range(12):
        seat = s.actor
        before = s.gold[seat]
        move = next(m for m in legal_moves(s) if m.startswith("place"))
        nxt = [["builder", order[k + 1]]] if k < 11 else [["event", "E04"]]
        rules.apply(s, seat, parse(move), ReplayChance(nxt))
        paid.append(before - s.gold[seat])
    assert paid[:7] == [7, 6, 5, 4, 3, 2, 1] and set(paid[7:]) == {0}


def test_passed_builders_placed_free_in_pass_order():
    """Phase II, example: Red passed first, then Blue, then Red again: Red places first (free),
    then Blue, then Red."""
    s = builders(2, bag=[])
    s.passers = [1, 0, 1]
    gold = list(s.gold)
    rules.draw_builder(s, NoChance())
    assert s.phase == "placing"
    seen = []
    for text in ("place priory", "place priory"):
        seen.append(s.actor)
        act(s, text, NoChance())
        assert s.gold == gold            # placed for free
    assert s.spots["priory"] == [1, 0]
    seen.append(s.actor)
    act(s, "place cathedral", seeded())   # the last one: phase III runs to the round's end
    assert seen == [1, 0, 1] and s.start == 1


def test_start_player_redraws_once():
    """Phase II, attention: once per round the start player may return a drawn builder and draw again."""
    s = builders(3, start=0)
    rules.draw_builder(s, ReplayChance([["builder", 2]]))
    assert s.actor == 0 and sorted(legal_moves(s)) == ["keep", "redraw"]
    act(s, "redraw", ReplayChance([["builder", 1]]))
    assert s.drawn == 1 and s.actor == 1 and s.redraw_used and len(s.bag) == 8
    assert "redraw" not in legal_moves(s)


def test_two_players_cost_zero_after_six_draws():
    """Phase II, important: in a 2-player game the cost marker goes to 0 once all 6 are drawn."""
    s = builders(2, bag=[1])
    s.redraw_used = True
    s.passers = [0]
    rules.draw_builder(s, ReplayChance([["builder", 1]]))
    act(s, "pass")
    assert s.cost == 0 and s.phase == "placing"


def test_event_limits_builders_next_round():
    """Phase II, attention: after the event, only 2 master builders of each colour are played."""
    s = fresh(3)
    s.event = "E02"
    s.protected = [2]
    rules.step_apply_event(s, NoChance())
    assert s.limit_next == [2, 2, 3]


def test_placing_costs_gold_you_have():
    s = builders(2)
    s.redraw_used = True
    s.gold = [3, 3]
    rules.draw_builder(s, ReplayChance([["builder", 0]]))
    assert check(s, 0, "place priory")[0] == "not-enough-gold"
    assert legal_moves(s) == ["pass"]


# --- Phase I -------------------------------------------------------------------------------
def test_phase_one_workers_and_gold():
    """Phase I: a resource card needs its workers; a craftsman costs his gold; with 5 craftsmen
    one must go; a craftsman may be paid for and discarded at once."""
    s = fresh()
    s.pool = ["C01", "sand2", "stone4", "wood4"]
    s.taken[0] = ["stone4"]            # 10 of the 12 workers are in the quarry
    assert check(s, 0, "take wood4")[0] == "not-enough-workers"
    assert check(s, 0, "take sand2") is None
    s.gold[0] = 3
    assert check(s, 0, "take C01")[0] == "not-enough-gold"
    s.gold[0] = 20
    s.craftsmen[0] = ["MM0", "WW0", "SC0", "C05", "C06"]
    assert check(s, 0, "take C01")[0] == "craftsmen-full"
    assert check(s, 0, "take C01 discard C09")[0] == "no-such-craftsman"
    act(s, "take C01 discard C06")
    assert s.craftsmen[0] == ["MM0", "WW0", "SC0", "C05", "C01"] and s.gold[0] == 16
    s.craftsmen[1] = ["MM1"]
    s.pool = ["C03", "sand2"]
    assert check(s, 1, "take C03 discard MM1")[0] == "discard-needless"
    act(s, "take C03 discard C03")
    assert s.craftsmen[1] == ["MM1"] and "C03" not in s.pool


def test_wool_mill_takes_unused_workers():
    """Phase I: the workers not on cards go to the wool mill; 3. Wool Mill: 1 gold each, gold
    capped at 30."""
    s = fresh()
    s.pool = ["sand2"]
    s.gold = [29, 10]
    act(s, "take sand2", ReplayChance([["builder", 0]] + [["builder", 0]] * 0))
    assert s.phase == "builders" and s.wool == [10, 12]
    s.event = "E04"
    rules.step_wool(s, NoChance())
    assert s.gold == [30, 22]


# --- Phase III -------------------------------------------------------------------------------
def test_event_pay_four_gold_shortfall():
    """1. Reveal the top event card, note: pay 4 gold; 1 VP for every 2 gold short, odd amounts
    rounded down; the Archbishop's protected player pays nothing."""
    s = fresh(3)
    s.gold = [1, 0, 2]
    s.vp = [5, 5, 5]
    s.event = "E01"
    s.protected = [2]
    rules.step_apply_event(s, NoChance())
    assert s.gold == [0, 0, 2] and s.vp == [4, 3, 5]


def test_archbishop_protects_or_collects():
    """2. Archbishop's Office: protection from a negative event, or a resource from the market."""
    s = fresh()
    s.spots["archbishop"] = [1]
    at_step(s, "step_event")
    rules.run(s, ReplayChance([["event", "E06"]]))
    assert s.actor == 1 and "protect" in legal_moves(s) and "collect stone" in legal_moves(s)
    vp = list(s.vp)
    act(s, "protect")          # the round goes on to its end: taxes (all can pay), no conversions
    assert s.vp == [max(0, vp[0] - 2), vp[1]] and s.round == 2
    s = fresh()
    s.spots["archbishop"] = [0]
    at_step(s, "step_event")
    rules.run(s, ReplayChance([["event", "E04"]]))
    assert "protect" not in legal_moves(s)
    act(s, "collect stone")
    assert s.res[0][RI["stone"]] == 1 and conserved(s) == C.cubes


def test_taxes_king_court_and_metal():
    """9. King's Court: the die sets the tax; the King's Court builders pay nothing, the first
    takes the metal; 2 gold short cost 1 VP, odd amounts rounded down."""
    s = fresh()
    s.spots["king"] = [1, None]
    s.gold = [2, 0]
    s.vp = [4, 4]
    rules.step_taxes(s, ReplayChance([["tax", 5]]))
    rules.step_metal(s, NoChance())
    assert s.tax == 5 and s.gold == [0, 0] and s.vp == [3, 4]
    assert s.res[1][RI["metal"]] == 1 and s.king_metal == 0 and conserved(s) == C.cubes


def test_no_taxes_privilege_is_asked_and_spent():
    """THE PRIVILEGE CARDS: "in any one round of your choice, you pay no taxes" (once)."""
    s = fresh()
    s.privileges[0] = ["P04"]
    s.gold = [10, 10]
    at_step(s, "step_taxes")
    rules.run(s, ReplayChance([["tax", 4]]))
    assert s.queue[0] == ["taxes", 0] and set(legal_moves(s)) == {"decline", "privilege P04"}
    act(s, "privilege P04")
    assert s.gold[0] == 10 and s.gold[1] == 6 and s.privileges[0] == []


def test_kingsbridge_and_priory():
    """4. Kingsbridge: each builder takes its privilege, immediate ones act at once; 5. Priory:
    2 VP for the first spot, 1 for the second."""
    s = fresh()
    s.kingsbridge = ["P05", "P01"]
    s.spots["kingsbridge"] = [1, 0]
    s.spots["priory"] = [0, 1]
    s.gold = [10, 25]
    vp = list(s.vp)
    rules.step_kingsbridge(s, NoChance())
    rules.step_priory(s, NoChance())
    assert s.gold[1] == 30 and s.privileges[0] == ["P01"] and s.vp == [vp[0] + 2, vp[1] + 1]
    s.taken[0] = ["wood3"]
    rules.step_production(s, NoChance())
    assert s.res[0][RI["wood"]] == 4 and s.taken[0] == []


def test_shiring_with_five_craftsmen():
    """10. Shiring: the craftsman is free; with 5 already, one leaves (the new one may)."""
    s = fresh()
    s.shiring = ["C05", "C06"]
    s.spots["shiring"] = [0, None]
    s.craftsmen[0] = ["MM0", "WW0", "SC0", "C01", "C02"]
    at_step(s, "step_shiring")
    rules.run(s, NoChance())
    assert s.queue[0] == ["shiring", 0, "C05"] and "discard C05" in legal_moves(s)
    gold = s.gold[0]
    act(s, "discard C01")
    assert s.craftsmen[0] == ["MM0", "WW0", "SC0", "C02", "C05"] and s.gold[0] == gold


def test_start_player_change():
    """14. Change starting player: the Cathedral's builder, else the next seat clockwise."""
    s = fresh(3)
    s.spots["cathedral"] = [2]
    at_step(s, "step_end")
    p1, p2 = s.privilege_deck[:2]
    draws = [["privilege", p1], ["privilege", p2], ["shiring", "C05"], ["shiring", "C06"],
             ["aside", "sand2"], ["aside", "wood2"]]
    rules.run(s, ReplayChance(draws))
    assert s.start == 2 and s.actor == 2 and s.round == 2
    assert s.kingsbridge == [p1, p2] and s.shiring == ["C05", "C06"] and "C07" in s.pool
    assert len(s.pool) == 9 and "sand2" not in s.pool
    s.phase, s.step, s.queue = "actions", STEP["step_end"], []
    p1, p2 = s.privilege_deck[:2]
    rules.run(s, ReplayChance([["privilege", p1], ["privilege", p2], ["shiring", "C09"],
                               ["shiring", "C10"], ["aside", "sand2"], ["aside", "wood2"]]))
    assert s.start == 0


def test_last_round_privileges_and_game_end():
    """Privilege cards, attention: round 6 shows the two last-round cards; GAME END: most VP,
    then most gold, else a shared win."""
    s = fresh(3)
    s.round = 5
    at_step(s, "step_end")
    s.stack = [x for x in s.stack if C.craftsmen[x]["round"] == 6]
    draws = [["shiring", "C21"], ["shiring", "C22"], ["aside", "sand2"], ["aside", "wood2"]]
    rules.run(s, ReplayChance(draws))
    assert s.round == 6 and s.kingsbridge == ["P15", "P16"]
    s.vp, s.gold = [10, 12, 12], [5, 3, 9]
    rules.finish(s)
    assert s.winners == [2] and s.phase == "over" and legal_moves(s) == []
    s.gold = [5, 9, 9]
    rules.finish(s)
    assert s.winners == [1, 2]


def test_not_your_turn_and_game_over():
    s = fresh()
    with pytest.raises(NotYourTurn) as e:
        decide(s, 1, "pass", seed="x")
    assert e.value.code == "not-your-turn"


# --- privileges and events (reconstructed cards: docs/pillars.md, Card data) --------------------
def test_patrons_act_every_round():
    """THE PRIVILEGE CARDS, type 1: the black worker (P06), the carry-over patron (P10), the wool
    mill patron (P11), the master builder patron (P14)."""
    s = fresh()
    s.privileges[0] = ["P06", "P10", "P11", "P14"]
    s.grey[0] = 2
    assert s.workers(0) == 12 + 2 + 1 and rules.carry_limit(s, 0) == 7 and rules.carry_limit(s, 1) == 5
    s.event, s.wool, s.gold = "E04", [3, 3], [10, 10]
    rules.step_wool(s, NoChance())
    assert s.gold == [14, 13]
    b = builders(2)
    b.privileges[0] = ["P14"]
    b.redraw_used = True
    rules.draw_builder(b, ReplayChance([["builder", 0]]))
    act(b, "place priory", ReplayChance([["builder", 1]]))
    assert b.gold[0] == 30 - 6


def test_castle_workers_come_next_round():
    """11. Shiring Castle: 2 grey workers for the next round, returned after it."""
    s = fresh()
    s.spots["castle"] = [1]
    rules.step_castle(s, NoChance())
    assert s.grey_next == [0, 2] and s.workers(1) == 12
    at_step(s, "step_end")
    rules.run(s, seeded())
    assert s.grey == [0, 2] and s.workers(1) == 14 and s.grey_next == [0, 0]


def test_protection_privilege_and_craftsman_loss_event():
    """2. Archbishop's Office, note: a craftsman lost to an event leaves the game; the once-only
    protection privilege (P09) spares its holder, who decides when the event is seen."""
    s = fresh()
    s.privileges[1] = ["P09"]
    s.craftsmen[0] = ["MM0", "WW0", "SC0", "C01"]
    s.craftsmen[1] = ["MM1", "WW1", "SC1", "C02"]
    at_step(s, "step_event")
    s.event = None
    rules.run(s, ReplayChance([["event", "E03"]]))
    assert s.queue[0] == ["protection", 1] and set(legal_moves(s)) == {"decline", "privilege P09"}
    act(s, "privilege P09", NoChance())
    assert s.queue[0] == ["lose", 0] and s.actor == 0 and s.privileges[1] == []
    assert "discard C01" in legal_moves(s)
    act(s, "discard C01", seeded())
    assert s.craftsmen[0] == ["MM0", "WW0", "SC0"] and len(s.craftsmen[1]) == 4


@pytest.mark.parametrize("event, check_after", [
    ("E04", lambda s, g, v, r: s.gold == [min(30, x + 3) for x in g]),
    ("E05", lambda s, g, v, r: s.vp == [x + 2 for x in v]),
    ("E06", lambda s, g, v, r: s.vp == [max(0, x - 2) for x in v]),
    ("E07", lambda s, g, v, r: [x[1] for x in s.res] == [max(0, x[1] - 1) for x in r]),
    ("E08", lambda s, g, v, r: [x[2] for x in s.res] == [x[2] + 1 for x in r]),
    ("E10", lambda s, g, v, r: [x[0] for x in s.res] == [x[0] + 1 for x in r]),
])
def test_events_act_on_everyone(event, check_after):
    s = fresh(3)
    give(s, 0, wood=2)
    s.vp = [1, 5, 3]
    s.event = event
    g, v, r = list(s.gold), list(s.vp), [x[:] for x in s.res]
    rules.step_apply_event(s, NoChance())
    assert check_after(s, g, v, r) and conserved(s) == C.cubes


def test_wool_mill_event():
    s = fresh()
    s.event, s.wool, s.protected = "E09", [4, 4], [1]
    g = list(s.gold)
    rules.step_wool(s, NoChance())
    assert s.gold == [g[0], g[1] + 4]


def test_immediate_privileges():
    """THE PRIVILEGE CARDS, type 3: used at once and discarded (8 gold; round 6's metal, stone and wood)."""
    s = fresh()
    s.kingsbridge = ["P15", "P16"]
    s.spots["kingsbridge"] = [0, 0]
    rules.step_kingsbridge(s, NoChance())
    assert s.res[0] == [1, 1, 0, 1] and s.privileges[0] == [] and conserved(s) == C.cubes
