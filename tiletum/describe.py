"""Short human descriptions of moves in their position, for players (API, emails, CLI, pages):
:func:`describe` says what a move would do, in the imperative ("Move your Architect to Milano");
:func:`narrate` says what a player did, in the third person ("Ann moved her Architect to Milano").
Towns are named as the map prints them (Köln, not the id Koeln), road spaces by their two towns.

Each takes a ``lang`` (None: English, the messages themselves) and speaks through Tiletum's catalogs
(tiletum/words.py; docs/i18n.md, "The games' own words")."""
from __future__ import annotations

from .actions import shift_cost, wheel_action
from .components import LETTER_RES, components
from .notation import Move
from .state import GameState
from .words import N_, NC_, NP_, say

COLOUR = {"G": "yellow", "F": "pink", "W": "light gray", "S": "dark gray", "I": "blue"}
# a die's colour said alone ("yellow 4" on the Action Wheel), and a die with its value ("yellow 4 die")
COLOUR_SAID = {"G": NC_("die", "yellow"), "F": NC_("die", "pink"), "W": NC_("die", "light gray"),
               "S": NC_("die", "dark gray"), "I": NC_("die", "blue")}
DIE_SAID = {"G": N_("yellow {value} die"), "F": N_("pink {value} die"), "W": N_("light gray {value} die"),
            "S": N_("dark gray {value} die"), "I": N_("blue {value} die")}
# a resource alone ("Choose Iron") and an amount of it ("2 Iron")
RESOURCE_SAID = {"gold": NC_("resource", "Gold"), "food": NC_("resource", "Food"),
                 "wool": NC_("resource", "Wool"), "stone": NC_("resource", "Stone"),
                 "iron": NC_("resource", "Iron")}
AMOUNT_SAID = {"gold": NP_("{n} Gold", "{n} Gold"), "food": NP_("{n} Food", "{n} Food"),
               "wool": NP_("{n} Wool", "{n} Wool"), "stone": NP_("{n} Stone", "{n} Stone"),
               "iron": NP_("{n} Iron", "{n} Iron")}
# an Action's name ("the Architect Action"), and an Action with its article ("an Architect Action")
ACTION_SAID = {"architect": NC_("action", "Architect"), "merchant": NC_("action", "Merchant"),
               "character": NC_("action", "Character"), "contract": NC_("action", "Contract"),
               "king": NC_("action", "King"), "joker": NC_("action", "Joker")}
AN_ACTION = {"architect": N_("an Architect Action with {ap} AP"),
             "merchant": N_("a Merchant Action with {ap} AP"),
             "character": N_("a Character Action with {ap} AP"),
             "contract": N_("a Contract Action with {ap} AP"), "king": N_("a King Action with {ap} AP")}
CREST_SAID = {"eagle": N_("an eagle Crest"), "lion": N_("a lion Crest"), "cup": N_("a cup Crest"),
              "tower": N_("a tower Crest"), "keys": N_("a keys Crest"), "rose": N_("a rose Crest")}
# the two pieces a player moves, in the effects that move them (one message each: the languages
# inflect them differently)
PIECE_MOVES = {"merchant": NP_("move your Merchant up to {n} step", "move your Merchant up to {n} steps"),
               "architect": NP_("move your Architect up to {n} step", "move your Architect up to {n} steps")}
PIECE_EFFECTS = {
    "merchant": {"move_town": N_("move your Merchant to an adjacent Town"),
                 "move_and_place": N_("move your Merchant 1 step and/or place a House there"),
                 "teleport": N_("move your Merchant to any spot")},
    "architect": {"move_town": N_("move your Architect to an adjacent Town"),
                  "move_and_place": N_("move your Architect 1 step and/or place a Pillar there"),
                  "teleport": N_("move your Architect to any spot")},
}
PLACE_SAID = {"place_here": {"house": N_("place a House where your Merchant is"),
                             "pillar": N_("place a Pillar where your Architect is")},
              "place_anywhere": {"house": N_("place a House anywhere"),
                                 "pillar": N_("place a Pillar anywhere")}}


def _w(lang):
    return say(lang)


def town_name(spot: str, lang: str | None = None) -> str:
    """A town as the map prints it ('Köln'), said through the catalog (which keeps the printed name)."""
    c = components()
    return say(lang).pgettext("town", c.display.get(spot, spot))


def _road(spot: str, lang: str | None) -> tuple[str, str] | None:
    c = components()
    if spot in c.towns or "_" not in spot:
        return None
    a, b = spot.split("_", 1)
    return town_name(a, lang), town_name(b, lang)


def place_name(spot: str, lang: str | None = None) -> str:
    """A map spot as players read it: a town's printed name ('Köln'), a road space as 'the road
    between London and Brugge'."""
    road = _road(spot, lang)
    if road is None:
        return town_name(spot, lang)
    return say(lang)._("the road between {a} and {b}", a=road[0], b=road[1])


def place_to(spot: str, lang: str | None = None) -> str:
    """Where a piece moves to: 'to Köln', 'to the road between London and Brugge'."""
    road, w = _road(spot, lang), say(lang)
    if road is None:
        return w._("to {town}", town=town_name(spot, lang))
    return w._("to the road between {a} and {b}", a=road[0], b=road[1])


def place_in(spot: str, lang: str | None = None, road_on: bool = False) -> str:
    """Where a piece stands: 'in Köln', 'in the road between ...' (``road_on``: 'on the road ...')."""
    road, w = _road(spot, lang), say(lang)
    if road is None:
        return w._("in {town}", town=town_name(spot, lang))
    if road_on:
        return w._("on the road between {a} and {b}", a=road[0], b=road[1])
    return w._("in the road between {a} and {b}", a=road[0], b=road[1])


def resource_name(res: str, lang: str | None = None) -> str:
    """A resource by its name ('gold' or its letter 'G'): 'Gold'."""
    res = LETTER_RES.get(res, res)
    return say(lang).pgettext("resource", RESOURCE_SAID[res]) if res in RESOURCE_SAID else res.title()


def amount(res: str, n: int, lang: str | None = None) -> str:
    """An amount of a resource (its name or letter): '2 Iron'."""
    res = LETTER_RES.get(res, res)
    if res not in AMOUNT_SAID:
        return f"{n} {res.title()}"
    return say(lang).ngettext(*AMOUNT_SAID[res], n)


def action_name(action: str, lang: str | None = None) -> str:
    """An Action's name: 'Architect' (as in 'the Architect Action')."""
    if action in ACTION_SAID:
        return say(lang).pgettext("action", ACTION_SAID[action])
    return action.title()


def die_name(letter: str, value, lang: str | None = None) -> str:
    """A die by its colour and value: 'yellow 4 die'."""
    if letter in DIE_SAID:
        return say(lang)._(DIE_SAID[letter], value=value)
    return f"{letter} {value} die"


def die_colour(letter: str, lang: str | None = None) -> str:
    """A die's colour alone: 'yellow' (as in the Action Wheel's 'yellow 4')."""
    if letter in COLOUR_SAID:
        return say(lang).pgettext("die", COLOUR_SAID[letter])
    return letter


def an(word: str) -> str:
    """The indefinite article for ``word``: 'an Architect Action', 'a Merchant Action'."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def tile_name(tile: str, lang: str | None = None) -> str:
    """A tile as players know it, by what it costs and gives, with its article: 'a Contract (2
    Iron for 2 VP)', 'a Character (when placed: gain 2 Gold; type: Architect Action)'. Never its id (K12,
    C42, B03): that is notation, which a page shows beside the words, marked up as code."""
    w = say(lang)
    t = components().tiles[tile]
    raw = t.raw
    if t.kind == "crest":
        crest = raw["crest"]
        return w._(CREST_SAID[crest]) if crest in CREST_SAID else f"{an(crest)} {crest} Crest"
    if t.kind == "contract":
        cost = [amount(r, n, lang) for r, n in raw.get("cost", {}).items()]
        n = raw.get("identical") or 0
        if n:
            cost.append(w.ngettext("{n} resource of any kind", "{n} identical resources", n))
        gives = w._("{vp} VP", vp=raw.get("vp", 0))
        if raw.get("benefit"):
            gives = w._("{vp} and {benefit}", vp=gives, benefit=effects_text(raw["benefit"], lang))
        return w._("a Contract ({cost} for {gives})", cost=" + ".join(cost) or w._("nothing"), gives=gives)
    if t.kind == "helper":
        return w._("a Helper ({effects})", effects=effects_text(raw["effect"], lang))
    if t.pile == "character":
        # its bonus comes when it is placed in a Room; its type is the Action a completed Building
        # of it strengthens (rulebook: Character tiles)
        return w._("a Character (when placed: {bonus}; type: {action} Action)",
                   bonus=effects_text(raw["bonus"], lang), action=action_name(raw["type"], lang))
    return w._("a tile")


# What a Fair tile rewards, per unit ("Appendix: Fair tiles"; tiletum/board.py fair_count)
FAIR_UNITS = {
    "house_pillar_sets": N_("{n} VP per House and Pillar pair on the map"),
    "contract_cathedral_sets": N_("{n} VP per Contract and Cathedral pair"),
    "contracts": N_("{n} VP per Contract"), "contract_crest_sets": N_("{n} VP per Contract and Crest pair"),
    "houses": N_("{n} VP per House on the map"),
    "upper_characters": N_("{n} VP per Character on an upper floor"), "crests": N_("{n} VP per Crest"),
    "pillars": N_("{n} VP per Pillar on the map"),
    "filled_buildings": N_("{n} VP per completed Building"), "cathedrals": N_("{n} VP per Cathedral"),
}


def fair_text(tile: str, board_vp: int = 0, lang: str | None = None) -> str:
    """What a Fair tile pays in words, with the Fair space's own value ``board_vp`` added as the
    scoring does (tiletum/flow.py fair_vp): '4 VP per Character on an upper floor'."""
    w = say(lang)
    raw = components().tiles[tile].raw
    per = board_vp + raw["vp"]
    if raw["counts"] == "king_track":
        return w._("{n} VP plus the King track's VP", n=per)
    if raw["counts"] in FAIR_UNITS:
        return w._(FAIR_UNITS[raw["counts"]], n=per)
    return f"{per} VP per {raw['counts']}"


def effects_text(atoms, lang: str | None = None) -> str:
    w = say(lang)
    out = []
    for a in atoms or ():
        if "gain" in a:
            out.append(w._("gain {resources}", resources=", ".join(amount(r, n, lang)
                                                                  for r, n in a["gain"].items())))
        elif "vp" in a:
            out.append(w._("{vp} VP", vp=f"{a['vp']:+d}"))
        elif "any" in a:
            out.append(w.ngettext("gain {n} resource of your choice", "gain {n} resources of your choice",
                                  a["any"]))
        elif "action" in a:
            if a["action"] == "any":
                out.append(w._("an Action of your choice with {ap} AP", ap=a["ap"]))
            elif a["action"] in AN_ACTION:
                out.append(w._(AN_ACTION[a["action"]], ap=a["ap"]))
            else:
                out.append(f"{an(a['action'])} {a['action'].title()} Action with {a['ap']} AP")
        elif "move" in a:
            singular, plural = PIECE_MOVES[a["move"]]
            out.append(w.ngettext(singular, plural, a.get("times", 1)))
        elif "move_town" in a:
            out.append(w._(PIECE_EFFECTS[a["move_town"]]["move_town"]))
        elif "move_and_place" in a:
            out.append(w._(PIECE_EFFECTS[a["move_and_place"]]["move_and_place"]))
        elif "place_here" in a:
            out.append(w._(PLACE_SAID["place_here"][a["place_here"]]))
        elif "building_bonus" in a:
            out.append(w._("the bonuses of all Characters in one of your Buildings"))
        elif "king" in a:
            out.append(w.ngettext("{n} step up the King track", "{n} steps up the King track", a["king"]))
        elif "add_ap" in a:
            out.append(w._("+{n} AP to your current Action", n=a["add_ap"]))
        elif "die_resource" in a:
            out.append(w._("take your die's Resources as a type of your choice"))
        elif "place_anywhere" in a:
            out.append(w._(PLACE_SAID["place_anywhere"][a["place_anywhere"]]))
        elif "teleport" in a:
            out.append(w._(PIECE_EFFECTS[a["teleport"]]["teleport"]))
    return "; ".join(out) or w._("no effect")


def _take(s: GameState, p, m: Move, lang: str | None = None) -> tuple[str, str, str, str, int]:
    """A die taken, as both :func:`describe` and :func:`narrate` say it: the die ('yellow 4
    die'), the turn it is given (', paying 2 Gold to turn it into a 2' or ''), the Resources it
    gives ('4 Gold'), the Action and its AP."""
    w = say(lang)
    letter, value, target = m.die
    override = s.turn.get("override") if s.turn else None
    res = override or LETTER_RES[letter]
    action = wheel_action(s, target)
    ap = 7 - target + (p.ap_bonus.get(action, 0) if action != "joker" else 0)
    shift = ""
    if target != value:
        paid = amount("gold", shift_cost(value, target), lang)
        shift = w._(", paying {gold} to turn it into a {value}", gold=paid, value=target)
    return die_name(letter, value, lang), shift, amount(res, target, lang), action_name(action, lang), ap


def _top(s: GameState):
    return s.agenda[-1] if s.agenda else None


def describe(s: GameState, m: Move, lang: str | None = None) -> str:
    """What this move does here, in a short sentence."""
    w = say(lang)
    c = components()
    v, a = m.verb, m.args
    seat = s.actor if s.actor is not None else 0
    p = s.seats[seat]
    if v == "take":
        die, shift, gain, action, ap = _take(s, p, m, lang)
        return w._("Take the {die}{shift}: gain {gain} and perform the {action} Action with {ap} AP",
                   die=die, shift=shift, gain=gain, action=action, ap=ap)
    if v == "merchant":
        return w._("Move your Merchant {where}", where=place_to(a[0], lang))
    if v == "architect":
        return w._("Move your Architect {where}", where=place_to(a[0], lang))
    if v == "house":
        town = m.town or p.merchant
        reward = ""
        if m.space is not None and town in c.towns and m.space <= len(c.house_spaces(town, s.players)):
            space = c.house_spaces(town, s.players)[m.space - 1]
            reward = w._(" ({effects})", effects=effects_text(space.get("reward"), lang))
        if m.space is not None:
            return w._("Place a House in {town} on House space {space}{reward}", town=place_name(town, lang),
                       space=m.space, reward=reward)
        return w._("Place a House in {town}{reward}", town=place_name(town, lang), reward=reward)
    if v == "pillar":
        return w._("Place a Pillar at the {town} Cathedral",
                   town=place_name(a[0] if a else p.architect, lang))
    if v == "tile":
        return w._("Take {tile} into your Storehouse", tile=tile_name(a[0], lang))
    if v == "skip":
        top = _top(s)
        if top and top["t"] == "frame":
            return w._("Stop the extra {action} Action ({ap} AP unused)",
                       action=action_name(top["action"], lang), ap=top["ap"])
        if top and top.get("kind") == "king_tile":
            return w._("Discard the King-track Bonus tile")
        return w._("Decline")
    if v == "char":
        return w._("Take {tile} from the Character offer (1 AP)",
                   tile=tile_name(s.character_offer[int(a[0]) - 1], lang))
    if v == "discard":
        return w._("Discard the whole Character offer and refill it (1 AP)")
    if v == "place" and len(a) < 2:   # the Cardinalbot's: where its rules put it (tiletum/solo.py)
        return w._("Place {tile} in a Building", tile=tile_name(a[0], lang))
    if v == "place":
        b, f = a[1].split(".")
        return w._("Place {tile} in Building {building}, floor {floor} ({floor} AP)",
                   tile=tile_name(a[0], lang), building=b, floor=f)
    if v == "contract":
        i = int(a[0]) - 1
        return w._("Take {tile} from the offer ({ap} AP)", tile=tile_name(s.contract_offer[i], lang),
                   ap=c.contract_offer_costs[i])
    if v == "exchange":
        return w._("Exchange {give} for {get} (1 AP)", give=amount(a[0], 1, lang), get=amount(a[1], 1, lang))
    if v == "king":
        top = _top(s)
        return w._("Advance on the King track ({steps} steps)", steps=top["ap"] if top else "?")
    if v == "buy":
        return w._("Pay {gold} for {get}", gold=amount("gold", 2, lang), get=amount(a[0], 1, lang))
    if v == "fulfil":
        if len(a) > 1:
            return w._("Fulfil {tile}, paying the identical part in {resource}", tile=tile_name(a[0], lang),
                       resource=resource_name(a[1], lang))
        return w._("Fulfil {tile}", tile=tile_name(a[0], lang))
    if v == "crest":
        i = int(a[1]) - 1
        sp = c.crest_spaces[i]
        return w._("Place {tile} on Crest space {space} for {food}: {effects}", tile=tile_name(a[0], lang),
                   space=a[1], food=amount("food", sp["food"], lang), effects=effects_text(sp["bonus"], lang))
    if v == "cathedral":
        cost = c.tiles[s.cathedral_cost[a[0]]].raw
        return w._("Contribute to the {town} Cathedral: pay {stone}, score {vp} VP + its tile",
                   town=place_name(a[0], lang), stone=amount("stone", cost["stone"], lang), vp=cost["vp"])
    if v == "use":
        return w._("Use {tile}", tile=tile_name(a[0], lang))
    if v == "gain":
        return w._("Choose {resource}", resource=resource_name(a[0], lang))
    if v == "action":
        return w._("Choose the {action} Action", action=action_name(a[0], lang))
    if v == "building":
        return w._("Choose Building {building} for its Characters' bonuses", building=a[0])
    if v == "bonus":
        return w._("Receive the bonus of {tile}", tile=tile_name(a[0], lang))
    if v == "end":
        return w._("End your turn")
    if v == "undo":
        return w._("Take back your last move")
    return str(m)


def narrate(s: GameState, m: Move, who: str, their: str = "their", lang: str | None = None) -> str:
    """What ``who`` (the seat to act in ``s``) did with this move, in the third person and the
    past tense: 'Ann took the yellow 4 die: 4 Gold and the Contract Action with 3 AP'.
    ``their`` is the possessive the sentence uses for the player ('its' for a machine: in English;
    another language's messages say the possessive their own way)."""
    w = say(lang)
    c = components()
    v, a = m.verb, m.args
    seat = s.actor if s.actor is not None else 0
    p = s.seats[seat]
    its = their == "its"

    def possessive(theirs: str, its_: str, **values) -> str:
        return w._(its_ if its else theirs, who=who, **values)
    if v == "take":
        die, shift, gain, action, ap = _take(s, p, m, lang)
        return w._("{who} took the {die}{shift}: {gain} and the {action} Action with {ap} AP",
                   who=who, die=die, shift=shift, gain=gain, action=action, ap=ap)
    if v == "merchant":
        return possessive(N_("{who} moved their Merchant {where}"), N_("{who} moved its Merchant {where}"),
                          where=place_to(a[0], lang))
    if v == "architect":
        return possessive(N_("{who} moved their Architect {where}"), N_("{who} moved its Architect {where}"),
                          where=place_to(a[0], lang))
    if v == "house":
        return w._("{who} placed a House in {town}", who=who, town=place_name(m.town or p.merchant, lang))
    if v == "pillar":
        return w._("{who} placed a Pillar at the {town} Cathedral", who=who,
                   town=place_name(a[0] if a else p.architect, lang))
    if v == "tile":
        return possessive(N_("{who} took {tile} into their Storehouse"),
                          N_("{who} took {tile} into its Storehouse"),
                          tile=tile_name(a[0], lang))
    if v == "skip":
        top = _top(s)
        if top and top["t"] == "frame":
            return w._("{who} stopped the extra {action} Action", who=who,
                       action=action_name(top["action"], lang))
        if top and top.get("kind") == "king_tile":
            return w._("{who} discarded the King-track Bonus tile", who=who)
        return w._("{who} declined", who=who)
    if v == "char":
        return w._("{who} took {tile} from the Character offer", who=who,
                   tile=tile_name(s.character_offer[int(a[0]) - 1], lang))
    if v == "discard":
        return w._("{who} discarded the Character offer and refilled it", who=who)
    if v == "place" and len(a) < 2:
        return w._("{who} placed {tile} in a Building", who=who, tile=tile_name(a[0], lang))
    if v == "place":
        b, f = a[1].split(".")
        return w._("{who} placed {tile} in Building {building}, floor {floor}", who=who,
                   tile=tile_name(a[0], lang), building=b, floor=f)
    if v == "contract":
        return w._("{who} took {tile} from the offer", who=who,
                   tile=tile_name(s.contract_offer[int(a[0]) - 1], lang))
    if v == "exchange":
        return w._("{who} exchanged {give} for {get}", who=who, give=amount(a[0], 1, lang),
                   get=amount(a[1], 1, lang))
    if v == "king":
        top = _top(s)
        if top:
            return w._("{who} advanced on the King track ({steps} steps)", who=who, steps=top["ap"])
        return w._("{who} advanced on the King track", who=who)
    if v == "buy":
        return w._("{who} paid {gold} for {get}", who=who, gold=amount("gold", 2, lang),
                   get=amount(a[0], 1, lang))
    if v == "fulfil":
        return w._("{who} fulfilled {tile}", who=who, tile=tile_name(a[0], lang))
    if v == "crest":
        return w._("{who} placed {tile} on Crest space {space}", who=who, tile=tile_name(a[0], lang),
                   space=a[1])
    if v == "cathedral":
        vp = c.tiles[s.cathedral_cost[a[0]]].raw["vp"]
        return w._("{who} contributed to the {town} Cathedral for {vp} VP", who=who,
                   town=place_name(a[0], lang), vp=vp)
    if v == "use":
        return w._("{who} used {tile}", who=who, tile=tile_name(a[0], lang))
    if v == "gain":
        return w._("{who} chose {resource}", who=who, resource=resource_name(a[0], lang))
    if v == "action":
        return w._("{who} chose the {action} Action", who=who, action=action_name(a[0], lang))
    if v == "building":
        return w._("{who} chose Building {building} for its Characters' bonuses", who=who, building=a[0])
    if v == "bonus":
        return w._("{who} received the bonus of {tile}", who=who, tile=tile_name(a[0], lang))
    if v == "end":
        return possessive(N_("{who} ended their turn"), N_("{who} ended its turn"))
    return w._("{who}: {text}", who=who, text=describe(s, m, lang))
