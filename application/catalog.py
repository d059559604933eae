"""The games this service hosts, as clients see them (``GET /api/v1/catalog``): every registered game
(``games.GAMES``) with its name and title, its number of seats, the kinds of seat and the options it
takes (each as the game declares it, games/setup.py: the new-game form builds its inputs from them),
its own automa, what it offers (the email channel, the review, AI seats) and its rating pools. The pages build
their lists of games from it, so a game added to the registry appears on them without an edit."""
from __future__ import annotations

import games
from tablepost import i18n

from .rating_service import automa_pool, game_pool


def pools_of(game: games.Game, lang: str | None = None) -> list[dict]:
    """A game's rating pools, each with its name in words (in ``lang``): its multiplayer pool, then one
    per level of its own automa, named by the level's declared title ("Tiletum solo: Cardinal Deacon")."""
    tr, say = i18n.translator(lang), games.declared_words(game, lang)
    titles = {v.name: v.title for v in game.automa.levels} if game.automa is not None else {}
    return ([{"pool": game_pool(game.name), "title": game.title}]
            + [{"pool": automa_pool(game, level),
                "title": tr._("{game} solo: {level}", game=game.title, level=say(titles.get(level, level)))}
               for level in game.automa_levels])


def catalog(lang: str | None = None) -> list[dict]:
    """Every hosted game, in the registry's order (the first is the default of ``POST /games``), its
    declared words (its options', its automa's) in ``lang`` where the game speaks it
    (``games.declared_words``: the game's own catalog; English otherwise), its title too (the title of
    its edition in that language: ``games.title_in``)."""
    return [_entry(g, games.declared_words(g, lang), lang) for g in games.GAMES.values()]


def _entry(g: games.Game, say, lang: str | None) -> dict:
    return {"name": g.name, "title": games.title_in(g, lang),
            "min_players": g.min_players, "max_players": g.max_players,
            "seat_kinds": list(g.seat_kinds), "options": list(g.own_options), "email": g.email,
            "option_specs": [o.as_doc(say) for o in g.options],
            "automa": g.automa.as_doc(g.name, say) if g.automa is not None else None,
            "review": g.review, "ai": "ai" in g.seat_kinds, "automa_levels": list(g.automa_levels),
            "score_unit": g.score_unit, "default": g.name == games.DEFAULT,
            "pools": pools_of(g, lang)}


__all__ = ["catalog", "pools_of"]
