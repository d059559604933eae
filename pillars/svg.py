"""The board picture: a pure function from a position to an SVG document (for the game page and
the turn email). It holds no hidden information: the master builders in the bag are counts per
seat, what is still face down is never drawn (it has no order anyway). The only text a player typed
is the seats' names (``names``; escaped like every text), else seat numbers.

The picture, top to bottom: the round and the Cathedral's progress (six segments, one per round,
the finished ones filled), the phase and who decides; the board's eight fields in their order of
resolution, each master builder spot a circle in its seat's colour with the seat's number (empty:
dashed), Kingsbridge's and Shiring's spots labelled with their card; the bag (master builders per
seat), the cost marker, this round's event and tax, the market's and the King's Court's cubes; the
phase I card pool; and a row per player: craftsmen, resources, gold, VP and privileges.

Every part a move acts on is a ``<g>`` with stable data attributes (the same for every viewer; they
name only what the picture shows), for the game page to make clickable: each field ``data-field``
(its notation) and in it each spot ``data-spot`` (its index; at Kingsbridge and Shiring also
``data-spot-card``); each card of the pool ``data-card``; the pool ``data-part="pool"``, the drawn
master builder ``data-part="drawn"``, the event ``data-part="event"`` and the tax ``data-part="tax"``;
the market's cubes ``data-market`` (a resource); and in each player's row (``data-seat``) each
craftsman ``data-craftsman`` (a craftsman won at Shiring and waiting to be kept or discarded too),
each resource ``data-resource`` and each privilege ``data-privilege``. :func:`move_part` says which
part a legal move acts on (the page's script does the same).

The picture's words are in ``lang`` (None: English; the game's catalogs, pillars/words.py), the cards
as :func:`pillars.describe.short_card` says them; each label's place follows its width in the
language (:func:`_wide`: "Kartenauslage:" is longer than "Card pool:"), and a field's name too long
for its box is set on two lines (the box grows).
"""

from __future__ import annotations

import textwrap
from html import escape

from rules_common.figures import person
from rules_common.glyphs import width

from .notation import Move
from .describe import amount, card_text, short_card
from .rules import carry_limit
from .state import RES, GameState, cards
from .words import N_, NC_, say

SEAT_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#e6a700")  # blue, red, green, yellow
# the fields' names on the board, short (said with ``pgettext("board", ...)``)
FIELD_NAMES = {
    "archbishop": NC_("board", "Archbishop"),
    "kingsbridge": NC_("board", "Kingsbridge"),
    "priory": NC_("board", "Priory"),
    "king": NC_("board", "King's Court"),
    "shiring": NC_("board", "Shiring"),
    "castle": NC_("board", "Shiring Castle"),
    "market": NC_("board", "Market"),
    "cathedral": NC_("board", "Cathedral"),
}
STEP = {"archbishop": 2, "kingsbridge": 4, "priory": 5, "king": 9, "shiring": 10, "castle": 11, "market": 12,
        "cathedral": 13}  # the phase III step each field acts in
PHASE_NAMES = {
    "cards": N_("Phase I: resource cards and craftsmen"),
    "builders": N_("Phase II: master builders"),
    "placing": N_("Phase II: passed master builders placed"),
    "actions": N_("Phase III: the board's actions"),
    "over": N_("The game is over"),
}
RES_COLOURS = {"stone": "#8c8c8c", "wood": "#8b5a2b", "sand": "#e0c068", "metal": "#4a6d8c"}
FONT = 'font-family="DejaVu Sans, Verdana, sans-serif"'
WIDTH = 360  # a phone's width (an email's column): shown at its own size, its 12-px words stay 12 px
CHIP = 36  # a chip's height: a tap's size
LINE_SIZE, LINE_H = 12, 15   # a card's words on a field: the page shows the picture at its size or larger


def _wide(text: str, size: float, bold: bool = False) -> float:
    """A label's width in DejaVu Sans (rules_common/glyphs.py), and 2% more."""
    return width(text, size, bold) * 1.02


def _text(x: float, y: float, s: str, size: int = 13, anchor: str = "start", weight: str = "normal",
          fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" {FONT} font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(s)}</text>')


def _box(x: float, y: float, w: float, h: float) -> str:
    """The box under a part that is text only (the pool's label, the event, the tax): what the page
    highlights and what a tap hits."""
    return (f'<rect class="hit" x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" rx="5" '
            'fill="#fbf8f1" stroke="none"/>')


def _spot(x: float, y: float, seat: int | None, r: int = 13) -> str:
    """A master builder's spot: empty (dashed), or the master builder standing on it, a figure in
    its player's colour (never the seat's number)."""
    if seat is None:
        return (f'<circle class="spot free" cx="{x:.0f}" cy="{y:.0f}" r="{r}" fill="#fff" stroke="#999" '
                f'stroke-dasharray="3 2"/>')
    return (f'<circle class="spot builder" data-seat="{seat}" cx="{x:.0f}" cy="{y:.0f}" r="{r}" '
            f'fill="#fffdf6" stroke="#7a5a2f"/>'
            f'<path class="builder-figure" d="{person(x, y, r * 1.5)}" fill="{SEAT_COLOURS[seat % 4]}" '
            'stroke="#222" stroke-width="1"/>')


def _cubes(x: float, y: float, counts: dict[str, int], attr: str,
           right: float = WIDTH - 16, lang: str | None = None) -> tuple[list[str], float]:
    """Each resource a chip (a cube and its count) big enough to tap, in a ``<g>`` carrying
    ``attr="resource"``; ``y`` is the chip's top. The chips wrap at ``right``; answers the parts
    and the y under them."""
    out = []
    x0 = x
    for r, n in counts.items():
        label = amount(r, n, lang)
        w = max(32 + 8.6 * len(label), 30 + _wide(label, 14))
        if x > x0 and x + w > right:
            x, y = x0, y + CHIP + 6
        out.append(f'<g class="res" {attr}="{r}"><rect class="hit" x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" '
                   f'height="{CHIP}" rx="5" fill="#fff" stroke="#bbb"/>'
                   f'<rect x="{x + 7:.0f}" y="{y + CHIP / 2 - 7:.0f}" width="14" height="14" '
                   f'fill="{RES_COLOURS[r]}" stroke="#333"/>'
                   + _text(x + 26, y + CHIP / 2 + 5, label, 14) + "</g>")
        x += w + 6
    return out, y + CHIP


def _chips(x0: float, y: float, right: float, items: list[tuple[str, str]],
           cls: str) -> tuple[list[str], float]:
    """Chips (rounded boxes with a label) laid out left to right from ``x0``, wrapping at
    ``right``; each item is (its attributes, its label). Returns the parts and the y under them."""
    out: list[str] = []
    x = x0
    row_h = CHIP
    for attrs, label in items:
        # a label longer than the row is wrapped inside its chip, which grows taller
        lines = textwrap.wrap(label, max(8, int((right - x0 - 18) / 8.6))) or [""]
        w = 18 + 8.6 * max(len(ln) for ln in lines)
        h = CHIP + 17 * (len(lines) - 1)
        if x > x0 and x + w > right:
            x, y, row_h = x0, y + row_h + 6, CHIP
        row_h = max(row_h, h)
        out.append(f'<g class="{cls}" {attrs}><rect class="hit" x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" '
                   f'height="{h}" rx="5" fill="#fff" stroke="#7a5a2f"/>'
                   + "".join(_text(x + 8, y + CHIP / 2 + 5 + 17 * i, ln, 14) for i, ln in enumerate(lines))
                   + "</g>")
        x += w + 6
    return out, y + row_h


def board_svg(state: GameState, names: list[str] | None = None, lang: str | None = None) -> str:
    c = cards()
    s = state
    w = say(lang)

    def who(seat: int) -> str:
        return names[seat] if names is not None and seat < len(names) else w._("seat {n}", n=seat)

    def card(cid: str) -> str:
        return short_card(cid, lang)
    out: list[str] = []
    # --- the round and the Cathedral --------------------------------------------------------
    round_said, cathedral = w._("Round {n} of 6", n=s.round), w._("Cathedral:")
    # the round, the Cathedral's label after it and its six parts (one a round) on one line: where a
    # language's words are longer, smaller and the parts narrower (English: the first)
    for size, small, part in ((18, 13, 18), (16, 13, 18), (16, 13, 16), (16, 12, 16), (14, 12, 16)):
        parts_x = WIDTH - 16 - 6 * part + 2
        ends = 16 + _wide(round_said, size, True)
        cathedral_x = 150.0 if ends + 2 <= 150 else ends + 4
        if cathedral_x + _wide(cathedral, small) <= parts_x - 2:
            break
    out.append(_text(16, 26, round_said, size, weight="bold"))
    out.append(_text(cathedral_x, 26, cathedral, small))
    for i in range(6):   # one part a round, right of its label, the last one inside the edge
        done = i < s.round - 1 or s.phase == "over"
        now = i == s.round - 1 and s.phase != "over"
        fill = "#b08d57" if done else ("#e8d8b8" if now else "#fff")
        out.append(f'<rect class="cathedral-part" x="{parts_x + part * i}" y="12" width="{part - 2}" '
                   f'height="18" fill="{fill}" stroke="#7a5a2f"/>')
    if s.phase == "over":
        best = max(s.vp) if s.vp else 0
        winners = ", ".join(who(x) for x in s.winners) or w._("nobody")
        line = (w._("The game is over: {winners} wins ({n} VP)", winners=winners, n=best)
                if len(s.winners) == 1 else
                w._("The game is over: {winners} share the victory ({n} VP)", winners=winners, n=best))
    else:
        line = w._("{phase}; {who} decides", phase=w._(PHASE_NAMES[s.phase]), who=who(s.actor))
    lines = textwrap.wrap(line, int((WIDTH - 32) / (13 * 0.62)))   # a long name wraps, never cut
    out += [_text(16, 50 + 17 * i, ln, 13) for i, ln in enumerate(lines)]
    # --- the fields ------------------------------------------------------------------------
    # two fields a row; a card lying on a spot (Kingsbridge, Shiring) said in words under the spots,
    # wrapped, never cut (its row grows); a field's name too long for its box on two lines
    y0 = 64 + 17 * (len(lines) - 1)
    boxw = (WIDTH - 42) // 2
    per_line = int((boxw - 16) / (LINE_SIZE * 0.6))

    def title_lines(f: str) -> list[str]:
        title = f"{STEP[f]}. {w.pgettext('board', FIELD_NAMES[f])}"
        if _wide(title, 13, True) <= boxw - 14:
            return [title]
        return textwrap.wrap(title, max(8, int(len(title) * (boxw - 14) / _wide(title, 13, True))))

    def card_lines(f: str) -> list[list[str]]:
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring if f == "shiring" else None
        out_lines = []
        for i in range(len(s.spots[f])):
            if shown is not None and i < len(shown) and shown[i] is not None:
                if len(s.spots[f]) == 2:
                    said = (w._("left: {card}", card=card(shown[i])) if i == 0
                            else w._("right: {card}", card=card(shown[i])))
                else:
                    said = f"{i + 1}: {card(shown[i])}"
                out_lines.append(textwrap.wrap(said, per_line))
            else:
                out_lines.append([])
        return out_lines
    lines_of = {f: card_lines(f) for f in c.field_order}
    titles = {f: title_lines(f) for f in c.field_order}
    y = float(y0)
    for k, f in enumerate(c.field_order):
        col = k % 2
        if col == 0:
            pair = c.field_order[k:k + 2]
            down = 15 * max(len(titles[g]) - 1 for g in pair)   # a name on two lines: all lower
            boxh = 64 + down + max(sum(len(ls) for ls in lines_of[g]) * LINE_H for g in pair)
        x = 16 + col * (boxw + 10)
        out.append(f'<g class="field" data-field="{f}">')
        out.append(f'<rect x="{x}" y="{y}" width="{boxw}" height="{boxh}" rx="6" fill="#f3ead6" '
                   'stroke="#7a5a2f"/>')
        out += [_text(x + 8, y + 18 + 15 * i, t, 13, weight="bold") for i, t in enumerate(titles[f])]
        spots = s.spots[f]
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring if f == "shiring" else None
        ly = y + 64 + 12 + down
        step = min(46, (boxw - 44) / max(1, len(spots) - 1))   # the Market's four spots inside its box
        for i, seat in enumerate(spots):
            cx = x + 22 + i * step
            on = shown[i] if shown is not None and i < len(shown) else None
            extra = f' data-spot-card="{on}"' if on is not None else ""
            out.append(f'<g data-spot="{i}"{extra}>' + _spot(cx, y + 40 + down, seat, 17) + "</g>")
            if lines_of[f][i] and on is not None:
                # the card on this spot in words (its full text as the title), never its id
                out.append(f"<g><title>{escape(card(on))}</title>"
                           + "".join(_text(x + 8, ly + LINE_H * j, ln, LINE_SIZE)
                                     for j, ln in enumerate(lines_of[f][i])) + "</g>")
                ly += LINE_H * len(lines_of[f][i])
        if f == "king":
            out.append(_text(x + boxw - 6, y + 46 + down, w._("metal: {n}", n=s.king_metal), 12, "end"))
        out.append("</g>")
        if col == 1 or k == len(c.field_order) - 1:
            y += boxh + 10
    # --- the bag, the cost, the event, the market --------------------------------------------
    y += 16
    bag = [s.bag.count(i) for i in range(s.players)]
    bag_said = w._("Bag:")
    out.append(_text(16, y, bag_said, 13, weight="bold"))
    bx = max(56.0, 16 + _wide(bag_said, 13, True) + 6)
    for seat, n in enumerate(bag):
        out.append(f'<g class="bag" data-seat="{seat}">' + _spot(bx + 10, y - 4, seat, 9)
                   + _text(bx + 24, y, f"\u00d7{n}", 12) + "</g>")
        bx += 52
    if s.drawn is not None:
        drawn = w._("drawn:")
        # the box after the label (English's reaches under the box's edge, before its figure)
        gap = 46 if 10 + _wide(drawn, 12) <= 53 else 14 + _wide(drawn, 12)
        if bx + gap + 32 > WIDTH - 16:   # no room after the bag: under it
            bx, y = max(56.0, 16 + _wide(bag_said, 13, True) + 6) - 10, y + 30
        out.append(_text(bx + 10, y, drawn, 12))
        box = bx + gap
        out.append('<g class="drawn" data-part="drawn">' + f'<rect class="hit" x="{box:.0f}" y="{y - 20}" '
                   'width="32" height="32" rx="5" fill="#fff" stroke="#999"/>'
                   + _spot(box + 16, y - 4, s.drawn, 11) + "</g>")
    y += 30
    cost = w._("Cost marker: {gold}", gold=amount("gold", s.cost, lang))
    out.append(_text(16, y, cost, 13))
    event = w._("not yet revealed") if s.event is None else card_text(s.event, lang)
    tax = w._("Tax: {tax}", tax="-" if s.tax is None else s.tax)
    tax_x = max(200.0, 16 + _wide(cost, 13) + 18)
    tax_w = 12 + max(8 * len(tax), _wide(tax, 13))
    out.append('<g class="tax" data-part="tax">' + _box(tax_x - 6, y - 22, tax_w, 32)
               + _text(tax_x, y, tax, 13) + "</g>")
    y += 30
    lines = textwrap.wrap(w._("Event: {event}", event=event), int((WIDTH - 44) / (12 * 0.62)))
    out.append('<g class="event" data-part="event">' + _box(16, y - 22, WIDTH - 32, 16 + 16 * len(lines))
               + "".join(_text(22, y + 16 * i, ln, 12) for i, ln in enumerate(lines)) + "</g>")
    y += 16 * len(lines) + 4
    market = w._("Market:")
    out.append(_text(16, y + CHIP / 2 + 5, market, 13, weight="bold"))
    parts, y = _cubes(max(80.0, 16 + _wide(market, 13, True) + 5), y,
                      dict(zip(RES[:3], s.market, strict=False)), "data-market", lang=lang)
    out.extend(parts)
    y += 8
    pool = w._("Card pool:")
    pool_w = _wide(pool, 13, True)
    out.append('<g class="pool" data-part="pool">' + _box(12, y, max(84, pool_w + 7), CHIP)
               + _text(18, y + CHIP / 2 + 5, pool, 13, weight="bold")
               + ("" if s.pool else _text(max(100, 22 + pool_w), y + CHIP / 2 + 5, w._("empty"), 13))
               + "</g>")
    items = []
    for card_id in s.pool:   # each card by what it is and costs, never its id (notation)
        if card_id in c.rescards:
            items.append((f'data-card="{card_id}"', card(card_id)))
        else:
            price = amount("gold", c.craftsmen[card_id]["cost"], lang)
            said = w._("{card}; costs {gold}", card=card(card_id), gold=price)
            items.append((f'data-card="{card_id}"', said))
    pool_x = max(100.0, 22 + pool_w)   # the cards right of the label; a long label: on the rows under it
    if s.pool and pool_x > 160:
        pool_x, y = 16, y + CHIP + 6
    parts, y = _chips(pool_x, y, WIDTH - 16, items, "card")
    out.extend(parts)
    # --- the players ---------------------------------------------------------------------------
    y += 12
    pending = {q[1]: q[2] for q in s.queue[:1] if q[0] == "shiring" and len(q) == 3}
    crafts_said, privileges_said = w._("Craftsmen:"), w._("Privileges:")
    chips_x = max(100.0, 26 + max(_wide(crafts_said, 12), _wide(privileges_said, 12)) + 6)
    for seat in range(s.players):
        colour = SEAT_COLOURS[seat % 4]
        body: list[str] = []
        name = who(seat)[:24]
        rest = (w._(" (start player)") if seat == s.start else "") + (
            w._(" \u2190 decides") if seat == s.actor else "")
        head = name[:1].upper() + name[1:] + rest
        # too long for its line (a long name, the start player who decides): the rest on a second line
        heads = [head] if _wide(head, 13, True) <= WIDTH - 52 else [head[:len(head) - len(rest)],
                                                                    rest.strip()]
        score = w._("{vp}, {gold}", vp=amount("vp", s.vp[seat], lang),
                    gold=amount("gold", s.gold[seat], lang))
        body += [_text(26, y + 18 + 18 * i, line, 13, weight="bold", fill=colour)
                 for i, line in enumerate(heads)]
        # no room beside the name: the score on a line of its own
        beside = (len(heads[-1]) + len(score)) * 13 * 0.66 + 12 <= WIDTH - 52
        down = 18 * (len(heads) - 1) + (0 if beside else 18)
        body.append(_text(WIDTH - 26, y + 18 + down, score, 13, "end", "bold"))
        parts, yy = _cubes(26, y + 26 + down, dict(zip(RES, s.res[seat], strict=False)), "data-resource",
                           WIDTH - 26, lang)
        body.extend(parts)
        yy += 6
        body.append(_text(26, yy + CHIP / 2 + 5, crafts_said, 12))
        items = [(f'data-craftsman="{x}"', card(x)) for x in s.craftsmen[seat]]
        if seat in pending:
            new = pending[seat]
            items.append((f'data-craftsman="{new}" data-new="1"', w._("new: {card}", card=card(new))))
        parts, yy = _chips(chips_x, yy, WIDTH - 26, items, "craftsman")
        body.extend(parts)
        yy += 6
        body.append(_text(26, yy + CHIP / 2 + 5, privileges_said, 12))
        items = [(f'data-privilege="{p}"', card(p)) for p in s.privileges[seat]]
        parts, yy = _chips(chips_x, yy, WIDTH - 26, items, "privilege")
        body.extend(parts)
        if not items:
            body.append(_text(chips_x, yy - CHIP / 2 + 5, w._("none"), 12))
        taken = ", ".join(card(x) for x in s.taken[seat]) or w._("none")
        lines = textwrap.wrap(w._("Resource cards this round: {cards}", cards=taken),
                              int((WIDTH - 52) / (12 * 0.62)))
        body += [_text(26, yy + 18 + 16 * i, ln, 12) for i, ln in enumerate(lines)]
        h = yy + 26 + 16 * (len(lines) - 1) - y
        stroke = ' stroke-width="3"' if seat == s.actor else ""
        # data-carry: how many resources the seat may carry over (its privileges are public): the page
        # asks which to keep in one choice when it must return the rest
        out.append(f'<g class="player" data-seat="{seat}" data-carry="{carry_limit(s, seat)}">')
        out.append(f'<rect x="16" y="{y}" width="{WIDTH - 32}" height="{h:.0f}" rx="6" fill="#fff" '
                   f'stroke="{colour}"{stroke}/>')
        out.extend(body)
        out.append("</g>")
        y += h + 8
    height = round(y + 8)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="pillars-board" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" data-round="{s.round}" data-phase="{s.phase}">'
            f'<rect width="{WIDTH}" height="{height}" fill="#fbf8f1"/>')
    return head + "".join(out) + "</svg>"


def move_part(state: GameState, move: Move) -> str:
    """The part of the picture a legal ``move`` acts on, as a CSS selector of its data attributes
    (api/static/pillars.html maps moves the same way): a card of the pool for ``take``, the pool for
    phase I's ``pass``, the drawn master builder for phase II's ``pass``/``keep``/``redraw``, a field
    (or a card's spot) for ``place``, a market cube for ``buy`` and ``collect``, the seat's resource
    for ``sell`` and ``drop``, the seat's craftsman for ``use`` and ``discard``, the seat's privilege
    card for ``privilege``; the field, event or tax the decision is about for ``decline``,
    ``protect``, ``done`` and the market's ``pass``."""
    s, v, a = state, move.verb, move.args
    seat = f'[data-seat="{s.actor}"] '
    if v == "take":
        return f'[data-card="{a[0]}"]'
    if v == "place":
        field = f'[data-field="{a[0]}"]'
        return field + (f' [data-spot-card="{a[1]}"]' if len(a) == 2 else "")
    if s.phase == "cards":
        return '[data-part="pool"]'
    if s.phase == "builders":
        return '[data-part="drawn"]'
    kind = s.queue[0][0] if s.queue else ""
    if v in ("buy", "collect"):
        return f'[data-market="{a[0]}"]'
    if v in ("sell", "drop"):
        return seat + f'[data-resource="{a[0]}"]'
    if v in ("use", "discard"):
        return seat + f'[data-craftsman="{a[0]}"]'
    if v == "privilege":
        return seat + f'[data-privilege="{a[0]}"]'
    if v == "done":
        return '[data-field="cathedral"]'
    if v == "pass":
        return '[data-field="market"]'
    # decline, protect
    about = {"protection": '[data-part="event"]', "taxes": '[data-part="tax"]'}
    return about.get(kind, '[data-field="archbishop"]')


__all__ = ["board_svg", "move_part", "SEAT_COLOURS"]
