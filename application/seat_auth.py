"""Who a token is (the game service's seat authentication, application/game_service.py): the seat a
Bearer token belongs to -- a seat's own token, its link token, the AI's and the Cardinalbot's
credentials, a bot account's token -- and who it proves to be for the rate limits."""
from __future__ import annotations

import secrets

from . import errors, links
from .bots import looks_like_bot_token
from .dashboard import mark_verified
from .game_core import GameCore, token_hash
from .seats import AUTOMA_KINDS, ai_seats


class SeatAuth(GameCore):
    """From a token to a seat of a game (or to a rate-limit identity)."""

    def seat_of(self, meta: dict, token: str | None, game_id: str, actor: int | None = None) -> int | None:
        """The seat a Bearer token belongs to; None for no token; 401 for a wrong one. Besides a
        seat's own token, the seat link token of ``game_id`` (application/links.py) is accepted for a
        human seat. The AI credential acts for the game's AI seats: the seat to act (``actor``)
        if it is one, else the first of them."""
        if token is None:
            return None
        if looks_like_bot_token(token):  # a bot account acts for its own seat of any game
            bot_id = self.bots.authenticate(token)
            if bot_id is None:
                raise errors.unauthorized("this bot token is not valid")
            for i, s in enumerate(meta["seats"]):
                if s["kind"] == "bot" and s.get("bot") == bot_id:
                    return i
            raise errors.forbidden("not-in-this-game", "this bot account holds no seat of this game")
        h = token_hash(token)
        if self.ai_token_hash is not None and secrets.compare_digest(h, self.ai_token_hash):
            seats = sorted(ai_seats(meta))
            if not seats:
                raise errors.forbidden("not-an-ai-seat", "the AI credential acts only for AI seats")
            return actor if actor in seats else seats[0]
        if self.bot_token_hash is not None and secrets.compare_digest(h, self.bot_token_hash):
            for i, s in enumerate(meta["seats"]):
                if s["kind"] in AUTOMA_KINDS:
                    return i
            raise errors.forbidden("not-a-bot-seat",
                                   "the bot credential acts only for the seat of a game's own automa")
        seat = self._seat_by_token(meta, token, h, game_id)
        if seat is None:
            raise errors.unauthorized("this token belongs to no seat of this game")
        return seat

    def _seat_by_token(self, meta: dict, token: str, h: str, game_id: str) -> int | None:
        """The seat whose token (hash ``h``) or link token (human seats) ``token`` is; None."""
        for i, s in enumerate(meta["seats"]):
            if s.get("token_hash") is not None and secrets.compare_digest(s["token_hash"], h):
                return i
        if links.looks_like_seat_token(token):
            seat = links.seat_of_link(self.store.r, game_id, token)
            if seat is not None and seat < len(meta["seats"]) and meta["seats"][seat]["kind"] == "human":
                self._link_used(game_id, meta, seat)
                return seat
        return None

    def _link_used(self, game_id: str, meta: dict, seat: int) -> None:
        """The seat's link from our emails (or its dashboard) was used: its address reads our email
        (application/dashboard.py, "Verified addresses"). Not in a tournament game, whose links its
        tournament page also shows to whoever entered the address. Once per seat and process."""
        email = meta["seats"][seat].get("email")
        if not email or meta.get("tournament") or (game_id, seat) in self._links_seen:
            return
        mark_verified(self.store.r, email)
        if len(self._links_seen) > 4096:
            self._links_seen.clear()
        self._links_seen.add((game_id, seat))

    def identity(self, token: str, game_id: str | None) -> str | None:
        """Who a Bearer token proves to be, for rate limits: ``seat:<game>:<n>`` (a seat's token
        or link token in ``game_id``), ``bot:<game>`` (the bot credential in a game; ``bot``
        elsewhere), ``player:<id>`` (a dashboard key); None when it proves nothing (unknown,
        invalid, or a kind not checked here), so that junk never earns a budget of its own.
        Never raises. A seat proven once is remembered by this process (``IdentityCache``), so a
        player's requests do not each pay a read of the game's meta for the rate limit; a token
        revoked since still fails its authentication, it only keeps counting against the seat."""
        try:
            if looks_like_bot_token(token):  # a bot account: one budget over all its games
                bot_id = self.bots.authenticate(token)
                return f"botaccount:{bot_id}" if bot_id else None
            h = token_hash(token)
            if self.bot_token_hash is not None and secrets.compare_digest(h, self.bot_token_hash):
                return f"bot:{game_id}" if game_id else "bot"
            if self.ai_token_hash is not None and secrets.compare_digest(h, self.ai_token_hash):
                return f"ai:{game_id}" if game_id else "ai"
            if links.looks_like_dashboard_key(token):
                pid = links.player_of_key(self.store.r, token)
                return f"player:{pid}" if pid else None
            if not game_id:
                return None
            known = self.identities.get((h, game_id))
            if known is not None:
                return known
            meta = self.store.meta(game_id)
            seat = self._seat_by_token(meta, token, h, game_id) if meta is not None else None
            if seat is None:
                return None
            self.identities.put((h, game_id), f"seat:{game_id}:{seat}")
            return f"seat:{game_id}:{seat}"
        except Exception:  # a rate-limit key is never worth an error
            return None

    def _require_seat(self, meta: dict, token: str | None, game_id: str, actor: int | None = None) -> int:
        seat = self.seat_of(meta, token, game_id, actor)
        if seat is None:
            raise errors.unauthorized()
        return seat
