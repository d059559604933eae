"""The text frame of a game record, PGN-like and the same for every game::

    [Game "tiletum"]
    [Players "3"]
    [Seat0 "Alice"]
    [Setup "[[\\"draw:bonus\\", \\"B07\\"], ...]"]
    1. s0: take G4 | tile B07 | end {draw:contract K12}
    2. s1: ...

Header lines, then numbered lines, one per turn: the seat, then its moves (a game that plays
several moves in a turn separates them with ``|``). A move that revealed something carries the
outcomes in braces (``{kind value, kind value}``), so a record replays exactly without the seed;
a move not played by the seat's player is tagged, e.g. ``end [stand-in]``. In a header value a
backslash and a quote are escaped with a backslash, and line breaks and other control, format
(bidi, zero-width) or separator characters are written ``\\uXXXX``, so any stored text (a seat's
name) keeps one header per line. What the moves and outcomes mean is each game's
(``tiletum/record.py``, ``carcassonne/record.py``).
"""
from __future__ import annotations

import json
import re
import unicodedata
from typing import Iterator

from .errors import RecordError

HEADER_RE = re.compile(r'^\[(\w+) "(.*)"\]$')
LINE_RE = re.compile(r"^\d+\.\s+s(\d+):\s*(.*)$")
MOVE_RE = re.compile(r"^(.*?)\s*(?:\[([\w-]+)\])?\s*(?:\{(.*)\})?$")

# What replaying a record's setup or recorded outcomes raises when the text claims something the
# rules cannot fold in (a draw of a tile that does not exist, an outcome of the wrong kind...):
# the record is malformed, said as a RecordError, never a crash.
IMPOSSIBLE = (AssertionError, KeyError, IndexError, TypeError, ValueError)

# Characters a header value never holds as themselves: those that end a line for str.splitlines
# (CR, LF, VT, FF, FS, GS, RS, NEL, U+2028, U+2029) and every other control, format or
# separator character.
_ESCAPED_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _escape_char(ch: str) -> str:
    if ch in '\\"':
        return "\\" + ch
    if unicodedata.category(ch) in _ESCAPED_CATEGORIES:
        n = ord(ch)
        return f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}"
    return ch


def escape(v: str) -> str:
    """A header value: backslash and quote are escaped with a backslash, and the characters of
    ``_ESCAPED_CATEGORIES`` as ``\\uXXXX`` (``\\UXXXXXXXX`` beyond U+FFFF)."""
    return "".join(_escape_char(ch) for ch in str(v))


def unescape(v: str) -> str:
    def one(m: re.Match) -> str:
        code = m.group(1)
        if len(code) > 1:
            n = int(code[1:], 16)
            if n > 0x10FFFF:
                raise RecordError(f"bad escape in a header: \\{code}")
            return chr(n)
        return code
    return re.sub(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", one, v)


def header_lines(game: str, start: dict, headers: dict[str, str] | None) -> list[str]:
    """The header lines of a record from its GameStarted event, the caller's tags between the
    game's own and ``Setup`` (always last), then the blank line before the moves."""
    if start.get("type") != "GameStarted":
        raise RecordError("a record starts from the GameStarted event")
    tags = {"Game": game, "Players": str(start["players"]),
            "Options": json.dumps(start.get("options") or {}, sort_keys=True),
            "Rules": str(start.get("rules", ""))}
    tags.update(headers or {})
    tags["Setup"] = json.dumps(start["chance"], separators=(",", ":"))
    return [f'[{k} "{escape(v)}"]' for k, v in tags.items()] + [""]


def move_text(ev: dict, outcomes: str) -> str:
    """One move of a record: its notation, its ``[by]`` tag and its ``{outcomes}``."""
    text = ev["move"]
    if ev.get("by"):
        text += f" [{ev['by']}]"
    if ev.get("chance"):
        text += " {" + outcomes + "}"
    return text


def read_lines(text: str, headers: dict[str, str]) -> Iterator[tuple[int, int, str]]:
    """Fill ``headers`` from the header lines and yield each numbered line as (line number,
    seat, the text after the seat). Raises :class:`RecordError` on a line that is neither."""
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        h = HEADER_RE.match(line)
        if h:
            headers[h.group(1)] = unescape(h.group(2))
            continue
        m = LINE_RE.match(line)
        if not m:
            raise RecordError(f"line {lineno}: not a header or a numbered turn: {line[:60]!r}")
        yield lineno, int(m.group(1)), m.group(2)


def split_move(lineno: int, part: str) -> tuple[str, str | None, str | None]:
    """One move's text as (notation, by tag or None, outcomes text or None)."""
    mm = MOVE_RE.match(part.strip())
    move, by, outcomes = mm.group(1).strip(), mm.group(2), mm.group(3)
    if not move:
        raise RecordError(f"line {lineno}: empty move")
    return move, by, outcomes


def game_started(headers: dict[str, str], **extra) -> dict:
    """The GameStarted event a record's headers describe."""
    try:
        return {"type": "GameStarted", **extra, "players": int(headers["Players"]),
                "options": json.loads(headers.get("Options") or "{}"), "rules": headers.get("Rules", ""),
                "chance": json.loads(headers["Setup"])}
    except (KeyError, ValueError) as e:
        raise RecordError(f"record headers are incomplete: {e}") from None
