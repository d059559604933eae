"""Bot accounts (docs/bots.md): anyone may register a program that plays seats of games.

A bot account has an id, a name and an owner's email. Two secrets are returned once, at
registration, and stored only as their SHA-256 (like a seat token): the bot's *token*
(``bot.<id>.<secret>``), which the running program plays with, and the *owner key*
(``botowner.<id>.<secret>``), which its owner keeps off the bot's server: it rotates or revokes
the token, deletes the account, and seats the bot in a game. Both name their account, so checking
one is one read of that account's own key; nothing global is read or written when a bot moves.
(An account made before owner keys existed has none: its token serves as its owner key.)

| key | type | holds |
|---|---|---|
| ``bot:{<id>}`` | hash | ``name``, ``email`` (the owner), ``token_hash`` (absent: revoked), ``owner_hash``, ``created``, ``deleted`` |
| ``bot:{<id>}:invitations`` | hash | invitation id -> JSON ``{"status", "created", "game"}`` |

A game seats a registered bot with a seat ``{"kind": "bot", "bot": "<id>"}`` only with its
consent: the seat carries the bot's ``owner_key``, or an ``invitation`` the bot has accepted
(:meth:`BotAccounts.invite`, :meth:`BotAccounts.answer`), used once, by the game created with it.
The bot then acts for that seat with its own token through the ordinary game endpoints. A bot
holds at most one seat of a game (its token must name one seat). A deleted account keeps its
id (a tombstone), so no new account can take over its seats in existing games.
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import hashlib
import json
import re
import secrets
import time

from . import errors
from .names import check_name
from .store import key as game_key

PREFIX = "bot."
OWNER_PREFIX = "botowner."
_TOKEN = re.compile(r"^bot\.([0-9a-f]{12})\.([A-Za-z0-9_-]{20,64})$")
_OWNER_KEY = re.compile(r"^botowner\.([0-9a-f]{12})\.([A-Za-z0-9_-]{20,64})$")
_ID = re.compile(r"[0-9a-f]{12}")
_INVITATION = re.compile(r"[0-9a-f]{32}")
INVITATION_DAYS = 7        # a pending or accepted invitation not used by then is gone
MAX_INVITATIONS = 20       # open (pending or accepted) invitations per bot

# Move an invitation from one status to the next only if it is still in the first: accepting,
# declining and using one are each a single step, so one acceptance seats one game.
TRANSITION = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return nil end
local inv = cjson.decode(raw)
if inv.status ~= ARGV[2] or tonumber(inv.created) + tonumber(ARGV[5]) < tonumber(ARGV[6]) then return nil end
inv.status = ARGV[3]
if ARGV[4] ~= '' then inv.game = ARGV[4] end
raw = cjson.encode(inv)
redis.call('HSET', KEYS[1], ARGV[1], raw)
return raw
"""


def bot_key(bot_id: str) -> str:
    return f"bot:{{{bot_id}}}"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def looks_like_bot_token(token: str) -> bool:
    return token.startswith(PREFIX)


def invitations_key(bot_id: str) -> str:
    return bot_key(bot_id) + ":invitations"


class BotAccounts:
    def __init__(self, client):
        self.r = client
        self._transition = client.register_script(TRANSITION)

    def register(self, name: str, email: str) -> dict:
        """A new bot account; its token and owner key are in this answer only."""
        check_name(name)   # a bot's name is shown at its tables: never a link
        for _ in range(5):
            bot_id = secrets.token_hex(6)
            token = f"{PREFIX}{bot_id}.{secrets.token_urlsafe(32)}"
            owner_key = f"{OWNER_PREFIX}{bot_id}.{secrets.token_urlsafe(32)}"
            fields = {"name": name, "email": email, "token_hash": _hash(token),
                      "owner_hash": _hash(owner_key), "created": int(time.time())}
            if self.r.hsetnx(bot_key(bot_id), "created", fields["created"]):  # a tombstone keeps "created"
                self.r.hset(bot_key(bot_id), mapping=fields)
                return {"id": bot_id, "name": name, "token": token, "owner_key": owner_key}
        raise errors.failed("id-collision", "could not allocate a bot id")  # pragma: no cover

    def get(self, bot_id: str) -> dict | None:
        """The public face of a bot account (id and name), or None (unknown or deleted)."""
        if not isinstance(bot_id, str) or not _ID.fullmatch(bot_id):
            return None
        name = self.r.hget(bot_key(bot_id), "name")
        return {"id": bot_id, "name": name.decode()} if name is not None else None

    # --- the owner ------------------------------------------------------------------------------
    def _is_owner(self, bot_id: str, key: str | None) -> bool:
        if not key or self.get(bot_id) is None:
            return False
        stored, token_hash = self.r.hmget(bot_key(bot_id), "owner_hash", "token_hash")
        if stored is None:  # an account from before owner keys: its token is its owner's key
            return token_hash is not None and secrets.compare_digest(token_hash.decode(), _hash(key))
        m = _OWNER_KEY.match(key)
        return m is not None and m.group(1) == bot_id and secrets.compare_digest(stored.decode(), _hash(key))

    def _owned(self, bot_id: str, key: str | None) -> None:
        """Raise unless ``key`` is the owner key of the existing account ``bot_id``."""
        if self.get(bot_id) is None:
            raise errors.not_found(errors.said("no bot account {id}", id=repr(bot_id)), "bot-not-found")
        if key is None:
            raise errors.unauthorized("send the bot's owner key as 'Authorization: Bearer <owner key>'")
        if not self._is_owner(bot_id, key):
            raise errors.unauthorized("this is not the owner key of this bot account")

    def rotate_token(self, bot_id: str, owner_key: str | None) -> dict:
        """A new token for the bot; the old one stops working at once."""
        self._owned(bot_id, owner_key)
        token = f"{PREFIX}{bot_id}.{secrets.token_urlsafe(32)}"
        self.r.hset(bot_key(bot_id), "token_hash", _hash(token))
        return {**(self.get(bot_id) or {"id": bot_id}), "token": token}

    def revoke_token(self, bot_id: str, owner_key: str | None) -> None:
        """The bot's token stops working; the bot plays again once its owner rotates a new one."""
        self._owned(bot_id, owner_key)
        self.r.hdel(bot_key(bot_id), "token_hash")

    def delete(self, bot_id: str, owner_key: str | None) -> list[str]:
        """Delete the account: its token, name, address and invitations go; its id stays taken (a
        tombstone). Returns the ids of its webhooks, for the caller to delete."""
        self._owned(bot_id, owner_key)
        return self.delete_account(bot_id)

    def delete_account(self, bot_id: str) -> list[str]:
        """:meth:`delete` without the owner's key: for the deletion of the owner's own account."""
        hooks = [s.decode() for s in self.r.smembers(bot_key(bot_id) + ":hooks")]
        pipe = self.r.pipeline(transaction=True)  # one slot: the hash tag {<id>}
        pipe.hdel(bot_key(bot_id), "name", "email", "token_hash", "owner_hash")
        pipe.hset(bot_key(bot_id), "deleted", int(time.time()))
        pipe.delete(invitations_key(bot_id), bot_key(bot_id) + ":hooks")
        pipe.execute()
        return hooks

    # --- invitations: a stranger asks, the bot answers ------------------------------------------
    def _open_invitations(self, bot_id: str, now: float) -> dict[str, dict]:
        """The bot's invitations still open (pending or accepted, not expired); the rest are dropped."""
        out, stale = {}, []
        for inv_id, raw in self.r.hgetall(invitations_key(bot_id)).items():
            inv = json.loads(raw)
            if inv["status"] in ("pending", "accepted") and inv["created"] + INVITATION_DAYS * 86400 >= now:
                out[inv_id.decode()] = inv
            elif inv["created"] + INVITATION_DAYS * 86400 < now:
                stale.append(inv_id)
        if stale:
            self.r.hdel(invitations_key(bot_id), *stale)
        return out

    def _public_invitation(self, bot_id: str, inv_id: str, inv: dict) -> dict:
        return {"id": inv_id, "bot": bot_id, "status": inv["status"], "created": inv["created"],
                "expires": inv["created"] + INVITATION_DAYS * 86400, "game": inv.get("game")}

    def invite(self, bot_id: str) -> dict:
        """Ask bot ``bot_id`` to play a game: a pending invitation, which the bot lists and accepts
        or declines; once accepted, its id seats the bot in one game created with it."""
        if self.get(bot_id) is None:
            raise errors.not_found(errors.said("no bot account {id}", id=repr(bot_id)), "bot-not-found")
        now = int(time.time())
        if len(self._open_invitations(bot_id, now)) >= MAX_INVITATIONS:
            raise errors.invalid("too-many-invitations",
                                 errors.said("bot {id} has {n} open invitations: try again later", id=bot_id,
                                             n=MAX_INVITATIONS))
        inv_id, inv = secrets.token_hex(16), {"status": "pending", "created": now, "game": None}
        self.r.hset(invitations_key(bot_id), inv_id, json.dumps(inv))
        return self._public_invitation(bot_id, inv_id, inv)

    def invitation(self, bot_id: str, inv_id: str) -> dict:
        """An invitation, to whoever knows its id (the inviter, the bot)."""
        raw = (self.r.hget(invitations_key(bot_id), inv_id)
               if isinstance(inv_id, str) and _INVITATION.fullmatch(inv_id) and self.get(bot_id) is not None
               else None)
        if raw is None:
            raise errors.not_found("no such invitation", "invitation-not-found")
        inv = json.loads(raw)
        if (inv["status"] in ("pending", "accepted")
            and inv["created"] + INVITATION_DAYS * 86400 < time.time()):
            inv["status"] = "expired"
        return self._public_invitation(bot_id, inv_id, inv)

    def invitations(self, token: str | None) -> dict:
        """The pending invitations of the bot whose token this is (newest first)."""
        bot_id = self._bot_of(token)
        found = self._open_invitations(bot_id, time.time())
        pending = [self._public_invitation(bot_id, i, v) for i,
                   v in found.items() if v["status"] == "pending"]
        return {"invitations": sorted(pending, key=lambda x: (-x["created"], x["id"]))}

    def answer(self, token: str | None, inv_id: str, accept: bool) -> dict:
        """The bot accepts or declines a pending invitation (an answer is final)."""
        bot_id = self._bot_of(token)
        self.invitation(bot_id, inv_id)  # 404 for an unknown one
        raw = self._transition(keys=[invitations_key(bot_id)], args=[
            inv_id, "pending", "accepted" if accept else "declined", "", INVITATION_DAYS * 86400,
            int(time.time())])
        if raw is None:
            raise errors.invalid("invitation-answered", "this invitation is no longer pending "
                                                        "(answered already, used, or expired)")
        return self._public_invitation(bot_id, inv_id, json.loads(raw))

    def _bot_of(self, token: str | None) -> str:
        if token is None or not looks_like_bot_token(token):
            raise errors.unauthorized("send the bot's token as 'Authorization: Bearer <bot token>'")
        bot_id = self.authenticate(token)
        if bot_id is None:
            raise errors.unauthorized("this bot token is not valid")
        return bot_id

    def claim(self, seats: list[dict]) -> None:
        """Use the accepted invitations that seat bots in a new game (once each): called just
        before the game is written, after every other check passed."""
        for s in seats:
            inv_id = s.get("invitation")
            if s.get("kind") == "bot" and inv_id:
                if self._transition(keys=[invitations_key(s["bot"])], args=[
                        inv_id, "accepted", "used", "", INVITATION_DAYS * 86400, int(time.time())]) is None:
                    raise errors.forbidden("bot-not-consenting", errors.said(
                        "the invitation of bot {id} was used by another game meanwhile", id=s["bot"]))

    def note_game(self, game_id: str, seats: list[dict]) -> None:
        """Write the game into the invitations :meth:`claim` used (their status is final by then)."""
        for s in seats:
            if s.get("kind") == "bot" and s.get("invitation"):
                raw = self.r.hget(invitations_key(s["bot"]), s["invitation"])
                if raw is not None:
                    self.r.hset(invitations_key(s["bot"]), s["invitation"],
                                json.dumps({**json.loads(raw), "game": game_id}))

    def owner(self, bot_id: str) -> str | None:
        email = self.r.hget(bot_key(bot_id), "email")
        return email.decode() if email is not None else None

    def authenticate(self, token: str) -> str | None:
        """The id of the bot account whose token this is, or None."""
        m = _TOKEN.match(token)
        if m is None:
            return None
        stored = self.r.hget(bot_key(m.group(1)), "token_hash")  # absent: revoked, or the account deleted
        if stored is None or not secrets.compare_digest(stored.decode(), _hash(token)):
            return None
        return m.group(1)

    def seated(self, game_id: str, meta: dict) -> None:
        """Note the game's bot seats in its webhook lookup (application/webhooks.py)."""
        ids = [s["bot"] for s in meta["seats"] if s["kind"] == "bot"]
        if ids:
            self.r.sadd(game_key(game_id, "hooks"), *[f"b:{i}" for i in ids])

    def seats(self, seats: list[dict]) -> list[dict]:
        """Check the bot seats of a new game: each names a registered bot, none twice, and carries
        its consent: the bot's ``owner_key``, or an ``invitation`` the bot accepted (used later, by
        :meth:`claim`). Each gets the bot's name when it has none; the owner key is dropped."""
        out, seen = [], set()
        for s in seats:
            if s.get("kind") == "bot":
                bot = self.get(s.get("bot") or "")
                if bot is None:
                    raise errors.invalid("unknown-bot",
                                         errors.said("no bot account {id} (register one: POST /api/v1/bots)",
                                                     id=repr(s.get("bot"))))
                if bot["id"] in seen:
                    raise errors.invalid("bad-seats", errors.said("bot {id} may hold only one seat of a game",
                                                                  id=bot["id"]))
                seen.add(bot["id"])
                owner_key = s.get("owner_key")
                self._consents(bot["id"], owner_key, s.get("invitation"))
                s = {k: v for k, v in s.items() if k != "owner_key"}
                s.update(name=s.get("name") or bot["name"], email=None,
                         invitation=None if owner_key is not None else s.get("invitation"))
            out.append(s)
        return out

    def _consents(self, bot_id: str, owner_key: str | None, inv_id: str | None) -> None:
        if owner_key is not None:
            if not self._is_owner(bot_id, owner_key):
                raise errors.forbidden("bot-not-consenting",
                                       errors.said("this is not the owner key of bot {id}", id=bot_id))
            return
        if inv_id is None:
            raise errors.forbidden("bot-not-consenting", errors.said(
                "bot {id} is seated only by its owner (its 'owner_key') or with an 'invitation' it accepted: "
                "POST /api/v1/bots/{id}/invitations, then wait for the bot to accept it", id=bot_id))
        try:
            status = self.invitation(bot_id, inv_id)["status"]
        except errors.ServiceError:
            status = "unknown"
        if status != "accepted":
            raise errors.forbidden("bot-not-consenting", errors.said(
                "the invitation for bot {id} is {status}, not accepted (each accepted invitation seats one "
                "game)", id=bot_id, status=status))
