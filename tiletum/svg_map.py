"""The part of the map where things changed, drawn narrow for a phone (pure: no I/O): the turn
email's third picture (issue 40).

The whole board (tiletum/svg.py) is 1530 pixels wide; on a phone its towns are specks. This drawing
is the same map (the same towns, roads, Houses, Pillars, Merchants and Architects, drawn by
tiletum/svg.py) cut to the spaces that the moves since the seat last looked named or built on,
each such space ringed: 360 pixels wide (a phone's email column) for 270 units of the map, so that
the map's least words (9 units) are 12 pixels there, and up to 400 units tall. Spaces that changed
farther apart than that are not all in the picture: it shows the part with the most of them, and
its alt text names the others (the email tells every move in words). A label that would run past
the picture's edge is left out (the space's name is its circle's title), so no word is cut.
:func:`changed_spots` reads those spaces from the moves (``merchant``/``architect`` to a space, a
``house``, ``pillar`` or ``cathedral`` in a town, named or where its player's Architect stands);
none, no picture. Only public information is drawn.
"""
from __future__ import annotations

import re
from xml.sax.saxutils import escape, unescape

from .components import components
from .describe import place_name
from .pieces import _drawn
from .state import GameState
from .svg import HEIGHT, MAP_W, _map, _names, _rect, spot_xy
from .words import say

PART_W = 360            # the picture's width in pixels: a phone's email column
VIEW_W = 270            # the map units across it: the map's 9-unit words 12 pixels
MIN_H, MAX_H = 200, 400  # the map units down it: a town's neighbours around it, a phone's screen or so
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


def shown_spots(spots: list[str]) -> list[str]:
    """The changed spaces the picture shows: all when they lie within its VIEW_W x MAX_H units
    (padded), else the most of them that do (ties: the part with the first named)."""
    xy = [spot_xy(s) for s in spots]
    best: list[str] = []
    for ax, _ in xy:
        for _, ay in xy:   # a part whose left and top edges are a changed space's, padded
            inside = [s for s, (x, y) in zip(spots, xy)
                      if ax <= x <= ax + VIEW_W - 2 * PAD_X and ay <= y <= ay + MAX_H - 2 * PAD_Y]
            if len(inside) > len(best):
                best = inside
    return best


def _view(spots: list[str]) -> tuple[float, float, float, float]:
    """The map box (x, y, w, h) around ``spots`` (which fit in it): VIEW_W units wide, MIN_H to
    MAX_H tall, inside the map."""
    xs, ys = zip(*(spot_xy(s) for s in spots))
    w, h = VIEW_W, min(max(max(ys) - min(ys) + 2 * PAD_Y, MIN_H), MAX_H)
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    x = min(max(cx - w / 2, 0), MAP_W + RIGHT - w)
    y = min(max(cy - h / 2, 0), HEIGHT - h)
    return x, y, w, h


_TEXT = re.compile(r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="([\d.]+)"[^>]*text-anchor="(\w+)"'
                   r'[^>]*>([^<]*)<')


def _inside(part: str, x: float, y: float, w: float, h: float) -> bool:
    """Whether each label of ``part`` lies wholly inside the box (its width estimated generously)."""
    for tx, ty, size, anchor, text in _TEXT.findall(part):
        left, top, k = float(tx), float(ty), float(size)
        wide = _drawn(unescape(text), k) * 1.1   # bold a tenth wider
        left -= {"middle": wide / 2, "end": wide}.get(anchor, 0)
        if left < x or left + wide > x + w or top - k < y or top + k * 0.25 > y + h:
            return False
    return True


def map_part_svg(state: GameState, spots: list[str], seat_names: list[str] | None = None,
                 lang: str | None = None) -> str:
    """The map around ``spots`` (at least one; those :func:`shown_spots` keeps), each ringed, as a
    self-contained SVG document ``PART_W`` pixels wide, its words in ``lang`` (English by default)."""
    w_ = say(lang)
    names = _names(state, seat_names, lang)
    spots = shown_spots(spots)
    x, y, w, h = _view(spots)
    height = round(PART_W * h / w)
    title = w_._("Tiletum, round {n}: the map where things changed", n=state.round)
    rings = []
    for s in spots:
        sx, sy = spot_xy(s)
        r = 15 if s in components().towns else 9
        rings.append(f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="{r}" fill="none" stroke="#c0392b" '
                     'stroke-width="2.5" stroke-dasharray="5 3">'
                     f'<title>{escape(place_name(s, lang))}</title></circle>')
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{PART_W}" height="{height}" '
            f'viewBox="{x:.1f} {y:.1f} {w:.1f} {h:.1f}" font-family="Helvetica, Arial, sans-serif">',
            f"<title>{escape(title)}</title>",
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
    # [:-1]: not the legend
    parts = [p for p in _map(state, names, near, lang)[:-1] if _inside(p, x, y, w, h)]
    return "\n".join(head + parts + rings + ["</svg>"])


def map_part_alt(spots: list[str], lang: str | None = None) -> str:
    """The picture's alt text: the spaces in words, and those left out of it."""
    w = say(lang)
    shown = shown_spots(spots)
    places = w.list([place_name(s, lang) for s in shown])
    left = [place_name(s, lang) for s in spots if s not in shown]
    if left:
        return w._("The map around {places}, where things changed since your last look, ringed in red; "
                   "farther away, {left} changed too (also written out in this email).", places=places,
                   left=w.list(left))
    return w._("The map around {places}, where things changed since your last look, ringed in red (also "
               "written out in this email).", places=places)


__all__ = ["changed_spots", "shown_spots", "map_part_svg", "map_part_alt", "PART_W"]
