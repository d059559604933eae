"""Tiletum through the game interface: an adapter over ``tiletum/``, behaviour unchanged."""
from __future__ import annotations

import tiletum
from tiletum.chance import seed_commitment
from tiletum.components import RESOURCES, components
from tiletum.describe import describe, narrate
from tiletum.fairness import verify_events
from tiletum.game import RULES_VERSION, evolve_in_place, replay
from tiletum.notation import parse
from tiletum.record import replay_record, write_record
from tiletum.svg import render_board_svg

from .base import (RESIGNED, BadSetup, EmailDefaults, GameDefaults, SearchDefaults, fold_resignations,
                   resign_text, texts_with_resignations)


def view_doc(state: tiletum.GameState, seat: int | None) -> dict:
    """The position as ``seat`` (None: a spectator) may see it: face-down piles and the
    Corruption tokens still face down appear only as counts."""
    doc = state.to_doc()
    doc["piles"] = {k: len(v) for k, v in state.piles.items()}
    doc["corruption_pool"] = len(state.corruption_pool)
    doc["viewer"] = seat
    doc["to_act"] = [] if state.actor is None else [state.actor]
    return doc


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
    out: list[str] = []
    for i, ev in enumerate(events):
        if i >= start:
            out.append(event_text(state, ev, names, machines))
        state = evolve_in_place(state, ev)
    return out


class Tiletum(EmailDefaults, SearchDefaults, GameDefaults):
    name = "tiletum"
    title = "Tiletum"
    min_players, max_players = 2, 4
    rules_version = RULES_VERSION
    seat_kinds = ("human", "cardinalbot", "bot", "ai")
    own_options = ("action_tiles", "solo")
    cli = "tiletum-engine"
    email = True
    review = True             # application/review.py: Tiletum's AI estimates each move in points
    state_type = tiletum.GameState
    score_unit = "VP"

    def setup(self, seats, options):
        """Tiletum's own options: ``action_tiles`` (printed or shuffled) and ``solo`` (a game against
        the Cardinalbot, which is seat 0: two seats, one of kind cardinalbot; Deacon by default)."""
        engine_options = {k: v for k, v in options.items() if k in ("action_tiles",)}
        options = dict(options)
        bots = [s for s in seats if s.get("kind", "human") == "cardinalbot"]
        if bots or options.get("solo") is not None:
            if len(seats) != 2 or len(bots) != 1:
                raise BadSetup("bad-seats",
                               "a solo game has two seats: one of kind 'cardinalbot' and one human or 'ai'")
            seats = bots + [s for s in seats if s.get("kind", "human") != "cardinalbot"]  # the bot is seat 0
            engine_options["solo"] = options.get("solo") or {"level": "deacon"}
            options["solo"] = engine_options["solo"]
        return seats, options, engine_options

    def new_game(self, players, seed, options):
        return tiletum.new_game(players, seed, options)

    def replay(self, events, state=None):
        return fold_resignations(replay, self.end_by_resignation, events, state)

    def end_by_resignation(self, state, winner):
        state.phase, state.actor, state.winner = "over", None, winner
        state.undo_base, state.undo_moves = None, []

    def from_doc(self, doc):
        return tiletum.GameState.from_doc(doc, validate=False)

    def play(self, state, seat, move, seed):
        return tiletum.play(state, seat, move, seed=seed)

    def legal_moves(self, state):
        return [(str(m), describe(state, m)) for m in sorted(tiletum.legal(state), key=str)]

    def parse(self, text):
        return parse(text)

    def can_undo(self, state):
        return bool(state.undo_moves)

    def can_snapshot(self, state):
        # a position document has no undo history, which replaying the events after it rebuilds
        return not state.undo_moves

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

    def round(self, state):
        return state.round

    def view(self, state, seat):
        return view_doc(state, seat)

    def seed_commitment(self, seed):
        return seed_commitment(seed)

    def fairness_algorithm(self, meta, state):
        rules = meta.get("rules") or "1"
        if state.reveals is None:  # a rules-1 game: keyed by the event count
            n = "n is the number of events before it (the GameStarted event is 0)"
        else:
            n = ("n is the number of reveals before it (the setup is reveal 0, then each event with chance "
                 "outcomes)")
        return (f"rules {rules}: commitment = SHA-256(seed); outcome i of a reveal = HMAC-SHA256(seed, "
                f"'n:i'), where {n} (see tiletum/chance.py)")

    def write_record(self, events, headers):
        return write_record(events, headers)

    def replay_record(self, text):
        return replay_record(text)

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
               f"Merchant in {c.display.get(p.merchant, p.merchant)}, Architect in "
               f"{c.display.get(p.architect, p.architect)}; Houses {p.houses} and Pillars {p.pillars} in "
               "supply.",
               f"Storehouse: {', '.join(p.store) or 'empty'}. Fulfilled Contracts: {len(p.contracts)}."]
        others = [f"{names[i] if names and i < len(names) else f'seat {i}'} {q.score} VP"
                  for i, q in enumerate(state.seats) if i != seat]
        out.append("Scores of the others: " + "; ".join(others) + ".")
        if state.turn and state.turn.get("die"):
            top = next((e for e in reversed(state.agenda) if e["t"] == "frame"), None)
            if top is not None:
                out.append(f"In progress: the {top['action'].title()} Action with {top['ap']} AP left.")
        return out

    def email_moves(self, state, seat):
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

    def board_svg(self, state, names=None):
        return render_board_svg(state, names)

    def email_pictures(self, state, seat, names=None):
        alt = (f"The Tiletum board, round {state.round}, {state.phase} phase "
               "(the position is also written out in this email).")
        return [("board", alt, render_board_svg(state, names))]


TILETUM = Tiletum()
