"""Connect Four through the platform's game interface (``games/base.py``): an adapter over
:mod:`tablepost_connect_four.rules`, played on the web, by the API, by email and by the generic AI."""
from __future__ import annotations

from rules_common import chance as _chance

from games.base import (RESIGNED, EmailDefaults, EngineGame, SearchDefaults, resign_text, seat_name,
                        texts_with_resignations)

from . import record, rules, words
from .svg import board_svg


class ConnectFour(EmailDefaults, EngineGame[rules.GameState], SearchDefaults):
    name = "connect-four"
    title = "Connect Four"
    min_players, max_players = 2, 2
    rules_version = rules.RULES_VERSION
    seat_kinds = ("human", "ai", "bot")   # AI seats play by the platform's generic search (ai.py's value)
    cli = "connect-four-engine"   # this distribution's command line (cli.py)
    email = True
    review = False
    score_unit = "wins"
    verb_words = {"drop": "drop a disc in a column (drop a ... drop g)"}
    state_type = rules.GameState
    phases = ("play", "over")
    terms = ("disc",)   # its own noun: the platform never speaks it (tests/test_game_blind.py)
    position_format = rules.FORMAT
    engine, records, chance, words = rules, record, _chance, words

    def end_by_resignation(self, state, winner):
        rules.end_by_resignation(state, winner)

    def scores(self, state):
        return rules.scores(state)

    def round(self, state):
        """A round is one disc of each seat."""
        return state.discs // 2 + 1

    def progress(self, state):
        n = state.discs
        return f"{n} disc{'s' if n != 1 else ''} dropped"

    def after(self, state, seat, move, seed):
        s = state.clone()
        rules.advance(s, seat, move, seed)
        return s

    def fairness_algorithm(self, meta, state):
        return ("rules 1: nothing is left to chance; commitment = SHA-256(seed), and the seed "
                "decides nothing (see tablepost_connect_four/record.py)")

    def event_texts(self, events, start=0, state=None, names=None, machines=frozenset()):
        return texts_with_resignations(lambda e, k, s, n, m: words.event_texts(e, k, s, n), self.replay,
                                       events, start, state, names, machines)

    def event_text(self, before, ev, names=None, machines=frozenset()):
        return resign_text(ev, names) if ev["type"] == RESIGNED else words.event_text(before, ev, names)

    def board_svg(self, state, names=None):
        return board_svg(state, names)

    # --- the email channel ---------------------------------------------------------------------
    def email_what(self, state):
        return "your turn to drop a disc"

    def email_position_lines(self, state, seat, names):
        other = 1 - seat
        return [f"You drop {rules.COLOURS[seat]} discs (R on the board below is red, Y yellow); "
                f"{seat_name(names, other)} drops {rules.COLOURS[other]}.",
                f"{self.progress(state)[:1].upper()}{self.progress(state)[1:]}; the board, top row first:",
                *words.board_lines(state)]

    def email_reply_hint(self):
        return "One move a turn: 'drop' and a column's letter (a to g), or the letter alone."


CONNECT_FOUR = ConnectFour()
