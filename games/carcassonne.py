"""Carcassonne (base game) through the game interface: an adapter over ``carcassonne/``.

Tile data derived from the tile definitions of the JCloisterZone project (AGPL-3.0), see
``carcassonne/data/README.md``."""
from __future__ import annotations

import carcassonne as rules
from carcassonne.game import advance
from carcassonne.chance import seed_commitment
from carcassonne.describe import describe, event_texts
from carcassonne.record import replay_record, verify_events, write_record
from carcassonne.svg import board_svg, tiles_sprite

from .base import Game


class Carcassonne(Game):
    name = "carcassonne"
    title = "Carcassonne"
    min_players, max_players = 2, 5
    rules_version = rules.RULES_VERSION
    seat_kinds = ("human", "ai", "bot")   # AI seats play by ai.generic; bot accounts over the API
    cli = "carcassonne-engine"
    email = False             # turn emails and replies are Tiletum's only so far (mail/)
    state_type = rules.GameState

    def new_game(self, players, seed, options):
        return rules.new_game(players, seed, options)

    def replay(self, events, state=None):
        return rules.replay(events, state)

    def from_doc(self, doc):
        return rules.GameState.from_doc(doc)

    def play(self, state, seat, move, seed):
        return rules.play(state, seat, move, seed=seed)

    def legal_moves(self, state):
        return [(m, describe(state, m)) for m in rules.legal_moves(state)]

    def search_moves(self, state):
        return [m for _, m in sorted({str(m): m for m in rules.legal(state)}.items())]

    def after(self, state, seat, move, seed):
        s = state.clone()
        advance(s, seat, move, seed)
        return s

    def parse(self, text):
        return rules.parse(text)

    def scores(self, state):
        return list(state.scores)

    def round(self, state):
        """Carcassonne has no rounds: the round of turns the game is in (each seat one tile)."""
        return (max(state.version, 1) - 1) // state.players + 1

    def view(self, state, seat):
        doc = rules.view_doc(state, seat)
        doc["to_act"] = [] if state.actor is None else [state.actor]
        return doc

    def seed_commitment(self, seed):
        return seed_commitment(seed)

    def fairness_algorithm(self, meta, state):
        return ("rules 1: commitment = SHA-256(seed); draw i of a reveal = HMAC-SHA256(seed, 'n:i') picks from "
                "the sorted face-down tiles, where n is the number of reveals before it (the setup is reveal 0, "
                "then each move) (see carcassonne/chance.py)")

    def write_record(self, events, headers):
        return write_record(events, headers)

    def replay_record(self, text):
        return replay_record(text)

    def verify_events(self, events, seed, commitment):
        return verify_events(events, seed, commitment)

    def event_texts(self, events, start=0):
        return event_texts(events, start)

    def board_svg(self, state):
        return board_svg(state)

    def pieces_svg(self):
        """Every tile turned 0 (``<symbol id="tile-<letter>">``): the page draws the tile in hand."""
        return tiles_sprite()


CARCASSONNE = Carcassonne()
