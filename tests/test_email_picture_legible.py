"""The turn email's pictures read on a phone (issue 53): each picture is a PNG that the email shows
at its own width (``<img width>``: mail/compose.py) or, on a phone, at the width of the email's
column, whichever is less; its words are then drawn at their SVG font size times (shown width / the
drawing's width). A phone's email column is taken as 360 CSS px (a 390-px phone less the mail app's
margins). Every word must come out at 12 px or more, as on the game page.

Pictures that do not read on a phone yet are marked (strict xfail: the test says so once they do),
with what is left to do."""
from __future__ import annotations

import html
import os
import random
import re

import pytest

import games
from games.base import in_language
from mail.board_png import WIDTH, png_width, svg_to_png, svg_width

PHONE = 360
LEFT: dict[tuple[str, str], str] = {}   # (game, picture): what is left to do (nothing now)


def _mid_game(g, moves: int = 30, players: int = 2, seed: str = "legible"):
    state, _ = g.new_game(players, seed, {})
    rng = random.Random(4)
    events = []
    for v in range(1, moves + 1):
        if g.is_over(state):
            break
        seat = g.actor(state)
        move = rng.choice(g.legal_moves(state))[0]
        _, state = g.play(state, seat, move, seed)
        events.append({"version": v, "seat": seat, "move": move})
    return state, events


# the positions pictured: a 2-player game 30 moves in, and a 4-player one further on whose second
# player has a long name, and whose email tells the moves of a whole round of the others
POSITIONS = (("2p", 30, 2, ["Ada", "Bob"], 4),
             ("4p", 90, 4, ["Ada", "Maximiliane von Habsburg-Lothringen", "Cid", "Dan"], 12))


def pictures():
    """Each game's pictures in each language it speaks (German and French words are longer)."""
    for label, moves, players, names, told in POSITIONS:
        for g in (games.TILETUM, games.CARCASSONNE, games.PILLARS):
            state, events = _mid_game(g, moves, players, f"legible-{label}")
            for lang in g.languages:
                said = in_language(g, lang)
                for name, alt, svg in g.email_pictures(state, g.actor(state), names, since=events[-told:],
                                                       **said):
                    left = LEFT.get((g.name, name))
                    mark = pytest.mark.xfail(reason=left, strict=True) if left else ()
                    case = f"{g.name}-{name}-{label}" + ("" if lang == "en" else f"-{lang}")
                    yield pytest.param(g.name, name, alt, svg, id=case, marks=mark)


@pytest.mark.parametrize("game,name,alt,svg", list(pictures()))
def test_every_word_of_an_email_picture_is_12_px_or_more_on_a_phone(game, name, alt, svg):
    assert alt and len(alt) > 20, "the picture keeps its alt text"
    own = svg_width(svg)
    png = svg_to_png(svg, min(WIDTH, int(own)) if own else WIDTH)
    view = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', svg)
    drawn = float(view.group(1)) if view else own
    shown = min(PHONE, png_width(png))          # the <img>'s width, or the phone's column
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]
    smallest = min(sizes) * shown / drawn if sizes else 99
    assert smallest >= 11.95, f"{game}'s {name}: its smallest words are {smallest:.1f} px on a phone"


def test_a_large_carcassonne_board_is_cut_to_where_the_tile_fits_most():
    """A board wider than a phone's column is drawn as the part of it (7 x 9 cells) where the tile
    in hand fits at the most cells, each of them labelled; the alt text says which part, and that
    the list of moves has every cell; a cell outside is not drawn at all (no tile half cut)."""
    from carcassonne.svg import EMAIL_COLS, EMAIL_ROWS, fit_cells
    g = games.CARCASSONNE
    state, _ = _mid_game(g, 70)
    seat = g.actor(state)
    (_, alt, svg), _tile = g.email_pictures(state, seat, ["Ada", "Bob"])
    assert svg_width(svg) <= PHONE
    m = re.search(r"from column (-?\d+) to (-?\d+) and row (-?\d+) to (-?\d+), "
                  r"with (\d+) of the (\d+) cells", alt)
    assert m, alt
    x0, x1, y0, y1, inside, every = map(int, m.groups())
    assert (x1 - x0 + 1, y1 - y0 + 1) == (EMAIL_COLS, EMAIL_ROWS)
    fits = fit_cells(state)
    assert every == len(fits) > inside > 0 and "the list of moves has them all" in alt
    cells = re.findall(r'class="(?:tile|fit)" data-x="(-?\d+)" data-y="(-?\d+)"', svg)
    drawn = {(int(x), int(y)) for x, y in cells}
    assert drawn and all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in drawn)
    assert {c for c in fits if c in drawn} == {c for c in fits if x0 <= c[0] <= x1 and y0 <= c[1] <= y1}
    for x, y in fits:
        assert (f">{x},{y}</text>" in svg) == ((x, y) in drawn)
    best = max(sum(a <= x < a + EMAIL_COLS and b <= y < b + EMAIL_ROWS for x, y in fits)
               for a in range(-40, 40) for b in range(-40, 40))
    assert inside == best, "no other part shows more of the cells where the tile fits"


FONTS = "/usr/share/fonts/truetype/dejavu"
TEXT = re.compile(r"<text\b([^>]*)>([^<]*)<")


def _attr(attrs: str, name: str, default: str = "") -> str:
    m = re.search(rf'\s{name}="([^"]*)"', attrs)
    return m.group(1) if m else default


@pytest.mark.skipif(not os.path.exists(os.path.join(FONTS, "DejaVuSans.ttf")), reason="no DejaVu fonts")
@pytest.mark.parametrize("game,name,alt,svg", [p.values for p in pictures()])
def test_no_word_of_an_email_picture_runs_past_its_edge(game, name, alt, svg):
    """Nothing is cut off: every label, measured in DejaVu Sans (wider than the Helvetica or Arial a
    picture asks for, and the font a server without them draws with), lies inside the picture, and
    none is shortened with '...'."""
    from PIL import ImageFont
    vx, vy, vw, vh = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())
    for attrs, raw in TEXT.findall(svg):
        text = html.unescape(raw)
        size = float(_attr(attrs, "font-size", "16"))
        bold = _attr(attrs, "font-weight") == "bold"
        font = ImageFont.truetype(os.path.join(FONTS, "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"),
                                  size=100)
        wide = font.getlength(text) * size / 100
        x, y = float(_attr(attrs, "x")), float(_attr(attrs, "y"))
        left = x - {"middle": wide / 2, "end": wide}.get(_attr(attrs, "text-anchor", "start"), 0)
        where = f"{game}'s {name}: {text!r} at {left:.0f}-{left + wide:.0f} of {vx:.0f}-{vx + vw:.0f}"
        assert vx - 0.5 <= left and left + wide <= vx + vw + 0.5, where
        assert vy <= y - size * 0.75 and y + size * 0.2 <= vy + vh, where
        assert not text.endswith("..."), where
