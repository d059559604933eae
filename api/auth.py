"""Who a request says it is: its Bearer token (a seat's token, a dashboard key, a bot account's or the
service's credentials; application/seat_auth.py says whose it is) and the security requirements the
operations document with it: the resources that take a seat's or a player's token read it here."""
from __future__ import annotations

import re

import flask

from tablepost.i18n import said

from .problems import ApiError

SEAT: list[dict[str, list[str]]] = [{"seatToken": []}]
OPTIONAL_SEAT: list[dict[str, list[str]]] = [{"seatToken": []}, {}]

_PRINTABLE_ASCII = re.compile(r"^[\x21-\x7e]+$")


def bearer(what: str = "seat token") -> str | None:
    """The Bearer token of the request, if any (``what`` names it in the 401 for a bad header)."""
    auth = flask.request.headers.get("Authorization")
    if auth is None:
        return None
    scheme, _, token = auth.partition(" ")
    # Every credential of this service is printable ASCII; anything else is no credential (and
    # must not reach a comparison that refuses non-ASCII text).
    if scheme.lower() != "bearer" or not token.strip() or not _PRINTABLE_ASCII.match(token.strip()):
        raise ApiError(401, "unauthorized", said("use 'Authorization: Bearer <{what}>'", what=what),
                       headers={"WWW-Authenticate": 'Bearer realm="tablepost"'})
    return token.strip()
