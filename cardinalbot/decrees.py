"""Which die the Cardinalbot takes: the Decree cards (solo rules, "On the Cardinalbot's Turn",
steps 3 and 5c).

Pure functions of a position. ``choose_die`` walks the Decree row from the card the bot stands
on (``solo["decree_pos"]``), each card's options top to bottom, and returns the die to take with
the Action the bot resolves if that die is a Joker die taken for an Action option (step 5b).

Readings of what the cards leave open (see also ``policy.py``):

* An Action option matches the dice on that Action this round and the dice on the Joker Action.
  The section is chosen first (the Joker when its AP >= the regular section's AP, step 3e), then
  the colour within it by the card's die priority (step 3d): all dice of one section share a
  value, so colour is the only thing left to decide there.
* The blue/light-gray icon ("IW") means the one of Iron/Wool the bot needs more of for its
  unfulfilled Contracts (``tiletum.solo.contract_need``), the other one right after it. With no
  Contracts, or an equal need, the two are tied: the resource it has fewer of, then random.
  Colours a card does not list come after the listed ones, tied among themselves.
* "Highest blue or light-gray die": the highest die of the needed colour of the two, else of the
  other one. "Highest die of any colour" (Worldly Riches): the highest value; ties by the most
  required resource, then the one it has fewer of, then random.
* "Die of greatest need" (blue/light-gray or yellow, with unfulfilled Contracts): the highest die
  of the Iron/Wool colour it needs more of; else of the other one if it still needs some of it;
  else the highest yellow die (Gold pays 2 per missing Iron/Wool and the "identical" parts).
* "New Crest in reach": a Crest Bonus tile on the map of a family the bot has neither active nor
  inactive, at most as many spaces from its Architect/Merchant as the AP the candidate die gives
  that Action. "New Crest in the offer": such a Crest in the Contract offer whose slot costs no
  more than the candidate die's Contract AP.
"""
from __future__ import annotations

import random

from tiletum import solo
from tiletum.actions import wheel_action
from tiletum.board import has_crest, houses_on_map, pillars_on_map
from tiletum.components import components
from tiletum.state import GameState

LETTERS = "GFWSI"


# --- small helpers shared with policy.py ---------------------------------------------------------

def bot_seat(s: GameState):
    return s.seats[s.solo["bot"]]


def human_seat(s: GameState):
    return s.seats[s.solo["human"]]


def stock(s: GameState, letter: str) -> int:
    return bot_seat(s).res[LETTERS.index(letter)]


def pick(items: list, key, rng: random.Random):
    """The item with the smallest key; several with that key: a random one (the rules' "pick
    randomly after all tie-breakers"). ``rng`` is only used when there is a real tie."""
    if not items:
        return None
    keyed = [(key(x), x) for x in items]
    low = min(k for k, _ in keyed)
    best = sorted({str(x): x for k, x in keyed if k == low}.items())
    if len(best) == 1:
        return best[0][1]
    return rng.choice(best)[1]


def iw_groups(s: GameState) -> list[list[str]]:
    """The blue/light-gray icon as preference groups: [[needed], [other]] or [["I", "W"]]."""
    if s.solo["contracts"]:
        need = solo.contract_need(s)
        if need["I"] > need["W"]:
            return [["I"], ["W"]]
        if need["W"] > need["I"]:
            return [["W"], ["I"]]
    return [["I", "W"]]


def colour_rank(s: GameState, priority: list[str] | None) -> dict[str, int]:
    """Letter -> rank (lower is preferred) for a card's die priority."""
    groups: list[list[str]] = []
    for entry in priority or ():
        if entry == "IW":
            groups.extend(iw_groups(s))
        else:
            groups.append([entry])
    rank = {}
    for i, g in enumerate(groups):
        for letter in g:
            rank.setdefault(letter, i)
    return {x: rank.get(x, len(groups)) for x in LETTERS}


def die_value(die: str) -> int:
    return int(die[1])


def die_ap(s: GameState, die: str, action: str) -> int:
    """The AP a die gives ``action`` (for a Joker die: the AP resolved as that Action)."""
    return 7 - die_value(die) + bot_seat(s).ap_bonus.get(action, 0)


# --- conditions ----------------------------------------------------------------------------------

def new_crests_on_map(s: GameState) -> list[tuple[str, str]]:
    """(town, tile) of the map's Crest Bonus tiles of families the bot does not have."""
    tiles = components().tiles
    return [(town, t) for town, ts in sorted(s.map_bonus.items()) for t in ts
            if tiles[t].kind == "crest" and not solo.bot_has_crest(s, tiles[t].raw["crest"])]


def crest_in_reach(s: GameState, action: str, ap: int) -> bool:
    bot = bot_seat(s)
    origin = bot.architect if action == "architect" else bot.merchant
    dist = components().distances[origin]
    return any(dist[town] <= ap for town, _ in new_crests_on_map(s))


def crest_in_offer(s: GameState, ap: int) -> bool:
    c = components()
    return any(t is not None and c.tiles[t].kind == "crest"
               and not solo.bot_has_crest(s, c.tiles[t].raw["crest"])
               and c.contract_offer_costs[i] <= ap for i, t in enumerate(s.contract_offer))


def condition_met(s: GameState, cond: str | None, action: str | None = None, die: str | None = None) -> bool:
    if cond is None:
        return True
    seat = s.solo["bot"]
    if cond == "pillars_gt_houses":
        return pillars_on_map(s, seat) > houses_on_map(s, seat)
    if cond == "houses_ge_pillars":
        return houses_on_map(s, seat) >= pillars_on_map(s, seat)
    if cond == "pillars_gt_cathedrals":
        return pillars_on_map(s, seat) > len(bot_seat(s).cathedrals)
    if cond == "has_unfulfilled_contract":
        return bool(s.solo["contracts"])
    if cond == "new_crest_in_reach":
        return action in ("architect", "merchant") and crest_in_reach(s, action, die_ap(s, die, action))
    if cond == "new_crest_in_offer":
        return crest_in_offer(s, die_ap(s, die, action or "contract"))
    raise ValueError(f"unknown Decree condition {cond!r}")


PER_DIE = ("new_crest_in_reach", "new_crest_in_offer")


# --- options ------------------------------------------------------------------------------------

def _action_option(s: GameState, card: dict, opt: dict, rng) -> tuple[str, str | None] | None:
    action = opt["action"]
    cond = opt.get("condition")
    dice = sorted(set(s.wheel))
    regular = [d for d in dice if wheel_action(s, die_value(d)) == action]
    joker = [d for d in dice if wheel_action(s, die_value(d)) == "joker"]
    if cond in PER_DIE:
        regular = [d for d in regular if condition_met(s, cond, action, d)]
        joker = [d for d in joker if condition_met(s, cond, action, d)]
    elif not condition_met(s, cond):
        return None
    if not regular and not joker:
        return None
    use_joker = bool(joker) and (not regular or die_ap(s, joker[0], action) >= die_ap(s, regular[0], action))
    group = joker if use_joker else regular
    rank = colour_rank(s, card.get("die_priority"))
    die = pick(group, lambda d: (rank[d[0]], stock(s, d[0])), rng)
    return die, (action if use_joker else None)


def _highest_option(s: GameState, card: dict, opt: dict, rng) -> tuple[str, None] | None:
    if not condition_met(s, opt.get("condition")):
        return None
    dice = sorted(set(s.wheel))
    spec = opt["highest"]
    if spec == "any":
        if not dice:
            return None
        need = set(solo.most_required(s))
        return pick(dice, lambda d: (-die_value(d), d[0] not in need, stock(s, d[0])), rng), None
    groups = iw_groups(s) if spec == "IW" else [[spec]]
    for g in groups:
        mine = [d for d in dice if d[0] in g]
        if mine:
            return pick(mine, lambda d: (-die_value(d), stock(s, d[0])), rng), None
    return None


def _need_option(s: GameState, card: dict, opt: dict, rng) -> tuple[str, None] | None:
    if not condition_met(s, opt.get("condition")):
        return None
    if opt["greatest_need"] != "IW|G":
        raise ValueError(f"unknown greatest_need {opt['greatest_need']!r}")
    need = solo.contract_need(s)
    groups = [g for g in iw_groups(s) if any(need[x] > 0 for x in g)] + [["G"]]
    dice = sorted(set(s.wheel))
    for g in groups:
        mine = [d for d in dice if d[0] in g]
        if mine:
            return pick(mine, lambda d: (-die_value(d), stock(s, d[0])), rng), None
    return None


def evaluate_option(s: GameState, card: dict, opt: dict, rng) -> tuple[str, str | None] | None:
    """The die this option takes (and the Action for a Joker die), or None if it fails."""
    if "action" in opt:
        return _action_option(s, card, opt, rng)
    if "highest" in opt:
        return _highest_option(s, card, opt, rng)
    if "greatest_need" in opt:
        return _need_option(s, card, opt, rng)
    raise ValueError(f"Decree option without a specification: {opt}")


def choose_die(s: GameState, rng: random.Random) -> tuple[str, str | None, str, int]:
    """(die, Joker intent or None, Decree card id, option index) for the ``die`` stage."""
    so = s.solo
    row = so["decrees"]
    for card_id in row[min(so["decree_pos"], len(row) - 1):]:
        card = solo.decree(card_id)
        for i, opt in enumerate(card["options"]):
            got = evaluate_option(s, card, opt, rng)
            if got is not None:
                return got[0], got[1], card_id, i
    # not reachable while Worldly Riches ends the row and a die is left; keep the bot moving
    dice = sorted(set(s.wheel))
    return pick(dice, lambda d: (-die_value(d), stock(s, d[0])), rng), None, "", -1


def joker_default(s: GameState) -> str:
    """Step 5c: a Joker die taken without an Action on the Decree."""
    bot, human = s.solo["bot"], s.solo["human"]
    if s.king_pos[bot] < s.king_pos[human]:
        return "king"
    return "merchant" if pillars_on_map(s, bot) >= houses_on_map(s, bot) else "architect"


def human_has_crest(s: GameState, family: str) -> bool:
    return has_crest(human_seat(s), family)
