"""The board picture: a pure function from a position to an SVG document (for the game page and
the turn email). It holds no hidden information: the master builders in the bag are counts per
seat, what is still face down is never drawn (it has no order anyway). The only text a player typed
is the seats' names (``names``; escaped like every text), else seat numbers.

The picture, top to bottom: the round and the Cathedral's progress (six segments, one per round,
the finished ones filled), the phase and who decides; the board's eight fields in their order of
resolution, each master builder spot a circle in its seat's colour with the seat's number (empty:
dashed), Kingsbridge's and Shiring's spots labelled with their card; the bag (master builders per
seat), the cost marker, this round's event and tax, the market's and the King's Court's cubes; the
phase I card pool; and a row per player: craftsmen, resources, gold, VP and privileges. Each field
group carries ``data-field`` (its notation) and each spot ``data-spot`` (its index), for a page to
make them clickable later.
"""

from __future__ import annotations

from html import escape

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
WIDTH = 860


def _text(x: float, y: float, s: str, size: int = 13, anchor: str = "start", weight: str = "normal",
          fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" {FONT} font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(s)}</text>')


def _spot(x: float, y: float, seat: int | None, r: int = 13) -> str:
    if seat is None:
        return (f'<circle class="spot free" cx="{x:.0f}" cy="{y:.0f}" r="{r}" fill="#fff" stroke="#999" '
                f'stroke-dasharray="3 2"/>')
    return (f'<circle class="spot builder" data-seat="{seat}" cx="{x:.0f}" cy="{y:.0f}" r="{r}" '
            f'fill="{SEAT_COLOURS[seat % 4]}" stroke="#222"/>'
            + _text(x, y + 4, str(seat), 12, "middle", "bold", "#fff"))


def _cubes(x: float, y: float, counts: dict[str, int]) -> tuple[list[str], float]:
    out = []
    for r, n in counts.items():
        out.append(f'<rect x="{x:.0f}" y="{y - 10:.0f}" width="11" height="11" fill="{RES_COLOURS[r]}" '
                   f'stroke="#333"/>')
        label = f"{n} {r}"
        out.append(_text(x + 15, y, label, 12))
        x += 22 + 7 * len(label)
    return out, x


def board_svg(state: GameState, names: list[str] | None = None) -> str:
    c = cards()
    s = state

    def who(seat: int) -> str:
        return names[seat] if names is not None and seat < len(names) else f"seat {seat}"
    out: list[str] = []
    # --- the round and the Cathedral --------------------------------------------------------
    out.append(_text(16, 26, f"Round {s.round} of 6", 18, weight="bold"))
    out.append(_text(170, 26, "The Cathedral:", 13))
    for i in range(6):
        done = i < s.round - 1 or s.phase == "over"
        now = i == s.round - 1 and s.phase != "over"
        fill = "#b08d57" if done else ("#e8d8b8" if now else "#fff")
        out.append(f'<rect class="cathedral-part" x="{270 + 34 * i}" y="12" width="30" height="18" '
                   f'fill="{fill}" stroke="#7a5a2f"/>')
    if s.phase == "over":
        best = max(s.vp) if s.vp else 0
        winners = ", ".join(who(w) for w in s.winners) or "nobody"
        verb = "wins" if len(s.winners) == 1 else "share the victory"
        line = f"The game is over: {winners} {verb} ({best} VP)"
    else:
        line = f"{PHASE_NAMES[s.phase]}; {who(s.actor)} decides"
    out.append(_text(16, 50, line, 13))
    # --- the fields ------------------------------------------------------------------------
    y0 = 64
    boxw, boxh = 200, 86
    for k, f in enumerate(c.field_order):
        col, row = k % 4, k // 4
        x, y = 16 + col * (boxw + 10), y0 + row * (boxh + 10)
        out.append(f'<g class="field" data-field="{f}">')
        out.append(f'<rect x="{x}" y="{y}" width="{boxw}" height="{boxh}" rx="6" fill="#f3ead6" '
                   'stroke="#7a5a2f"/>')
        out.append(_text(x + 8, y + 18, f"{STEP[f]}. {FIELD_NAMES[f]}", 13, weight="bold"))
        spots = s.spots[f]
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring if f == "shiring" else None
        for i, seat in enumerate(spots):
            cx = x + 22 + i * 46
            out.append(f'<g data-spot="{i}">' + _spot(cx, y + 44, seat) + "</g>")
            if shown is not None and i < len(shown) and shown[i] is not None:
                out.append(_text(cx, y + 74, str(shown[i]), 11, "middle"))
        if f == "king":
            out.append(_text(x + 120, y + 48, f"metal: {s.king_metal}", 12))
        out.append("</g>")
    # --- the bag, the cost, the event, the market --------------------------------------------
    y = y0 + 2 * (boxh + 10) + 16
    bag = [s.bag.count(i) for i in range(s.players)]
    out.append(_text(16, y, "Bag:", 13, weight="bold"))
    x = 56
    for seat, n in enumerate(bag):
        out.append(f'<g class="bag" data-seat="{seat}">' + _spot(x + 10, y - 4, seat, 9)
                   + _text(x + 24, y, f"\u00d7{n}", 12) + "</g>")
        x += 52
    if s.drawn is not None:
        out.append(_text(x + 10, y, "drawn:", 12))
        out.append('<g class="drawn">' + _spot(x + 62, y - 4, s.drawn, 9) + "</g>")
        x += 80
    out.append(_text(x + 10, y, f"Cost marker: {s.cost} gold", 13))
    event = "not yet revealed" if s.event is None else f"{s.event} ({c.events[s.event]['text']})"
    out.append(_text(x + 190, y, f"Tax: {'-' if s.tax is None else s.tax}", 13))
    y += 22
    out.append(_text(16, y, f"Event: {event}", 12))
    y += 22
    out.append(_text(16, y, "Market:", 13, weight="bold"))
    parts, _ = _cubes(76, y, dict(zip(RES[:3], s.market, strict=False)))
    out.extend(parts)
    y += 22
    pool = ", ".join(s.pool) if s.pool else "empty"
    out.append(_text(16, y, f"Card pool: {pool}", 12))
    # --- the players ---------------------------------------------------------------------------
    y += 18
    for seat in range(s.players):
        h = 62
        colour = SEAT_COLOURS[seat % 4]
        out.append(f'<g class="player" data-seat="{seat}">')
        stroke = ' stroke-width="3"' if seat == s.actor else ""
        out.append(f'<rect x="16" y="{y}" width="{WIDTH - 32}" height="{h}" rx="6" fill="#fff" '
                   f'stroke="{colour}"{stroke}/>')
        name = who(seat)
        head = name[:1].upper() + name[1:] + (" (start player)" if seat == s.start else "") + (
            " \u2190 decides" if seat == s.actor else "")
        out.append(_text(26, y + 18, head, 13, weight="bold", fill=colour))
        out.append(_text(300, y + 18, f"{s.vp[seat]} VP", 13, weight="bold"))
        out.append(_text(370, y + 18, f"{s.gold[seat]} gold", 13))
        parts, _ = _cubes(450, y + 18, dict(zip(RES, s.res[seat], strict=False)))
        out.extend(parts)
        crafts = ", ".join(f"{x} {c.craftsmen[x]['name']}" for x in s.craftsmen[seat])
        out.append(_text(26, y + 38, f"Craftsmen: {crafts}", 12))
        privs = ", ".join(s.privileges[seat]) or "none"
        taken = ", ".join(s.taken[seat]) or "none"
        out.append(_text(26, y + 55, f"Privileges: {privs}; resource cards this round: {taken}", 12))
        out.append("</g>")
        y += h + 8
    height = y + 8
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="pillars-board" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" data-round="{s.round}" data-phase="{s.phase}">'
            f'<rect width="{WIDTH}" height="{height}" fill="#fbf8f1"/>')
    return head + "".join(out) + "</svg>"


__all__ = ["board_svg", "SEAT_COLOURS"]
