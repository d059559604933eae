"""What a seat sets for itself through the game service (application/game_service.py): how its
turn emails come (application/notifications.py) and its vacation (application/deadlines.py)."""
from __future__ import annotations

from . import errors
from .clock import make_clock
from .deadlines import Deadlines
from .notifications import delay_minutes, set_delay_minutes, set_preference
from .seat_auth import SeatAuth


class SeatSettings(SeatAuth):
    """A seat's own settings, by its token."""

    def set_notifications(self, game_id: str, token: str | None, mode: str, delay: int | None = None) -> dict:
        meta = self.meta(game_id)
        seat = self._require_seat(meta, token, game_id)
        email = meta["seats"][seat].get("email")
        if not email:
            raise errors.invalid("no-email", "this seat has no email address")
        if delay is not None:
            set_delay_minutes(self.store.r, email, delay)
        set_preference(self.store.r, email, mode)
        return {"mode": mode, "delay_minutes": delay_minutes(self.store.r, email)}

    def vacation(self, game_id: str, token: str | None, on: bool) -> dict:
        meta = self.meta(game_id)
        seat = self._require_seat(meta, token, game_id)
        try:
            return Deadlines(self, None, make_clock(self.store.r)).vacation(game_id, seat, on)
        except ValueError as e:
            raise errors.invalid("no-vacation-left", e.args[0]) from None
