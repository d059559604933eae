"""Players' names: shown as plain text to other players and strangers (the pages, the lobby, the
emails' text and HTML bodies), so a name that a mail client or a reader would take for a link is
refused where a name is set (a game's seats, a lobby join, a tournament entry, a bot account): one
holding a URL ("https://evil.example", "www.x"), an email address, an IP address, or a domain-like
word (two words joined by a dot, the second starting with a letter: "evil.example", "Dr.Who";
"J.R.R. Tolkien" and "Bot v1.2" are fine). The rule is deliberately stricter than a linkifier's list
of top-level domains (new ones appear, each mail client has its own list): a regular expression
over the NFKC form, with the full stops of other scripts taken for dots, is the whole of it.

``422 name-not-allowed`` (docs/lobby.md, "Names")."""
from __future__ import annotations

import re
import unicodedata

from . import errors

OTHER_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": ".", "\u2024": "."})
LINK_LIKE = re.compile(
    r"[a-z][a-z0-9+.-]*://"                      # a URL with its scheme
    r"|\b(?:www|ftp)\."                          # a web address without one
    r"|\b(?:mailto|javascript|data|tel|file):"   # schemes a reader opens without slashes
    r"|\S@\S"                                    # an email address (or half of one)
    r"|\d{1,3}(?:\.\d{1,3}){3}"                  # an IPv4 address
    r"|[\w-]\.[^\W\d_][\w-]*[^\W_]",             # a domain-like word: "evil.example", "x.co"
    re.IGNORECASE)


def link_like(name: str) -> bool:
    """Whether ``name`` holds something a reader or a mail client would take for a link."""
    return LINK_LIKE.search(unicodedata.normalize("NFKC", name).translate(OTHER_DOTS)) is not None


def check_name(name: str | None, field: str = "name") -> None:
    """Refuse a name that looks like a URL, a domain or an email address (nothing is changed)."""
    if isinstance(name, str) and link_like(name):
        raise errors.invalid("name-not-allowed",
                             errors.said("{field}: a name must not look like a web address, a domain or an "
                                         "email address (other players see it); write 'Dr. Who', with a "
                                         "space, not 'Dr.Who'", field=field))
