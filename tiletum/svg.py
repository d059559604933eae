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
from .describe import COLOUR, fair_text, place_name, tile_name
from .state import GameState

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


def _t(x: float, y: float, text: object, size: int = 11, fill: str = "#222222", anchor: str = "start",
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


def _names(state: GameState, seat_names: list[str] | None) -> list[str]:
    out = []
    for i in range(state.players):
        name = seat_names[i] if seat_names and i < len(seat_names) and seat_names[i] else f"Seat {i}"
        out.append(str(name))
    return out


def render_board_svg(state: GameState, seat_names: list[str] | None = None,
                     leave_out: int | None = None) -> str:
    """The position as a self-contained SVG document (a string of valid XML). ``leave_out``: a
    seat whose own board is not drawn (the turn email pictures it on its own, larger)."""
    names = _names(state, seat_names)
    boards = [p for p in state.seats if p.seat != leave_out]
    total_h = HEIGHT + BOARD_H * len(boards) + (SOLO_H if state.solo is not None else 0) + 4
    parts: list[str] = [_rect(4, 4, MAP_W - 8, HEIGHT - 8, "#eef3e6", stroke="#b9c4a8", rx=8)]
    parts += _map(state, names)
    parts += _panel(state, names)
    y = HEIGHT
    for p in boards:
        parts += _player_board(state, p, names[p.seat], y)
        y += BOARD_H
    if state.solo is not None:
        parts += _solo_board(state, names, y)
    # wider than WIDTH when a long name or list would run past the edge: nothing is clipped
    width = math.ceil(_drawn_width(parts) * SCALE)
    total_h = math.ceil(total_h * SCALE)
    parts = [_enlarge(part, SCALE) for part in parts]
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_h}" '
            f'viewBox="0 0 {width} {total_h}" font-family="Helvetica, Arial, sans-serif">',
            f"<title>{escape(f'Tiletum, round {state.round}')}</title>",
            _rect(0, 0, width, total_h, "#fbf7ee", stroke="none", rx=0)]
    return "\n".join(head + parts + ["</svg>"])


# --- the map -------------------------------------------------------------------------------

def _map(state: GameState, names: list[str], only: set[str] | None = None) -> list[str]:
    """The map's parts; ``only``: just the spaces in it, their pieces, and the roads from them."""
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
                       f'stroke-width="1"><title>{escape(spot)} (road space)</title></circle>')
            out.append("</g>")
    fair_index = {t: i for i, t in enumerate(state.fair_towns)}
    for town in c.towns:
        if only is not None and town not in only:
            continue
        out.append(f'<g class="spot town" data-spot="{town}" data-name="{escape(c.display[town])}">')
        out += _town(state, town, fair_index.get(town), names)
        out.append("</g>")
    out += _pieces(state, names, only)
    out.append(_t(14, HEIGHT - 14, "Houses: squares \u00b7 Pillars: bars \u00b7 figure: Merchant \u00b7 "
                  "pawn: Architect \u00b7 red cross: Cathedral \u00b7 yellow tiles: the Fairs", size=10,
                  fill="#555555"))
    return out


def _town(state: GameState, town: str, fair: int | None, names: list[str] | None = None) -> list[str]:
    c = components()
    x, y = TOWN_XY[town]
    info = c.towns[town]
    out: list[str] = []
    is_fair = fair is not None
    out.append(f'<circle cx="{x}" cy="{y}" r="8" fill="{"#fff3c4" if is_fair else "#ffffff"}" '
               f'stroke="#5a4a2a" stroke-width="1.6"><title>{escape(c.display[town])}</title></circle>')
    label = c.display[town]
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
                             title=f"House of {names[seat] if names else f'player {seat + 1}'}"))
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
                                 title="Pillar of "
                                       f"{names[pillars[i]] if names else f'player {pillars[i] + 1}'}"))
            else:
                out.append(_rect(px, y - 7, 4, 13, "#ffffff", stroke="#aaaaaa", sw=0.5, rx=0.5))
        if unavailable:
            out.append(_t(x + 21, y + 16, "closed", size=9, fill="#888888"))
        else:
            left = len(state.cathedral_stack.get(town, []))
            cost = state.cathedral_cost.get(town)
            stone = c.tiles[cost].raw.get("stone") if cost else None
            if stone is not None:
                out.append(_t(x + 21, y + 16, f"{stone} Stone \u00b7 {left} left", size=9, fill="#7a3a3a"))
    # map Bonus tiles
    tiles = state.map_bonus.get(town, [])
    if tiles:  # a mark per Bonus tile (shield: Crest, disc: Helper, square: Contract), its text as title
        gx = x - (len(tiles) * 11) / 2 + 1
        for i, tile in enumerate(tiles):
            out.append(pieces.glyph(tile, gx + i * 11, row - 8, 9))
        row += 10
    if is_fair:
        scored = fair < state.fairs_scored
        fx, fy = x - 24, y - 4
        # the Fair's tile, with the order the Fairs score in (the side panel's "Fairs" list)
        out.append(_rect(fx - 6, fy - 9, 13, 13, "#f2c200" if not scored else "#dddddd",
                         stroke="#8a6d00", sw=0.6, rx=2, title=f"the Fair scored {_ORDINAL[fair]}"))
        out.append(_t(fx + 0.5, fy + 1.5, f"{fair + 1}", size=9, anchor="middle", weight="bold"))
    return out


_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth")


def _pieces(state: GameState, names: list[str], only: set[str] | None = None) -> list[str]:
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
            label = "Merchant" if letter == "M" else "Architect"
            d = person(start_x + i * 9, py, 11) if letter == "M" else pawn(start_x + i * 9, py, 11)
            out.append(f'<path class="piece-{label.lower()}" d="{d}" fill="{SEAT_COLOURS[seat % 4]}" '
                       f'stroke="#222222" stroke-width="0.6">'
                       f"<title>{escape(f'{label} of {names[seat]}')}</title></path>")
    return out


# --- the side panel ------------------------------------------------------------------------

def _offer_slot(tile: str | None, x: float, y: float, w: float, slot: str) -> list[str]:
    """One slot of an offer on the row whose text baseline is ``y``: its tile as a piece, or empty."""
    data = f' data-offer="{slot}"'
    if tile:
        return pieces.chip(tile, x, y - 12, w, 15, size=9, cls="offer", data=data)
    return [f'<g class="offer"{data}>',
            _rect(x, y - 12, w, 15, "#ffffff", stroke="#c9bfa6", sw=0.6, rx=2, title="an empty space"),
            _t(x + 4, y - 1, "empty", size=9, fill="#999999"), "</g>"]


def _panel(state: GameState, names: list[str]) -> list[str]:
    c = components()
    x = MAP_W + 14
    y = 26
    out: list[str] = []
    rounds = len(state.fair_tiles) or 4
    if state.phase == "over":
        head = f"Game over after round {state.round}"
    else:
        head = f"Round {state.round} of {rounds} \u00b7 {state.phase.title()} phase"
        if state.phase == "action":
            head += f" \u00b7 turn {min(state.cycle, 2) + 1}/3"
    out.append(_t(x, y, head, size=14, weight="bold"))
    y += 18
    if state.phase == "over":
        if state.winner is not None:
            out.append(_t(x, y, f"Winner: {names[state.winner]}", size=12, fill="#8b1a1a", weight="bold"))
    elif state.actor is not None:
        out.append(_t(x, y, f"To act: {names[state.actor]}", size=12,
                      fill=SEAT_COLOURS[state.actor % 4], weight="bold"))
    if state.solo is not None:
        out.append(_t(x + 200, y, f"Solo ({state.solo.get('level', '?')})", size=11, fill="#555555"))
    y += 22

    # Action Wheel
    out.append(_t(x, y, "Action Wheel", size=12, weight="bold"))
    y += 6
    if state.action_tiles:
        for v in range(1, 7):
            action = wheel_action(state, v)
            y += 19
            out.append(f'<g class="wheel-row" data-action="{action}">')
            out.append(_rect(x - 3, y - 13, 80, 17, "#fbf7ee", stroke="none", rx=2))  # the row's target
            out.append(_t(x, y, f"{v}", size=11, weight="bold"))
            out.append(_t(x + 14, y, action.title(), size=11))
            out.append("</g>")
            dice = [d for d in state.wheel if len(d) >= 2 and d[1:2] == str(v)]
            for i, d in enumerate(dice):
                bg, fg = DIE_COLOURS.get(d[0], ("#ffffff", "#222222"))
                dx = x + 86 + i * 17
                out.append(f'<g class="die" data-die="{d[:2]}">')
                out.append(_rect(dx, y - 11, 14, 14, bg, rx=3, title=f"{d} die"))
                out.append(_t(dx + 7, y, d[1:], size=10, fill=fg, anchor="middle", weight="bold"))
                out.append("</g>")
            bonus = state.action_bonus.get(action)
            if bonus:
                out += pieces.chip(bonus, x + 196, y - 12, 136, 15, size=8.5,
                                   cls="bonus-tile", data=f' data-bonus="{bonus}"')
    y += 24

    # King track
    out.append(_t(x, y, "King track", size=12, weight="bold"))
    if state.king_bonus:
        out += pieces.chip(state.king_bonus, x + 160, y - 12, 172, 15, size=8.5,
                           cls="bonus-tile", data=f' data-bonus="{state.king_bonus}"')
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
    out.append(_t(x, y, "Contract offer", size=12, weight="bold"))
    out.append(_t(x + 330, y, "AP to take", size=9, fill="#666666", anchor="end"))
    costs = c.contract_offer_costs
    for i, t in enumerate(state.contract_offer):
        y += 17
        out += _offer_slot(t, x, y, 290, f"contract-{i + 1}")
        if i < len(costs):
            out.append(_t(x + 330, y - 1, f"{costs[i]} AP", size=10, anchor="end", weight="bold"))
    y += 22
    out.append(_t(x, y, "Character offer", size=12, weight="bold"))
    out.append(_t(x + 330, y, "bonus \u00b7 type", size=9, fill="#666666", anchor="end"))
    for i, t in enumerate(state.character_offer):
        y += 17
        out += _offer_slot(t, x, y, 332, f"char-{i + 1}")
    y += 22
    out.append(_t(x, y, "Fairs", size=12, weight="bold"))
    y += 15
    for i, town in enumerate(state.fair_towns):
        tile = state.fair_tiles[i] if i < len(state.fair_tiles) else ""
        pays = fair_text(tile, c.fair_board_values[i]) if tile else ""
        mark = " (scored)" if i < state.fairs_scored else ""
        out.append(_t(x, y, f"{i + 1}. {c.display.get(town, town)}: {pays}{mark}", size=10))
        y += 13
    if state.corruption_revealed:  # each token by its number (the King-track steps back), not its id
        shown = ", ".join(str(c.tiles[z].raw.get("value", "?")) for z in state.corruption_revealed)
        out.append(_t(x, y, f"Corruption revealed: {shown} \u00b7 {len(state.corruption_pool)} face down",
                      size=10, fill="#7a3a3a"))
        y += 13
    y += 10

    # seats: a line each (their boards, below, show the rest)
    out.append(_t(x, y, "Players", size=12, weight="bold"))
    for p in state.seats:
        y += 16
        colour = SEAT_COLOURS[p.seat % 4]
        out.append(_rect(x, y - 10, 11, 11, colour, sw=0.5))
        out.append(_t(x + 16, y, names[p.seat], size=12, weight="bold", fill=colour))
        out.append(_t(x + 330, y, f"{p.score} VP", size=12, weight="bold", anchor="end"))
    return out


# --- the player boards ---------------------------------------------------------------------

RES_FILL = {"gold": "#f2c200", "food": "#f28cb5", "wool": "#d4d4d4", "stone": "#5f5f5f", "iron": "#2f5fb8"}
RES_TEXT = {"gold": "#222222", "food": "#222222", "wool": "#222222", "stone": "#ffffff", "iron": "#ffffff"}


def _player_board(state: GameState, p, name: str, y0: float) -> list[str]:
    """One player's board: a header line, then resources, Storehouse, the six Buildings (Rooms,
    roof, Crest) and the fulfilled Contracts with the Cathedral tiles taken."""
    colour = SEAT_COLOURS[p.seat % 4]
    out = [f'<g class="player-board" data-seat="{p.seat}">',
           _rect(4, y0 + 4, PLAN_W - 8, BOARD_H - 8, "#ffffff", stroke=colour, sw=2, rx=6,
                 title=f"{name}'s board")]
    x, y = 14, y0 + 22
    out.append(_rect(x, y - 11, 12, 12, colour, sw=0.5))
    mark = " (to act)" if state.actor == p.seat and state.phase != "over" else ""
    out.append(_t(x + 18, y, f"{name}{mark}", size=13, weight="bold", fill=colour))
    out.append(_t(PLAN_W - 16, y, f"{p.score} VP", size=14, weight="bold", anchor="end"))
    info = (f"Merchant: {place_name(p.merchant)} · Architect: "
            f"{place_name(p.architect)} · supply: {p.houses} Houses, {p.pillars} Pillars")
    if p.dice:  # a die by its colour and number ("dark gray 4"), not its letter
        info += " · dice: " + ", ".join(f"{COLOUR.get(d[0], d[0])} {d[1:2]}" for d in p.dice)
    bonus = {a: n for a, n in (p.ap_bonus or {}).items() if n}
    if bonus:
        info += " · AP bonus: " + ", ".join(f"{a.title()} +{n}" for a, n in sorted(bonus.items()))
    # after the name however long it is (13-point bold: about 0.62 of the size per character)
    out.append(_t(max(x + 200, x + 18 + len(f"{name}{mark}") * 13 * 0.62 + 12), y, info, size=10,
                  fill="#444444"))
    # resources
    y = y0 + 34
    out.append(_t(x, y + 12, "Resources", size=10, weight="bold"))
    for i, (r, n) in enumerate(zip(RESOURCES, p.res)):
        rx = x + 62 + i * 56
        out.append(_rect(rx, y, 52, 17, RES_FILL[r], rx=3, title=f"{r.title()}: {n}"))
        out.append(_t(rx + 26, y + 12.5, f"{r.title()} {n}", size=10, fill=RES_TEXT[r], anchor="middle",
                      weight="bold"))
    # fulfilled Contracts and Cathedral tiles, in words (each one's full text as the title)
    kx = x + 352
    fulfilled = [pieces.short(k) for k in p.contracts]
    line = f"Contracts fulfilled: {len(p.contracts)}"
    cath = [pieces.short(t) for t in p.cathedrals]
    line += f" \u00b7 Cathedral tiles: {'; '.join(cath) if cath else 'none'}"
    title = "; ".join(fulfilled) if fulfilled else "no Contract fulfilled yet"
    out.append(f'<g class="taken"><title>{escape(title)}</title>' + _t(kx, y + 12, line, size=10) + "</g>")
    # Buildings: Rooms stacked bottom-up (floor 1 at the bottom), roof, Crest below
    y = y0 + 60
    out.append(_t(x, y + 12, "Buildings", size=10, weight="bold"))
    bw = 138   # three Rooms wide enough for a Character's type in full at 12 px
    for b, rooms in enumerate(p.rooms):
        bx = x + 62 + b * (bw + 12)
        roof = p.roofs[b] if b < len(p.roofs) else False
        full = all(rooms) if rooms else True
        # words: a check mark's glyph is missing from some fonts
        marks = ", ".join(m for m, on in (("roof House", roof), ("full", bool(rooms) and full)) if on)
        out.append(_t(bx, y + 8, f"Building {b + 1}{f' ({marks})' if marks else ''}", size=9,
                      fill="#444444"))
        for f, who in enumerate(rooms):
            fx = bx + f * 46
            # an empty Room is an empty box (no "1.2": its number is notation); a Character by its type
            out.append(f'<g class="room" data-room="{b + 1}.{f + 1}">')
            out.append(_rect(fx, y + 12, 44, 16, "#e9e0f7" if who else "#ffffff", stroke="#7a6a9a", sw=0.6,
                             title=(f"Building {b + 1}, floor {f + 1}: "
                                    + (_tile_title(who) if who else "an empty Room"))))
            if who:
                out.append(_t(fx + 22, y + 24, pieces.type_word(who), size=8, anchor="middle",
                              fill="#222222", weight="bold"))
            out.append("</g>")
        crest = p.crests[b] if b < len(p.crests) else None
        out.append(f'<g class="crest" data-crest="{b + 1}">')
        out.append(_rect(bx, y + 32, bw - 2, 15, "#fff3c4" if crest else "#ffffff", stroke="#8a6d00", sw=0.5,
                         title=f"Crest space {b + 1}: " + (_tile_title(crest) if crest else "empty")))
        out.append(_t(bx + (bw - 2) / 2, y + 43, pieces.short(crest) if crest else f"Crest space {b + 1}",
                      size=9, anchor="middle", fill="#222222" if crest else "#aaaaaa"))
        out.append("</g>")
    # Storehouse: 5 spaces, each tile drawn as what it costs and gives
    y = y0 + 114
    out.append(_t(x, y + 12, "Storehouse", size=10, weight="bold"))
    for i in range(5):
        tile = p.store[i] if i < len(p.store) else None
        sx = x + 62 + i * 172
        if tile:
            out += pieces.chip(tile, sx, y - 6, 168, 28, size=9, cls="store-tile",
                               data=f' data-tile="{tile}"')
        else:
            out.append(_rect(sx, y - 6, 168, 28, "#ffffff", stroke="#c9bfa6", sw=0.6,
                             title="an empty Storehouse space"))
    out.append("</g>")
    return out


def _tile_title(tile: str) -> str:
    try:
        return tile_name(tile)
    except Exception:  # an id the describer does not know (e.g. a cost tile)
        return tile


def _solo_board(state: GameState, names: list[str], y0: float) -> list[str]:
    """The Cardinalbot's board in a solo game: level, Challenges, the Decree row, its Rooms,
    Crests and Contracts (all public)."""
    solo = state.solo or {}
    bot = solo.get("bot", 0)
    colour = SEAT_COLOURS[bot % 4]
    out = ['<g class="cardinalbot-board">',
           _rect(4, y0 + 4, PLAN_W - 8, SOLO_H - 8, "#f7f2ff", stroke=colour, sw=1.5, rx=6,
                 title="the Cardinalbot's board")]
    x, y = 14, y0 + 22
    out.append(_t(x, y, f"Cardinalbot ({names[bot]}), level {solo.get('level', '?')}", size=12, weight="bold",
                  fill=colour))
    challenges = ", ".join(str(ch).replace("_", " ") for ch in solo.get("challenges") or []) or "none"
    out.append(_t(x + 300, y, f"Challenges: {challenges}", size=10, fill="#444444"))
    y += 17
    decrees = [str(d).replace("_", " ") for d in solo.get("decrees") or []]
    pos = solo.get("decree_pos")
    # the Decree row in words, the current one said so (no bracketed marks)
    now = f" \u00b7 now: {decrees[pos]}" if isinstance(pos, int) and 0 <= pos < len(decrees) else ""
    out.append(_t(x, y, f"Decrees: {', '.join(decrees)}{now}", size=9))
    y += 17
    cols = solo.get("columns") or []
    # its pieces in words: a Character by its type, a Crest by its family, a Contract by its terms
    rooms = "; ".join(f"Building {b + 1}: " + (", ".join(pieces.type_word(r) for r in col if r) or "empty")
                      for b, col in enumerate(cols))
    out.append(_t(x, y, f"Rooms \u2013 {rooms or 'none'}", size=9))
    y += 17
    crests = ", ".join(pieces.short(cr).removesuffix(" Crest") for cr in solo.get("crests") or [] if cr)
    contracts = "; ".join(pieces.short(k) for k in solo.get("contracts") or [] if k) or "none"
    out.append(_t(x, y, f"Crests: {crests or 'none'} \u00b7 Contracts: {contracts}", size=9))
    y += 17
    out.append(_t(x, y, f"Contracts fulfilled: {len(solo.get('fulfilled') or [])} \u00b7 Characters in "
                        f"supply: {len(solo.get('supply') or [])}", size=9))
    roll = solo.get("roll")
    if roll:
        out.append(_t(PLAN_W - 16, y, "Decree dice: " + " ".join(str(v) for v in roll), size=10,
                      anchor="end"))
    out.append("</g>")
    return out


__all__ = ["render_board_svg", "SCALE", "WIDTH", "SEAT_COLOURS", "SEAT_COLOUR_NAMES", "TOWN_XY",
           "spot_xy"]
