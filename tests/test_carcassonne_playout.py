"""Carcassonne: seeded random playouts for 2-5 players, checking after every move that it was legal,
that tiles and followers are conserved, that notation round-trips, and at the end that replay,
the position document and the final scoring agree; plus notation properties (Hypothesis)."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from carcassonne import GameState, Move, NotationError, legal_moves, parse, replay
from carcassonne.playout import random_game
from carcassonne.tiles import FOLLOWERS, tileset

ALL_TILES = Counter({t.letter: t.count for t in tileset().types.values()})


def invariants(before: GameState, move: Move, events: list[dict], after: GameState) -> None:
    moves = legal_moves(before)
    assert moves == sorted(set(moves))
    assert str(move) in moves and parse(str(move)) == move
    assert events[0]["move"] == str(move) and events[0]["seat"] == before.actor
    held = Counter(t for _, _, t,
                   _ in after.tiles) + Counter(after.pile) + Counter(after.set_aside) + Counter(
        [after.tile] if after.tile else [])
    assert held == ALL_TILES
    assert len(after.tiles) == len(before.tiles) + 1
    for seat in range(after.players):
        on = sum(1 for v in after.meeples.values() if v[0] == seat)
        assert on + after.supply[seat] == FOLLOWERS and after.supply[seat] >= 0
        assert after.scores[seat] >= before.scores[seat]
    drawn = [v for _, v in events[0]["chance"]]
    assert drawn[:-1] == after.set_aside[len(before.set_aside):] or after.phase == "over"
    if after.phase == "play":
        assert after.tile == drawn[-1] and after.actor == (before.actor + 1) % after.players


@pytest.mark.parametrize("players, seed", [(p, f"p{p}-{i}") for p in (2, 3, 4, 5) for i in range(3)])
def test_random_playout_keeps_the_invariants(players, seed):
    checked = []

    def on_move(before, move, events, after):
        invariants(before, move, events, after)
        if len(checked) % 17 == 0:  # the document round-trips mid-game
            assert GameState.from_doc(after.to_doc()) == after
        checked.append(move)

    g = random_game(players, seed, on_move=on_move)
    s = g.state
    assert s.phase == "over" and s.actor is None and s.tile is None and not s.pile
    assert len(s.tiles) == 72 - len(s.set_aside) and g.moves == 71 - len(s.set_aside)
    assert replay(g.events) == s
    assert GameState.from_doc(s.to_doc()) == s
    # the final breakdown adds up: what was scored in play plus the final scoring
    final = s.final["breakdown"]
    assert all(sum(final[i].values()) <= s.scores[i] for i in range(players))
    assert s.winners == [i for i, v in enumerate(s.scores) if v == max(s.scores)]


def test_playouts_are_deterministic_and_seed_dependent():
    a, b, c = random_game(3, "same"), random_game(3, "same"), random_game(3, "other")
    assert a.events == b.events and a.state == b.state
    assert a.events[0]["chance"] != c.events[0]["chance"] or a.events[1:] != c.events[1:]


def test_final_scores_recomputed_from_scratch():
    """The final scoring of a finished game equals an independent recount by flood fill."""
    for i in range(12):
        s = random_game(2 + i % 4, f"f{i}").state
        assert recount_final(s) == [b for b in s.final["breakdown"]]


def recount_final(s: GameState) -> list[dict]:
    """Incomplete features and farms, counted by flood fill over the tiles (not the union-find)."""
    from carcassonne.state import DX, DY
    from carcassonne.tiles import placed
    shapes = {(x, y): placed(t, r) for x, y, t, r in s.tiles}
    owner = {}
    for seg, (seat, ti, k) in s.meeples.items():
        x, y, _, _ = s.tiles[ti]
        owner.setdefault(((x, y), k), []).append(seat)

    def neighbours(node):
        (x, y), k = node
        p = shapes[(x, y)]
        seg = p.segments[k]
        for e in seg.edges:
            d, lr = (e // 2, e % 2) if seg.kind == "farm" else (e, None)
            cell = (x + DX[d], y + DY[d])
            q = shapes.get(cell)
            if q is None:
                continue
            od = (d + 2) % 4
            yield (cell, q.half_seg[2 * od + 1 - lr] if lr is not None else q.side_seg[od])

    def flood(start):
        seen, todo, open_ = {start}, [start], 0
        while todo:
            node = todo.pop()
            n = 0
            for nb in neighbours(node):
                n += 1
                if nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
            seg = shapes[node[0]].segments[node[1]]
            open_ += len(seg.edges) - n
        return seen, open_

    out = [{"road": 0, "city": 0, "cloister": 0, "farm": 0} for _ in range(s.players)]
    nodes = [((x, y), k) for (x, y), p in shapes.items() for k in range(len(p.segments))]
    done: set = set()
    complete_cities = []
    farms = []
    for node in nodes:
        if node in done:
            continue
        seg = shapes[node[0]].segments[node[1]]
        if seg.kind == "cloister":
            comp, open_ = {node}, 0
            x, y = node[0]
            n = sum(1 for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (x + dx, y + dy) in shapes)
            points, complete = n, n == 9
        else:
            comp, open_ = flood(node)
            cells = {c for c, _ in comp}
            shields = sum(1 for c, k in comp if shapes[c].segments[k].shield)
            complete = open_ == 0
            points = len(cells) + (shields if seg.kind == "city" else 0)
            if seg.kind == "city" and complete:
                complete_cities.append(comp)
            if seg.kind == "farm":
                farms.append(comp)
        done |= comp
        if seg.kind == "farm" or complete:
            continue
        men = Counter(seat for nd in comp for seat in owner.get(nd, []))
        if men:
            most = max(men.values())
            for seat, n in men.items():
                if n == most:
                    out[seat][seg.kind] += points
    for city in complete_cities:
        men = Counter()
        for farm in farms:
            touches = any((c, ci) in city for c, k in farm for ci in shapes[c].segments[k].cities)
            if touches:
                men.update(seat for nd in farm for seat in owner.get(nd, []))
        if men:
            most = max(men.values())
            for seat, n in men.items():
                if n == most:
                    out[seat]["farm"] += 3
    return out


# --- notation ---------------------------------------------------------------------------------

moves_st = st.builds(
    lambda x, y, rot, follower: Move(x, y, rot, *follower),
    st.integers(-80, 80), st.integers(-80, 80), st.sampled_from((0, 90, 180, 270)),
    st.one_of(st.just((None, None)), st.just(("monk", None)),
              st.tuples(st.sampled_from(("thief", "knight")), st.sampled_from("NESW")),
              st.tuples(st.just("farmer"), st.sampled_from(("NE", "SE", "SW", "NW")))))


@settings(max_examples=300, deadline=None)
@given(moves_st)
def test_parse_format_round_trip(m):
    assert parse(str(m)) == m


@settings(max_examples=300, deadline=None)
@given(moves_st, st.randoms(use_true_random=False))
def test_parse_is_tolerant_of_case_spacing_and_synonyms(m, rnd):
    cell = rnd.choice([f"{m.x},{m.y}", f"{m.x}, {m.y}", f"({m.x},{m.y})", f"{m.x} {m.y}", f"at {m.x},{m.y}"])
    rot = rnd.choice([f"r{m.rot}", f"{m.rot}", f"{m.rot}deg", f"R{m.rot}", f"{m.rot}°", f"turned {m.rot}",
                      f"rotated by {m.rot}"])
    words = [rnd.choice(["place", "PLACE", "Put"]), cell, rot] if cell.startswith("at") else [
        rnd.choice(["place", "PLACE", "Put", ""]), cell, rot]
    if m.role:
        synonyms = {"thief": ["thief", "Robber", "highwayman"], "knight": ["knight", "KNIGHT"],
                    "monk": ["monk", "abbot", "Monk"], "farmer": ["farmer", "peasant", "Farmer"]}
        words.append(rnd.choice(["", "with a", "and the"]))
        words.append(rnd.choice(synonyms[m.role]))
        if m.spot:
            long = {"N": "north", "E": "east", "S": "south", "W": "west", "NE": "north-east",
                    "SE": "southeast", "SW": "south west", "NW": "nw"}
            words.append(rnd.choice(["", "on the", "in the", "at"]))
            words.append(rnd.choice([m.spot, m.spot.lower(), long[m.spot]]))
    text = rnd.choice(["  ", " ", "\t"]).join(w for w in words if w)
    assert parse(text) == m


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_or_says_why(text):
    try:
        m = parse(text)
    except NotationError as e:
        assert e.code == "bad-notation" and e.message
    else:
        assert parse(str(m)) == m


@pytest.mark.parametrize("text, code_part", [
    ("", "empty"), ("jump 1,2 r0", "unknown verb"), ("place r90", "where"), ("place 1,2", "turned"),
    ("place 1,2 r45", "rotation"), ("place 1,2 r90 wizard N", "unknown follower"),
    ("place 1,2 r90 farmer N", "corner"), ("place 1,2 r90 thief NE", "side"),
    ("place 1,2 r0 monk N", "no spot"), ("place 1,2 r0 knight", "which side"),
])
def test_bad_notation_says_what_is_wrong(text, code_part):
    with pytest.raises(NotationError) as e:
        parse(text)
    assert code_part in e.value.message


def test_legal_moves_are_canonical_sorted_unique_and_each_playable():
    rng = random.Random(5)
    g = random_game(3, "legal-check", rng=rng)
    s = replay(g.events[:30])
    moves = legal_moves(s)
    assert moves == sorted(set(moves)) and moves
    from carcassonne import check, normalize
    for text in moves:
        assert check(s, s.actor, text) is None and str(normalize(s, s.actor, text)) == text
