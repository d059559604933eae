"""Carcassonne (base game) through the game interface: an adapter over ``carcassonne/``.

Tile data derived from the tile definitions of the JCloisterZone project (AGPL-3.0), see
``carcassonne/data/README.md``."""
from __future__ import annotations

import carcassonne as rules
import carcassonne.describe
from carcassonne import chance, record, words as carcassonne_words
from carcassonne.describe import event_text, event_texts, tile_name
from carcassonne.effects import placement_effects
from carcassonne.svg import EMAIL_CELL, board_svg, email_window, fit_cells, hand_svg, tiles_sprite
from carcassonne.words import N_

from .spec import GameSpec
from .base import (RESIGNED, EmailDefaults, EmailGame, EngineGame, ReviewDefaults, SearchDefaults,
                   resign_text, seat_name, texts_with_resignations)


class Carcassonne(EmailDefaults, EngineGame[rules.GameState], SearchDefaults, ReviewDefaults):
    name = "carcassonne"
    title = "Carcassonne"
    # the notation's verbs in words (docs/carcassonne.md), for refusals
    verb_words = {"place": N_("place the tile in hand (where, how it is turned, and a follower if you like)")}
    # its own words in German and French (carcassonne/translations, docs/i18n.md)
    languages = carcassonne_words.LANGUAGES
    catalogs = (str(carcassonne_words.CATALOGS), carcassonne_words.DOMAIN)
    min_players, max_players = 2, 5
    rules_version = rules.RULES_VERSION
    seat_kinds = ("human", "ai", "bot")   # AI seats play by ai.generic; bot accounts over the API
    terms = ("follower", "meeple", "cloister")
    cli = "carcassonne-engine"
    email = True              # turn emails and moves by email reply (mail/, through this interface)
    review = True             # application/review.py: the generic search's estimates (ai.generic.review)
    state_type = rules.GameState
    phases = ("play", "over")
    position_format = rules.state.FORMAT
    engine, records, chance, words = rules, record, chance, carcassonne.describe

    def end_by_resignation(self, state, winner):
        state.phase, state.actor, state.tile, state.winners = "over", None, None, [winner]

    def can_snapshot(self, state):
        # a game ended by resignation keeps face-down tiles, which a finished position document
        # may not hold: its few events after the last snapshot are folded instead
        return not (state.phase == "over" and state.pile)

    def scores(self, state):
        return list(state.scores)

    def progress(self, state, lang=None):
        """Carcassonne has no rounds: how many tiles are still face down (public)."""
        return self.say(lang).ngettext("{n} tile left", "{n} tiles left", len(state.pile))

    def round(self, state):
        """Carcassonne has no rounds: the round of turns the game is in (each seat one tile)."""
        return (max(state.version, 1) - 1) // state.players + 1

    def fairness_algorithm(self, meta, state):
        return ("rules 1: commitment = SHA-256(seed); draw i of a reveal = HMAC-SHA256(seed, 'n:i') picks "
                "from the sorted face-down tiles, where n is the number of reveals before it (the setup is "
                "reveal 0, "
                "then each move) (see carcassonne/chance.py)")

    def event_texts(self, events, start=0, state=None, names=None, machines=frozenset(), lang=None):
        return texts_with_resignations(lambda e, k, s, n, m: event_texts(e, k, s, n, lang), self.replay,
                                       events, start, state, names, machines, self.say(lang))

    def event_text(self, before, ev, names=None, machines=frozenset(), lang=None):
        if ev["type"] == RESIGNED:
            return resign_text(ev, names, self.say(lang))
        return event_text(before, ev, names, lang)

    def legal_moves(self, state, lang=None):
        return [(m, carcassonne.describe.describe(state, m, lang)) for m in rules.legal_moves(state)]

    # --- the email channel -------------------------------------------------------------------
    def email_position_lines(self, state, seat, names, lang=None):
        w, out = self.say(lang), []
        if state.tile is not None and state.actor == seat:
            out.append(w._("Your tile to place: {tile}.", tile=tile_name(state.tile, 0, lang)))
        out.append(w._("Your score: {points} points; followers in supply: {supply}.",
                       points=state.scores[seat], supply=state.supply[seat]))
        others = [w._("{name} {points} points ({supply} followers in supply)", name=seat_name(names, i, w),
                      points=v, supply=state.supply[i])
                  for i, v in enumerate(state.scores) if i != seat]
        out.append(w._("The others: {others}.", others="; ".join(others)))
        out.append(w._("Tiles still face down: {n}.", n=len(state.pile)))
        return out

    def email_what(self, state, lang=None):
        return self.say(lang)._("your turn")

    def email_moves(self, state, seat, names=None, lang=None):
        """One row per placement (cell and rotation) where the tile fits, with what it does in words
        (carcassonne/effects.py: what it closes and for how many points to whom, extends or starts,
        as the engine's scoring counts it): type it as it stands to place the tile alone, or add one
        of the follower spots listed."""
        if state.actor != seat:
            return []
        rows: dict[str, list[str]] = {}
        for move in rules.legal_moves(state):
            head = " ".join(move.split()[:3])
            follower = move[len(head):].strip()
            spots = rows.setdefault(head, [])
            if follower:
                spots.append(follower)
        w, out = self.say(lang), []
        for head, spots in rows.items():
            cell, rot = head.split()[1:3]
            x, y = (int(v) for v in cell.split(","))
            effects = placement_effects(state, x, y, int(rot[1:]), seat, names, lang)
            said = "; ".join(effects) if effects else w._("adds to no road, city or cloister")
            said = said[:1].upper() + said[1:]
            out.append((head, w._("{effects}. The tile alone; or add a follower: {spots}", effects=said,
                                  spots=", ".join(spots)) if spots
                        else w._("{effects}. The tile alone", effects=said)))
        return out

    def email_reply_hint(self, lang=None):
        # said without the picture, which an email to an address that has not yet accepted leaves out
        w = self.say(lang)
        return w._("One move a turn: a placement from the list (the cell's column,row and the turn "
                   "of the tile, as the list writes them), alone or with one of its follower spots "
                   "after it.")

    def email_example(self, state, seat):
        """A legal move with a follower when there is one (it shows both parts of the notation)."""
        moves = rules.legal_moves(state) if state.actor == seat else []
        return next((m for m in moves if len(m.split()) > 3), moves[0] if moves else "")

    def board_svg(self, state, names=None, lang=None):
        return board_svg(state, lang=lang)   # the board shows the seats by colour, not by name

    def email_pictures(self, state, seat, names=None, since=None, lang=None):
        """The board numbered as the notation counts cells, the cells where the tile in hand fits
        dashed and labelled ``x,y``; and the tile in hand in its four turns. The board is drawn at
        most 360 px wide (a phone's email column: its numbers stay 13 px there), a larger one cut
        to the part where the tile fits at the most cells (or, not the seat's turn, around the
        tile placed last), which the alt text says (in ``lang``, as the pictures' own words)."""
        w = self.say(lang)
        mine = state.actor == seat and state.tile is not None
        window = email_window(state, mine)
        x0, x1, y0, y1 = window
        every = fit_cells(state) if mine else []
        inside = sum(x0 <= x <= x1 and y0 <= y <= y1 for x, y in every)
        cells = [(x, y) for x, y, _, _ in state.tiles] + list(state.open)
        whole = (x0, x1, y0, y1) == (min(c[0] for c in cells), max(c[0] for c in cells),
                                     min(c[1] for c in cells), max(c[1] for c in cells))
        alt = w.ngettext("The board, {n} tile placed", "The board, {n} tiles placed", len(state.tiles))
        if not whole and mine:
            alt = w._("{board}; the part of it from column {x0} to {x1} and row {y0} to {y1}, with {inside} "
                      "of the {every} cells where your tile fits (the list of moves has them all)",
                      board=alt, x0=x0, x1=x1, y0=y0, y1=y1, inside=inside, every=len(every))
        elif not whole:
            alt = w._("{board}; the part of it from column {x0} to {x1} and row {y0} to {y1}, around the "
                      "tile placed last", board=alt, x0=x0, x1=x1, y0=y0, y1=y1)
        alt = (w._("{board}; the dashed cells, labelled column,row, are where your tile fits.", board=alt)
               if mine else alt + ".")
        board = ("board", alt, board_svg(state, size=EMAIL_CELL, fits=mine, coords=True, window=window,
                                         lang=lang))
        if not mine:
            return [board]
        return [board, ("tile", w._("Your tile: {tile}, shown turned r0, r90, r180 and r270.",
                                    tile=tile_name(state.tile, 0, lang)),
                        hand_svg(state.tile, lang=lang))]

    def pieces_svg(self, lang=None):
        """Every tile turned 0 (``<symbol id="tile-<letter>">``): the page draws the tile in hand; its
        words (``data-words-*``, ``data-full-*``) in ``lang``."""
        return tiles_sprite(lang=lang)


CARCASSONNE = Carcassonne()
_CHECKED: EmailGame[rules.GameState] = CARCASSONNE   # mypy checks the adapter against the protocols

# Carcassonne's registration (pyproject.toml, entry point group tablepost.games): the generic search
# with its evaluation and, at hard, the expectimax over the next tile; its position schema and page
SPEC = GameSpec(game=CARCASSONNE, evaluation="ai.carcassonne:value", chances="ai.carcassonne:next_tiles",
                position_schema="api.schemas.positions.carcassonne:CarcassonnePosition",
                page="api.static:carcassonne.html",
                summary=N_("Draw a land tile, lay it beside the others and place a follower on a city, a "
                           "road, a cloister or a field. The map grows with every turn."),
                art="games.art:carcassonne.svg")
