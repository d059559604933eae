"""The Cardinalbot's decision policy (solo rulebook, from "Cardinalbot's Turn"): pure functions
from a position to the bot's next moves in notation.

The engine (``tiletum/solo.py``) checks and applies the bot's moves; this module only decides
which ones, following the solo rules: the Decree cards for the die (``decrees.py``), then the
Action's steps, then the Tasks. ``rng`` is used only where the rules say "pick randomly" after
every tie-breaker.

Readings of what the rules leave open (also listed in ``decrees.py``):

* Bonus tiles: all Crests rank first (a new one before one it has, then one the player does not
  have): the table's tie-breaker "Crests it does not have > Crests you do not have" ranks the
  Crests it has too (taking one removes it from the game, denying it to the player; the engine
  also makes the bot take a tile whenever one is in reach). Resource/VP Helpers:
  most VP, then most resources ("any" icons included), then most "any" icons. Bonus Contracts:
  fewest missing resources (as for the Contract action).
* Missing resources of a Contract: the Iron/Wool it lacks in stock (no Gold substitution), plus
  the part of the "identical" cost not covered by its largest stock it may spend on it.
* Cathedral target: Cathedrals without its Pillar, not the unavailable one and not where the
  Architect stands (with two players such a Cathedral always has a free Pillar space: two spaces,
  one player). The tie-breaker "you haven't built it" (rulebook: "the Cathedral you do not yet
  have") prefers a Cathedral the player has not contributed to (no Cathedral tile taken from it);
  a Pillar of the player's there does not count as having it. Merchant targets: the "printed VP reward"
  tie-breaker compares the VP of the next empty House space (more is better); the "upcoming Fair" is the next
  Fair not yet held.
* Character action: several tiles in its supply are placed oldest first. A Character's printed
  "value" is the sum of the numbers on its bonus (a move-and-place counts 2, a place 1), compared
  only between tiles of the same type; tiles of types it has none of are otherwise tied.
* Contract action: steps A-D in order within one action (a Crest, the ready Contracts, one
  Contract only if step B took none, then resources); they never cross a reveal, so the whole
  action is one batch.
* Tasks: an inactive Crest goes under the leftmost column with two Characters and no Crest, else
  the leftmost column without a Crest; Cathedrals by total VP (cost tile + top tile); Contracts
  fewest resources first.
"""
from __future__ import annotations

import os
import random

from tiletum import solo, solo_turn
from tiletum.board import free_house_spaces
from tiletum.components import components
from tiletum.notation import parse
from tiletum.state import GameState

from .decrees import (LETTERS, bot_seat, choose_die, die_value, human_has_crest, joker_default, pick)

STRICT = bool(os.environ.get("CARDINALBOT_STRICT"))  # tests: an illegal planned move raises
REVEALING = ("char", "discard", "end")                # draws a refill / ends the turn
MAX_BATCH = 100                                       # a turn is a few dozen moves at most


class _Revealed(Exception):
    pass


class _Probe:
    """A chance source for planning: any draw or roll means the move reveals something."""

    def choice(self, kind, population):
        raise _Revealed(kind)

    def roll(self, kind):
        raise _Revealed(kind)


# --- the interface -------------------------------------------------------------------------------

def next_moves(state: GameState, rng: random.Random) -> list[str]:
    """The Cardinalbot's next moves in notation, to submit as one batch. Requires
    state.solo and state.actor == state.solo['bot'] and state.phase == 'action'.
    The batch stops after any move that reveals something (a draw or a roll)."""
    if state.solo is None or state.actor != state.solo["bot"] or state.phase != "action":
        raise ValueError("next_moves: it is not the Cardinalbot's decision")
    s = state.clone()
    memo: dict = {"fresh_die": False, "intent": None}
    moves: list[str] = []
    for _ in range(MAX_BATCH):
        move = _legal_or_fallback(s, decide(s, rng, memo))
        moves.append(move)
        if move.split()[0] in REVEALING:
            break
        try:
            solo_turn.apply(s, parse(move), _Probe())
        except _Revealed:
            break
        if s.actor != s.solo["bot"] or s.phase != "action":  # pragma: no cover - only 'end' does this
            break
    return moves


def state_from_view(view: dict) -> GameState:
    """A GameState from the API's position view (GET /state): the face-down piles and Corruption
    pool are counts there; they become empty lists (the policy never needs what they hold)."""
    doc = dict(view)
    doc.pop("viewer", None)
    to_act = doc.pop("to_act", None)
    if to_act is not None:  # who is to act, from the field that is not deprecated (docs/api-changes.md)
        doc["actor"] = to_act[0] if to_act else None
    doc["piles"] = {k: [] for k in view.get("piles", {})}
    doc["corruption_pool"] = []
    return GameState.from_doc(doc, validate=False)


def _legal_or_fallback(s: GameState, move: str) -> str:
    legal = {str(m) for m in solo_turn.legal(s)}
    if move in legal:
        return move
    if STRICT:
        raise AssertionError(f"Cardinalbot policy planned an illegal move {move!r}; legal: {sorted(legal)}")
    for safe in ("skip", "end"):
        if safe in legal:
            return safe
    return sorted(legal)[0]


# --- one decision ---------------------------------------------------------------------------------

def decide(s: GameState, rng: random.Random, memo: dict | None = None) -> str:
    """The bot's next single move. ``memo`` carries what an earlier move of the same batch
    decided (the Action of a Joker die, the Contract action's step)."""
    memo = {} if memo is None else memo
    so = s.solo
    stage = so["stage"]
    if stage == "die":
        die, intent, _, _ = choose_die(s, rng)
        memo["fresh_die"], memo["intent"] = True, intent
        return f"take {die}"
    if stage == "coffers":
        return "gain " + _most_required(s, rng)
    if stage == "joker":
        intent = memo["intent"] if memo.get("fresh_die") else _reconstruct_intent(s)
        return "action " + (intent or joker_default(s))
    if stage == "tasks":
        return tasks_move(s, rng)
    action = so["act"]["action"]
    return {"architect": architect_move, "merchant": merchant_move, "character": character_move,
            "contract": contract_move, "king": king_move}[action](s, rng, memo)


def _most_required(s: GameState, rng) -> str:
    return pick(solo.most_required(s), lambda x: 0, rng)


def _reconstruct_intent(s: GameState) -> str | None:
    """The batch that took the Joker die stopped at a reveal: re-run the Decree on the position
    with the die back on the wheel; if it takes a die of that value for an Action, that Action."""
    die = s.turn["die"]
    t = s.clone()
    t.wheel = sorted(t.wheel + [die])
    bot = bot_seat(t)
    i = LETTERS.index(die[0])
    bot.res[i] = max(0, bot.res[i] - die_value(die))
    t.solo["stage"] = "die"
    got, intent, _, _ = choose_die(t, random.Random(0))
    return intent if die_value(got) == die_value(die) else None


# --- Bonus tiles ---------------------------------------------------------------------------------

def missing_resources(s: GameState, tile: str) -> int:
    """How many resources the bot lacks for a Contract (see the module docstring)."""
    raw = components().tiles[tile].raw
    res = list(bot_seat(s).res)
    missing = 0
    for name, n in raw.get("cost", {}).items():
        i = LETTERS.index(name[0].upper())
        own = min(res[i], n)
        res[i] -= own
        missing += n - own
    n = raw.get("identical") or 0
    if n:
        food = max(0, res[1] - solo.data()["bot_board"]["reserved_food"]) if res[1] >= 4 else 0
        missing += max(0, n - max(res[0], food, res[2], res[4]))
    return missing


def tile_key(s: GameState, tile: str) -> tuple:
    """Sort key (lower is better) of a Bonus tile by the preference table (page 14)."""
    c = components()
    raw = c.tiles[tile].raw
    cat = solo.bonus_category(tile)
    if cat == "crest":
        return (1, solo.bot_has_crest(s, raw["crest"]), human_has_crest(s, raw["crest"]))
    if cat == "resource":
        atoms = raw.get("effect", ())
        vp = sum(a.get("vp", 0) for a in atoms)
        anys = sum(a.get("any", 0) for a in atoms)
        total = sum(sum(a.get("gain", {}).values()) for a in atoms) + anys
        return (3, -vp, -total, -anys)
    if cat == "action":
        return (4, -sum(a.get("ap", 0) + a.get("add_ap", 0) for a in raw.get("effect", ())))
    if cat == "contract":
        return (5, missing_resources(s, tile))
    return (2,)  # Miscellaneous Helpers and anything else


def towns_in_reach(origin: str, ap: int) -> list[str]:
    """Towns other than ``origin`` at most ``ap`` spaces away (the Cardinalbot's reach)."""
    c = components()
    return sorted(t for t in c.towns if t != origin and c.distances[origin][t] <= ap)


def best_tile(s: GameState, origin: str, ap: int, rng) -> str | None:
    """The best map Bonus tile within reach (the origin's own tiles included), or None."""
    dist = components().distances[origin]
    tiles = [t for town, ts in s.map_bonus.items() if dist[town] <= ap for t in ts]
    return pick(tiles, lambda t: tile_key(s, t), rng)


# --- Architect -----------------------------------------------------------------------------------

def cathedral_targets(s: GameState) -> list[str]:
    c = components()
    me = s.solo["bot"]
    here = bot_seat(s).architect
    return [t for t in c.cathedral_towns if t != here and me not in s.pillars.get(t, [])
            and not c.tiles[s.cathedral_cost[t]].raw.get("unavailable")]


def cathedral_vp(s: GameState, town: str) -> int:
    c = components()
    stack = s.cathedral_stack.get(town) or []
    return (c.tiles[s.cathedral_cost[town]].raw.get("vp") or 0) + (c.tiles[stack[-1]].vp if stack else 0)


def player_built(s: GameState, town: str) -> bool:
    """Whether the player has contributed to (taken a Cathedral tile from) ``town``'s Cathedral:
    the summary card's "you have it" / "you haven't built it"."""
    tiles = components().tiles
    return any(tiles[t].raw["cathedral"] == town for t in s.seats[s.solo["human"]].cathedrals)


def best_cathedral(s: GameState, origin: str, ap: int, rng) -> str | None:
    c = components()
    dist = c.distances[origin]

    def ties(t):
        return (-cathedral_vp(s, t), player_built(s, t),
                c.tiles[s.cathedral_cost[t]].raw.get("stone") or 0, dist[t])

    towns = cathedral_targets(s)
    near = [t for t in towns if dist[t] <= ap]
    if near:
        return pick(near, ties, rng)
    return pick(towns, lambda t: (dist[t], *ties(t)), rng)


def architect_move(s: GameState, rng, memo) -> str:
    act = s.solo["act"]
    bot = bot_seat(s)
    legal = {str(m) for m in solo_turn.legal(s)}
    if "pillar" in legal:
        return "pillar"
    if act["stage"] <= 2:
        tile = best_tile(s, bot.architect, act["ap"], rng)
        if tile is not None:
            return f"tile {tile}"
    target = best_cathedral(s, bot.architect, act["ap"], rng)
    if target is None:
        return "skip"
    return f"architect {target}"


# --- Merchant ------------------------------------------------------------------------------------

def _house_space(s: GameState, town: str) -> dict | None:
    """The House space the bot would fill in ``town``: the first empty one (its ``house``)."""
    free = free_house_spaces(s, town)
    return components().house_spaces(town, s.players)[free[0]] if free else None


def town_ties(s: GameState, town: str, dist: dict) -> tuple:
    """Merchant tie-breakers: next Fair town > printed VP > other printed reward > closer."""
    nxt = s.fair_towns[s.fairs_scored] if s.fairs_scored < len(s.fair_towns) else None
    reward = (_house_space(s, town) or {}).get("reward") or []
    vp = sum(a.get("vp", 0) for a in reward)
    other = any("vp" not in a for a in reward)
    return (town != nxt, -vp, not other, dist[town])


def best_town(s: GameState, origin: str, towns: list[str], reach: int, rng) -> str | None:
    dist = components().distances[origin]
    near = [t for t in towns if dist[t] <= reach]
    if near:
        return pick(near, lambda t: town_ties(s, t, dist), rng)
    return pick(towns, lambda t: (dist[t], *town_ties(s, t, dist)), rng)


def merchant_move(s: GameState, rng, memo) -> str:
    c = components()
    act = s.solo["act"]
    bot = bot_seat(s)
    me = s.solo["bot"]
    legal = {str(m) for m in solo_turn.legal(s)}
    st = act["stage"]
    if st <= 1:
        if "house" in legal:
            return "house"
        if st == 0:
            towns = [m.split()[1] for m in legal if m.startswith("merchant ")]
            target = best_town(s, bot.merchant, towns, bot.res[0], rng)
            if target is not None:
                return f"merchant {target}"
        return "skip"
    if st == 2:
        tile = best_tile(s, bot.merchant, act["ap"], rng)
        if tile is not None:
            return f"tile {tile}"
    towns = [t for t in sorted(c.towns) if t != bot.merchant and me not in s.houses.get(t, [])
             and _house_space(s, t) is not None]
    target = best_town(s, bot.merchant, towns, act["ap"], rng)
    return "skip" if target is None else f"merchant {target}"


# --- Character -----------------------------------------------------------------------------------

def character_value(tile: str) -> int:
    """The printed reward "value": the numbers on the bonus (move-and-place 2, place 1)."""
    total = 0
    for a in components().tiles[tile].raw.get("bonus", ()):
        if "gain" in a:
            total += sum(a["gain"].values())
        elif "vp" in a:
            total += a["vp"]
        elif "any" in a:
            total += a["any"]
        elif "action" in a:
            total += a.get("ap", 1)
        elif "move" in a:
            total += a.get("times", 1)
        elif "move_and_place" in a:
            total += 2
        else:
            total += 1
    return total


def type_count(s: GameState, kind: str) -> int:
    c = components()
    so = s.solo
    on_board = sum(1 for col in so["columns"] for t in col if t is not None
                   and c.tile_raw(t, s.rules)["type"] == kind)
    return on_board + sum(1 for t in so["supply"] if c.tile_raw(t, s.rules)["type"] == kind)


def character_pick(s: GameState, rng) -> int | None:
    """The offer slot (0-based) to take, or None if every tile is of a type it has two of."""
    c = components()
    slots = []
    for i, t in enumerate(s.character_offer):
        if t is None:
            continue
        kind = c.tile_raw(t, s.rules)["type"]
        n = type_count(s, kind)
        if n >= 2:
            continue
        col = solo.column_of_type(s, kind)
        group = (0, col if col is not None else len(s.solo["columns"])) if n == 1 else (1, 0)
        slots.append((group, kind, character_value(t), i))
    if not slots:
        return None
    top = min(x[0] for x in slots)
    slots = [x for x in slots if x[0] == top]
    best_value = {}
    for _, kind, v, _ in slots:
        best_value[kind] = max(v, best_value.get(kind, v))
    slots = [x for x in slots if x[2] == best_value[x[1]]]
    return pick([x[3] for x in slots], lambda i: 0, rng)


def character_move(s: GameState, rng, memo) -> str:
    so = s.solo
    act = so["act"]
    legal = {str(m) for m in solo_turn.legal(s)}
    if act["ap"] >= 1:
        for t in so["supply"]:
            if solo.place_target(s, t) is not None:
                return f"place {t}"
        i = character_pick(s, rng)
        if i is not None:
            return f"char {i + 1}"
    if "discard" in legal and act["ap"] >= 1:
        return "discard"
    return "skip"


# --- Contract ------------------------------------------------------------------------------------

def contract_move(s: GameState, rng, memo) -> str:
    c = components()
    so = s.solo
    ap = so["act"]["ap"]
    offer = s.contract_offer
    costs = c.contract_offer_costs
    tiles = c.tiles
    if memo.get("contract_step") != "D":
        # A) every Crest it does not have, right (cheapest) to left
        for i in reversed(range(len(offer))):
            t = offer[i]
            if t is not None and tiles[t].kind == "crest" and costs[i] <= ap \
                    and not solo.bot_has_crest(s, tiles[t].raw["crest"]):
                return f"contract {i + 1}"
        # B) every "ready" Contract, most VP first, the cheaper slot on a tie
        ready = [i for i, t in enumerate(offer) if t is not None and tiles[t].kind == "contract"
                 and costs[i] <= ap and solo.payment(s, t) is not None]
        if ready:
            memo["contract_b"] = True
            return "contract %d" % (pick(ready, lambda i: (-tiles[offer[i]].vp, costs[i]), rng) + 1)
        memo["contract_step"] = "D"
        # C) if B took none and a Contract space is free: fewest missing resources, rightmost
        # (``act["unready"]``: the engine's mark that step C is done, for a batch cut short)
        if not memo.get("contract_b") and not so["act"].get("unready") \
                and len(so["contracts"]) < solo.data()["bot_board"]["contract_spaces"]:
            others = [i for i, t in enumerate(offer) if t is not None and tiles[t].kind == "contract"
                      and costs[i] <= ap]
            if others:
                i = min(others, key=lambda i: (missing_resources(s, offer[i]), -i))
                return f"contract {i + 1}"
    # D) each remaining AP: its most required resource
    if ap >= 1:
        return "gain " + _most_required(s, rng)
    return "skip"


def king_move(s: GameState, rng, memo) -> str:
    return "king" if "king" in {str(m) for m in solo_turn.legal(s)} else "skip"


def contract_size(tile: str) -> int:
    raw = components().tiles[tile].raw
    return sum(raw.get("cost", {}).values()) + (raw.get("identical") or 0)


# --- Tasks ---------------------------------------------------------------------------------------

def tasks_move(s: GameState, rng) -> str:
    so = s.solo
    legal = {str(m) for m in solo_turn.legal(s)}
    # a) Crests: under a column with two Characters if possible (leftmost), else the leftmost free
    if so["inactive"]:
        free = [i for i, cr in enumerate(so["crests"]) if cr is None]
        full = [i for i in free if all(t is not None for t in so["columns"][i])]
        for i in full + free:
            move = f"crest {so['inactive'][0]} {i + 1}"
            if move in legal:
                return move
    # b) Cathedrals, the one worth the most VP first
    towns = [m.split()[1] for m in legal if m.startswith("cathedral ")]
    if towns:
        return "cathedral " + pick(towns, lambda t: -cathedral_vp(s, t), rng)
    # c) Contracts (the engine allows two a turn), the one requiring fewer resources first
    ready = [m.split()[1] for m in legal if m.startswith("fulfil ")]
    if ready:
        return "fulfil " + pick(ready, lambda t: contract_size(t), rng)
    return "end"


def choose(view: dict, seat: int | None, rng: random.Random) -> list[str] | None:
    """The Cardinalbot's moves at a served ``view`` (the policy Tiletum declares for its automa, called
    by the platform's seat player, ``seats/runner.py``), None when it is not the bot's decision:
    ``seat``: the bot's seat as the task names it (None: the game's), ``rng``: the randomness of
    its picks at this position."""
    state = state_from_view(view)
    bot = (state.solo or {}).get("bot")
    if state.phase != "action" or bot is None or state.actor != bot or (seat is not None and seat != bot):
        return None
    return next_moves(state, rng)
