"""The game's flow: setup, the end of a turn, and the phases between Action phases.

Rulebook: Game Setup; Playing the Game (Preparation, Action, King, Fair and Cleanup phases);
End of the Game and Final Scoring.
"""
from __future__ import annotations

from .board import (add_vp, building_completed, corruption, draw, fair_count, houses_on_map, king_ranking,
                    king_vp, pillars_on_map, reset_red, to_box, why_cannot_take)
from .components import ACTIONS, RES_INDEX, RES_LETTER, RESOURCES, components
from . import solo
from .effects import choice
from .state import GameState, PlayerState

DICE_COLOURS = tuple(RES_LETTER[r] for r in RESOURCES)  # a die's colour is named by its resource


def setup(players: int, options: dict, chance) -> GameState:
    """Set up a new game (rulebook: Game Setup, steps 1-15), then start round 1."""
    c = components()
    if players not in (2, 3, 4):
        raise ValueError("Tiletum is played by 2 to 4 players")
    if options.get("solo") is not None and players != 2:
        raise ValueError("a solo game has two seats: the Cardinalbot (seat 0) and the player (seat 1)")
    s = GameState()
    s.players = players
    s.options = dict(options)
    # 3. the Action tiles: printed order, or shuffled for variety
    if options.get("action_tiles", "printed") == "shuffled":
        left = sorted(ACTIONS)
        order = []
        while left:
            a = chance.choice("action-tile", left)
            left.remove(a)
            order.append(a)
        s.action_tiles = order
    else:
        s.action_tiles = list(c.action_tiles_printed)
    # 4. tiles for the player count; the rest go back to the box
    for pile in ("bonus", "contract", "character"):
        s.piles[pile] = c.tiles_for(pile, players)
    s.box = sorted(t for pile in ("bonus", "contract", "character") for t in c.pile_ids[pile]
                   if c.tiles[t].min_players > players)
    # 5. Bonus tiles: on the Action tiles, beside the King track, on the map
    s.action_bonus = {a: draw(s, "bonus", chance) for a in s.action_tiles}
    s.king_bonus = draw(s, "bonus", chance)
    for town in sorted(c.towns):
        n = c.bonus_space_count(town, players)
        if n:
            s.map_bonus[town] = [t for t in (draw(s, "bonus", chance) for _ in range(n)) if t is not None]
    # 6-7. Contract and Character offers
    s.contract_offer = [draw(s, "contract", chance) for _ in c.contract_offer_costs]
    s.character_offer = [draw(s, "character", chance) for _ in range(5)]
    # 8. Construction Cost tiles under the Cathedrals; Cathedral stacks sorted, highest on top
    costs = list(c.pile_ids["cost"])
    for town in c.cathedral_towns:
        t = chance.choice("cost-tile", costs)
        costs.remove(t)
        s.cathedral_cost[town] = t
    for town in c.cathedral_towns:
        stack = c.cathedral_stack(town)
        if c.tiles[s.cathedral_cost[town]].raw.get("unavailable"):
            s.box.extend(stack)
            stack = []
        s.cathedral_stack[town] = stack
    # 9. three Town tiles and four Fair tiles; Tiletum always holds the first Fair
    towns = list(c.pile_ids["town"])
    fair_towns = ["Tiletum"]
    for _ in range(3):
        t = chance.choice("town-tile", towns)
        towns.remove(t)
        fair_towns.append(t)
    fairs = list(c.pile_ids["fair"])
    fair_tiles = []
    for _ in range(4):
        t = chance.choice("fair-tile", fairs)
        fairs.remove(t)
        fair_tiles.append(t)
    s.fair_towns, s.fair_tiles = fair_towns, fair_tiles
    s.box.extend(towns)
    s.box.extend(fairs)
    s.box.sort()
    # 11. Corruption tokens: drawn face down when revealed, so the pool is all six
    s.corruption_pool = list(c.pile_ids["corruption"])
    # 12-14. seats in turn order (seat 0 is the first player), markers, pieces, resources
    s.turn_order = list(range(players))
    s.king_pos = [c.king_start] * players
    s.king_seq = list(range(1, players + 1))  # the first player's marker at the bottom
    s.king_counter = players
    s.houses = {"Tiletum": list(range(players))}
    for seat in range(players):
        p = PlayerState(seat)
        p.houses = c.houses_per_player - c.houses_on_roofs - 1
        p.pillars = c.pillars_per_player - sum(1 for x in c.contract_spaces if x.get("pillar"))
        for r, n in c.starting_resources.items():
            p.res[RES_INDEX[r]] += n
        p.res[0] += c.starting_gold[seat]
        s.seats.append(p)
    if options.get("solo") is not None:
        solo.setup_solo(s, options, chance)
    start_round(s, chance)
    return s


# --- rounds ------------------------------------------------------------------------------------

def start_round(s: GameState, chance) -> None:
    """Preparation phase, then the first step of the Action phase."""
    c = components()
    bag = sorted(d for d in DICE_COLOURS for _ in range(s.players))
    wheel = []
    for _ in range(c.dice_drawn[s.players]):
        colour = chance.choice("die-colour", bag)
        bag.remove(colour)
        wheel.append(f"{colour}{chance.roll('die-roll')}")
    s.wheel = sorted(wheel)
    s.phase = "action"
    s.cycle = 0
    s.turn_pos = 0
    reveal_corruption(s, chance)
    start_turn(s, chance)


def reveal_corruption(s: GameState, chance) -> None:
    token = chance.choice("corruption", s.corruption_pool)
    s.corruption_pool.remove(token)
    s.corruption_revealed.append(token)
    corruption(s, components().tiles[token].raw["value"])


def start_turn(s: GameState, chance) -> None:
    seat = s.turn_order[s.turn_pos]
    s.turn = {"seat": seat, "die": None, "exchanged": False, "override": None}
    s.agenda = []
    s.actor = seat
    if solo.is_bot(s, seat):
        solo.start_bot_turn(s, chance)


def end_turn(s: GameState, chance) -> None:
    """End of a turn: the Contract offer slides right and refills; the next turn or phase."""
    offer = [t for t in s.contract_offer if t is not None]
    empty = len(s.contract_offer) - len(offer)
    s.contract_offer = [draw(s, "contract", chance) for _ in range(empty)] + offer
    s.turn = None
    s.agenda = []
    s.turn_pos += 1
    if s.turn_pos == s.players:
        s.turn_pos = 0
        s.cycle += 1
        if s.cycle == 3:
            king_phase(s, chance)
            return
        reveal_corruption(s, chance)
    start_turn(s, chance)


def king_phase(s: GameState, chance) -> None:
    """King phase step 1: the highest marker takes (or discards) the Bonus tile, or scores 4 VP."""
    c = components()
    s.phase = "king"
    top = king_ranking(s)[0]
    tile = s.king_bonus
    if tile is None:
        add_vp(s.seats[top], c.king_last_round_vp)
    elif solo.is_bot(s, top):
        solo.king_tile(s, chance)
    elif why_cannot_take(s.seats[top], tile, s.rules) is None:
        s.agenda = [choice(top, "king_tile", tile=tile)]
        s.actor = top
        return
    else:
        to_box(s, tile)
        s.king_bonus = None
    king_phase_rest(s, chance)


def king_phase_rest(s: GameState, chance) -> None:
    """King phase scoring and turn order, the Fair phase, then Cleanup or the end of the game."""
    c = components()
    for seat in range(s.players):
        add_vp(s.seats[seat], king_vp(s, seat))
    fair = c.tiles[s.fair_tiles[s.round - 1]]
    if fair.raw["counts"] == "king_track":
        score_fair(s)  # "scored before resetting the King track" (Appendix: Fair tiles)
    s.turn_order = king_ranking(s)
    reset_red(s)
    if s.solo is not None:
        solo.king_reset(s)
    if fair.raw["counts"] != "king_track":
        score_fair(s)
    if s.solo is not None:
        s.solo["decrees"].pop(0)  # the Decree of the Fair just held leaves the row
    if s.round == 4:
        final_scoring(s)
        return
    cleanup(s, chance)
    s.round += 1
    start_round(s, chance)


def participates(s: GameState, seat: int, town: str) -> bool:
    """A House in the Fair town or the Merchant there (the Cardinalbot always participates)."""
    return seat in s.houses.get(town, ()) or s.seats[seat].merchant == town or solo.is_bot(s, seat)


def fair_vp(s: GameState, seat: int, rnd: int | None = None) -> int:
    """What a seat scores at the Fair of round ``rnd`` (default: this round), if it participates."""
    c = components()
    r = (rnd or s.round) - 1
    fair = c.tiles[s.fair_tiles[r]].raw
    per = c.fair_board_values[r] + fair["vp"]
    if fair["counts"] == "king_track":
        return per + king_vp(s, seat)
    if solo.is_bot(s, seat):
        return per * solo.fair_count(s, fair["counts"])
    return per * fair_count(s, s.seats[seat], fair["counts"])


def score_fair(s: GameState) -> None:
    town = s.fair_towns[s.round - 1]
    for seat in range(s.players):
        if participates(s, seat, town):
            add_vp(s.seats[seat], fair_vp(s, seat))
    s.fairs_scored += 1


def cleanup(s: GameState, chance) -> None:
    """Cleanup phase (skipped after round 4)."""
    for a in s.action_tiles:
        if s.action_bonus.get(a) is None:
            s.action_bonus[a] = draw(s, "bonus", chance)
    if s.round != 3 and s.king_bonus is None:
        s.king_bonus = draw(s, "bonus", chance)
    s.corruption_pool = sorted(s.corruption_pool + s.corruption_revealed)
    s.corruption_revealed = []
    s.wheel = []
    for p in s.seats:
        p.dice = []


def final_breakdown(s: GameState, p: PlayerState) -> dict:
    c = components()
    houses, pillars = houses_on_map(s, p.seat), pillars_on_map(s, p.seat)
    completed = sum(1 for b in range(len(p.crests)) if building_completed(p, b))
    res = sum(p.res)
    return {
        "houses": houses, "pillars": pillars, "houses_x_pillars": houses * pillars,
        "completed_buildings": completed, "buildings_vp": c.completed_buildings_vp[completed],
        "resources": res, "resources_vp": res // 4,
    }


def final_scoring(s: GameState) -> None:
    final = {}
    for p in s.seats:
        if solo.is_bot(s, p.seat):
            final[str(p.seat)] = solo.final_scoring(s)
            continue
        b = final_breakdown(s, p)
        b["before"] = p.score
        add_vp(p, b["houses_x_pillars"] + b["buildings_vp"] + b["resources_vp"])
        b["total"] = p.score
        final[str(p.seat)] = b
    s.final = final
    s.phase = "over"
    s.turn = None
    s.agenda = []
    s.actor = None
    # most VP wins; a tie goes to the one earlier in turn order
    s.winner = min(s.turn_order, key=lambda seat: (-s.seats[seat].score, s.turn_order.index(seat)))
    if s.solo is not None:  # the player wins only with strictly more VP than the Cardinalbot
        bot, human = s.solo["bot"], s.solo["human"]
        s.winner = human if s.seats[human].score > s.seats[bot].score else bot
