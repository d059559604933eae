"""Every legal Pillars move acts on a part of the board picture: in positions from random
playouts (2 to 4 players, every phase and decision), each legal move's part (``move_part``, the
selector the game page's script uses too) names data attributes that are in ``board_svg``'s
picture of that position, on exactly one element; and the picture is the same for every viewer
(it has no viewer) and carries no data attribute naming something the position does not show."""
from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

from pillars.playout import random_game
from pillars.rules import legal
from pillars.svg import board_svg, move_part

_STEP = re.compile(r'\[([\w-]+)="([^"]+)"\]')


def _find(root: ET.Element, selector: str) -> list[ET.Element]:
    """The elements a selector of the form ``[a="x"] [b="y"]`` (each part one or more attribute
    tests, parts a descendant chain) matches: the small CSS subset move_part writes."""
    scopes = [root]
    for part in selector.split(" "):
        tests = _STEP.findall(part)
        assert tests and "".join(f'[{k}="{v}"]' for k, v in tests) == part, part
        found = []
        for scope in scopes:
            for el in scope.iter():
                if el is not scope and all(el.get(k) == v for k, v in tests) and el not in found:
                    found.append(el)
        scopes = found
    return scopes


def test_every_legal_move_in_random_positions_has_its_part_in_the_picture():
    seen_verbs: set[str] = set()
    positions = 0
    for players, seed in ((2, "parts-a"), (3, "parts-b"), (4, "parts-c")):
        rng = random.Random(seed)
        states: list = []
        random_game(players, seed, rng, on_move=lambda s, m, e, n, states=states: states.append(n))
        for s in states:
            moves = legal(s)
            if not moves:
                continue
            positions += 1
            root = ET.fromstring(board_svg(s))
            for m in moves:
                found = _find(root, move_part(s, m))
                assert len(found) == 1, (players, s.phase, s.queue[:1], str(m), move_part(s, m), len(found))
                seen_verbs.add(m.verb)
    assert positions > 300
    # the playouts reached every kind of move the notation has (else this test proves less)
    assert {"take", "pass", "place", "buy", "sell", "use", "done", "discard", "decline", "keep", "redraw",
            "protect", "collect", "privilege", "drop"} <= seen_verbs, seen_verbs


def test_a_spot_names_its_card_only_where_the_board_shows_one():
    states = []
    random_game(2, "parts-d", random.Random(1), on_move=lambda s, m, e, n: states.append(n))
    for s in states[::25]:
        root = ET.fromstring(board_svg(s))
        cards = sorted(el.get("data-spot-card") for el in root.iter() if el.get("data-spot-card"))
        assert cards == sorted(x for x in s.kingsbridge + s.shiring if x is not None)
        assert sorted(el.get("data-card") for el in root.iter() if el.get("data-card")) == sorted(s.pool)
