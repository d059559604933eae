"""Solo mode: the Cardinalbot seat (solo rulebook, from "Cardinalbot's Turn").

A solo game is the two-player game with seat 0 played by the Cardinalbot and seat 1 by the
human. The bot's seat has its own board (``state.solo``) and its own action mechanics, checked
here like any seat's moves. The engine never *chooses* for the bot: which die, which tile, where
to move are the policy's decisions (``cardinalbot/``); the engine checks that each bot move is
one the solo rules allow and applies it. What the rules leave to no choice (resolving a Bonus
tile, the Decree dice, the King and Fair phase differences, final scoring) the engine does.

The bot's own moves, stage by stage (which the solo rules allow, and what each does), are in
``tiletum/solo_turn.py``; the rest of its rules (setup, Bonus tiles, the King and Fair phases,
final scoring) are here.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from .board import (
    add_vp,
    king_advance,
    to_box,
)
from .components import RES_INDEX, components
from .state import GameState

G, F, W, S, I = range(5)  # noqa: E741  (I is Iron: the resources' letters, as in LETTERS)
LETTERS = "GFWSI"
Err = tuple[str, str] | None


@lru_cache(maxsize=1)
def data() -> dict:
    return json.loads(resources.files("tiletum").joinpath("data", "solo.json").read_text("utf-8"))


def decree(card_id: str) -> dict:
    return next(d for d in data()["decrees"] if d["id"] == card_id)


def is_bot(s: GameState, seat: int | None) -> bool:
    return s.solo is not None and seat == s.solo["bot"]


def has(s: GameState, challenge: str) -> bool:
    return s.solo is not None and challenge in s.solo["challenges"]


# --- setup ---------------------------------------------------------------------------------

def setup_solo(s: GameState, options: dict, chance) -> None:
    """Solo setup (steps 1-11) on top of the two-player setup; seat 0 is the Cardinalbot."""
    c = components()
    d = data()
    spec = options.get("solo") or {}
    if spec.get("challenges") is not None:
        challenges = sorted(set(spec["challenges"]))
        unknown = set(challenges) - {ch["id"] for ch in d["challenges"]}
        if unknown:
            raise ValueError(f"unknown Challenge cards: {sorted(unknown)}")
        level = None
    else:
        level = spec.get("level", "deacon")
        if level not in d["levels"]:
            raise ValueError(f"unknown level {level!r} (priest, deacon or bishop)")
        pool = sorted(ch["id"] for ch in d["challenges"])
        challenges = []
        for _ in range(d["levels"][level]):
            ch = chance.choice("challenge", pool)
            pool.remove(ch)
            challenges.append(ch)
        challenges.sort()
    board = d["bot_board"]
    bot = s.seats[0]
    bot.houses, bot.pillars = board["houses"], board["pillars"]
    bot.roofs = [False] * len(bot.roofs)
    bot.rooms = [[] for _ in bot.rooms]
    # the King track: the bot starts on +3 (+5 with Favor at the Court)
    start = (board["king_start_value_favor"] if "favor_at_the_court" in challenges
             else board["king_start_value"])
    s.king_pos[0] = c.king_values.index(start)
    # the Decree row: the Fairs' Decrees in Fair order, then Everlasting Fame, Worldly Riches
    by_fair = {x["fair_tile"]: x["id"] for x in d["decrees"] if x["fair_tile"]}
    row = [by_fair[f] for f in s.fair_tiles] + list(d["decree_tail"])
    # the bot's Merchant on an unused Town tile; its Architect at the cheapest Cathedral
    unused = sorted(t for t in c.pile_ids["town"] if t not in s.fair_towns)
    bot.merchant = c.tiles[chance.choice("bot-town", unused)].raw["town"]
    available = [t for t in c.cathedral_towns if not c.tiles[s.cathedral_cost[t]].raw.get("unavailable")]
    bot.architect = min(available, key=lambda t: (c.tiles[s.cathedral_cost[t]].raw["stone"], t))
    ap = board["column_ap_ready_for_action"] if "ready_for_action" in challenges else board["column_ap"]
    s.solo = {
        "bot": 0, "human": 1, "level": level, "challenges": challenges,
        "decrees": row, "decree_pos": 0, "roll": None,
        "columns": [[None, None] for _ in range(board["columns"])],
        "column_ap": list(ap),
        "crests": [None] * board["columns"],
        "inactive": [], "supply": [], "contracts": [], "fulfilled": [],
        "stage": None, "act": None, "fulfils": 0,
    }


def start_bot_turn(s: GameState, chance) -> None:
    """Step 1-2 of the bot's turn: back to the leftmost Decree, roll the two Decree dice."""
    so = s.solo
    d1, d2 = chance.roll("decree-die"), chance.roll("decree-die")
    so["roll"] = [d1, d2]
    so["decree_pos"] = min(abs(d1 - d2), len(so["decrees"]) - 1)
    so["stage"], so["act"], so["fulfils"] = "die", None, 0


# --- what the bot has ----------------------------------------------------------------------

def bot_has_crest(s: GameState, family: str) -> bool:
    tiles = components().tiles
    so = s.solo
    return any(t is not None and tiles[t].raw["crest"] == family for t in so["crests"] + so["inactive"])


def column_of_type(s: GameState, kind: str) -> int | None:
    c = components()
    for i, col in enumerate(s.solo["columns"]):
        if col[0] is not None and c.tile_raw(col[0], s.rules)["type"] == kind:
            return i
    return None


def place_target(s: GameState, tile: str) -> tuple[int, int] | None:
    """Where the bot puts this Character: below one of its type, else the leftmost empty top."""
    kind = components().tile_raw(tile, s.rules)["type"]
    cols = s.solo["columns"]
    i = column_of_type(s, kind)
    if i is not None:
        return (i, 1) if cols[i][1] is None else None
    for i, col in enumerate(cols):
        if col[0] is None:
            return (i, 0)
    return None


def spendable_food(s: GameState, end_game: bool = False) -> int:
    food = s.seats[0].res[F]
    return food if end_game else max(0, food - data()["bot_board"]["reserved_food"])


def payment(s: GameState, tile: str, end_game: bool = False) -> dict[int, int] | None:
    """What the bot pays for a Contract (step 6C), or None if it cannot: Iron and Wool from
    stock, 2 Gold per missing one; an identical part in Gold, else Food (4 or more, reserve
    kept), else Wool or Iron (whichever it has more of); never Stone."""
    raw = components().tiles[tile].raw
    res = list(s.seats[0].res)
    pay = [0] * 5
    for name, n in raw.get("cost", {}).items():
        i = RES_INDEX[name]
        own = min(res[i], n)
        pay[i] += own
        res[i] -= own
        missing = n - own
        if missing:
            if i not in (I, W) or res[G] < 2 * missing:
                return None
            pay[G] += 2 * missing
            res[G] -= 2 * missing
    n = raw.get("identical") or 0
    if n:
        food = res[F] if end_game else max(0, res[F] - data()["bot_board"]["reserved_food"])
        options = [G] + ([F] if s.seats[0].res[F] >= 4 or end_game
                         else []) + sorted((W, I), key=lambda i: -res[i])
        for i in options:
            have = food if i == F else res[i]
            if have >= n:
                pay[i] += n
                break
        else:
            return None
    return {i: n for i, n in enumerate(pay) if n}


def most_required(s: GameState) -> list[str]:
    """The bot's most required resource ("Most Required Resource"); several letters on a tie."""
    c = components()
    so = s.solo
    bot = s.seats[0]
    costs = [c.tiles[s.cathedral_cost[t]].raw["stone"] for t in c.cathedral_towns
             if 0 in s.pillars.get(t, ()) and s.cathedral_stack.get(t)
             and not any(c.tiles[x].raw["cathedral"] == t for x in bot.cathedrals)
             and not c.tiles[s.cathedral_cost[t]].raw.get("unavailable")]
    if costs and bot.res[S] < min(costs):
        return ["S"]
    if so["inactive"] and bot.res[F] < data()["bot_board"]["crest_food"] and any(
            col[0] is not None and col[1] is not None and so["crests"][i] is None
            for i, col in enumerate(so["columns"])):
        return ["F"]
    if so["contracts"]:
        need = contract_need(s)
        if need["I"] != need["W"]:
            return ["I" if need["I"] > need["W"] else "W"]
        if bot.res[I] != bot.res[W]:
            return ["I" if bot.res[I] < bot.res[W] else "W"]
        return ["I", "W"]
    return ["G"]


def contract_need(s: GameState) -> dict[str, int]:
    """Iron and Wool the bot still needs to gain for its unfulfilled Contracts."""
    c = components()
    want = {"I": 0, "W": 0}
    for t in s.solo["contracts"]:
        cost = c.tiles[t].raw.get("cost", {})
        want["I"] += cost.get("iron", 0)
        want["W"] += cost.get("wool", 0)
    bot = s.seats[0]
    return {"I": max(0, want["I"] - bot.res[I]), "W": max(0, want["W"] - bot.res[W])}


def pick(s: GameState, chance, options: list[str]) -> str:
    return options[0] if len(options) == 1 else chance.choice("bot-tie", sorted(options))


# --- Bonus tiles: how the bot resolves them (page 14 and the Challenges) --------------------

def bonus_category(tile: str) -> str:
    t = components().tiles[tile]
    if t.kind == "crest":
        return "crest"
    if t.kind == "contract":
        return "contract"
    return t.raw.get("category", "misc")


def gain(s: GameState, atom: dict, chance) -> bool:
    """The bot gains what a bonus atom gives in Resources or VP (``gain``, ``vp``, ``any``: the
    Resource it most needs); False for an atom of another kind, which gives it nothing here."""
    bot = s.seats[0]
    if "gain" in atom:
        for r, n in atom["gain"].items():
            bot.res[RES_INDEX[r]] += n
    elif "vp" in atom:
        add_vp(bot, atom["vp"])
    elif "any" in atom:
        for _ in range(atom["any"]):
            bot.res[LETTERS.index(pick(s, chance, most_required(s)))] += 1
    else:
        return False
    return True


def resolve_tile(s: GameState, tile: str, chance) -> None:
    """The bot gains a Bonus tile and resolves it at once."""
    c = components()
    so = s.solo
    bot = s.seats[0]
    cat = bonus_category(tile)
    raw = c.tiles[tile].raw
    if cat == "crest":
        if bot_has_crest(s, raw["crest"]):
            to_box(s, tile)
        else:
            so["inactive"].append(tile)
        return
    if cat == "contract" and has(s, "very_special_friends"):
        take_contract(s, tile)
        return
    if cat == "misc" and has(s, "very_special_friends"):
        bot.res[G] += 5
    elif cat == "resource" and has(s, "resourceful_clergy"):
        for atom in raw.get("effect", ()):
            gain(s, atom, chance)
    elif cat == "action":
        ap = sum(a.get("ap", 0) + a.get("add_ap", 0) for a in raw.get("effect", ()))
        if has(s, "whispers_in_the_kings_ear"):
            king_advance(s, 0, 1)
        if has(s, "ecclesiastical_income"):
            add_vp(bot, ap)
    to_box(s, tile)


def take_contract(s: GameState, tile: str) -> None:
    """A Contract the bot gains: fulfilled at once if it can pay, else onto a free space, else
    out of the game."""
    so = s.solo
    if payment(s, tile) is not None:
        fulfil(s, tile)
    elif len(so["contracts"]) < data()["bot_board"]["contract_spaces"]:
        so["contracts"].append(tile)
    else:
        to_box(s, tile)


def fulfil(s: GameState, tile: str, end_game: bool = False) -> None:
    bot = s.seats[0]
    for i, n in payment(s, tile, end_game).items():
        bot.res[i] -= n
    if tile in s.solo["contracts"]:
        s.solo["contracts"].remove(tile)
    s.solo["fulfilled"].append(tile)
    add_vp(bot, (components().tiles[tile].raw.get("vp") or 0) + data()["bot_board"]["contract_bonus_vp"])


def column_completed(s: GameState, i: int) -> bool:
    so = s.solo
    return so["columns"][i][0] is not None and so["columns"][i][1] is not None and so["crests"][i] is not None


def check_column(s: GameState, i: int) -> None:
    """Two Characters and a Crest: the column's Bonus AP marker goes on its Action."""
    if column_completed(s, i):
        action = components().tile_raw(s.solo["columns"][i][0], s.rules)["action"]
        s.seats[0].ap_bonus.setdefault(action, s.solo["column_ap"][i])


# --- phases --------------------------------------------------------------------------------

def king_tile(s: GameState, chance) -> None:
    """The bot is first in the King phase: it collects the tile and resolves it at once."""
    tile = s.king_bonus
    s.king_bonus = None
    resolve_tile(s, tile, chance)


def king_reset(s: GameState) -> None:
    """After King phase step 2: below +3 (+5 with Favor at the Court) goes back up to it."""
    c = components()
    board = data()["bot_board"]
    value = board["king_start_value_favor"] if has(s, "favor_at_the_court") else board["king_start_value"]
    target = c.king_values.index(value)
    if s.king_pos[0] < target:
        s.king_pos[0] = target
        s.king_counter += 1
        s.king_seq[0] = s.king_counter


def fair_count(s: GameState, counts: str) -> int:
    """What the bot counts at a Fair (solo rules, Fair phase)."""
    from .board import fair_count as human_count
    so = s.solo
    bot = s.seats[0]
    crests = sum(1 for t in so["crests"] if t is not None)
    if counts == "contracts":
        return len(so["fulfilled"])
    if counts == "contract_crest_sets":
        return min(len(so["fulfilled"]), crests)
    if counts == "contract_cathedral_sets":
        return min(len(so["fulfilled"]), len(bot.cathedrals))
    if counts == "crests":
        return crests
    if counts == "upper_characters":
        return sum(1 for col in so["columns"] if col[0] is not None)
    if counts == "filled_buildings":
        return sum(1 for col in so["columns"] if col[0] is not None and col[1] is not None)
    if counts in ("houses", "pillars", "house_pillar_sets", "cathedrals"):
        return human_count(s, bot, counts)
    raise ValueError(counts)


def final_scoring(s: GameState) -> dict:
    """The bot's final scoring: Houses x Pillars; with Contracts left, Stone and Food become
    Gold and it tries to fulfil them; 1 VP per 4 resources."""
    from .board import houses_on_map, pillars_on_map
    bot = s.seats[0]
    so = s.solo
    h, p = houses_on_map(s, 0), pillars_on_map(s, 0)
    out: dict = {"before": bot.score, "houses": h, "pillars": p, "houses_x_pillars": h * p,
           "completed_buildings": 0, "buildings_vp": 0}
    add_vp(bot, h * p)
    converted = []
    if so["contracts"]:
        bot.res[G] += bot.res[S] + bot.res[F]
        bot.res[S] = bot.res[F] = 0
        for t in sorted(so["contracts"], key=lambda t: _size(t)):
            if payment(s, t, end_game=True) is not None:
                fulfil(s, t, end_game=True)
                converted.append(t)
    out["contracts_fulfilled_at_end"] = converted
    out["contracts_vp"] = bot.score - out["before"] - h * p
    out["resources"] = sum(bot.res)
    out["resources_vp"] = sum(bot.res) // 4
    add_vp(bot, out["resources_vp"])
    out["total"] = bot.score
    return out


def _size(tile: str) -> int:
    raw = components().tiles[tile].raw
    return sum(raw.get("cost", {}).values()) + (raw.get("identical") or 0)
