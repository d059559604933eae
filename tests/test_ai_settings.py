"""The AI's settings object (ai.settings): the presets equal the constants they replaced and choose
the moves the levels chose before it; variants by override; the round-end planning terms of the
evaluation (issue 31); and master's root-parallel search (ai.tiletum.parallel) at a small budget."""
from __future__ import annotations

import json
import os
import random
import time

import pytest

import ai
import tiletum
from ai.tiletum import evaluate as ev
from ai.tiletum import parallel
from ai.tiletum.search import Node, search
from ai.settings import LEVELS, Settings, override, resolve
from cardinalbot.policy import next_moves
from tiletum.components import components
from tiletum.flow import fair_vp
from tiletum.game import legal_moves, play
from games.tiletum import view_doc

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "ai_presets.json")


# --- the presets are the old constants ----------------------------------------------------------

def test_the_presets_are_the_constants_they_replaced():
    """The numbers that were module constants of ai/, ai.tiletum.search and ai.tiletum.evaluate before
    issue 31."""
    assert {k: v.iterations for k, v in LEVELS.items() if k != "master"} == {"easy": 6, "medium": 60,
                                                                             "hard": 1200}
    # hard's iterations were 400, its exploration 2 VP and its look-ahead's futures 3 until issue 43
    # measured 1,200, 4 VP and 8 better; every other number is the old one
    assert LEVELS["hard"].lookahead == (3, 8, 40)
    assert (LEVELS["hard"].explore, LEVELS["master"].explore) == (4.0, 4.0)
    # and hard answers one move a decision (the planned turn until issue 43 measured it)
    assert [k for k, v in LEVELS.items() if not v.plan] == ["hard"]
    assert LEVELS["easy"].lookahead is None and LEVELS["medium"].lookahead is None
    d = Settings()
    assert (d.explore, d.plan_min_visits) == (2.0, 3)
    assert LEVELS["easy"].explore == LEVELS["medium"].explore == 2.0
    assert d.resource_vp == (0.33, 0.33, 0.33, 0.19)
    assert (d.gold_factor, d.room_vp, d.store_vp, d.char_store_vp, d.ap_bonus_vp, d.map_vp, d.ap_vp) == \
        (0.67, 1.25, 0.49, -0.47, 0.85, 0.81, 0.59)
    assert (d.king_weight, d.fair_weight, d.future_fair_weight, d.supply_vp, d.piece_w, d.place_frac) == \
        (1.0, 1.0, 0.67, 0.48, 1.57, 0.31)
    assert (d.pos_w, d.king_future_w, d.fair_reach_w, d.contract_w, d.cath_w, d.crest_w) == \
        (2.41, 0.71, 0.17, 0.09, 0.39, 2.52)
    # the round-end planning terms are off in the presets until measured (docs/ai.md)
    assert all((v.fair_plan_w, v.king_plan_w, v.crest_plan_w) == (0, 0, 0) for v in LEVELS.values())


def golden_positions():
    """Views of :func:`golden_states`, each for the seat to act."""
    return [(seed, view_doc(s, s.actor)) for seed, s in golden_states()]


def golden_states():
    """Positions of seeded games (random moves; the Cardinalbot plays its own turns)."""
    out = []
    for players, solo, seed, steps in [(2, "bishop", "golden-a", 25), (3, None, "golden-b", 40),
                                       (4, None, "golden-c", 90), (2, "bishop", "golden-d", 60),
                                       (3, None, "golden-e", 110)]:
        s, _ = tiletum.new_game(players, seed, {"solo": {"level": solo}} if solo else None)
        rng = random.Random(seed)
        n = 0
        while s.phase != "over" and (n < steps or s.actor is None
                                     or (solo and s.actor == s.solo["bot"] and s.phase == "action")):
            if solo and s.actor == s.solo["bot"] and s.phase == "action":
                for m in next_moves(s, rng):
                    _, s = play(s, s.actor, m, seed=seed)
                continue
            moves = legal_moves(s)
            if not moves:
                break
            _, s = play(s, s.actor, sorted(moves)[rng.randrange(len(moves))], seed=seed)
            n += 1
        out.append((seed, s))
    return out


def test_the_presets_choose_the_moves_the_levels_chose_before_settings():
    """tests/fixtures/ai_presets.json was written by the code before ai.settings (the same positions,
    levels and rng seed): easy, medium and hard answer exactly as they did."""
    with open(FIXTURE) as f:
        expected = json.load(f)
    for seed, view in golden_positions():
        # hard (about a second a decision) on the two positions where it differs from medium
        for level in ("easy", "medium", "hard") if seed in ("golden-b", "golden-d") else ("easy", "medium"):
            # hard as it was (400 iterations, exploration 2 VP, 3 futures, the planned turn sent):
            # the old constants' moves
            old_hard = {"iterations": 400, "explore": 2.0, "lookahead": (3, 3, 40), "plan": True}
            preset = override(LEVELS["hard"], old_hard) if level == "hard" else level
            assert ai.decide(view, preset, 11) == expected[f"{seed}:{level}"], (seed, level)
        assert ai.decide(view, override(LEVELS["medium"], {}), 11) == expected[f"{seed}:medium"]


def test_without_a_plan_a_decision_answers_its_first_move_and_only_the_forced_ones_after_it():
    """``plan`` off: each move of the turn is a decision of its own (its own search and, at hard,
    its own look-ahead); the first move is the one the planning level chooses, and a move after it
    is sent only where it is the seat's one legal move. It answers as the measured variant did
    (``plan_min_visits`` past any search's visits: docs/notes/ai-tuning.md, "Eighth round")."""
    multi = 0
    for seed, state in golden_states():
        view = view_doc(state, state.actor)
        planned = ai.decide(view, "medium", 11)
        one = ai.decide(view, override(LEVELS["medium"], "plan:false"), 11)
        assert one[0] == planned[0], seed
        assert one == ai.decide(view, override(LEVELS["medium"], {"plan_min_visits": 10 ** 9}), 11)
        multi += len(planned) > len(one)
        _, state = play(state, state.actor, one[0], seed=seed)
        for m in one[1:]:
            assert legal_moves(state) == [m], (seed, m)      # forced
            _, state = play(state, state.actor, m, seed=seed)
    assert multi >= 2          # the positions where medium plans more than one move


# --- variants ---------------------------------------------------------------------------------

def test_a_variant_is_a_preset_with_fields_replaced():
    hard = LEVELS["hard"]
    v = override(hard, "iterations:2000, lookahead:5/4/40, crest_w:3, resource_vp:0.3/0.3/0.3/0.2")
    assert (v.iterations, v.lookahead, v.crest_w, v.resource_vp) == (2000, (5, 4, 40), 3.0,
                                                                     (0.3, 0.3, 0.3, 0.2))
    assert v.pos_w == hard.pos_w and hard.iterations == 1200          # the preset itself is unchanged
    assert override(hard, "lookahead:none").lookahead is None
    assert override(hard, {"fair_plan_w": 1.0}).fair_plan_w == 1.0
    with pytest.raises(ValueError, match="unknown AI setting 'crest'"):
        override(hard, "crest:3")
    with pytest.raises(ValueError, match="field:value"):
        override(hard, "crest_w")
    with pytest.raises(ValueError, match="at least 1"):
        override(hard, "iterations:0")
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        hard.iterations = 5                                            # frozen
    assert resolve(7) == Settings(iterations=7) and resolve("hard") is hard
    with pytest.raises(ValueError, match="unknown AI level"):
        resolve("grandmaster")


def test_weights_passed_in_change_the_evaluation_and_nothing_else():
    state, _ = tiletum.new_game(2, "weights")
    base = ev.value(state, 0)
    more = ev.value(state, 0, override(Settings(), "supply_vp:1.48"))
    p = state.seats[0]
    assert more - base == pytest.approx((p.houses + p.pillars) * min(ev.rounds_left(state), 3) / 3)
    assert ev.value(state, 0) == base


# --- round-end planning ---------------------------------------------------------------------------

@pytest.fixture
def round2():
    """Round 2, seat 0 to act in the first turn of the round, nowhere near the Fair."""
    state, _ = tiletum.new_game(2, "round-end")
    state.round, state.fairs_scored, state.cycle = 2, 1, 0
    state.turn_order, state.turn_pos = [0, 1], 0
    return state


PLAN = Settings(fair_plan_w=1.0, king_plan_w=1.0, crest_plan_w=1.0)


def _far_town(state, town):
    dist = components().distances[town]
    return max((t for t in components().towns if t != town), key=lambda t: (dist.get(t, 9), t))


def test_fair_plan_values_a_fair_the_seat_can_still_attend(round2):
    s = round2
    town = s.fair_towns[1]
    p = s.seats[0]
    p.merchant = _far_town(s, town)
    d = components().distances[p.merchant][town]
    s.seats[0].res = [0, 3, 3, 3, 3]
    s.seats[0].contracts = s.seats[0].contracts or []
    vp = fair_vp(s, 0)
    far = ev.fair_plan(s, 0, PLAN)
    assert far == pytest.approx(vp * max(0.0, 1 - d / (2.0 * 3 + 1)))
    # one step away: nearly sure to attend
    near = next(t for t in components().towns if components().distances[t].get(town) == 1)
    p.merchant = near
    assert ev.fair_plan(s, 0, PLAN) == pytest.approx(vp * (1 - 1 / 7)) and ev.fair_plan(s, 0, PLAN) >= far
    # attending already (the Merchant there): the fair term counts it, not this one
    p.merchant = town
    assert ev.fair_plan(s, 0, PLAN) == 0 and ev.fair(s, 0) == fair_vp(s, 0)
    # no turn left in the round: no way there
    p.merchant = near
    s.cycle, s.turn_pos = 2, 1
    assert ev.fair_plan(s, 0, PLAN) == 0
    # the Fair already held, or the term off
    s.cycle, s.turn_pos = 0, 0
    assert ev.fair_plan(s, 0) == 0
    s.fairs_scored = 2
    assert ev.fair_plan(s, 0, PLAN) == 0


def test_fair_plan_counts_a_merchant_only_route_less_than_a_free_house_space(round2):
    s = round2
    town = s.fair_towns[1]
    near = next(t for t in components().towns if components().distances[t].get(town) == 1)
    s.seats[0].merchant = near
    with_house = ev.fair_plan(s, 0, PLAN)
    s.seats[0].houses = 0                                    # no House left: only the Merchant can go
    assert ev.fair_plan(s, 0, PLAN) == pytest.approx(0.75 * with_house)


def test_king_plan_values_being_first_at_this_rounds_king_phase(round2):
    s = round2
    c = components()
    s.king_pos = [c.king_start + 3, c.king_start]
    worth = c.king_last_round_vp if s.king_bonus is None else 3.0
    assert ev.king_plan(s, 0, PLAN) == pytest.approx(worth)
    assert ev.king_plan(s, 1, PLAN) == 0
    s.king_pos = [c.king_start, c.king_start + 3]
    assert ev.king_plan(s, 0, PLAN) == 0 and ev.king_plan(s, 1, PLAN) == pytest.approx(worth)


def test_crests_plan_values_a_crest_that_can_take_the_seat_into_the_fair(round2):
    s = round2
    c = components()
    town = s.fair_towns[1]
    p = s.seats[0]
    p.merchant = _far_town(s, town)
    crest = next(t for t, td in c.tiles.items() if td.kind == "crest")
    p.res[1] = 0
    assert ev.crests_plan(s, 0, PLAN) == 0                     # no Crest in the Storehouse
    p.store.append(crest)
    assert ev.crests_plan(s, 0, PLAN) == 0                     # no Food for the space
    p.res[1] = 5                                               # the Merchant-anywhere space costs 5 Food
    assert ev.crests_plan(s, 0, PLAN) == pytest.approx(fair_vp(s, 0))
    p.merchant = town                                          # attending already
    assert ev.crests_plan(s, 0, PLAN) == 0


def test_with_the_planning_terms_on_the_search_still_answers_legally(round2):
    state, _ = tiletum.new_game(2, "plan-legal", {"solo": {"level": "bishop"}})
    rng = random.Random(1)
    while state.actor == state.solo["bot"]:
        for m in next_moves(state, rng):
            _, state = play(state, state.actor, m, seed="plan-legal")
    moves = ai.decide(view_doc(state, state.actor), override(LEVELS["medium"], "fair_plan_w:1,crest_plan_w:1,"
                                                                                 "king_plan_w:1"), 3)
    assert moves[0] in legal_moves(state)


# --- master: root-parallel search -------------------------------------------------------------------

def test_merge_sums_visits_and_values_child_by_child():
    a, b = Node(3, 9.0), Node(2, 4.0)
    a.best, b.best = 4.0, 5.0
    a.children = {"x": Node(2, 6.0), "y": Node(1, 3.0)}
    b.children = {"x": Node(1, 2.0), "z": Node(1, 2.0)}
    a.merge(b)
    assert (a.n, a.w, a.best) == (5, 13.0, 5.0)
    assert {t: (ch.n, ch.w) for t, ch in a.children.items()} == {"x": (3, 8.0), "y": (1, 3.0), "z": (1, 2.0)}


def test_master_searches_in_worker_processes_and_merges_their_trees():
    state, _ = tiletum.new_game(2, "master-test", {"solo": {"level": "bishop"}})
    rng = random.Random(2)
    while state.actor == state.solo["bot"]:
        for m in next_moves(state, rng):
            _, state = play(state, state.actor, m, seed="master-test")
    seat = state.actor
    settings = override(LEVELS["master"], "seconds:0.5,procs:2")
    try:
        t0 = time.time()
        merged, trees = parallel.parallel_search(state, seat, settings, ["a", "b"], time.time() + 0.3)
        assert len(trees) == 2 and all(t.n > 0 for t in trees)
        assert merged.n == sum(t.n for t in trees)
        for text, ch in merged.children.items():
            assert ch.n == sum(t.children[text].n for t in trees if text in t.children)
            assert ch.w == pytest.approx(sum(t.children[text].w for t in trees if text in t.children))
        # the whole decision: a legal answer within its budget (plus the pool's start)
        t0 = time.time()
        view = view_doc(state, seat)
        moves = ai.decide(view, settings, 5)
        assert moves[0] in legal_moves(state)
        assert time.time() - t0 < 0.5 * 1.1 + 2.0
        for m in moves:                                     # the whole plan plays
            _, state = play(state, seat, m, seed="master-test")
    finally:
        parallel.shutdown()


def test_a_pruned_tree_keeps_every_root_move_and_the_best_line(monkeypatch):
    state, _ = tiletum.new_game(2, "prune")
    tree = search(state, state.actor, 120, random.Random(1))
    small = tree.pruned()
    assert set(small.children) == set(tree.children)
    assert small.n == tree.n and small.best == tree.best
    from ai.tiletum.lookahead import best_line
    assert best_line(small)[:1] == best_line(tree)[:1]


# --- the bench scripts take variants as overrides ------------------------------------------------

def test_the_paired_bench_runs_variants_and_prints_fairs_and_the_paired_difference(capsys):
    import bench.ai_solo_paired as paired
    paired.main(["--level", "1", "--games", "1", "--start", "900", "--variants", "base",
                 "--variant", "plan=fair_plan_w:1,crest_plan_w:1"])
    out = capsys.readouterr().out
    assert "== base: AI" in out and "== plan: AI" in out
    assert "Fairs attended r1-r4: " in out and "decision p50" in out and "p95" in out
    assert "== plan - base:" in out and "(se)" in out
    with pytest.raises(SystemExit):
        paired.main(["--variant", "bad=nonsense:1"])


def test_the_look_ahead_in_a_worker_stops_at_its_deadline_and_counts_only_whole_futures():
    from ai.tiletum.lookahead import ranked_lines, rerank_totals
    state, _ = tiletum.new_game(2, "look-deadline")
    seat = state.actor
    tree = search(state, seat, 60, random.Random(1))
    lines = ranked_lines(tree, 3)
    totals, done = rerank_totals(lines, state, seat, ["f1", "f2"], 10)
    assert done == 2 and len(totals) == 3
    assert rerank_totals(lines, state, seat, ["f1", "f2"], 10,
                         deadline=time.perf_counter() - 1) == ([0.0] * 3, 0)
    one, n = rerank_totals(lines, state, seat, ["f1"], 10)
    assert n == 1 and one != totals                           # a second future adds to every line
