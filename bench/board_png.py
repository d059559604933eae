"""The email pictures' renderers side by side, and what the picture cache saves (prints figures;
not a test).

    python bench/board_png.py [--positions N]

For N seeded positions of each game the email channel plays (Tiletum, Carcassonne, The Pillars of
the Earth; each game a few random moves in), the SVG of the turn email's board
(``application.board_svg.email_pictures``) is rendered to a PNG at the width the email uses by:

  * ``cairosvg``: CairoSVG (the service's renderer before issue 40), its pixels encoded as the
    service encodes its own (``mail.board_png.encode``: a 128-colour palette);
  * ``svg_raster (the service)``: ``mail.board_png.svg_to_png``, the games' plain SVG drawn straight
    onto cairo by ``mail/svg_raster.py`` (CairoSVG for what that does not draw);
  * ``cairosvg, via its PNG``: as the service did before that: CairoSVG's own PNG, decoded by
    Pillow and reduced to a 128-colour palette;
  * ``resvg-py``: the ``resvg-py`` package (resvg, in Rust), as it comes (the system's fonts), and
    with the DejaVu fonts loaded and set as the sans-serif family, each then reduced to the same
    palette. Skipped when ``resvg-py`` is not installed (``pip install resvg-py``: it is not a
    dependency of the service).

For each it prints the CPU milliseconds per picture (``time.process_time``, after a warm-up),
the bytes per picture, and the share of the labels it draws: the pixels that differ between the
picture and the same SVG rendered without its ``<text>`` elements, against CairoSVG's (a renderer
that finds no font draws no label at all, and reads as fast).

Then the cache (``mail.board_png.board_png`` with the project's Redis, a server this script
starts): the CPU per email of one version's picture for the first email (a render) and for each
further email by another process (read from Redis).
"""
from __future__ import annotations

import argparse
import io
import os
import random
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

FONTS = "/usr/share/fonts/truetype/dejavu"
TEXT = re.compile(r"<text\b.*?</text>", re.S)


def positions(n: int) -> list[tuple[str, str, int]]:
    """(game, svg, width) of the turn email's board, for ``n`` positions of each game."""
    import games
    from application.board_svg import email_pictures
    from mail.board_png import WIDTH, svg_width
    out = []
    for name in games.NAMES:
        game = games.get(name)
        for i in range(n):
            rng = random.Random(i)
            state, _ = game.new_game(2, f"bench-png-{name}-{i}", {})
            for _ in range(rng.randrange(0, 12)):
                moves = [m for m, _ in game.legal_moves(state)]
                if not moves or state.actor is None:
                    break
                state = game.play(state, state.actor, rng.choice(moves), f"bench-png-{name}-{i}")[1]
            meta = {"game": name, "seats": [{"name": n, "kind": "human"} for n in ("Ada", "Bob")]}
            _, _, svg = email_pictures(meta, state, state.actor if state.actor is not None else 0)[0]
            own = svg_width(svg)
            out.append((name, svg, min(WIDTH, int(own)) if own else WIDTH))
    return out


def palette(png: bytes) -> bytes:
    from PIL import Image
    img = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=128, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def cairosvg_png(svg: str, width: int) -> bytes:
    """CairoSVG's pixels (its cairo surface), encoded as the service encodes its own."""
    from PIL import Image
    from cairosvg.parser import Tree
    from cairosvg.surface import PNGSurface
    from mail.board_png import encode
    surface = PNGSurface(Tree(bytestring=svg.encode("utf-8")), None, 96, output_width=width,
                         background_color="white").cairo
    surface.flush()
    size = (surface.get_width(), surface.get_height())
    pixels = bytes(surface.get_data())
    return encode(Image.frombuffer("RGB", size, pixels, "raw", "BGRX", surface.get_stride(), 1))


def renderers() -> dict:
    from mail.board_png import svg_to_png
    import cairosvg
    out = {"cairosvg": cairosvg_png,
           "svg_raster (the service)": lambda svg, w: svg_to_png(svg, w),
           "cairosvg, via its PNG": lambda svg, w: palette(cairosvg.svg2png(
               bytestring=svg.encode("utf-8"), output_width=w, background_color="white"))}
    try:
        import resvg_py
    except ImportError:
        print("resvg-py is not installed: only CairoSVG is measured (pip install resvg-py to compare)")
        return out
    fonts = [os.path.join(FONTS, f) for f in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")]
    out["resvg-py, system fonts"] = lambda svg, w: palette(bytes(resvg_py.svg_to_bytes(
        svg_string=svg, width=w, background="white")))
    if all(os.path.exists(f) for f in fonts):
        out["resvg-py, DejaVu loaded"] = lambda svg, w: palette(bytes(resvg_py.svg_to_bytes(
            svg_string=svg, width=w, background="white", skip_system_fonts=True, font_files=fonts,
            font_family="DejaVu Sans", sans_serif_family="DejaVu Sans")))
    return out


def ink(render, svg: str, width: int) -> int:
    """How many pixels the labels cover: the picture against the same SVG without its text."""
    from PIL import Image, ImageChops
    a = Image.open(io.BytesIO(render(svg, width))).convert("RGB")
    b = Image.open(io.BytesIO(render(TEXT.sub("", svg), width))).convert("RGB")
    return ImageChops.difference(a, b).convert("L").point(lambda px: 255 if px > 40 else 0).histogram()[255]


def measure(render, pics) -> tuple[float, float]:
    render(pics[0][1], pics[0][2])   # warm-up
    sizes = []
    t = time.process_time()
    for _, svg, width in pics:
        sizes.append(len(render(svg, width)))
    return (time.process_time() - t) / len(pics) * 1000, sum(sizes) / len(sizes)


def cache_figures(svg: str, width: int, emails: int) -> tuple[float, float]:
    """CPU ms of the first email's picture (rendered) and of each further one (from Redis, each as
    a fresh process: the in-process cache emptied)."""
    import redis
    from api.redis_server import EmbeddedRedis
    from mail import board_png
    tmp = tempfile.mkdtemp(prefix="tablepost-bench-png-")
    server = EmbeddedRedis(os.path.join(tmp, "redis")).start()
    try:
        r = redis.Redis.from_url(server.url)
        board_png.cache_clear()
        t = time.process_time()
        board_png.board_png("bench", 1, lambda: svg, redis=r)
        first = time.process_time() - t
        t = time.process_time()
        for _ in range(emails):
            board_png.cache_clear()
            board_png.board_png("bench", 1, lambda: svg, redis=r)
        rest = (time.process_time() - t) / emails
        assert board_png.cache_info().renders == 0
        r.close()
        return first * 1000, rest * 1000
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=8, metavar="N",
                    help="positions of each game (default 8)")
    a = ap.parse_args(argv)
    pics = positions(a.positions)
    print(f"Email pictures: {len(pics)} boards ({a.positions} positions of each game), CPU per picture "
          f"(process time, this process only), Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    import games
    names = games.NAMES
    rows = []
    for label, render in renderers().items():
        per_game = {}
        for game in names:
            mine = [p for p in pics if p[0] == game]
            ms, size = measure(render, mine)
            per_game[game] = (ms, size, ink(render, mine[0][1], mine[0][2]))
        rows.append((label, per_game))
    base = rows[0][1]
    print(f"{'renderer':24} " + " ".join(f"{g:>28}" for g in names))
    print(f"{'':24} " + " ".join(f"{'ms/pic':>9} {'bytes':>7} {'labels':>10}" for _ in names))
    for label, per_game in rows:
        cells = " ".join(f"{ms:9.1f} {size:7.0f} {lab / max(base[g][2], 1):10.0%}"
                         for g, (ms, size, lab) in per_game.items())
        print(f"{label:24} {cells}")
    print("(labels: the pixels the labels cover, against CairoSVG's; 0% = no label drawn)")
    tiletum = next(p for p in pics if p[0] == "tiletum")
    first, rest = cache_figures(tiletum[1], tiletum[2], 50)
    print(f"\nThe cache, one Tiletum version's board in 51 emails by as many processes: the first "
          f"{first:.1f} ms of CPU (the render), each other {rest:.2f} ms (read from Redis): "
          f"{first / max(rest, 1e-6):.0f} times less.")
    return 0


# The smallest run, which `make soak` makes (tests/test_bench.py): a benchmark that breaks fails CI.
QUICK_ARGS = ["--positions", "2"]


if __name__ == "__main__":
    sys.exit(main())
