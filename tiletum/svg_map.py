"""The part of the map where things changed, drawn narrow for a phone (pure: no I/O): the turn
email's third picture (issue 40).

The whole board (tiletum/svg.py) is 1530 pixels wide; on a phone its towns are specks. This drawing
is the same map (the same towns, roads, Houses, Pillars, Merchants and Architects, drawn by
tiletum/svg.py) cut to the spaces that the moves since the seat last looked named or built on,
400 pixels wide, each such space ringed. :func:`changed_spots` reads those spaces from the moves
(``merchant``/``architect`` to a space, a ``house``, ``pillar`` or ``cathedral`` in a town, named
or where its player's Architect stands); none, no picture. Only public information is drawn.
"""
from __future__ import annotations

from xml.sax.saxutils import escape

from .components import components
from .describe import place_name
from .state import GameState
from .svg import HEIGHT, MAP_W, _map, _names, _rect, spot_xy

PART_W = 400            # the picture's width in pixels
MIN_W, MIN_H = 260, 190  # the least of the map shown (map units): a town's neighbours around it
PAD_X, PAD_Y = 50, 42    # around the changed spaces: a town's label above, its Houses below
RIGHT = 10               # past the map's right edge (its eastern towns' Cathedral labels lie inside)
MAP_VERBS = ("merchant", "architect", "house", "pillar", "cathedral")


def changed_spots(state: GameState, events: list[dict]) -> list[str]:
    """The map spaces the moves of ``events`` (as ``GET /events`` serves them) moved to or built
    on, in the order they were first named."""
    c = components()
    out: list[str] = []
    architect: dict[int, str] = {}   # where each seat's Architect went in these moves
    for ev in events:
        words = str(ev.get("move") or "").split()
        if not words or words[0].lower() not in MAP_VERBS:
            continue
        verb, seat = words[0].lower(), ev.get("seat")
        named = [w for w in words[1:] if w in c.spots]
        if verb == "architect" and named and isinstance(seat, int):
            architect[seat] = named[0]
        if not named and verb != "merchant" and isinstance(seat, int) and 0 <= seat < len(state.seats):
            named = [architect.get(seat) or state.seats[seat].architect]   # built where it stands
        out += [s for s in named if s in c.spots and s not in out]
    return out


def _view(spots: list[str]) -> tuple[float, float, float, float]:
    """The map box (x, y, w, h) around ``spots``, at least MIN_W x MIN_H, inside the map."""
    xs, ys = zip(*(spot_xy(s) for s in spots))
    x0, x1 = min(xs) - PAD_X, max(xs) + PAD_X
    y0, y1 = min(ys) - PAD_Y, max(ys) + PAD_Y
    w, h = max(x1 - x0, MIN_W), max(y1 - y0, MIN_H)
    w, h = max(w, h * MIN_W / MIN_H), max(h, w * MIN_H / MIN_W)   # one shape: phone pictures alike
    w, h = min(w, MAP_W + RIGHT), min(h, HEIGHT)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    x = min(max(cx - w / 2, 0), MAP_W + RIGHT - w)
    y = min(max(cy - h / 2, 0), HEIGHT - h)
    return x, y, w, h


def map_part_svg(state: GameState, spots: list[str], seat_names: list[str] | None = None) -> str:
    """The map around ``spots`` (at least one), each ringed, as a self-contained SVG document
    ``PART_W`` pixels wide."""
    names = _names(state, seat_names)
    x, y, w, h = _view(spots)
    height = round(PART_W * h / w)
    rings = []
    for s in spots:
        sx, sy = spot_xy(s)
        r = 15 if s in components().towns else 9
        rings.append(f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="{r}" fill="none" stroke="#c0392b" '
                     'stroke-width="2.5" stroke-dasharray="5 3">'
                     f'<title>{escape(place_name(s))}</title></circle>')
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{PART_W}" height="{height}" '
            f'viewBox="{x:.1f} {y:.1f} {w:.1f} {h:.1f}" font-family="Helvetica, Arial, sans-serif">',
            f"<title>{escape(f'Tiletum, round {state.round}: the map where things changed')}</title>",
            _rect(x, y, w, h, "#eef3e6", stroke="none", rx=0)]
    # the spaces in sight (a town's label and Houses reach 40 units out), and the ends of every
    # road that crosses the picture
    c = components()
    near = {s for s in c.spots
            if x - 45 <= spot_xy(s)[0] <= x + w + 45 and y - 45 <= spot_xy(s)[1] <= y + h + 45}
    for a in c.spots:
        for b in c.adjacent[a]:
            (xa, ya), (xb, yb) = spot_xy(a), spot_xy(b)
            if min(xa, xb) <= x + w and max(xa, xb) >= x and min(ya, yb) <= y + h and max(ya, yb) >= y:
                near |= {a, b}
    return "\n".join(head + _map(state, names, near)[:-1] + rings + ["</svg>"])   # [:-1]: not the legend


def map_part_alt(spots: list[str]) -> str:
    """The picture's alt text: the spaces in words."""
    places = [place_name(s) for s in spots]
    where = places[0] if len(places) == 1 else ", ".join(places[:-1]) + " and " + places[-1]
    return (f"The map around {where}, where things changed since your last look, ringed in red "
            "(also written out in this email).")


__all__ = ["changed_spots", "map_part_svg", "map_part_alt", "PART_W"]
