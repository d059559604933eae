"""Short human descriptions of moves in their position, for players (API, emails, CLI, pages):
:func:`describe` says what a move would do, in the imperative ("Move your Architect to Milano");
:func:`narrate` says what a player did, in the third person ("Ann moved her Architect to Milano").
Towns are named as the map prints them (Köln, not the id Koeln), road spaces by their two towns."""
from __future__ import annotations

from .actions import shift_cost, wheel_action
from .components import LETTER_RES, components
from .notation import Move
from .state import GameState

COLOUR = {"G": "yellow", "F": "pink", "W": "light gray", "S": "dark gray", "I": "blue"}


def place_name(spot: str) -> str:
    """A map spot as players read it: a town's printed name ('Köln'), a road space as 'the road
    between London and Brugge'."""
    c = components()
    if spot in c.towns or "_" not in spot:
        return c.display.get(spot, spot)
    a, b = spot.split("_", 1)
    return f"the road between {c.display.get(a, a)} and {c.display.get(b, b)}"


def an(word: str) -> str:
    """The indefinite article for ``word``: 'an Architect Action', 'a Merchant Action'."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def tile_name(tile: str) -> str:
    """A tile as players know it, by what it costs and gives, with its article: 'a Contract (2
    Iron for 2 VP)', 'a Character (when placed: gain 2 Gold; type: Architect Action)'. Never its id (K12,
    C42, B03): that is notation, which a page shows beside the words, marked up as code."""
    t = components().tiles[tile]
    raw = t.raw
    if t.kind == "crest":
        return f"{an(raw['crest'])} {raw['crest']} Crest"
    if t.kind == "contract":
        cost = [f"{n} {r.title()}" for r, n in raw.get("cost", {}).items()]
        n = raw.get("identical") or 0
        if n:
            cost.append("1 resource of any kind" if n == 1 else f"{n} identical resources")
        gives = f"{raw.get('vp', 0)} VP"
        if raw.get("benefit"):
            gives += f" and {effects_text(raw['benefit'])}"
        return f"a Contract ({' + '.join(cost) or 'nothing'} for {gives})"
    if t.kind == "helper":
        return f"a Helper ({effects_text(raw['effect'])})"
    if t.pile == "character":
        # its bonus comes when it is placed in a Room; its type is the Action a completed Building
        # of it strengthens (rulebook: Character tiles)
        return f"a Character (when placed: {effects_text(raw['bonus'])}; type: {raw['type'].title()} Action)"
    return "a tile"


# What a Fair tile rewards, per unit ("Appendix: Fair tiles"; tiletum/board.py fair_count)
FAIR_UNITS = {
    "house_pillar_sets": "House and Pillar pair on the map",
    "contract_cathedral_sets": "Contract and Cathedral pair",
    "contracts": "Contract", "contract_crest_sets": "Contract and Crest pair", "houses": "House on the map",
    "upper_characters": "Character on an upper floor", "crests": "Crest", "pillars": "Pillar on the map",
    "filled_buildings": "completed Building", "cathedrals": "Cathedral",
}


def fair_text(tile: str, board_vp: int = 0) -> str:
    """What a Fair tile pays in words, with the Fair space's own value ``board_vp`` added as the
    scoring does (tiletum/flow.py fair_vp): '4 VP per Character on an upper floor'."""
    raw = components().tiles[tile].raw
    per = board_vp + raw["vp"]
    if raw["counts"] == "king_track":
        return f"{per} VP plus the King track's VP"
    return f"{per} VP per {FAIR_UNITS.get(raw['counts'], raw['counts'])}"


def effects_text(atoms) -> str:
    out = []
    for a in atoms or ():
        if "gain" in a:
            out.append("gain " + ", ".join(f"{n} {r.title()}" for r, n in a["gain"].items()))
        elif "vp" in a:
            out.append(f"{a['vp']:+d} VP")
        elif "any" in a:
            out.append(f"gain {a['any']} resource{'s' if a['any'] > 1 else ''} of your choice")
        elif "action" in a:
            name = ("an Action of your choice" if a["action"] == "any"
                    else f"{an(a['action'])} {a['action'].title()} Action")
            out.append(f"{name} with {a['ap']} AP")
        elif "move" in a:
            n = a.get("times", 1)
            out.append(f"move your {a['move'].title()} up to {n} step{'s' if n != 1 else ''}")
        elif "move_town" in a:
            out.append(f"move your {a['move_town'].title()} to an adjacent Town")
        elif "move_and_place" in a:
            what = "House" if a["move_and_place"] == "merchant" else "Pillar"
            out.append(f"move your {a['move_and_place'].title()} 1 step and/or place a {what} there")
        elif "place_here" in a:
            out.append(f"place a {a['place_here'].title()} where your "
                       f"{'Merchant' if a['place_here'] == 'house' else 'Architect'} is")
        elif "building_bonus" in a:
            out.append("the bonuses of all Characters in one of your Buildings")
        elif "king" in a:
            out.append(f"{a['king']} step{'s' if a['king'] != 1 else ''} up the King track")
        elif "add_ap" in a:
            out.append(f"+{a['add_ap']} AP to your current Action")
        elif "die_resource" in a:
            out.append("take your die's Resources as a type of your choice")
        elif "place_anywhere" in a:
            out.append(f"place a {a['place_anywhere'].title()} anywhere")
        elif "teleport" in a:
            out.append(f"move your {a['teleport'].title()} to any spot")
    return "; ".join(out) or "no effect"


def _take(s: GameState, p, m: Move) -> tuple[str, str, str, str, int]:
    """A die taken, as both :func:`describe` and :func:`narrate` say it: the die ('yellow 4
    die'), the turn it is given (', paying 2 Gold to turn it into a 2' or ''), the Resources it
    gives ('4 Gold'), the Action and its AP."""
    letter, value, target = m.die
    override = s.turn.get("override") if s.turn else None
    res = override or LETTER_RES[letter]
    action = wheel_action(s, target)
    ap = 7 - target + (p.ap_bonus.get(action, 0) if action != "joker" else 0)
    shift = f", paying {shift_cost(value, target)} Gold to turn it into a {target}" if target != value else ""
    return f"{COLOUR[letter]} {value} die", shift, f"{target} {res.title()}", action.title(), ap


def describe(s: GameState, m: Move) -> str:
    """What this move does here, in a short sentence."""
    c = components()
    v, a = m.verb, m.args
    seat = s.actor if s.actor is not None else 0
    p = s.seats[seat]
    if v == "take":
        die, shift, gain, action, ap = _take(s, p, m)
        return f"Take the {die}{shift}: gain {gain} and perform the {action} Action with {ap} AP"
    if v in ("merchant", "architect"):
        return f"Move your {v.title()} to {place_name(a[0])}"
    if v == "house":
        town = m.town or p.merchant
        where = f" on House space {m.space}" if m.space is not None else ""
        reward = ""
        if m.space is not None and town in c.towns and m.space <= len(c.house_spaces(town, s.players)):
            reward = f" ({effects_text(c.house_spaces(town, s.players)[m.space - 1].get('reward'))})"
        return f"Place a House in {place_name(town)}{where}{reward}"
    if v == "pillar":
        return f"Place a Pillar at the {place_name(a[0] if a else p.architect)} Cathedral"
    if v == "tile":
        return f"Take {tile_name(a[0])} into your Storehouse"
    if v == "skip":
        top = s.agenda[-1] if s.agenda else None
        if top and top["t"] == "frame":
            return f"Stop the extra {top['action'].title()} Action ({top['ap']} AP unused)"
        if top and top.get("kind") == "king_tile":
            return "Discard the King-track Bonus tile"
        return "Decline"
    if v == "char":
        return f"Take {tile_name(s.character_offer[int(a[0]) - 1])} from the Character offer (1 AP)"
    if v == "discard":
        return "Discard the whole Character offer and refill it (1 AP)"
    if v == "place":
        b, f = a[1].split(".")
        return f"Place {tile_name(a[0])} in Building {b}, floor {f} ({f} AP)"
    if v == "contract":
        i = int(a[0]) - 1
        return f"Take {tile_name(s.contract_offer[i])} from the offer ({c.contract_offer_costs[i]} AP)"
    if v == "exchange":
        return f"Exchange 1 {LETTER_RES[a[0]].title()} for 1 {LETTER_RES[a[1]].title()} (1 AP)"
    if v == "king":
        top = s.agenda[-1] if s.agenda else None
        return f"Advance on the King track ({top['ap'] if top else '?'} steps)"
    if v == "buy":
        return f"Pay 2 Gold for 1 {LETTER_RES[a[0]].title()}"
    if v == "fulfil":
        paid = f", paying the identical part in {LETTER_RES[a[1]].title()}" if len(a) > 1 else ""
        return f"Fulfil {tile_name(a[0])}{paid}"
    if v == "crest":
        i = int(a[1]) - 1
        sp = c.crest_spaces[i]
        return (f"Place {tile_name(a[0])} on Crest space {a[1]} for {sp['food']} Food: "
                f"{effects_text(sp['bonus'])}")
    if v == "cathedral":
        cost = c.tiles[s.cathedral_cost[a[0]]].raw
        return (f"Contribute to the {place_name(a[0])} Cathedral: pay {cost['stone']} Stone, score "
                f"{cost['vp']} VP + its tile")
    if v == "use":
        return f"Use {tile_name(a[0])}"
    if v == "gain":
        return f"Choose {LETTER_RES[a[0]].title()}"
    if v == "action":
        return f"Choose the {a[0].title()} Action"
    if v == "building":
        return f"Choose Building {a[0]} for its Characters' bonuses"
    if v == "bonus":
        return f"Receive the bonus of {tile_name(a[0])}"
    if v == "end":
        return "End your turn"
    if v == "undo":
        return "Take back your last move"
    return str(m)


def narrate(s: GameState, m: Move, who: str, their: str = "their") -> str:
    """What ``who`` (the seat to act in ``s``) did with this move, in the third person and the
    past tense: 'Ann took the yellow 4 die: 4 Gold and the Contract Action with 3 AP'.
    ``their`` is the possessive the sentence uses for the player ('its' for a machine)."""
    c = components()
    v, a = m.verb, m.args
    seat = s.actor if s.actor is not None else 0
    p = s.seats[seat]
    if v == "take":
        die, shift, gain, action, ap = _take(s, p, m)
        return f"{who} took the {die}{shift}: {gain} and the {action} Action with {ap} AP"
    if v in ("merchant", "architect"):
        return f"{who} moved {their} {v.title()} to {place_name(a[0])}"
    if v == "house":
        return f"{who} placed a House in {place_name(m.town or p.merchant)}"
    if v == "pillar":
        return f"{who} placed a Pillar at the {place_name(a[0] if a else p.architect)} Cathedral"
    if v == "tile":
        return f"{who} took {tile_name(a[0])} into {their} Storehouse"
    if v == "skip":
        top = s.agenda[-1] if s.agenda else None
        if top and top["t"] == "frame":
            return f"{who} stopped the extra {top['action'].title()} Action"
        if top and top.get("kind") == "king_tile":
            return f"{who} discarded the King-track Bonus tile"
        return f"{who} declined"
    if v == "char":
        return f"{who} took {tile_name(s.character_offer[int(a[0]) - 1])} from the Character offer"
    if v == "discard":
        return f"{who} discarded the Character offer and refilled it"
    if v == "place":
        b, f = a[1].split(".")
        return f"{who} placed {tile_name(a[0])} in Building {b}, floor {f}"
    if v == "contract":
        return f"{who} took {tile_name(s.contract_offer[int(a[0]) - 1])} from the offer"
    if v == "exchange":
        return f"{who} exchanged 1 {LETTER_RES[a[0]].title()} for 1 {LETTER_RES[a[1]].title()}"
    if v == "king":
        top = s.agenda[-1] if s.agenda else None
        return f"{who} advanced on the King track" + (f" ({top['ap']} steps)" if top else "")
    if v == "buy":
        return f"{who} paid 2 Gold for 1 {LETTER_RES[a[0]].title()}"
    if v == "fulfil":
        return f"{who} fulfilled {tile_name(a[0])}"
    if v == "crest":
        return f"{who} placed {tile_name(a[0])} on Crest space {a[1]}"
    if v == "cathedral":
        vp = c.tiles[s.cathedral_cost[a[0]]].raw["vp"]
        return f"{who} contributed to the {place_name(a[0])} Cathedral for {vp} VP"
    if v == "use":
        return f"{who} used {tile_name(a[0])}"
    if v == "gain":
        return f"{who} chose {LETTER_RES[a[0]].title()}"
    if v == "action":
        return f"{who} chose the {a[0].title()} Action"
    if v == "building":
        return f"{who} chose Building {a[0]} for its Characters' bonuses"
    if v == "bonus":
        return f"{who} received the bonus of {tile_name(a[0])}"
    if v == "end":
        return f"{who} ended {their} turn"
    return f"{who}: {describe(s, m)}"
