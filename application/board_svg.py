"""The board picture of any game, for the pages, ``/board.svg`` and the turn emails: each game
draws its own through the game interface (``games.Pictures.board_svg``, with the seats' names;
Tiletum's map is ``tiletum/svg.py``)."""
from __future__ import annotations

import games


def board_picture(meta: dict, state, lang: str | None = None) -> str:
    """The board of the game of ``meta`` at ``state``, with its seats' names, its words in ``lang``
    where the game speaks it (``games.in_language``: else as it always was)."""
    game = games.of_meta(meta)
    return game.board_svg(state, [s["name"] for s in meta["seats"]], **games.in_language(game, lang))


def email_pictures(meta: dict, state, seat: int, since: list[dict] | None = None,
                   lang: str | None = None) -> list[tuple[str, str, str]]:
    """The pictures a turn email carries inline, the board first: (name, alt text, SVG). The
    alt text stands in for the picture where a mail client blocks images. ``since``: the events
    the email tells as what happened since the seat last looked (a game may picture them).
    ``lang``: the recipient's language, for the pictures' words and alt texts where the game
    speaks it."""
    texts = games.email_texts(games.of_meta(meta))
    if texts is None:
        raise ValueError(f"the email channel does not play {games.of_meta(meta).title}")
    return texts.email_pictures(state, seat, [s["name"] for s in meta["seats"]], since=since,
                                **games.in_language(texts, lang))
