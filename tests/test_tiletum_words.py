"""Tiletum's pictures in a language (docs/i18n.md, "Tiletum's terms"): the whole board, the turn
email's table, the seat's own board and the part of the map where things changed take ``lang``; drawn
in the pseudo-locale from random positions (2 to 4 seats and the solo game against the Cardinalbot)
their words (the drawn texts and the titles a page shows on hover) leave no English, and German and
French read as the catalogs say. English is unchanged (tests/test_board_text_layout.py,
test_map_part.py, test_email_picture_legible.py and the others pin it)."""
from __future__ import annotations

import html
import random
import re

import pytest

import games
from rules_common.words import PSEUDO
from tiletum.svg import render_board_svg
from tiletum.svg_map import map_part_alt, map_part_svg
from tiletum.svg_seat import seat_board_svg
from tiletum.svg_table import table_svg

NAMES = ["Ada", "Bob", "Cid", "Dora"]
GAME = games.get("tiletum")


def leftover(text: str) -> list[str]:
    """The plain-letter words of ``text`` outside the pseudo-locale's ``⟦…⟧`` (innermost first), but
    the players' names. A picture wraps a long text over lines and may shorten one ("..."): a bracket
    opened and not closed on a line runs to its end, one closed and not opened from its start."""
    while True:
        shorter = re.sub(r"⟦[^⟦⟧]*⟧", " ", text)
        shorter = re.sub(r"⟦[^⟦⟧]*$", " ", re.sub(r"^[^⟦⟧]*⟧", " ", shorter))
        if shorter == text:
            break
        text = shorter
    # (a word of a message the pseudo-locale said has one of its accented letters in nearly every case)
    return [w for w in re.findall(r"[^\W\d_]{2,}", text) if w.isascii() and w not in NAMES]


def words_of(svg: str) -> list[str]:
    """Every text an SVG shows: its ``<text>``s and its ``<title>``s."""
    return [html.unescape(t) for t in re.findall(r">([^<>]*[A-Za-z][^<>]*)<", svg)]


def positions():
    """Positions of random games, every ninth move: 2, 3 and 4 seats and a solo game."""
    rng = random.Random(53)
    setups = [(n, {}) for n in (2, 3, 4)] + [(2, {"solo": {"level": "bishop"}})]
    for players, options in setups:
        state, _ = GAME.new_game(players, f"pictures-{players}-{len(options)}", options)
        step = 0
        while not GAME.is_over(state):
            if step % 9 == 0:
                yield players, state
            move = rng.choice(GAME.legal_moves(state))[0]
            _, state = GAME.play(state, GAME.actor(state), move, f"pictures-{players}-{len(options)}")
            step += 1
        yield players, state


def test_the_pictures_in_the_pseudo_locale_leave_no_english():
    found: dict[str, str] = {}
    solo = 0
    for players, state in positions():
        names = NAMES[:players]
        solo += state.solo is not None
        spots = sorted({p.merchant for p in state.seats} | {p.architect for p in state.seats})
        svgs = [render_board_svg(state, names, lang=PSEUDO), table_svg(state, names, 0, lang=PSEUDO),
                seat_board_svg(state, 0, names, lang=PSEUDO), map_part_svg(state, spots, names, lang=PSEUDO)]
        texts = [t for svg in svgs for t in words_of(svg)] + [map_part_alt(spots, PSEUDO)]
        texts += [alt for _, alt, _ in GAME.email_pictures(state, 0, names, lang=PSEUDO)]
        for text in texts:
            for w in leftover(text):
                found.setdefault(w, text)
    assert solo, "a solo game was drawn"
    assert found == {}, "English left in Tiletum's pictures"


def test_the_check_finds_english_left_in_a_picture():
    svg = render_board_svg(GAME.new_game(2, "english", {})[0], NAMES[:2])
    assert "Action" in {w for t in words_of(svg) for w in leftover(t)}


@pytest.mark.parametrize("lang, seat_words, table_words", [
    ("de", ["Ada, dein Tableau", "Lager", "Gebäude 1", "Vorrat: 2 Häuser, 2 Säulen"],
     ["Aktionsrad", "Königsleiste", "Vertragsauslage", "Messen", "Spielende"]),
    ("fr", ["Ada, votre plateau", "Entrepôt", "Bâtiment 1", "Réserve : 2 Maisons, 2 Piliers"],
     ["Roue d’actions", "Piste du Roi", "Offre de Contrats", "Foires", "Joueurs"]),
])
def test_the_pictures_in_german_and_french(lang, seat_words, table_words):
    state, _ = GAME.new_game(2, f"pictures-{lang}", {})
    mine = " ".join(words_of(seat_board_svg(state, 0, NAMES[:2], lang=lang)))
    table = " ".join(words_of(table_svg(state, NAMES[:2], 0, lang=lang)))
    board = " ".join(words_of(render_board_svg(state, NAMES[:2], lang=lang)))
    assert [w for w in seat_words if w not in mine] == [], mine
    assert [w for w in table_words if w not in table] == [], table
    assert [w for w in table_words if w not in board] == [], board
    assert "Storehouse" not in mine and "Action Wheel" not in table + board
    alts = [alt for _, alt, _ in GAME.email_pictures(state, 0, NAMES[:2], lang=lang)]
    head = "Der Tiletum-Tisch, Runde 1" if lang == "de" else "La table de Tiletum, manche 1"
    assert alts[0].startswith(head)
    # English, the platform's call as it always was
    assert [alt for _, alt, _ in GAME.email_pictures(state, 0, NAMES[:2])][0].startswith("The Tiletum table")
    assert GAME.board_svg(state, NAMES[:2]) == render_board_svg(state, NAMES[:2])
