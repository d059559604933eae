"""The shared table drawn narrow for a phone (pure: no I/O): the Tiletum turn email's board picture.

The whole board (tiletum/svg.py) is 1530 pixels wide: a phone's email column (360 CSS px) shows it
at a quarter of its size, its words about 3 px. What a seat decides with, besides its own board
(tiletum/svg_seat.py) and the map where it changed (tiletum/svg_map.py), is the side panel: the
round and who acts, the Action Wheel (its dice and the Bonus tiles beside its Actions), the King
track, the Contract and Character offers (each tile drawn as what it costs and gives, never its
id), the Fairs, and every player's score, resources and supply. This drawing is that panel laid out
360 pixels wide, its words 12 to 15 pixels and never cut (a tile's words wrap inside its box,
which grows), so that a phone shows it at its own size. The game page and ``board.png`` still
draw the whole board. Only public information is drawn: no pile, no face-down Corruption token.
"""
from __future__ import annotations

from xml.sax.saxutils import escape

from .actions import wheel_action
from .components import components
from .describe import action_name, amount, die_name, fair_text, place_name, town_name
from .pieces import KIND_COLOURS, RES_FILL, RES_TEXT, _drawn, contract_rest, full, kind, short
from .state import GameState
from .svg import DIE_COLOURS, SEAT_COLOURS, _names, _rect, _signed, _t, level_name, round_head
from .svg_seat import resource_boxes
from .words import say

TABLE_W = 360    # a phone's email column: shown at its own size, its 12-px words stay 12 px
X, RIGHT = 12, TABLE_W - 12
SIZE = 12        # the least words


def _width(text: str, size: float, bold: bool = False) -> float:
    """A label's drawn width, a little over the fonts' own (bold a tenth wider)."""
    return _drawn(text, size) * (1.1 if bold else 1.0)


def _wrap(text: str, room: float, size: float = SIZE, bold: bool = False,
          lang: str | None = None) -> list[str]:
    """``text`` in lines that each fit ``room`` pixels at ``size`` (a word longer than the room
    stands on a line of its own: no word is cut). A language other than English is measured a
    little wider again: the estimate was fitted to English words (more accented and longer small
    letters in French and German run a few percent over it in DejaVu Sans)."""
    if not say(lang).english:
        room /= 1.06
    lines: list[str] = []
    for word in text.split():
        if lines and _width(f"{lines[-1]} {word}", size, bold) <= room:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines or [""]


def _lines(x: float, y: float, lines: list[str], size: float = SIZE, step: float = 16, **kw) -> list[str]:
    return [_t(x, y + step * i, line, size=size, **kw) for i, line in enumerate(lines)]  # type: ignore[arg-type]


def _tile(tile: str, x: float, y: float, w: float, lang: str | None = None) -> tuple[list[str], float]:
    """A tile as a box in its kind's colours: a Contract's cost as coloured squares with their
    amounts, then what it gives; anything else its few words. The words wrap inside the box
    (never cut). Answers the parts and the box's height."""
    fill, stroke, ink = KIND_COLOURS.get(kind(tile), ("#ffffff", "#999999", "#222222"))
    raw = components().tiles[tile].raw
    out: list[str] = []
    tx = x + 6
    words = short(tile, lang)
    if kind(tile) == "contract" and raw.get("cost"):
        for r, n in raw["cost"].items():   # a square per resource kind with its amount
            out.append(_rect(tx, y + 4, 18, 18, RES_FILL[r], stroke="#444444", sw=0.5, rx=2,
                             title=amount(r, n, lang)))
            out.append(_t(tx + 9, y + 17.5, n, size=SIZE, fill=RES_TEXT[r], anchor="middle", weight="bold"))
            tx += 21
        words = contract_rest(tile, lang)
    lines = _wrap(words, x + w - 6 - tx, lang=lang)
    h = 26 + 16 * (len(lines) - 1)
    box = (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="3" fill="{fill}" '
           f'stroke="{stroke}" stroke-width="0.8"><title>{escape(full(tile, lang))}</title></rect>')
    return [box, *out, *_lines(tx, y + 17.5, lines, fill=ink)], h


def _head(y: float, text: str, note: str = "") -> list[str]:
    out = [_t(X, y, text, size=13, weight="bold")]
    if note:
        out.append(_t(RIGHT, y, note, size=SIZE, fill="#555555", anchor="end"))
    return out


def table_svg(state: GameState, seat_names: list[str] | None = None, seat: int | None = None,
              lang: str | None = None) -> str:
    """The shared table as a self-contained SVG document ``TABLE_W`` pixels wide; ``seat``: the
    seat it is drawn for (its own resources are on its own board, so its line says only its score).
    Its words in ``lang`` (English by default: tiletum/words.py)."""
    w = say(lang)
    c = components()
    names = _names(state, seat_names, lang)
    out: list[str] = []
    y = 26.0
    head = round_head(state, lang)
    if state.phase == "action":
        head += w._(" \u00b7 turn {n} of 3", n=min(state.cycle, 2) + 1)
    for line in _wrap(head, RIGHT - X, 15, bold=True, lang=lang):
        out.append(_t(X, y, line, size=15, weight="bold"))
        y += 19
    if state.phase == "over" and state.winner is not None:
        said, colour = w._("Winner: {name}", name=names[state.winner]), "#8b1a1a"
    elif state.actor is not None and state.phase != "over":
        said, colour = w._("To act: {name}", name=names[state.actor]), SEAT_COLOURS[state.actor % 4]
    else:
        said, colour = "", "#222222"
    if state.solo is not None:
        said += w._(" \u00b7 solo, level {level}", level=level_name(state.solo.get("level", "?"), lang))
    if said:
        lines = _wrap(said.strip(" \u00b7"), RIGHT - X, 13, bold=True, lang=lang)
        out += _lines(X, y, lines, 13, 17, fill=colour, weight="bold")
        y += 17 * len(lines)
    y += 14

    # the Action Wheel: a row per number, its dice, and the Bonus tile beside its Action
    if state.action_tiles:
        out += _head(y, w._("Action Wheel"), w._("dice on it"))
        y += 8
        for v in range(1, 7):
            action = wheel_action(state, v)
            out.append(_rect(X, y, RIGHT - X, 26, "#ffffff", stroke="#c9bfa6", sw=0.6, rx=3))
            out.append(_t(X + 8, y + 18, v, size=13, weight="bold"))
            out.append(_t(X + 24, y + 18, action_name(action, lang), size=13))
            dice = [d for d in state.wheel if len(d) >= 2 and d[1:2] == str(v)]
            for i, d in enumerate(dice):   # each die in its colour, its number on it
                bg, fg = DIE_COLOURS.get(d[0], ("#ffffff", "#222222"))
                dx = X + 130 + i * 23
                out.append(_rect(dx, y + 3, 20, 20, bg, rx=3, title=die_name(d[0], d[1:2], lang)))
                out.append(_t(dx + 10, y + 18, d[1:2], size=13, fill=fg, anchor="middle", weight="bold"))
            y += 26
            bonus = state.action_bonus.get(action)
            if bonus:   # its Bonus tile under it, indented: the words in full
                parts, h = _tile(bonus, X + 24, y + 2, RIGHT - X - 24, lang)
                out += parts
                y += h + 4
            y += 4
        y += 18

    # the King track: a line per seat, the first ahead; its Bonus tile
    out += _head(y, w._("King track"))
    y += 8
    if state.king_bonus:
        parts, h = _tile(state.king_bonus, X, y, RIGHT - X, lang)
        out += parts
        y += h + 4
    order = sorted(range(state.players), key=lambda i: (-state.king_pos[i], -state.king_seq[i]))
    for s in order:
        pos = state.king_pos[s]
        value = c.king_values[pos] if 0 <= pos < len(c.king_values) else pos
        out.append(_rect(X, y + 5, 12, 12, SEAT_COLOURS[s % 4], sw=0.5))
        out.append(_t(X + 18, y + 16, _signed(value), size=13, weight="bold"))
        lines = _wrap(names[s], RIGHT - X - 52, 13)
        out += _lines(X + 52, y + 16, lines, 13, 17)
        y += 17 * len(lines) + 3
    y += 20

    # the offers: each tile drawn as what it costs and gives (a Contract's AP to take it at the right)
    costs = c.contract_offer_costs
    out += _head(y, w._("Contract offer"), w._("AP to take"))
    y += 8
    for i, t in enumerate(state.contract_offer):
        ap = w._("{n} AP", n=costs[i]) if i < len(costs) else ""
        if t:
            parts, h = _tile(t, X, y, RIGHT - X - 42, lang)
        else:
            parts, h = [_rect(X, y, RIGHT - X - 42, 26, "#ffffff", stroke="#c9bfa6", sw=0.6, rx=3),
                        _t(X + 6, y + 17.5, w._("empty"), size=SIZE, fill="#777777")], 26
        out += parts + [_t(RIGHT, y + 17.5, ap, size=13, anchor="end", weight="bold")]
        y += h + 4
    y += 20
    out += _head(y, w._("Character offer"), w._("bonus \u00b7 type"))
    y += 8
    for t in state.character_offer:
        if t:
            parts, h = _tile(t, X, y, RIGHT - X, lang)
        else:
            parts, h = [_rect(X, y, RIGHT - X, 26, "#ffffff", stroke="#c9bfa6", sw=0.6, rx=3),
                        _t(X + 6, y + 17.5, w._("empty"), size=SIZE, fill="#777777")], 26
        out += parts
        y += h + 4
    y += 20

    # the Fairs, in the order they score, and the Corruption tokens revealed
    out += _head(y, w._("Fairs"))
    y += 18
    for i, town in enumerate(state.fair_towns):
        tile = state.fair_tiles[i] if i < len(state.fair_tiles) else ""
        pays = fair_text(tile, c.fair_board_values[i], lang) if tile else ""
        mark = w._(" (scored)") if i < state.fairs_scored else ""
        lines = _wrap(f"{i + 1}. {town_name(town, lang)}: {pays}{mark}", RIGHT - X, lang=lang)
        out += _lines(X, y, lines)
        y += 16 * len(lines) + 2
    if state.corruption_revealed:   # each token by its number, not its id
        shown = ", ".join(str(c.tiles[z].raw.get("value", "?")) for z in state.corruption_revealed)
        lines = _wrap(w._("Corruption revealed: {shown} \u00b7 {n} face down", shown=shown,
                          n=len(state.corruption_pool)), RIGHT - X, lang=lang)
        out += _lines(X, y, lines, fill="#7a3a3a")
        y += 16 * len(lines) + 2
    y += 20

    # the players: score, and each other's resources and supply (the seat's own are on its board)
    out += _head(y, w._("Players"))
    y += 8
    for p in state.seats:
        colour = SEAT_COLOURS[p.seat % 4]
        out.append(_rect(X, y + 5, 13, 13, colour, sw=0.5))
        vp = w._("{n} VP", n=p.score)
        lines = _wrap(names[p.seat] + (w._(" (you)") if p.seat == seat else ""),
                      RIGHT - X - 20 - _width(vp, 13, True) - 10, 13, bold=True)
        out += _lines(X + 20, y + 17, lines, 13, 17, fill=colour, weight="bold")
        out.append(_t(RIGHT, y + 17, vp, size=13, weight="bold", anchor="end"))
        y += 17 * len(lines) + 6
        if p.seat == seat:
            continue
        parts, high = resource_boxes(p.res, X, y, lang)
        out += parts
        y += 38 + high - 22
        lines = _wrap(w._("Supply: {houses} Houses, {pillars} Pillars \u00b7 Contracts fulfilled: {n} \u00b7 "
                          "Merchant: {merchant} \u00b7 Architect: {architect}", houses=p.houses,
                          pillars=p.pillars, n=len(p.contracts), merchant=place_name(p.merchant, lang),
                          architect=place_name(p.architect, lang)), RIGHT - X, lang=lang)
        out += _lines(X, y, lines, fill="#444444")
        y += 16 * len(lines) + 4
    height = round(y + 6)
    title = w._("Tiletum, round {n}: the table", n=state.round)
    root = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{TABLE_W}" height="{height}" '
            f'viewBox="0 0 {TABLE_W} {height}" font-family="Helvetica, Arial, sans-serif">',
            f"<title>{escape(title)}</title>",
            _rect(0, 0, TABLE_W, height, "#fbf7ee", stroke="none", rx=0)]
    return "\n".join(root + out + ["</svg>"])


__all__ = ["table_svg", "TABLE_W"]
