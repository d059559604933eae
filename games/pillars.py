"""The Pillars of the Earth (base game) through the game interface: an adapter over ``pillars/``.

The served position (``view``) is the engine's position document (docs/pillars.md) with the
viewer and the seat to act added, and the master builders in the bag as a count per seat: the
engine keeps them as a sorted list (no order exists until one is drawn), the service says only
how many of each colour are in it. Nothing else in a position is hidden: what is face down is
only the sorted list of what is left, and the seed is never part of a state.
"""
from __future__ import annotations

import pillars as rules
import pillars.describe
from rules_common.texts import fold_texts
from pillars import chance, record
from pillars.describe import FIELD, card_name
from pillars.describe import event_text as _event_text
from pillars.game import apply_event
from pillars.rules import carry_limit
from pillars.state import RES, cards
from pillars.summary import round_summary, summary_text
from pillars.svg import PHASE_NAMES, board_svg

from .spec import GameSpec
from .base import (RESIGNED, EmailDefaults, EmailGame, EngineGame, ReviewDefaults, SearchDefaults,
                   resign_text, seat_name, texts_with_resignations)

_ASKED = {
    "cards": "take a resource card or a craftsman, or pass",
    "builders": "place the drawn master builder, or pass",
    "placing": "place your passed master builder",
}
# A decision that offers several kinds of move is asked as the kinds that are legal now (the
# headline never offers "place ... or pass" when passing is all the rules allow): each verb in words.
_KINDS = {
    "cards": {"take": "take a resource card or a craftsman", "pass": "pass"},
    "builders": {"place": "place the drawn master builder", "redraw": "draw another master builder",
                 "pass": "pass"},
    "market": {"buy": "buy", "sell": "sell", "pass": "pass"},
}


def _asked(kinds: dict[str, str], verbs: set[str]) -> str | None:
    """What ``kinds`` says of the legal ``verbs``, joined: 'buy or sell at the market, or pass'."""
    said = [words for verb, words in kinds.items() if verb in verbs and verb != "pass"]
    if not said:
        return "pass (nothing else is possible now)" if "pass" in verbs else None
    text = " or ".join(said) + (" at the market" if kinds is _KINDS["market"] else "")
    return text + (", or pass" if "pass" in verbs else "")
_DECISION = {
    "archbishop": "decide at the Archbishop's Office",
    "protection": "decide whether to use your protection privilege",
    "lose": "name the craftsman who leaves the game",
    "taxes": "decide whether to use your tax privilege",
    "shiring": "name the craftsman who leaves the game",
    "market": "buy or sell at the market, or pass",
    "cathedral": "let your craftsmen work at the Cathedral",
    "carry": "return resources you cannot carry over",
}


class Pillars(EmailDefaults, EngineGame[rules.GameState], SearchDefaults, ReviewDefaults):
    name = "pillars"
    title = "The Pillars of the Earth"
    verb_words = {  # the notation's verbs in words (docs/pillars.md), for refusals
        "take": "take a card", "pass": "pass", "keep": "keep the drawn builder",
        "redraw": "draw the builder again", "place": "place your master builder",
        "protect": "take protection",
        "collect": "collect a resource", "decline": "decline", "privilege": "use a privilege",
        "discard": "discard a craftsman", "buy": "buy resources", "sell": "sell resources",
        "use": "let a craftsman work", "done": "finish at the Cathedral", "drop": "return a resource"}
    min_players, max_players = 2, 4
    rules_version = rules.RULES_VERSION
    seat_kinds = ("human", "ai", "bot")   # AI seats play by ai.generic; bot accounts over the API
    terms = ("master builder", "craftsman", "craftsmen", "Kingsbridge", "privilege")
    cli = "pillars-engine"
    email = True
    review = True             # application/review.py: the generic search's estimates (ai.generic.review)
    score_unit = "VP"
    state_type = rules.GameState
    phases = ("cards", "builders", "placing", "actions", "over")
    position_format = rules.state.FORMAT
    engine, records, chance, words = rules, record, chance, pillars.describe

    def end_by_resignation(self, state, winner):
        state.phase, state.actor, state.winners = "over", None, [winner]

    def scores(self, state):
        return list(state.vp)

    def places(self, state):
        """Most VP first; a tie goes to the most gold; still tied, the place is shared."""
        keys = list(zip(state.vp, state.gold, strict=True))
        return [1 + sum(1 for k in keys if k > mine) for mine in keys]

    def progress(self, state):
        return f"Round {state.round} of 6"

    def round(self, state):
        return state.round

    def position(self, state, seat):
        """The engine's document, the bag as counts per seat."""
        doc = rules.view_doc(state, seat)
        doc["bag"] = [state.bag.count(i) for i in range(state.players)]
        # the engine's ledger of the last round's end, said in words (pillars/summary.py)
        del doc["ledger"]
        doc["round_summary"] = round_summary(doc.pop("round_end"))
        return doc

    # --- search (ai.generic) -----------------------------------------------------------------
    def determinize(self, view, rng):
        """The served view is the whole state but the bag's order, which does not exist: the bag
        is rebuilt from its counts (sorted, as the engine keeps it)."""
        doc = {k: v for k, v in view.items() if k not in ("viewer", "to_act", "round_summary")}
        doc["bag"] = [seat for seat, n in enumerate(view["bag"]) for _ in range(n)]
        return rules.GameState.from_doc(doc)

    # --- records ---------------------------------------------------------------------------------
    def fairness_algorithm(self, meta, state):
        return ("rules 1: commitment = SHA-256(seed); draw i of a reveal = HMAC-SHA256(seed, 'n:i') picks "
                "from the sorted cards still face down (privileges, events, the round's craftsmen, resource "
                "cards), the master builders in the bag or the tax die's faces, where n is the number of "
                "reveals before it (the setup is reveal 0, then each move that reveals something) "
                "(see pillars/chance.py)")

    def event_texts(self, events, start=0, state=None, names=None, machines=frozenset()):
        return texts_with_resignations(self._event_texts, self.replay, events, start, state, names, machines)

    def _event_texts(self, events, start=0, state=None, names=None, machines=frozenset()):
        def fold(s, ev):
            return apply_event(None if ev["type"] == "GameStarted" or s is None else s.clone(), ev)
        def text(before, ev):
            return _event_text(before, ev, names, machines)
        return fold_texts(events, start, state, text, fold)

    def event_text(self, before, ev, names=None, machines=frozenset()):
        return resign_text(ev, names) if ev["type"] == RESIGNED else _event_text(before, ev, names, machines)

    # --- pictures and the email channel --------------------------------------------------------------
    def board_svg(self, state, names=None):
        return board_svg(state, names)

    def email_what(self, state):
        """"your turn to ..." what the rules ask now (the turn email's headline and opening)."""
        if state.phase == "builders" and state.offer:
            return "your turn to decide whether the drawn master builder stays"
        step = state.queue[0][0] if state.phase == "actions" and state.queue else state.phase
        if step in _KINDS:
            asked = _asked(_KINDS[step], {m.split()[0] for m in rules.legal_moves(state)})
            if asked:
                return "your turn to " + asked
        if state.phase in _ASKED:
            return "your turn to " + _ASKED[state.phase]
        if state.phase == "actions" and state.queue:
            return "your turn to " + _DECISION.get(state.queue[0][0], "decide")
        return "your turn"

    def email_position_lines(self, state, seat, names):
        name = lambda i: seat_name(names, i)  # noqa: E731
        c = cards()
        s = state
        res = ", ".join(f"{n} {r}" for r, n in zip(RES, s.res[seat], strict=False))
        crafts = "; ".join(card_name(x) for x in s.craftsmen[seat])
        out = [f"Round {s.round} of 6.", f"{PHASE_NAMES[s.phase]}.",
               f"You have {s.vp[seat]} VP, {s.gold[seat]} gold and {res}.",
               f"Your craftsmen: {crafts}."]
        if s.privileges[seat]:
            out.append("Your privileges: " + "; ".join(card_name(p) for p in s.privileges[seat]) + ".")
        others = [f"{name(i)} {s.vp[i]} VP, {s.gold[i]} gold" for i in range(s.players) if i != seat]
        out.append("The others: " + "; ".join(others) + ".")
        if s.phase == "builders" and s.drawn is not None:
            out.append(f"The master builder drawn is {name(s.drawn)}'s; placing one costs {s.cost} gold now.")
        if s.event is not None:
            out.append(f"This round's event: {c.events[s.event]['text']}")
        market = ", ".join(f"{n} {r}" for r, n in zip(RES, s.market, strict=False))
        out.append(f"At the market: {market}.")
        return out + _board_lines(s, seat, name)

    def email_round_end(self, state, seat, names):
        """The last round's end, in the seat's first email after it: its first decision of the next
        round (in phase I each seat decides once, in turn order from the start player, before anyone
        decides twice), or the results after the sixth."""
        end = state.round_end
        if end is None:
            return []
        first = (state.phase == "cards"
                 and state.version - end["version"] == (seat - state.start) % state.players)
        last = state.phase == "over" and state.final is not None and end["round"] == 6
        return summary_text(round_summary(end), names, seat) if first or last else []

    def pieces_svg(self):
        return None


def _board_lines(s, seat: int, name) -> list[str]:
    """The rest of what the board picture shows, in words (an email is read with pictures off too):
    the card pool, the cards at Kingsbridge and Shiring, where the master builders stand, the bag
    and the cost marker, the tax, the resource cards taken this round and the others' boards; and
    what the decision asked needs (the market's prices, how many resources may be carried over)."""
    c = cards()
    out = []
    if s.pool:
        out.append("The card pool: " + "; ".join(
            card_name(x) + (f" for {c.craftsmen[x]['cost']} gold" if x in c.craftsmen else "")
            for x in s.pool) + ".")
    offers = [f"{FIELD[f]} offers " + " and ".join(card_name(x) for x in shown if x is not None)
              for f, shown in (("kingsbridge", s.kingsbridge), ("shiring", s.shiring))
              if any(x is not None for x in shown)]
    if offers:
        out.append("; ".join(offers) + ".")
    placed = []
    for who in range(s.players):
        at = [FIELD[f] + (f" ({n} builders)" if n > 1 else "") for f in c.field_order
              if (n := s.spots[f].count(who))]
        if at:
            placed.append(f"{name(who)}'s at " + ", ".join(at))
    if placed:
        out.append("Master builders placed: " + "; ".join(placed) + ".")
    if s.phase == "builders":
        bag = ", ".join(f"{name(i)} {s.bag.count(i)}" for i in range(s.players))
        out.append(f"Master builders in the bag: {bag}; the cost marker stands at {s.cost} gold.")
    if s.tax is not None:
        out.append(f"This round's tax: {s.tax} gold.")
    step = s.queue[0][0] if s.phase == "actions" and s.queue else None
    if step == "market":
        out.append("Prices at the market, to buy or to sell one: "
                   + ", ".join(f"{r} {c.price[r]} gold" for r in RES) + ".")
    if step == "carry":
        out.append(f"You may carry over {carry_limit(s, seat)} resources to the next round; you have "
                   f"{sum(s.res[seat])}.")
    if s.taken[seat]:
        out.append("Your resource cards this round: " + "; ".join(card_name(x) for x in s.taken[seat]) + ".")
    for i in range(s.players):
        if i == seat:
            continue
        res = ", ".join(f"{n} {r}" for r, n in zip(RES, s.res[i], strict=False))
        line = f"{name(i)} has {res}; craftsmen: " + "; ".join(card_name(x) for x in s.craftsmen[i])
        if s.privileges[i]:
            line += "; privileges: " + "; ".join(card_name(p) for p in s.privileges[i])
        if s.taken[i]:
            line += "; resource cards this round: " + "; ".join(card_name(x) for x in s.taken[i])
        out.append(line + ".")
    return out


PILLARS = Pillars()
_CHECKED: EmailGame[rules.GameState] = PILLARS   # mypy checks the adapter against the protocols

# The Pillars of the Earth's registration (pyproject.toml, entry point group tablepost.games): the
# generic search with its evaluation, and presets of its own where its decisions are cheap enough for
# a wider search (measured in bench/pillars_ai.py: docs/ai.md, "The Pillars of the Earth"). Pillars has
# no draw to expand, so easy looks at the other seat's replies too (one ply alone hardly beat random
# moves), medium adds the seat's own next move (a Pillars seat often acts again: worth the most), hard
# is a wider sampled search (more candidates, more futures) within its 2 s; master plays as hard.
_HARD = (6, 192, "own")
SPEC = GameSpec(game=PILLARS, evaluation="ai.pillars:value",
                ai_levels={"easy": (2, 4), "medium": (2, 2, "own"), "hard": _HARD, "master": _HARD},
                position_schema="api.schemas.positions.pillars:PillarsPosition",
                page="api.static:pillars.html",
                summary=("Place your master builders, hire craftsmen and turn wood, stone and sand into the "
                         "cathedral of Kingsbridge, while taxes and events test you."),
                art="games.art:pillars.svg")
