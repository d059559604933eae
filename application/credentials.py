"""Revoking and re-issuing credentials one at a time (issue 13, docs/pbem.md "Leaked a link?").

- A **seat token** (the secret returned once by ``POST /games``; stored only as its SHA-256 in
  the game's meta): the holder of a valid credential of the seat (its token or its link token)
  gets a new one, returned once; the old one stops working at once.
- A **seat link token** (``L<seat>....`` in the links of emails, application/links.py): the holder
  of a valid credential of the seat revokes every link of the seat; the new link goes by email to
  the seat's address only (never in the answer: whoever holds a leaked link cannot keep it).
- A **dashboard key**: its holder revokes it; the new ``/me#key=`` link goes by email.

Each revokes only that credential: the seat's other credential, the other seats' and the
player's other games are untouched. The emails are sent by a worker task, enqueued by name
(``workers.send_seat_link``, ``workers.send_dashboard_link``), like every email.
"""
from __future__ import annotations

import secrets

from . import errors, links
from .dashboard import Dashboard
from .game_service import GameService, token_hash
from .queues import EMAIL

SEAT_LINK_TASK = "workers.send_seat_link"
DASHBOARD_LINK_TASK = "workers.send_dashboard_link"


class Credentials:
    def __init__(self, games: GameService, dashboard: Dashboard, send=None):
        self.games = games
        self.dashboard = dashboard
        self.r = games.store.r
        self.send = send  # Dispatcher.send: enqueue a task by name (None: no broker)

    def _own_human_seat(self, game_id: str, seat: int, token: str | None) -> dict:
        meta = self.games.meta(game_id)
        if token is None:
            raise errors.unauthorized(
                "send the seat's token or its link token as 'Authorization: Bearer <token>'")
        if self.games.seat_of(meta, token, game_id) != seat:
            raise errors.forbidden("not-your-seat", errors.said("this credential is not seat {seat}'s",
                                                                              seat=seat))
        if meta["seats"][seat]["kind"] != "human":
            raise errors.forbidden("not-a-human-seat", errors.said(
                "seat {seat} is not a human seat of this game", seat=seat))
        return meta

    def new_seat_token(self, game_id: str, seat: int, token: str | None) -> dict:
        """A new seat token for ``seat`` (shown once); the old one is refused from now on."""
        self._own_human_seat(game_id, seat, token)
        new = secrets.token_urlsafe(24)

        def change(meta: dict) -> None:
            meta["seats"][seat]["token_hash"] = token_hash(new)
        if self.games.store.update_meta(game_id, change) is None:
            raise errors.not_found()
        return {"game": game_id, "seat": seat, "token": new}

    def new_seat_link(self, game_id: str, seat: int, token: str | None) -> dict:
        """Revoke the seat's link token and email the new link to the seat's address."""
        meta = self._own_human_seat(game_id, seat, token)
        if not meta["seats"][seat].get("email"):
            raise errors.invalid("no-email", "this seat has no email address to send a new link to")
        generation = links.revoke_seat_link(self.r, game_id, seat)
        emailed = self.send is not None and self.send(SEAT_LINK_TASK, [game_id, seat, generation], EMAIL)
        return {"game": game_id, "seat": seat, "emailed": bool(emailed)}

    def new_dashboard_key(self, key: str | None) -> dict:
        """Revoke the dashboard key and email the new dashboard link to the player's address."""
        pid, _email = self.dashboard.player(key)
        generation = links.revoke_dashboard_key(self.r, pid)
        emailed = self.send is not None and self.send(DASHBOARD_LINK_TASK, [pid, generation], EMAIL)
        return {"player": pid, "emailed": bool(emailed)}
