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
from pillars import chance, record, words as pillars_words
from pillars.describe import amount, card_name, card_text, field, phase_name, resource
from pillars.describe import event_text as _event_text
from pillars.game import apply_event
from pillars.rules import carry_limit
from pillars.state import RES, cards
from pillars.summary import round_summary, summary_text
from pillars.svg import board_svg
from pillars.words import N_

from .spec import GameSpec
from .base import (RESIGNED, EmailDefaults, EmailGame, EngineGame, ReviewDefaults, SearchDefaults,
                   resign_text, seat_name, texts_with_resignations)

_ASKED = {
    "cards": N_("take a resource card or a craftsman, or pass"),
    "builders": N_("place the drawn master builder, or pass"),
    "placing": N_("place your passed master builder"),
}
# A decision that offers several kinds of move is asked as the kinds that are legal now (the
# headline never offers "place ... or pass" when passing is all the rules allow): each verb in words.
_KINDS = {
    "cards": {"take": N_("take a resource card or a craftsman"), "pass": N_("pass")},
    "builders": {"place": N_("place the drawn master builder"), "redraw": N_("draw another master builder"),
                 "pass": N_("pass")},
    "market": {"buy": N_("buy"), "sell": N_("sell"), "pass": N_("pass")},
}


def _asked(kinds: dict[str, str], verbs: set[str], w) -> str | None:
    """What ``kinds`` says of the legal ``verbs``, joined: 'buy or sell at the market, or pass'."""
    said = [w._(words) for verb, words in kinds.items() if verb in verbs and verb != "pass"]
    if not said:
        return w._("pass (nothing else is possible now)") if "pass" in verbs else None
    text = said[0] if len(said) == 1 else w._("{first} or {last}", first=", ".join(said[:-1]), last=said[-1])
    if kinds is _KINDS["market"]:
        text = w._("{what} at the market", what=text)
    return w._("{what}, or pass", what=text) if "pass" in verbs else text
_DECISION = {
    "archbishop": N_("decide at the Archbishop's Office"),
    "protection": N_("decide whether to use your protection privilege"),
    "lose": N_("name the craftsman who leaves the game"),
    "taxes": N_("decide whether to use your tax privilege"),
    "shiring": N_("name the craftsman who leaves the game"),
    "market": N_("buy or sell at the market, or pass"),
    "cathedral": N_("let your craftsmen work at the Cathedral"),
    "carry": N_("return resources you cannot carry over"),
}


class Pillars(EmailDefaults, EngineGame[rules.GameState], SearchDefaults, ReviewDefaults):
    name = "pillars"
    title = "The Pillars of the Earth"
    verb_words = {  # the notation's verbs in words (docs/pillars.md), for refusals
        "take": N_("take a card"), "pass": N_("pass"), "keep": N_("keep the drawn builder"),
        "redraw": N_("draw the builder again"), "place": N_("place your master builder"),
        "protect": N_("take protection"),
        "collect": N_("collect a resource"), "decline": N_("decline"), "privilege": N_("use a privilege"),
        "discard": N_("discard a craftsman"), "buy": N_("buy resources"), "sell": N_("sell resources"),
        "use": N_("let a craftsman work"), "done": N_("finish at the Cathedral"),
        "drop": N_("return a resource")}
    # its own words in German and French (pillars/translations, docs/i18n.md)
    languages = pillars_words.LANGUAGES
    catalogs = (str(pillars_words.CATALOGS), pillars_words.DOMAIN)
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

    def progress(self, state, lang=None):
        return self.say(lang)._("Round {n} of 6", n=state.round)

    def round(self, state):
        return state.round

    def position(self, state, seat, lang=None):
        """The engine's document, the bag as counts per seat; the last round's end in words in ``lang``
        (the page's round summary; the platform passes it with ``games.in_language``)."""
        doc = rules.view_doc(state, seat)
        doc["bag"] = [state.bag.count(i) for i in range(state.players)]
        # the engine's ledger of the last round's end, said in words (pillars/summary.py)
        del doc["ledger"]
        doc["round_summary"] = round_summary(doc.pop("round_end"), lang)
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

    def event_texts(self, events, start=0, state=None, names=None, machines=frozenset(), lang=None):
        def texts(events, start, state, names, machines):
            return self._event_texts(events, start, state, names, machines, lang)
        return texts_with_resignations(texts, self.replay, events, start, state, names, machines,
                                       self.say(lang))

    def _event_texts(self, events, start=0, state=None, names=None, machines=frozenset(), lang=None):
        def fold(s, ev):
            return apply_event(None if ev["type"] == "GameStarted" or s is None else s.clone(), ev)
        def text(before, ev):
            return _event_text(before, ev, names, machines, lang)
        return fold_texts(events, start, state, text, fold)

    def event_text(self, before, ev, names=None, machines=frozenset(), lang=None):
        if ev["type"] == RESIGNED:
            return resign_text(ev, names, self.say(lang))
        return _event_text(before, ev, names, machines, lang)

    def legal_moves(self, state, lang=None):
        return [(m, pillars.describe.describe(state, m, lang)) for m in rules.legal_moves(state)]

    # --- pictures and the email channel --------------------------------------------------------------
    def board_svg(self, state, names=None, lang=None):
        return board_svg(state, names, lang)

    def email_what(self, state, lang=None):
        """"your turn to ..." what the rules ask now (the turn email's headline and opening)."""
        w = self.say(lang)
        if state.phase == "builders" and state.offer:
            return w._("your turn to decide whether the drawn master builder stays")
        step = state.queue[0][0] if state.phase == "actions" and state.queue else state.phase
        asked = None
        if step in _KINDS:
            asked = _asked(_KINDS[step], {m.split()[0] for m in rules.legal_moves(state)}, w)
        if not asked and state.phase in _ASKED:
            asked = w._(_ASKED[state.phase])
        if not asked and state.phase == "actions" and state.queue:
            asked = w._(_DECISION.get(state.queue[0][0], N_("decide")))
        return w._("your turn to {what}", what=asked) if asked else w._("your turn")

    def email_position_lines(self, state, seat, names, lang=None):
        w = self.say(lang)
        name = lambda i: seat_name(names, i, w)  # noqa: E731
        s = state
        res = _resources(s.res[seat], lang)
        crafts = "; ".join(card_name(x, lang) for x in s.craftsmen[seat])
        out = [w._("Round {n} of 6.", n=s.round), phase_name(s.phase, lang) + ".",
               w._("You have {vp}, {gold} and {resources}.", vp=amount("vp", s.vp[seat], lang),
                   gold=amount("gold", s.gold[seat], lang), resources=res),
               w._("Your craftsmen: {craftsmen}.", craftsmen=crafts)]
        if s.privileges[seat]:
            out.append(w._("Your privileges: {privileges}.",
                           privileges="; ".join(card_name(p, lang) for p in s.privileges[seat])))
        others = [w._("{name} {vp}, {gold}", name=name(i), vp=amount("vp", s.vp[i], lang),
                      gold=amount("gold", s.gold[i], lang)) for i in range(s.players) if i != seat]
        out.append(w._("The others: {others}.", others="; ".join(others)))
        if s.phase == "builders" and s.drawn is not None:
            out.append(w._("The master builder drawn is {name}'s; placing one costs {cost} now.",
                           name=name(s.drawn), cost=amount("gold", s.cost, lang)))
        if s.event is not None:
            out.append(w._("This round's event: {text}", text=card_text(s.event, lang)))
        out.append(w._("At the market: {market}.", market=_resources(s.market, lang)))
        return out + _board_lines(s, seat, name, w)

    def email_round_end(self, state, seat, names, lang=None):
        """The last round's end, in the seat's first email after it: its first decision of the next
        round (in phase I each seat decides once, in turn order from the start player, before anyone
        decides twice), or the results after the sixth."""
        end = state.round_end
        if end is None:
            return []
        first = (state.phase == "cards"
                 and state.version - end["version"] == (seat - state.start) % state.players)
        last = state.phase == "over" and state.final is not None and end["round"] == 6
        return summary_text(round_summary(end, lang), names, seat, lang) if first or last else []

    def pieces_svg(self, lang=None):
        return None


def _resources(counts, lang) -> str:
    """'1 stone, 2 wood, 0 sand, 0 metal' (in the order of RES)."""
    return ", ".join(amount(r, n, lang) for r, n in zip(RES, counts, strict=False))


def _board_lines(s, seat: int, name, w) -> list[str]:
    """The rest of what the board picture shows, in words (an email is read with pictures off too):
    the card pool, the cards at Kingsbridge and Shiring, where the master builders stand, the bag
    and the cost marker, the tax, the resource cards taken this round and the others' boards; and
    what the decision asked needs (the market's prices, how many resources may be carried over)."""
    c, lang = cards(), w.lang
    out = []
    if s.pool:
        pool = [w._("{card} for {price}", card=card_name(x, lang),
                    price=amount("gold", c.craftsmen[x]["cost"], lang))
                if x in c.craftsmen else card_name(x, lang) for x in s.pool]
        out.append(w._("The card pool: {cards}.", cards="; ".join(pool)))
    offers = [w._("{field} offers {cards}", field=field(f, lang),
                  cards=w.list([card_name(x, lang) for x in shown if x is not None]))
              for f, shown in (("kingsbridge", s.kingsbridge), ("shiring", s.shiring))
              if any(x is not None for x in shown)]
    if offers:
        out.append("; ".join(offers) + ".")
    placed = []
    for who in range(s.players):
        at = [w._("{field} ({n} builders)", field=field(f, lang), n=n) if n > 1 else field(f, lang)
              for f in c.field_order if (n := s.spots[f].count(who))]
        if at:
            placed.append(w._("{name}'s at {fields}", name=name(who), fields=", ".join(at)))
    if placed:
        out.append(w._("Master builders placed: {placed}.", placed="; ".join(placed)))
    if s.phase == "builders":
        bag = ", ".join(f"{name(i)} {s.bag.count(i)}" for i in range(s.players))
        out.append(w._("Master builders in the bag: {bag}; the cost marker stands at {cost}.", bag=bag,
                       cost=amount("gold", s.cost, lang)))
    if s.tax is not None:
        out.append(w._("This round's tax: {tax}.", tax=amount("gold", s.tax, lang)))
    step = s.queue[0][0] if s.phase == "actions" and s.queue else None
    if step == "market":
        prices = [w._("{resource} {price}", resource=resource(r, lang),
                      price=amount("gold", c.price[r], lang)) for r in RES]
        out.append(w._("Prices at the market, to buy or to sell one: {prices}.", prices=", ".join(prices)))
    if step == "carry":
        out.append(w._("You may carry over {n} resources to the next round; you have {have}.",
                       n=carry_limit(s, seat), have=sum(s.res[seat])))
    if s.taken[seat]:
        out.append(w._("Your resource cards this round: {cards}.",
                       cards="; ".join(card_name(x, lang) for x in s.taken[seat])))
    for i in range(s.players):
        if i == seat:
            continue
        line = w._("{name} has {resources}; craftsmen: {craftsmen}", name=name(i),
                   resources=_resources(s.res[i], lang),
                   craftsmen="; ".join(card_name(x, lang) for x in s.craftsmen[i]))
        if s.privileges[i]:
            line += w._("; privileges: {privileges}",
                        privileges="; ".join(card_name(p, lang) for p in s.privileges[i]))
        if s.taken[i]:
            line += w._("; resource cards this round: {cards}",
                        cards="; ".join(card_name(x, lang) for x in s.taken[i]))
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
                summary=N_("Place your master builders, hire craftsmen and turn wood, stone and sand into "
                           "the cathedral of Kingsbridge, while taxes and events test you."),
                art="games.art:pillars.svg")
