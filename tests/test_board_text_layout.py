"""Tiletum's board picture (tiletum/svg.py): no words of a player's board overlap another's (the
"Cathedral tiles" line sat on "Building 6"). Text boxes are estimated from the font size (a glyph is
at most 0.62 of it wide, ascends 0.8 and descends 0.25 of it), as a renderer lays them out."""
from __future__ import annotations

import re
from html import unescape

import games

TEXT = re.compile(r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="([\d.]+)"[^>]*text-anchor="(\w+)"[^>]*>'
                  r'([^<]*)</text>')


def boxes(svg: str) -> list[tuple[str, float, float, float, float]]:
    out = []
    for x, y, size, anchor, text in TEXT.findall(svg):
        x, y, size, text = float(x), float(y), float(size), unescape(text)
        w = len(text) * size * 0.62
        left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        out.append((text, left, y - 0.8 * size, left + w, y + 0.25 * size))
    return out


def overlap(a, b) -> bool:
    return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]


def test_the_contract_and_cathedral_lines_overlap_no_building_label():
    state, _ = games.TILETUM.new_game(2, "layout", {})
    p = state.seats[0]
    p.contracts = ["K10", "K15"]
    p.cathedrals = ["T01", "T13"]
    svg = games.TILETUM.board_svg(state, ["Ada", "Bob"])
    found = boxes(svg)
    lines = [b for b in found if b[0].startswith(("Contracts:", "Cathedral tiles:"))]
    labels = [b for b in found if b[0].startswith(("Building ", "Storehouse", "Resources", "Buildings"))
              or b[0].startswith(tuple(f"{r.title()} " for r in ("gold", "food", "wool", "stone", "iron")))]
    assert len(lines) == 4 and len(labels) >= 12
    for line in lines:
        for label in labels:
            assert not overlap(line, label), f"{line[0]!r} overlaps {label[0]!r}"
