"""Everything that makes one AI player differ from another, in one frozen object (docs/ai.md, "Levels").

A :class:`Settings` holds the search's budget (iterations, or a time budget and processes for
``master``), the look-ahead past the turn, and every weight of the evaluation (``ai.tiletum.evaluate``).
The levels are presets built from it (:data:`LEVELS`); a variant for measuring is a preset with
some fields replaced (:func:`override`, ``bench/ai_solo_paired.py --variant``). Nothing in the
package reads a module-level weight, so two players with different settings can run side by side
in one process.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, fields, replace

from tablepost.env_names import migrate_environ

migrate_environ()   # TILETUM_AI_MASTER_SECONDS, the old name, read as TABLEPOST_AI_MASTER_SECONDS

LEARNED_WHERE = ("leaves", "turn_end")   # Settings.learned_where


@dataclass(frozen=True)
class Settings:
    # --- the search (ai.tiletum.search) -------------------------------------------------------------
    iterations: int = 60            # search iterations per decision (per process and slice for master)
    explore: float = 2.0            # UCB1 exploration constant, in VP
    plan_min_visits: int = 3        # a planned move after the first is sent only if searched this often
    # send the moves the search planned after the first (False: one move a decision, besides the
    # forced ones after it, so that each move of the turn gets a search and a look-ahead of its own)
    plan: bool = True
    # looking past the turn (ai.tiletum.lookahead): (moves reranked, sampled futures, next-turn iterations)
    lookahead: tuple[int, int, int] | None = None
    # a time budget (seconds per decision; 0: none, the iterations are the budget) and the
    # processes of a root-parallel search (0: every core; ai.tiletum.parallel)
    seconds: float = 0.0
    procs: int = 1

    # --- the evaluation (ai.tiletum.evaluate), in VP -----------------------------------------------
    resource_vp: tuple[float, float, float, float] = (0.33, 0.33, 0.33, 0.19)   # per Resource, by round
    gold_factor: float = 0.67       # a Gold against another Resource (2 Gold buy one, or shift a die)
    room_vp: float = 1.25           # per filled Room
    store_vp: float = 0.49          # per tile in the Storehouse (a Character: char_store_vp)
    char_store_vp: float = -0.47    # per Character tile in the Storehouse (not yet in a Room)
    ap_bonus_vp: float = 0.85       # per bonus AP marker, per round left
    map_vp: float = 0.81            # per House or Pillar on the map, per round left (beyond the product)
    ap_vp: float = 0.59             # per unspent Action Point of an Action in progress
    king_weight: float = 1.0        # this round's King phase
    fair_weight: float = 1.0        # this round's Fair, where the seat takes part now
    future_fair_weight: float = 0.67   # a later round's Fair, as the seat would score it today
    supply_vp: float = 0.48         # per House or Pillar in the supply, per round left
    piece_w: float = 1.57           # the expected final Houses x Pillars product beyond the map's
    place_frac: float = 0.31        # the share of the supply expected to reach the map (3+ rounds left)
    pos_w: float = 2.41             # Architect / Merchant near a Town where a piece can go
    pos_reach: int = 3              # ... worth pos_w at the Town, less by 1/pos_reach a move away
    king_future_w: float = 0.71     # the King track's VP (if not in the red) again at each later King phase
    fair_reach_w: float = 0.17      # a Fair still to come in a Town where a House can still go
    contract_w: float = 0.09        # a Contract in the Storehouse: its VP, by the share of its price in hand
    cath_w: float = 0.39            # a Cathedral the seat can contribute
                                    # to: its VP, by the share of the Stone
    crest_w: float = 2.52           # a Crest in the Storehouse that can still
                                    # be placed, by the share of the Food

    # --- round-end planning (issue 31; 0 switches a term off) --------------------------------
    fair_plan_w: float = 0.0        # this round's Fair, not attended yet:
                                    # its VP by the chance of getting there
    fair_plan_steps: float = 2.0    # Merchant steps a turn counts for, in that chance
    king_plan_w: float = 0.0        # King track steps still to be had this round (a King die on the Wheel)
    crest_plan_w: float = 0.0       # a Crest in the Storehouse: what it adds to the Fairs still to come

    # --- the learned evaluation (issue 43; ai.tiletum.learned, tools/train_eval.py) ---------------
    learned_w: float = 0.0          # the learned correction's weight in the value (0: off)
    learned_file: str = "learned_eval.json"   # the model: a file of ai/tiletum/data/, or a path
    # the learned term bounded to this many VP either side of its value at the decision's own
    # position (0: unbounded), so that the search cannot run off to what the fit overvalues
    learned_clip: float = 0.0
    # that value at the decision's position: set by ai.decide for each decision (evaluate.anchored),
    # never by hand; None (no decision's position, e.g. a review) leaves the term unbounded
    learned_anchor: float | None = None
    # where the learned term counts: "leaves" (every position the decision scores: the search's
    # leaves, the look-ahead's next-turn searches) or "turn_end" (only the positions where the
    # seat's turn ends in the look-ahead's reranking of the best root moves: the search and the
    # next-turn searches use the hand evaluation; without a look-ahead the term then never counts)
    learned_where: str = "leaves"

    def __post_init__(self):
        if self.iterations < 1:
            raise ValueError("a search needs at least 1 iteration")
        if self.seconds < 0 or self.procs < 0:
            raise ValueError("seconds and procs are at least 0")
        if self.learned_clip < 0:
            raise ValueError("learned_clip is at least 0 (0: the learned term unbounded)")
        if self.learned_where not in LEARNED_WHERE:
            raise ValueError(f"learned_where is one of {', '.join(LEARNED_WHERE)}, "
                             f"not {self.learned_where!r}")
        if self.pos_reach < 1:
            raise ValueError("pos_reach is at least 1 move")
        if self.lookahead is not None and (len(self.lookahead) != 3 or min(self.lookahead) < 1):
            raise ValueError("the look-ahead is (moves, futures, iterations), each at least 1")

    @property
    def parallel(self) -> bool:
        """Whether a decision is a timed root-parallel search (``ai.tiletum.parallel``)."""
        return self.seconds > 0


DEFAULT = Settings()


def master_seconds() -> float:
    """The time budget of ``master`` (TABLEPOST_AI_MASTER_SECONDS, default 10 s a decision)."""
    raw = os.environ.get("TABLEPOST_AI_MASTER_SECONDS", "10")
    try:
        v = float(raw)
    except ValueError:
        raise ValueError(f"TABLEPOST_AI_MASTER_SECONDS must be a number of seconds, not {raw!r}") from None
    if not 0 < v <= 3600:
        raise ValueError("TABLEPOST_AI_MASTER_SECONDS must be above 0 and at most 3600")
    return v


def _master() -> Settings:
    # hard's search (its exploration constant too) and look-ahead, as long as the budget allows, on
    # every core; the look-ahead a little wider (its futures are drawn until the time is spent, in
    # every process, so the preset's count of futures is only the first batch)
    return Settings(iterations=400, explore=4.0, lookahead=(4, 3, 40), seconds=master_seconds(), procs=0)


LEVELS: dict[str, Settings] = {
    "easy": Settings(iterations=6),
    "medium": Settings(iterations=60),
    # 1,200 iterations (400 before 28 Nov 2026: +5.6 ± 3.1 VP and 24 wins of 96 against 15 on fresh
    # seeds, decision p95 0.96 s; docs/notes/ai-tuning.md, "Fifth round"); exploration 4 VP and the
    # look-ahead over 8 futures (2 VP and 3 until 28 Nov 2026: +7.6 ± 3.5 VP and 28 wins of 96
    # against 16 on fresh seeds, decision p95 1.07 s; "Seventh round"); one move a decision, each
    # with its own search and look-ahead (the whole planned turn until 28 Nov 2026: "Eighth round")
    "hard": Settings(iterations=1200, explore=4.0, lookahead=(3, 8, 40), plan=False),
    "master": _master(),
}


def refresh_master() -> None:
    """Read TABLEPOST_AI_MASTER_SECONDS again (the levels are built at import)."""
    LEVELS["master"] = _master()


def _parse(f: dataclasses.Field, current, text: str):
    text = text.strip()
    if f.name == "lookahead":
        if text.lower() in ("none", "off", "0", ""):
            return None
        return tuple(int(x) for x in text.split("/"))
    if isinstance(current, tuple):
        parts = [float(x) for x in text.split("/")]
        if len(parts) == 1:
            parts *= len(current)
        return tuple(parts)
    if isinstance(current, str):
        return text
    if isinstance(current, bool):
        return text.lower() in ("1", "true", "yes", "on")
    if isinstance(current, int):
        return int(text)
    return float(text)


def override(base: Settings, spec: str | dict) -> Settings:
    """``base`` with fields replaced: a dict of field -> value, or text ``field:value,...``
    (a tuple's items split by ``/``, e.g. ``lookahead:5/4/40``, ``resource_vp:0.3/0.3/0.3/0.2``;
    ``lookahead:none`` switches the look-ahead off)."""
    known = {f.name: f for f in fields(Settings)}
    if isinstance(spec, dict):
        items = list(spec.items())
    else:
        items = []
        for part in filter(None, (p.strip() for p in spec.split(","))):
            name, sep, value = part.partition(":")
            if not sep:
                raise ValueError(f"a setting is field:value, not {part!r}")
            items.append((name.strip(), value))
    changes = {}
    for name, value in items:
        if name not in known:
            raise ValueError(f"unknown AI setting {name!r}: one of {', '.join(known)}")
        changes[name] = _parse(known[name], getattr(base, name), value) if isinstance(value, str) else value
    return replace(base, **changes)


def resolve(level) -> Settings:
    """A level's settings: a preset's name, an integer (a plain search of that many iterations,
    without the look-ahead), or a :class:`Settings`."""
    if isinstance(level, Settings):
        return level
    if isinstance(level, int) and not isinstance(level, bool):
        if level < 1:
            raise ValueError("an iteration budget must be at least 1")
        return Settings(iterations=level)
    try:
        return LEVELS[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown AI level {level!r}: one of {', '.join(LEVELS)}") from None


__all__ = ["DEFAULT", "LEVELS", "Settings", "master_seconds", "override", "refresh_master", "resolve"]
