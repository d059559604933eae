"""The board as a PNG for emails: Gmail and Outlook do not show SVG, so the turn email shows the
board picture (``application.board_svg``) rendered to an 800-pixel-wide PNG by CairoSVG (a
maintained library over the system's cairo), palette-reduced to stay small, and keeps the link to
the SVG. The email links the PNG (``GET /api/v1/games/{id}/board.png``, api/resources/play.py)
rather than carrying it: rendering takes a few hundred milliseconds, far more than the rest of a
turn email, and only a player who opens the email needs it. Each (game, version) is rendered once
per process (an in-process LRU)."""
from __future__ import annotations

import io
import logging
import threading
from collections import OrderedDict, namedtuple
from typing import Callable

log = logging.getLogger("tiletum.board_png")
WIDTH = 800
CACHE_SIZE = 128
CacheInfo = namedtuple("CacheInfo", "hits misses size")

_cache: OrderedDict[tuple[str, int], bytes | None] = OrderedDict()
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


def board_png(game_id: str, version: int, render_svg: Callable[[], str]) -> bytes | None:
    """The PNG of the board of ``game_id`` at ``version`` (``render_svg`` draws its SVG), from the
    cache when it was rendered before; None when it cannot be rendered (the email then has the link)."""
    key = (game_id, int(version))
    with _lock:
        if key in _cache:
            _stats["hits"] += 1
            _cache.move_to_end(key)
            return _cache[key]
        _stats["misses"] += 1
    try:
        png = svg_to_png(render_svg())
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
