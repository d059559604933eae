"""Connect Four through the platform's game interface: the protocols it declares, its words, its
board picture (the plain SVG the email's rasteriser draws), its email texts, and the platform's
generic search playing by its evaluation."""
from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

import games
from ai import generic
from rules_common.errors import IllegalMove
from tablepost_connect_four import CONNECT_FOUR as game
from tablepost_connect_four.ai import value


@pytest.fixture(scope="module", autouse=True)
def hosted():
    """The game hosted in this process for these tests, as its entry point would (the platform's
    generic search reads its evaluation from the registry); this folder is not installed here."""
    from tablepost_connect_four.spec import SPEC
    ours = SPEC.name not in games.specs()
    if ours:
        games.register(SPEC)
    yield
    if ours:
        games.unregister(SPEC.name)


def played(*columns: str):
    state, events = game.new_game(2, "seed", {})
    for col in columns:
        evs, state = game.play(state, game.actor(state), col, "seed")
        events += evs
    return state, events


def test_it_is_a_game_the_email_channel_plays_and_the_generic_ai_searches():
    assert games.get("connect-four") is game and games.spec_of(game).problems() == []
    assert isinstance(game, games.EmailTexts) and isinstance(game, games.Search)
    assert game.email and not game.review and "ai" in game.seat_kinds
    assert game.phases[-1] == "over" and game.min_players == game.max_players == 2
    state, _ = game.new_game(2, "s", {})
    assert game.to_doc(state)["format"] == game.position_format == "connect-four-position/1"
    view = game.view(state, 1)
    assert view["viewer"] == 1 and view["to_act"] == [0] and view["game"] == "connect-four"
    assert game.from_doc(view).to_doc() == state.to_doc(), "the search rebuilds the state from a view"


def test_a_new_game_takes_no_options_of_its_own():
    with pytest.raises(games.BadSetup):
        game.setup([{"kind": "human"}] * 2, {"colours": "blue"})


def test_legal_moves_in_words_and_refusals():
    state, _ = played("d")
    moves = dict(game.legal_moves(state))
    assert moves["drop d"] == "Drop a disc in column d (it lands on the second row)"
    assert game.format(game.parse("D")) == "drop d"
    assert "is not a move here: you can drop a disc" in game.refusal(state, 1, "castle", "bad")
    with pytest.raises(IllegalMove):
        game.decide(played("a", "a", "a", "a", "a", "a")[0], 0, "drop a", "seed")


def test_the_history_in_words_with_and_without_names():
    state, events = played("a", "b", "a", "b", "a", "b", "a")
    texts = game.event_texts(events, names=["Ann", "Bob"])
    assert texts[0] == "A game of Connect Four begins: red drops first, then yellow"
    assert texts[-1] == ("Ann drops a red disc in column a (it lands on the fourth row); "
                         "four in a row: Ann wins")
    assert game.event_texts(events)[1] == "Drop a disc in column a (it lands on the bottom row)"
    assert game.places(state) == [1, 2] and game.scores(state) == [1, 0]


def test_a_resignation_ends_the_game_for_the_other_seat():
    state, events = played("d")
    events.append({"type": games.RESIGNED, "seat": 1, "winner": 0})
    after = game.replay(events)
    assert game.is_over(after) and game.winner(after) == 0 and game.actor(after) is None
    assert game.event_texts(events, names=["Ann", "Bob"])[-1] == "Bob resigned; Ann wins"


def test_the_board_is_plain_svg_the_email_rasteriser_draws():
    from mail import svg_raster
    state, _ = played("a", "b", "a", "b", "a", "b", "a")
    svg = game.board_svg(state, ["Ann <x>", "Bob"])
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    labels = [t.text for t in root.iter(ns + "text")]
    assert labels[:7] == list("abcdefg") and "Ann <x> (red)" in labels
    discs = root.findall(f".//{ns}g[@class='disc seat0']")
    assert len(discs) == 4 and len(root.findall(f".//{ns}g[@class='disc seat1']")) == 3
    assert "style=" not in svg and "transform" not in svg
    assert svg_raster.render(svg, 300).get_width() == 300   # no Unsupported: drawn without CairoSVG


def test_the_email_position_lines_show_the_board_as_text():
    state, _ = played("d", "c")
    lines = game.email_position_lines(state, 0, ["Ann", "Bob"])
    assert lines[0].startswith("You drop red discs") and "Bob drops yellow" in lines[0]
    assert lines[-2] == ". . Y R . . ." and lines[-1] == "a b c d e f g"
    assert [m for m, _ in game.email_moves(state, 0)] == [m for m, _ in game.legal_moves(state)]
    assert game.email_moves(state, 1) == []


def test_the_evaluation_counts_open_lines_and_the_end():
    state, _ = played("d", "a", "d", "a", "d")
    assert value(state, 0) > 0 > value(state, 1)
    over, _ = played("a", "b", "a", "b", "a", "b", "a")
    assert value(over, 0) == 1000 and value(over, 1) == -1000


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_the_generic_search_takes_a_win_and_blocks_a_loss(level):
    rng = random.Random(1)
    win, _ = played("d", "a", "d", "a", "d", "b")          # seat 0 wins by drop d
    assert str(generic.decide_state(game, value, win, 0, generic.budget(level), rng)) == "drop d"
    block, _ = played("d", "a", "d", "a", "d")             # seat 1 must block column d
    assert str(generic.decide_state(game, value, block, 1, generic.budget(level), rng)) == "drop d"


def test_the_platforms_ai_decides_from_a_served_view():
    import ai
    state, _ = played("d", "a", "d", "a", "d")
    assert ai.decide(game.view(state, 1), "medium", rng_seed=1) == ["drop d"]


def test_the_generic_search_beats_random_play():
    wins = 0
    for i in range(6):
        rng = random.Random(i)
        state, _ = game.new_game(2, f"g{i}", {})
        ai_seat = i % 2
        while not game.is_over(state):
            seat = game.actor(state)
            if seat == ai_seat:
                move = str(generic.decide_state(game, value, state, seat, generic.budget("easy"), rng))
            else:
                move = rng.choice(game.legal_moves(state))[0]
            _, state = game.play(state, seat, move, "s")
        wins += game.winner(state) == ai_seat
    assert wins >= 5, f"the search won {wins} of 6 against random moves"


def test_even_the_one_ply_search_blocks_three_in_a_column_and_wins():
    """Against a seat that always drops in the first open column, the AI seat (easy: one ply) blocks
    the three in column a and wins (the evaluation sees a threat the seat to move completes now)."""
    rng = random.Random(3)
    state, events = game.new_game(2, "s", {})
    while not game.is_over(state):
        seat = game.actor(state)
        move = (game.legal_moves(state)[0][0] if seat == 0
                else str(generic.decide_state(game, value, state, 1, generic.budget("easy"), rng)))
        evs, state = game.play(state, seat, move, "s")
        events += evs
    assert game.winner(state) == 1
    assert "drop a" in [e["move"] for e in events if e.get("seat") == 1]


def test_every_served_view_fits_the_position_schema():
    from tablepost_connect_four.position import ConnectFourPosition
    schema = ConnectFourPosition()
    state, _ = played("d", "c", "d", "c", "d", "c", "d")
    for s in (game.new_game(2, "s", {})[0], played("d")[0], state):
        for seat in (None, 0, 1):
            assert schema.validate(game.view(s, seat)) == {}
    assert schema.validate({**game.view(state, 0), "seed": "x"}), "nothing more than the document"
