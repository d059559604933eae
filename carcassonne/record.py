"""Game records: a whole game as text in move notation, replayable to the same final state, and
the check of a finished game's draws against its revealed seed.

The format is the Tiletum engine's (``engine/record.py``) with one move per turn::

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

import json
import re
import unicodedata

from .chance import RecordingChance, SeededSource, seed_commitment
from .errors import EngineError, IllegalMove
from .game import GAME, RULES_VERSION, _as_move, apply_event, check_move, setup
from . import rules

HEADER_RE = re.compile(r'^\[(\w+) "(.*)"\]$')
LINE_RE = re.compile(r"^\d+\.\s+s(\d+):\s*(.*)$")
MOVE_RE = re.compile(r"^(.*?)\s*(?:\[([\w-]+)\])?\s*(?:\{(.*)\})?$")
_ESCAPED_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


class RecordError(EngineError):
    code = "bad-record"


def _escape(v: str) -> str:
    out = []
    for ch in str(v):
        if ch in '\\"':
            out.append("\\" + ch)
        elif unicodedata.category(ch) in _ESCAPED_CATEGORIES:
            n = ord(ch)
            out.append(f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}")
        else:
            out.append(ch)
    return "".join(out)


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


def write_record(events: list[dict], headers: dict[str, str] | None = None) -> str:
    """The record of a game from its events. ``headers`` adds tags (seat names, ids, seed...)."""
    if not events or events[0]["type"] != "GameStarted":
        raise RecordError("a record starts from the GameStarted event")
    start = events[0]
    tags = {"Game": GAME, "Players": str(start["players"]),
            "Options": json.dumps(start.get("options") or {}, sort_keys=True), "Rules": str(start.get("rules", ""))}
    tags.update(headers or {})
    tags["Setup"] = json.dumps(start["chance"], separators=(",", ":"))
    lines = [f'[{k} "{_escape(v)}"]' for k, v in tags.items()]
    lines.append("")
    for n, ev in enumerate(events[1:], 1):
        text = ev["move"]
        if ev.get("by"):
            text += f" [{ev['by']}]"
        if ev.get("chance"):
            text += " {" + ", ".join(f"{k} {v}" for k, v in ev["chance"]) + "}"
        lines.append(f"{n}. s{ev['seat']}: {text}")
    return "\n".join(lines) + "\n"


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
        mm = MOVE_RE.match(m.group(2).strip())
        move, by, outcomes = mm.group(1).strip(), mm.group(2), mm.group(3)
        if not move:
            raise RecordError(f"line {lineno}: empty move")
        chance = []
        for part in (outcomes or "").split(","):
            kind, _, value = part.strip().partition(" ")
            if kind:
                if kind != "tile" or not value:
                    raise RecordError(f"line {lineno}: an outcome is 'tile <letter>', not {part.strip()!r}")
                chance.append([kind, value.strip()])
        ev = {"type": "MovePlayed", "seat": int(m.group(1)), "move": move, "chance": chance}
        if by:
            ev["by"] = by
        events.append(ev)
    if headers.get("Game", GAME) != GAME:
        raise RecordError(f"this is a record of {headers['Game']!r}, not of {GAME!r}")
    try:
        start = {"type": "GameStarted", "game": GAME, "players": int(headers["Players"]),
                 "options": json.loads(headers.get("Options") or "{}"), "rules": headers.get("Rules", ""),
                 "chance": json.loads(headers["Setup"])}
    except (KeyError, ValueError) as e:
        raise RecordError(f"record headers are incomplete: {e}") from None
    return headers, [start] + events


def replay_record(text: str):
    """Replay a record move by move with full checking: (headers, events, final state).
    The draws come from the record; each must be one the face-down tiles allow."""
    headers, events = parse_record(text)
    try:
        state = apply_event(None, events[0])
    except (AssertionError, EngineError, KeyError, TypeError, ValueError) as e:
        raise RecordError(f"the setup cannot be replayed: {e}") from None
    out = [events[0]]
    for i, ev in enumerate(events[1:], 1):
        m, _, err = check_move(state, ev["seat"], _as_move(ev["move"]))
        if err is not None:
            raise IllegalMove(f"move {i} '{m}' by seat {ev['seat']}: {err[1]}", code=err[0], rule=err[2])
        ev = {**ev, "move": str(m), "rules": RULES_VERSION}
        try:
            state = apply_event(state, ev)
        except AssertionError as e:
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
