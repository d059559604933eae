"""Whether a game is rated: one predicate for the ratings (application/rating_service.py) and for
what a rated game forbids (hints, ``GameService.hint_view``), shown as ``rated`` in the game summary.

A game is rated, from its meta alone, unless it was created with ``options.rated: false``, a bot
account or an AI seat plays in it, its human seats do not each have an email address of their own
(a rating belongs to an address), or it is a game against the game's own automa with its settings
chosen by hand (Tiletum's Cardinalbot with a hand-picked Challenge set) instead of a level. Ratings add
what only the game's end can tell (it finished; the stand-in did not play the human seat of a game
against the automa to the end): :meth:`RatingService.assess`. Tournament games are rated or not by
the same rule (their seats have the entrants' addresses, and ``options.rated`` is the tournament's)."""
from __future__ import annotations

import games


def unrated_reason(meta: dict) -> str | None:
    """Why the game is not rated (a phrase), or None: it is rated when it ends."""
    opts = meta.get("options") or {}
    if opts.get("rated", True) is False:
        return "created unrated"
    seats = meta["seats"]
    if any(s["kind"] == "bot" for s in seats):
        return "a bot account plays a seat"
    if any(s["kind"] == "ai" for s in seats):  # no player to rate
        return "an AI seat plays in it"
    # a former player's seat (an account deleted, application/accounts.py) still counts as its own player
    emails = [(s.get("email") or (f"former:{i}" if s.get("former") else "")).strip().lower()
              for i, s in enumerate(seats) if s["kind"] == "human"]
    if not all(emails) or len(set(emails)) != len(emails):
        return "every human seat needs its own email address"
    automa = games.of_meta(meta).automa
    settings = opts.get(automa.option) if automa is not None else None
    if automa is not None and settings is not None:
        chosen = [o.title for o in automa.settings if settings.get(o.name)]
        if settings.get("level") is None or chosen:
            return (f"games against {automa.title} with {', '.join(chosen) or 'settings'} chosen by hand "
                    "are not rated")
    return None


def is_rated(meta: dict) -> bool:
    return unrated_reason(meta) is None
