"""The email pictures' fast rasteriser (mail/svg_raster.py) draws what CairoSVG draws (issue 40).

For random positions of every game the email channel plays, each turn-email picture is drawn by
both, and the two pictures are compared pixel by pixel: the same size, and all but a sliver of
pixels the same (a label whose start falls on half a pixel may sit one pixel over: cairo rounds
a glyph's place after CairoSVG's letter-by-letter cursor and after one ``show_text`` a hair apart).
Every label is drawn: the pixels a drawing's ``<text>`` elements add (the picture with them against
the picture without) are there in the fast picture too. Samples are saved in tests/artifacts.
"""
from __future__ import annotations

import io
import os
import random

import numpy as np
import pytest
from PIL import Image

import games
from application.board_svg import email_pictures
from mail import board_png, svg_raster

ARTIFACTS = os.path.join(os.path.dirname(__file__), "artifacts")
EMAIL_GAMES = [name for name, g in games.GAMES.items() if getattr(g, "email", False)]


def _positions(name: str, n: int) -> list[tuple[str, str, str]]:
    """(game, picture, svg) of ``n`` random positions of the game, a different seat count each."""
    game = games.get(name)
    out = []
    for i in range(n):
        rng = random.Random(f"{name}-{i}")
        players = max(2, game.min_players) + i % (game.max_players - max(2, game.min_players) + 1)
        state, _ = game.new_game(players, f"picture-cost-{name}-{i}", {})
        for _ in range(rng.randrange(0, 150)):
            moves = [m for m, _ in game.legal_moves(state)]
            if not moves or state.actor is None:
                break
            state = game.play(state, state.actor, rng.choice(moves), f"picture-cost-{name}-{i}")[1]
        meta = {"game": name, "seats": [{"name": f"Player {k} with a long name" if k == 1 else f"P{k}",
                                         "kind": "human"} for k in range(players)]}
        seat = state.actor if state.actor is not None else 0
        out += [(name, pic, svg) for pic, _alt, svg in email_pictures(meta, state, seat)]
    return out


def _rgb(surface) -> np.ndarray:
    img = Image.frombuffer("RGBA", (surface.get_width(), surface.get_height()), bytes(surface.get_data()),
                           "raw", "BGRA", surface.get_stride(), 1).convert("RGB")
    return np.asarray(img, dtype=np.int16)


def _cairosvg(svg: str, width: int) -> np.ndarray:
    from cairosvg.parser import Tree
    from cairosvg.surface import PNGSurface
    surface = PNGSurface(Tree(bytestring=svg.encode("utf-8")), None, 96, output_width=width,
                         background_color="white").cairo
    surface.flush()
    return _rgb(surface)


def _width(svg: str) -> int:
    own = board_png.svg_width(svg)
    return min(board_png.WIDTH, int(own)) if own else board_png.WIDTH


@pytest.mark.parametrize("name", EMAIL_GAMES)
def test_the_fast_picture_is_cairosvgs(name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    for k, (game, pic, svg) in enumerate(_positions(name, 4)):
        width = _width(svg)
        slow = _cairosvg(svg, width)
        fast = _rgb(svg_raster.render(svg, width))
        assert fast.shape == slow.shape, (game, pic)
        diff = np.abs(fast - slow).max(axis=2)
        assert (diff > 64).mean() < 0.002, f"{game} {pic}: {(diff > 64).mean():.3%} of the pixels differ"
        assert np.abs(fast - slow).mean() < 0.5, (game, pic)
        # every label drawn: where CairoSVG's labels put ink, the fast picture has it too
        bare = _cairosvg(svg.replace("<text ", '<text display="none" '), width)
        ink = np.abs(slow - bare).max(axis=2) > 64
        assert ink.sum() > 0, "the picture has labels"
        missed = ink & (np.abs(fast - bare).max(axis=2) <= 8)
        assert missed.sum() / ink.sum() < 0.03, f"{game} {pic}: labels missing"
        if k == 0:
            Image.fromarray(fast.astype(np.uint8)).save(
                os.path.join(ARTIFACTS, f"picture-fast-{game}-{pic}.png"))
            Image.fromarray(slow.astype(np.uint8)).save(
                os.path.join(ARTIFACTS, f"picture-cairosvg-{game}-{pic}.png"))


def test_what_it_does_not_draw_goes_to_cairosvg():
    """A transform, a style, a named colour, a tspan: the rasteriser says so, and the PNG is
    CairoSVG's, the same picture."""
    base = ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40" viewBox="0 0 100 40" '
            'font-family="sans-serif">{}</svg>')
    for body in ('<g transform="translate(5,5)"><rect x="1" y="1" width="20" height="10" '
                 'fill="#ff0000"/></g>',
                 '<rect x="1" y="1" width="20" height="10" style="fill:#ff0000"/>',
                 '<rect x="1" y="1" width="20" height="10" fill="red"/>',
                 '<text x="5" y="20" font-size="10">a<tspan>b</tspan></text>',
                 '<g fill="#ff0000"><rect x="1" y="1" width="20" height="10"/></g>',
                 '<path d="M1,1 A5,5 0 0 1 10,10" stroke="#000"/>'):
        svg = base.format(body)
        with pytest.raises(svg_raster.Unsupported):
            svg_raster.render(svg, 100)
        png = board_png.svg_to_png(svg, 100)
        img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
        assert np.abs(img - _cairosvg(svg, 100)).max() <= 48, body
        assert (np.abs(img - 255).max(axis=2) > 64).any(), f"something is drawn: {body}"


def test_a_failing_fast_path_still_gives_cairosvgs_picture(monkeypatch, caplog):
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="30" viewBox="0 0 60 30">'
           '<rect x="5" y="5" width="40" height="15" fill="#2f6fd6"/></svg>')
    expected = board_png.svg_to_png(svg, 60)

    def broken(*_a, **_k):
        raise AttributeError("a cairocffi without _pointer")
    monkeypatch.setattr(svg_raster, "render", broken)
    png = board_png.svg_to_png(svg, 60)
    def pixels(data: bytes) -> np.ndarray:
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.int16)
    assert np.abs(pixels(png) - pixels(expected)).max() <= 8
    assert "fast rasteriser failed" in caplog.text


def test_plain_shapes_match():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60" '
           'font-family="Helvetica, Arial, sans-serif">'
           '<rect x="2.5" y="3" width="40" height="20" rx="4" fill="#2f6fd6" stroke="#333" '
           'stroke-width="1.5"/>'
           '<rect x="50" y="3" width="30" height="20" fill="#fff" fill-opacity="0.35" stroke="#e8871e" '
           'stroke-dasharray="4 3"/>'
           '<circle cx="100" cy="12" r="8" fill="none" stroke="#2e9e4f" stroke-width="2"/>'
           '<line x1="2" y1="30" x2="118" y2="34" stroke="#8a4fc7" stroke-width="2"/>'
           '<polygon points="5,40 25,40 15,55" fill="#f2c200"/>'
           '<path d="M30,40 h10 v10 l5,5 Q50,40 60,45 C65,40 70,50 75,45 L80,55 Z" fill="#5f5f5f"/>'
           '<text x="110" y="55" font-size="11" text-anchor="end" font-weight="bold" fill="#222">'
           'Tile  7<title>a title is not drawn</title></text></svg>')
    fast = _rgb(svg_raster.render(svg, 120))
    slow = _cairosvg(svg, 120)
    assert np.abs(fast - slow).max() <= 16


def _png_rgb(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def test_scratch_surfaces_carry_nothing_over():
    """The scratch surface of a thread is drawn over by the next picture: a smaller picture after a
    larger one, and a transparent one after an opaque one, are the pictures themselves."""
    big = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120" viewBox="0 0 200 120">'
           '<rect x="0" y="0" width="200" height="120" fill="#8a4fc7"/></svg>')
    small = ('<svg xmlns="http://www.w3.org/2000/svg" width="90" height="50" viewBox="0 0 90 50">'
             '<circle cx="45" cy="25" r="10" fill="#2e9e4f"/></svg>')
    svg_raster.render(big, 200, scratch=True)
    np.testing.assert_array_equal(_rgb(svg_raster.render(small, 90, scratch=True)),
                                  _rgb(svg_raster.render(small, 90)))
    svg_raster.render(big, 200, scratch=True)
    clear = svg_raster.render(small, 90, background=None, scratch=True)
    data = np.frombuffer(bytes(clear.get_data()), dtype=np.uint8).reshape(50, clear.get_stride())
    assert data[:, 3:90 * 4:4].min() == 0            # transparent where the circle is not
    assert data[25, 45 * 4 + 3] == 255                 # and opaque where it is
    # and the PNGs of the email path, one after the other on one thread
    a, b = board_png.svg_to_png(big, 200), board_png.svg_to_png(small, 90)
    assert np.abs(_png_rgb(b) - _cairosvg(small, 90)).mean() < 1     # (a palette's edges aside)
    assert tuple(_png_rgb(b)[0, 0]) == (255, 255, 255) and tuple(_png_rgb(b)[25, 45]) == (0x2e, 0x9e, 0x4f)
    assert np.abs(_png_rgb(a) - _cairosvg(big, 200)).max() <= 16


def test_a_palette_is_shared_by_drawings_of_the_same_colours_only(monkeypatch):
    """The palette is made once per set of colours (the octree runs for the first board only) and
    a board mapped to a palette made from another is as close to its own pixels as with its own;
    a drawing of other colours gets a palette of its own."""
    monkeypatch.setattr(board_png, "_palettes", type(board_png._palettes)())
    game = games.get("tiletum")
    meta = {"game": "tiletum", "seats": [{"name": "Ada", "kind": "human"}, {"name": "Bob", "kind": "human"}]}
    boards = [email_pictures(meta, game.new_game(2, f"palette-{i}", {})[0], 0)[0][2] for i in range(3)]
    def key(svg: str, width: int) -> tuple:
        paints: set = set()
        svg_raster.render(svg, width, paints=paints)
        return board_png.palette_key(svg, width, paints)
    keys = {key(svg, _width(svg)) for svg in boards}
    for svg in boards:
        width = _width(svg)
        own = board_png.encode(board_png._image(svg, width)[0])            # its own palette
        shared = board_png.svg_to_png(svg, width)                          # the key's palette
        truth = _rgb(svg_raster.render(svg, width))
        err_own = np.abs(_png_rgb(own) - truth).max(axis=2)
        err_shared = np.abs(_png_rgb(shared) - truth).max(axis=2)
        assert err_shared.mean() < 4 and (err_shared > 32).mean() < 0.01
        assert err_shared.mean() < err_own.mean() * 1.5 + 0.5
    assert len(board_png._palettes) == len(keys) < len(boards)   # shared: fewer palettes than boards
    # a red rectangle and a black label on the same root: two palettes, each picture its own colours
    base = ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40" viewBox="0 0 100 40" '
            'font-family="sans-serif">{}</svg>')
    red = base.format('<rect x="1" y="1" width="60" height="30" fill="#ff0000"/>')
    black = base.format('<text x="5" y="25" font-size="20">Ada</text>')
    assert key(red, 100) != key(black, 100)
    assert key(black, 100) != key(black.replace('">Ada', '" fill-opacity="0.4">Ada'), 100)
    board_png.svg_to_png(red, 100)
    drawn = _png_rgb(board_png.svg_to_png(black, 100))
    assert np.abs(drawn - _rgb(svg_raster.render(black, 100))).max() <= 24


def _pillows_png(img) -> bytes:
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)
    return out.getvalue()


@pytest.mark.parametrize("size", [(1, 1), (3, 7), (800, 656), (401, 3)])
def test_the_png_writer_gives_pillows_pixels_and_palette(size):
    """``png_of_palette_image`` (ISA-L's deflate) decodes to exactly what Pillow's own PNG of the same
    palette image decodes to: every pixel index, the palette, the size; and it checks out as a PNG
    (every chunk's CRC, Pillow's ``verify``)."""
    rng = np.random.default_rng(size[0] * 1000 + size[1])
    rgb = Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8), "RGB")
    img = rgb.quantize(colors=128, method=Image.Quantize.FASTOCTREE)
    ours, pillows = board_png.png_of_palette_image(img), _pillows_png(img)
    Image.open(io.BytesIO(ours)).verify()
    a, b = Image.open(io.BytesIO(ours)), Image.open(io.BytesIO(pillows))
    assert a.mode == b.mode == "P" and a.size == b.size == size
    assert a.getpalette() == b.getpalette()
    assert np.array_equal(np.asarray(a), np.asarray(b))
    assert board_png.png_width(ours) == size[0]


def test_a_board_png_is_pillows_picture_smaller():
    """A real board: the same pixels as Pillow's PNG of the same palette image, in fewer bytes."""
    svg = _positions("tiletum", 1)[0][2]
    width = _width(svg)
    img, _fast = board_png._image(svg, width)
    pal = img.quantize(colors=128, method=Image.Quantize.FASTOCTREE)
    ours, pillows = board_png.png_of_palette_image(pal), _pillows_png(pal)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(ours))), np.asarray(pal))
    assert len(ours) < len(pillows)


def test_the_png_writer_wants_a_palette_image():
    with pytest.raises(ValueError, match="palette image"):
        board_png.png_of_palette_image(Image.new("RGB", (2, 2)))
