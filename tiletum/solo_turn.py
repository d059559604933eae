"""The Cardinalbot's moves (solo rulebook, "Cardinalbot's Turn"): which the solo rules allow at each
stage of its turn (``legal``, ``check``) and what each does (``apply``). The rest of the solo rules
(setup, what the bot has, how it resolves Bonus tiles, the King and Fair phases, final scoring)
are in ``tiletum/solo.py``.

The bot's turn runs in stages (``solo["stage"]``):

* ``die``: ``take <die>`` (any die on the wheel; the bot never shifts dice);
* ``coffers`` (Deep Coffers): ``gain <res>``, its extra resource;
* ``joker``: ``action <name>``, the Action it resolves with a Joker die;
* ``action``: the Action's own moves (below), or ``skip`` to stop it;
* ``tasks``: ``crest <tile> <column>``, ``cathedral <town>``, ``fulfil <tile>`` (twice at most), ``end``.

Architect: ``pillar`` (free, where the Architect is), then ``tile <id>`` (a map Bonus tile within
reach, without moving), then ``architect <town>`` (moves there, paying 1 Gold per space beyond
reach, as much as it has). Merchant: ``merchant <town>`` to relocate when it cannot build where it
is (1 Gold per space), ``house`` (free), ``tile <id>``, ``merchant <town>`` (final move). Character:
per AP ``place <tile>`` or ``char <slot>``; ``discard`` once, free. Contract: ``contract <slot>``
(Crests go to its inactive Crests; a Contract it can pay is fulfilled at once) and ``gain <res>``
per AP. King: ``king``.
"""
from __future__ import annotations

from .board import (
    add_vp,
    discard_characters,
    free_house_spaces,
    king_advance,
    place_house,
    place_pillar,
    take_character,
    why_no_house,
    why_no_pillar,
)
from .components import BASIC_ACTIONS, components
from .notation import Move, mv
from .solo import (
    LETTERS,
    Err,
    F,
    G,
    S,
    bot_has_crest,
    check_column,
    data,
    fulfil,
    gain,
    has,
    payment,
    place_target,
    resolve_tile,
    take_contract,
)
from .state import GameState
from .terms import Reason
from .terms import action as _action
from .terms import crest as _crest
from .terms import town as _town

# --- the bot's moves -------------------------------------------------------------------------

def _reach_cost(s: GameState, frm: str, to: str, ap: int) -> int:
    return max(0, components().distances[frm][to] - ap)


def _tiles_in_reach(s: GameState, frm: str, ap: int) -> list[str]:
    dist = components().distances[frm]
    return sorted(t for town, tiles in s.map_bonus.items() if dist[town] <= ap for t in tiles)


def legal(s: GameState) -> list[Move]:
    c = components()
    so = s.solo
    stage = so["stage"]
    if stage == "die":
        return [Move("take", (d,)) for d in sorted(set(s.wheel))]
    if stage in ("coffers",):
        return [mv("gain", x) for x in LETTERS]
    if stage == "joker":
        return [mv("action", a) for a in BASIC_ACTIONS]
    if stage == "tasks":
        out = [Move("end")]
        if so["fulfils"] < 2:
            out += [mv("fulfil", t) for t in so["contracts"] if payment(s, t) is not None]
        for t in so["inactive"]:
            if _crest_affordable(s):
                out += [mv("crest", t, i + 1) for i in range(len(so["crests"])) if so["crests"][i] is None]
        out += [mv("cathedral", t) for t in c.cathedral_towns if _why_no_cathedral(s, t) is None]
        return out
    act = so["act"]
    a, ap = act["action"], act["ap"]
    if a in ("architect", "merchant"):
        return _piece_moves(s, act)
    out = [Move("skip")]
    if a == "character":
        if ap >= 1:
            placeable = [mv("place", t) for t in sorted(set(so["supply"])) if place_target(s, t) is not None]
            if placeable:  # "do the first possible": placing comes before taking
                return out + placeable
            out += [mv("char", i + 1) for i, t in enumerate(s.character_offer) if t is not None]
        if not act.get("discarded") and any(s.character_offer):
            out.append(Move("discard"))
    elif a == "contract":
        for i, t in enumerate(s.contract_offer):
            if t is not None and ap >= c.contract_offer_costs[i] and _why_no_contract(s, t, act) is None:
                out.append(mv("contract", i + 1))
        if ap >= 1:
            out += [mv("gain", x) for x in LETTERS]
    elif a == "king":
        if ap >= 1 and s.king_pos[0] < c.king_top:
            out.append(Move("king"))
    return out


def architect_targets(s: GameState) -> list[str]:
    """Where the bot's Architect may end its action: a Cathedral without its Pillar that will be
    built this game (Architect step 3)."""
    c = components()
    here = s.seats[0].architect
    return [t for t in c.cathedral_towns if t != here and 0 not in s.pillars.get(t, ())
            and not c.tiles[s.cathedral_cost[t]].raw.get("unavailable")]


def merchant_targets(s: GameState) -> list[str]:
    """Where the bot's Merchant may end its action: a Town without its House with an available
    House space (Merchant step 4)."""
    c = components()
    here = s.seats[0].merchant
    return [t for t in sorted(c.towns) if t != here and 0 not in s.houses.get(t, ())
            and free_house_spaces(s, t)]


def _piece_moves(s: GameState, act: dict) -> list[Move]:
    """The Architect and Merchant actions are fixed sequences (solo rules, each action's steps):
    build (relocating the Merchant first if it cannot build where it is), the best Bonus tile
    within reach if there is one, then the move to a new target. Only the choices are free."""
    bot = s.seats[0]
    a, ap, st = act["action"], act["ap"], act["stage"]
    piece = bot.architect if a == "architect" else bot.merchant
    if a == "architect" and st == 0:
        return [Move("pillar")]  # _normalise skips this step when no Pillar can be placed
    if a == "merchant" and st == 0:
        if why_no_house(s, bot, bot.merchant) is None:
            return [Move("house")]
        return [mv("merchant", t) for t in sorted(components().towns) if why_no_house(s, bot, t) is None]
    if a == "merchant" and st == 1:
        return [Move("house")]
    if st == 2:
        tiles = _tiles_in_reach(s, piece, ap)
        if tiles:
            return [mv("tile", t) for t in tiles]
    targets = architect_targets(s) if a == "architect" else merchant_targets(s)
    if targets:
        return [mv(a, t) for t in targets]
    return [Move("skip")]


def _crest_affordable(s: GameState) -> bool:
    bot = s.seats[0]
    need = data()["bot_board"]["crest_food"]
    return bot.res[F] >= need or bot.res[G] >= 2 * (need - bot.res[F])


def _why_no_cathedral(s: GameState, town: str) -> Err:
    c = components()
    bot = s.seats[0]
    if town not in c.towns or not c.towns[town].cathedral or 0 not in s.pillars.get(town, ()):
        return ("no-pillar-there", Reason("the Cardinalbot has no Pillar at a Cathedral in {town}",
                                          town=_town(town)))
    if any(c.tiles[t].raw["cathedral"] == town for t in bot.cathedrals):
        return ("cathedral-once", Reason("the Cardinalbot has built the {town} Cathedral already",
                                         town=_town(town)))
    if not s.cathedral_stack.get(town):
        return ("cathedral-finished", Reason("no Cathedral tiles are left in {town}", town=_town(town)))
    stone = c.tiles[s.cathedral_cost[town]].raw["stone"]
    if bot.res[S] < stone and bot.res[G] < 2 * (stone - bot.res[S]):
        return ("not-enough-stone",
                Reason("the {town} Cathedral costs {stone} Stone (2 Gold for each missing)",
                       town=_town(town), stone=stone))
    return None


def _why_no_contract(s: GameState, tile: str, act: dict | None = None) -> Err:
    t = components().tiles[tile]
    if t.kind == "crest":
        if bot_has_crest(s, t.raw["crest"]):
            return ("crest-duplicate", Reason("the Cardinalbot already has a {crest} Crest",
                                              crest=_crest(t.raw["crest"])))
        return None
    if payment(s, tile) is None:
        if len(s.solo["contracts"]) >= data()["bot_board"]["contract_spaces"]:
            return ("contract-spaces-full", Reason("the Cardinalbot's two Contract spaces are taken"))
        if act is not None and act.get("unready"):
            return ("one-contract",
                    Reason("the Cardinalbot takes one Contract to work on per Contract action (step C)"))
    return None


def check(s: GameState, m: Move) -> Err:
    if m in legal(s):
        return None
    stage = s.solo["stage"]
    moves = ", ".join(str(x) for x in legal(s)[:12]) + ("..." if len(legal(s)) > 12 else "")
    if stage != "action":
        return ("bot-move", Reason("the Cardinalbot cannot play '{move}' now ({stage}); it may: {moves}",
                                   move=str(m), stage=stage, moves=moves))
    return ("bot-move", Reason("the Cardinalbot cannot play '{move}' now ({action} action); it may: {moves}",
                               move=str(m), action=_action(s.solo["act"]["action"]), moves=moves))


def _start_action(s: GameState, action: str, base_ap: int) -> None:
    so = s.solo
    ap = base_ap + s.seats[0].ap_bonus.get(action, 0)
    so["act"] = {"action": action, "ap": ap, "stage": 0, "discarded": False}
    so["stage"] = "action"
    _normalise(s)


def _normalise(s: GameState) -> None:
    """Skip the action steps that cannot happen; go to the Tasks when the action is over."""
    so = s.solo
    act = so["act"]
    if so["stage"] != "action" or act is None:
        return
    bot = s.seats[0]
    a = act["action"]
    if a == "architect" and act["stage"] == 0 and why_no_pillar(s, bot, bot.architect) is not None:
        act["stage"] = 2
    if a == "merchant" and act["stage"] == 0 and why_no_house(s, bot, bot.merchant) is not None and not any(
            why_no_house(s, bot, t) is None for t in components().towns):
        act["stage"] = 2  # nowhere to build at all
    if a in ("architect", "merchant") and act["stage"] >= 2 and _piece_moves(s, act) == [Move("skip")]:
        act["stage"] = 4  # no tile in reach and nowhere to go: the action is over
    done = (act["stage"] >= 4
            or (a in ("character", "contract") and act["ap"] <= 0 and (a != "character" or act["discarded"]
                                                                       or not any(s.character_offer)))
            or (a == "king" and act["ap"] <= 0))
    if a == "character" and act["ap"] <= 0:
        done = True
    if done:
        so["stage"], so["act"] = "tasks", None


def apply(s: GameState, m: Move, chance) -> None:
    """Apply a bot move (already checked)."""
    c = components()
    so = s.solo
    bot = s.seats[0]
    v = m.verb
    stage = so["stage"]
    if stage == "die":
        letter, value, _ = m.die
        s.wheel.remove(f"{letter}{value}")
        bot.dice.append(f"{letter}{value}")
        bot.res[LETTERS.index(letter)] += value
        s.turn["die"] = f"{letter}{value}"
        from .actions import wheel_action
        action = wheel_action(s, value)
        s.turn["action"] = action
        tile = s.action_bonus.get(action)
        if tile is not None:
            s.action_bonus[action] = None
            resolve_tile(s, tile, chance)
        so["stage"] = "coffers" if has(s, "deep_coffers") else ("joker" if action == "joker" else "action")
        if so["stage"] == "action":
            _start_action(s, action, 7 - value)
        return
    if stage == "coffers":
        bot.res[LETTERS.index(m.args[0])] += 1
        action = s.turn["action"]
        if action == "joker":
            so["stage"] = "joker"
        else:
            _start_action(s, action, 7 - int(s.turn["die"][1]))
        return
    if stage == "joker":
        _start_action(s, m.args[0], 7 - int(s.turn["die"][1]))
        return
    if stage == "tasks":
        if v == "fulfil":
            fulfil(s, m.args[0])
            so["fulfils"] += 1
        elif v == "crest":
            tile, i = m.args[0], int(m.args[1]) - 1
            need = data()["bot_board"]["crest_food"]
            food = min(bot.res[F], need)
            bot.res[F] -= food
            bot.res[G] -= 2 * (need - food)
            so["inactive"].remove(tile)
            so["crests"][i] = tile
            add_vp(bot, data()["bot_board"]["crest_vp"])
            check_column(s, i)
        elif v == "cathedral":
            town = m.args[0]
            cost = c.tiles[s.cathedral_cost[town]].raw
            stone = min(bot.res[S], cost["stone"])
            bot.res[S] -= stone
            bot.res[G] -= 2 * (cost["stone"] - stone)
            t = s.cathedral_stack[town].pop()
            bot.cathedrals.append(t)
            add_vp(bot, cost["vp"] + c.tiles[t].raw["vp"])
        return  # "end" is handled by the flow
    act = so["act"]
    a = act["action"]
    if v == "skip":
        act["stage"] = 4 if a not in ("architect", "merchant") or act["stage"] >= 2 else 2
    elif a == "architect" and v == "pillar":
        place_pillar(s, bot, bot.architect)
        act["stage"] = 2
    elif a == "merchant" and v == "merchant" and act["stage"] == 0:  # relocating to build: 1 Gold a space
        _pay_gold(bot, c.distances[bot.merchant][m.args[0]])
        bot.merchant = m.args[0]
        act["stage"] = 1
    elif a == "merchant" and v == "house":
        reward = place_house(s, bot, bot.merchant)
        add_vp(bot, sum(x.get("vp", 0) for x in reward or ()))  # only printed VP count for the bot
        act["stage"] = 2
    elif a in ("architect", "merchant") and v == "tile":
        _take_map_tile(s, m.args[0], chance)
        act["stage"] = 3
    elif a in ("architect", "merchant"):  # the final move: free within reach, then 1 Gold a space
        here = bot.architect if a == "architect" else bot.merchant
        _pay_gold(bot, _reach_cost(s, here, m.args[0], act["ap"]))
        setattr(bot, a, m.args[0])
        act["stage"] = 4
    elif a == "character":
        if v == "place":
            tile = m.args[0]
            col, row = place_target(s, tile)
            so["supply"].remove(tile)
            so["columns"][col][row] = tile
            act["ap"] -= 1
            if has(s, "visitors_to_the_curia"):
                _curia(s, tile, chance)
            check_column(s, col)
        elif v == "char":
            so["supply"].append(take_character(s, int(m.args[0]) - 1, chance))
            act["ap"] -= 1
        elif v == "discard":
            discard_characters(s, chance)
            act["discarded"] = True
    elif a == "contract":
        if v == "contract":
            i = int(m.args[0]) - 1
            tile = s.contract_offer[i]
            s.contract_offer[i] = None
            act["ap"] -= c.contract_offer_costs[i]
            if c.tiles[tile].kind == "crest":
                so["inactive"].append(tile)
            else:
                if payment(s, tile) is None:
                    act["unready"] = True
                take_contract(s, tile)
        else:  # gain
            bot.res[LETTERS.index(m.args[0])] += 1
            act["ap"] -= 1
    elif a == "king":
        king_advance(s, 0, act["ap"])
        act["ap"] = 0
    _normalise(s)


def _pay_gold(bot, n: int) -> None:
    bot.res[G] -= min(bot.res[G], n)  # "if it doesn't have enough Gold, it pays all it has"


def _take_map_tile(s: GameState, tile: str, chance) -> None:
    for town, tiles in s.map_bonus.items():
        if tile in tiles:
            tiles.remove(tile)
            break
    resolve_tile(s, tile, chance)


def _curia(s: GameState, tile: str, chance) -> None:
    """Visitors to the Curia: the Character's resources and VP; 1 VP per AP, move or build."""
    bot = s.seats[0]
    for atom in components().tiles[tile].raw["bonus"]:
        if gain(s, atom, chance):
            continue
        if "action" in atom:
            add_vp(bot, atom["ap"])
        elif "move" in atom:
            add_vp(bot, atom.get("times", 1))
        elif "move_and_place" in atom:
            add_vp(bot, 2)
        elif "place_here" in atom:
            add_vp(bot, 1)
