"""Carcassonne's tiles and cells in words (carcassonne/pieces.py; issue 42): generated from the tile
data for every tile type and rotation, they name every city and road side the tile shows as it
lies, tell the 24 tile types apart, and never say a tile's letter or a cell's x,y."""
from __future__ import annotations

import re

import pytest

from carcassonne.pieces import SIDE_WORDS, cell_words, follower_words, tile_full, tile_words
from carcassonne.tiles import ROTATIONS, placed, tileset


@pytest.mark.parametrize("letter", tileset().letters)
def test_a_tiles_words_name_what_it_shows_as_it_lies(letter):
    for rot in ROTATIONS:
        p, words, full = placed(letter, rot), tile_words(letter, rot), tile_full(letter, rot)
        for d, edge in enumerate(p.edges):
            if edge == "C" and p.edges != ("C",) * 4:
                assert SIDE_WORDS[d] in words and "city" in words, (letter, rot, words)
            if edge == "R":
                assert SIDE_WORDS[d] in words and "road" in words, (letter, rot, words)
        assert ("cloister" in words) == tileset().types[letter].cloister
        assert ("shield" in words) == any(s.shield for s in p.segments)
        assert full.startswith(words[:1].upper() + words[1:] + ". Sides: ")
        assert not re.search(rf"\b[Tt]ile {letter}\b|\b{letter}\b(?! \w)", words + " " + full), (letter, full)


def test_the_tile_types_are_told_apart_and_a_turn_changes_the_words():
    said = {tile_words(letter) for letter in tileset().letters}
    assert len(said) == len(tileset().letters) == 24
    assert tile_words("D") == "a city on the north side and a road from east to west"
    assert tile_words("D", 90) == "a city on the east side and a road from north to south"
    assert tile_words("C") == "a city with a shield on every side"


def test_a_cell_is_said_by_where_it_lies_from_the_start_tile():
    assert cell_words(0, -1) == "1 south of the start tile"
    assert cell_words(2, 3) == "2 east and 3 north of the start tile"
    assert cell_words(-4, 0) == "4 west of the start tile"
    assert not re.search(r"\d,", cell_words(-1, -1))
    assert follower_words(1, "knight") == "a blue knight"
