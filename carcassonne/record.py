"""Game records: a whole game as text in move notation, replayable to the same final state, and
the check of a finished game's draws against its revealed seed.

The format is the Tiletum engine's (``tiletum/record.py``) with one move per turn::

    [Game "carcassonne"]
    [Players "3"]
    [Seat0 "Alice"]
    [Options "{}"]
    [Rules "1"]
    [SeedCommitment "9f86d0..."]
    [Setup "[[\\"tile\\",\\"U\\"]]"]
    1. s0: place 1,0 r0 thief E {tile E}
    2. s1: place 0,1 r180 knight S {tile C, tile V}
    3. s2: ...

A move carries the tiles revealed after it in braces (a tile set aside because it fits nowhere,
then the tile drawn instead), so the record replays exactly without the seed; a move not played
by the seat's player is tagged, e.g. ``[stand-in]``. The seed is added as ``[Seed "..."]`` once
the game is over. In a header value a backslash and a quote are escaped with a backslash, and
control, format and separator characters are written ``\\uXXXX``.
"""
from __future__ import annotations

from rules_common.errors import RecordError
from rules_common.record import IMPOSSIBLE, game_started, header_lines, move_text, read_lines, split_move

from .chance import RecordingChance, SeededSource, seed_commitment
from .errors import EngineError, IllegalMove
from .game import GAME, _as_move, apply_event, check_move, setup
from . import rules

__all__ = ["RecordError", "parse_record", "replay_record", "verify_events", "write_record"]


def write_record(events: list[dict], headers: dict[str, str] | None = None) -> str:
    """The record of a game from its events. ``headers`` adds tags (seat names, ids, seed...)."""
    if not events:
        raise RecordError("a record starts from the GameStarted event")
    lines = header_lines(GAME, events[0], headers)
    for n, ev in enumerate(events[1:], 1):
        text = move_text(ev, ", ".join(f"{k} {v}" for k, v in ev.get("chance") or []))
        lines.append(f"{n}. s{ev['seat']}: {text}")
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> tuple[dict[str, str], list[dict]]:
    """Headers and events of a record. Raises :class:`RecordError` on malformed text."""
    headers: dict[str, str] = {}
    events: list[dict] = []
    for lineno, seat, body in read_lines(text, headers):
        move, by, outcomes = split_move(lineno, body)
        chance = []
        for part in (outcomes or "").split(","):
            kind, _, value = part.strip().partition(" ")
            if kind:
                if kind != "tile" or not value:
                    raise RecordError(f"line {lineno}: an outcome is 'tile <letter>', not {part.strip()!r}")
                chance.append([kind, value.strip()])
        ev = {"type": "MovePlayed", "seat": seat, "move": move, "chance": chance}
        if by:
            ev["by"] = by
        events.append(ev)
    if headers.get("Game", GAME) != GAME:
        raise RecordError(f"this is a record of {headers['Game']!r}, not of {GAME!r}")
    start = game_started(headers, game=GAME)
    return headers, [start] + events


def replay_record(text: str):
    """Replay a record move by move with full checking: (headers, events, final state).
    The draws come from the record; each must be one the face-down tiles allow."""
    headers, events = parse_record(text)
    try:
        state = apply_event(None, events[0])
    except (EngineError, *IMPOSSIBLE) as e:
        raise RecordError(f"the setup cannot be replayed: {e}") from None
    out = [events[0]]
    for i, ev in enumerate(events[1:], 1):
        m, _, err = check_move(state, ev["seat"], _as_move(ev["move"]))
        if err is not None:
            raise IllegalMove(f"move {i} '{m}' by seat {ev['seat']}: {err[1]}", code=err[0], rule=err[2])
        ev = {**ev, "move": str(m), "rules": state.rules}
        try:
            state = apply_event(state, ev)
        except IMPOSSIBLE as e:
            raise RecordError(f"move {i}: its recorded draws are impossible here ({e})") from None
        out.append(ev)
    return headers, out, state


def verify_events(events: list[dict], seed: str, commitment: str | None = None) -> list[str]:
    """Problems found checking every recorded draw against the seed (empty when all match)."""
    problems: list[str] = []
    if commitment is not None and seed_commitment(seed) != commitment:
        problems.append("the seed does not match the published commitment")
    start = events[0]
    rec = RecordingChance(SeededSource(seed, 0))
    setup(start["players"], start.get("options") or {}, rec)
    if rec.outcomes != start["chance"]:
        problems.append("the setup's tile does not match the seed")
    state = apply_event(None, start)
    for n, ev in enumerate(events[1:], 1):
        s = state.clone()
        rec = RecordingChance(SeededSource(seed, state.reveals))
        m, k, err = rules.resolve(s, _as_move(ev["move"]))
        if err is None:
            rules.apply(s, ev["seat"], m, k, rec)
        if rec.outcomes != ev["chance"]:
            problems.append(f"move {n} ({ev['move']}): the tiles drawn differ from the seed's")
        state = apply_event(state, ev)
    return problems
