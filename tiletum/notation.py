"""Moves and their text notation. Grammar: ``docs/tiletum-notation.md``.

A :class:`Move` is a small frozen value: a verb and canonical arguments. ``str(move)`` is its
canonical notation and ``parse(str(move)) == move``. Parsing is tolerant of case, extra spaces
and accents in town names (``merchant köln``, ``MERCHANT  Koeln`` and ``merchant koeln`` are the
same move).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .components import BASIC_ACTIONS, LETTER_RES, RES_LETTER, components, fold
from .errors import NotationError, Reason

DIE_RE = re.compile(r"^([GFWSI])([1-6])(?:>([1-6]))?$")
ROOM_RE = re.compile(r"^([1-6])[./]([1-3])$")


@dataclass(frozen=True, slots=True)
class Move:
    verb: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return " ".join((self.verb, *self.args)) if self.args else self.verb

    # Convenient typed views of the arguments -------------------------------------------
    @property
    def town(self) -> str | None:
        """For ``house``: the town named (a Crest's "anywhere" placement), or None."""
        return next((a for a in self.args if not a.isdigit()), None)

    @property
    def space(self) -> int | None:
        """For ``house``: the House space chosen (1-based, printed order), or None."""
        return next((int(a) for a in self.args if a.isdigit()), None)

    @property
    def die(self) -> tuple[str, int, int]:
        """For ``take``: (resource letter, rolled value, value taken after shifting)."""
        return _die(self.args[0])


_DICE: dict[str, tuple[str, int, int]] = {}


def _die(text: str) -> tuple[str, int, int]:
    d = _DICE.get(text)
    if d is None:
        m = DIE_RE.match(text)
        assert m is not None
        value = int(m.group(2))
        d = _DICE[text] = (m.group(1), value, int(m.group(3) or value))  # at most 5 x 6 x 6 entries
    return d


# verb -> tuple of argument kinds; a kind ending in '?' is optional (only last)
GRAMMAR: dict[str, tuple[str, ...]] = {
    "take": ("die",),
    "action": ("action",),
    "tile": ("tile",),
    "skip": (),
    "merchant": ("spot",),
    "architect": ("spot",),
    "house": ("town?", "space?"),  # either or both: "house", "house 2", "house Paris", "house Paris 2"
    "pillar": ("town?",),
    "char": ("slot",),
    "discard": (),
    "place": ("tile", "room?"),
    "contract": ("slot",),
    "exchange": ("res", "res"),
    "king": (),
    "buy": ("res",),
    "fulfil": ("tile", "res?"),
    "crest": ("tile", "space"),
    "cathedral": ("town",),
    "use": ("tile",),
    "gain": ("res",),
    "building": ("space",),
    "bonus": ("tile",),
    "end": (),
    "undo": (),
}
ALIASES = {"fulfill": "fulfil", "character": "char", "hire": "char", "pass": "skip"}


def _arg(kind: str, token: str, text: str) -> str:
    c = components()
    if kind == "die":
        t = token.upper().replace(" ", "")
        m = DIE_RE.match(t)
        if not m:
            raise NotationError(Reason("{text}: a die is a resource letter and a value, e.g. G4 or G4>2",
                                       text=repr(text)))
        if m.group(3) == m.group(2):  # "G4>4" is just "G4"
            return t[:2]
        return t
    if kind == "action":
        a = fold(token)
        if a not in BASIC_ACTIONS:
            raise NotationError(Reason("{text}: unknown action {token} (one of {actions})", text=repr(text),
                                       token=repr(token), actions=", ".join(BASIC_ACTIONS)))
        return a
    if kind == "tile":
        tid = c.tile_id(token)
        if tid is None:
            raise NotationError(Reason("{text}: unknown tile {token}", text=repr(text), token=repr(token)))
        return tid
    if kind in ("spot", "town"):
        s = c.spot(token)
        if s is None:
            raise NotationError(Reason("{text}: unknown place {token}", text=repr(text), token=repr(token)))
        if kind == "town" and not c.is_town(s):
            raise NotationError(Reason("{text}: {spot} is a road space, not a town", text=repr(text), spot=s))
        return s
    if kind == "res":
        t = token.strip()
        letter = t.upper() if t.upper() in LETTER_RES else RES_LETTER.get(fold(t))
        if letter is None:
            raise NotationError(Reason("{text}: unknown resource {token} (G, F, W, S or I)", text=repr(text),
                                       token=repr(token)))
        return letter
    if kind == "slot":
        if token not in {"1", "2", "3", "4", "5"}:
            raise NotationError(Reason("{text}: an offer slot is 1 to 5", text=repr(text)))
        return token
    if kind == "space":
        if token not in {"1", "2", "3", "4", "5", "6"}:
            raise NotationError(Reason("{text}: a Building, Crest or House space is 1 to 6", text=repr(text)))
        return token
    if kind == "room":
        m = ROOM_RE.match(token)
        if not m:
            raise NotationError(Reason("{text}: a Room is building.floor, e.g. 1.2", text=repr(text)))
        return f"{m.group(1)}.{m.group(2)}"
    raise AssertionError(kind)


def parse(text: str) -> Move:
    """Parse one move. Raises :class:`NotationError` with a one-line reason."""
    if not isinstance(text, str):
        raise NotationError(Reason("a move is a string"))
    tokens = text.strip().split()
    if not tokens:
        raise NotationError(Reason("empty move"))
    verb = tokens[0].lower()
    verb = ALIASES.get(verb, verb)
    if verb not in GRAMMAR:
        raise NotationError(Reason("{text}: unknown verb {verb}", text=repr(text), verb=repr(tokens[0])))
    kinds = GRAMMAR[verb]
    rest = tokens[1:]
    if verb == "take" and rest:  # tolerate "take g4 > 2"
        rest = ["".join(rest)]
    if verb == "house" and len(rest) == 1 and rest[0].isdigit():  # "house 2": the space alone
        kinds = ("space?",)
    required = [k for k in kinds if not k.endswith("?")]
    if len(rest) < len(required) or len(rest) > len(kinds):
        want = " ".join(f"<{k.rstrip('?')}>" if not k.endswith("?") else f"[<{k[:-1]}>]" for k in kinds)
        raise NotationError(Reason("{text}: usage: {usage}", text=repr(text),
                                   usage=f"{verb} {want}".rstrip()))
    args = tuple(_arg(k.rstrip("?"), tok, text) for k, tok in zip(kinds, rest))
    return Move(verb, args)


def format_move(move: Move) -> str:
    return str(move)


def mv(verb: str, *args: object) -> Move:
    """Build a move from already-canonical parts (internal use)."""
    return Move(verb, tuple(str(a) for a in args))
