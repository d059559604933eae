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
seed; a move not played by the seat's player is tagged, e.g. ``end [stand-in]``; ``undo`` takes back the previous move. The secret seed is added as ``[Seed "..."]`` only
once the game is over. In a header value a backslash and a quote are escaped with a backslash,
and line breaks and other control, format (bidi, zero-width) or separator characters are written
``\\uXXXX``, so any stored text (a seat's name) keeps the record one header per line.
``parse_record`` turns a record back into events.
"""
from __future__ import annotations

import json
import re
import unicodedata

from .errors import EngineError

HEADER_RE = re.compile(r'^\[(\w+) "(.*)"\]$')
LINE_RE = re.compile(r"^\d+\.\s+s(\d+):\s*(.*)$")
MOVE_RE = re.compile(r"^(.*?)\s*(?:\[([\w-]+)\])?\s*(?:\{(.*)\})?$")


class RecordError(EngineError):
    code = "bad-record"


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
    if not events or events[0]["type"] != "GameStarted":
        raise RecordError("a record starts from the GameStarted event")
    start = events[0]
    tags = {"Game": "tiletum", "Players": str(start["players"]),
            "Options": json.dumps(start.get("options") or {}, sort_keys=True), "Rules": str(start.get("rules", ""))}
    tags.update(headers or {})
    tags["Setup"] = json.dumps(start["chance"], separators=(",", ":"))
    lines = [f'[{k} "{_escape(v)}"]' for k, v in tags.items()]
    lines.append("")
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
        text = ev["move"]
        if ev.get("by"):
            text += f" [{ev['by']}]"
        if ev.get("chance"):
            text += " {" + _outcomes_text(ev["chance"]) + "}"
        turn.append(text)
        if ev["move"] == "end":
            flush()
    flush()
    return "\n".join(lines) + "\n"


# Characters a header value never holds as themselves: those that end a line for str.splitlines
# (CR, LF, VT, FF, FS, GS, RS, NEL, U+2028, U+2029) and every other control, format (bidi,
# zero-width) or separator character, so that any stored text (a seat's name...) stays on its
# header line and shows as what it is.
_ESCAPED_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _escape_char(ch: str) -> str:
    if ch in '\\"':
        return "\\" + ch
    if unicodedata.category(ch) in _ESCAPED_CATEGORIES:
        n = ord(ch)
        return f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}"
    return ch


def _escape(v: str) -> str:
    """A header value: backslash and quote are escaped with a backslash, and the characters of
    ``_ESCAPED_CATEGORIES`` as ``\\uXXXX`` (``\\UXXXXXXXX`` beyond U+FFFF)."""
    return "".join(_escape_char(ch) for ch in str(v))


def _unescape(v: str) -> str:
    def one(m: re.Match) -> str:
        code = m.group(1)
        if len(code) > 1:
            n = int(code[1:], 16)
            if n > 0x10FFFF:
                raise RecordError(f"bad escape in a header: \\{code}")
            return chr(n)
        return code
    return re.sub(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", one, v)


def parse_record(text: str) -> tuple[dict[str, str], list[dict]]:
    """Headers and events of a record. Raises :class:`RecordError` on malformed text."""
    headers: dict[str, str] = {}
    events: list[dict] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        h = HEADER_RE.match(line)
        if h:
            headers[h.group(1)] = _unescape(h.group(2))
            continue
        m = LINE_RE.match(line)
        if not m:
            raise RecordError(f"line {lineno}: not a header or a numbered turn: {line[:60]!r}")
        seat = int(m.group(1))
        for part in m.group(2).split("|"):
            mm = MOVE_RE.match(part.strip())
            move, by, outcomes = mm.group(1).strip(), mm.group(2), mm.group(3)
            if not move:
                raise RecordError(f"line {lineno}: empty move")
            if move.lower() == "undo":
                events.append({"type": "MoveUndone", "seat": seat, "move": None})
                continue
            ev = {"type": "MovePlayed", "seat": seat, "move": move,
                  "chance": _parse_outcomes(outcomes) if outcomes else []}
            if by:
                ev["by"] = by
            events.append(ev)
    try:
        start = {"type": "GameStarted", "players": int(headers["Players"]),
                 "options": json.loads(headers.get("Options") or "{}"), "rules": headers.get("Rules", ""),
                 "chance": json.loads(headers["Setup"])}
    except (KeyError, ValueError) as e:
        raise RecordError(f"record headers are incomplete: {e}") from None
    return headers, [start] + events


def replay_record(text: str):
    """Replay a record move by move with full checking; returns (headers, events, final state).

    Every move is checked against the current rules (a move in an earlier rules version's notation
    is rewritten first: ``engine.game.legacy_move``); chance outcomes come from the record."""
    from .errors import IllegalMove
    from .game import RULES_VERSION, _as_move, apply_event, check, legacy_move  # game imports nothing from here

    headers, events = parse_record(text)
    state = apply_event(None, events[0])
    out = [events[0]]
    for i, ev in enumerate(events[1:], 1):
        if ev["type"] == "MoveUndone":
            if not state.undo_moves:
                raise RecordError(f"event {i}: undo with nothing to take back")
            ev = {**ev, "move": state.undo_moves[-1], "rules": RULES_VERSION}
            state = apply_event(state, ev)
            out.append(ev)
            continue
        m = legacy_move(state, ev["seat"], _as_move(ev["move"]))
        err = check(state, ev["seat"], m)
        if err is not None:
            raise IllegalMove(f"event {i} '{m}' by seat {ev['seat']}: {err[1]}", code=err[0])
        ev = {**ev, "move": str(m), "rules": RULES_VERSION}
        state = apply_event(state, ev)
        out.append(ev)
    return headers, out, state
