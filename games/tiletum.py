"""Tiletum through the game interface: an adapter over ``tiletum/``, behaviour unchanged."""
from __future__ import annotations

import re

import tiletum
import tiletum.describe
from rules_common.texts import fold_texts
from tiletum import chance, record
from tiletum.components import RESOURCES, components
from tiletum.describe import COLOUR, describe, narrate, place_name, tile_name
from tiletum.fairness import verify_events
from tiletum.game import RULES_VERSION, evolve_in_place
from tiletum.notation import parse
from tiletum.state import FORMAT as TILETUM_FORMAT
from tiletum.svg import render_board_svg
from tiletum.svg_map import changed_spots, map_part_alt, map_part_svg
from tiletum.svg_seat import seat_board_svg
from tiletum.svg_table import table_svg

from .spec import GameSpec
from .base import (RESIGNED, EmailDefaults, EmailGame, EngineGame, ReviewDefaults, SearchDefaults,
                   resign_text, seat_name, texts_with_resignations)
from .setup import Automa, Choice, Level, Option

_SOLO = tiletum.solo.data()
_CHALLENGES = {c["id"]: c for c in _SOLO["challenges"]}

# Tiletum's own options and its automa, the Cardinalbot (games/setup.py): the service's schemas, the
# catalog, the new-game form and the rating pools are built from these.
OPTIONS = (
    Option("action_tiles", "Action tiles", "Action tiles in printed order (first game) or shuffled",
           kind="choice", default="printed", tournament=True,
           choices=(Choice("printed", "printed order (first game)", "the order printed on the board"),
                    Choice("shuffled", "shuffled", "shuffled by the game's secret seed"))),
)


def _level_words(n: int) -> str:
    return f"{n} random Challenge card{'s' if n != 1 else ''}"


CARDINALBOT = Automa(
    kind="cardinalbot", title="the Cardinalbot", name="Cardinalbot",
    description="a solo game against the Cardinalbot (the solo rules' automa)",
    option="solo", seats=2, first=True,
    levels=tuple(Level(name, f"Cardinal {name.capitalize()}", _level_words(n))
                 for name, n in _SOLO["levels"].items()),
    default_level="deacon",
    settings=(Option("challenges", "Challenge cards",
                     "an explicit list of Challenge cards instead of a level", kind="choices",
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


def _who(names: list[str], seat) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "A player"


def event_text(before: tiletum.GameState | None, ev: dict, names: list[str] | None = None,
               machines: frozenset[int] = frozenset()) -> str:
    """One event in words, in the position ``before`` it (None before the game's first event).
    Reads ``before`` only: the move path describes each move as it plays it (the texts are stored
    with the events, application/store.py). Without ``names`` a move is said in the imperative,
    as its legal-moves description; with the seats' ``names``, in the third person ("Ann took the
    yellow 4 die: ..."), the seats in ``machines`` (the Cardinalbot, AI seats) as "its"."""
    t = ev["type"]
    if t == "GameStarted":
        return f"The game starts with {ev['players']} players"
    if t == "MovePlayed":
        try:
            move = parse(ev["move"])
            if names is None:
                text = describe(before, move)
            else:
                seat = ev.get("seat", before.actor)
                text = narrate(before, move, _who(names, seat), "its" if seat in machines else "their")
        except Exception:  # a move the describer does not know: its notation is its text
            text = ev["move"]
        if ev.get("by"):
            text += f" (played by the {ev['by']})"
        return text
    if t == "MoveUndone":
        if names is None:
            undoable = before.undo_moves if before is not None else []
            return f"Take back '{undoable[-1]}'" if undoable else "Take back the last move"
        seat = ev.get("seat")
        return f"{_who(names, seat)} took back {'its' if seat in machines else 'their'} last move"
    return t


def event_texts(events: list[dict], start: int = 0, state: tiletum.GameState | None = None,
                names: list[str] | None = None, machines: frozenset[int] = frozenset()) -> list[str]:
    """One sentence for each of ``events[start:]``, where ``events`` follow ``state`` (None: they
    are a game's log from its start; a state is folded onto, so pass one that may change). Folded
    once: a move is described in the position it was played in (:func:`event_text`)."""
    return fold_texts(events, start, state, lambda before, ev: event_text(before, ev, names, machines),
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
_DIE_COLOURS = {"G": "yellow", "F": "pink", "W": "light gray", "S": "dark gray", "I": "blue"}


def in_the_past(who: str, text: str) -> str:
    """'Take the yellow 2 die: gain 2 Gold' said of a player: 'Bob took the yellow 2 die: gained 2
    Gold'. A sentence that does not start with a known verb is kept as 'Bob: <text>'."""
    if not _CLAUSE_VERB.match(text):
        return f"{who}: {text}"
    past = _CLAUSE_VERB.sub(lambda m: m.group(1) + _PAST[m.group(2).lower()], text)
    past = re.sub(r"\byour\b", "their", past)
    past = re.sub(r"\byou\b", "they", past)
    return f"{who} {past}"


def chance_words(chance: list) -> list[str]:
    """What chance brought with a move, in words: new dice rolled, tiles drawn."""
    out, dice = [], []
    colour = None
    for kind, value in chance or []:
        if kind == "die-colour":
            colour = _DIE_COLOURS.get(value, value)
        elif kind == "die-roll" and colour:
            dice.append(f"{colour} {value}")
            colour = None
        elif kind.startswith("draw:"):
            out.append(f"a new {kind[5:].title()} tile came out ({value})")
        elif kind == "corruption":
            out.append("a Corruption token was revealed")
    if dice:
        out.insert(0, "the dice rolled: " + ", ".join(dice))
    return out


class Tiletum(EmailDefaults, SearchDefaults, ReviewDefaults, EngineGame[tiletum.GameState]):
    name = "tiletum"
    title = "Tiletum"
    verb_words = {  # the notation's verbs in words (docs/tiletum-notation.md), for refusals
        "take": "take a die", "action": "choose an Action", "merchant": "move your Merchant",
        "architect": "move your Architect", "house": "place a House", "pillar": "place a Pillar",
        "cathedral": "contribute to a Cathedral", "tile": "take a Bonus tile", "char": "hire a Character",
        "discard": "refresh the Character offer", "place": "put a Character in a Building",
        "contract": "take a Contract", "fulfil": "fulfil a Contract", "crest": "place a Crest",
        "use": "use a Helper", "bonus": "receive a bonus", "building": "choose a Building",
        "gain": "choose a resource", "exchange": "exchange resources", "buy": "buy a resource",
        "king": "take the King track's bonus", "skip": "decline or stop", "end": "end your turn"}
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

    def review_position(self, state, seat):
        """The seat's position before a decision, in words (the review's; its own pieces only)."""
        p = state.seats[seat]
        res = ", ".join(f"{n} {name.capitalize()}" for name, n in zip(RESOURCES, p.res) if n)
        turn = (f"turn {min(state.cycle, 2) + 1} of 3" if state.phase == "action"
                else f"the {state.phase} phase")

        def at(spot: str) -> str:
            name = place_name(spot)
            return ("on " if name.startswith("the road") else "in ") + name
        return (f"Round {state.round}, {turn}: {p.score} VP; {res or 'no Resources'}; "
                f"{p.houses} Houses and {p.pillars} Pillars in the supply; "
                f"Architect {at(p.architect)}, Merchant {at(p.merchant)}")

    def end_by_resignation(self, state, winner):
        state.phase, state.actor, state.winner = "over", None, winner
        state.undo_base, state.undo_moves = None, []

    def from_doc(self, doc):
        return tiletum.GameState.from_doc(doc, validate=False)

    def legal_moves(self, state):
        return [(str(m), describe(state, m)) for m in sorted(tiletum.legal(state), key=str)]

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

    def progress(self, state):
        return f"Round {state.round} of {len(state.fair_tiles) or 4}"

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

    def event_texts(self, events, start=0, state=None, names=None, machines=frozenset()):
        return texts_with_resignations(event_texts, self.replay, events, start, state, names, machines)

    def event_text(self, before, ev, names=None, machines=frozenset()):
        return resign_text(ev, names) if ev["type"] == RESIGNED else event_text(before, ev, names, machines)

    # --- the email channel -------------------------------------------------------------------
    def email_what(self, state):
        pending = bool(state.agenda and state.agenda[-1]["t"] == "choice") or state.phase == "king"
        return "your decision" if pending else "your turn"

    def email_position_lines(self, state, seat, names=None):
        c = components()
        p = state.seats[seat]
        res = ", ".join(f"{n} {r.title()}" for r, n in zip(RESOURCES, p.res))
        king = c.king_values[state.king_pos[seat]]
        out = [f"Round {state.round}, {state.phase} phase. Your score: {p.score} VP. King track: {king:+d}.",
               f"Resources: {res}.",
               f"Merchant in {place_name(p.merchant)}, Architect in {place_name(p.architect)}; Houses "
               f"{p.houses} and Pillars {p.pillars} in supply.",
               # each tile by what it costs and gives, never its id (the move list's notation has that)
               f"Storehouse: {'; '.join(tile_name(t) for t in p.store) or 'empty'}. "
               f"Fulfilled Contracts: {len(p.contracts)}."]
        others = [f"{seat_name(names, i)} {q.score} VP"
                  for i, q in enumerate(state.seats) if i != seat]
        out.append("Scores of the others: " + "; ".join(others) + ".")
        if state.turn and state.turn.get("die"):
            top = next((e for e in reversed(state.agenda) if e["t"] == "frame"), None)
            if top is not None:
                out.append(f"In progress: the {top['action'].title()} Action with {top['ap']} AP left.")
        return out + self.email_board_lines(state, names)

    def email_board_lines(self, state, names=None):
        """The shared board in words, for a reader whose email shows no pictures: the dice on the
        Action Wheel, the offers, who has Houses and Pillars where, the Cathedrals' tiles left."""
        name = lambda i: names[i] if names and i < len(names) else f"seat {i}"  # noqa: E731
        dice = ", ".join(f"{COLOUR.get(d[0], d[0])} {d[1:]}" for d in state.wheel) or "none"
        out = [f"Dice on the Action Wheel: {dice}."]
        offer = [tile_name(t) for t in state.contract_offer if t]
        if offer:
            out.append("Contracts on offer: " + "; ".join(offer) + ".")
        offer = [tile_name(t) for t in state.character_offer if t]
        if offer:
            out.append("Characters on offer: " + "; ".join(offer) + ".")
        houses = []
        for town, seats in sorted(state.houses.items()):
            here = [name(i) for i in seats if i is not None]
            if here:
                houses.append(f"{place_name(town)} ({', '.join(here)})")
        if houses:
            out.append("Houses on the map: " + "; ".join(houses) + ".")
        pillars = [f"{place_name(town)} ({', '.join(name(i) for i in seats)})"
                   for town, seats in sorted(state.pillars.items()) if seats]
        if pillars:
            out.append("Pillars on the map: " + "; ".join(pillars) + ".")
        left = [f"{place_name(town)} {len(tiles)}" for town, tiles in sorted(state.cathedral_stack.items())]
        if left:
            out.append("Cathedral tiles left: " + ", ".join(left) + ".")
        return out

    def email_moves(self, state, seat, names=None):
        if state.actor != seat:
            return []
        return [(str(m), describe(state, m)) for m in sorted(tiletum.legal(state), key=str)]

    def email_reply_hint(self):
        return "You may send several moves, or a whole turn ending with 'end'."

    def one_click_moves(self, state, seat):
        """'end' in a turn (nothing else can end it), or any answer of the King-phase Bonus tile."""
        if state.actor != seat:
            return []
        moves = [str(m) for m in tiletum.legal(state)]
        return moves if state.phase == "king" else [m for m in moves if m == "end"]

    def email_past(self, who, text):
        return in_the_past(who, text)

    def email_chance(self, chance):
        return chance_words(chance)

    def board_svg(self, state, names=None):
        return render_board_svg(state, names)

    def email_pictures(self, state, seat, names=None, since=None):
        """The turn email's pictures, each laid out for a phone's email column (its words 12 px or
        more there; the whole board, 1530 px, would show them at 3): the shared table (the Action
        Wheel, the King track, the offers, the Fairs, the players; tiletum/svg_table.py) as the
        board, the part of the map where things changed, and the seat's own board. The whole board
        is the game page's (and board.png's), linked under the pictures."""
        head = f"The Tiletum table, round {state.round}, {state.phase} phase"
        table = ("board", f"{head}: the Action Wheel with its dice and Bonus tiles, the King track, the "
                 "Contract and Character offers, the Fairs and the players' scores (also written out in "
                 "this email; the whole board with the map is on the game's page).",
                 table_svg(state, names, seat if 0 <= seat < len(state.seats) else None))
        if not 0 <= seat < len(state.seats):
            return [table]
        # the seat's own board, narrow enough to read on a phone, shown by the position in words
        mine = ("yours", "Your own board: resources, Storehouse, Buildings, Contracts and Cathedral tiles "
                "(also written out in this email).", seat_board_svg(state, seat, names))
        # the part of the map where things changed since the seat last looked, each space ringed:
        # after the words of what happened, before the seat's own board
        spots = changed_spots(state, since or [])
        if not spots:
            return [table, mine]
        return [table, ("map", map_part_alt(spots), map_part_svg(state, spots, names)), mine]


TILETUM = Tiletum()
_CHECKED: EmailGame[tiletum.GameState] = TILETUM   # mypy checks the adapter against the protocols

# Tiletum's registration (pyproject.toml, entry point group tablepost.games): its own AI (the
# determinized tree search, which also reviews), its position schema and its own page
SPEC = GameSpec(game=TILETUM, ai="ai.tiletum.player:AI",
                position_schema="api.schemas.positions.tiletum:TiletumPosition",
                page="api.static:tiletum.html",
                summary=("Travel Renaissance Europe, trade at Fairs and build the cathedrals: dice taken "
                         "from the Action Wheel decide what you do and what you earn."),
                art="games.art:tiletum.svg")
