"""Every legal move has a human description that names what it acts on: a tile by what it costs
and gives, never by its id (issue 42: ids are notation, shown beside the words as code)."""
from __future__ import annotations

import re

from tiletum import legal
from tiletum.describe import describe, tile_name
from tiletum.playout import random_game


def test_every_legal_move_is_described():
    verbs = set()

    def check(old, move, events, new):
        if new.phase == "over":
            return
        for m in legal(new):
            text = describe(new, m)
            assert text and text != str(m), f"no description for {m}"
            for arg in m.args:
                if arg[0] in "BKC" and arg[1:].isdigit():
                    assert tile_name(arg) in text, f"{m}: description does not name {arg}: {text}"
            assert not re.search(r"\b[BKCT]\d\d\b", text), f"{m}: a tile id in words: {text}"
            verbs.add(m.verb)

    for i in range(3):
        random_game(3, f"describe-{i}", on_move=check)
    assert {"take", "end", "tile", "merchant", "architect", "char", "contract", "king"} <= verbs


def test_take_describes_the_shift_and_the_action():
    from tiletum import new_game
    s, _ = new_game(2, "d")
    s.seats[0].res[0] = 10
    die = s.wheel[0]
    target = 1 if die[1] != "1" else 2
    text = describe(s, __import__("tiletum").parse(f"take {die}>{target}"))
    assert "paying" in text and "Gold" in text and "AP" in text


def test_moves_name_towns_as_the_map_prints_them_and_road_spaces_by_their_towns():
    """Köln, not the map id Koeln, in every description (pages and emails read them)."""
    from tiletum import new_game, parse
    from tiletum.describe import narrate, place_name
    s, _ = new_game(2, "d")
    assert place_name("Koeln") == "Köln" and place_name("Nuernberg") == "Nürnberg"
    assert place_name("London_Brugge") == "the road between London and Brugge"
    s.cathedral_cost.setdefault("Koeln", next(iter(s.cathedral_cost.values())))
    for text in ("architect Koeln", "merchant Nuernberg", "house Koeln", "pillar Koeln", "cathedral Koeln",
                 "architect London_Brugge"):
        for words in (describe(s, parse(text)), narrate(s, parse(text), "Ann")):
            assert "Koeln" not in words and "Nuernberg" not in words and "_" not in words, words
    assert describe(s, parse("pillar Koeln")) == "Place a Pillar at the Köln Cathedral"
    assert narrate(s, parse("architect Milano"), "Cardinalbot",
                   "its") == "Cardinalbot moved its Architect to Milano"


def test_every_move_played_is_narrated_in_the_third_person():
    from tiletum.describe import narrate
    verbs = set()

    def check(old, move, events, new):
        text = narrate(old, move, "Ann")
        assert text.startswith("Ann ") and not text.startswith("Ann: "), f"{move}: {text}"
        said = re.sub(r"\([^)]*\)", "", text)  # a tile's effect, in parentheses, is the tile's own text
        assert "your" not in said.lower(), f"{move}: {text}"
        verbs.add(move.verb)

    for i in range(2):
        random_game(3, f"narrate-{i}", on_move=check)
    assert {"take", "end", "tile", "merchant", "architect", "char", "contract"} <= verbs


def test_fair_tiles_are_said_in_words_on_the_board():
    """The board's Fair list says what each Fair pays (the Fair space's value plus the tile's, per
    unit, as tiletum.flow.fair_vp scores it), not the tile's id ("UpperFloorCharactersX3")."""
    import re

    from application.board_svg import board_picture
    from tiletum.components import components
    from tiletum.describe import fair_text
    assert fair_text("UpperFloorCharactersX3", 1) == "4 VP per Character on an upper floor"
    assert fair_text("SetHousePillarX6") == "6 VP per House and Pillar pair on the map"
    assert fair_text("KingTrackPlus3", 2) == "5 VP plus the King track's VP"
    import tiletum
    state = tiletum.new_game(2, "fair-words")[0]
    svg = board_picture({"game": "tiletum", "seats": [{"name": "Ann"}, {"name": "Bob"}]}, state)
    shown = " ".join(re.findall(r">([^<>]+)</text>", svg))
    c = components()
    for i, tile in enumerate(state.fair_tiles):
        assert tile not in shown
        assert fair_text(tile, c.fair_board_values[i]) in shown
