"""The board picture: a pure function from a position to an SVG document (for the game page and
the turn email). It holds no hidden information (there is none in a position) and no text a
player typed. Each tile's ``<title>`` says it in words as it lies and each follower's its colour and
role (carcassonne/pieces.py), never a tile's letter: a page shows it on hover or tap.

North is up; the cell of tile (x, y) is column ``x - min_x``, row ``max_y - y``. Cities are tan,
fields green, roads light grey lines, cloisters red squares, shields blue; each follower is a
figure in its seat's colour (rules_common/figures.py), standing on its road, city or cloister, lying
in its field as a farmer: no letter (its role is in its title and ``data-role``). With
``fits=True`` the empty cells where the tile in hand fits are outlined and carry ``data-x``,
``data-y`` and ``data-rots`` (the rotations that fit there), for a page to make clickable; the
tile placed last is outlined (``class="last"``). The root element says where the cells are
(``data-cell``: a cell's size; ``data-x0``, ``data-y0``: the westmost column and northmost row),
so a page can put its own marks on a cell: cell (x, y) starts at ``((x - x0) * cell, (y0 - y) * cell)``.

For an email (``coords=True``, with ``fits``) a margin numbers the columns (x) above and the rows
(y) on the left, and each cell where the tile fits carries its ``x,y``: the reply's notation can be
read off the picture. ``hand_svg`` draws the tile in hand in its four turns, labelled as typed.

Each drawing takes a ``lang`` (None: English) for its words (the titles, the labels for a screen
reader: carcassonne/pieces.py, the game's catalogs); the numbers and turns it writes are notation.
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from rules_common.figures import person

from .pieces import follower_words, tile_full, tile_words
from .rules import fit_table
from .state import GameState
from .words import say
from .tiles import placed, tileset

SEAT_COLOURS = ("#d62728", "#1f77b4", "#f2c80f", "#2ca02c", "#111111")  # red, blue, yellow, green, black
FIELD, CITY, ROAD, CLOISTER, SHIELD, WALL = "#8fbf5a", "#d9b77e", "#f4f1e8", "#b5462e", "#2b4fa0", "#7a5a2f"
# tile-local coordinates (0..1, y down): corners clockwise from NW, side midpoints, directions
_CORNERS = ((0, 0), (1, 0), (1, 1), (0, 1))          # NW, NE, SE, SW
_MID = ((0.5, 0), (1, 0.5), (0.5, 1), (0, 0.5))       # N, E, S, W
_DIR = ((0, -1), (1, 0), (0, 1), (-1, 0))
_SIDE_CORNERS = ((0, 1), (1, 2), (2, 3), (3, 0))      # side d runs from corner a to corner b clockwise
_CORNER_SPOT = {"NE": (0.8, 0.2), "SE": (0.8, 0.8), "SW": (0.2, 0.8), "NW": (0.2, 0.2)}
_SIDE_SPOT = {"N": (0.5, 0.2), "E": (0.8, 0.5), "S": (0.5, 0.8), "W": (0.2, 0.5)}


def _city_polygon(sides: tuple[int, ...]) -> list[tuple[float, float]]:
    if len(sides) == 4:
        return list(_CORNERS)
    pts: list[tuple[float, float]] = []
    order = sorted(sides)
    for i, d in enumerate(order):
        a, b = _SIDE_CORNERS[d]
        pts += [_CORNERS[a], _CORNERS[b]]
        nxt = order[(i + 1) % len(order)]
        n_gap = 3 if len(order) == 1 else (nxt - d - 1) % 4   # sides between d and the next, clockwise
        gap = [(d + j) % 4 for j in range(1, n_gap + 1)]
        if gap:
            gx = sum(_DIR[g][0] for g in gap) / len(gap)
            gy = sum(_DIR[g][1] for g in gap) / len(gap)
            k = {1: 0.15, 2: 0.0, 3: -0.2}[len(gap)]
            pts.append((0.5 + k * gx, 0.5 + k * gy))
    return pts


def _tile_svg(letter: str, rot: int, ox: float, oy: float, size: float) -> list[str]:
    p = placed(letter, rot)

    def pt(u: float, v: float) -> str:
        return f"{ox + u * size:.1f},{oy + v * size:.1f}"

    out = [f'<rect x="{ox:.1f}" y="{oy:.1f}" width="{size:.1f}" height="{size:.1f}" fill="{FIELD}"/>']
    roads = [s for s in p.segments if s.kind == "road"]
    for s in roads:
        if len(s.edges) == 2:
            a, b = (_MID[d] for d in s.edges)
            path = f"M{pt(*a)} Q{pt(0.5, 0.5)} {pt(*b)}"
        else:
            path = f"M{pt(*_MID[s.edges[0]])} L{pt(0.5, 0.5)}"
        out.append(f'<path d="{path}" fill="none" stroke="{ROAD}" stroke-width="{size * 0.1:.1f}"/>')
    if len(roads) >= 3:
        out.append(f'<rect x="{ox + 0.4 * size:.1f}" y="{oy + 0.4 * size:.1f}" width="{0.2 * size:.1f}" '
                   f'height="{0.2 * size:.1f}" fill="{WALL}"/>')
    for s in p.segments:
        if s.kind == "city":
            poly = " ".join(pt(u, v) for u, v in _city_polygon(s.edges))
            out.append(f'<polygon points="{poly}" fill="{CITY}" stroke="{WALL}" stroke-width="1"/>')
            if s.shield:
                u, v = _SIDE_SPOT[min(("NESW"[d] for d in s.edges), key="NESW".index)]
                out.append(f'<rect x="{ox + (u - 0.07) * size:.1f}" y="{oy + (v - 0.07) * size:.1f}" '
                           f'width="{0.14 * size:.1f}" height="{0.14 * size:.1f}" fill="{SHIELD}"/>')
        elif s.kind == "cloister":
            out.append(f'<rect x="{ox + 0.35 * size:.1f}" y="{oy + 0.35 * size:.1f}" '
                       f'width="{0.3 * size:.1f}" height="{0.3 * size:.1f}" fill="{CLOISTER}"/>')
    out.append(f'<rect x="{ox:.1f}" y="{oy:.1f}" width="{size:.1f}" height="{size:.1f}" fill="none" '
               f'stroke="#444" stroke-width="0.5"/>')
    return out


# The turn email's board: a phone's email column is 360 px, so the picture is at most that wide and
# its words (the margin's numbers at 13 px, a cell's x,y at 12) stay that size on a phone; a board
# wider or taller than EMAIL_COLS x EMAIL_ROWS cells is cropped to the part that matters to the seat.
EMAIL_CELL, EMAIL_MARGIN = 46, 28
EMAIL_COLS, EMAIL_ROWS = 7, 9      # 7 * 46 + 28 = 350 px


def fit_cells(s: GameState) -> list[tuple[int, int]]:
    """The empty cells where the tile in hand fits (none without a tile in hand)."""
    if s.tile is None:
        return []
    table = fit_table()[s.tile]
    return [cell for cell, a in sorted(s.open.items()) if table[a]]


Window = tuple[int, int, int, int]   # min_x, max_x, min_y, max_y: the cells drawn


def email_window(s: GameState, fits: bool, cols: int = EMAIL_COLS, rows: int = EMAIL_ROWS) -> Window:
    """The cells the turn email draws: the whole board when it is at most ``cols`` x ``rows``
    cells, else the part of that size where the seat's tile fits at the most cells (``fits``),
    then with the tile placed last, then with the most tiles: without ``fits``, the part around
    the tile placed last."""
    cells = [(x, y) for x, y, _, _ in s.tiles] + list(s.open)
    min_x, max_x = min(c[0] for c in cells), max(c[0] for c in cells)
    min_y, max_y = min(c[1] for c in cells), max(c[1] for c in cells)
    if max_x - min_x < cols and max_y - min_y < rows:
        return min_x, max_x, min_y, max_y
    w, h = min(cols, max_x - min_x + 1), min(rows, max_y - min_y + 1)
    wanted = fit_cells(s) if fits else []
    last = s.tiles[-1][:2] if s.tiles else None
    tiles = [(x, y) for x, y, _, _ in s.tiles]

    def score(x0: int, y0: int) -> tuple[int, int, int]:
        def inside(c) -> bool:
            return x0 <= c[0] < x0 + w and y0 <= c[1] < y0 + h
        return (sum(map(inside, wanted)), int(last is not None and inside(last)), sum(map(inside, tiles)))
    x0, y0 = max(((x, y) for x in range(min_x, max_x - w + 2) for y in range(min_y, max_y - h + 2)),
                 key=lambda c: score(*c))
    return x0, x0 + w - 1, y0, y0 + h - 1


def board_svg(s: GameState, size: int = 48, fits: bool = False, mark_last: bool = True,
              coords: bool = False, window: Window | None = None, lang: str | None = None) -> str:
    """The board as an SVG document (a string). ``mark_last`` outlines the tile placed last;
    ``coords`` adds the coordinate margin and labels of an email's picture; ``window``: only
    these cells (:func:`email_window`), each drawn whole; ``lang``: its words' language."""
    if window is None:
        cells = [(x, y) for x, y, _, _ in s.tiles] + list(s.open)
        window = (min(c[0] for c in cells), max(c[0] for c in cells),
                  min(c[1] for c in cells), max(c[1] for c in cells))
    min_x, max_x, min_y, max_y = window

    def shown(x: int, y: int) -> bool:
        return min_x <= x <= max_x and min_y <= y <= max_y
    margin = 28 if coords else 0
    width, height = (max_x - min_x + 1) * size + margin, (max_y - min_y + 1) * size + margin

    def origin(x: int, y: int) -> tuple[int, int]:
        return (x - min_x) * size + margin, (max_y - y) * size + margin

    label = say(lang).ngettext("Carcassonne board, {n} tile", "Carcassonne board, {n} tiles", len(s.tiles))
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(label)} '
            f'data-cell="{size}" data-x0="{min_x}" data-y0="{max_y}">'),
           f'<rect width="{width}" height="{height}" fill="#f7f3ea"/>']
    if coords:   # the column (x) and row (y) numbers of the notation
        label = ('font-family="DejaVu Sans, Verdana, sans-serif" font-size="13" fill="#555" '
                 'text-anchor="middle"')
        out += [f'<text x="{origin(x, 0)[0] + size / 2:.1f}" y="{margin - 9}" {label}>{x}</text>'
                for x in range(min_x, max_x + 1)]
        out += [f'<text x="{margin / 2:.1f}" y="{origin(0, y)[1] + size / 2 + 5:.1f}" {label}>{y}</text>'
                for y in range(min_y, max_y + 1)]
    for x, y, letter, rot in s.tiles:
        if not shown(x, y):
            continue
        ox, oy = origin(x, y)
        out.append(f'<g class="tile" data-x="{x}" data-y="{y}" data-tile="{letter}" data-rot="{rot}">'
                   f'<title>{escape(tile_full(letter, rot, lang))}</title>')
        out += _tile_svg(letter, rot, ox, oy, size)
        out.append("</g>")
    if mark_last and len(s.tiles) > 1 and shown(*s.tiles[-1][:2]):
        ox, oy = origin(*s.tiles[-1][:2])
        out.append(f'<rect class="last" x="{ox + 1}" y="{oy + 1}" width="{size - 2}" height="{size - 2}" '
                   f'fill="none" stroke="#e6007e" stroke-width="2"/>')
    for f in s.followers():
        x, y = f["x"], f["y"]
        if not shown(x, y):
            continue
        ox, oy = origin(x, y)
        u, v = (0.5, 0.5) if f["role"] == "monk" else (_CORNER_SPOT.get(f["spot"]) or _SIDE_SPOT[f["spot"]])
        cx, cy = ox + u * size, oy + v * size
        colour = SEAT_COLOURS[f["seat"] % len(SEAT_COLOURS)]
        # the follower drawn as a figure in its seat's colour (a farmer lying in its field), no letter
        edge = "#fff" if f["seat"] != 4 else "#bbb"
        out.append(f'<g class="follower" data-seat="{f["seat"]}" data-role="{f["role"]}">'
                   f'<title>{escape(follower_words(f["seat"], f["role"], lang))}</title>'
                   f'<path d="{person(cx, cy, size * 0.32, lying=f["role"] == "farmer")}" fill="{colour}" '
                   f'stroke="{edge}" stroke-width="1.2"/></g>')
    if fits and s.tile is not None:
        table = fit_table()[s.tile]
        for (x, y), a in sorted(s.open.items()):
            rots = table[a]
            if not rots or not shown(x, y):
                continue
            ox, oy = origin(x, y)
            out.append(f'<rect class="fit" data-x="{x}" data-y="{y}" data-rots="{" ".join(map(str, rots))}" '
                       f'x="{ox + 2}" y="{oy + 2}" width="{size - 4}" height="{size - 4}" fill="#ffffff" '
                       f'fill-opacity="0.35" stroke="#333" stroke-dasharray="4 3"/>')
            if coords:
                out.append(f'<text x="{ox + size / 2:.1f}" y="{oy + size / 2 + 4:.1f}" '
                           f'font-size="{max(12.0, size * 0.26):.1f}" '
                           'font-family="DejaVu Sans, Verdana, sans-serif" '
                           'font-weight="bold" fill="#222" '
                           f'text-anchor="middle">{x},{y}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def tiles_sprite(size: int = 96, lang: str | None = None) -> str:
    """Every tile type turned 0 as an SVG sprite: a ``<symbol id="tile-<letter>">`` each (viewBox
    ``0 0 size size``), for a page to draw the tile in hand at any rotation with ``<use>``; each says
    what the tile is in words as turned ``r`` (``data-words-<r>``, ``data-full-<r>``:
    carcassonne/pieces.py), for the page's text and its title, never the letter."""
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" aria-hidden="true"><defs>']
    for letter in tileset().letters:
        words = "".join(f" data-words-{r}={quoteattr(tile_words(letter, r, lang))} data-full-{r}="
                        f"{quoteattr(tile_full(letter, r, lang))}" for r in (0, 90, 180, 270))
        out.append(f'<symbol id="tile-{letter}" viewBox="0 0 {size} {size}"{words}>')
        out += _tile_svg(letter, 0, 0, 0, size)
        out.append("</symbol>")
    out.append("</defs></svg>")
    return "\n".join(out) + "\n"


def tile_svg(letter: str, rot: int = 0, size: int = 96, lang: str | None = None) -> str:
    """One tile as an SVG document (the tile in hand, turned ``rot``), e.g. for a rotation preview."""
    body = "\n".join(_tile_svg(letter, rot, 0, 0, size))
    # a tile's features as its label (German says them after "Plättchen mit", in the dative)
    label = say(lang).pgettext("a tile's label", "{features}", features=tile_words(letter, rot, lang))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} '
            f'{size}" role="img" aria-label={quoteattr(label)}>\n{body}\n</svg>\n')


def hand_svg(letter: str, size: int = 64, rotations: tuple[int, ...] = (0, 90, 180, 270),
             lang: str | None = None) -> str:
    """The tile in hand in each of ``rotations``, side by side, each labelled as a move writes it
    (``r0``, ``r90``, ...): for the turn email."""
    gap, label = 16, 20
    width = len(rotations) * (size + gap) - gap + 8
    said = say(lang)._("the tile in hand, {tile}, in its four turns", tile=tile_words(letter, 0, lang))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{size + label + 8}" '
           f'viewBox="0 0 {width} {size + label + 8}" role="img" '
           f'aria-label={quoteattr(said)}>',
           f'<rect width="{width}" height="{size + label + 8}" fill="#ffffff"/>']
    for i, rot in enumerate(rotations):
        ox = 4 + i * (size + gap)
        out += _tile_svg(letter, rot, ox, 4, size)
        out.append(f'<text x="{ox + size / 2:.1f}" y="{size + label + 2}" font-size="14" '
                   'text-anchor="middle" font-family="DejaVu Sans, Verdana, sans-serif" '
                   f'fill="#222">r{rot}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
