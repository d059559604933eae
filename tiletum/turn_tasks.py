"""Tasks: what a player may do at any time during their own turn (rulebook: Tasks)."""
from __future__ import annotations

from .board import add_vp, to_box
from .components import RES_INDEX, components
from .effects import check_completion, push_effects
from .notation import Move
from .state import GameState, PlayerState
from .terms import Reason
from .terms import res as _res
from .terms import town as town_term

Err = tuple[str, str] | None
TASK_VERBS = frozenset({"buy", "fulfil", "crest", "cathedral", "use"})
LETTERS = "GFWSI"


def contract_price(tile: str, letter: str | None) -> dict[int, int]:
    """Resources (by index) a Contract costs, with its identical part paid in ``letter``."""
    raw = components().tiles[tile].raw
    price = {RES_INDEX[r]: n for r, n in raw.get("cost", {}).items()}
    n = raw.get("identical") or 0
    if n and letter is not None:
        i = LETTERS.index(letter)
        price[i] = price.get(i, 0) + n
    return price


def candidates(s: GameState, p: PlayerState) -> list[Move]:
    c = components()
    tiles = c.tiles
    out: list[Move] = []
    if p.res[0] >= 2:
        out.extend(Move("buy", (x,)) for x in "FWSI")
    for t in p.store:
        td = tiles[t]
        if td.kind == "contract":
            if td.raw.get("identical"):
                out.extend(Move("fulfil", (t, x)) for x in LETTERS)
            else:
                out.append(Move("fulfil", (t,)))
        elif td.kind == "crest":
            out.extend(Move("crest", (t, str(i + 1))) for i, x in enumerate(p.crests) if x is None)
        elif td.kind == "helper":
            out.append(Move("use", (t,)))
    for town, seats in s.pillars.items():
        if p.seat in seats:
            out.append(Move("cathedral", (town,)))
    return out


def check_task(s: GameState, p: PlayerState, m: Move) -> Err:
    c = components()
    verb = m.verb
    if verb == "buy":
        if m.args[0] == "G":
            return ("same-resource", Reason("2 Gold buys another resource: Stone, Wool, Iron or Food"))
        if p.res[0] < 2:
            return ("not-enough-gold", Reason("buying a resource costs 2 Gold; you have {gold}",
                                              gold=p.res[0]))
        return None
    tile = m.args[0]
    if verb == "cathedral":
        return _check_cathedral(s, p, tile)
    td = c.tiles[tile]
    if tile not in p.store:
        return ("not-in-storehouse", Reason("{tile} is not in your Storehouse", tile=tile))
    if verb == "fulfil":
        if td.kind != "contract":
            return ("not-a-contract", Reason("{tile} is not a Contract", tile=tile))
        n = td.raw.get("identical") or 0
        letter = m.args[1] if len(m.args) > 1 else None
        if n and letter is None:
            return ("choose-resource",
                    Reason("{tile} asks for {n} identical resources: name which, e.g. 'fulfil {tile} W'",
                           tile=tile,
                           n=n))
        if not n and letter is not None:
            return ("no-choice", Reason("{tile} has a fixed price; write just 'fulfil {tile}'", tile=tile))
        if len(p.contracts) >= len(c.contract_spaces):
            return ("contract-spaces-full",
                    Reason("all your Contract spaces are covered: a Contract is fulfilled "
                           "onto the leftmost open one (Tasks)"))
        for i, need in contract_price(tile, letter).items():
            if p.res[i] < need:
                return ("not-enough-resources",
                        Reason("{tile} needs {need} {resource}; you have {have}", tile=tile, need=need,
                               resource=_res(LETTERS[i]), have=p.res[i]))
        return None
    if verb == "crest":
        if td.kind != "crest":
            return ("not-a-crest", Reason("{tile} is not a Crest", tile=tile))
        i = int(m.args[1]) - 1
        if p.crests[i] is not None:
            return ("crest-space-taken", Reason("Crest space {space} is already covered", space=i + 1))
        food = c.crest_spaces[i]["food"]
        if p.res[1] < food:
            return ("not-enough-food", Reason("Crest space {space} costs {food} Food; you have {have}",
                                              space=i + 1,
                                              food=food, have=p.res[1]))
        return None
    if verb == "use":
        if td.kind != "helper":
            return ("not-a-helper", Reason("{tile} is not a Helper", tile=tile))
        timing = td.raw.get("timing", "anytime")
        if timing == "die_choice" and s.turn["die"] is not None:
            return ("helper-timing", Reason("{tile} is used when choosing a die, and you have taken yours",
                                            tile=tile))
        if timing == "current_action" and s.turn["die"] is None:
            return ("helper-timing",
                    Reason("{tile} adds Action Points to your current Action: take a die first",
                           tile=tile))
        return None
    raise AssertionError(verb)


def _check_cathedral(s: GameState, p: PlayerState, town: str) -> Err:
    c = components()
    if town not in c.towns or not c.towns[town].cathedral:
        return ("no-cathedral", Reason("{town} has no Cathedral", town=town_term(town)))
    if p.seat not in s.pillars.get(town, ()):
        return ("no-pillar-there", Reason("you need a Pillar at the {town} Cathedral to contribute",
                                          town=town_term(town)))
    if any(c.tiles[t].raw["cathedral"] == town for t in p.cathedrals):
        return ("cathedral-once", Reason("you have already contributed to the {town} Cathedral",
                                         town=town_term(town)))
    if not s.cathedral_stack.get(town):
        return ("cathedral-finished", Reason("no Cathedral tiles are left in {town}", town=town_term(town)))
    stone = c.tiles[s.cathedral_cost[town]].raw["stone"]
    if p.res[3] < stone:
        return ("not-enough-stone", Reason("the {town} Cathedral costs {stone} Stone; you have {have}",
                                           town=town_term(town), stone=stone, have=p.res[3]))
    return None


def apply_task(s: GameState, p: PlayerState, m: Move, chance) -> None:
    c = components()
    verb = m.verb
    if verb == "buy":
        p.res[0] -= 2
        p.res[LETTERS.index(m.args[0])] += 1
    elif verb == "fulfil":
        tile = m.args[0]
        for i, need in contract_price(tile, m.args[1] if len(m.args) > 1 else None).items():
            p.res[i] -= need
        p.store.remove(tile)
        space = c.contract_spaces[len(p.contracts)]
        p.contracts.append(tile)
        if space.get("pillar"):
            p.pillars += 1
        raw = c.tile_raw(tile, s.rules)
        add_vp(p, (raw.get("vp") or 0) + (space.get("vp") or 0))
        push_effects(s, p.seat, raw.get("benefit"))
    elif verb == "crest":
        tile, i = m.args[0], int(m.args[1]) - 1
        space = c.crest_spaces[i]
        p.res[1] -= space["food"]
        p.store.remove(tile)
        p.crests[i] = tile
        check_completion(s, p.seat, i)
        push_effects(s, p.seat, space["bonus"])
    elif verb == "cathedral":
        town = m.args[0]
        cost = c.tiles[s.cathedral_cost[town]].raw
        p.res[3] -= cost["stone"]
        tile = s.cathedral_stack[town].pop()
        p.cathedrals.append(tile)
        add_vp(p, cost["vp"] + c.tiles[tile].raw["vp"])
    elif verb == "use":
        tile = m.args[0]
        p.store.remove(tile)
        to_box(s, tile)
        push_effects(s, p.seat, c.tiles[tile].raw["effect"])
    else:  # pragma: no cover
        raise AssertionError(verb)
