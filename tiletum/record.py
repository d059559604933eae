"""Game records: a whole game as text in move notation, replayable to the same final state.

A record is a PGN-like text::

    [Game "tiletum"]
    [Players "3"]
    [Seat0 "Alice"]
    [Options "{}"]
    [Rules "2"]
    [SeedCommitment "9f86d0..."]
    [Setup "[[\\"draw:bonus\\", \\"B07\\"], ...]"]
    1. s0: take G4 | tile B07 | merchant Brugge | house | end {draw:contract K12}
    2. s1: ...

Each numbered line is one turn (or one decision outside a turn, such as the King-phase tile):
the seat, then its moves separated by ``|``. A move that revealed something carries the
outcomes in braces (``{kind value, kind value}``), so the record replays exactly without the
seed; a move not played by the seat's player is tagged, e.g. ``end [stand-in]``; ``undo`` takes back the
previous move. The secret seed is added as ``[Seed "..."]`` only once the game is over. In a header value a
backslash and a quote are escaped with a backslash, and line breaks and other control, format (bidi,
zero-width) or separator characters are written ``\\uXXXX``, so any stored text (a seat's name) keeps the
record one header per line. ``parse_record`` turns a record back into events.
"""
from __future__ import annotations

from rules_common.errors import RecordError
from rules_common.record import IMPOSSIBLE, game_started, header_lines, move_text, read_lines, split_move

__all__ = ["RecordError", "parse_record", "replay_record", "write_record"]


def _outcomes_text(chance: list) -> str:
    return ", ".join(f"{k} {v}" for k, v in chance)


def _parse_outcomes(text: str) -> list:
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        kind, _, value = part.partition(" ")
        out.append([kind, int(value) if value.isdigit() else value])
    return out


def write_record(events: list[dict], headers: dict[str, str] | None = None) -> str:
    """The record of a game from its events. ``headers`` adds tags (seat names, ids, seed...)."""
    if not events:
        raise RecordError("a record starts from the GameStarted event")
    lines = header_lines("tiletum", events[0], headers)
    turn: list[str] = []
    seat = None
    n = 0

    def flush():
        nonlocal turn, n
        if turn:
            n += 1
            lines.append(f"{n}. s{seat}: " + " | ".join(turn))
            turn = []

    for ev in events[1:]:
        if ev["seat"] != seat:
            flush()
            seat = ev["seat"]
        if ev["type"] == "MoveUndone":
            turn.append("undo")
            continue
        turn.append(move_text(ev, _outcomes_text(ev.get("chance") or [])))
        if ev["move"] == "end":
            flush()
    flush()
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> tuple[dict[str, str], list[dict]]:
    """Headers and events of a record. Raises :class:`RecordError` on malformed text."""
    headers: dict[str, str] = {}
    events: list[dict] = []
    for lineno, seat, body in read_lines(text, headers):
        for part in body.split("|"):
            move, by, outcomes = split_move(lineno, part)
            if move.lower() == "undo":
                events.append({"type": "MoveUndone", "seat": seat, "move": None})
                continue
            ev = {"type": "MovePlayed", "seat": seat, "move": move,
                  "chance": _parse_outcomes(outcomes) if outcomes else []}
            if by:
                ev["by"] = by
            events.append(ev)
    start = game_started(headers)
    return headers, [start] + events


def replay_record(text: str):
    """Replay a record move by move with full checking; returns (headers, events, final state).

    Every move is checked against the current rules (a move in an earlier rules version's notation
    is rewritten first: ``tiletum.game.legacy_move``); chance outcomes come from the record."""
    from .errors import IllegalMove
    # game imports nothing from here
    from .game import RULES_VERSION, _as_move, check, evolve_in_place, legacy_move

    headers, events = parse_record(text)
    try:
        state = evolve_in_place(None, events[0])
    except IMPOSSIBLE as e:
        raise RecordError(f"the setup cannot be replayed: {type(e).__name__}: {e}") from None
    out = [events[0]]
    for i, ev in enumerate(events[1:], 1):
        if ev["type"] == "MoveUndone":
            if not state.undo_moves:
                raise RecordError(f"event {i}: undo with nothing to take back")
            ev = {**ev, "move": state.undo_moves[-1], "rules": RULES_VERSION}
            state = evolve_in_place(state, ev)
            out.append(ev)
            continue
        m = legacy_move(state, ev["seat"], _as_move(ev["move"]))
        err = check(state, ev["seat"], m)
        if err is not None:
            raise IllegalMove(f"event {i} '{m}' by seat {ev['seat']}: {err[1]}", code=err[0])
        ev = {**ev, "move": str(m), "rules": RULES_VERSION}
        try:
            state = evolve_in_place(state, ev)
        except IMPOSSIBLE as e:
            raise RecordError(f"event {i} '{m}': its recorded outcomes are impossible here "
                              f"({type(e).__name__}: {e})") from None
        out.append(ev)
    return headers, out, state
