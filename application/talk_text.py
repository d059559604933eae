"""What table talk may carry (issue 51; application/messages.py; docs/pbem.md, "Table talk").

Two rules, each in one place:

* **On posting** (:func:`hide_addresses`, :func:`strip_invisible`, used by
  :func:`application.messages.clean_text`): invisible characters go (zero-width characters, the
  soft hyphen, word joiners, the byte-order mark, bidirectional controls, every other format
  character, control characters), line and paragraph separators become line ends, and an email
  address written in the message is replaced by ``[an address]``: also one written with a
  fullwidth or small ``@`` (NFKC: the address is matched in the message's compatibility form),
  with spaces around the ``@`` and the dots (``bob @ mail . com``), or with ``(at)``/``[at]`` and
  ``(dot)``/``[dot]``. A message in which an address is found is kept in its NFKC form.
* **In an email** (:func:`without_links`, used by every email that shows a message,
  mail/messages.py): a word (text between spaces or line ends) that a reader or a mail client
  could take for a link is replaced by ``[a link was removed]``: a URL (``https://...``,
  ``hxxp://...``), ``www.x.y``, a domain (``evil.example``, ``evil.example/claim``), an address, an
  IP address; matched after NFKC, without invisible characters or combining marks, with the full
  stops of other scripts and the defanged forms (``evil[.]example``, ``evil(dot)example``) read as
  dots. The rule is :data:`application.names.LINK_LIKE`, the players' names' rule. The page keeps
  the words as posted (it shows them as text and makes no link).
"""
from __future__ import annotations

import re
import unicodedata

from .names import LINK_LIKE, OTHER_DOTS

ADDRESS_GONE = "[an address]"
LINK_GONE = "[a link was removed]"

# Characters that show nothing (or reorder what shows), removed from a message: control characters
# but the line end; every format character (Cf in Unicode 14/15: soft hyphen, zero-width characters,
# bidirectional marks, embeddings, overrides and isolates, word joiners and invisible operators, the
# byte-order mark, tags, ...); the other default-ignorable code points but the variation selectors
# (emoji and ideographs need them): the Hangul fillers, the combining grapheme joiner, and the like.
_INVISIBLE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x84\x86-\x9f"
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e00ff\U000e01f0-\U000e0fff]")
_LINE_BREAK = re.compile("\r\n|[\r\x85\u2028\u2029]")

# An email address over a message's NFKC form (other dots are dots). The local part is any run of
# characters an address may be written with; the domain two or more labels, the last
# starting with a letter. Spaces (never a line
# end) may stand around the "@" and around a dot before a lower-case label ("bob @ mail . com"; not
# "I'm @ work. Back soon"); "(at)", "[at]", "{at}", "<at>" stand for "@", and "(dot)" and its kin for
# a dot.
_SP = r"[^\S\n]*"
_DOTCHAR = "[.\u3002]"
_AT = rf"{_SP}(?:@|[(\[{{<]{_SP}(?i:at){_SP}[)\]}}>]){_SP}"
_DOT = (rf"(?:{_DOTCHAR}(?=[^\W_])|{_SP}{_DOTCHAR}{_SP}(?=[a-z0-9])"
        rf"|{_SP}[(\[{{<]{_SP}(?i:dot){_SP}[)\]}}>]{_SP})")
_LABEL = r"[^\W_](?:[\w-]*[^\W_])?"
_LOCAL = r"[^\s@<>()\[\]{}\"',;:]"
# (the look-behind starts a local part only where its run starts: one pass over a long word, not n)
_TOP = r"[^\W\d_](?:[\w-]*[^\W_])?"   # a top-level domain starts with a letter ("3 @ 2.5" is none)
ADDRESS = re.compile(rf"(?<!{_LOCAL}){_LOCAL}++{_AT}{_LABEL}(?:{_DOT}{_LABEL})*?{_DOT}{_TOP}")


def strip_invisible(text: str) -> str:
    """``text`` with its line separators as ``\\n`` and its invisible characters removed."""
    return _INVISIBLE.sub("", _LINE_BREAK.sub("\n", text))


def has_address(text: str) -> bool:
    """Whether ``text`` holds an email address in any of the forms above, as written or after NFKC
    (a fullwidth character may read as part of an address before NFKC and as a stop after it:
    ``：@0(DOT)A``, which Hypothesis found; the text is then kept in its NFKC form)."""
    return (ADDRESS.search(text) is not None
            or ADDRESS.search(unicodedata.normalize("NFKC", text)) is not None)


def hide_addresses(text: str) -> str:
    """``text`` (without invisible characters) with each email address in it replaced by
    :data:`ADDRESS_GONE`: as it was when it holds none, else in its NFKC form."""
    if not has_address(text):
        return text
    text = strip_invisible(unicodedata.normalize("NFKC", text))   # NFKC may make a Hangul filler
    while True:   # each round removes an "@" and adds none: it ends
        done = ADDRESS.sub(ADDRESS_GONE, text)
        if done == text:
            return text
        text = unicodedata.normalize("NFKC", done)


# --- links in emails ---------------------------------------------------------------------------

_DEFANGED = ((re.compile(r"[(\[{<](?:\.|dot)[)\]}>]", re.IGNORECASE), "."),
             (re.compile(r"[(\[{<]:[)\]}>]"), ":"),
             (re.compile(r"[(\[{<](?:@|at)[)\]}>]", re.IGNORECASE), "@"),
             (re.compile(r"h(?:xx|\*\*)p", re.IGNORECASE), "http"))
_HXXP = re.compile(r"h(?:xx|\*\*)ps?(?![a-z])", re.IGNORECASE)   # a defanged scheme, even alone
_MARKS = frozenset(("Mn", "Mc", "Me", "Cf"))
_WORDS = re.compile(r"([ \t\n]+)")
_EDGES = re.compile(r"^([\"'(\[{<«“‘]*)(.*?)([\"')\]}>»”’.,!?;:]*)$", re.DOTALL)


def _skeletons(word: str) -> tuple[str, str]:
    """A word as link detectors may read it: NFKC, no invisible characters, other dots as dots; with
    its combining marks and variation selectors, and without them ("evil\u0301.example")."""
    s = unicodedata.normalize("NFKC", strip_invisible(word)).translate(OTHER_DOTS)
    return s, "".join(c for c in s if unicodedata.category(c) not in _MARKS)


def is_link(word: str) -> bool:
    """Whether a reader or a mail client could take ``word`` (or a part of it) for a link."""
    for skeleton in _skeletons(word):
        if _HXXP.search(skeleton):
            return True
        for pattern, plain in _DEFANGED:   # "evil[.]example" reads "evil.example"
            skeleton = pattern.sub(plain, skeleton)
        if LINK_LIKE.search(skeleton):
            return True
    return False


def without_links(text: str) -> str:
    """A message as an email shows it: no invisible characters, each word that :func:`is_link`
    replaced by :data:`LINK_GONE` (the punctuation around it kept)."""
    out = []
    for part in _WORDS.split(strip_invisible(text)):
        if part and not part.isspace() and is_link(part):
            edges = _EDGES.match(part)
            assert edges is not None   # every group of the pattern may be empty: it matches any word
            lead, core, tail = edges.groups()
            part = f"{lead}{LINK_GONE}{tail}" if core and is_link(core) else LINK_GONE
        out.append(part)
    return "".join(out)
