"""An SVG picture of a Tiletum position, for the game page and emails (pure: no I/O).

``render_board_svg(state)`` draws the map as a graph at fixed coordinates (roughly European
geography: London top left, Venezia and Firenze bottom right), with each town's Houses, Pillars,
map Bonus tiles, Cathedral and Fair marks and the Merchants/Architects, and a side panel with the
round, the Action Wheel, the King track, the offers and every seat's score and resources; below
them each player's board (resources, Storehouse, Buildings with their Rooms, roofs and Crests,
fulfilled Contracts, Cathedral tiles, supply, score) and, in a solo game, the Cardinalbot's board.

Only public information is drawn: no pile contents and no face-down Corruption tokens.

The game page draws the same SVG inline and makes its parts clickable, so the parts a move
names carry stable data attributes (the same for every viewer): ``data-spot`` (a town or road
space, by its map id, with ``data-name``, its printed name), ``data-die`` (a die on the Action
Wheel, ``G4``), ``data-action`` (a row of the Wheel), ``data-offer`` (``contract-1``,
``char-3``: a slot of an offer), ``data-bonus`` (a Bonus tile beside the Wheel or the King
track), and on each player's board (``data-seat``) ``data-tile`` (a
Storehouse tile), ``data-room`` (``1.2``) and ``data-crest`` (``1``-``6``).
"""
from __future__ import annotations

import functools
import math
import re
from xml.sax.saxutils import escape, unescape

from .actions import wheel_action
from .components import RESOURCES, components
from rules_common.figures import pawn, person

from . import pieces
from .describe import (action_name, amount, die_colour, fair_text, place_name, resource_name, tile_name,
                       town_name)
from .state import GameState
from .words import N_, NC_, say

# The layout is written on a plan 1020 units wide (towns, panel and boards at these coordinates,
# words at 8 to 14 units, the map's at 9 to 11: tiletum/svg_map.py draws a part of the map for a
# phone at 4/3 of its plan); the drawing is that plan enlarged SCALE times, so that its smallest words
# are 12 pixels at the drawing's own size (the game page shows it at least that large on a phone).
PLAN_W, HEIGHT = 1020, 680  # HEIGHT: the map and side panel; the player boards go below them
SCALE = 1.5
WIDTH = round(PLAN_W * SCALE)  # the drawing's width (wider when a long name needs it)
MAP_W = 660  # room right of Praha and Wien for their Cathedral labels
BOARD_H = 152  # one player board
SOLO_H = 104   # the Cardinalbot's board

SEAT_COLOURS = ("#2f6fd6", "#e8871e", "#2e9e4f", "#8a4fc7")
SEAT_COLOUR_NAMES = ("blue", "orange", "green", "purple")
DIE_COLOURS = {"G": ("#f2c200", "#222222"), "F": ("#f28cb5", "#222222"), "W": ("#d4d4d4", "#222222"),
               "S": ("#5f5f5f", "#ffffff"), "I": ("#2f5fb8", "#ffffff")}

# town positions on the map (x, y); road spaces lie halfway between their two towns
TOWN_XY: dict[str, tuple[int, int]] = {
    "London": (55, 70), "Brugge": (150, 120), "Antwerpen": (238, 95), "Hamburg": (372, 48),
    "Tiletum": (150, 215), "Koeln": (300, 150), "Leipzig": (472, 105), "Paris": (110, 312),
    "Troyes": (225, 300), "Strasbourg": (322, 276), "Frankfurt": (392, 196), "Nuernberg": (462, 252),
    "Praha": (548, 185), "Bordeaux": (62, 472), "Wien": (560, 335), "Lyon": (215, 412),
    "Milano": (340, 452), "Verona": (445, 430), "Venezia": (540, 478), "Toulouse": (112, 562),
    "Arles": (222, 532), "Genova": (342, 560), "Firenze": (475, 575),
}


def spot_xy(spot: str) -> tuple[float, float]:
    if spot in TOWN_XY:
        return TOWN_XY[spot]
    a, b = spot.split("_", 1)
    (xa, ya), (xb, yb) = TOWN_XY[a], TOWN_XY[b]
    return (xa + xb) / 2, (ya + yb) / 2


def _t(x: float, y: float, text: object, size: float = 11, fill: str = "#222222", anchor: str = "start",
       weight: str = "normal", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
            f'font-weight="{weight}"{extra}>{escape(str(text))}</text>')


def _cross(x: float, y: float, size: float, fill: str) -> str:
    """A Latin cross (the Cathedral) drawn as a shape, ``size`` high, centred on ``x``, standing on
    ``y``: a shape, not the glyph, which the fonts a PNG renderer finds may lack."""
    w = size * 0.22
    return (f'<path d="M{x - w / 2:.1f},{y:.1f} h{w:.1f} v{-size * 0.62:.1f} h{size * 0.25:.1f} v{-w:.1f} '
            f'h{-size * 0.25:.1f} v{-(size * 0.38 - w):.1f} h{-w:.1f} v{size * 0.38 - w:.1f} '
            f'h{-size * 0.25:.1f} v{w:.1f} h{size * 0.25:.1f} z" fill="{fill}"/>')


_START_TEXT = re.compile(
    r'<text x="([\d.]+)" y="[\d.]+" font-size="(\d+)"[^>]*text-anchor="start"[^>]*>([^<]*)<')


def _drawn_width(parts: list[str]) -> float:
    """How wide the plan must be for every left-aligned label to fit: a generous estimate of
    each label's right end (0.6 of the font size per character, more than a sans-serif's average)."""
    return max([PLAN_W, *map(_part_right, parts)])


@functools.lru_cache(maxsize=16384)
def _part_right(part: str) -> float:
    """The right end of a part's left-aligned labels (0 when it has none); kept per part, as
    :func:`_enlarge` keeps its enlargement: most parts are the same in every board."""
    right: float = 0.0
    for x, size, text in _START_TEXT.findall(part):
        right = max(right, float(x) + len(unescape(text)) * int(size) * 0.6 + 8)
    return right


_TAG = re.compile(r"<[^>]+>")  # a tag (text and attribute values are escaped: no '>' inside)
_LENGTH = re.compile(r'(\s(?:x|y|x1|y1|x2|y2|cx|cy|r|rx|width|height|font-size|stroke-width)=")(-?[\d.]+)"')
_PATH = re.compile(r'(\sd=")([^"]*)"')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@functools.lru_cache(maxsize=16384)
def _enlarge(part: str, k: float) -> str:
    """A part of the plan drawn ``k`` times as large: every coordinate and length of its tags
    (positions, sizes, radii, font sizes, stroke widths and the paths' numbers) times ``k``;
    no transform, so each label's own font size is the size it is drawn at. Kept per part: most of
    a board (the map, the tracks, the labels) is the same part in every game, and rewriting it was
    most of a board's drawing time (5.6 of 8 ms, each turn email draws one)."""
    def num(v: str) -> str:
        return f"{round(float(v) * k, 2):g}"

    def tag(m: re.Match[str]) -> str:
        t = _LENGTH.sub(lambda a: f'{a.group(1)}{num(a.group(2))}"', m.group(0))
        return _PATH.sub(lambda a: a.group(1) + _NUMBER.sub(lambda n: num(n.group(0)), a.group(2)) + '"', t)
    return _TAG.sub(tag, part)


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "#333333", sw: float = 0.8,
          rx: float = 1.5, title: str | None = None) -> str:
    inner = f"<title>{escape(title)}</title>" if title else ""
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{sw}">{inner}</rect>')


def _signed(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def _names(state: GameState, seat_names: list[str] | None, lang: str | None = None) -> list[str]:
    out = []
    for i in range(state.players):
        name = (seat_names[i] if seat_names and i < len(seat_names) and seat_names[i]
                else say(lang)._("Seat {n}", n=i))
        out.append(str(name))
    return out


def render_board_svg(state: GameState, seat_names: list[str] | None = None,
                     leave_out: int | None = None, lang: str | None = None) -> str:
    """The position as a self-contained SVG document (a string of valid XML). ``leave_out``: a
    seat whose own board is not drawn (the turn email pictures it on its own, larger). Its words in
    ``lang`` (English by default: tiletum/words.py)."""
    names = _names(state, seat_names, lang)
    boards = [p for p in state.seats if p.seat != leave_out]
    total_h = HEIGHT + BOARD_H * len(boards) + (SOLO_H if state.solo is not None else 0) + 4
    parts: list[str] = [_rect(4, 4, MAP_W - 8, HEIGHT - 8, "#eef3e6", stroke="#b9c4a8", rx=8)]
    parts += _map(state, names, lang=lang)
    parts += _panel(state, names, lang)
    y = HEIGHT
    for p in boards:
        parts += _player_board(state, p, names[p.seat], y, lang)
        y += BOARD_H
    if state.solo is not None:
        parts += _solo_board(state, names, y, lang)
    # wider than WIDTH when a long name or list would run past the edge: nothing is clipped
    width = math.ceil(_drawn_width(parts) * SCALE)
    total_h = math.ceil(total_h * SCALE)
    parts = [_enlarge(part, SCALE) for part in parts]
    title = say(lang)._("Tiletum, round {n}", n=state.round)
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_h}" '
            f'viewBox="0 0 {width} {total_h}" font-family="Helvetica, Arial, sans-serif">',
            f"<title>{escape(title)}</title>",
            _rect(0, 0, width, total_h, "#fbf7ee", stroke="none", rx=0)]
    return "\n".join(head + parts + ["</svg>"])


# --- the map -------------------------------------------------------------------------------

def _map(state: GameState, names: list[str], only: set[str] | None = None,
         lang: str | None = None) -> list[str]:
    """The map's parts; ``only``: just the spaces in it, their pieces, and the roads from them."""
    w = say(lang)
    c = components()
    out: list[str] = []
    # roads
    seen = set()
    for a in c.spots:
        for b in c.adjacent[a]:
            if (b, a) in seen or (only is not None and a not in only and b not in only):
                continue
            seen.add((a, b))
            (x1, y1), (x2, y2) = spot_xy(a), spot_xy(b)
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                       f'stroke="#a89a7c" stroke-width="2"/>')
    # road spaces
    for spot in c.spots:
        if not c.is_town(spot) and (only is None or spot in only):
            x, y = spot_xy(spot)
            out.append(f'<g class="spot" data-spot="{spot}" data-name="{escape(c.display.get(spot, spot))}">')
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#d9c9a3" stroke="#8a7a5a" '
                       f'stroke-width="1"><title>{escape(w._("{spot} (road space)", spot=spot))}</title>'
                       '</circle>')
            out.append("</g>")
    fair_index = {t: i for i, t in enumerate(state.fair_towns)}
    for town in c.towns:
        if only is not None and town not in only:
            continue
        out.append(f'<g class="spot town" data-spot="{town}" data-name="{escape(c.display[town])}">')
        out += _town(state, town, fair_index.get(town), names, lang)
        out.append("</g>")
    out += _pieces(state, names, only, lang)
    legend = w._("Houses: squares \u00b7 Pillars: bars \u00b7 figure: Merchant \u00b7 pawn: Architect \u00b7 "
                  "red cross: Cathedral \u00b7 yellow tiles: the Fairs")
    out.append(_t(14, HEIGHT - 14, legend, size=10, fill="#555555"))
    return out


def _town(state: GameState, town: str, fair: int | None, names: list[str] | None = None,
          lang: str | None = None) -> list[str]:
    w = say(lang)
    c = components()
    x, y = TOWN_XY[town]
    info = c.towns[town]
    out: list[str] = []
    is_fair = fair is not None
    out.append(f'<circle cx="{x}" cy="{y}" r="8" fill="{"#fff3c4" if is_fair else "#ffffff"}" '
               f'stroke="#5a4a2a" stroke-width="1.6"><title>{escape(town_name(town, lang))}</title></circle>')
    label = town_name(town, lang)
    out.append(_t(x, y - 12, label, size=11, anchor="middle", weight="bold"))
    # Houses: one square per House space in play, filled with the owner's colour
    spaces = c.house_spaces(town, state.players)
    owners = state.houses.get(town, [])
    size, gap = 8, 10
    x0 = x - (len(spaces) * gap) / 2 + 1
    for i, _sp in enumerate(spaces):
        if i < len(owners) and owners[i] is not None:
            seat = owners[i]
            out.append(_rect(x0 + i * gap, y + 11, size, size, SEAT_COLOURS[seat % 4],
                             title=w._("House of {name}",
                                       name=names[seat] if names else w._("player {n}", n=seat + 1))))
        else:
            out.append(_rect(x0 + i * gap, y + 11, size, size, "#ffffff", stroke="#999999", sw=0.6))
    row = y + 30
    # Cathedral: a cross, Pillar bars per space in play, tiles left in the stack
    if info.cathedral:
        unavailable = bool(c.tiles[state.cathedral_cost[town]].raw.get("unavailable")) \
            if town in state.cathedral_cost else False
        out.append(_cross(x + 11, y + 4, 12, "#8b1a1a" if not unavailable else "#aaaaaa"))
        n = c.pillar_space_count(town, state.players)
        pillars = state.pillars.get(town, [])
        for i in range(n):
            px = x + 21 + i * 6
            if i < len(pillars):
                out.append(_rect(px, y - 7, 4, 13, SEAT_COLOURS[pillars[i] % 4], sw=0.5, rx=0.5,
                                 title=w._("Pillar of {name}", name=names[pillars[i]] if names
                                           else w._("player {n}", n=pillars[i] + 1))))
            else:
                out.append(_rect(px, y - 7, 4, 13, "#ffffff", stroke="#aaaaaa", sw=0.5, rx=0.5))
        if unavailable:
            out.append(_t(x + 21, y + 16, w._("closed"), size=9, fill="#888888"))
        else:
            left = len(state.cathedral_stack.get(town, []))
            cost = state.cathedral_cost.get(town)
            stone = c.tiles[cost].raw.get("stone") if cost else None
            if stone is not None:
                said = w._("{stone} \u00b7 {n} left", stone=amount("stone", stone, lang), n=left)
                out.append(_t(x + 21, y + 16, said, size=9, fill="#7a3a3a"))
    # map Bonus tiles
    tiles = state.map_bonus.get(town, [])
    if tiles:  # a mark per Bonus tile (shield: Crest, disc: Helper, square: Contract), its text as title
        gx = x - (len(tiles) * 11) / 2 + 1
        for i, tile in enumerate(tiles):
            out.append(pieces.glyph(tile, gx + i * 11, row - 8, 9, lang))
        row += 10
    if is_fair:
        scored = fair < state.fairs_scored
        fx, fy = x - 24, y - 4
        # the Fair's tile, with the order the Fairs score in (the side panel's "Fairs" list)
        out.append(_rect(fx - 6, fy - 9, 13, 13, "#f2c200" if not scored else "#dddddd",
                         stroke="#8a6d00", sw=0.6, rx=2, title=w._(_ORDINAL[fair])))
        out.append(_t(fx + 0.5, fy + 1.5, f"{fair + 1}", size=9, anchor="middle", weight="bold"))
    return out


_ORDINAL = (N_("the Fair scored first"), N_("the Fair scored second"), N_("the Fair scored third"),
            N_("the Fair scored fourth"), N_("the Fair scored fifth"), N_("the Fair scored sixth"))


def _pieces(state: GameState, names: list[str], only: set[str] | None = None,
            lang: str | None = None) -> list[str]:
    w = say(lang)
    out: list[str] = []
    at: dict[str, list[tuple[str, int]]] = {}
    for p in state.seats:
        at.setdefault(p.merchant, []).append(("M", p.seat))
        at.setdefault(p.architect, []).append(("A", p.seat))
    for spot, marks in at.items():
        if only is not None and spot not in only:
            continue
        try:
            x, y = spot_xy(spot)
        except (KeyError, ValueError):
            continue
        road = "_" in spot
        start_x = x - (len(marks) * 9) / 2 + 4.5
        py = y + 12 if road else y + 27 + (10 if state.map_bonus.get(spot) else 0)
        for i, (letter, seat) in enumerate(marks):
            # the piece drawn in its player's colour: the Merchant a figure, the Architect a pawn
            label = "Merchant" if letter == "M" else "Architect"   # (the class: a hook, not words)
            said = (w._("Merchant of {name}", name=names[seat]) if letter == "M"
                    else w._("Architect of {name}", name=names[seat]))
            d = person(start_x + i * 9, py, 11) if letter == "M" else pawn(start_x + i * 9, py, 11)
            out.append(f'<path class="piece-{label.lower()}" d="{d}" fill="{SEAT_COLOURS[seat % 4]}" '
                       f'stroke="#222222" stroke-width="0.6">'
                       f"<title>{escape(said)}</title></path>")
    return out


# --- the side panel ------------------------------------------------------------------------

def _offer_slot(tile: str | None, x: float, y: float, w: float, slot: str,
                lang: str | None = None) -> list[str]:
    """One slot of an offer on the row whose text baseline is ``y``: its tile as a piece, or empty."""
    data = f' data-offer="{slot}"'
    if tile:
        return pieces.chip(tile, x, y - 12, w, 15, size=9, cls="offer", data=data, lang=lang)
    said = say(lang)
    return [f'<g class="offer"{data}>',
            _rect(x, y - 12, w, 15, "#ffffff", stroke="#c9bfa6", sw=0.6, rx=2,
                  title=said._("an empty space")),
            _t(x + 4, y - 1, said._("empty"), size=9, fill="#999999"), "</g>"]


# the round's heading: its phase said with the round (one message each: the languages order them
# their own way)
ROUND_HEAD = {"action": N_("Round {n} of {total} \u00b7 Action phase"),
              "king": N_("Round {n} of {total} \u00b7 King phase")}
LEVEL_SAID = {"priest": NC_("level", "priest"), "deacon": NC_("level", "deacon"),
              "bishop": NC_("level", "bishop")}


def round_head(state: GameState, lang: str | None = None) -> str:
    """'Round 2 of 4 · Action phase' (or 'Game over after round 4')."""
    w = say(lang)
    if state.phase == "over":
        return w._("Game over after round {n}", n=state.round)
    rounds = len(state.fair_tiles) or 4
    if state.phase in ROUND_HEAD:
        return w._(ROUND_HEAD[state.phase], n=state.round, total=rounds)
    return f"Round {state.round} of {rounds} \u00b7 {state.phase.title()} phase"


def level_name(level, lang: str | None = None) -> str:
    """The Cardinalbot's level in words ('deacon')."""
    return say(lang).pgettext("level", LEVEL_SAID[level]) if level in LEVEL_SAID else str(level)


def solo_name(kind: str, key, lang: str | None = None) -> str:
    """A Challenge card or a Decree of the solo game (``kind`` 'challenge' or 'decree') by its id: in
    English as the drawing always said it (the id in words: 'deep coffers'), in another language its
    name from the catalog (tiletum/data/solo.json, extracted by tiletum/words.py)."""
    w = say(lang)
    text = str(key).replace("_", " ")
    if w.english:
        return text
    cards = tiletum_solo_names().get(kind, {})
    return w.pgettext(kind, cards[key]) if key in cards else text


@functools.lru_cache(maxsize=None)
def tiletum_solo_names() -> dict[str, dict[str, str]]:
    from .solo import data
    d = data()
    return {"challenge": {c["id"]: c["name"] for c in d["challenges"]},
            "decree": {c["id"]: c["name"] for c in d["decrees"]}}


def _panel(state: GameState, names: list[str], lang: str | None = None) -> list[str]:
    w = say(lang)
    c = components()
    x = MAP_W + 14
    y = 26
    out: list[str] = []
    head = round_head(state, lang)
    if state.phase == "action":
        head += w._(" \u00b7 turn {n}/3", n=min(state.cycle, 2) + 1)
    out.append(_t(x, y, head, size=14, weight="bold"))
    y += 18
    if state.phase == "over":
        if state.winner is not None:
            out.append(_t(x, y, w._("Winner: {name}", name=names[state.winner]), size=12, fill="#8b1a1a",
                          weight="bold"))
    elif state.actor is not None:
        out.append(_t(x, y, w._("To act: {name}", name=names[state.actor]), size=12,
                      fill=SEAT_COLOURS[state.actor % 4], weight="bold"))
    if state.solo is not None:
        out.append(_t(x + 200, y, w._("Solo ({level})", level=level_name(state.solo.get("level", "?"), lang)),
                      size=11, fill="#555555"))
    y += 22

    # Action Wheel
    out.append(_t(x, y, w._("Action Wheel"), size=12, weight="bold"))
    y += 6
    if state.action_tiles:
        for v in range(1, 7):
            action = wheel_action(state, v)
            y += 19
            out.append(f'<g class="wheel-row" data-action="{action}">')
            out.append(_rect(x - 3, y - 13, 80, 17, "#fbf7ee", stroke="none", rx=2))  # the row's target
            out.append(_t(x, y, f"{v}", size=11, weight="bold"))
            out.append(_t(x + 14, y, action_name(action, lang), size=11))
            out.append("</g>")
            dice = [d for d in state.wheel if len(d) >= 2 and d[1:2] == str(v)]
            for i, d in enumerate(dice):
                bg, fg = DIE_COLOURS.get(d[0], ("#ffffff", "#222222"))
                dx = x + 86 + i * 17
                out.append(f'<g class="die" data-die="{d[:2]}">')
                out.append(_rect(dx, y - 11, 14, 14, bg, rx=3, title=w._("{die} die", die=d)))
                out.append(_t(dx + 7, y, d[1:], size=10, fill=fg, anchor="middle", weight="bold"))
                out.append("</g>")
            bonus = state.action_bonus.get(action)
            if bonus:
                out += pieces.chip(bonus, x + 196, y - 12, 136, 15, size=8.5,
                                   cls="bonus-tile", data=f' data-bonus="{bonus}"', lang=lang)
    y += 24

    # King track
    out.append(_t(x, y, w._("King track"), size=12, weight="bold"))
    if state.king_bonus:
        out += pieces.chip(state.king_bonus, x + 160, y - 12, 172, 15, size=8.5,
                           cls="bonus-tile", data=f' data-bonus="{state.king_bonus}"', lang=lang)
    order = sorted(range(state.players), key=lambda i: (-state.king_pos[i], -state.king_seq[i]))
    for seat in order:
        y += 15
        pos = state.king_pos[seat]
        value = c.king_values[pos] if 0 <= pos < len(c.king_values) else pos
        out.append(_rect(x, y - 9, 9, 9, SEAT_COLOURS[seat % 4], sw=0.5))
        out.append(_t(x + 14, y, f"{_signed(value)}", size=11, weight="bold"))
        out.append(_t(x + 44, y, names[seat], size=11))
    y += 24

    # offers: a row per slot, each tile drawn as what it costs and gives (its full text on hover);
    # each slot a group of its own (data-offer), which the game page makes clickable
    out.append(_t(x, y, w._("Contract offer"), size=12, weight="bold"))
    out.append(_t(x + 330, y, w._("AP to take"), size=9, fill="#666666", anchor="end"))
    costs = c.contract_offer_costs
    for i, t in enumerate(state.contract_offer):
        y += 17
        out += _offer_slot(t, x, y, 290, f"contract-{i + 1}", lang)
        if i < len(costs):
            out.append(_t(x + 330, y - 1, w._("{n} AP", n=costs[i]), size=10, anchor="end", weight="bold"))
    y += 22
    out.append(_t(x, y, w._("Character offer"), size=12, weight="bold"))
    out.append(_t(x + 330, y, w._("bonus \u00b7 type"), size=9, fill="#666666", anchor="end"))
    for i, t in enumerate(state.character_offer):
        y += 17
        out += _offer_slot(t, x, y, 332, f"char-{i + 1}", lang)
    y += 22
    out.append(_t(x, y, w._("Fairs"), size=12, weight="bold"))
    y += 15
    for i, town in enumerate(state.fair_towns):
        tile = state.fair_tiles[i] if i < len(state.fair_tiles) else ""
        pays = fair_text(tile, c.fair_board_values[i], lang) if tile else ""
        mark = w._(" (scored)") if i < state.fairs_scored else ""
        out.append(_t(x, y, f"{i + 1}. {town_name(town, lang)}: {pays}{mark}", size=10))
        y += 13
    if state.corruption_revealed:  # each token by its number (the King-track steps back), not its id
        shown = ", ".join(str(c.tiles[z].raw.get("value", "?")) for z in state.corruption_revealed)
        out.append(_t(x, y, w._("Corruption revealed: {shown} \u00b7 {n} face down", shown=shown,
                                n=len(state.corruption_pool)), size=10, fill="#7a3a3a"))
        y += 13
    y += 10

    # seats: a line each (their boards, below, show the rest)
    out.append(_t(x, y, w._("Players"), size=12, weight="bold"))
    for p in state.seats:
        y += 16
        colour = SEAT_COLOURS[p.seat % 4]
        out.append(_rect(x, y - 10, 11, 11, colour, sw=0.5))
        out.append(_t(x + 16, y, names[p.seat], size=12, weight="bold", fill=colour))
        out.append(_t(x + 330, y, w._("{n} VP", n=p.score), size=12, weight="bold", anchor="end"))
    return out


# --- the player boards ---------------------------------------------------------------------

RES_FILL = {"gold": "#f2c200", "food": "#f28cb5", "wool": "#d4d4d4", "stone": "#5f5f5f", "iron": "#2f5fb8"}
RES_TEXT = {"gold": "#222222", "food": "#222222", "wool": "#222222", "stone": "#ffffff", "iron": "#ffffff"}


def _player_board(state: GameState, p, name: str, y0: float, lang: str | None = None) -> list[str]:
    """One player's board: a header line, then resources, Storehouse, the six Buildings (Rooms,
    roof, Crest) and the fulfilled Contracts with the Cathedral tiles taken."""
    w = say(lang)
    colour = SEAT_COLOURS[p.seat % 4]
    out = [f'<g class="player-board" data-seat="{p.seat}">',
           _rect(4, y0 + 4, PLAN_W - 8, BOARD_H - 8, "#ffffff", stroke=colour, sw=2, rx=6,
                 title=w._("{name}'s board", name=name))]
    x, y = 14, y0 + 22
    out.append(_rect(x, y - 11, 12, 12, colour, sw=0.5))
    mark = w._(" (to act)") if state.actor == p.seat and state.phase != "over" else ""
    out.append(_t(x + 18, y, f"{name}{mark}", size=13, weight="bold", fill=colour))
    out.append(_t(PLAN_W - 16, y, w._("{n} VP", n=p.score), size=14, weight="bold", anchor="end"))
    info = w._("Merchant: {merchant} · Architect: {architect} · supply: {houses} Houses, {pillars} Pillars",
               merchant=place_name(p.merchant, lang), architect=place_name(p.architect, lang),
               houses=p.houses, pillars=p.pillars)
    if p.dice:  # a die by its colour and number ("dark gray 4"), not its letter
        info += w._(" · dice: {dice}", dice=", ".join(f"{die_colour(d[0], lang)} {d[1:2]}" for d in p.dice))
    bonus = {a: n for a, n in (p.ap_bonus or {}).items() if n}
    if bonus:
        info += w._(" · AP bonus: {bonus}", bonus=", ".join(f"{action_name(a, lang)} +{n}"
                                                            for a, n in sorted(bonus.items())))
    # after the name however long it is (13-point bold: about 0.62 of the size per character)
    out.append(_t(max(x + 200, x + 18 + len(f"{name}{mark}") * 13 * 0.62 + 12), y, info, size=10,
                  fill="#444444"))
    # resources
    y = y0 + 34
    out.append(_t(x, y + 12, w._("Resources"), size=10, weight="bold"))
    for i, (r, n) in enumerate(zip(RESOURCES, p.res)):
        rx = x + 62 + i * 56
        said = resource_name(r, lang)
        out.append(_rect(rx, y, 52, 17, RES_FILL[r], rx=3, title=f"{said}: {n}"))
        label, at = pieces._fit(f"{said} {n}", 10, 50, 8)   # a longer word than English's drawn smaller
        out.append(_t(rx + 26, y + 12.5, label, size=at, fill=RES_TEXT[r], anchor="middle", weight="bold"))
    # fulfilled Contracts and Cathedral tiles, in words (each one's full text as the title)
    kx = x + 352
    fulfilled = [pieces.short(k, lang) for k in p.contracts]
    cath = [pieces.short(t, lang) for t in p.cathedrals]
    line = w._("Contracts fulfilled: {n} \u00b7 Cathedral tiles: {tiles}", n=len(p.contracts),
               tiles="; ".join(cath) if cath else w._("none"))
    title = "; ".join(fulfilled) if fulfilled else w._("no Contract fulfilled yet")
    out.append(f'<g class="taken"><title>{escape(title)}</title>' + _t(kx, y + 12, line, size=10) + "</g>")
    # Buildings: Rooms stacked bottom-up (floor 1 at the bottom), roof, Crest below
    y = y0 + 60
    out.append(_t(x, y + 12, w._("Buildings"), size=10, weight="bold"))
    bw = 138   # three Rooms wide enough for a Character's type in full at 12 px
    for b, rooms in enumerate(p.rooms):
        bx = x + 62 + b * (bw + 12)
        roof = p.roofs[b] if b < len(p.roofs) else False
        full = all(rooms) if rooms else True
        # words: a check mark's glyph is missing from some fonts
        marks = ", ".join(w._(m) for m, on in ((N_("roof House"), roof), (N_("full"), bool(rooms) and full))
                          if on)
        building = w._("Building {n}", n=b + 1)
        if marks:
            building = w._("{building} ({marks})", building=building, marks=marks)
        out.append(_t(bx, y + 8, building, size=9, fill="#444444"))
        for f, who in enumerate(rooms):
            fx = bx + f * 46
            # an empty Room is an empty box (no "1.2": its number is notation); a Character by its type
            out.append(f'<g class="room" data-room="{b + 1}.{f + 1}">')
            out.append(_rect(fx, y + 12, 44, 16, "#e9e0f7" if who else "#ffffff", stroke="#7a6a9a", sw=0.6,
                             title=w._("Building {n}, floor {floor}: {what}", n=b + 1, floor=f + 1,
                                       what=_tile_title(who, lang) if who else w._("an empty Room"))))
            if who:
                out.append(_t(fx + 22, y + 24, pieces.type_word(who, lang=lang), size=8, anchor="middle",
                              fill="#222222", weight="bold"))
            out.append("</g>")
        crest = p.crests[b] if b < len(p.crests) else None
        out.append(f'<g class="crest" data-crest="{b + 1}">')
        out.append(_rect(bx, y + 32, bw - 2, 15, "#fff3c4" if crest else "#ffffff", stroke="#8a6d00", sw=0.5,
                         title=w._("Crest space {n}: {what}", n=b + 1,
                                   what=_tile_title(crest, lang) if crest else w._("empty"))))
        out.append(_t(bx + (bw - 2) / 2, y + 43, pieces.short(crest, lang) if crest
                      else w._("Crest space {n}", n=b + 1),
                      size=9, anchor="middle", fill="#222222" if crest else "#aaaaaa"))
        out.append("</g>")
    # Storehouse: 5 spaces, each tile drawn as what it costs and gives
    y = y0 + 114
    out.append(_t(x, y + 12, w._("Storehouse"), size=10, weight="bold"))
    for i in range(5):
        tile = p.store[i] if i < len(p.store) else None
        sx = x + 62 + i * 172
        if tile:
            out += pieces.chip(tile, sx, y - 6, 168, 28, size=9, cls="store-tile",
                               data=f' data-tile="{tile}"', lang=lang)
        else:
            out.append(_rect(sx, y - 6, 168, 28, "#ffffff", stroke="#c9bfa6", sw=0.6,
                             title=w._("an empty Storehouse space")))
    out.append("</g>")
    return out


def _tile_title(tile: str, lang: str | None = None) -> str:
    try:
        return tile_name(tile, lang)
    except Exception:  # an id the describer does not know (e.g. a cost tile)
        return tile


def _solo_board(state: GameState, names: list[str], y0: float, lang: str | None = None) -> list[str]:
    """The Cardinalbot's board in a solo game: level, Challenges, the Decree row, its Rooms,
    Crests and Contracts (all public)."""
    w = say(lang)
    solo = state.solo or {}
    bot = solo.get("bot", 0)
    colour = SEAT_COLOURS[bot % 4]
    out = ['<g class="cardinalbot-board">',
           _rect(4, y0 + 4, PLAN_W - 8, SOLO_H - 8, "#f7f2ff", stroke=colour, sw=1.5, rx=6,
                 title=w._("the Cardinalbot's board"))]
    x, y = 14, y0 + 22
    out.append(_t(x, y, w._("Cardinalbot ({name}), level {level}", name=names[bot],
                            level=level_name(solo.get("level", "?"), lang)), size=12, weight="bold",
                  fill=colour))
    challenges = (", ".join(solo_name("challenge", ch, lang) for ch in solo.get("challenges") or [])
                  or w._("none"))
    out.append(_t(x + 300, y, w._("Challenges: {challenges}", challenges=challenges), size=10,
                  fill="#444444"))
    y += 17
    decrees = [solo_name("decree", d, lang) for d in solo.get("decrees") or []]
    pos = solo.get("decree_pos")
    # the Decree row in words, the current one said so (no bracketed marks)
    now = ""
    if isinstance(pos, int) and 0 <= pos < len(decrees):
        now = w._(" \u00b7 now: {decree}", decree=decrees[pos])
    out.append(_t(x, y, w._("Decrees: {decrees}", decrees=", ".join(decrees)) + now, size=9))
    y += 17
    cols = solo.get("columns") or []
    # its pieces in words: a Character by its type, a Crest by its family, a Contract by its terms
    rooms = "; ".join(w._("Building {n}: {types}", n=b + 1, types=", ".join(pieces.type_word(r, lang=lang)
                                                                           for r in col if r) or w._("empty"))
                      for b, col in enumerate(cols))
    out.append(_t(x, y, w._("Rooms \u2013 {rooms}", rooms=rooms or w._("none")), size=9))
    y += 17
    crests = ", ".join(pieces.crest_family(cr, lang) for cr in solo.get("crests") or [] if cr)
    contracts = "; ".join(pieces.short(k, lang) for k in solo.get("contracts") or [] if k) or w._("none")
    out.append(_t(x, y, w._("Crests: {crests} \u00b7 Contracts: {contracts}", crests=crests or w._("none"),
                            contracts=contracts), size=9))
    y += 17
    out.append(_t(x, y, w._("Contracts fulfilled: {n} \u00b7 Characters in supply: {supply}",
                            n=len(solo.get("fulfilled") or []), supply=len(solo.get("supply") or [])),
                  size=9))
    roll = solo.get("roll")
    if roll:
        out.append(_t(PLAN_W - 16, y, w._("Decree dice: {dice}", dice=" ".join(str(v) for v in roll)),
                      size=10, anchor="end"))
    out.append("</g>")
    return out


__all__ = ["render_board_svg", "SCALE", "WIDTH", "SEAT_COLOURS", "SEAT_COLOUR_NAMES", "TOWN_XY",
           "spot_xy"]
