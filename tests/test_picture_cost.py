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
