"""The AI player (ai/): what it sees, determinism, seed-blindness, each evaluation term, and
that it plays better than random."""
from __future__ import annotations

import dataclasses
import random

import pytest

import ai
import tiletum
from ai.tiletum import evaluate as ev
from ai.tiletum.view import determinize, known_piles
from tiletum import chance as engine_chance
from tiletum.components import components
from tiletum.game import legal_moves, play
from tiletum.playout import random_game
from games.tiletum import view_doc


def advance_randomly(state, seed: str, moves: int, rng: random.Random):
    for _ in range(moves):
        if state.phase == "over":
            break
        ms = legal_moves(state)
        _, state = play(state, state.actor, ms[rng.randrange(len(ms))], seed=seed, trusted=True)
    return state


def a_decision(seed: str, players: int = 3):
    """A position mid-game where the seat to act has several legal moves."""
    state, _ = tiletum.new_game(players, seed)
    rng = random.Random(seed)
    state = advance_randomly(state, seed, 40, rng)
    while len(legal_moves(state)) < 3:
        state = advance_randomly(state, seed, 1, rng)
    return state


# --- the view --------------------------------------------------------------------------------

def test_the_view_hides_the_piles_and_determinize_rebuilds_what_the_seat_can_know():
    rng = random.Random(1)
    for players in (2, 3, 4):
        state, _ = tiletum.new_game(players, f"view-{players}")
        for _ in range(12):
            state = advance_randomly(state, f"view-{players}", 17, rng)
            if state.phase == "over":
                break
            view = view_doc(state, state.actor)
            assert isinstance(view["piles"]["bonus"], int) and isinstance(view["corruption_pool"], int)
            rebuilt = determinize(view, random.Random(0))
            assert rebuilt.piles == state.piles
            assert rebuilt.corruption_pool == state.corruption_pool
            assert rebuilt.to_doc() == state.to_doc()


def test_a_view_that_does_not_pin_a_pile_down_gets_a_sampled_subset():
    state, _ = tiletum.new_game(2, "sampled")
    view = view_doc(state, 0)
    gone = view["character_offer"][0]
    view["character_offer"][0] = None           # one more Character unaccounted for
    cands = known_piles(view)["character"]
    assert gone in cands and len(cands) == view["piles"]["character"] + 1
    a = determinize(view, random.Random(3)).piles["character"]
    b = determinize(view, random.Random(3)).piles["character"]
    assert a == b and len(a) == view["piles"]["character"] and set(a) <= set(cands)
    view["piles"]["character"] = len(cands) + 1
    with pytest.raises(ValueError, match="character pile"):
        determinize(view, random.Random(3))


# --- determinism and seed-blindness -------------------------------------------------------------

def test_the_decision_is_deterministic_for_position_level_and_rng_seed():
    state = a_decision("determinism")
    view = view_doc(state, state.actor)
    first = ai.decide(view, "medium", 11)
    assert ai.decide(view, "medium", 11) == first
    assert ai.decide(dict(view), "medium", "11") == first      # the rng seed is taken as text
    assert all(m in legal_moves(state) for m in first[:1])


@pytest.mark.parametrize("level", ["medium", "hard"])   # hard looks past the turn (ai.tiletum.lookahead)
def test_two_games_with_different_seeds_and_the_same_visible_position_get_the_same_decision(monkeypatch,
                                                                                            level):
    a = a_decision("seed-blind-alpha")
    b = tiletum.GameState.from_doc(a.to_doc())       # the same position in a game of another seed
    seat = a.actor
    keys: list[bytes] = []
    original = engine_chance.SeededSource.__init__

    def spy(self, seed, nonce):
        keys.append(seed)
        original(self, seed, nonce)

    monkeypatch.setattr(engine_chance.SeededSource, "__init__", spy)
    plan_a = ai.decide(view_doc(a, seat), level, 5)
    plan_b = ai.decide(view_doc(b, seat), level, 5)
    monkeypatch.setattr(engine_chance.SeededSource, "__init__", original)
    assert plan_a == plan_b
    assert keys and not {"seed-blind-alpha", "seed-blind-beta"} & set(keys)   # it never used a game's seed
    # the plan is legal in both games, and the two games do have different futures
    for m in plan_a:
        _, a = play(a, seat, m, seed="seed-blind-alpha")
        _, b = play(b, seat, m, seed="seed-blind-beta")
    while a.actor == seat and a.phase == "action":
        m = legal_moves(a)[-1]
        _, a = play(a, seat, m, seed="seed-blind-alpha")
        _, b = play(b, seat, m, seed="seed-blind-beta")
    assert a.to_doc() != b.to_doc()


def test_bad_levels_and_positions_are_refused():
    state = a_decision("refused")
    view = view_doc(state, state.actor)
    with pytest.raises(ValueError, match="unknown AI level"):
        ai.decide(view, "grandmaster", 1)
    with pytest.raises(ValueError, match="at least 1"):
        ai.decide(view, 0, 1)
    other = dict(view, viewer=(state.actor + 1) % state.players)
    with pytest.raises(ValueError, match="no decision"):
        ai.decide(other, "easy", 1)
    solo, _ = tiletum.new_game(2, "refused-solo", {"solo": {"level": "deacon"}})
    while solo.actor != solo.solo["bot"]:
        solo = advance_randomly(solo, "refused-solo", 1, random.Random(0))
    with pytest.raises(ValueError, match="Cardinalbot"):
        ai.decide(view_doc(solo, solo.actor), "easy", 1)


# --- the evaluation, term by term --------------------------------------------------------------

@pytest.fixture
def fresh():
    state, _ = tiletum.new_game(2, "evaluation")
    return state


def test_score_now(fresh):
    fresh.seats[0].score = 37
    assert ev.score_now(fresh, 0) == 37 and ev.score_now(fresh, 1) == 10


def test_final_now_counts_houses_times_pillars_and_completed_buildings(fresh):
    assert ev.final_now(fresh, 0) == 0                  # one House (Tiletum), no Pillar
    towns = sorted(fresh.cathedral_stack)[:3]
    for t in towns:
        fresh.pillars[t] = [0]
    assert ev.final_now(fresh, 0) == 3                  # 1 House x 3 Pillars
    p = fresh.seats[0]
    for b in (3, 4, 5):                                 # three Completed Buildings
        p.rooms[b] = ["C01"] * len(p.rooms[b])
        p.crests[b] = "B01"
    assert ev.final_now(fresh, 0) == 3 + components().completed_buildings_vp[3]
    assert ev.final_now(fresh, 1) == 0


def test_resources_are_worth_more_while_there_are_rounds_to_spend_them(fresh):
    fresh.seats[0].res = [0, 2, 3, 1, 0]
    assert ev.resources(fresh, 0) == pytest.approx(6 * ev.DEFAULT.resource_vp[0])
    fresh.round = 4
    assert ev.resources(fresh, 0) == pytest.approx(6 * ev.DEFAULT.resource_vp[3])
    fresh.seats[0].res = [2, 2, 3, 1, 0]                 # Gold counts GOLD_FACTOR of another Resource
    assert ev.resources(fresh, 0) == pytest.approx(
        (6 + 2 * ev.DEFAULT.gold_factor) * ev.DEFAULT.resource_vp[3])
    assert ev.DEFAULT.gold_factor < 1
    fresh.phase = "over"
    assert ev.resources(fresh, 0) == 0                  # counted by final scoring in the score


def test_king_counts_the_track_until_this_rounds_king_phase(fresh):
    c = components()
    fresh.king_pos[0] = c.king_start + 3
    assert ev.king(fresh, 0) == c.king_values[c.king_start + 3] > 0
    fresh.king_pos[1] = c.king_start - 2
    assert ev.king(fresh, 1) < 0
    fresh.fairs_scored = 1                              # this round's King phase is over
    assert ev.king(fresh, 0) == 0


def test_fair_counts_only_a_fair_the_seat_takes_part_in(fresh):
    fresh.round, fresh.fairs_scored = 2, 1
    town = fresh.fair_towns[1]
    fresh.seats[0].merchant = town
    fresh.seats[1].merchant = "Tiletum"
    assert 1 not in fresh.houses.get(town, [])
    from tiletum.flow import fair_vp
    assert ev.fair(fresh, 0) == fair_vp(fresh, 0)
    assert ev.fair(fresh, 1) == 0


def test_growth_values_rooms_buildings_storehouse_and_the_map(fresh):
    base = ev.growth(fresh, 0)
    p = fresh.seats[0]
    p.rooms[3] = ["C01"]                                # fills a one-Room Building
    assert ev.growth(fresh, 0) == pytest.approx(base + 2 * ev.DEFAULT.room_vp)
    p.store.append("K01")
    assert ev.growth(fresh, 0) == pytest.approx(base + 2 * ev.DEFAULT.room_vp + ev.DEFAULT.store_vp)
    fresh.pillars[sorted(fresh.cathedral_stack)[0]] = [0]
    assert ev.growth(fresh, 0) > base + 2 * ev.DEFAULT.room_vp + ev.DEFAULT.store_vp
    fresh.phase = "over"
    assert ev.growth(fresh, 0) == 0


def test_pending_ap_counts_the_seats_own_actions_in_progress(fresh):
    fresh.agenda = [{"t": "frame", "seat": 0, "action": "merchant", "ap": 3, "main": True},
                    {"t": "frame", "seat": 1, "action": "king", "ap": 2, "main": False}]
    assert ev.pending_ap(fresh, 0) == pytest.approx(3 * ev.DEFAULT.ap_vp)
    assert ev.pending_ap(fresh, 1) == pytest.approx(2 * ev.DEFAULT.ap_vp)


def test_value_at_the_end_of_a_game_is_the_final_score():
    state = random_game(3, "value-at-end").state
    for seat in range(3):
        assert ev.value(state, seat) == state.seats[seat].score
        assert sum(ev.breakdown(state, seat).values()) == ev.value(state, seat)


# --- strength ------------------------------------------------------------------------------------

def test_the_ai_outscores_random_players():
    seed = "ai-strength"
    state, _ = tiletum.new_game(3, seed)
    rng = random.Random(seed)
    n = 0
    while state.phase != "over":
        seat = state.actor
        if seat == 0:
            for m in ai.decide(view_doc(state, 0), "medium", n):
                _, state = play(state, 0, m, seed=seed)
            n += 1
        else:
            ms = legal_moves(state)
            _, state = play(state, seat, ms[rng.randrange(len(ms))], seed=seed, trusted=True)
    scores = [p.score for p in state.seats]
    assert scores[0] > 2 * max(scores[1:]), scores


def test_future_fairs_count_later_fairs_in_towns_with_the_seats_house(fresh):
    assert ev.future_fairs(fresh, 0) == 0                # only Tiletum so far, the Fair of round 1
    town = fresh.fair_towns[2]
    fresh.houses[town] = [0]
    from tiletum.flow import fair_vp
    assert ev.future_fairs(fresh, 0) == pytest.approx(ev.DEFAULT.future_fair_weight * fair_vp(fresh, 0, 3))
    assert ev.future_fairs(fresh, 1) == 0
    fresh.round = 3                                      # that Fair is now this round's
    assert ev.future_fairs(fresh, 0) == 0


def test_supply_values_houses_and_pillars_still_to_place(fresh):
    p = fresh.seats[0]
    base = ev.supply(fresh, 0)
    assert base == pytest.approx(ev.DEFAULT.supply_vp * (p.houses + p.pillars))
    p.houses -= 1
    assert ev.supply(fresh, 0) == pytest.approx(base - ev.DEFAULT.supply_vp)
    fresh.round = 4
    fresh.cycle = 3                                      # nothing left to play
    assert ev.supply(fresh, 0) == 0


def test_pieces_values_the_supply_by_the_product_it_is_expected_to_make(fresh):
    p = fresh.seats[0]
    assert (p.houses, p.pillars) == (2, 2)
    f = ev.DEFAULT.place_frac                                    # round 1: three rounds and more to come
    assert ev.pieces(fresh, 0) == pytest.approx(ev.DEFAULT.piece_w * ((1 + f * 2) * (0 + f * 2) - 1 * 0))
    before = ev.pieces(fresh, 0) + ev.final_now(fresh, 0)
    fresh.pillars["Paris"] = [0]                         # a Pillar from the supply to the map
    p.pillars -= 1
    assert ev.pieces(fresh, 0) == pytest.approx(ev.DEFAULT.piece_w * ((1 + f * 2) * (1 + f * 1) - 1 * 1))
    assert ev.pieces(fresh, 0) + ev.final_now(fresh, 0) > before   # placing pays
    for t in components().cathedral_towns:               # no Cathedral left to take a Pillar
        fresh.pillars.setdefault(t, [0])
    n = len(fresh.pillars)
    assert ev.pieces(fresh, 0) == pytest.approx(ev.DEFAULT.piece_w * ((1 + f * 2) * n - n))
    fresh.round, fresh.cycle = 4, 3                      # nothing left to play
    assert ev.pieces(fresh, 0) == 0


def test_position_values_the_architect_and_merchant_near_a_free_space(fresh):
    p = fresh.seats[0]
    dist = components().distances
    # the Merchant in Tiletum (its House is there): the nearest Town without one is a step away
    merchant = ev.DEFAULT.pos_w * (1 - 1 / 3)
    assert ev.position(fresh, 0) == pytest.approx(
        ev.DEFAULT.pos_w * (1 - dist["Tiletum"]["Paris"] / 3) + merchant)
    p.architect = "Paris"                                # at a Cathedral that can take its Pillar
    assert ev.position(fresh, 0) == pytest.approx(ev.DEFAULT.pos_w + merchant)
    p.pillars = 0                                        # no Pillar to place: the Architect is worth nothing
    assert ev.position(fresh, 0) == pytest.approx(merchant)
    fresh.phase = "over"
    assert ev.position(fresh, 0) == 0


def test_position_counts_towns_within_its_reach_only(fresh):
    """``pos_reach`` moves away or more a Town is worth nothing; nearer, 1/pos_reach less a move."""
    p = fresh.seats[0]
    dist = components().distances
    far = max((t for t in components().cathedral_towns), key=lambda t: dist["Tiletum"][t])
    p.houses = 0                                         # the Merchant out of it
    for t in components().cathedral_towns:               # every Cathedral but the farthest taken
        if t != far:
            fresh.pillars[t] = [0]
    d = dist[p.architect][far]
    assert d >= 3 and ev.position(fresh, 0) == 0         # beyond the presets' reach of 3
    wide = dataclasses.replace(ev.DEFAULT, pos_reach=d + 2)
    assert ev.position(fresh, 0, wide) == pytest.approx(ev.DEFAULT.pos_w * (1 - d / (d + 2)))
    with pytest.raises(ValueError, match="pos_reach"):
        dataclasses.replace(ev.DEFAULT, pos_reach=0)


def test_growth_values_characters_in_the_storehouse_apart(fresh):
    w = ai.Settings(char_store_vp=2.0)
    base = ev.growth(fresh, 0, w)
    fresh.seats[0].store.append("C01")                   # a Character, not yet in a Room
    assert ev.growth(fresh, 0, w) == pytest.approx(base + 2.0)
    fresh.seats[0].store.append("K01")                   # any other tile
    assert ev.growth(fresh, 0, w) == pytest.approx(base + 2.0 + ev.DEFAULT.store_vp)


def test_king_future_counts_the_track_again_at_each_later_king_phase(fresh):
    w = ai.Settings(king_future_w=0.5)
    c = components()
    fresh.king_pos[0] = c.king_start + 4
    assert ev.king_future(fresh, 0, w) == pytest.approx(0.5 * c.king_values[c.king_start + 4] * 3)
    fresh.king_pos[1] = c.king_start - 2                 # in the red: reset to 0 at the King phase
    assert ev.king_future(fresh, 1, w) == 0
    fresh.round = 4                                      # no later King phase
    assert ev.king_future(fresh, 0, w) == 0


def test_fair_reach_counts_fairs_to_come_where_a_house_can_still_go(fresh):
    from tiletum.flow import fair_vp
    w = ai.Settings(fair_reach_w=0.5)
    p = fresh.seats[0]
    towns = fresh.fair_towns
    open_ = [r for r in range(1, 5) if 0 not in fresh.houses.get(towns[r - 1], ())
             and not (r == 1 and p.merchant == towns[0])]
    assert ev.fair_reach(fresh, 0, w) == pytest.approx(0.5 * sum(fair_vp(fresh, 0, r) for r in open_))
    fresh.houses[towns[2]] = [0]                         # a House there: that Fair is no longer to reach
    open_.remove(3)
    assert ev.fair_reach(fresh, 0, w) == pytest.approx(0.5 * sum(fair_vp(fresh, 0, r) for r in open_))
    p.houses = 0                                         # nothing left to place
    assert ev.fair_reach(fresh, 0, w) == 0


def test_contracts_in_the_storehouse_count_by_the_share_of_their_price_in_hand(fresh):
    w = ai.Settings(contract_w=1.0)
    space = components().contract_spaces[0]
    gain = 4 + space["vp"] + 3 * space["pillar"]         # K08: 3 Iron for 4 VP
    p = fresh.seats[0]
    p.store.append("K08")
    p.res = [0, 0, 0, 0, 0]
    assert ev.contracts_store(fresh, 0, w) == 0
    p.res[4] = 2
    assert ev.contracts_store(fresh, 0, w) == pytest.approx(gain * 2 / 3)
    p.res[4] = 7
    assert ev.contracts_store(fresh, 0, w) == pytest.approx(gain)
    assert ev.contracts_store(fresh, 1, w) == 0


def test_cathedrals_open_count_a_contribution_by_the_share_of_its_stone(fresh):
    w = ai.Settings(cath_w=1.0)
    c = components()
    town = sorted(fresh.cathedral_stack)[0]
    cost = c.tiles[fresh.cathedral_cost[town]].raw
    vp = cost["vp"] + c.tiles[fresh.cathedral_stack[town][-1]].raw["vp"]
    p = fresh.seats[0]
    p.res[3] = 0
    assert ev.cathedrals_open(fresh, 0, w) == 0             # no Pillar there
    fresh.pillars[town] = [0]
    assert ev.cathedrals_open(fresh, 0, w) == 0             # no Stone
    p.res[3] = cost["stone"]
    assert ev.cathedrals_open(fresh, 0, w) == pytest.approx(vp)
    p.cathedrals.append(fresh.cathedral_stack[town][0])  # already contributed
    assert ev.cathedrals_open(fresh, 0, w) == 0


def test_crests_in_the_storehouse_count_once_a_family_while_a_space_is_free(fresh):
    w = ai.Settings(crest_w=4.0)
    c = components()
    fam = {}
    for t, td in c.tiles.items():
        if td.kind == "crest":
            fam.setdefault(td.raw["crest"], []).append(t)
    (a1, a2), (b1, _) = [v[:2] for v in list(fam.values())[:2]]
    p = fresh.seats[0]
    p.res[1] = 2                                         # the cheapest space costs 2 Food
    p.store += [a1, a2]                                  # two of one family: only one can be placed
    assert ev.crests_store(fresh, 0, w) == pytest.approx(4.0)
    p.store.append(b1)                                   # the next space costs more Food than held
    cheap = sorted(s["food"] for s in c.crest_spaces)
    assert ev.crests_store(fresh, 0, w) == pytest.approx(4.0 * (1 + 2 / cheap[1]))
    p.store.remove(b1)
    p.crests[0] = b1                                     # that family is below a Building already
    p.store.append(fam[c.tiles[b1].raw["crest"]][1])
    assert ev.crests_store(fresh, 0, w) == pytest.approx(4.0)
    p.crests = [b1] * len(p.crests)                      # no free space
    assert ev.crests_store(fresh, 0, w) == 0
