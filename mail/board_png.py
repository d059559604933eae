"""The board as a PNG for emails: Gmail and Outlook do not show SVG, so the turn email carries
the board picture (``application.board_svg``, each game's own drawing) rendered to a PNG at
most 800 pixels wide, palette-reduced to stay small (tens of KB), and keeps the link to the SVG.
The games' drawings are plain SVG, which :mod:`mail.svg_raster` draws straight onto cairo with
CairoSVG's own calls (the same glyphs, a sixth to a tenth of the CPU: a Tiletum board 13 ms, not
94-115); a drawing that uses more of SVG is rendered by CairoSVG (a maintained library over the
system's cairo). The email carries the picture inline
(``mail/compose.py``): a linked one is blocked by many clients and would show the position of
the day it is opened, not of the email. ``GET /api/v1/games/{id}/board.png``
(api/resources/play.py) serves the page's board (an email's pictures are each game's own, laid out
for a phone's email column: ``email_pictures``).

Each picture is rendered once and reused for every email of its game's version (issue 40). A
new one is drawn on its thread's scratch surface (a new 2.5 MB surface a picture cost 2 ms of
page faults), and its palette is the one made before for the same paints (``palette_key``: the
octree over the half-size picture was a third of the encoding), and its rows are deflated by
ISA-L (:func:`png_of_palette_image`): a Tiletum email's two pictures cost about 10 ms of CPU, the
rest of a turn email about 6 (``bench/pbem.py``: 15-18 ms a turn email). A turn email's pictures
are looked up in Redis in one round trip and shared in one more (:func:`board_pngs`).
The cache is keyed by game, version and the *view*: the digest of the SVG drawn for that email
(``view_key``). Two seats whose pictures differ (Carcassonne's seat to play sees where its tile
fits) get two renders, and a seat is only ever given the PNG of the very SVG drawn for it, so no
seat's picture can carry what another seat's drawing shows; seats that see the same picture share
one render. Two levels:

* in this process, an LRU of :data:`CACHE_SIZE` entries;
* in Redis (when the caller passes its client): ``mail:png:{<game>}:<version>:<view>``, shared
  by every worker process and the API, each entry with a TTL (``TABLEPOST_PICTURE_CACHE_SECONDS``,
  default 3600: long enough for the emails of one version, a reminder of a slow turn renders
  again) and at most :data:`MAX_CACHED_BYTES` (a larger picture is not cached), so the cache holds
  at most the pictures rendered in the last TTL. A Redis that does not answer costs a render,
  never an email.

``bench/board_png.py`` measures the renderers side by side: this one, CairoSVG, and resvg (the
``resvg-py`` binding), which with the fonts loaded so that every label is drawn was no faster than
CairoSVG (without them it skips every label). Tried and dropped (no faster, measured): drawing
each repeated shape once and compositing it after (compositing costs as much as drawing), and a
cached background of the parts every board shares (two fifths of a Tiletum board's drawing, but
drawn between the pieces, a town's Houses over its circle, so only the roads could go first; and a
long name widens a Tiletum board, so its scale, and with it every pixel, differs between games)."""
from __future__ import annotations

import hashlib
import logging
import os
import re
import struct
import threading
import zlib
from collections import OrderedDict, namedtuple
from types import ModuleType
from typing import Callable

_deflate: ModuleType
try:   # ISA-L's deflate (python-isal): a fifth of zlib's CPU at level 1 for a smaller picture
    from isal import isal_zlib as _deflate
except ImportError:   # a platform without its wheels: zlib, as Pillow's own encoder
    _deflate = zlib

log = logging.getLogger("tablepost.board_png")
WIDTH = 800
CACHE_SIZE = 128
MAX_CACHED_BYTES = 1_000_000    # a larger PNG is not kept in Redis
PNG_LEVEL = 1                   # the deflate's level (ISA-L's 0-3, zlib's 0-9: 1 is fast for both)
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CacheInfo = namedtuple("CacheInfo", "hits misses size renders shared")

_cache: OrderedDict[tuple[str, int, str], bytes | None] = OrderedDict()
_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0, "renders": 0, "shared": 0}


def cache_seconds(environ=os.environ) -> int:
    """How long a rendered picture stays in Redis (``TABLEPOST_PICTURE_CACHE_SECONDS``, default 3600)."""
    raw = environ.get("TABLEPOST_PICTURE_CACHE_SECONDS") or "3600"
    try:
        seconds = int(raw)
    except ValueError:
        raise ValueError("TABLEPOST_PICTURE_CACHE_SECONDS must be a whole number of seconds, "
                         f"not {raw!r}") from None
    if seconds < 1:
        raise ValueError(f"TABLEPOST_PICTURE_CACHE_SECONDS ({seconds}) must be at least 1")
    return seconds


def view_key(svg: str, width: int) -> str:
    """The view a picture shows: a digest of exactly the SVG drawn and the width it is rendered at.
    Equal only for byte-identical drawings, so a cache keyed by it never hands one seat's picture
    to a seat whose drawing differs."""
    return hashlib.blake2b(f"{width}:{svg}".encode("utf-8"), digest_size=16).hexdigest()


def redis_key(game_id: str, version: int, view: str) -> str:
    """The Redis key of a game version's picture of ``view`` (the game's id in braces: one Redis
    Cluster slot per game)."""
    return f"mail:png:{{{game_id}}}:{int(version)}:{view}"


def svg_to_png(svg: str, width: int = WIDTH) -> bytes:
    """Render an SVG document to a PNG ``width`` pixels wide, reduced to a 128-colour palette.
    Drawn by :mod:`mail.svg_raster` (the games' plain SVG straight onto cairo: a tenth of CairoSVG's
    CPU for the same glyphs), or by CairoSVG when the drawing uses more of SVG than that draws; the
    palette is made from the picture at half size (each pixel then mapped to its nearest colour:
    a third less CPU than an octree over every pixel, and no larger an error; ``bench/board_png.py``),
    once for the drawings of one set of colours at one width (:func:`palette_key`)."""
    paints: set = set()
    img, fast = _image(svg, width, paints)
    return encode(img, palette_key(svg, width, paints) if fast else None)


def _image(svg: str, width: int, paints: set | None = None):
    """``svg`` drawn on white as a Pillow RGB image (opaque: cairo's premultiplied BGRA read as
    BGRX is its RGB, decoded straight from the surface's memory into the image's own), and
    whether :mod:`mail.svg_raster` drew it (else CairoSVG did; ``paints``: see its ``render``)."""
    from PIL import Image
    from . import svg_raster
    fast = False
    try:
        surface, fast = svg_raster.render(svg, width, scratch=True, paints=paints), True
    except svg_raster.Unsupported as e:
        log.debug("drawing with CairoSVG: %s", e)
        surface = None
    except Exception:  # a bug of the fast path (or a cairocffi it does not know) costs speed, not the picture
        log.warning("the fast rasteriser failed; drawing with CairoSVG", exc_info=True)
        surface = None
    if surface is None:
        from cairosvg.parser import Tree
        from cairosvg.surface import PNGSurface
        surface = PNGSurface(Tree(bytestring=svg.encode("utf-8")), None, 96, output_width=width,
                             background_color="white").cairo
        surface.flush()
    # "BGRX" is no mode Pillow maps in place, so frombuffer decodes (copies) now, while the surface lives
    size = (surface.get_width(), surface.get_height())
    img = Image.frombuffer("RGB", size, surface.get_data(), "raw", "BGRX", surface.get_stride(), 1)
    img.load()
    return img, fast


def palette_key(svg: str, width: int, paints: set) -> tuple:
    """What the palette of a picture drawn by :mod:`mail.svg_raster` depends on: the paints it
    drew with (``paints``: each fill, stroke and opacity, as the rasteriser found them), whose
    anti-aliased edges are blends of them, the kind of drawing (its root element, numbers aside)
    and the width. Two drawings with one key share a palette: mapped to the other's palette, a
    board's pixels are as close to its own as with its own palette (tests/test_picture_cost.py),
    and the octree, a third of the encoding, runs once per key, not once per picture."""
    head = svg[:svg.find(">") + 1]
    return (width, re.sub(r"\d+", "", head), frozenset(paints))


_palettes: OrderedDict[tuple, object] = OrderedDict()
PALETTES = 256


def _palette(img, key: tuple | None):
    """A 1x1 palette image for ``img``: the cached one of ``key``, else made from ``img`` at half size."""
    from PIL import Image
    if key is not None:
        with _lock:
            pal = _palettes.get(key)
            if pal is not None:
                _palettes.move_to_end(key)
                return pal
    made = img.reduce(2).quantize(colors=128, method=Image.Quantize.FASTOCTREE) \
        if min(img.size) >= 4 else img.quantize(colors=128, method=Image.Quantize.FASTOCTREE)
    pal = Image.new("P", (1, 1))
    pal.putpalette(made.getpalette())
    if key is not None:
        with _lock:
            _palettes[key] = pal
            while len(_palettes) > PALETTES:
                _palettes.popitem(last=False)
    return pal


def encode(img, palette_key: tuple | None = None) -> bytes:
    """An RGB Pillow image as a 128-colour palette PNG (the palette from the picture at half size,
    or the one made before for ``palette_key``)."""
    from PIL import Image
    palette = _palette(img, palette_key)
    return png_of_palette_image(img.quantize(palette=palette, dither=Image.Dither.NONE))


def png_of_palette_image(img) -> bytes:
    """A Pillow palette image (mode ``P``, 8 bits a pixel) as a PNG: the file Pillow writes for it
    (IHDR, PLTE, IDAT, IEND; every row unfiltered, as Pillow leaves a palette image's rows), with
    the rows deflated by ISA-L rather than zlib. Pillow's encoder is built on the system's zlib, and
    that deflate was four fifths of the picture's encoding: ISA-L at level 1 takes a fifth of its
    CPU and makes a smaller file (a turn email's two pictures 1.5 -> 0.3 ms, 49 -> 46 KB;
    docs/notes/performance-history.md, "third round")."""
    if img.mode != "P":
        raise ValueError(f"a palette image is needed, not mode {img.mode}")
    width, height = img.size
    pixels = img.tobytes()
    rows = b"".join(b"\0" + pixels[i:i + width] for i in range(0, width * height, width))  # filter: none
    colours = bytes(img.getpalette() or [0, 0, 0])[:768]
    return b"".join((_PNG_SIGNATURE,
                     _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
                     _chunk(b"PLTE", colours[:len(colours) - len(colours) % 3]),
                     _chunk(b"IDAT", _deflate.compress(rows, PNG_LEVEL)),
                     _chunk(b"IEND", b"")))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_width(png: bytes) -> int:
    """The width in pixels a PNG says in its header."""
    return int.from_bytes(png[16:20], "big")


def svg_width(svg: str) -> float | None:
    """The width an SVG document's root element gives, in pixels (None when it gives none)."""
    m = re.search(r'<svg\b[^>]*?\swidth="([\d.]+)(?:px)?"', svg)
    return float(m.group(1)) if m else None


def board_png(game_id: str, version: int, render_svg: Callable[[], str], picture: str = "board",
              natural: bool = False, redis=None) -> bytes | None:
    """The PNG of ``picture`` of ``game_id`` at ``version`` (``render_svg`` draws its SVG), from
    the cache when the same drawing was rendered before (this process's, then Redis's when
    ``redis`` is given); None when it cannot be rendered (the email then has the link).
    ``natural``: at the SVG's own width when that is less than ``WIDTH``."""
    try:
        svg = render_svg()
    except Exception:  # a drawing bug: the link still works
        log.warning("could not draw the %s of %s at version %s", picture, game_id, version, exc_info=True)
        return None
    return board_pngs(game_id, version, [(picture, svg)], natural=natural, redis=redis)[0]


def board_pngs(game_id: str, version: int, drawn: list[tuple[str, str]], natural: bool = False,
               redis=None) -> list[bytes | None]:
    """The PNGs of the pictures ``drawn`` ((name, SVG) each) of ``game_id`` at ``version``, as
    :func:`board_png` gives each, with one Redis round trip to read the ones not in this process's
    cache and one to share the ones rendered (a turn email's pictures together: the game's keys
    share one Redis Cluster slot)."""
    widths, views = [], []
    for _name, svg in drawn:
        own = svg_width(svg) if natural else None
        widths.append(min(WIDTH, int(own)) if own else WIDTH)
        views.append(view_key(svg, widths[-1]))
    out: list[bytes | None] = [None] * len(drawn)
    missing = []
    with _lock:
        for i, view in enumerate(views):
            key = (game_id, int(version), view)
            if key in _cache:
                _stats["hits"] += 1
                _cache.move_to_end(key)
                out[i] = _cache[key]
            else:
                _stats["misses"] += 1
                missing.append(i)
    if not missing:
        return out
    shared = _shared(redis, game_id, version, [views[i] for i in missing])
    rendered = []
    for i, png in zip(missing, shared):
        if png is not None:
            with _lock:
                _stats["shared"] += 1
        else:
            try:
                png = svg_to_png(drawn[i][1], widths[i])
            except Exception:  # no cairo on this host, or a drawing it cannot read: the link still works
                log.warning("could not render the %s of %s at version %s as PNG", drawn[i][0], game_id,
                            version, exc_info=True)
            with _lock:
                _stats["renders"] += 1
            if png is not None:
                rendered.append((views[i], png))
        out[i] = png
    _share(redis, game_id, version, rendered)
    with _lock:
        for i in missing:
            _cache[(game_id, int(version), views[i])] = out[i]
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return out


def _shared(redis, game_id: str, version: int, views: list[str]) -> list[bytes | None]:
    """The pictures of ``views`` another process rendered, each None where there is none (or no
    Redis was given, or Redis is away)."""
    if redis is None:
        return [None] * len(views)
    try:
        got = redis.mget([redis_key(game_id, version, view) for view in views])
    except Exception as e:  # Redis away: render them here
        log.warning("could not read the picture cache: %s", e)
        return [None] * len(views)
    return [png if png and png[:8] == _PNG_SIGNATURE else None for png in got]


def _share(redis, game_id: str, version: int, pictures: list[tuple[str, bytes]]) -> None:
    pictures = [(view, png) for view, png in pictures if len(png) <= MAX_CACHED_BYTES]
    if redis is None or not pictures:
        return
    try:
        seconds = cache_seconds()
        pipe = redis.pipeline(transaction=False)
        for view, png in pictures:
            pipe.set(redis_key(game_id, version, view), png, ex=seconds)
        pipe.execute()
    except Exception as e:  # noqa: BLE001 - a bad TABLEPOST_PICTURE_CACHE_SECONDS says so here too  # Redis away: the next process renders it again
        log.warning("could not write the picture cache: %s", e)


def cache_info() -> CacheInfo:
    with _lock:
        return CacheInfo(_stats["hits"], _stats["misses"], len(_cache), _stats["renders"], _stats["shared"])


def cache_clear() -> None:
    with _lock:
        _cache.clear()
        for k in _stats:
            _stats[k] = 0


board_png.cache_info = cache_info    # type: ignore[attr-defined]
board_png.cache_clear = cache_clear  # type: ignore[attr-defined]
