"""Moves and their one-line text notation. Grammar: docs/pillars.md, "Notation".

A move is a verb and its words::

    take wood3                     phase I: a resource card (its workers go to the forest)
    take C05                       phase I: a craftsman card, paid in gold
    take C05 discard SC0           ... and one of your five craftsmen leaves the game for him
    take C05 discard C05           ... paid for and discarded at once (to keep him from others)
    pass                           phase I: take no more cards; phase II: pass a drawn builder;
                                   the market: leave it
    redraw / keep                  phase II: the start player puts the drawn builder back (or not)
    place priory                   phase II: the drawn (or passed) master builder on a field
    place kingsbridge P05          ... Kingsbridge and Shiring name the card the spot goes with
    protect / collect stone        the Archbishop: immunity from the event, or a cube from the market
    privilege P04 / decline        use a once-only privilege now, or keep it
    discard C07                    a craftsman leaves the game (an event; more than five)
    buy wood 2 / sell metal 1      the market
    use C12 2 / done               the Cathedral: a craftsman works twice; no more conversions
    drop sand                      one cube over the carry-over limit goes back to the board

``str(move)`` is the canonical text and ``parse(str(move)) == move``. Parsing is tolerant of case
and spacing; numbers are ASCII digits.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from rules_common.errors import Reason

from .errors import NotationError

RESOURCES = ("stone", "wood", "sand", "metal")
FIELDS = ("archbishop", "kingsbridge", "priory", "king", "shiring", "castle", "market", "cathedral")
BARE = ("pass", "keep", "redraw", "protect", "decline", "done")
_CARD = re.compile(r"^(?:c\d\d|mm\d|ww\d|sc\d)$", re.ASCII)
_RESCARD = re.compile(r"^(?:stone|wood|sand)[234]$", re.ASCII)
_PRIV = re.compile(r"^p\d\d$", re.ASCII)
_NUM = re.compile(r"^[1-9]\d?$", re.ASCII)


class Move(NamedTuple):
    """A verb and its words, e.g. ``Move("buy", ("wood", "2"))``."""

    verb: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return " ".join((self.verb,) + self.args)

    @property
    def n(self) -> int:
        """The count of a ``buy``, ``sell`` or ``use``."""
        return int(self.args[-1])


def _card(tok: str, text: str) -> str:
    if not _CARD.match(tok):
        raise NotationError(
            Reason(
                "{text}: {token} is not a craftsman card (C01-C24, MM0-3, WW0-3, SC0-3)",
                text=repr(text),
                token=repr(tok),
            )
        )
    return tok.upper()


def _res(tok: str, text: str, metal: bool = True) -> str:
    if tok not in RESOURCES or (tok == "metal" and not metal):
        raise NotationError(
            Reason(
                "{text}: {token} is not a resource ({resources})",
                text=repr(text),
                token=repr(tok),
                resources=", ".join(RESOURCES[: 4 if metal else 3]),
            )
        )
    return tok


def _num(tok: str, text: str) -> str:
    if not _NUM.match(tok):
        raise NotationError(
            Reason("{text}: {token} is not a count from 1 to 99", text=repr(text), token=repr(tok))
        )
    return str(int(tok))


def parse(text: str) -> Move:
    """The move a text means; raises :class:`NotationError` if it is not one."""
    if not isinstance(text, str):
        raise NotationError(Reason("a move is a string"))
    words = text.strip().lower().split()
    if not words:
        raise NotationError(Reason("empty move"))
    if len(text) > 80:
        raise NotationError(Reason("a move is at most 80 characters"))
    verb, rest = words[0], words[1:]
    n = len(rest)
    if verb in BARE:
        if n:
            raise NotationError(
                Reason("{text}: '{verb}' takes no words after it", text=repr(text), verb=verb)
            )
        return Move(verb)
    if verb == "take":
        if n == 1 and _RESCARD.match(rest[0]):
            return Move("take", (rest[0],))
        if n == 1:
            return Move("take", (_card(rest[0], text),))
        if n == 3 and rest[1] == "discard":
            return Move("take", (_card(rest[0], text), "discard", _card(rest[2], text)))
        raise NotationError(
            Reason(
                "{text}: 'take' a resource card (wood3) or a craftsman (C05 [discard SC0])", text=repr(text)
            )
        )
    if verb == "place":
        if n in (1, 2) and rest[0] in FIELDS:
            if rest[0] == "kingsbridge":
                if n != 2 or not _PRIV.match(rest[1]):
                    raise NotationError(
                        Reason("{text}: 'place kingsbridge' names the privilege card (P05)", text=repr(text))
                    )
                return Move("place", ("kingsbridge", rest[1].upper()))
            if rest[0] == "shiring":
                if n != 2:
                    raise NotationError(
                        Reason("{text}: 'place shiring' names the craftsman card (C05)", text=repr(text))
                    )
                return Move("place", ("shiring", _card(rest[1], text)))
            if n == 1:
                return Move("place", (rest[0],))
        raise NotationError(
            Reason("{text}: 'place' on a field: {fields}", text=repr(text), fields=", ".join(FIELDS))
        )
    if verb == "collect" and n == 1:
        return Move("collect", (_res(rest[0], text, metal=False),))
    if verb == "privilege" and n == 1 and _PRIV.match(rest[0]):
        return Move("privilege", (rest[0].upper(),))
    if verb == "discard" and n == 1:
        return Move("discard", (_card(rest[0], text),))
    if verb in ("buy", "sell") and n == 2:
        return Move(verb, (_res(rest[0], text, metal=verb == "sell"), _num(rest[1], text)))
    if verb == "use" and n == 2:
        return Move("use", (_card(rest[0], text), _num(rest[1], text)))
    if verb == "drop" and n == 1:
        return Move("drop", (_res(rest[0], text),))
    raise NotationError(Reason("{text} is not a move", text=repr(text)))
