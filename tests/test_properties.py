"""Property tests (Hypothesis): notation, chance, undo, and the King track."""
from __future__ import annotations


from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiletum import NotationError, check, evolve, legal, parse, play, play_in_place, replay
from tiletum.board import corruption, king_advance, reset_red
from tiletum.chance import RecordingChance, ReplayChance, SeededSource
from tiletum.components import BASIC_ACTIONS, components
from tiletum.game import new_game
from tiletum.notation import GRAMMAR, Move

C = components()

ARG = {
    "die": st.builds(lambda r, v, t: f"{r}{v}" if t == v else f"{r}{v}>{t}",
                     st.sampled_from("GFWSI"), st.integers(1, 6), st.integers(1, 6)),
    "action": st.sampled_from(BASIC_ACTIONS),
    "tile": st.sampled_from(sorted(t for t in C.tiles if t[0] in "BKCTX")),
    "spot": st.sampled_from(C.spots),
    "town": st.sampled_from(sorted(C.towns)),
    "res": st.sampled_from("GFWSI"),
    "slot": st.sampled_from("12345"),
    "space": st.sampled_from("123456"),
    "room": st.builds(lambda b, f: f"{b}.{f}", st.integers(1, 6), st.integers(1, 3)),
}


@st.composite
def moves(draw):
    verb = draw(st.sampled_from(sorted(GRAMMAR)))
    args = []
    for kind in GRAMMAR[verb]:
        if kind.endswith("?"):
            if not draw(st.booleans()):
                break
            kind = kind[:-1]
        args.append(draw(ARG[kind]))
    return Move(verb, tuple(args))


@given(moves())
def test_notation_round_trips(m):
    assert parse(str(m)) == m
    assert str(parse(str(m))) == str(m)


@given(moves(), st.randoms(use_true_random=False), st.integers(0, 3))
def test_notation_tolerates_case_and_spaces(m, rnd, pad):
    text = str(m)
    messy = "".join(ch.upper() if rnd.random() < 0.5 else ch.lower() for ch in text)
    messy = (" " * pad) + messy.replace(" ", " " * (pad + 1)) + (" " * pad)
    assert parse(messy) == m


def test_accents_in_town_names_are_optional():
    assert parse("merchant Köln") == parse("merchant koeln") == parse("MERCHANT KOELN") == Move("merchant",
                                                                                                ("Koeln",))
    assert parse("architect nürnberg") == Move("architect", ("Nuernberg",))


@given(st.text(max_size=30))
def test_parse_never_crashes_on_garbage(text):
    try:
        m = parse(text)
    except NotationError:
        return
    assert parse(str(m)) == m


@given(st.text(min_size=1, max_size=20), st.integers(0, 10**6), st.integers(1, 500))
def test_seeded_source_is_deterministic_and_in_range(seed, nonce, n):
    a = [SeededSource(seed, nonce).randbelow(n) for _ in range(1)]
    b = [SeededSource(seed, nonce).randbelow(n) for _ in range(1)]
    assert a == b and 0 <= a[0] < n


@given(st.text(min_size=1, max_size=10), st.lists(st.integers(2, 40), min_size=1, max_size=20))
def test_recorded_chance_replays_identically(seed, sizes):
    rec = RecordingChance(SeededSource(seed, 7))
    drawn = [rec.choice("draw:x", list(range(n))) for n in sizes] + [rec.roll("die-roll")]
    rep = ReplayChance(rec.outcomes)
    assert [rep.choice("draw:x", list(range(n))) for n in sizes] + [rep.roll("die-roll")] == drawn


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(0, 10**6), st.lists(st.integers(0, 10**6), min_size=1, max_size=120))
def test_undo_restores_the_exact_previous_position(players, seed, picks):
    """Every move without a reveal can be taken back, and the position is exactly as before."""
    s, _ = new_game(players, f"undo-{seed}")
    for pick in picks:
        if s.phase == "over":
            break
        ms = legal(s)
        m = ms[pick % len(ms)]
        _, after = play(s, s.actor, m, seed=f"undo-{seed}")
        if after.undo_moves and after.actor == s.actor:
            _, back = play(after, after.actor, "undo", seed=f"undo-{seed}")
            assert back.to_doc() == {**s.to_doc(), "version": s.version + 2}
            assert back.undo_moves == s.undo_moves
        else:
            assert check(after, after.actor, parse("undo")) is not None or after.undo_moves
        s = after


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(0, 10**6), st.lists(st.integers(0, 10**6), min_size=1, max_size=150))
def test_play_in_place_play_and_the_fold_agree(players, seed, picks):
    """play_in_place changes its state exactly as play makes the copy (undo history too) and
    gives the same event; play leaves its state alone; replay is the fold of evolve."""
    s, events = new_game(players, f"fold-{seed}")
    for pick in picks:
        if s.phase == "over":
            break
        ms = [str(m) for m in legal(s)] + (["undo"] * 3 if s.undo_moves else [])
        m = ms[pick % len(ms)]
        before = (s.to_doc(), list(s.undo_moves))
        evs, after = play(s, s.actor, m, seed=f"fold-{seed}")
        assert (s.to_doc(), s.undo_moves) == before, "play does not change its state"
        ev = play_in_place(s, s.actor, m, seed=f"fold-{seed}")
        assert [ev] == evs
        assert (s.to_doc(), s.undo_moves) == (after.to_doc(), after.undo_moves)
        events += evs
    folded = None
    for ev in events:
        folded = evolve(folded, ev)
    replayed = replay(events)
    assert replayed.to_doc() == folded.to_doc() == s.to_doc()
    assert replayed.undo_moves == folded.undo_moves == s.undo_moves
    half = replay(events[: len(events) // 2])
    assert replay(events[len(events) // 2:], half).to_doc() == s.to_doc()


@given(st.lists(st.tuples(st.integers(0, 25), st.integers(0, 3)), min_size=2, max_size=4), st.integers(0, 2))
def test_corruption_moves_left_keeping_stack_order(marks, value):
    s, _ = new_game(len(marks), "k")
    for seat, (pos, _) in enumerate(marks):
        s.king_pos[seat] = min(pos, C.king_top)
        s.king_seq[seat] = seat + 1
    before = [(s.king_pos[i], s.king_seq[i]) for i in range(s.players)]
    corruption(s, value)
    for i in range(s.players):
        assert s.king_pos[i] == max(0, before[i][0] - value)
    for i in range(s.players):
        for j in range(s.players):
            # markers that shared a space still share it in the same order
            if (before[i][0] == before[j][0] and before[i][1] < before[j][1]
                and s.king_pos[i] == s.king_pos[j]):
                assert s.king_seq[i] < s.king_seq[j]
            # a marker that was strictly left of another is never stacked above it after moving
            if before[i][0] < before[j][0] and s.king_pos[i] == s.king_pos[j] and before[j][0] - value > 0:
                assert s.king_seq[i] < s.king_seq[j]


@given(st.lists(st.integers(0, 25), min_size=2, max_size=4))
def test_red_reset_and_cap(positions):
    s, _ = new_game(len(positions), "k")
    for seat, pos in enumerate(positions):
        s.king_pos[seat] = min(pos, C.king_top)
        s.king_seq[seat] = seat + 1
    red = [i for i in range(s.players) if C.king_values[s.king_pos[i]] < 0]
    before = list(s.king_pos)
    reset_red(s)
    for i in range(s.players):
        assert s.king_pos[i] == (C.king_start if i in red else before[i])
    # the previously lowest red marker ends on top of the 0 stack
    if red:
        lowest = min(red, key=lambda i: (before[i], -s.players))
        at_zero = [i for i in range(s.players) if s.king_pos[i] == C.king_start]
        assert max(at_zero, key=lambda i: s.king_seq[i]) in [i for i in red if before[i] == before[lowest]]
    for seat in range(s.players):
        king_advance(s, seat, 99)
        assert s.king_pos[seat] == C.king_top
