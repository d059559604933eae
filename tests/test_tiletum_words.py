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


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_the_pictures_in_german_and_french_keep_their_words_whole_and_apart(lang):
    """A language's words are longer than English's: on the whole board (a 4-seat game well on) no
    word of a player's board is cut or overlaps another, the seat's own board keeps its words apart
    and inside its width, and every word of the turn email's pictures is drawn inside the picture,
    whole, at 12 px or more (a resource's box grows to two rows rather than shrink its words; a tile's
    words too long for one line of its chip take two)."""
    import os

    from tests.test_board_text_layout import boxes, overlap
    from tests.test_email_picture_legible import FONTS, POSITIONS, TEXT, _attr, _mid_game
    rng = random.Random(5)
    state, _ = GAME.new_game(4, "legible", {})
    for _ in range(300):
        if GAME.is_over(state):
            break
        _, state = GAME.play(state, GAME.actor(state), rng.choice(GAME.legal_moves(state))[0], "legible")
    svg = GAME.board_svg(state, NAMES, lang=lang)
    for board in re.split(r'(?=<g class="player-board")', svg)[1:]:
        found = [b for b in boxes(board) if b[0].strip()]
        assert [b[0] for b in found if b[0].endswith("...")] == []
        for i, a in enumerate(found):
            assert not [b[0] for b in found[i + 1:] if overlap(a, b)], a[0]
    mine = boxes(seat_board_svg(state, 1, NAMES, lang=lang))
    for i, a in enumerate(mine):
        assert a[1] >= 0 and a[3] <= 361, f"{a[0]!r} runs past the edge"
        assert not [b[0] for b in mine[i + 1:] if overlap(a, b)], a[0]
    if not os.path.exists(os.path.join(FONTS, "DejaVuSans.ttf")):
        return
    from PIL import ImageFont
    for label, moves, players, names, told in POSITIONS:   # the positions the English pictures are read in
        state, events = _mid_game(GAME, moves, players, f"legible-{label}")
        pictures = GAME.email_pictures(state, GAME.actor(state), names, since=events[-told:], lang=lang)
        for name, _alt, svg in pictures:
            if name == "map":
                continue   # the map's words are the towns' (and the players'), as in English
            vx, _vy, vw, _vh = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())
            for attrs, raw in TEXT.findall(svg):
                text = html.unescape(raw)
                size = float(_attr(attrs, "font-size", "16"))
                bold = "DejaVuSans-Bold.ttf" if _attr(attrs, "font-weight") == "bold" else "DejaVuSans.ttf"
                wide = ImageFont.truetype(os.path.join(FONTS, bold), size=100).getlength(text) * size / 100
                x = float(_attr(attrs, "x"))
                left = x - {"middle": wide / 2, "end": wide}.get(_attr(attrs, "text-anchor", "start"), 0)
                where = f"{name}: {text!r} at {left:.0f}-{left + wide:.0f} of {vx:.0f}-{vx + vw:.0f}"
                assert vx - 0.5 <= left and left + wide <= vx + vw + 0.5, where
                assert size >= 12 and not text.endswith("..."), where
