"""The ids the service makes for games (and what becomes a game: a waiting game of the lobby, a
rematch's proposal): one alphabet, one length.

An id is 14 characters of lower-case letters and digits without the look-alikes (``0``/``o``,
``1``/``l``): about 70 bits, more than the 72-bit ids of before need, since an id is no secret (a seat
token is). Lower case because the id travels in places that ignore case: email reply addresses
(some mail systems lower-case the local part) and email subjects, where a mixed-case id such as
``abCdeF3gh`` reads to spam filters as an obfuscated word (SpamAssassin's SUBJ_BRKN_WORDNUMS: an
upper-case letter after a few lower-case ones at a word's start, with digits between letters).
Games made before keep their ids; nothing parses an id's shape."""
from __future__ import annotations

import secrets

ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
LENGTH = 14


def new_game_id() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
