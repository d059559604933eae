"""The engine's public functions, with the shapes of the Tiletum engine's (``tiletum.game``).

* ``new_game(players, seed)`` sets the start tile and reveals the first player's tile.
* ``decide(state, seat, move, seed)`` checks a move and returns its events, with the next tile
  drawn from the game's seed and recorded; an illegal move raises :class:`IllegalMove` naming
  the broken rule.
* ``evolve(state, event)`` folds one event into a new state, reading the recorded draws back.
* ``legal_moves(state)`` lists every legal move of the seat to act, sorted, unique, in notation.

A game's state is the fold of its events: ``replay(events)``. Events::

    {"type": "GameStarted", "game": "carcassonne", "players": 3, "options": {}, "rules": "2",
     "chance": [["tile", "U"]]}
    {"type": "MovePlayed", "seat": 0, "move": "place 0,-1 r0 thief E", "rules": "2",
     "chance": [["tile", "E"]]}

A move's ``chance`` holds the tiles revealed after it (normally one; a tile that fits nowhere is
set aside and another drawn; none after the last tile). The draws of reveal n are keyed by
(seed, n): n is ``state.reveals``, the setup being reveal 0 (``carcassonne/chance.py``).
"""
from __future__ import annotations

from typing import Iterable

from . import rules
from .chance import NoChance, RecordingChance, ReplayChance, SeededSource
from .errors import EngineError, IllegalMove, NotationError, NotYourTurn, Reason
from .notation import Move, parse
from .state import RULES_VERSION, GameState, lay, rules_version
from .tiles import START_TILE, tileset

GAME = "carcassonne"
_NO_CHANCE = NoChance()
Err = tuple[str, str] | None


_MOVES: dict[str, Move] = {}  # parsed texts of recorded moves (what replays read again and again)


def _as_move(move: Move | str, remember: bool = False) -> Move:
    """The move of a text. Only a recorded move's text is remembered (``remember``): the texts
    a client sends are anything, and would fill the memo with what is never read again."""
    if isinstance(move, Move):
        return move
    if isinstance(move, tuple):
        raise NotationError(Reason("a move is a string or a Move"))
    m = _MOVES.get(move) if isinstance(move, str) else None
    if m is None:
        m = parse(move)
        if remember and len(_MOVES) < 100_000:
            _MOVES[move] = m
    return m


def setup(players: int, options: dict, chance, version: str = RULES_VERSION) -> GameState:
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 5:
        raise EngineError(f"Carcassonne is for 2 to 5 players, not {players!r}", code="bad-players")
    s = GameState(players, options, rules=version)
    s.pile = tileset().pile()
    lay(s, START_TILE, 0, 0, 0)
    s.actor = 0
    rules.draw(s, chance)
    s.version, s.reveals = 1, 1
    return s


def new_game(players: int, seed: str, options: dict | None = None) -> tuple[GameState, list[dict]]:
    """Set up a game from its secret seed. Returns the state and the GameStarted event."""
    options = dict(options or {})
    chance = RecordingChance(SeededSource(seed, 0))
    s = setup(players, options, chance)
    return s, [{"type": "GameStarted", "game": GAME, "players": players, "options": options,
                "rules": RULES_VERSION, "chance": chance.outcomes}]


def check_move(s: GameState, seat: int, m: Move) -> tuple[Move, int | None, tuple | None]:
    """(canonical move, follower segment, None) if ``seat`` may play ``m`` now, else the move, None
    and (code, reason, rules section)."""
    if s.phase == "over":
        return m, None, ("game-over", Reason("the game is over"), "End of the game")
    if seat != s.actor:
        why = Reason("it is seat {actor}'s turn, not seat {seat}'s", actor=s.actor, seat=seat)
        return m, None, ("not-your-turn", why, "Game Play")
    return rules.resolve(s, m)


def check(s: GameState, seat: int, m: Move | str) -> Err:
    """``None`` if ``seat`` may play ``m`` now, else ``(rule code, reason)``."""
    err = check_move(s, seat, _as_move(m))[2]
    return None if err is None else err[:2]


def normalize(s: GameState, seat: int, move: Move | str) -> Move:
    """The canonical form of a legal move (the recorded one); raises like ``play``."""
    m, _, err = check_move(s, seat, _as_move(move))
    if err is not None:
        cls = NotYourTurn if err[0] == "not-your-turn" else IllegalMove
        raise cls(Reason("'{move}': {why}", move=str(m), why=err[1]), code=err[0], rule=err[2])
    return m


legal = rules.legal


def legal_moves(s: GameState, seat: int | None = None) -> list[str]:
    """The legal moves of ``seat`` (default: the seat to act), sorted and unique, in notation."""
    if seat is not None and seat != s.actor:
        return []
    return sorted({str(m) for m in rules.legal(s)})


def _apply(s: GameState, seat: int, m: Move, chance) -> list[dict]:
    m, k, err = rules.resolve(s, m)
    if err is not None:  # only with a corrupted log: evolve trusts decide's events
        raise AssertionError(f"recorded move '{m}' is illegal here: {err[1]}")
    return rules.apply(s, seat, m, k, chance)


def apply_event(s: GameState | None, ev: dict) -> GameState:
    """Fold one event into ``s`` in place (a GameStarted event makes a new state); return it."""
    t = ev["type"]
    if t == "MovePlayed":
        outcomes = ev["chance"]
        _apply(s, ev["seat"], _as_move(ev["move"], remember=True),
               ReplayChance(outcomes) if outcomes else _NO_CHANCE)
        if outcomes:
            s.reveals += 1
        s.version += 1
        return s
    if t == "GameStarted":
        return setup(ev["players"], ev.get("options") or {}, ReplayChance(ev["chance"]),
                     version=rules_version(ev.get("rules")))
    raise ValueError(f"unknown event type {t!r}")


def evolve(state: GameState | None, event: dict) -> GameState:
    """A new state: ``state`` with ``event`` folded in. ``state`` is not changed."""
    return apply_event(state.clone() if state is not None else None, event)


def replay(events: Iterable[dict], state: GameState | None = None) -> GameState:
    """Fold events (onto a copy of ``state`` when given)."""
    s = state.clone() if state is not None else None
    for ev in events:
        s = apply_event(s, ev)
    return s


def play(state: GameState, seat: int, move: Move | str, seed: str | None = None, source=None,
         trusted: bool = False) -> tuple[list[dict], GameState]:
    """Check and apply one move: ``(events, new_state)``. ``state`` is not changed.

    ``seed`` is the game's secret seed (the next tile comes from (seed, ``state.reveals``));
    ``trusted=True`` skips the check for a canonical move taken from ``legal(state)``."""
    if seed is None and source is None:
        raise ValueError("play() needs the game's seed (or a chance source) to draw tiles")
    m = _as_move(move)
    if trusted:
        m, k, _ = rules.resolve(state, m)
    else:
        m, k, err = check_move(state, seat, m)
        if err is not None:
            cls = NotYourTurn if err[0] == "not-your-turn" else IllegalMove
            raise cls(Reason("'{move}': {why}", move=str(m), why=err[1]), code=err[0], rule=err[2])
    s = state.clone()
    chance = RecordingChance(source or SeededSource(seed, state.reveals))
    rules.apply(s, seat, m, k, chance)
    if chance.outcomes:
        s.reveals += 1
    s.version += 1
    return [{"type": "MovePlayed", "seat": seat, "move": str(m), "rules": s.rules,
             "chance": chance.outcomes}], s


def advance(s: GameState, seat: int, m: Move, seed: str) -> dict:
    """Apply a legal canonical move to ``s`` IN PLACE and return its event (no check). For random
    playouts and search, where the previous position is not needed."""
    chance = RecordingChance(SeededSource(seed, s.reveals))
    m, k, _ = rules.resolve(s, m)
    rules.apply(s, seat, m, k, chance)
    if chance.outcomes:
        s.reveals += 1
    s.version += 1
    return {"type": "MovePlayed", "seat": seat, "move": str(m), "rules": s.rules, "chance": chance.outcomes}


def decide(state: GameState, seat: int, move: Move | str, seed: str | None = None, source=None) -> list[dict]:
    """The events that ``seat`` playing ``move`` causes. Raises IllegalMove / NotationError."""
    return play(state, seat, move, seed=seed, source=source)[0]
