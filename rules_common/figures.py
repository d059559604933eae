"""The wooden figures the games' pictures draw (pure): a player's piece as a shape in the player's
colour, not a letter or a seat number (issue 53: "pieces drawn rather than letters").

Each function answers an SVG path's ``d`` (absolute coordinates; M, L, C and Z only, which
mail/svg_raster.py draws) of a figure ``h`` high centred on (``cx``, ``cy``); the caller writes the
``<path>`` with its own fill and stroke on it, so the picture stays plain SVG. ``lying`` turns the
figure on its side (Carcassonne's farmer lies in its field).
"""
from __future__ import annotations

# Unit outlines: the figure 1 high, centred on (0, 0), y down.
_PERSON_BODY = ((-0.1, -0.14), (0.1, -0.14), (0.46, 0.0), (0.42, 0.13), (0.16, 0.07), (0.3, 0.5),
                (0.06, 0.5), (0.0, 0.34), (-0.06, 0.5), (-0.3, 0.5), (-0.16, 0.07), (-0.42, 0.13),
                (-0.46, 0.0))
_PAWN_BODY = ((-0.08, -0.16), (0.08, -0.16), (0.19, 0.3), (0.32, 0.36), (0.32, 0.5), (-0.32, 0.5),
              (-0.32, 0.36), (-0.19, 0.3))
_K = 0.5523   # a quarter circle as a cubic


def _fmt(v: float) -> str:
    return f"{v:.1f}"


def _outline(body, head: tuple[float, float, float], cx: float, cy: float, h: float, lying: bool) -> str:
    def at(u: float, v: float) -> str:
        if lying:
            u, v = -v, u
        return f"{_fmt(cx + u * h)},{_fmt(cy + v * h)}"
    d = "M" + " L".join(at(u, v) for u, v in body) + " Z"
    hx, hy, r = head
    k = _K * r
    d += (f" M{at(hx + r, hy)} C{at(hx + r, hy + k)} {at(hx + k, hy + r)} {at(hx, hy + r)}"
          f" C{at(hx - k, hy + r)} {at(hx - r, hy + k)} {at(hx - r, hy)}"
          f" C{at(hx - r, hy - k)} {at(hx - k, hy - r)} {at(hx, hy - r)}"
          f" C{at(hx + k, hy - r)} {at(hx + r, hy - k)} {at(hx + r, hy)} Z")
    return d


def person(cx: float, cy: float, h: float, lying: bool = False) -> str:
    """A standing figure with arms and legs (a meeple: Carcassonne's follower, Pillars' master
    builder, Tiletum's Merchant)."""
    return _outline(_PERSON_BODY, (0.0, -0.31, 0.19), cx, cy, h, lying)


def pawn(cx: float, cy: float, h: float) -> str:
    """A pawn: a head on a narrow cone on a base (Tiletum's Architect)."""
    return _outline(_PAWN_BODY, (0.0, -0.32, 0.17), cx, cy, h, False)


__all__ = ["person", "pawn"]
