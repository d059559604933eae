"""Tiletum's board picture (tiletum/svg.py): no words of a player's board overlap another's (the
"Cathedral tiles" line sat on "Building 6"). Text boxes are estimated from the font size per kind of
letter (tiletum/pieces.py ``_drawn``: narrow, wide, capitals and the rest, a little over DejaVu Sans'
and Helvetica's own widths; here 4% more again), ascending 0.8 and descending 0.25 of it, as a
renderer lays them out. (A flat 0.62 of the size per glyph overstated a label of small letters by a
fifth, and a chip's words then had to be cut.)"""
from __future__ import annotations

import re
from html import unescape

import games
from tiletum.pieces import _drawn

TEXT = re.compile(r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="([\d.]+)"[^>]*text-anchor="(\w+)"[^>]*>'
                  r'([^<]*)</text>')


def boxes(svg: str) -> list[tuple[str, float, float, float, float]]:
    out = []
    for x, y, size, anchor, text in TEXT.findall(svg):
        x, y, size, text = float(x), float(y), float(size), unescape(text)
        w = _drawn(text, size) * 1.04   # the drawing's own per-letter estimate, and a little more
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
    lines = [b for b in found if b[0].startswith("Contracts") or "Cathedral tiles:" in b[0]]
    labels = [b for b in found if b[0].startswith(("Building ", "Storehouse", "Resources", "Buildings"))
              or b[0].startswith(tuple(f"{r.title()} " for r in ("gold", "food", "wool", "stone", "iron")))]
    assert len(lines) >= 2 and len(labels) >= 12   # each seat's, on one line or two
    for line in lines:
        for label in labels:
            assert not overlap(line, label), f"{line[0]!r} overlaps {label[0]!r}"


def test_the_seats_own_board_for_a_phone_is_narrow_and_its_words_are_large_and_apart():
    """The turn email's second picture (tiletum/svg_seat.py): 360 pixels wide, words of 12 pixels or
    more (on a phone the whole 960-pixel board shrinks its 9-10 pixel words below 4), no two
    overlapping, none past the edge, only characters every sans-serif font has; with a full board."""
    import random
    from tiletum.svg_seat import SEAT_W, seat_board_svg
    g = games.TILETUM
    rng = random.Random(3)
    state, _ = g.new_game(2, "phone", {})
    for _ in range(200):
        if g.is_over(state):
            break
        _, state = g.play(state, g.actor(state), rng.choice(g.legal_moves(state))[0], "phone")
    p = state.seats[0]
    p.contracts = ["K10", "K15", "K19", "K16", "K20", "K21", "K22", "K23", "K24", "K25", "K26"]
    p.cathedrals = ["T01", "T13", "T24"]
    svg = seat_board_svg(state, 0, ["Maximiliane", "Bob"])
    assert f'width="{SEAT_W}"' in svg and SEAT_W == 360
    found = boxes(svg)
    assert len(found) > 30
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]
    assert min(sizes) >= 12
    for i, a in enumerate(found):
        assert a[1] >= 0 and a[3] <= SEAT_W + 1, f"{a[0]!r} runs past the edge"
        assert all(ord(ch) <= 0xFF or ch in "\u2013\u2014" for ch in a[0]), a[0]
        for b in found[i + 1:]:
            assert not overlap(a, b), f"{a[0]!r} overlaps {b[0]!r}"


def test_every_word_of_the_whole_board_is_drawn_at_12_units_or_more_and_none_overlaps_on_a_board():
    """The game page shows the drawing at its own size (or larger) on a phone, so each label's own
    font size is what a player reads there: at least 12 CSS pixels (Lighthouse's legible text), with
    a full board (Rooms, Crests, Storehouse, fulfilled Contracts) in a 4-player game; the drawing is
    enlarged as a whole, so the words on a player's board still keep apart."""
    import random
    g = games.TILETUM
    rng = random.Random(5)
    state, _ = g.new_game(4, "legible", {})
    for _ in range(300):
        if g.is_over(state):
            break
        _, state = g.play(state, g.actor(state), rng.choice(g.legal_moves(state))[0], "legible")
    svg = g.board_svg(state, ["Ada", "Bob", "Cid", "Dan"])
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]
    assert len(sizes) > 150 and min(sizes) >= 12, min(sizes)
    width = float(re.search(r'<svg[^>]* width="([\d.]+)"', svg).group(1))
    for board in re.split(r'(?=<g class="player-board")', svg)[1:]:   # each to the next (the last: the end)
        found = [b for b in boxes(board) if b[0].strip()]
        assert len(found) > 20
        # no words cut short, no Room numbers, abbreviations or bracketed notes (issue 53)
        for b in found:
            assert not b[0].endswith("..."), f"{b[0]!r} is cut"
            assert not re.fullmatch(r"\d\.\d", b[0]) and "[" not in b[0], b[0]
            assert not re.search(r"\b(?:Merch|Contr|Char|Arch)\.", b[0]), b[0]
        for i, a in enumerate(found):
            assert a[3] <= width + 1, f"{a[0]!r} runs past the edge"
            for b in found[i + 1:]:
                assert not overlap(a, b), f"{a[0]!r} overlaps {b[0]!r}"
