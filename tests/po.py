"""What is wrong with a gettext catalog for the messages a code asks of it: the one check of the
platform's catalogs (tests/test_i18n.py) and of each game's (tests/test_game_words.py)."""
from __future__ import annotations

import re
import string
from pathlib import Path

from babel.messages.pofile import read_po

# the markup a page's message may hold (api/page_i18n.py): its translation keeps the same tags
TAG = re.compile(r"</?(?:a|strong|em|b|i|code|span|br)\b[^<>]*>")


def key(message, context=None) -> object:
    """A message as the checks name it: its text (a plural: (singular, plural)), with its context
    as (context, message)."""
    said = message if isinstance(message, str) else tuple(message)
    return (context, said) if context else said


def fields(text: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def problems(po: Path, lang: str, wanted: set) -> list[str]:
    """What is wrong with the catalog ``po`` for the messages ``wanted``: missing, untranslated,
    fuzzy, a plural without each of the language's forms, a placeholder that differs from the
    message's (``{n}`` may be left out of a form: "einmal"), or a page message's tags changed."""
    with open(po, "rb") as fp:
        catalog = read_po(fp, locale=lang)
    held = {key(m.id, m.context): m for m in catalog if m.id}
    out = []
    for k in sorted(wanted, key=str):
        m = held.get(k)
        if m is None:
            out.append(f"{lang}: missing {k!r}")
            continue
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        if m.fuzzy or not all(strings) or (m.pluralizable and len(strings) != catalog.num_plurals):
            out.append(f"{lang}: untranslated or fuzzy {k!r}")
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        want = set().union(*(fields(i) for i in ids)) - {"n"}
        tags = sorted(TAG.findall(ids[0]))
        for s in strings:
            if fields(s) - {"n"} != want:
                out.append(f"{lang}: placeholders of {k!r}: {s!r}")
            if sorted(TAG.findall(s)) != tags:
                out.append(f"{lang}: the tags of {k!r}: {s!r}")
    return out
