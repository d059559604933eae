"""One seat's own board, drawn narrow for a phone (pure: no I/O): the turn email's second picture.

The whole board (tiletum/svg.py) is 1530 pixels wide and shrinks on a phone's screen until its words
cannot be read; what a player needs to decide is mostly on their own board. This drawing is 360
pixels wide (a phone's email column: it is not shrunk there), with words at 12 to 15 pixels: the
score, where the Merchant and Architect stand, the supply, the resources, the Storehouse, the six
Buildings (a row each, with their Rooms, roof and Crest), the fulfilled Contracts and the Cathedral
tiles. Only public information is drawn.
"""
from __future__ import annotations

import textwrap
from xml.sax.saxutils import escape

from . import pieces
from .components import RESOURCES
from .describe import die_colour, place_name, resource_name
from .state import GameState
from .svg import RES_FILL, RES_TEXT, SEAT_COLOURS, _rect, _t
from .words import N_, say

SEAT_W = 360   # a phone's email column: shown at its own size, its 12-px words stay 12 px


def resource_boxes(res, x: float, y: float, lang: str | None = None) -> tuple[list[str], int]:
    """A seat's five resources as boxes in their colours with their names and amounts in words of
    12 px: five across (64 px each), or, where a language's names are too long for that, three and
    two across (108 px each). Answers the parts and their height."""
    said = [(r, n, f"{resource_name(r, lang)} {n}") for r, n in zip(RESOURCES, res)]
    across, wide = (5, 64) if all(pieces._drawn(t, 12) * 1.1 <= 60 for _, _, t in said) else (3, 108)
    out: list[str] = []
    for i, (r, n, text) in enumerate(said):
        rx, ry = x + (i % across) * (wide + 4), y + (i // across) * 26
        out.append(_rect(rx, ry, wide, 22, RES_FILL[r], rx=3, title=f"{resource_name(r, lang)}: {n}"))
        out.append(_t(rx + wide / 2, ry + 16, text, size=12, fill=RES_TEXT[r], anchor="middle",
                      weight="bold"))
    return out, 22 + 26 * ((len(said) - 1) // across)


def seat_board_svg(state: GameState, seat: int, seat_names: list[str] | None = None,
                   lang: str | None = None) -> str:
    """The seat's own board as a self-contained SVG document, ``SEAT_W`` pixels wide, its words in
    ``lang`` (English by default: tiletum/words.py)."""
    w = say(lang)
    p = state.seats[seat]
    given = seat_names[seat] if seat_names and seat < len(seat_names) else None
    name = str(given) if given else w._("Seat {n}", n=seat)
    colour = SEAT_COLOURS[seat % 4]
    out: list[str] = []
    x, y = 12, 26
    out.append(_rect(x, y - 13, 14, 14, colour, sw=0.5))
    out.append(_t(x + 20, y, w._("{name}, your board", name=name), size=15, weight="bold", fill=colour))
    out.append(_t(SEAT_W - 12, y, w._("{n} VP", n=p.score), size=15, weight="bold", anchor="end"))
    y += 22
    where = w._("Merchant: {merchant} · Architect: {architect}", merchant=place_name(p.merchant, lang),
                architect=place_name(p.architect, lang))
    for line in textwrap.wrap(where, 46):   # a road space's name is long
        out.append(_t(x, y, line, size=12))
        y += 17
    supply = w._("Supply: {houses} Houses, {pillars} Pillars", houses=p.houses, pillars=p.pillars)
    if p.dice:  # a die by its colour and number, not its letter
        supply += w._(" · dice: {dice}", dice=", ".join(f"{die_colour(d[0], lang)} {d[1:2]}" for d in p.dice))
    for i, line in enumerate(textwrap.wrap(supply, 46)):   # the dice in words may run long
        out.append(_t(x, y + 17 * i, line, size=12))
    y += 17 * (len(textwrap.wrap(supply, 46)) - 1)
    # resources: five boxes across (or three and two: resource_boxes)
    y += 12
    parts, high = resource_boxes(p.res, x, y, lang)
    out += parts
    # the Storehouse: a row per tile, each drawn as what it costs and gives (tiletum/pieces.py)
    y += 44 + high - 22
    store = w._("Storehouse") if p.store else w._("Storehouse: empty")
    out.append(_t(x, y - 6, store, size=12, weight="bold"))
    for tile in p.store:   # its words 12 px or more
        out += pieces.chip(tile, x, y, SEAT_W - 2 * x, 22, size=13, least=12, lang=lang)
        y += 26
    # the Buildings, a row each: its name, then its three Rooms (a Character by its type in full,
    # an empty Room an empty box) and its Crest space
    y += 14
    out.append(_t(x, y + 12, w._("Buildings"), size=12, weight="bold"))
    y += 20
    room_w, crest_x = 78, x + 3 * 82
    for b, rooms in enumerate(p.rooms):
        by = y + b * 46
        roof = p.roofs[b] if b < len(p.roofs) else False
        done = w._(" (full)") if rooms and all(rooms) else ""   # words: every font has them
        out.append(_t(x, by + 12, w._("Building {n}", n=b + 1) + (w._(" (roof)") if roof else "") + done,
                      size=12, fill="#444444"))
        for f, who in enumerate(rooms):
            fx = x + f * 82
            out.append(_rect(fx, by + 17, room_w, 22, "#e9e0f7" if who else "#ffffff", stroke="#7a6a9a",
                             sw=0.6))
            if who:
                out.append(_t(fx + room_w / 2, by + 33, pieces.type_word(who, lang=lang), size=12,
                              anchor="middle",
                              fill="#222222", weight="bold"))
        crest = p.crests[b] if b < len(p.crests) else None
        cw = SEAT_W - x - crest_x
        out.append(_rect(crest_x, by + 17, cw, 22, "#fff3c4" if crest else "#ffffff", stroke="#8a6d00",
                         sw=0.5))
        out.append(_t(crest_x + cw / 2, by + 33, pieces.short(crest, lang)
                      if crest else w._("Crest space"), size=12,
                      anchor="middle", fill="#222222" if crest else "#777777"))
    y += len(p.rooms) * 46 + 8
    for label, tiles in ((N_("Contracts fulfilled: {tiles}"), p.contracts),
                         (N_("Cathedral tiles: {tiles}"), p.cathedrals)):
        said = "; ".join(pieces.short(tile, lang) for tile in tiles) if tiles else w._("none")
        for line in textwrap.wrap(w._(label, tiles=said), 46):
            out.append(_t(x, y, line, size=12))
            y += 17
    height = y + 4
    title = w._("{name}, your board", name=name)
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{SEAT_W}" height="{height}" '
            f'viewBox="0 0 {SEAT_W} {height}" font-family="Helvetica, Arial, sans-serif">',
            f"<title>{escape(title)}</title>",
            _rect(0, 0, SEAT_W, height, "#fbf7ee", stroke="none", rx=0),
            _rect(3, 3, SEAT_W - 6, height - 6, "#ffffff", stroke=colour, sw=2, rx=6)]
    return "\n".join(head + out + ["</svg>"])
