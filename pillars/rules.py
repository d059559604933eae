"""The rules of a round: phase I (cards), phase II (master builders), phase III (the board's
actions in numbered order), the round's end and the game's end.

Sections cited are the rules text's (shared/rules/pillars-of-the-earth.md); every reading of a
loose rule is in docs/pillars.md, "Rulings". ``legal`` lists the moves of the seat to act;
``check`` says why a move is illegal (None when it is legal); ``apply`` plays a legal move IN
PLACE and then resolves everything the rules do without a decision, up to the next decision.
Draws come from the ``chance`` it is given (recorded by ``decide``, read back by ``evolve``).

The rules live in modules of one concern each, and every name is importable from here as before:
``basics`` (the sections cited, the one-word moves, a player's purse), ``ledger`` (what phase III did
to each player), ``round_start``, ``cards_phase`` (phase I), ``builders_phase`` (phase II),
``actions_phase`` (phase III's steps, the round's and the game's end), ``market`` (action 12) and
``decisions`` (the choices phase III asks for). This module is the dispatch over them.
"""

from __future__ import annotations

from .actions_phase import (
    STEPS,
    finish,
    resolve_event,
    run,
    start_actions,
    step_apply_event,
    step_castle,
    step_cathedral,
    step_end,
    step_event,
    step_kingsbridge,
    step_market,
    step_metal,
    step_priory,
    step_production,
    step_protection,
    step_shiring,
    step_taxes,
    step_wool,
    take_privilege,
)
from .basics import (
    ARCH,
    CATHEDRAL,
    DECLINE,
    DONE,
    EVENT,
    KEEP,
    KING,
    LIMIT,
    MARKET,
    PASS,
    PH1,
    PH2,
    PRIVILEGES,
    PROTECT,
    REDRAW,
    REQUIRE,
    SHIRING,
    C,
    Err,
    builder_cost,
    carry_limit,
    effect_sum,
    gain_gold,
    gain_res,
    has_mark,
    negative,
    pay,
    uses_possible,
    who,
)
from .builders_phase import (
    apply_builders,
    check_builders,
    draw_builder,
    free_places,
    legal_builders,
    spot_of,
)
from .cards_phase import (
    apply_cards,
    check_cards,
    end_cards,
    legal_cards,
)
from .decisions import (
    apply_decision,
    check_decision,
    check_use,
    decide_now,
    end_cathedral,
    legal_decision,
)
from .ledger import (
    note,
    snap,
)
from .market import (
    apply_market,
    check_market,
    legal_market,
)
from .notation import Move
from .round_start import (
    begin_round,
    setup,
)
from .state import GameState

__all__ = [  # the rules' names, from the modules of each concern
    "Err", "C", "PH1", "PH2", "EVENT", "ARCH", "KING", "SHIRING", "MARKET", "CATHEDRAL", "REQUIRE",
    "PRIVILEGES", "LIMIT", "PASS", "KEEP", "REDRAW", "PROTECT", "DECLINE", "DONE", "who", "gain_gold",
    "pay", "gain_res", "has_mark", "effect_sum", "carry_limit", "builder_cost", "negative",
    "uses_possible", "snap", "note", "setup", "begin_round", "legal_cards", "check_cards", "apply_cards",
    "end_cards", "draw_builder", "free_places", "legal_builders", "spot_of", "check_builders",
    "apply_builders", "start_actions", "run", "step_event", "step_protection", "step_apply_event",
    "resolve_event", "step_wool", "step_kingsbridge", "take_privilege", "step_priory", "step_production",
    "step_taxes", "step_metal", "step_shiring", "step_castle", "step_market", "step_cathedral",
    "step_end", "finish", "STEPS", "legal_market", "check_market", "apply_market", "legal_decision",
    "check_decision", "check_use", "apply_decision", "decide_now", "end_cathedral", "legal", "check",
    "apply",
]


def legal(s: GameState) -> list[Move]:
    """Every legal move of the seat to act (unsorted, unique)."""
    if s.phase == "cards":
        return legal_cards(s)
    if s.phase in ("builders", "placing"):
        return legal_builders(s)
    if s.phase == "actions":
        return legal_decision(s)
    return []


def check(s: GameState, seat: int, m: Move) -> Err:
    """None if ``seat`` (the seat to act) may play ``m`` now, else (code, reason, section)."""
    if s.phase == "cards":
        return check_cards(s, seat, m)
    if s.phase in ("builders", "placing"):
        return check_builders(s, seat, m)
    return check_decision(s, seat, m)


def apply(s: GameState, seat: int, m: Move, chance) -> None:
    """Play a legal move IN PLACE and resolve what follows up to the next decision."""
    if s.phase == "cards":
        apply_cards(s, seat, m, chance)
    elif s.phase in ("builders", "placing"):
        apply_builders(s, seat, m, chance)
    else:
        apply_decision(s, seat, m, chance)
