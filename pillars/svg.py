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
"""

from __future__ import annotations

import textwrap
from html import escape

from rules_common.figures import person

from .notation import Move
from .describe import short_card
from .rules import carry_limit
from .state import RES, GameState, cards

SEAT_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#e6a700")  # blue, red, green, yellow
FIELD_NAMES = {
    "archbishop": "Archbishop",
    "kingsbridge": "Kingsbridge",
    "priory": "Priory",
    "king": "King's Court",
    "shiring": "Shiring",
    "castle": "Shiring Castle",
    "market": "Market",
    "cathedral": "Cathedral",
}
STEP = {"archbishop": 2, "kingsbridge": 4, "priory": 5, "king": 9, "shiring": 10, "castle": 11, "market": 12,
        "cathedral": 13}  # the phase III step each field acts in
PHASE_NAMES = {
    "cards": "Phase I: resource cards and craftsmen",
    "builders": "Phase II: master builders",
    "placing": "Phase II: passed master builders placed",
    "actions": "Phase III: the board's actions",
    "over": "The game is over",
}
RES_COLOURS = {"stone": "#8c8c8c", "wood": "#8b5a2b", "sand": "#e0c068", "metal": "#4a6d8c"}
FONT = 'font-family="DejaVu Sans, Verdana, sans-serif"'
WIDTH = 360  # a phone's width (an email's column): shown at its own size, its 12-px words stay 12 px
CHIP = 36  # a chip's height: a tap's size
LINE_SIZE, LINE_H = 12, 15   # a card's words on a field: the page shows the picture at its size or larger


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
           right: float = WIDTH - 16) -> tuple[list[str], float]:
    """Each resource a chip (a cube and its count) big enough to tap, in a ``<g>`` carrying
    ``attr="resource"``; ``y`` is the chip's top. The chips wrap at ``right``; answers the parts
    and the y under them."""
    out = []
    x0 = x
    for r, n in counts.items():
        label = f"{n} {r}"
        w = 32 + 8.6 * len(label)
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


def board_svg(state: GameState, names: list[str] | None = None) -> str:
    c = cards()
    s = state

    def who(seat: int) -> str:
        return names[seat] if names is not None and seat < len(names) else f"seat {seat}"
    out: list[str] = []
    # --- the round and the Cathedral --------------------------------------------------------
    out.append(_text(16, 26, f"Round {s.round} of 6", 18, weight="bold"))
    out.append(_text(150, 26, "Cathedral:", 13))
    for i in range(6):   # one part a round, right of its label, the last one inside the edge
        done = i < s.round - 1 or s.phase == "over"
        now = i == s.round - 1 and s.phase != "over"
        fill = "#b08d57" if done else ("#e8d8b8" if now else "#fff")
        out.append(f'<rect class="cathedral-part" x="{WIDTH - 16 - 6 * 18 + 18 * i + 2}" y="12" width="16" '
                   f'height="18" fill="{fill}" stroke="#7a5a2f"/>')
    if s.phase == "over":
        best = max(s.vp) if s.vp else 0
        winners = ", ".join(who(w) for w in s.winners) or "nobody"
        verb = "wins" if len(s.winners) == 1 else "share the victory"
        line = f"The game is over: {winners} {verb} ({best} VP)"
    else:
        line = f"{PHASE_NAMES[s.phase]}; {who(s.actor)} decides"
    lines = textwrap.wrap(line, int((WIDTH - 32) / (13 * 0.62)))   # a long name wraps, never cut
    out += [_text(16, 50 + 17 * i, ln, 13) for i, ln in enumerate(lines)]
    # --- the fields ------------------------------------------------------------------------
    # two fields a row; a card lying on a spot (Kingsbridge, Shiring) said in words under the spots,
    # wrapped, never cut (its row grows)
    y0 = 64 + 17 * (len(lines) - 1)
    boxw = (WIDTH - 42) // 2
    per_line = int((boxw - 16) / (LINE_SIZE * 0.6))

    def card_lines(f: str) -> list[list[str]]:
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring if f == "shiring" else None
        out_lines = []
        for i in range(len(s.spots[f])):
            if shown is not None and i < len(shown) and shown[i] is not None:
                side = ("left: ", "right: ")[i] if len(s.spots[f]) == 2 else f"{i + 1}: "
                out_lines.append(textwrap.wrap(side + short_card(shown[i]), per_line))
            else:
                out_lines.append([])
        return out_lines
    lines_of = {f: card_lines(f) for f in c.field_order}
    y = float(y0)
    for k, f in enumerate(c.field_order):
        col = k % 2
        if col == 0:
            pair = c.field_order[k:k + 2]
            boxh = 64 + max(sum(len(ls) for ls in lines_of[g]) * LINE_H for g in pair)
        x = 16 + col * (boxw + 10)
        out.append(f'<g class="field" data-field="{f}">')
        out.append(f'<rect x="{x}" y="{y}" width="{boxw}" height="{boxh}" rx="6" fill="#f3ead6" '
                   'stroke="#7a5a2f"/>')
        out.append(_text(x + 8, y + 18, f"{STEP[f]}. {FIELD_NAMES[f]}", 13, weight="bold"))
        spots = s.spots[f]
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring if f == "shiring" else None
        ly = y + 64 + 12
        step = min(46, (boxw - 44) / max(1, len(spots) - 1))   # the Market's four spots inside its box
        for i, seat in enumerate(spots):
            cx = x + 22 + i * step
            card = shown[i] if shown is not None and i < len(shown) else None
            extra = f' data-spot-card="{card}"' if card is not None else ""
            out.append(f'<g data-spot="{i}"{extra}>' + _spot(cx, y + 40, seat, 17) + "</g>")
            if lines_of[f][i]:
                # the card on this spot in words (its full text as the title), never its id
                out.append(f"<g><title>{escape(short_card(card))}</title>"
                           + "".join(_text(x + 8, ly + LINE_H * j, ln, LINE_SIZE)
                                     for j, ln in enumerate(lines_of[f][i])) + "</g>")
                ly += LINE_H * len(lines_of[f][i])
        if f == "king":
            out.append(_text(x + boxw - 6, y + 46, f"metal: {s.king_metal}", 12, "end"))
        out.append("</g>")
        if col == 1 or k == len(c.field_order) - 1:
            y += boxh + 10
    # --- the bag, the cost, the event, the market --------------------------------------------
    y += 16
    bag = [s.bag.count(i) for i in range(s.players)]
    out.append(_text(16, y, "Bag:", 13, weight="bold"))
    x = 56
    for seat, n in enumerate(bag):
        out.append(f'<g class="bag" data-seat="{seat}">' + _spot(x + 10, y - 4, seat, 9)
                   + _text(x + 24, y, f"\u00d7{n}", 12) + "</g>")
        x += 52
    if s.drawn is not None:
        out.append(_text(x + 10, y, "drawn:", 12))
        out.append('<g class="drawn" data-part="drawn">' + f'<rect class="hit" x="{x + 46}" y="{y - 20}" '
                   'width="32" height="32" rx="5" fill="#fff" stroke="#999"/>'
                   + _spot(x + 62, y - 4, s.drawn, 11) + "</g>")
    y += 30
    out.append(_text(16, y, f"Cost marker: {s.cost} gold", 13))
    event = "not yet revealed" if s.event is None else c.events[s.event]["text"]
    tax = f"Tax: {'-' if s.tax is None else s.tax}"
    out.append('<g class="tax" data-part="tax">' + _box(194, y - 22, 12 + 8 * len(tax), 32)
               + _text(200, y, tax, 13) + "</g>")
    y += 30
    lines = textwrap.wrap(f"Event: {event}", int((WIDTH - 44) / (12 * 0.62)))
    out.append('<g class="event" data-part="event">' + _box(16, y - 22, WIDTH - 32, 16 + 16 * len(lines))
               + "".join(_text(22, y + 16 * i, ln, 12) for i, ln in enumerate(lines)) + "</g>")
    y += 16 * len(lines) + 4
    out.append(_text(16, y + CHIP / 2 + 5, "Market:", 13, weight="bold"))
    parts, y = _cubes(80, y, dict(zip(RES[:3], s.market, strict=False)), "data-market")
    out.extend(parts)
    y += 8
    out.append('<g class="pool" data-part="pool">' + _box(12, y, 84, CHIP)
               + _text(18, y + CHIP / 2 + 5, "Card pool:", 13, weight="bold")
               + ("" if s.pool else _text(100, y + CHIP / 2 + 5, "empty", 13)) + "</g>")
    items = []
    for card_id in s.pool:   # each card by what it is and costs, never its id (notation)
        if card_id in c.rescards:
            items.append((f'data-card="{card_id}"', short_card(card_id)))
        else:
            items.append((f'data-card="{card_id}"',
                          f"{short_card(card_id)}; costs {c.craftsmen[card_id]['cost']} gold"))
    parts, y = _chips(100, y, WIDTH - 16, items, "card")
    out.extend(parts)
    # --- the players ---------------------------------------------------------------------------
    y += 12
    pending = {q[1]: q[2] for q in s.queue[:1] if q[0] == "shiring" and len(q) == 3}
    for seat in range(s.players):
        colour = SEAT_COLOURS[seat % 4]
        body: list[str] = []
        name = who(seat)[:24]
        head = name[:1].upper() + name[1:] + (" (start player)" if seat == s.start else "") + (
            " \u2190 decides" if seat == s.actor else "")
        score = f"{s.vp[seat]} VP, {s.gold[seat]} gold"
        body.append(_text(26, y + 18, head, 13, weight="bold", fill=colour))
        # no room beside the name: the score on a line of its own
        down = 18 if (len(head) + len(score)) * 13 * 0.66 + 12 > WIDTH - 52 else 0
        body.append(_text(WIDTH - 26, y + 18 + down, score, 13, "end", "bold"))
        parts, yy = _cubes(26, y + 26 + down, dict(zip(RES, s.res[seat], strict=False)), "data-resource",
                           WIDTH - 26)
        body.extend(parts)
        yy += 6
        body.append(_text(26, yy + CHIP / 2 + 5, "Craftsmen:", 12))
        items = [(f'data-craftsman="{x}"', short_card(x)) for x in s.craftsmen[seat]]
        if seat in pending:
            new = pending[seat]
            items.append((f'data-craftsman="{new}" data-new="1"', f"new: {short_card(new)}"))
        parts, yy = _chips(100, yy, WIDTH - 26, items, "craftsman")
        body.extend(parts)
        yy += 6
        body.append(_text(26, yy + CHIP / 2 + 5, "Privileges:", 12))
        items = [(f'data-privilege="{p}"', short_card(p)) for p in s.privileges[seat]]
        parts, yy = _chips(100, yy, WIDTH - 26, items, "privilege")
        body.extend(parts)
        if not items:
            body.append(_text(100, yy - CHIP / 2 + 5, "none", 12))
        taken = ", ".join(short_card(x) for x in s.taken[seat]) or "none"
        lines = textwrap.wrap(f"Resource cards this round: {taken}", int((WIDTH - 52) / (12 * 0.62)))
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
