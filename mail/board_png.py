"""The board as a PNG for emails: Gmail and Outlook do not show SVG, so the turn email carries
the board picture (``application.board_svg``, each game's own drawing) rendered to a PNG at
most 800 pixels wide by CairoSVG (a maintained library over the system's cairo), palette-reduced
to stay small (tens of KB), and keeps the link to the SVG. The email carries the picture inline
(``mail/compose.py``): a linked one is blocked by many clients and would show the position of
the day it is opened, not of the email. ``GET /api/v1/games/{id}/board.png``
(api/resources/play.py) serves the same picture. Each (game, version, picture) is rendered once
per process (an in-process LRU)."""
from __future__ import annotations

import io
import logging
import re
import threading
from collections import OrderedDict, namedtuple
from typing import Callable

log = logging.getLogger("tiletum.board_png")
WIDTH = 800
CACHE_SIZE = 128
CacheInfo = namedtuple("CacheInfo", "hits misses size")

_cache: OrderedDict[tuple[str, int, str], bytes | None] = OrderedDict()
_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


def svg_to_png(svg: str, width: int = WIDTH) -> bytes:
    """Render an SVG document to a PNG ``width`` pixels wide, reduced to a 128-colour palette."""
    import cairosvg
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=width, background_color="white")
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with CairoSVG
        return png
    img = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=128, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue() if out.tell() < len(png) else png


def png_width(png: bytes) -> int:
    """The width in pixels a PNG says in its header."""
    return int.from_bytes(png[16:20], "big")


def svg_width(svg: str) -> float | None:
    """The width an SVG document's root element gives, in pixels (None when it gives none)."""
    m = re.search(r'<svg\b[^>]*?\swidth="([\d.]+)(?:px)?"', svg)
    return float(m.group(1)) if m else None


def board_png(game_id: str, version: int, render_svg: Callable[[], str], picture: str = "board",
              natural: bool = False) -> bytes | None:
    """The PNG of ``picture`` of ``game_id`` at ``version`` (``render_svg`` draws its SVG), from
    the cache when it was rendered before; None when it cannot be rendered (the email then has the
    link). ``natural``: at the SVG's own width when that is less than ``WIDTH``."""
    key = (game_id, int(version), picture)
    with _lock:
        if key in _cache:
            _stats["hits"] += 1
            _cache.move_to_end(key)
            return _cache[key]
        _stats["misses"] += 1
    try:
        svg = render_svg()
        own = svg_width(svg) if natural else None
        png = svg_to_png(svg, min(WIDTH, int(own)) if own else WIDTH)
    except Exception:  # no cairo on this host, or a drawing it cannot read: the link still works
        log.warning("could not render the board of %s at version %s as PNG", game_id, version, exc_info=True)
        png = None
    with _lock:
        _cache[key] = png
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return png


def cache_info() -> CacheInfo:
    with _lock:
        return CacheInfo(_stats["hits"], _stats["misses"], len(_cache))


def cache_clear() -> None:
    with _lock:
        _cache.clear()
        _stats["hits"] = _stats["misses"] = 0


board_png.cache_info = cache_info    # type: ignore[attr-defined]
board_png.cache_clear = cache_clear  # type: ignore[attr-defined]
