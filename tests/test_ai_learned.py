"""The learned evaluation (issue 43; docs/ai.md, "The learned evaluation"): the model file in the
package, its use by the search, and the training command on a tiny data set. Its strength is
measured by bench/ai_solo_paired.py, never here."""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
from pathlib import Path

import pytest

import ai
import tiletum
from ai.tiletum import learned, player
from ai.tiletum.evaluate import FEATURES, TERMS, features, value
from cardinalbot.policy import next_moves
from games.tiletum import view_doc
from tiletum.game import legal_moves, play

ROOT = Path(__file__).resolve().parent.parent
PACKAGED = ROOT / "ai" / "tiletum" / "data" / learned.DEFAULT_FILE


def _tool():
    spec = importlib.util.spec_from_file_location("train_eval", ROOT / "tools" / "train_eval.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


train_eval = _tool()


def test_the_packaged_model_loads_and_gives_its_recorded_value_at_the_known_position():
    doc = json.loads(PACKAGED.read_text(encoding="utf-8"))
    m = learned.model(learned.DEFAULT_FILE, FEATURES)
    assert m.names == FEATURES and len(m.coef) == len(FEATURES)
    check = doc["made"]["check"]
    assert (check["seed"], check["moves"]) == (train_eval.CHECK_SEED, train_eval.CHECK_MOVES)
    state, seat = train_eval.check_position()
    assert seat == check["seat"]
    x = features(state, seat)
    by_hand = doc["intercept"] + sum(c * v for c, v in zip(doc["coef"], x))
    assert m.predict(x) == pytest.approx(by_hand, abs=1e-9)
    assert m.predict(x) == pytest.approx(check["prediction"], abs=1e-4)
    # and the search's value is the terms' sum plus the weight times that prediction
    w = ai.override(ai.LEVELS["hard"], "learned_w:0.5")
    assert value(state, seat, w) == pytest.approx(value(state, seat) + 0.5 * m.predict(x))


def test_a_model_file_is_read_from_a_path_and_its_correction_added(tmp_path):
    coef = [0.0] * len(FEATURES)
    coef[FEATURES.index("gold")] = 1.0
    coef[FEATURES.index("score_now")] = -0.5
    path = tmp_path / "m.json"
    path.write_text(json.dumps(learned.Model(list(FEATURES), coef, 2.0).to_doc()))
    state, seat = train_eval.check_position()
    w = ai.override(ai.LEVELS["medium"], {"learned_w": 1.0, "learned_file": str(path)})
    p = state.seats[seat]
    assert value(state, seat, w) - value(state, seat) == pytest.approx(p.res[0] - 0.5 * p.score + 2.0)
    # the features: the terms first (their sum is the evaluation), each again times the game left
    x = features(state, seat)
    assert sum(x[:len(TERMS)]) == pytest.approx(value(state, seat))
    left = x[-1]
    assert 0 < left <= 1
    assert x[len(FEATURES) // 2 + FEATURES.index("gold")] == pytest.approx(p.res[0] * left)


def test_a_model_of_other_features_is_refused(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(learned.Model(["score_now", "gold"], [1.0, 1.0], 0.0).to_doc()))
    with pytest.raises(ValueError, match="other features"):
        learned.model(str(path), FEATURES)


def test_at_the_end_of_the_game_the_value_is_the_final_score_exactly():
    state, _ = tiletum.new_game(2, "learned-over", {"solo": {"level": "bishop"}})
    rng = random.Random(1)
    while state.phase != "over":
        moves = legal_moves(state)
        move = moves[rng.randrange(len(moves))]
        _, state = play(state, state.actor, move, seed="learned-over", trusted=True)
    w = ai.override(ai.LEVELS["hard"], "learned_w:1")
    for seat in (0, 1):
        assert value(state, seat, w) == state.seats[seat].score


LEARNED_EASY = ai.override(ai.LEVELS["easy"], "learned_w:1,iterations:3")


@pytest.mark.parametrize("players,solo", [(2, None), (4, None), (2, "bishop")])
def test_a_level_with_the_learned_evaluation_plays_legal_moves_to_the_end(players, solo):
    seed = f"learned-legal-{players}-{solo}"
    state, _ = tiletum.new_game(players, seed, {"solo": {"level": solo}} if solo else None)
    bot = state.solo["bot"] if solo else None
    rng = random.Random(seed)
    calls = 0
    while state.phase != "over":
        seat = state.actor
        if seat == bot and state.phase == "action":
            for m in next_moves(state, rng):
                _, state = play(state, seat, m, seed=seed)
            continue
        plan = ai.decide(view_doc(state, seat), LEARNED_EASY, f"{seed}:{calls}")
        calls += 1
        assert plan
        for m in plan:
            assert state.actor == seat and m in legal_moves(state), f"illegal AI move {m!r}"
            _, state = play(state, seat, m, seed=seed)
    assert calls > 20 * players if not solo else calls > 20


def test_the_learned_evaluation_changes_no_budget_and_costs_a_dot_product():
    """Decision time stays within hard's budget by construction: the variant searches exactly hard's
    iterations and look-ahead (the budget is a count, not a time), and an evaluation costs the terms
    it cost before plus one dot product over the features (a linear model)."""
    hard = ai.LEVELS["hard"]
    variant = ai.override(hard, "learned_w:1")
    assert dataclasses.replace(variant, learned_w=hard.learned_w) == hard
    m = learned.model(variant.learned_file, FEATURES)
    doc = json.loads(PACKAGED.read_text(encoding="utf-8"))
    assert doc["kind"] == "linear" and len(m.coef) == len(FEATURES) <= 200
    assert PACKAGED.stat().st_size < 64 * 1024
    # the search evaluates as often with it as without it
    calls = {"n": 0}
    import ai.tiletum.search as search_mod
    real = search_mod.value

    def counting(s, seat, w):
        calls["n"] += 1
        return real(s, seat, w)

    state, seat = train_eval.check_position()
    counts = []
    for w in (ai.Settings(iterations=30), ai.Settings(iterations=30, learned_w=1.0)):
        calls["n"] = 0
        search_mod.value = counting
        try:
            search_mod.search(state, seat, w.iterations, random.Random(3), w)
        finally:
            search_mod.value = real
        counts.append(calls["n"])
    assert counts[0] > 30 and abs(counts[0] - counts[1]) <= counts[0] // 2


def test_the_training_command_runs_on_a_tiny_data_set(tmp_path):
    out = tmp_path / "tiny.json"
    data = tmp_path / "tiny.npz"
    args = ["--games", "4", "--levels", "1", "--bots", "priest", "--sample", "0.5", "--holdout", "0.5",
            "--data", str(data), "--out", str(out)]
    train_eval.main(args)
    doc = json.loads(out.read_text())
    assert doc["made"]["games"] == 4 and doc["made"]["positions"] > 50
    assert set(doc["made"]["holdout_rmse"]) == {"evaluation", "learned"}
    assert doc["made"]["versions"]["scikit-learn"]
    m = learned.model(str(out), FEATURES)
    state, seat = train_eval.check_position()
    assert m.predict(features(state, seat)) == pytest.approx(doc["made"]["check"]["prediction"], abs=1e-4)
    # the same positions again from the data file: the same model
    out2 = tmp_path / "again.json"
    train_eval.main(args[:-2] + ["--out", str(out2)])
    assert json.loads(out2.read_text())["coef"] == doc["coef"]
    # and the same seeds played again give the same data, so the same model
    out3 = tmp_path / "replayed.json"
    train_eval.main(args[:-4] + ["--data", str(tmp_path / "replayed.npz"), "--out", str(out3)])
    assert json.loads(out3.read_text())["coef"] == doc["coef"]


def test_the_training_command_plays_a_later_generation_with_the_model_fitted_before(tmp_path):
    out = tmp_path / "gen.json"
    train_eval.main(["--games", "4", "--later-games", "2", "--later-start", "50", "--generations", "2",
                     "--levels", "1", "--bots", "priest", "--holdout", "0", "--work", str(tmp_path),
                     "--out", str(out)])
    assert {p.name for p in tmp_path.iterdir()} >= {"gen1-0-4.npz", "gen2-50-2.npz", "model-gen1.json"}
    doc = json.loads(out.read_text())
    assert doc["made"]["games"] == 6
    assert "--generations 2" in doc["made"]["command"]
    # the second generation's AI played with the first generation's model: other games than without it
    first = learned.model(str(tmp_path / "model-gen1.json"), FEATURES)
    assert any(first.coef) and doc["coef"] != json.loads((tmp_path / "model-gen1.json").read_text())["coef"]


def _tree_doc(full=False, target="score", base=1.5):
    """One tree on ``gold``: at most 2 Gold -> +10, more -> -4 (and ``base`` on top)."""
    g = FEATURES.index("gold")
    tree = {"feature": [g, 0, 0], "threshold": [2.0, 0.0, 0.0], "left": [1, -1, -1], "right": [2, -1, -1],
            "value": [0.0, 10.0, -4.0]}
    doc = {"kind": "trees", "features": list(FEATURES), "base": base, "trees": [tree], "made": {}}
    if full:
        doc["full"] = True
    if target != "score":
        doc["target"] = target
    return doc


def test_a_tree_ensemble_walks_each_tree_at_or_below_the_threshold_to_the_left(tmp_path):
    path = tmp_path / "trees.json"
    path.write_text(json.dumps(_tree_doc()))
    m = learned.model(str(path), FEATURES)
    x = [0.0] * len(FEATURES)
    g = FEATURES.index("gold")
    for gold, want in ((0, 11.5), (2, 11.5), (2.01, -2.5), (7, -2.5)):
        x[g] = gold
        assert m.predict(x) == want
    # written back, the same model
    assert learned.from_doc(json.loads(json.dumps(m.to_doc()))).predict(x) == m.predict(x)
    # in the search's value: the terms' sum plus the weight times the prediction
    state, seat = train_eval.check_position()
    w = ai.override(ai.LEVELS["medium"], {"learned_w": 0.5, "learned_file": str(path)})
    pred = 11.5 if state.seats[seat].res[0] <= 2 else -2.5
    assert value(state, seat, w) == pytest.approx(value(state, seat) + 0.5 * pred)


def test_a_full_learned_evaluation_replaces_the_terms_sum_by_its_weight(tmp_path):
    path = tmp_path / "full.json"
    path.write_text(json.dumps(_tree_doc(full=True, base=100.0)))
    state, seat = train_eval.check_position()
    pred = 110.0 if state.seats[seat].res[0] <= 2 else 96.0
    hand = value(state, seat)
    for wt in (1.0, 0.25):
        w = ai.override(ai.LEVELS["medium"], {"learned_w": wt, "learned_file": str(path)})
        assert value(state, seat, w) == pytest.approx(hand + wt * (pred - hand))


def test_a_model_of_the_margin_values_the_end_of_the_game_as_the_margin(tmp_path):
    path = tmp_path / "margin.json"
    path.write_text(json.dumps(_tree_doc(target="margin")))
    state, _ = tiletum.new_game(2, "learned-margin", {"solo": {"level": "bishop"}})
    rng = random.Random(2)
    while state.phase != "over":
        moves = legal_moves(state)
        move = moves[rng.randrange(len(moves))]
        _, state = play(state, state.actor, move, seed="learned-margin", trusted=True)
    w = ai.override(ai.LEVELS["hard"], {"learned_w": 1.0, "learned_file": str(path)})
    a, b = state.seats[0].score, state.seats[1].score
    assert (value(state, 0, w), value(state, 1, w)) == (a - b, b - a)


@pytest.mark.parametrize("bad,match", [
    ({"left": [5, -1, -1]}, "outside"), ({"feature": [10_000, 0, 0]}, "outside"),
    ({"value": [0.0, 1.0]}, "one length"), ({"kind": "forest"}, "unknown kind"),
    ({"target": "wins"}, "target")])
def test_a_malformed_tree_model_is_refused(tmp_path, bad, match):
    doc = _tree_doc()
    for k, v in bad.items():
        if k in doc["trees"][0]:
            doc["trees"][0][k] = v
        else:
            doc[k] = v
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    learned.model.cache_clear()
    with pytest.raises(ValueError, match=match):
        learned.model(str(path), FEATURES)


def test_the_training_command_fits_trees_to_the_margin_on_a_tiny_data_set(tmp_path):
    out = tmp_path / "trees.json"
    data = tmp_path / "tiny.npz"
    args = ["--games", "4", "--levels", "1", "--bots", "priest", "--holdout", "0.5", "--model", "trees",
            "--trees", "20,3,0.2", "--target", "margin", "--data", str(data), "--out", str(out)]
    train_eval.main(args)
    doc = json.loads(out.read_text())
    assert doc["kind"] == "trees" and len(doc["trees"]) == 20 and doc["target"] == "margin"
    assert doc["made"]["games"] == 4 and set(doc["made"]["holdout_rmse"]) == {"evaluation", "learned"}
    assert "--model trees --trees 20,3,0.2 --target margin" in doc["made"]["command"]
    m = learned.model(str(out), FEATURES)
    state, seat = train_eval.check_position()
    assert m.predict(features(state, seat)) == pytest.approx(doc["made"]["check"]["prediction"], abs=1e-4)
    # the margin was kept with the positions: the bot's final score and whether the AI won
    import numpy as np
    saved = np.load(data)
    assert {"opp", "won"} <= set(saved.files) and len(saved["opp"]) == len(saved["y"])
    # a full evaluation from the same positions: fitted to the outcome, so the model says so
    out2 = tmp_path / "full.json"
    train_eval.main(args[:-2] + ["--full", "--out", str(out2)])
    assert json.loads(out2.read_text())["full"] is True


def test_a_bounded_learned_term_stays_within_its_clip_of_the_decision_positions_value(tmp_path):
    """``learned_clip``: each decision anchors the learned term at its own position
    (``evaluate.anchored``), and every position the decision scores gets the term within the clip
    of that anchor; without a clip, or without an anchor, the term is the model's prediction."""
    from ai.tiletum.evaluate import anchored, learned_term
    path = tmp_path / "trees.json"
    path.write_text(json.dumps(_tree_doc()))          # +11.5 at 2 Gold or fewer, -2.5 above
    state, seat = train_eval.check_position()
    gold = state.seats[seat].res[0]
    pred = 11.5 if gold <= 2 else -2.5
    loose = ai.override(ai.LEVELS["medium"], {"learned_w": 1.0, "learned_file": str(path)})
    assert learned_term(state, seat, loose) == pred
    assert anchored(state, seat, loose) is loose       # nothing bounded: nothing anchored
    clipped = ai.override(loose, "learned_clip:3")
    at = anchored(state, seat, clipped)
    assert at.learned_anchor == pred and dataclasses.replace(at, learned_anchor=None) == clipped
    # the anchor's own position: the term unchanged
    assert value(state, seat, at) == pytest.approx(value(state, seat) + pred)
    # a position on the other side of the tree's threshold: 14 VP away, held to 3
    other = state.clone()
    other.seats[seat].res[0] = 0 if gold > 2 else 5
    far = 11.5 if pred == -2.5 else -2.5
    assert value(other, seat, loose) == pytest.approx(value(other, seat) + far)
    assert value(other, seat, at) == pytest.approx(value(other, seat) + pred + (3 if far > pred else -3))
    # no anchor (a position scored outside a decision): unbounded
    assert value(other, seat, clipped) == pytest.approx(value(other, seat, loose))
    with pytest.raises(ValueError, match="learned_clip"):
        ai.override(loose, "learned_clip:-1")


def test_a_level_with_a_bounded_learned_term_plays_a_solo_game_legally_with_each_decision_anchored(
        monkeypatch):
    import ai.tiletum.evaluate as ev
    anchors = []
    real = ev.anchored

    def spy(s, seat, w):
        out = real(s, seat, w)
        anchors.append(out.learned_anchor)
        return out

    monkeypatch.setattr(player, "anchored", spy)
    calls = _solo_game("learned-clip-solo", ai.override(LEARNED_EASY, "learned_clip:4"))
    assert calls > 20 and len(anchors) >= calls and all(a is not None for a in anchors)


def _solo_game(seed: str, level) -> int:
    """A solo game against the bishop to its end, the AI at ``level``, every move checked legal;
    returns how many decisions the AI made."""
    state, _ = tiletum.new_game(2, seed, {"solo": {"level": "bishop"}})
    bot = state.solo["bot"]
    rng = random.Random(seed)
    calls = 0
    while state.phase != "over":
        seat = state.actor
        moves = (next_moves(state, rng) if seat == bot and state.phase == "action"
                 else ai.decide(view_doc(state, seat), level, f"{seed}:{calls}"))
        calls += seat != bot or state.phase != "action"
        assert moves
        for m in moves:
            assert m in legal_moves(state), f"illegal move {m!r}"
            _, state = play(state, seat, m, seed=seed)
    return calls


def _gold_model(tmp_path) -> str:
    """A linear correction of 1 VP per Gold plus 2."""
    coef = [0.0] * len(FEATURES)
    coef[FEATURES.index("gold")] = 1.0
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(learned.Model(list(FEATURES), coef, 2.0).to_doc()))
    return str(path)


def test_the_learned_term_only_where_the_turn_ends_leaves_every_value_to_the_hand_evaluation(tmp_path):
    """``learned_where: turn_end``: ``value`` (the search's leaves, the next-turn searches) is the
    terms' sum alone, and the term, weighted and bounded as at the leaves, comes from
    ``turn_end_correction`` instead (0 where the term counts at the leaves, or is off)."""
    from ai.tiletum.evaluate import anchored, turn_end_correction
    state, seat = train_eval.check_position()
    hand = value(state, seat)
    leaves = ai.override(ai.LEVELS["hard"], {"learned_w": 0.5, "learned_file": _gold_model(tmp_path)})
    at_end = ai.override(leaves, "learned_where:turn_end")
    gold = state.seats[seat].res[0]
    assert value(state, seat, leaves) == pytest.approx(hand + 0.5 * (gold + 2))
    assert value(state, seat, at_end) == pytest.approx(hand)
    assert turn_end_correction(state, seat, at_end) == pytest.approx(0.5 * (gold + 2))
    assert turn_end_correction(state, seat, leaves) == 0.0
    assert turn_end_correction(state, seat, ai.LEVELS["hard"]) == 0.0
    # bounded as at the leaves: anchored at the decision's position, 4 Gold more held to 1.5 VP
    bounded = anchored(state, seat, ai.override(at_end, "learned_clip:1.5"))
    assert bounded.learned_anchor == pytest.approx(gold + 2)
    richer = state.clone()
    richer.seats[seat].res[0] = gold + 4
    assert value(richer, seat, bounded) == pytest.approx(value(richer, seat))
    assert turn_end_correction(richer, seat, bounded) == pytest.approx(0.5 * (gold + 2 + 1.5))
    assert turn_end_correction(richer, seat, at_end) == pytest.approx(0.5 * (gold + 6))
    # the search sees none of it: the same tree as without the learned term
    hand_w = ai.LEVELS["hard"]
    import ai.tiletum.search as search_mod
    a = search_mod.search(state, seat, 40, random.Random(5), hand_w)
    b = search_mod.search(state, seat, 40, random.Random(5), at_end)
    def shape(tree):
        return {t: (c.n, c.worth) for t, c in tree.children.items()}

    assert shape(a) == shape(b)
    with pytest.raises(ValueError, match="learned_where"):
        ai.override(leaves, "learned_where:roots")


def test_the_look_ahead_adds_the_learned_term_at_the_position_where_each_lines_turn_ends(tmp_path):
    """Each reranked line's total is the hand evaluation's next-turn values plus, for every sampled
    future, the learned term at the position where the seat's turn ended on that future."""
    from ai.tiletum.lookahead import finish_turn, ranked_lines, rerank_totals
    from ai.tiletum.search import search, turn_key
    state, seat = train_eval.check_position()
    hand = ai.Settings(iterations=30)
    at_end = ai.override(hand, {"learned_w": 1.0, "learned_file": _gold_model(tmp_path),
                                "learned_where": "turn_end"})
    lines = ranked_lines(search(state, seat, 30, random.Random(2), hand), 3)
    assert len(lines) >= 2
    seeds = ["future-a", "future-b", "future-c"]
    plain, n1 = rerank_totals(lines, state, seat, seeds, 8, hand)
    learned_totals, n2 = rerank_totals(lines, state, seat, seeds, 8, at_end)
    assert n1 == n2 == len(seeds)
    for (_, line), p, got in zip(lines, plain, learned_totals):
        want = 0.0
        for seed in seeds:
            s = state.clone()
            finish_turn(s, seat, turn_key(state), seed, line, hand)
            assert s.phase != "over"
            want += s.seats[seat].res[0] + 2
        assert got - p == pytest.approx(want)


def test_a_level_with_the_learned_term_only_where_the_turn_ends_plays_a_solo_game_legally():
    level = ai.override(LEARNED_EASY, "lookahead:2/1/3,learned_where:turn_end,learned_clip:3")
    assert _solo_game("learned-turn-end-solo", level) > 20


def test_every_preset_counts_the_learned_term_at_the_leaves_and_has_it_off():
    for name, level in ai.LEVELS.items():
        assert (level.learned_where, level.learned_w, level.learned_clip) == ("leaves", 0.0, 0.0), name


def test_the_training_command_fits_the_next_turn_value_where_the_ais_turn_ends(tmp_path):
    """``--target next_turn``: the positions are those where the AI's turn has just ended, each
    with the look-ahead's next-turn value from the seat's own view (not the game's final score),
    and the positions of one target cannot be fitted as the other."""
    import numpy as np
    from ai.tiletum import lookahead
    out, data = tmp_path / "next.json", tmp_path / "next.npz"
    args = ["--games", "3", "--levels", "1", "--bots", "priest", "--sample", "1", "--explore", "0",
            "--holdout", "0.34", "--target", "next_turn", "--data", str(data), "--out", str(out)]
    train_eval.main(args)
    doc = json.loads(out.read_text())
    assert doc["target"] == "next_turn" and "--target next_turn" in doc["made"]["command"]
    saved = np.load(data)
    assert str(saved["target"]) == "next_turn"
    # each position's value is its own (positions differ), not one final score repeated per game
    games = saved["game"]
    assert all(len(set(saved["y"][games == g].tolist())) > 3 for g in set(games.tolist()))
    # one target checked by hand: the first game's first turn end, played again as the tool plays it
    state, _ = tiletum.new_game(2, "train-eval-0", {"solo": {"level": "priest"}})
    rng = random.Random("train-eval-0")
    me, calls, first = 1 - state.solo["bot"], 0, None
    while first is None:
        seat = state.actor
        if seat == state.solo["bot"] and state.phase == "action":
            moves = next_moves(state, rng)
        else:
            assert not rng.random() < 0.0                    # the tool's explore draw (--explore 0)
            moves = ai.decide(view_doc(state, seat), train_eval.level_of("1"), f"train-eval-0:{calls}")
            calls += 1
        for m in moves:
            before = state
            _, state = play(state, seat, m, seed="train-eval-0")
            key = lookahead.turn_key(before)
            if seat == me and lookahead.in_turn(before, me, key) and not lookahead.in_turn(state, me, key):
                assert rng.random() < 1                      # the tool's sampling draw (--sample 1)
                first = train_eval.next_turn_target(state, me, key, "train-eval-0"), features(state, me)
                break
    assert saved["y"][0] == pytest.approx(first[0]) and first[0] != pytest.approx(saved["y"][1])
    assert list(saved["X"][0]) == pytest.approx(first[1])
    with pytest.raises(SystemExit, match="next_turn"):
        train_eval.main(["--data", str(data), "--target", "score", "--out", str(tmp_path / "no.json")])
