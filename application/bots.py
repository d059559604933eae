"""Bot accounts (docs/bots.md): anyone may register a program that plays seats of games.

A bot account has an id, a name and an owner's email. Its token is returned once, at
registration, and stored only as its SHA-256 (like a seat token). The token names its account
(``bot.<id>.<secret>``), so checking it is one read of that account's own key; nothing global is
read or written when a bot moves.

| key | type | holds |
|---|---|---|
| ``bot:{<id>}`` | hash | ``name``, ``email`` (the owner), ``token_hash``, ``created`` |

A game seats a registered bot with a seat ``{"kind": "bot", "bot": "<id>"}``; the bot then acts
for that seat with its own token through the ordinary game endpoints. A bot holds at most one
seat of a game (its token must name one seat).
"""
from __future__ import annotations

import hashlib
import re
import secrets
import time

from . import errors
from .store import key as game_key

PREFIX = "bot."
_TOKEN = re.compile(r"^bot\.([0-9a-f]{12})\.([A-Za-z0-9_-]{20,64})$")


def bot_key(bot_id: str) -> str:
    return f"bot:{{{bot_id}}}"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def looks_like_bot_token(token: str) -> bool:
    return token.startswith(PREFIX)


class BotAccounts:
    def __init__(self, client):
        self.r = client

    def register(self, name: str, email: str) -> dict:
        """A new bot account; its token is in this answer only."""
        for _ in range(5):
            bot_id = secrets.token_hex(6)
            token = f"{PREFIX}{bot_id}.{secrets.token_urlsafe(32)}"
            fields = {"name": name, "email": email, "token_hash": _hash(token), "created": int(time.time())}
            if self.r.hsetnx(bot_key(bot_id), "token_hash", fields["token_hash"]):
                self.r.hset(bot_key(bot_id), mapping=fields)
                return {"id": bot_id, "name": name, "token": token}
        raise errors.failed("id-collision", "could not allocate a bot id")  # pragma: no cover

    def get(self, bot_id: str) -> dict | None:
        """The public face of a bot account (id and name), or None."""
        if not isinstance(bot_id, str) or not re.fullmatch(r"[0-9a-f]{12}", bot_id):
            return None
        name = self.r.hget(bot_key(bot_id), "name")
        return {"id": bot_id, "name": name.decode()} if name is not None else None

    def owner(self, bot_id: str) -> str | None:
        email = self.r.hget(bot_key(bot_id), "email")
        return email.decode() if email is not None else None

    def authenticate(self, token: str) -> str | None:
        """The id of the bot account whose token this is, or None."""
        m = _TOKEN.match(token)
        if m is None:
            return None
        stored = self.r.hget(bot_key(m.group(1)), "token_hash")
        if stored is None or not secrets.compare_digest(stored.decode(), _hash(token)):
            return None
        return m.group(1)

    def seated(self, game_id: str, meta: dict) -> None:
        """Note the game's bot seats in its webhook lookup (application/webhooks.py)."""
        ids = [s["bot"] for s in meta["seats"] if s["kind"] == "bot"]
        if ids:
            self.r.sadd(game_key(game_id, "hooks"), *[f"b:{i}" for i in ids])

    def seats(self, seats: list[dict]) -> list[dict]:
        """Check the bot seats of a new game: each names a registered bot, none twice. Each gets
        the bot's name when it has none."""
        out, seen = [], set()
        for s in seats:
            if s.get("kind") == "bot":
                bot = self.get(s.get("bot"))
                if bot is None:
                    raise errors.invalid("unknown-bot", f"no bot account {s.get('bot')!r} (register one: POST /api/v1/bots)")
                if bot["id"] in seen:
                    raise errors.invalid("bad-seats", f"bot {bot['id']} may hold only one seat of a game")
                seen.add(bot["id"])
                s = {**s, "name": s.get("name") or bot["name"], "email": None}
            out.append(s)
        return out
