"""The board as plain SVG: shapes and one-line labels with their paint on each element, no styles
or transforms (so the email's rasteriser, mail/svg_raster.py, draws it without CairoSVG)."""
from __future__ import annotations

from html import escape

from .rules import COLOURS, COLUMNS, LETTERS, ROWS, GameState

CELL = 56
PAD = 12
TOP = 30      # the column letters above the board
PAINT = {0: ("#d62828", "#8f1b1b"), 1: ("#f6c90e", "#a8870a")}   # seat -> (fill, rim)
BOARD, HOLE, TEXT = "#1d4e89", "#f4f4f4", "#1b1b1b"


def board_svg(state: GameState, names: list[str] | None = None) -> str:
    """The seven columns with their letters above, each disc in its seat's colour, the winning four
    ringed; ``names``: the seats' names, said in the legend under the board."""
    width = PAD * 2 + COLUMNS * CELL
    board_h = ROWS * CELL + PAD * 2
    height = TOP + board_h + 34
    who = [names[i] if names and i < len(names) and names[i] else f"seat {i}" for i in range(2)]
    line = set(map(tuple, state.line or ()))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" role="img" '
           f'aria-label="Connect Four board, {state.discs} discs dropped">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>']
    for c in range(COLUMNS):
        x = PAD + c * CELL + CELL // 2
        out.append(f'<text x="{x}" y="{TOP - 9}" font-size="18" font-weight="bold" text-anchor="middle" '
                   f'fill="{TEXT}">{LETTERS[c]}</text>')
    out.append(f'<rect x="0" y="{TOP}" width="{width}" height="{board_h}" rx="10" fill="{BOARD}"/>')
    for c in range(COLUMNS):
        for r in range(ROWS):
            cx = PAD + c * CELL + CELL // 2
            cy = TOP + PAD + (ROWS - 1 - r) * CELL + CELL // 2
            seat = state.cell(c, r)
            if seat is None:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL // 2 - 6}" fill="{HOLE}"/>')
                continue
            fill, rim = PAINT[seat]
            label = f"{COLOURS[seat]} disc, column {LETTERS[c]}, row {r + 1}"
            out.append(f'<g class="disc seat{seat}" data-cell="{LETTERS[c]}{r + 1}">'
                       f'<circle cx="{cx}" cy="{cy}" r="{CELL // 2 - 6}" fill="{fill}" stroke="{rim}" '
                       f'stroke-width="3"><title>{label}</title></circle>')
            if (c, r) in line:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL // 2 - 15}" fill="none" stroke="#ffffff" '
                           f'stroke-width="4"/>')
            out.append("</g>")
    y = TOP + board_h + 23
    for seat in range(2):
        x = PAD + seat * (width // 2)
        fill, rim = PAINT[seat]
        out.append(f'<circle cx="{x + 9}" cy="{y - 6}" r="9" fill="{fill}" stroke="{rim}" stroke-width="2"/>')
        out.append(f'<text x="{x + 24}" y="{y}" font-size="15" fill="{TEXT}">'
                   f'{escape(who[seat][:20])} ({COLOURS[seat]})</text>')
    out.append("</svg>")
    return "".join(out)
