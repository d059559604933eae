"""The parts of Tiletum's board picture that a move is played from carry stable data attributes
(tiletum/svg.py), which the game page makes clickable: every town and road space, each
die on the Action Wheel and each Wheel row, each slot of the offers, the Bonus tiles beside the
Wheel, and on each player's board the Storehouse tiles, the Rooms and the Crest spaces."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import tiletum
from tiletum.svg import render_board_svg
from tiletum.components import components

NS = "{http://www.w3.org/2000/svg}"


def _groups(svg: str, attr: str) -> list[ET.Element]:
    return [g for g in ET.fromstring(svg).iter(f"{NS}g") if attr in g.attrib]


def test_the_board_names_the_parts_moves_are_played_from():
    state, _ = tiletum.new_game(2, "page-4")
    for m in ("take F1", "tile B27"):
        _, state = tiletum.play(state, state.actor, tiletum.parse(m), seed="page-4")
    svg = render_board_svg(state, ["Ann", "Bob"])
    c = components()
    spots = {g.get("data-spot"): g.get("data-name") for g in _groups(svg, "data-spot")}
    assert set(spots) == set(c.spots) and spots["Koeln"] == "Köln" and spots["Paris"] == "Paris"
    assert sorted(g.get("data-die") for g in _groups(svg, "data-die")) == sorted(d[:2] for d in state.wheel)
    assert {g.get("data-action") for g in _groups(svg, "data-action")} == set(state.action_tiles)
    assert {g.get("data-offer") for g in _groups(svg, "data-offer")} == \
        {f"contract-{i + 1}" for i in range(len(state.contract_offer))} | \
        {f"char-{i + 1}" for i in range(len(state.character_offer))}
    bonus = {t for t in state.action_bonus.values() if t} | ({state.king_bonus} if state.king_bonus
                                                             else set())
    assert {g.get("data-bonus") for g in _groups(svg, "data-bonus")} == bonus
    boards = {g.get("data-seat"): g for g in _groups(svg, "data-seat")}
    ann = boards["0"]
    assert [g.get("data-tile") for g in ann.iter(f"{NS}g") if "data-tile" in g.attrib] == ["B27"]
    rooms = [g.get("data-room") for g in ann.iter(f"{NS}g") if "data-room" in g.attrib]
    assert rooms == [f"{b + 1}.{f + 1}" for b,
                     floors in enumerate(state.seats[0].rooms) for f in range(len(floors))]
    assert [g.get("data-crest") for g in ann.iter(f"{NS}g") if "data-crest" in g.attrib] == \
        [str(b + 1) for b in range(len(state.seats[0].rooms))]
    assert "seat 0" not in svg and "seat 1" not in svg, "pieces are named by their player"
