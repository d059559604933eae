"""Every legal move has a human description that names what it acts on."""
from __future__ import annotations

from engine import legal
from engine.describe import describe
from engine.playout import random_game


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
                    assert arg in text, f"{m}: description does not name {arg}: {text}"
            verbs.add(m.verb)

    for i in range(3):
        random_game(3, f"describe-{i}", on_move=check)
    assert {"take", "end", "tile", "merchant", "architect", "char", "contract", "king"} <= verbs


def test_take_describes_the_shift_and_the_action():
    from engine import new_game
    s, _ = new_game(2, "d")
    s.seats[0].res[0] = 10
    die = s.wheel[0]
    target = 1 if die[1] != "1" else 2
    text = describe(s, __import__("engine").parse(f"take {die}>{target}"))
    assert "paying" in text and "Gold" in text and "AP" in text
