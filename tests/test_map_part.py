"""The turn email's picture of the part of the Tiletum map where things changed (issue 40)."""
from __future__ import annotations

import email
import email.policy
import html
import io
import random
import re

import numpy as np
import pytest
from PIL import Image

import games
from application.board_svg import email_pictures
from mail import board_png, svg_raster
from tiletum.svg import spot_xy
from tests.test_pbem_e2e import Mailboxes
from tests.test_picture_cache import notifier_of, pictures_of, two
from tiletum.describe import place_name
from tiletum.svg_map import PART_W, changed_spots, shown_spots

META = {"game": "tiletum", "seats": [{"name": "Ada", "kind": "human"}, {"name": "Bob", "kind": "human"}]}


def _game(seed: str, turns: int):
    g = games.get("tiletum")
    state, _ = g.new_game(2, seed, {})
    rng = random.Random(seed)
    events: list[dict] = []
    for _ in range(turns):
        moves = [m for m, _ in g.legal_moves(state)]
        if not moves or state.actor is None:
            break
        evs, state = g.play(state, state.actor, rng.choice(moves), seed)
        events += evs
    return state, events


def test_the_spaces_named_or_built_on():
    state, _ = _game("map-part-1", 0)
    where = state.seats[1].architect
    events = [{"type": "MovePlayed", "seat": 0, "move": "merchant London_Brugge"},
              {"type": "MovePlayed", "seat": 0, "move": "take G5"},
              {"type": "MovePlayed", "seat": 0, "move": "architect Paris"},
              {"type": "MovePlayed", "seat": 0, "move": "house"},          # where its Architect went
              {"type": "MovePlayed", "seat": 1, "move": "pillar"},         # where its Architect stands
              {"type": "MovePlayed", "seat": 1, "move": "cathedral Koeln"},
              {"type": "MovePlayed", "seat": 1, "move": "end"}]
    built = [where] if where != "Paris" else []
    assert changed_spots(state, events) == ["London_Brugge", "Paris"] + built + ["Koeln"]
    assert changed_spots(state, [e for e in events if e["move"] in ("take G5", "end")]) == []
    assert changed_spots(state, []) == []
    odd = [{"type": "GameStarted"}, {"type": "MovePlayed", "seat": None, "move": "house"},
           {"type": "MovePlayed", "seat": 9, "move": "pillar"},
           {"type": "MovePlayed", "move": "merchant Atlantis"},
           {"type": "Resigned", "seat": 1}]
    assert changed_spots(state, odd) == []


def test_the_turn_email_pictures_the_changed_map_only_when_it_changed():
    state, events = _game("map-part-2", 120)
    since = events[-40:]
    spots = changed_spots(state, since)
    assert spots, "random play moves pieces within 40 moves"
    pictures = {name: (alt, svg) for name, alt, svg in email_pictures(META, state, 0, since)}
    assert list(pictures) == ["board", "map", "yours"]
    alt, svg = pictures["map"]
    assert "where things changed" in alt and "_" not in alt and not re.search(r"\b[A-Z]\d\d\b", alt), alt
    # the crop holds the changed spaces that lie near one another (a phone's picture shows 270 map
    # units across), each ringed; the alt text names the others
    x, y, w, h = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())
    shown = shown_spots(spots)
    assert shown and w == 270 and h <= 400
    for s in spots:
        sx, sy = spot_xy(s)
        inside = x <= sx <= x + w and y <= sy <= y + h
        assert inside or s not in shown, s
        assert (place_name(s) in alt.split("; farther away, ")[0]) == (s in shown), (s, alt)
        assert (place_name(s) in alt.split("; farther away, ")[-1]) or s in shown, (s, alt)
    assert svg.count('stroke="#c0392b"') == len(shown)
    png = board_png.svg_to_png(svg, PART_W)
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    assert img.shape[1] == PART_W
    red = (np.abs(img - np.array([0xc0, 0x39, 0x2b])).max(axis=2) < 40).sum()
    assert red > 50 * len(spots), "the rings are drawn"
    svg_raster.render(svg, PART_W)   # drawn by the fast rasteriser, not CairoSVG
    # nothing on the map since: no such picture
    quiet = [e for e in since if str(e.get("move", "")).split()[:1] == ["end"]]
    assert [n for n, _, _ in email_pictures(META, state, 0, quiet)] == ["board", "yours"]
    assert [n for n, _, _ in email_pictures(META, state, 0)] == ["board", "yours"]


@pytest.fixture()
def box():
    b = Mailboxes()
    b.controller.start()
    yield b
    b.controller.stop()


def test_the_turn_email_carries_it_after_the_moves_it_tells(redis_client, box):
    """Through the email channel: a turn email whose 'since your last turn' names a move on the
    map carries the map-part picture, its alt text in the HTML; the picture is the game's drawing
    of exactly those events."""
    n = notifier_of(redis_client, box)
    gid = n.service.create_game(two("map-a", "map-b"), {"seed": "map-part-email"}, game="tiletum")["id"]
    rng = random.Random("map-part-email")
    for _ in range(400):
        meta, state = n.service.load(gid)
        game, seat = games.of_meta(meta), state.actor
        since = n.since_last_turn(gid, seat, game)
        if changed_spots(state, since):
            break
        n.service.submit_for_seat(gid, seat, state.version, [rng.choice(game.legal_moves(state))[0]])
    else:
        pytest.fail("no move on the map in 400 moves")
    msg = n.turn_message(gid, meta, state, seat)
    pngs = pictures_of(msg)
    assert set(pngs) == {"board", "map", "yours"}
    alt = next(a for name, a, _ in email_pictures(meta, state, seat, since) if name == "map")
    parsed = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    assert html.escape(alt) in parsed.get_body(("html",)).get_content()
    svg = next(s for name, _, s in email_pictures(meta, state, seat, since) if name == "map")
    assert pngs["map"] == board_png.svg_to_png(svg, PART_W)
