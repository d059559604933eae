"""Issue 42 for The Pillars of the Earth: every card is said by what it is and does ("Potter: 1
sand for 1 VP, ×2", "3 sand (3 workers)", a privilege's own text), never by its id (C06, MM0,
sand3, P11, E04), on the board picture at every step of random games and in the moves' and the
history's words."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pillars.describe import card_name, describe, event_texts, short_card
from pillars.game import legal_moves
from pillars.playout import random_game
from pillars.state import cards
from pillars.svg import board_svg

C = cards()
IDS = sorted(set(C.rescards) | set(C.privileges) | set(C.events) | set(C.craftsmen))
ID = re.compile(r"\b(" + "|".join(map(re.escape, sorted(IDS, key=lambda i: (-len(i), i)))) + r")\b")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("cid", IDS)
def test_every_card_in_words_without_its_id(cid):
    assert not ID.search(short_card(cid)) and not ID.search(card_name(cid)), (short_card(cid), card_name(cid))
    if cid in C.craftsmen:
        k = C.craftsmen[cid]
        assert short_card(cid).startswith(k["name"]) and f"\u00d7{k['capacity']}" in short_card(cid)
    if cid in C.rescards:
        r = C.rescards[cid]
        assert short_card(cid) == f"{r['yield']} {r['resource']} ({r['workers']} workers)"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_board_and_the_words_name_no_card_by_its_id(players):
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    checked = {"boards": 0, "moves": 0}

    def check(old, move, events, new):
        if new.version % 5 == 0:
            root = ET.fromstring(board_svg(new, names))
            texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
            bad = [t for t in texts if ID.search(t)]
            assert not bad, bad
            checked["boards"] += 1
        if new.phase != "over" and new.version % 3 == 0:
            for m in legal_moves(new):
                words = describe(new, m)
                assert not ID.search(words), (m, words)
                checked["moves"] += 1

    g = random_game(players, f"pieces-{players}", on_move=check)
    for text in event_texts(g.events, names=names):
        assert not ID.search(text), text
    assert checked["boards"] > 20 and checked["moves"] > 50
