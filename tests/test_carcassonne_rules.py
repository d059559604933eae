"""Carcassonne rules: every worked example and rule of shared/rules/carcassonne.md as a known-value
test, cited by section, on boards built tile by tile with the real engine (carcassonne.play).

Board coordinates: the start tile D at 0,0 (city north, road west-east); y grows to the north."""
from __future__ import annotations

import bisect
import json
from collections import Counter
from pathlib import Path

import pytest

from carcassonne import IllegalMove, NotYourTurn, evolve, legal_moves, new_game, play
from carcassonne.rules import end
from carcassonne.state import GameState
from carcassonne.tiles import FOLLOWERS, START_TILE, tileset

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "carcassonne" / "base-tiles.json"


def fresh(players: int = 2) -> GameState:
    return new_game(players, "rules-test")[0]


def put(s: GameState, letter: str, move: str, seat: int | None = None) -> GameState:
    """Play ``move`` with tile ``letter`` in hand (swapped with the tile drawn; tiles conserved)."""
    s = s.clone()
    if s.tile != letter:
        s.pile.remove(letter)
        bisect.insort(s.pile, s.tile)
        s.tile = letter
    if seat is not None:
        s.actor = seat
    return play(s, s.actor, move, seed="rules-test")[1]


def test_tile_counts_of_the_data():
    """Game Components: 72 land tiles with the start tile; the classic base-game mix."""
    ts = tileset()
    counts = {t.letter: t.count for t in ts.types.values()}
    assert counts == {"A": 2, "B": 4, "C": 1, "D": 4, "E": 5, "F": 2, "G": 1, "H": 3, "I": 2, "J": 3, "K": 3,
                      "L": 3, "M": 2, "N": 3, "O": 2, "P": 3, "Q": 1, "R": 3, "S": 2, "T": 1, "U": 8, "V": 9,
                      "W": 4, "X": 1}
    assert sum(counts.values()) == 72 and len(ts.pile()) == 71
    shields = sum(t.count for t in ts.types.values() for seg in t.segments if seg.shield)
    cloisters = sum(t.count for t in ts.types.values() if t.cloister)
    assert (shields, cloisters) == (10, 6)
    assert ts.types[START_TILE].edges == "CRFR"


def test_the_shipped_data_is_the_shared_data_with_its_attribution():
    shipped = Path(__file__).resolve().parents[1] / "carcassonne" / "data"
    if SHARED.exists():
        assert json.loads((shipped / "base-tiles.json").read_text()) == json.loads(SHARED.read_text())
    assert "JCloisterZone" in (shipped / "README.md").read_text()
    import carcassonne
    assert "JCloisterZone" in carcassonne.__doc__ and "AGPL-3.0" in carcassonne.__doc__


def test_setup():
    """Setup: the start tile in the centre; each player 8 followers, one on the scoreboard."""
    s = fresh(3)
    assert s.tiles == [(0, 0, "D", 0)] and s.supply == [FOLLOWERS] * 3 == [7, 7, 7]
    assert s.actor == 0 and s.tile is not None and len(s.pile) == 70
    assert sorted(s.open) == [(-1, 0), (0, -1), (0, 1), (1, 0)]


def test_placement_must_abut_and_match_every_edge():
    """Placing Land Tiles: abut along an edge (not a corner only); every abutting edge matches."""
    s = fresh()
    with pytest.raises(IllegalMove) as e:
        put(s, "E", "place 1,1 r0")               # only a corner touches the start tile
    assert e.value.code == "not-adjacent"
    with pytest.raises(IllegalMove) as e:
        put(s, "E", "place 0,0 r0")
    assert e.value.code == "cell-taken"
    with pytest.raises(IllegalMove) as e:
        put(s, "E", "place 0,1 r0")               # its field faces the start tile's city
    assert e.value.code == "edges-differ" and "city" in e.value.message
    s = put(s, "U", "place 1,0 r0")               # road meets road
    with pytest.raises(IllegalMove) as e:
        put(s, "K", "place 1,-1 r0")              # K's north city would face U's south field
    assert e.value.code == "edges-differ"
    # a cell with two neighbours must match both: U's north field and E's east field at 1,1
    s2 = put(s, "E", "place 0,1 r180")            # closes the start city
    for rot in (0, 90, 180, 270):                 # R (3 city sides, 1 field) cannot match both fields
        with pytest.raises(IllegalMove) as e:
            put(s2, "R", f"place 1,1 r{rot}")
        assert e.value.code == "edges-differ"
    assert "W side" in str(put_error(s2, "R", "place 1,1 r0"))
    put(s2, "B", "place 1,1 r0")                  # all fields: matches both
    with pytest.raises(NotYourTurn):
        play(s, 1 - s.actor, "place 0,1 r180", seed="x")


def put_error(s, letter, move):
    with pytest.raises(IllegalMove) as e:
        put(s, letter, move)
    return e.value


def test_two_tile_city_scores_two_per_tile_and_the_knight_returns():
    """Scoring, a completed city: "2 points per tile used in the city", with no exception for a
    two-tile city (rules version 2); the knight returns to its owner."""
    s = put(fresh(), "E", "place 0,1 r180 knight S", seat=0)
    assert s.rules == "2"
    assert s.scores == [4, 0] and s.supply == [7, 7] and not s.meeples


def rules_1_game(players: int = 2) -> GameState:
    """A game started before rules version 2: its GameStarted event says "rules": "1"."""
    _, events = new_game(players, "rules-test")
    return evolve(None, {**events[0], "rules": "1"})


def test_a_game_started_under_rules_1_keeps_its_two_tile_city_rule_to_the_end():
    """Games in progress finish under the rules they started with: a version-1 game still scores a
    two-tile city at 1 per tile and shield, also after a snapshot (position document) round trip,
    and its later events say version 1; a larger city scores 2 per tile in both versions."""
    s = rules_1_game()
    assert s.rules == "1"
    s = GameState.from_doc(s.to_doc())                          # a snapshot keeps the version
    assert s.rules == "1" and s.to_doc()["rules"] == "1"
    city = put(s, "E", "place 0,1 r180 knight S", seat=0)
    assert city.rules == "1" and city.scores == [2, 0] and city.supply == [7, 7]
    three = put(s, "F", "place 0,1 r90 knight N", seat=0)
    events = play(three, three.actor, str(legal_moves(three)[0]), seed="rules-test")[0]
    assert events[0]["rules"] == "1"                            # later moves say their game's version
    big = put(three, "E", "place 0,2 r180", seat=1)
    assert big.scores == [8, 0]                                 # 3 tiles + 1 shield, 2 each
    legacy = s.to_doc()
    del legacy["rules"]                                         # documents from before versions
    assert GameState.from_doc(legacy).rules == "1"


def test_an_unknown_rules_version_is_refused():
    from carcassonne import PositionError
    _, events = new_game(2, "rules-test")
    with pytest.raises(PositionError, match="rules version"):
        evolve(None, {**events[0], "rules": "9"})
    doc = fresh().to_doc()
    doc["rules"] = "9"
    with pytest.raises(PositionError, match="rules version"):
        GameState.from_doc(doc)


def test_completed_city_scores_two_per_tile_and_shield():
    """Scoring: 2 points per tile, 2 bonus points per shield (3 tiles + 1 shield = 8)."""
    s = put(fresh(), "F", "place 0,1 r90 knight N", seat=0)   # city N-S with a shield
    assert s.supply == [6, 7] and s.scores == [0, 0]
    s = put(s, "E", "place 0,2 r180", seat=1)                   # seat 1 completes seat 0's city
    assert s.scores == [8, 0] and s.supply == [7, 7]


def test_completed_road_scores_one_per_tile_and_the_thief_returns():
    """Scoring, a completed road: ends at crossroads; 1 point per tile."""
    s = put(fresh(), "L", "place 1,0 r0 thief W", seat=0)
    assert s.followers() == [{"seat": 0, "x": 1, "y": 0, "role": "thief", "spot": "W"}]
    s = put(s, "L", "place -1,0 r0", seat=1)
    assert s.scores == [3, 0] and s.supply == [7, 7]


ROAD_LOOP = [  # roads at y=0 (seat 0), y=1 and y=-1 that join into one road of 11 tiles
    (0, "U", "place 1,0 r0 thief E"),
    (0, "U", "place 1,1 r0 thief E"),     # a road of its own (it abuts U 1,0 by a field)
    (1, "U", "place 0,-1 r0"),
    (1, "U", "place 1,-1 r0 thief E"),
    (0, "V", "place 2,0 r90"),
    (0, "V", "place 2,1 r0"),             # joins the roads at y=0 and y=1
    (1, "V", "place -1,0 r270"),
    (1, "V", "place -1,-1 r180"),         # joins the road at y=-1
    (0, "L", "place 0,1 r180"),           # the y=1 road ends at a crossing (and closes the start city)
]


def test_road_majority_and_tie():
    """Scoring, note: the most thieves on a completed road score all the points; in a tie each
    tied player scores; every thief returns."""
    s = fresh()
    for seat, letter, move in ROAD_LOOP:
        s = put(s, letter, move, seat=seat)
    assert s.scores == [0, 0] and s.supply == [5, 6]
    done = put(s, "A", "place 2,-1 r90", seat=1)          # the last end meets a cloister
    assert done.scores == [11, 0] and done.supply == [7, 7]
    tie = fresh()
    for seat, letter, move in ROAD_LOOP:
        tie = put(tie, letter, move.replace("place 1,1 r0 thief E", "place 1,1 r0"), seat=seat)
    tie = put(tie, "A", "place 2,-1 r90", seat=1)
    assert tie.scores == [11, 11] and tie.supply == [7, 7]


def test_occupancy_rule_on_a_road():
    """Placing New Followers: not on a road connected to one with a thief."""
    s = put(fresh(), "U", "place 1,0 r0 thief E", seat=0)
    with pytest.raises(IllegalMove) as e:
        put(s, "U", "place 2,0 r0 thief W", seat=1)
    assert e.value.code == "feature-occupied" and e.value.rule == "Placing New Followers"
    s.tile, s.actor = "U", 1
    assert "place 2,0 r0" in legal_moves(s) and "place 2,0 r0 thief E" not in legal_moves(s)


def test_followers_may_not_join_an_occupied_feature_and_legal_moves_know_it():
    """Placing New Followers: not on a feature connected to one with a follower."""
    s = put(fresh(), "L", "place 1,0 r0 thief W", seat=0)
    s.tile, s.actor = "U", 1
    moves = legal_moves(s)
    assert "place -1,0 r0" in moves and "place -1,0 r0 thief E" not in moves
    assert "place -1,0 r0 farmer SE" in moves
    # the start tile's north farm is free: a farmer may join it
    assert "place -1,0 r0 farmer NE" in moves


def test_cloister_complete_scores_nine():
    """Scoring, a completed monastery: surrounded by 8 tiles, 9 points; the monk returns."""
    s = put(fresh(), "B", "place 0,-1 r0 monk", seat=0)
    for letter, move in [("U", "place -1,0 r0"), ("U", "place 1,0 r0"), ("B", "place -1,-1 r0 monk"),
                         ("B", "place 1,-1 r0"), ("B", "place 0,-2 r0"), ("A", "place -1,-2 r0")]:
        s = put(s, letter, move, seat=1)
        assert s.scores == [0, 0]
    s = put(s, "A", "place 1,-2 r0", seat=1)
    assert s.scores == [9, 0] and s.supply == [7, 6]
    # final scoring, incomplete monastery: 1 point per tile of its nine cells (6 are placed)
    final = s.clone()
    end(final)
    assert final.scores == [9, 6] and final.final["breakdown"][1]["cloister"] == 6


def test_unplaceable_tile_is_set_aside_and_another_drawn():
    """Placing Land Tiles: a drawn tile that cannot be placed goes back to the box; draw another."""
    s = fresh()
    s.pile.remove("E")
    bisect.insort(s.pile, s.tile)
    s.tile = "E"

    class Scripted:  # draws C (fits nowhere once the start city is closed), then U
        def __init__(self, pile):
            self.picks = [pile.index("C"), [t for t in pile if t != "C"].index("U")]

        def randbelow(self, n):
            return self.picks.pop(0)

    events, after = play(s, 0, "place 0,1 r180", source=Scripted(s.pile))
    assert events[0]["chance"] == [["tile", "C"], ["tile", "U"]]
    assert after.set_aside == ["C"] and after.tile == "U" and "C" not in after.pile
    assert evolve(s, events[0]) == after            # the recorded draws fold to the same state


def test_incomplete_road_and_city_at_the_end():
    """Final scoring: incomplete road 1 per tile; incomplete city 1 per tile and 1 per shield."""
    s = put(fresh(), "F", "place 0,1 r90 knight N", seat=0)     # city D+F, open to the north
    s = put(s, "U", "place 1,0 r0 thief E", seat=1)              # road D+U, open both ways
    final = s.clone()
    end(final)
    assert final.scores == [3, 2]
    assert final.final["breakdown"] == [{"road": 0, "city": 3, "cloister": 0, "farm": 0},
                                        {"road": 2, "city": 0, "cloister": 0, "farm": 0}]
    assert final.phase == "over" and final.winners == [0] and final.winner == 0


def test_farmers_score_three_per_completed_city_their_farm_touches():
    """Scoring farmers: only completed cities; 3 points per city to the most farmers; farmers stay."""
    s = put(fresh(), "U", "place 1,0 r0 farmer NE", seat=0)   # joins the start tile's north farm
    s = put(s, "U", "place -1,0 r0 farmer SE", seat=1)        # the south farm touches no city
    open_city = s.clone()
    end(open_city)
    assert open_city.scores == [0, 0]                          # the city is not complete: nothing
    s = put(s, "E", "place 0,1 r180", seat=0)                  # completes the two-tile city (no knight)
    assert s.scores == [0, 0] and s.supply == [6, 6]           # farmers are never returned
    final = s.clone()
    end(final)
    assert final.scores == [3, 0] and final.final["breakdown"][0]["farm"] == 3


def test_several_farms_supplying_one_city_tie():
    """Scoring farmers: several farms supply one city; the most farmers in all of them score; a
    tie scores for each tied player."""
    s = put(fresh(), "U", "place 1,0 r0 farmer NE", seat=0)     # the farm south of the city
    s = put(s, "E", "place 0,1 r180 farmer SE", seat=1)         # the farm around the city's north
    assert s.followers()[1] == {"seat": 1, "x": 0, "y": 1, "role": "farmer", "spot": "NE"}  # canonical
    final = s.clone()
    end(final)
    assert final.scores == [3, 3]
    assert final.winners == [0, 1] and final.winner is None


def test_a_player_with_no_followers_left_still_plays_tiles():
    """Placing New Followers: with all followers deployed, a player goes on playing tiles."""
    s = fresh()
    s.supply[0] = 0
    s.meeples.clear()
    moves = legal_moves(s)
    assert moves and all(len(m.split()) == 3 for m in moves)


def test_the_game_ends_after_the_last_tile():
    """End of the game: when the last tile is placed, final scoring; the most points win."""
    s = fresh()
    s.pile = []                          # (the tiles are not conserved here: only the ending matters)
    s.tile = "E"
    events, after = play(s, 0, "place 0,1 r180 knight S", seed="x")
    assert events[0]["chance"] == [] and after.phase == "over" and after.actor is None and after.tile is None
    # (the two-tile city completed by the last tile scores 2 per tile)
    assert after.scores == [4, 0] and after.winners == [0] and legal_moves(after) == []
    with pytest.raises(IllegalMove) as e:
        play(after, 0, "place 0,2 r0", seed="x")
    assert e.value.code == "game-over"


def test_tiles_are_conserved_in_a_built_position():
    s = put(put(fresh(), "U", "place 1,0 r0"), "E", "place 0,1 r180")
    held = Counter(t for _, _, t, _ in s.tiles) + Counter(s.pile) + Counter([s.tile])
    assert held == Counter({t.letter: t.count for t in tileset().types.values()})


def test_the_game_ends_when_only_unplaceable_tiles_are_left():
    """Rulings: tiles that fit nowhere are set aside; with none left the game ends."""
    s = fresh()
    s.pile = ["C"]                       # C (city on every side) fits nowhere once the start city is closed
    s.tile = "E"
    events, after = play(s, 0, "place 0,1 r180", seed="x")
    assert events[0]["chance"] == [["tile", "C"]]
    assert after.set_aside == ["C"] and after.phase == "over" and after.tile is None and after.actor is None


# --- check and legal_moves agree (Hypothesis) --------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from carcassonne import check, normalize  # noqa: E402
from carcassonne.notation import Move  # noqa: E402
from carcassonne.playout import random_game  # noqa: E402

_GAMES = {}
CODES = {"cell-taken", "not-adjacent", "edges-differ", "no-follower-left", "no-such-spot", "feature-occupied"}


def position(seed: int, n: int) -> GameState:
    if seed not in _GAMES:
        _GAMES[seed] = random_game(3, f"prop-{seed}").events
    events = _GAMES[seed]
    from carcassonne import replay
    return replay(events[: 1 + n % (len(events) - 1)])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 3), st.integers(0, 70), st.integers(-4, 4), st.integers(-4, 4),
       st.sampled_from((0, 90, 180, 270)),
       st.sampled_from([(None, None), ("monk", None)] + [(r, d) for r in ("thief", "knight") for d in "NESW"]
                       + [("farmer", c) for c in ("NE", "SE", "SW", "NW")]))
def test_check_agrees_with_legal_moves(seed, n, x, y, rot, follower):
    s = position(seed, n)
    m = Move(x, y, rot, *follower)
    err = check(s, s.actor, m)
    legal = legal_moves(s)
    if err is None:
        assert str(normalize(s, s.actor, m)) in legal
    else:
        assert err[0] in CODES
        assert str(m) not in legal


def test_a_road_ending_at_a_city_gate_is_complete():
    """Scoring, a completed road: both ends at a crossroad, a city section or a monastery."""
    s = put(fresh(), "T", "place 1,0 r90 thief W", seat=0)   # the road ends at T's city gate
    assert s.scores == [0, 0]
    s = put(s, "L", "place -1,0 r0", seat=1)                  # and at L's crossing
    assert s.scores == [3, 0] and s.supply == [7, 7]


def test_a_road_that_loops_onto_itself_is_complete():
    """Scoring, a completed road: ... or the road loops onto itself (four curves: 4 points)."""
    s = put(fresh(), "V", "place 0,-1 r270 thief E", seat=1)
    s = put(s, "V", "place 1,-1 r0", seat=0)
    s = put(s, "V", "place 1,-2 r90", seat=1)
    assert s.scores == [0, 0] and s.supply == [7, 6]
    before = s.clone()
    s = put(s, "V", "place 0,-2 r180", seat=0)
    assert s.scores == [0, 4] and s.supply == [7, 7]
    assert before.scores == [0, 0] and before.supply == [7, 6]   # play() changed nothing it was given
