"""Taking a die and spending Action Points (rulebook: Action phase, Actions in Detail).

Every verb has a ``check_*`` that returns ``None`` or ``(code, reason)`` and an ``apply_*`` that
assumes the check passed. ``candidates`` lists a superset of the legal action moves cheaply;
``tiletum.game`` keeps those that pass their check.
"""
from __future__ import annotations

from .board import (discard_characters, house_moves, king_advance, place_house, place_pillar, take_character,
                    why_cannot_take, why_no_house, why_no_pillar, why_not_house_space)
from .components import RES_INDEX, components
from .effects import check_completion, choice, push_effects
from .notation import Move, mv
from .state import GameState, PlayerState
from .terms import Reason
from .terms import action as _action
from .terms import res as _res
from .terms import town as _town

Err = tuple[str, str] | None

# the Action whose frame a verb spends Action Points of
FRAME_VERBS: dict[str, tuple[str, ...]] = {
    "architect": ("architect",), "pillar": ("architect",),
    "merchant": ("merchant",), "house": ("merchant",),
    "tile": ("architect", "merchant"),
    "char": ("character",), "discard": ("character",), "place": ("character",),
    "contract": ("contract",), "exchange": ("contract",),
    "king": ("king",),
}


_ROTATION = components().wheel_rotation


def wheel_action(s: GameState, value: int) -> str:
    """The Action a die of this value is on this round (the wheel turns one step a round)."""
    c = components()
    return s.action_tiles[(value - 1 + (s.round - 1) * c.wheel_rotation) % 6]


def shift_cost(value: int, target: int) -> int:
    """Gold to change a die's value: 2 per step, 6 and 1 adjacent (Action phase, step 2)."""
    d = abs(value - target)
    return 2 * min(d, 6 - d)


# --- taking a die ----------------------------------------------------------------------------

def take_candidates(s: GameState, p: PlayerState) -> list[Move]:
    gold = p.res[0]
    out = []
    for die in sorted(set(s.wheel)):  # sorted: legal() has the same order in every process
        v = int(die[1])
        for t in range(1, 7):
            if shift_cost(v, t) <= gold:
                out.append(Move("take", (die if t == v else f"{die}>{t}",)))
    return out


def check_take(s: GameState, p: PlayerState, m: Move) -> Err:
    if s.turn["die"] is not None:
        return ("die-taken", Reason("you have already taken a die this turn"))
    if s.agenda:
        return ("finish-first", Reason("finish the Action in progress before taking a die"))
    letter, v, t = m.die
    if f"{letter}{v}" not in s.wheel:
        return ("no-such-die", Reason("there is no {die} die on the Action Wheel", die=f"{letter}{v}"))
    cost = shift_cost(v, t)
    if p.res[0] < cost:
        return ("not-enough-gold",
                Reason("changing the die from {v} to {t} costs {cost} Gold; you have {gold}",
                       v=v, t=t, cost=cost, gold=p.res[0]))
    return None


def apply_take(s: GameState, p: PlayerState, m: Move, chance) -> None:
    letter, v, t = m.die
    if v != t:
        p.res[0] -= shift_cost(v, t)
    s.wheel.remove(m.args[0][:2])
    taken = f"{letter}{t}"
    p.dice.append(taken)
    override = s.turn["override"]
    p.res[RES_INDEX[override] if override else "GFWSI".index(letter)] += t
    action = s.action_tiles[(t - 1 + (s.round - 1) * _ROTATION) % 6]
    s.turn["die"] = taken
    seat = p.seat
    if action == "joker":
        s.agenda.append({"t": "frame", "seat": seat, "action": "joker", "ap": 7 - t, "main": True})
        s.agenda.append({"t": "choice", "seat": seat, "kind": "joker"})
    else:
        s.agenda.append({"t": "frame", "seat": seat, "action": action,
                         "ap": 7 - t + p.ap_bonus.get(action, 0), "main": True})
    tile = s.action_bonus.get(action)
    if tile is not None:
        s.agenda.append({"t": "choice", "seat": seat, "kind": "action_tile", "tile": tile, "action": action})


# --- spending Action Points ------------------------------------------------------------------

def candidates(s: GameState, p: PlayerState, f: dict) -> list[Move]:
    c = components()
    a, ap = f["action"], f["ap"]
    if ap <= 0:
        return []
    out: list[Move] = []
    if a == "architect" or a == "merchant":
        spot = p.architect if a == "architect" else p.merchant
        out.extend(Move(a, (n,)) for n in c.adjacent[spot])
        out.extend([Move("pillar")] if a == "architect" else house_moves(s, spot))
        out.extend(Move("tile", (t,)) for t in s.map_bonus.get(spot, ()))
    elif a == "character":
        out.extend(mv("char", i + 1) for i, t in enumerate(s.character_offer) if t is not None)
        out.append(Move("discard"))
        tiles = c.tiles
        for t in p.store:
            if tiles[t].pile == "character":
                for b, n in enumerate(c.building_rooms):
                    for fl in range(1, min(n, ap) + 1):
                        if p.rooms[b][fl - 1] is None:
                            out.append(Move("place", (t, f"{b + 1}.{fl}")))
    elif a == "contract":
        out.extend(mv("contract", i + 1) for i, t in enumerate(s.contract_offer) if t is not None)
        letters = "GFWSI"
        for i, x in enumerate(letters):
            if p.res[i] > 0:
                out.extend(Move("exchange", (x, y)) for y in letters if y != x)
    elif a == "king":
        out.append(Move("king"))
    return out


def check_action(s: GameState, p: PlayerState, m: Move, f: dict) -> Err:
    """Check an AP-spending move against the Action frame ``f`` on top of the agenda."""
    c = components()
    verb = m.verb
    if verb in ("house", "pillar") and m.town is not None:
        if verb == "house":
            return ("no-decision", Reason("'house <town>' answers a bonus that places a House anywhere; "
                                          "in an Action, 'house' builds where your Merchant is"))
        return ("no-decision", Reason("'pillar <town>' answers a bonus that places a Pillar anywhere; "
                                      "in an Action, 'pillar' builds where your Architect is"))
    if f["action"] not in FRAME_VERBS[verb]:
        return ("wrong-action", Reason("'{move}' is not an option of the {action} Action you are performing",
                                       move=str(m), action=_action(f["action"])))
    ap = f["ap"]
    if ap < 1:
        return ("no-action-points", Reason("you have no Action Points left"))
    if verb in ("architect", "merchant"):
        here = p.architect if verb == "architect" else p.merchant
        if m.args[0] not in c.adjacent[here]:
            if verb == "architect":
                return ("not-adjacent", Reason("{spot} is not adjacent to your Architect in {here}",
                                               spot=_town(m.args[0]), here=_town(here)))
            return ("not-adjacent", Reason("{spot} is not adjacent to your Merchant in {here}",
                                           spot=_town(m.args[0]), here=_town(here)))
        return None
    if verb == "pillar":
        return why_no_pillar(s, p, p.architect)
    if verb == "house":
        return why_no_house(s, p, p.merchant) or why_not_house_space(s, p.merchant, m.space)
    if verb == "tile":
        spot = p.architect if f["action"] == "architect" else p.merchant
        if m.args[0] not in s.map_bonus.get(spot, ()):
            return ("no-such-tile", Reason("there is no Bonus tile {tile} in {spot}", tile=m.args[0],
                                           spot=_town(spot)))
        return why_cannot_take(p, m.args[0], s.rules)
    if verb == "char":
        tile = s.character_offer[int(m.args[0]) - 1]
        if tile is None:
            return ("empty-slot", Reason("Character offer slot {slot} is empty", slot=m.args[0]))
        return why_cannot_take(p, tile, s.rules)
    if verb == "discard":
        if not any(t is not None for t in s.character_offer):
            return ("empty-offer", Reason("the Character offer is empty"))
        return None
    if verb == "place":
        return _check_place(s, p, m, ap)
    if verb == "contract":
        i = int(m.args[0]) - 1
        tile = s.contract_offer[i]
        if tile is None:
            return ("empty-slot", Reason("Contract offer slot {slot} is empty", slot=i + 1))
        cost = c.contract_offer_costs[i]
        if ap < cost:
            return ("no-action-points", Reason("slot {slot} costs {cost} Action Points; you have {ap}",
                                               slot=i + 1,
                                               cost=cost, ap=ap))
        return why_cannot_take(p, tile, s.rules)
    if verb == "exchange":
        x, y = m.args
        if x == y:
            return ("same-resource", Reason("exchange one resource for a different one"))
        if p.res["GFWSI".index(x)] < 1:
            return ("not-enough-resources", Reason("you have no {resource} to exchange", resource=_res(x)))
        return None
    if verb == "king":
        if s.king_pos[p.seat] >= c.king_top:
            return ("king-track-top", Reason("your marker is already at the top of the King track (+15)"))
        return None
    raise AssertionError(verb)


def _check_place(s: GameState, p: PlayerState, m: Move, ap: int) -> Err:
    c = components()
    if len(m.args) < 2:
        return ("name-the-room",
                Reason("say where: 'place {tile} <building>.<floor>', e.g. 'place {tile} 1.1'",
                       tile=m.args[0]))
    tile, room = m.args
    if tile not in p.store or c.tiles[tile].pile != "character":
        return ("not-in-storehouse", Reason("{tile} is not a Character tile in your Storehouse", tile=tile))
    b, fl = int(room[0]) - 1, int(room[2])
    if fl > c.building_rooms[b]:
        return ("no-such-room", Reason("Building {b} has no Room on floor {floor}", b=b + 1, floor=fl))
    if p.rooms[b][fl - 1] is not None:
        return ("room-taken", Reason("the Room on floor {floor} of Building {b} is occupied", floor=fl,
                                     b=b + 1))
    if ap < fl:
        return ("no-action-points",
                Reason("a Room on floor {floor} costs {floor} Action Points; you have {ap}",
                       floor=fl, ap=ap))
    kind = c.tile_raw(tile, s.rules)["type"]
    for i, rooms in enumerate(p.rooms):
        for t in rooms:
            if t is None:
                continue
            other = c.tile_raw(t, s.rules)["type"]
            if i == b and other != kind:
                return ("building-type", Reason("Building {b} holds {type} Characters; one type per Building",
                                                b=b + 1, type=_action(other)))
            if i != b and other == kind:
                return ("building-type",
                        Reason("your {type} Characters are in Building {b}; they all go there",
                               type=_action(kind), b=i + 1))
    return None


def apply_action(s: GameState, p: PlayerState, m: Move, f: dict, chance) -> None:
    c = components()
    verb = m.verb
    if verb in ("architect", "merchant"):
        if verb == "architect":
            p.architect = m.args[0]
        else:
            p.merchant = m.args[0]
        f["ap"] -= 1
    elif verb == "pillar":
        place_pillar(s, p, p.architect)
        f["ap"] -= 1
    elif verb == "house":
        f["ap"] -= 1
        push_effects(s, p.seat, place_house(s, p, p.merchant, m.space))
    elif verb == "tile":
        spot = p.architect if f["action"] == "architect" else p.merchant
        s.map_bonus[spot].remove(m.args[0])
        p.store.append(m.args[0])
        f["ap"] -= 1
    elif verb == "char":
        p.store.append(take_character(s, int(m.args[0]) - 1, chance))
        f["ap"] -= 1
    elif verb == "discard":
        discard_characters(s, chance)
        f["ap"] -= 1
    elif verb == "place":
        tile, room = m.args
        b, fl = int(room[0]) - 1, int(room[2])
        p.store.remove(tile)
        p.rooms[b][fl - 1] = tile
        f["ap"] -= fl
        check_completion(s, p.seat, b)
        push_effects(s, p.seat, c.tiles[tile].raw["bonus"])
    elif verb == "contract":
        i = int(m.args[0]) - 1
        p.store.append(s.contract_offer[i])
        s.contract_offer[i] = None
        f["ap"] -= c.contract_offer_costs[i]
    elif verb == "exchange":
        x, y = m.args
        p.res["GFWSI".index(x)] -= 1
        p.res["GFWSI".index(y)] += 1
        f["ap"] -= 1
        if not s.turn["exchanged"]:
            s.turn["exchanged"] = True  # the first exchange of the turn earns a bonus resource
            s.agenda.append(choice(p.seat, "resource", n=1))
    elif verb == "king":
        king_advance(s, p.seat, f["ap"])
        f["ap"] = 0
    else:  # pragma: no cover
        raise AssertionError(verb)
