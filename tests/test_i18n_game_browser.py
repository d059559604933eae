"""Every word on each game's page is a message of a catalog (issue 53: "no untranslated message"):
headless Chromium against the app over real HTTP, a two-seat game mid-way (tests/test_phone_browser.py's
seeded playouts), opened as the seat to move in the pseudo-locale (``?lang=en-XA``: every catalog
message, the platform's and the game's, comes out as ``⟦Ŵöŕðš⟧``): what is left once the messages are
taken out is players' names, numbers, notation (``<code>``, ``.notation``) and the brand. The
scripts' texts and the API's (the moves' words, the history, the board) included.

Each page in German and French at 390x844 and 1366x900 (the text in the language, no text under
12 px, nothing clipped, the decision in the first screen) is tests/test_phone_browser.py's.

TABLEPOST_SKIP_BROWSER=1 (or no Chromium) skips it, like tests/test_browser.py."""
from __future__ import annotations

import re

import pytest

from tests.browser import require_browser, screenshot, wait_until

require_browser()

from tests.conftest import LiveServer, make_app  # noqa: E402
from tests.test_phone_browser import MOVES, _game  # noqa: E402

GAMES = ["tiletum", "carcassonne", "pillars"]
NAMES = ("Ada", "Bob")


# The visible text outside the messages, in the pseudo-locale: each element's own text nodes, less
# what a reader sees that is not a message (notation, the brand, a language's own name).
OWN_TEXT = """() => {
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("script, style, title, code, .notation, [translate=no], #sprite, defs, symbol, "
                   + "footer .langs, [lang]:not(html)")) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === "hidden") continue;
    for (const n of el.childNodes)
      if (n.nodeType === 3 && n.textContent.trim()) out.push(n.textContent.trim());
  }
  return out;
}"""


def outside(text: str) -> str:
    """What of a text node is outside the pseudo-locale's messages (``⟦...⟧``, nested: a message's
    values may be messages). A node may hold a part of a message that a link splits: its text after
    an unclosed ``⟦`` is inside, and so is its text before a ``⟧`` opened in an earlier node."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "⟦":
            depth += 1
        elif ch == "⟧":
            if depth:
                depth -= 1
            else:
                out.clear()
            out.append(" ")
        elif not depth:
            out.append(ch)
    return "".join(out)


def not_a_message(texts: list[str]) -> list[str]:
    """The texts with words left once the pseudo-locale's messages (``⟦...⟧``), players' names and
    numbers are taken out."""
    left = []
    for text in texts:
        rest = outside(text)
        for name in NAMES:
            rest = rest.replace(name, " ")
        if re.search(r"[A-Za-z]{3,}", rest):
            left.append(text)
    return left


def _open(browser, server, gid, token, lang, width, height):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}/play/{gid}?lang={lang}#token={token}&stream=0")
    wait_until(page, "document.body.dataset.version && !document.querySelector('main.loading')")
    page.wait_for_timeout(300)   # the board's first scroll and zoom; the moves' list
    return page, errors


def test_the_check_finds_words_outside_the_messages():
    assert not_a_message(["⟦Ţhé ⟦ýéllöw⟧ 4 dîçé⟧ Ada 3", "öf farin/JCloisterZone.⟧", "⟦Šéé ţhé",
                          "12 · 3"]) == []
    english = ["⟦Ţhé⟧ board ⟦ýéllöw⟧", "Round 2", "⟦À ⟦b⟧ ç⟧ left"]
    assert not_a_message(english) == english


@pytest.mark.parametrize("game", GAMES)
def test_every_word_on_the_game_page_is_a_message(redis_server, browser, game):
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    gid, tokens, actor = _game(c, game, MOVES[game], names=NAMES)
    with LiveServer(app) as server:
        page, errors = _open(browser, server, gid, tokens[actor], "en-XA", 1366, 900)
        screenshot(page, f"lang-{game}-pseudo.png")
        left = not_a_message(page.evaluate(OWN_TEXT))
        assert not left, f"{game}: text outside the catalogs: {left[:20]}"
        assert not errors, errors
