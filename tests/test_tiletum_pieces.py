"""Issue 42: Tiletum's tiles drawn as pieces (what they cost and give), never as their ids (K12,
C42, B03, T05, Z4) outside notation: the words of every tile, and the board picture over random
playouts at every player count."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tiletum import pieces
from tiletum.components import components
from tiletum.playout import random_game
from tiletum.svg import render_board_svg

ID = re.compile(r"\b[BKCTZ]\d\d?\b")
SVG = "{http://www.w3.org/2000/svg}"
DRAWN = [t for t, v in components().tiles.items() if pieces.kind(t) in pieces.KIND_COLOURS]


@pytest.mark.parametrize("tile", DRAWN)
def test_every_tile_in_words_without_its_id(tile):
    short, full = pieces.short(tile), pieces.full(tile)
    assert not ID.search(short) and not ID.search(full), (short, full)
    raw = components().tiles[tile].raw
    kind = pieces.kind(tile)
    if kind == "contract":   # what it costs and what it gives, from the data
        for r, n in raw.get("cost", {}).items():
            assert f"{n} {r.title()}" in short and f"{n} {r.title()}" in full
        assert short.split(" for ")[1].startswith(f"{raw['vp']} VP")
    elif kind == "character":
        assert short.endswith(raw["type"].title()) and raw["type"].title() in full
    elif kind == "crest":
        assert short == f"{raw['crest']} Crest"


def test_a_contract_chip_draws_its_cost_as_resource_squares():
    tile = next(t for t in DRAWN
                if pieces.kind(t) == "contract" and len(components().tiles[t].raw["cost"]) == 2)
    g = ET.fromstring("<svg xmlns='http://www.w3.org/2000/svg'>" + "".join(pieces.chip(tile, 0, 0, 200))
                      + "</svg>")
    squares = [r for r in g.iter(SVG + "rect") if r.get("fill") in pieces.RES_FILL.values()]
    assert len(squares) == 2
    titles = ["".join(t.itertext()) for t in g.iter(SVG + "title")]
    assert pieces.full(tile) in titles


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_board_names_no_tile_by_its_id(players):
    """After every few moves of a random game: no label shows an id; each offer slot and
    Storehouse tile is a piece whose title is its full text."""
    seen = {"offer": 0, "store": 0}

    def check(old, move, events, new):
        if new.version % 7:
            return
        root = ET.fromstring(render_board_svg(new))
        texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
        assert not [t for t in texts if ID.search(t)], [t for t in texts if ID.search(t)]
        for g in root.iter(SVG + "g"):
            slot, tile = g.get("data-offer"), g.get("data-tile")
            if slot and "piece" in (g.get("class") or ""):
                n = int(slot.split("-")[1]) - 1
                t = (new.contract_offer if slot.startswith("contract") else new.character_offer)[n]
                assert g.find(f"{SVG}rect/{SVG}title").text == pieces.full(t)
                seen["offer"] += 1
            if tile:
                assert g.find(f"{SVG}rect/{SVG}title").text == pieces.full(tile)
                seen["store"] += 1

    random_game(players if players > 1 else 2, f"pieces-{players}", on_move=check,
                options={"solo": {"level": "deacon"}} if players == 1 else None)
    assert seen["offer"] > 10 and seen["store"] > 0


@pytest.mark.parametrize("players", [2, 4])
def test_the_phone_picture_and_the_emails_words_name_no_tile_by_its_id(players):
    """The turn email's second picture (a seat's own board, tiletum/svg_seat.py) and its position in
    words say each tile by what it is, like the whole board."""
    import games
    from tiletum.svg_seat import seat_board_svg
    seen = {"store": 0}

    def check(old, move, events, new):
        if new.version % 5:
            return
        for seat in range(new.players):
            root = ET.fromstring(seat_board_svg(new, seat))
            texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
            assert not [t for t in texts if ID.search(t)], [t for t in texts if ID.search(t)]
            lines = games.TILETUM.email_position_lines(new, seat, ["Ann", "Bob", "Cy", "Di"])
            assert not [ln for ln in lines if ID.search(ln)], lines
            seen["store"] += len(new.seats[seat].store)

    random_game(players, f"phone-pieces-{players}", on_move=check)
    assert seen["store"] > 0


@pytest.mark.parametrize("players", [2, 4])
def test_no_chip_words_run_past_the_chip(players):
    """Every piece's words end inside its chip, measured with a real font (cairo's, as the email's
    picture draws them): a long Helper ('+1 Iron +1 Wool +1 Stone +1 Food') ran past the board's
    edge and was cut there. A shortened label ends in '...'; its whole text is the chip's title."""
    import cairocffi as cairo
    ctx = cairo.Context(cairo.ImageSurface(cairo.FORMAT_ARGB32, 1, 1))
    seen = {"chips": 0, "cut": 0}

    def check(old, move, events, new):
        if new.version % 5:
            return
        root = ET.fromstring(render_board_svg(new))
        for g in root.iter(SVG + "g"):
            if "piece" not in (g.get("class") or "").split():
                continue
            rect = g.find(SVG + "rect")
            right = float(rect.get("x")) + float(rect.get("width"))
            for t in g.findall(SVG + "text"):
                ctx.select_font_face("Helvetica", cairo.FONT_SLANT_NORMAL,
                                     cairo.FONT_WEIGHT_BOLD if t.get("font-weight") == "bold"
                                     else cairo.FONT_WEIGHT_NORMAL)
                ctx.set_font_size(float(t.get("font-size")))
                x_bearing, _, width = ctx.text_extents(t.text or "")[:3]
                x = float(t.get("x"))
                anchor = t.get("text-anchor") or "start"
                start = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
                assert start + x_bearing + width <= right + 0.5, (t.text, rect.find(SVG + "title").text)
                seen["cut"] += (t.text or "").endswith("...")
            seen["chips"] += 1

    random_game(players, f"chip-words-{players}", on_move=check)
    assert seen["chips"] > 50
