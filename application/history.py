"""The event log in words: each event of ``GET /events`` gets a ``text`` (what the move did, in
the position it was played in), for pages and other clients that show a game's history
(:meth:`application.game_service.GameService.events`). Each game says its events in words
(``games.Game.event_texts``); this is Tiletum's, kept under its old name."""
from __future__ import annotations

from games.tiletum import event_texts

__all__ = ["event_texts"]
