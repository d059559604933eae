"""Tiletum through the game interface: an adapter over ``tiletum/``, behaviour unchanged."""
from __future__ import annotations

import re

import tiletum
import tiletum.describe
from rules_common.texts import fold_texts
from tiletum import chance, record, words as tiletum_words
from tiletum.components import RESOURCES, components
from tiletum.describe import (action_name, amount, describe, die_colour, narrate, place_in, place_name,
                              tile_name)
from tiletum.fairness import verify_events
from tiletum.game import RULES_VERSION, evolve_in_place
from tiletum.notation import parse
from tiletum.state import FORMAT as TILETUM_FORMAT
from tiletum.svg import render_board_svg
from tiletum.svg_map import changed_spots, map_part_alt, map_part_svg
from tiletum.svg_seat import seat_board_svg
from tiletum.svg_table import table_svg
from tiletum.words import N_, NC_, say

from .spec import GameSpec
from .base import (RESIGNED, EmailDefaults, EmailGame, EngineGame, ReviewDefaults, SearchDefaults,
                   resign_text, seat_name, texts_with_resignations)
from .setup import Automa, Choice, Level, Option

_SOLO = tiletum.solo.data()
_CHALLENGES = {c["id"]: c for c in _SOLO["challenges"]}

# Tiletum's own options and its automa, the Cardinalbot (games/setup.py): the service's schemas, the
# catalog, the new-game form and the rating pools are built from these.
OPTIONS = (
    Option("action_tiles", N_("Action tiles"), N_("Action tiles in printed order (first game) or shuffled"),
           kind="choice", default="printed", tournament=True,
           choices=(Choice("printed", N_("printed order (first game)"), N_("the order printed on the board")),
                    Choice("shuffled", N_("shuffled"), N_("shuffled by the game's secret seed")))),
)
# the Cardinalbot's levels in words (its declared words: said in the reader's language, docs/i18n.md);
# the Challenge cards' names and texts reach the catalog from the solo data (tiletum.words.extract_solo)
_LEVEL_TITLES = {"priest": N_("Cardinal Priest"), "deacon": N_("Cardinal Deacon"),
                 "bishop": N_("Cardinal Bishop")}
_LEVEL_WORDS = {1: N_("1 random Challenge card"), 3: N_("3 random Challenge cards"),
                5: N_("5 random Challenge cards")}
_CHALLENGE_NAMES = frozenset(c["name"] for c in _CHALLENGES.values())


def _level_words(n: int) -> str:
    return _LEVEL_WORDS.get(n) or f"{n} random Challenge card{'s' if n != 1 else ''}"


CARDINALBOT = Automa(
    kind="cardinalbot", title=N_("the Cardinalbot"), name="Cardinalbot",
    description=N_("a solo game against the Cardinalbot (the solo rules' automa)"),
    option="solo", seats=2, first=True,
    levels=tuple(Level(name, _LEVEL_TITLES.get(name) or f"Cardinal {name.capitalize()}", _level_words(n))
                 for name, n in _SOLO["levels"].items()),
    default_level="deacon",
    settings=(Option("challenges", N_("Challenge cards"),
                     N_("an explicit list of Challenge cards instead of a level"), kind="choices",
                     max=len(_CHALLENGES),
                     choices=tuple(Choice(c["id"], c["name"], c["text"]) for c in _CHALLENGES.values())),),
    policy="cardinalbot.policy:choose",
    # the names its pools and players had before games declared them (docs/tournaments.md, "Ratings")
    pool="solo:{level}", player="cardinalbot:{level}",
)


def view_doc(state: tiletum.GameState, seat: int | None) -> dict:
    """The position as ``seat`` (None: a spectator) may see it: face-down piles and the
    Corruption tokens still face down appear only as counts (``Tiletum.view``)."""
    return TILETUM.view(state, seat)


def _who(names: list[str], seat, w=None) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else (w or say())._("A player")



def event_text(before: tiletum.GameState | None, ev: dict, names: list[str] | None = None,
               machines: frozenset[int] = frozenset(), lang: str | None = None) -> str:
    """One event in words, in the position ``before`` it (None before the game's first event).
    Reads ``before`` only: the move path describes each move as it plays it (the texts are stored
    with the events, application/store.py). Without ``names`` a move is said in the imperative,
    as its legal-moves description; with the seats' ``names``, in the third person ("Ann took the
    yellow 4 die: ..."), the seats in ``machines`` (the Cardinalbot, AI seats) as "its". In
    ``lang`` (English by default: tiletum/words.py)."""
    w = say(lang)
    t = ev["type"]
    if t == "GameStarted":
        return w._("The game starts with {n} players", n=ev["players"])
    if t == "MovePlayed":
        try:
            move = parse(ev["move"])
            if names is None:
                text = describe(before, move, lang)
            else:
                seat = ev.get("seat", before.actor)
                their = "its" if seat in machines else "their"
                text = narrate(before, move, _who(names, seat, w), their, lang)
        except Exception:  # a move the describer does not know: its notation is its text
            text = ev["move"]
        return w.played_by(text, ev.get("by"))
    if t == "MoveUndone":
        if names is None:
            undoable = before.undo_moves if before is not None else []
            if undoable:
                return w._("Take back '{move}'", move=undoable[-1])
            return w._("Take back the last move")
        seat = ev.get("seat")
        if seat in machines:
            return w._("{who} took back its last move", who=_who(names, seat, w))
        return w._("{who} took back their last move", who=_who(names, seat, w))
    return t


def event_texts(events: list[dict], start: int = 0, state: tiletum.GameState | None = None,
                names: list[str] | None = None, machines: frozenset[int] = frozenset(),
                lang: str | None = None) -> list[str]:
    """One sentence for each of ``events[start:]``, where ``events`` follow ``state`` (None: they
    are a game's log from its start; a state is folded onto, so pass one that may change). Folded
    once: a move is described in the position it was played in (:func:`event_text`)."""
    return fold_texts(events, start, state, lambda before, ev: event_text(before, ev, names, machines, lang),
                      evolve_in_place)


def stand_in_move(state: tiletum.GameState) -> tiletum.Move:
    """The stand-in's fixed rule (the stand-in before issue 16, now the fallback should the AI
    fail): answer a pending decision with the first listed option other than ``skip``, take the
    highest die without shifting it, then end the turn."""
    legal = sorted(tiletum.legal(state), key=str)
    top = state.agenda[-1] if state.agenda else None
    if top is not None and top["t"] == "choice":
        real = [m for m in legal if m.verb != "skip"]
        return real[0] if real else legal[0]
    if state.turn is not None and state.turn["die"] is None:
        takes = [m for m in legal if m.verb == "take" and ">" not in m.args[0]]
        if takes:
            return max(takes, key=lambda m: (int(m.args[0][1]), m.args[0]))
    for m in legal:
        if m.verb == "end":
            return m
    skip = [m for m in legal if m.verb == "skip"]
    return skip[0] if skip else legal[0]


# the turn email's words for what others did (a stored imperative text said in the past) and for
# what chance brought with a move
_PAST = {"take": "took", "end": "ended", "decline": "declined", "advance": "advanced",
         "exchange": "exchanged", "use": "used", "choose": "chose", "place": "placed", "move": "moved",
         "pay": "paid", "gain": "gained",
         "fulfil": "fulfilled", "discard": "discarded", "receive": "received", "contribute": "contributed",
         "perform": "performed", "stop": "stopped", "build": "built", "score": "scored", "lose": "lost"}
_CLAUSE_VERB = re.compile(r"(^|: |, | and )(" + "|".join(_PAST) + r")\b", re.IGNORECASE)
_DRAWN = {"bonus": N_("a new Bonus tile came out ({tile})"),
          "contract": N_("a new Contract tile came out ({tile})"),
          "character": N_("a new Character tile came out ({tile})")}


def in_the_past(who: str, text: str, lang: str | None = None) -> str:
    """'Take the yellow 2 die: gain 2 Gold' said of a player: 'Bob took the yellow 2 die: gained 2
    Gold'. A sentence that does not start with a known verb is kept as 'Bob: <text>' (and so is
    every text in another language than English: the email asks for the events' texts in its
    language, which say who did what already)."""
    w = say(lang)
    if not w.english or not _CLAUSE_VERB.match(text):
        return w._("{who}: {text}", who=who, text=text)
    past = _CLAUSE_VERB.sub(lambda m: m.group(1) + _PAST[m.group(2).lower()], text)
    past = re.sub(r"\byour\b", "their", past)
    past = re.sub(r"\byou\b", "they", past)
    return f"{who} {past}"


def chance_words(chance: list, lang: str | None = None) -> list[str]:
    """What chance brought with a move, in words: new dice rolled, tiles drawn."""
    w = say(lang)
    out, dice = [], []
    colour = None
    for kind, value in chance or []:
        if kind == "die-colour":
            colour = die_colour(value, lang)
        elif kind == "die-roll" and colour:
            dice.append(f"{colour} {value}")
            colour = None
        elif kind.startswith("draw:"):
            pile = kind[5:]
            out.append(w._(_DRAWN[pile], tile=value) if pile in _DRAWN
                       else f"a new {pile.title()} tile came out ({value})")
        elif kind == "corruption":
            out.append(w._("a Corruption token was revealed"))
    if dice:
        out.insert(0, w._("the dice rolled: {dice}", dice=", ".join(dice)))
    return out


_PHASE = {"action": NC_("phase", "action"), "king": NC_("phase", "king"), "over": NC_("phase", "over")}


def _phase(phase: str, w) -> str:
    return w.pgettext("phase", _PHASE[phase]) if phase in _PHASE else phase


class Tiletum(EmailDefaults, SearchDefaults, ReviewDefaults, EngineGame[tiletum.GameState]):
    name = "tiletum"
    title = "Tiletum"
    verb_words = {  # the notation's verbs in words (docs/tiletum-notation.md), for refusals
        "take": N_("take a die"), "action": N_("choose an Action"), "merchant": N_("move your Merchant"),
        "architect": N_("move your Architect"), "house": N_("place a House"), "pillar": N_("place a Pillar"),
        "cathedral": N_("contribute to a Cathedral"), "tile": N_("take a Bonus tile"),
        "char": N_("hire a Character"),
        "discard": N_("refresh the Character offer"), "place": N_("put a Character in a Building"),
        "contract": N_("take a Contract"), "fulfil": N_("fulfil a Contract"), "crest": N_("place a Crest"),
        "use": N_("use a Helper"), "bonus": N_("receive a bonus"), "building": N_("choose a Building"),
        "gain": N_("choose a resource"), "exchange": N_("exchange resources"), "buy": N_("buy a resource"),
        "king": N_("take the King track's bonus"), "skip": N_("decline or stop"), "end": N_("end your turn")}
    # its own words in German and French (tiletum/translations, docs/i18n.md)
    languages = tiletum_words.LANGUAGES
    catalogs = (str(tiletum_words.CATALOGS), tiletum_words.DOMAIN)

    def declared(self, text: str, lang: str | None = None) -> str:
        """Its declared words in ``lang``: a Challenge card's name by its context (``challenge``, as the
        board says it), its text and every other declared word by their messages."""
        if text in _CHALLENGE_NAMES:
            return self.say(lang).pgettext("challenge", text)
        return super().declared(text, lang)
    min_players, max_players = 2, 4
    rules_version = RULES_VERSION
    seat_kinds = ("human", "cardinalbot", "bot", "ai")
    options = OPTIONS
    automa = CARDINALBOT
    terms = ("Challenge", "Action Wheel", "Architect", "Merchant", "Cathedral", "Decree")
    cli = "tiletum-engine"
    email = True
    review = True             # application/review.py: Tiletum's AI estimates each move in points
    state_type = tiletum.GameState
    score_unit = "VP"
    phases = ("action", "king", "over")
    position_format = TILETUM_FORMAT
    engine, records, chance, words = tiletum, record, chance, tiletum.describe   # forwarded as they are

    def review_position(self, state, seat, lang=None):
        """The seat's position before a decision, in words (the review's; its own pieces only)."""
        w = say(lang)
        p = state.seats[seat]
        res = ", ".join(amount(name, n, lang) for name, n in zip(RESOURCES, p.res) if n)
        turn = (w._("turn {n} of 3", n=min(state.cycle, 2) + 1) if state.phase == "action"
                else w._("the {phase} phase", phase=_phase(state.phase, w)))
        return w._("Round {round}, {turn}: {vp} VP; {resources}; {houses} Houses and {pillars} Pillars in "
                   "the supply; Architect {architect}, Merchant {merchant}", round=state.round, turn=turn,
                   vp=p.score, resources=res or w._("no Resources"), houses=p.houses, pillars=p.pillars,
                   architect=place_in(p.architect, lang, road_on=True),
                   merchant=place_in(p.merchant, lang, road_on=True))

    def end_by_resignation(self, state, winner):
        state.phase, state.actor, state.winner = "over", None, winner
        state.undo_base, state.undo_moves = None, []

    def from_doc(self, doc):
        return tiletum.GameState.from_doc(doc, validate=False)

    def legal_moves(self, state, lang=None):
        return [(str(m), describe(state, m, lang)) for m in sorted(tiletum.legal(state), key=str)]

    def can_undo(self, state):
        return bool(state.undo_moves)

    def can_snapshot(self, state):
        # a position document has no undo history, which replaying the events after it rebuilds
        return not state.undo_moves

    def fallback_move(self, state):
        return str(stand_in_move(state))

    def automa_seat(self, state):
        """The Cardinalbot's seat in a solo game."""
        return state.solo["bot"] if state.solo is not None else None

    def scores(self, state):
        return [p.score for p in state.seats]

    def places(self, state):
        """The rulebook's tie-break: most VP first, ties to the player earlier in the final turn
        order, so the places are 1..n distinct. Solo: the Cardinalbot's own rule decides who won
        (the player wins only with strictly more VP), and the other seat is second."""
        if state.solo is not None and state.winner is not None:
            return [1 if i == state.winner else 2 for i in range(state.players)]
        scores = self.scores(state)
        order = sorted(range(len(scores)), key=lambda s: (-scores[s], state.turn_order.index(s)))
        return [order.index(seat) + 1 for seat in range(len(scores))]

    def progress(self, state, lang=None):
        return say(lang)._("Round {n} of {total}", n=state.round, total=len(state.fair_tiles) or 4)

    def round(self, state):
        return state.round

    def position(self, state, seat):
        """Face-down piles and the Corruption tokens still face down only as counts."""
        doc = state.to_doc()
        doc["piles"] = {k: len(v) for k, v in state.piles.items()}
        doc["corruption_pool"] = len(state.corruption_pool)
        return doc

    def fairness_algorithm(self, meta, state):
        rules = meta.get("rules") or "1"
        if state.reveals is None:  # a rules-1 game: keyed by the event count
            n = "n is the number of events before it (the GameStarted event is 0)"
        else:
            n = ("n is the number of reveals before it (the setup is reveal 0, then each event with chance "
                 "outcomes)")
        return (f"rules {rules}: commitment = SHA-256(seed); outcome i of a reveal = HMAC-SHA256(seed, "
                f"'n:i'), where {n} (see tiletum/chance.py)")

    def verify_events(self, events, seed, commitment):
        return verify_events(events, seed, commitment)

    def event_texts(self, events, start=0, state=None, names=None, machines=frozenset(), lang=None):
        return texts_with_resignations(lambda e, k, s, n, m: event_texts(e, k, s, n, m, lang), self.replay,
                                       events, start, state, names, machines, say(lang))

    def event_text(self, before, ev, names=None, machines=frozenset(), lang=None):
        if ev["type"] == RESIGNED:
            return resign_text(ev, names, say(lang))
        return event_text(before, ev, names, machines, lang)

    # --- the email channel -------------------------------------------------------------------
    def email_what(self, state, lang=None):
        pending = bool(state.agenda and state.agenda[-1]["t"] == "choice") or state.phase == "king"
        w = say(lang)
        return w._("your decision") if pending else w._("your turn")

    def email_position_lines(self, state, seat, names=None, lang=None):
        w = say(lang)
        c = components()
        p = state.seats[seat]
        res = ", ".join(amount(r, n, lang) for r, n in zip(RESOURCES, p.res))
        king = c.king_values[state.king_pos[seat]]
        out = [w._("Round {round}, {phase} phase. Your score: {vp} VP. King track: {king}.",
                   round=state.round, phase=_phase(state.phase, w), vp=p.score, king=f"{king:+d}"),
               w._("Resources: {resources}.", resources=res),
               w._("Merchant {merchant}, Architect {architect}; Houses {houses} and Pillars {pillars} in "
                   "supply.",
                   merchant=place_in(p.merchant, lang), architect=place_in(p.architect, lang),
                   houses=p.houses, pillars=p.pillars),
               # each tile by what it costs and gives, never its id (the move list's notation has that)
               w._("Storehouse: {tiles}. Fulfilled Contracts: {n}.",
                   tiles="; ".join(tile_name(t, lang) for t in p.store) or w._("empty"), n=len(p.contracts))]
        others = [w._("{name} {vp} VP", name=seat_name(names, i, w), vp=q.score)
                  for i, q in enumerate(state.seats) if i != seat]
        out.append(w._("Scores of the others: {others}.", others="; ".join(others)))
        if state.turn and state.turn.get("die"):
            top = next((e for e in reversed(state.agenda) if e["t"] == "frame"), None)
            if top is not None:
                out.append(w._("In progress: the {action} Action with {ap} AP left.",
                               action=action_name(top["action"], lang), ap=top["ap"]))
        return out + self.email_board_lines(state, names, lang)

    def email_board_lines(self, state, names=None, lang=None):
        """The shared board in words, for a reader whose email shows no pictures: the dice on the
        Action Wheel, the offers, who has Houses and Pillars where, the Cathedrals' tiles left."""
        w = say(lang)
        name = lambda i: seat_name(names, i, w)  # noqa: E731
        dice = ", ".join(f"{die_colour(d[0], lang)} {d[1:]}" for d in state.wheel) or w._("none")
        out = [w._("Dice on the Action Wheel: {dice}.", dice=dice)]
        offer = [tile_name(t, lang) for t in state.contract_offer if t]
        if offer:
            out.append(w._("Contracts on offer: {tiles}.", tiles="; ".join(offer)))
        offer = [tile_name(t, lang) for t in state.character_offer if t]
        if offer:
            out.append(w._("Characters on offer: {tiles}.", tiles="; ".join(offer)))
        houses = []
        for town, seats in sorted(state.houses.items()):
            here = [name(i) for i in seats if i is not None]
            if here:
                houses.append(f"{place_name(town, lang)} ({', '.join(here)})")
        if houses:
            out.append(w._("Houses on the map: {houses}.", houses="; ".join(houses)))
        pillars = [f"{place_name(town, lang)} ({', '.join(name(i) for i in seats)})"
                   for town, seats in sorted(state.pillars.items()) if seats]
        if pillars:
            out.append(w._("Pillars on the map: {pillars}.", pillars="; ".join(pillars)))
        left = [f"{place_name(town, lang)} {len(tiles)}"
                for town, tiles in sorted(state.cathedral_stack.items())]
        if left:
            out.append(w._("Cathedral tiles left: {left}.", left=", ".join(left)))
        return out

    def email_moves(self, state, seat, names=None, lang=None):
        if state.actor != seat:
            return []
        return [(str(m), describe(state, m, lang)) for m in sorted(tiletum.legal(state), key=str)]

    def email_reply_hint(self, lang=None):
        return say(lang)._("You may send several moves, or a whole turn ending with 'end'.")

    def one_click_moves(self, state, seat):
        """'end' in a turn (nothing else can end it), or any answer of the King-phase Bonus tile."""
        if state.actor != seat:
            return []
        moves = [str(m) for m in tiletum.legal(state)]
        return moves if state.phase == "king" else [m for m in moves if m == "end"]

    def email_past(self, who, text, lang=None):
        return in_the_past(who, text, lang)

    def email_chance(self, chance, lang=None):
        return chance_words(chance, lang)

    def board_svg(self, state, names=None, lang=None):
        return render_board_svg(state, names, lang=lang)

    def email_pictures(self, state, seat, names=None, since=None, lang=None):
        """The turn email's pictures, each laid out for a phone's email column (its words 12 px or
        more there; the whole board, 1530 px, would show them at 3): the shared table (the Action
        Wheel, the King track, the offers, the Fairs, the players; tiletum/svg_table.py) as the
        board, the part of the map where things changed, and the seat's own board. The whole board
        is the game page's (and board.png's), linked under the pictures. Their words and alt texts
        in ``lang`` (English by default; the platform does not pass one yet: docs/i18n.md)."""
        w = say(lang)
        alt = w._("The Tiletum table, round {n}, {phase} phase: the Action Wheel with its dice and Bonus "
                  "tiles, the King track, the Contract and Character offers, the Fairs and the players' "
                  "scores (also written out in this email; the whole board with the map is on the game's "
                  "page).",
                  n=state.round, phase=_phase(state.phase, w))
        viewer = seat if 0 <= seat < len(state.seats) else None
        table = ("board", alt, table_svg(state, names, viewer, lang))
        if not 0 <= seat < len(state.seats):
            return [table]
        # the seat's own board, narrow enough to read on a phone, shown by the position in words
        alt = w._("Your own board: resources, Storehouse, Buildings, Contracts and Cathedral tiles (also "
                  "written out in this email).")
        mine = ("yours", alt, seat_board_svg(state, seat, names, lang))
        # the part of the map where things changed since the seat last looked, each space ringed:
        # after the words of what happened, before the seat's own board
        spots = changed_spots(state, since or [])
        if not spots:
            return [table, mine]
        return [table, ("map", map_part_alt(spots, lang), map_part_svg(state, spots, names, lang)), mine]


TILETUM = Tiletum()
_CHECKED: EmailGame[tiletum.GameState] = TILETUM   # mypy checks the adapter against the protocols

# Tiletum's registration (pyproject.toml, entry point group tablepost.games): its own AI (the
# determinized tree search, which also reviews), its position schema and its own page
SPEC = GameSpec(game=TILETUM, ai="ai.tiletum.player:AI",
                position_schema="api.schemas.positions.tiletum:TiletumPosition",
                page="api.static:tiletum.html",
                summary=N_("Travel Renaissance Europe, trade at Fairs and build the cathedrals: dice taken "
                           "from the Action Wheel decide what you do and what you earn."),
                art="games.art:tiletum.svg", art_title=N_("An Action Wheel with coloured dice on it"))
