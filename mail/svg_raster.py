"""A fast rasteriser for the plain SVG the games draw (issue 40: pictures that cost little).

CairoSVG spends most of a Tiletum board's 115 ms in Python: it parses every node into its own
objects, computes bounding boxes, and draws each label letter by letter (``show_text`` per
character, with the extents of each). The games' drawings use a small, flat part of SVG: one root
``<svg>`` with a ``viewBox``, groups that only carry classes and data attributes, and ``rect``,
``circle``, ``line``, ``polygon``, ``path`` (M, L, H, V, Q, C, Z) and ``text`` (one line, no
``tspan``) with their fill and stroke given on the element. :func:`render` draws exactly that subset
straight onto a cairo surface (cairocffi, which CairoSVG itself uses) with the calls CairoSVG
makes for it: the same scale and clip, the same rounded rectangles, the same fonts chosen the same
way, each label placed by the same extents and drawn with ``show_text`` at once rather than per
letter (cairo's toy text API advances a string by the same glyph advances; it does not kern). Every
glyph CairoSVG draws is drawn; ``tests/test_picture_cost.py`` compares the two pictures pixel by
pixel over random positions of every game.

Anything outside the subset (a transform, a style attribute, an inherited fill, a gradient, a
``tspan``, a colour by name, a unit) raises :class:`Unsupported` and the caller renders the SVG with
CairoSVG as before, so a game that draws more of SVG gets a correct picture, only a slower one.
"""
from __future__ import annotations

import math
import re
import threading
import xml.etree.ElementTree as ET
from functools import lru_cache, partial

import cairocffi as cairo

NS = "{http://www.w3.org/2000/svg}"


class Unsupported(ValueError):
    """The SVG uses something this rasteriser does not draw (render it with CairoSVG)."""


# attributes that say nothing about how an element looks
_INERT = re.compile(r"(?:class|id|role|aria-[\w-]+|data-[\w-]+|xmlns(?::\w+)?)$")
_PAINT = frozenset({"fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray"})
_SHAPES = {
    "rect": frozenset({"x", "y", "width", "height", "rx", "ry"}) | _PAINT,
    "circle": frozenset({"cx", "cy", "r"}) | _PAINT,
    "line": frozenset({"x1", "y1", "x2", "y2"}) | _PAINT,
    "polygon": frozenset({"points"}) | _PAINT,
    "path": frozenset({"d"}) | _PAINT,
    "text": frozenset({"x", "y", "font-size", "font-weight", "font-family", "text-anchor", "fill",
                       "fill-opacity"}),
}
_ROOT = frozenset({"width", "height", "viewBox", "font-family"})
_NONE: frozenset[str] = frozenset()
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PATH_TOKEN = re.compile(r"([MmLlHhVvQqCcZz])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|([\s,]+)|(.)")
_ARC = 4 * (2 ** .5 - 1) / 3   # CairoSVG's rounded corner (the Cairo cookbook's)


def _num(value: str | None, default: float = 0.0) -> float:
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise Unsupported(f"not a plain number: {value!r}") from None


@lru_cache(maxsize=256)
def _colour(value: str) -> tuple[float, float, float] | None:
    """'#rgb' or '#rrggbb' as cairo's 0-1 channels; None for 'none'."""
    if value == "none":
        return None
    if re.fullmatch(r"#[0-9a-fA-F]{3}", value):
        value = "#" + "".join(ch * 2 for ch in value[1:])
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        raise Unsupported(f"colour {value!r}")
    return tuple(int(value[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


_checked: set[tuple] = set()   # (allowed, attribute names) seen to pass: most elements repeat a shape


def _check(el: ET.Element, allowed: frozenset[str]) -> None:
    names = (allowed, tuple(el.attrib))
    if names in _checked:
        return
    for k in el.attrib:
        if k not in allowed and not _INERT.match(k):
            raise Unsupported(f"<{el.tag[len(NS):]} {k}>")
    if len(_checked) < 10_000:
        _checked.add(names)


def _spaces(text: str) -> str:
    """CairoSVG's white space (no xml:space): line breaks dropped, tabs made spaces, runs of spaces
    made one."""
    if "\n" in text or "\r" in text or "\t" in text or "  " in text:
        text = re.sub("[\n\r]", "", text).replace("\t", " ")
        return re.sub(" +", " ", text)
    return text


def render(svg: str | ET.Element, width: int,
           background: tuple[float, float, float] | None = (1, 1, 1),
           scratch: bool = False, paints: set | None = None) -> cairo.ImageSurface:
    """The SVG drawn ``width`` pixels wide on an ARGB32 surface, over ``background`` (None: a
    transparent one). Raises :class:`Unsupported` for what this rasteriser does not draw.
    ``scratch``: on this thread's scratch memory, which the next scratch render on the thread draws
    over (for a caller that reads the pixels at once: a board's 2.5 MB newly mapped for every
    picture cost its first touch of each page, 2 ms of system time an email, ``bench/pbem.py``).
    ``paints``: a set to which each (fill, stroke, opacity) the drawing paints with is added (what
    its colours are: mail/board_png.py shares a palette between drawings of the same paints)."""
    root = ET.fromstring(svg) if isinstance(svg, str) else svg
    if root.tag != NS + "svg":
        raise Unsupported("the root is not <svg>")
    _check(root, _ROOT)
    w, h = _num(root.get("width")), _num(root.get("height"))
    box = [_num(v) for v in _NUMBER.findall(root.get("viewBox") or "")] or [0, 0, w, h]
    if w <= 0 or h <= 0 or len(box) != 4 or box[2] <= 0 or box[3] <= 0:
        raise Unsupported("no size")
    out_w, out_h = float(width), h * width / w
    size = int(round(out_w)), int(round(out_h))
    surface = _scratch(*size) if scratch else cairo.ImageSurface(cairo.FORMAT_ARGB32, *size)
    ctx = cairo.Context(surface)
    if background is not None:
        ctx.set_source_rgb(*background)
        ctx.paint()
    elif scratch:   # what the last picture left there
        ctx.set_operator(cairo.OPERATOR_CLEAR)
        ctx.paint()
        ctx.set_operator(cairo.OPERATOR_OVER)
    # CairoSVG's viewport: clipped to the output size, the viewBox scaled to meet it, centred
    scale = min(out_w / box[2], out_h / box[3])
    ctx.rectangle(0, 0, out_w, out_h)
    ctx.clip()
    ctx.scale(scale, scale)
    ctx.translate((out_w / scale - box[2]) / 2 - box[0], (out_h / scale - box[3]) / 2 - box[1])
    ctx.set_miter_limit(4)
    family = (root.get("font-family") or "sans-serif").split(",")[0].strip("\"' ")
    fast = _Direct(ctx, paints)
    for el in root:
        _draw(fast, el, family)  # type: ignore[arg-type]  # the same calls as a cairocffi Context
    ctx._check_status()   # cairo's error is sticky: once here, for every call above
    surface.flush()
    return surface


_local = threading.local()


def _scratch(width: int, height: int) -> cairo.ImageSurface:
    """An ARGB32 surface on this thread's scratch buffer (grown to the largest picture yet)."""
    stride = cairo.ImageSurface.format_stride_for_width(cairo.FORMAT_ARGB32, width)
    buf = getattr(_local, "buffer", None)
    if buf is None or len(buf) < stride * height:
        buf = _local.buffer = bytearray(stride * height)
    return cairo.ImageSurface.create_for_data(memoryview(buf)[:stride * height], cairo.FORMAT_ARGB32,
                                              width, height, stride)


class _Direct:
    """The drawing calls of a cairocffi ``Context``, made on cairo's C functions directly: the same
    calls, without cairocffi's check of cairo's status after each one (half the Python calls of a
    drawing); :func:`render` checks the status once at the end (cairo's error state is sticky)."""

    def __init__(self, ctx: cairo.Context, paints: set | None = None):
        self.paints = paints if paints is not None else set()
        lib, p = cairo.cairo, ctx._pointer
        self._lib, self._p = lib, p
        self._extents = cairo.ffi.new("cairo_text_extents_t *")
        for name in ("new_path", "close_path", "new_sub_path", "fill", "fill_preserve", "stroke"):
            setattr(self, name, partial(getattr(lib, "cairo_" + name), p))
        for name in ("rectangle", "move_to", "line_to", "rel_line_to", "curve_to", "rel_curve_to", "arc",
                     "set_source_rgb", "set_source_rgba", "set_line_width", "set_font_size"):
            setattr(self, name, partial(getattr(lib, "cairo_" + name), p))

    def set_dash(self, dashes: list[float], offset: float) -> None:
        self._lib.cairo_set_dash(self._p, cairo.ffi.new("double[]", dashes), len(dashes), offset)

    def select_font_face(self, face: str, slant: int, weight: int) -> None:
        self._lib.cairo_select_font_face(self._p, face.encode("utf-8"), slant, weight)

    def text_extents(self, text: str) -> tuple[float, float, float, float, float, float]:
        e = self._extents
        self._lib.cairo_text_extents(self._p, text.encode("utf-8"), e)
        return e.x_bearing, e.y_bearing, e.width, e.height, e.x_advance, e.y_advance

    def show_text(self, text: str) -> None:
        self._lib.cairo_show_text(self._p, text.encode("utf-8"))


def _draw(ctx: cairo.Context, el: ET.Element, family: str) -> None:
    tag = el.tag[len(NS):] if el.tag.startswith(NS) else "?" + el.tag
    if tag in ("title", "desc"):
        return
    if tag == "g":
        _check(el, _NONE)
        for child in el:
            _draw(ctx, child, family)
        return
    allowed = _SHAPES.get(tag)
    if allowed is None:
        raise Unsupported(f"<{tag}>")
    _check(el, allowed)
    if tag == "text":
        _text(ctx, el, family)
        return
    if any(c.tag not in (NS + "title", NS + "desc") for c in el):
        raise Unsupported(f"<{tag}> with children")
    get = el.attrib.get
    ctx.new_path()
    if tag == "rect":
        x, y, w, h = _num(get("x")), _num(get("y")), _num(get("width")), _num(get("height"))
        rx, ry = get("rx"), get("ry")
        if rx and ry is None:
            ry = rx
        elif ry and rx is None:
            rx = ry
        rxf, ryf = _num(rx), _num(ry)
        if rxf == 0 or ryf == 0:
            ctx.rectangle(x, y, w, h)
        else:
            rxf, ryf = min(rxf, w / 2), min(ryf, h / 2)
            c1, c2 = _ARC * rxf, _ARC * ryf
            ctx.move_to(x + rxf, y)
            ctx.rel_line_to(w - 2 * rxf, 0)
            ctx.rel_curve_to(c1, 0, rxf, c2, rxf, ryf)
            ctx.rel_line_to(0, h - 2 * ryf)
            ctx.rel_curve_to(0, c2, c1 - rxf, ryf, -rxf, ryf)
            ctx.rel_line_to(-w + 2 * rxf, 0)
            ctx.rel_curve_to(-c1, 0, -rxf, -c2, -rxf, -ryf)
            ctx.rel_line_to(0, -h + 2 * ryf)
            ctx.rel_curve_to(0, -c2, rxf - c1, -ryf, rxf, -ryf)
            ctx.close_path()
    elif tag == "circle":
        r = _num(get("r"))
        if not r:
            return
        ctx.new_sub_path()
        ctx.arc(_num(get("cx")), _num(get("cy")), r, 0, 2 * math.pi)
        ctx.close_path()
    elif tag == "line":
        ctx.move_to(_num(get("x1")), _num(get("y1")))
        ctx.line_to(_num(get("x2")), _num(get("y2")))
    elif tag == "polygon":
        pts = [float(v) for v in _NUMBER.findall(get("points") or "")]
        if len(pts) % 2:
            raise Unsupported("odd polygon points")
        if pts:
            ctx.move_to(pts[0], pts[1])
            for i in range(2, len(pts), 2):
                ctx.line_to(pts[i], pts[i + 1])
            ctx.close_path()
    else:
        _path(ctx, get("d") or "")
    _paint(ctx, el)


def _paint(ctx: cairo.Context, el: ET.Element) -> None:
    """Fill, then stroke, as CairoSVG does (fill black unless said, no stroke unless said)."""
    get = el.attrib.get
    fill = _colour(get("fill", "#000"))
    stroke = _colour(get("stroke", "none"))
    ctx.paints.add((get("fill"), get("stroke"), get("fill-opacity")))  # type: ignore[attr-defined]
    if fill is not None:
        alpha = _num(get("fill-opacity"), 1.0)
        ctx.set_source_rgba(*fill, alpha)
        ctx.fill_preserve() if stroke is not None else ctx.fill()
    if stroke is not None:
        ctx.set_line_width(_num(get("stroke-width"), 1.0))
        dashes = [_num(v) for v in _NUMBER.findall(get("stroke-dasharray") or "")]
        if dashes and sum(dashes):
            ctx.set_dash(dashes, 0)
        ctx.set_source_rgb(*stroke)
        ctx.stroke()
        if dashes:
            ctx.set_dash([], 0)
    ctx.new_path()


def _path(ctx: cairo.Context, d: str) -> None:
    """M m L l H h V v Q q C c Z z; anything else is Unsupported."""
    cmd = None
    nums: list[float] = []
    items: list[tuple[str, list[float]]] = []
    for letter, number, _space, other in _PATH_TOKEN.findall(d):
        if other:
            raise Unsupported(f"path {other!r}")
        if letter:
            if cmd is not None:
                items.append((cmd, nums))
            cmd, nums = letter, []
        elif number:
            if cmd is None:
                raise Unsupported("path without a command")
            nums.append(float(number))
    if cmd is not None:
        items.append((cmd, nums))
    x = y = sx = sy = 0.0
    arity = {"M": 2, "L": 2, "H": 1, "V": 1, "Q": 4, "C": 6, "Z": 0}
    for cmd, nums in items:
        n = arity[cmd.upper()]
        if (n == 0 and nums) or (n and (not nums or len(nums) % n)):
            raise Unsupported(f"path {cmd} with {len(nums)} numbers")
        rel = cmd.islower()
        up = cmd.upper()
        if up == "Z":
            ctx.close_path()
            x, y = sx, sy
            continue
        for i in range(0, len(nums), n):
            a = nums[i:i + n]
            ox, oy = (x, y) if rel else (0.0, 0.0)
            if up == "M" or up == "L":
                x, y = ox + a[0], oy + a[1]
                if up == "M" and i == 0:
                    ctx.move_to(x, y)
                    sx, sy = x, y
                else:
                    ctx.line_to(x, y)
            elif up == "H":
                x = (x if rel else 0.0) + a[0]
                ctx.line_to(x, y)
            elif up == "V":
                y = (y if rel else 0.0) + a[0]
                ctx.line_to(x, y)
            elif up == "Q":   # the quadratic as the cubic it equals
                qx, qy, ex, ey = ox + a[0], oy + a[1], ox + a[2], oy + a[3]
                ctx.curve_to(x + 2 / 3 * (qx - x), y + 2 / 3 * (qy - y),
                             ex + 2 / 3 * (qx - ex), ey + 2 / 3 * (qy - ey), ex, ey)
                x, y = ex, ey
            else:
                ctx.curve_to(ox + a[0], oy + a[1], ox + a[2], oy + a[3], ox + a[4], oy + a[5])
                x, y = ox + a[4], oy + a[5]


def _text(ctx: cairo.Context, el: ET.Element, family: str) -> None:
    """One line of text, placed as CairoSVG places it (its anchor from the whole line's extents)."""
    for child in el:
        if child.tag != NS + "title" or (child.tail or "").strip():
            raise Unsupported("<text> with more than a title inside")
    get = el.attrib.get
    x_raw, y_raw = get("x"), get("y")
    if x_raw is None or y_raw is None or " " in x_raw.strip() or " " in y_raw.strip():
        raise Unsupported("<text> without one x and one y")
    text = _spaces(el.text or "").lstrip(" ")
    if len(el) == 0:
        text = text.rstrip(" ")
    fill = _colour(get("fill", "#000"))
    if not text or fill is None:
        return
    ctx.paints.add((get("fill"), None, get("fill-opacity")))  # type: ignore[attr-defined]
    own = get("font-family")
    face = own.split(",")[0].strip("\"' ") if own else family
    weight = get("font-weight") or "normal"
    bold = weight == "bold" or (weight.isdigit() and int(weight) >= 550)
    if weight not in ("normal", "bold") and not weight.isdigit():
        raise Unsupported(f"font-weight {weight!r}")
    ctx.select_font_face(face, cairo.FONT_SLANT_NORMAL,
                         cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL)
    ctx.set_font_size(_num(get("font-size"), 16.0))
    x, y = _num(x_raw), _num(y_raw)
    anchor = get("text-anchor") or "start"
    if anchor != "start":
        x_bearing, _, width = ctx.text_extents(text)[:3]
        if anchor == "middle":
            x -= width / 2 + x_bearing
        elif anchor == "end":
            x -= width + x_bearing
        else:
            raise Unsupported(f"text-anchor {anchor!r}")
    ctx.set_source_rgba(*fill, _num(get("fill-opacity"), 1.0))
    ctx.move_to(x, y)
    ctx.show_text(text)
    ctx.new_path()
