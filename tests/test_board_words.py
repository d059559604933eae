"""The board pictures in the reader's language (issue 53, docs/i18n.md "The boards"): Carcassonne's
and The Pillars of the Earth's board pictures (their text, titles and labels) and the turn email's
pictures with their alt texts say the game's words in German and French; random playouts rendered in
the pseudo-locale leave no English in any text node, title, label or alt text; the German and French
Pillars boards keep every word inside the picture and apart from the others; the email's pictures and
the API's board come in the reader's language; English is unchanged (the games' own tests)."""
from __future__ import annotations

import random
import re
from html import unescape

import pytest

import games
from games.base import in_language
from rules_common.glyphs import width
from rules_common.words import PSEUDO
from tests.test_game_words import catalog_problems, leftover
from tests.examples import hosting

BOARD_GAMES = [games.CARCASSONNE, games.PILLARS]   # Tiletum's: tests/test_tiletum_words.py
NAMES = ["Ada", "Bob", "Cid", "Dora", "Eve"]
TEXT = re.compile(r"<text\b([^>]*)>([^<]*)</text>")
WORDS = re.compile(r"<text\b[^>]*>([^<]*)</text>|<title>([^<]*)</title>|\baria-label=\"([^\"]*)\""
                   r"|\bdata-(?:words|full)-\d+=\"([^\"]*)\"")


def picture_words(svg: str) -> list[str]:
    """Every text of a picture a reader meets: its text nodes, titles and labels."""
    return [unescape(next(g for g in m.groups() if g is not None)) for m in WORDS.finditer(svg)]


def read_words(svg: str) -> list[str]:
    """A picture's titles and labels, each, and its text nodes in their order as one text (a message
    wrapped over lines is whole again)."""
    nodes = [unescape(t) for _a, t in TEXT.findall(svg)]
    labels = [w for w in picture_words(svg) if w not in nodes]
    return labels + [" ".join(nodes)]


def playout(game, players: int, seed: str, every: int = 7):
    """The positions of a seeded random playout, one every ``every`` moves and the last."""
    rng = random.Random(seed)
    state, _ = game.new_game(players, seed, {})
    step = 0
    while True:
        if step % every == 0 or game.is_over(state):
            yield state
        if game.is_over(state):
            return
        _, state = game.play(state, game.actor(state), rng.choice(game.legal_moves(state))[0], seed)
        step += 1


def drawn(game, state, players: int, lang: str) -> list[tuple[str, str]]:
    """The game's pictures of ``state`` in ``lang``: (what, SVG or alt text)."""
    said = in_language(game, lang)
    names = NAMES[:players]
    out = [("board", game.board_svg(state, names, **said))]
    for seat in range(players):
        for name, alt, svg in game.email_pictures(state, seat, names, **said):
            out += [(f"{name} alt", alt), (name, svg)]
    return out


@pytest.mark.parametrize("game", BOARD_GAMES, ids=lambda g: g.name)
def test_random_boards_in_the_pseudo_locale_leave_no_english(game):
    found: dict[str, str] = {}
    for players in range(game.min_players, game.max_players + 1):
        for state in playout(game, players, f"board-words-{players}"):
            allowed = {w for m, _ in game.legal_moves(state) for w in m.split()}   # the notation
            for what, text in drawn(game, state, players, PSEUDO):
                texts = [text] if what.endswith("alt") else read_words(text)
                assert texts, what
                for t in texts:
                    for w in leftover(t, allowed):
                        found.setdefault(w, f"{what}: {t}")
    assert found == {}, "English left on the board"
    used = game.say(PSEUDO).used
    for lang in set(game.languages) - {"en"}:
        assert catalog_problems(game, lang, used) == []


def test_the_carcassonne_tiles_sprite_speaks_too():
    from carcassonne.svg import tiles_sprite
    words = picture_words(tiles_sprite(lang=PSEUDO))
    assert len(words) > 100 and all(leftover(w, set()) == [] for w in words)


def test_the_check_finds_a_picture_word_left_in_english():
    svg = ('<svg aria-label="⟦Çàŕçàššöñé⟧"><title>a red knight</title><text x="1">⟦Bàĝ:⟧</text>'
           '<text x="2">3,4</text></svg>')
    said = picture_words(svg)
    assert said == ["⟦Çàŕçàššöñé⟧", "a red knight", "⟦Bàĝ:⟧", "3,4"]
    assert [w for t in said for w in leftover(t, set())] == ["red", "knight"]


# --- German and French, read -------------------------------------------------------------------------

def _late(game, players: int = 2, moves: int = 40, seed: str = "board-read"):
    rng = random.Random(seed)
    state, _ = game.new_game(players, seed, {})
    for _ in range(moves):
        if game.is_over(state):
            break
        _, state = game.play(state, game.actor(state), rng.choice(game.legal_moves(state))[0], seed)
    return state


@pytest.mark.parametrize("lang, words, english", [
    ("de", ["Carcassonne-Spielplan, ", "Plättchen mit einer Stadt", "Seiten: Norden: ",
            "solche Plättchen im Spiel", "Der Spielplan, ", "Plättchen gelegt", "an die gestrichelten Felder",
            "Dein Plättchen: ein Plättchen mit",
            "das Plättchen auf der Hand mit"],
     ["Carcassonne board", "Sides:", "such tile", "The board", "Your tile", "in its four turns"]),
    ("fr", ["Plateau de Carcassonne, ", "Tuile avec une ville", "Côtés : nord : ", "de ce type dans le jeu",
            "Le plateau, ", "tuiles posées", "les cases en pointillés", "Votre tuile : une tuile avec",
            "la tuile en main, avec"],
     ["Carcassonne board", "Sides:", "such tile", "The board", "Your tile", "in its four turns"]),
])
def test_a_carcassonne_board_in_german_and_french(lang, words, english):
    g = games.CARCASSONNE
    state = _late(g, moves=12)
    seat = g.actor(state)
    said = " | ".join(t for _what, svg in drawn(g, state, 2, lang)
                      for t in ([svg] if _what.endswith("alt") else picture_words(svg)))
    assert [w for w in words if w not in said] == [], said
    assert [w for w in english if w in said] == [], said
    assert seat is not None
    from carcassonne.pieces import follower_words
    assert follower_words(0, "knight", "de") == "ein roter Ritter"
    assert follower_words(3, "farmer", "fr") == "un paysan vert"
    assert follower_words(1, "thief") == "a blue thief", "English unchanged"


@pytest.mark.parametrize("lang, words, english", [
    ("de", ["Runde ", " von 6", "Kathedrale:", "Beutel:", "Kostenstein: ", "Ereignis: ", "Markt:",
            "Kartenauslage:", "Handwerker:", "Vorteilskarten:", "Baustoffkarten dieser Runde: ",
            "Bischofssitz",
            "Königshof", "Burg von", "Der Spielplan von The Pillars of the Earth"],
     ["Round", "Cathedral", "Bag", "Cost marker", "Event", "Market", "Card pool", "Craftsmen", "Privileges",
      "Resource cards", "Archbishop", "King's Court", "The board of"]),
    ("fr", ["Manche ", " sur 6", "Cathédrale :", "Sac :", "Marqueur de coût : ", "Événement : ", "Marché :",
            "Cartes disponibles :", "Artisans :", "Privilèges :", "Cartes Ressource de cette manche : ",
            "Archevêché", "Cour du roi", "Château de", "Le plateau de The Pillars of the Earth"],
     ["Round", "Cathedral", "Bag", "Cost marker", "Event", "Market", "Card pool", "Craftsmen", "Privileges",
      "Resource cards", "Archbishop", "King's Court", "The board of"]),
])
def test_a_pillars_board_in_german_and_french(lang, words, english):
    g = games.PILLARS
    state = _late(g, moves=3)
    said = " | ".join(t for _what, svg in drawn(g, state, 2, lang)
                      for t in ([svg] if _what.endswith("alt") else picture_words(svg)))
    assert [w for w in words if w not in said] == [], said
    assert [w for w in english if w in said] == [], said


# --- the layout in each language ---------------------------------------------------------------------

def _attr(attrs: str, name: str, default: str = "") -> str:
    m = re.search(rf'\s{name}="([^"]*)"', attrs)
    return m.group(1) if m else default


def text_boxes(svg: str) -> list[tuple[str, float, float, float, float]]:
    """Each text node's box, measured in DejaVu Sans (rules_common/glyphs.py): ascending 0.8 of its
    size and descending 0.25, as a renderer lays it out."""
    out = []
    for attrs, raw in TEXT.findall(svg):
        text, size = unescape(raw), float(_attr(attrs, "font-size", "16"))
        wide = width(text, size, _attr(attrs, "font-weight") == "bold")
        x, y = float(_attr(attrs, "x")), float(_attr(attrs, "y"))
        left = x - {"middle": wide / 2, "end": wide}.get(_attr(attrs, "text-anchor", "start"), 0)
        out.append((text, left, y - 0.8 * size, left + wide, y + 0.25 * size))
    return out


def layout_problems(svg: str) -> list[str]:
    """A word past the picture's edge, or two words on each other."""
    view = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    found = text_boxes(svg)
    problems = [f"{t!r} runs past the edge" for t, left, top, right, bottom in found
                if left < view[0] - 0.5 or right > view[0] + view[2] + 0.5]
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5:
                problems.append(f"{a[0]!r} overlaps {b[0]!r}")
    return problems


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_every_word_of_a_pillars_board_fits_in_each_language(lang):
    """German and French words are longer: each label is placed by its width, so none runs past the
    picture's edge or onto another, on random boards of every player count (long names included)."""
    g = games.PILLARS
    found: dict[str, str] = {}
    for players in range(g.min_players, g.max_players + 1):
        names = ["Maximiliane von Habsburg-Lothringen", "Bob", "Cid", "Dora"][:players]
        for state in playout(g, players, f"board-fit-{players}", every=5):
            for p in layout_problems(g.board_svg(state, names, **in_language(g, lang))):
                found.setdefault(p, f"{players} players, round {state.round}, {state.phase}")
    assert found == {}


def test_the_layout_check_finds_an_overlap_and_a_word_past_the_edge():
    svg = ('<svg viewBox="0 0 100 50"><text x="10" y="20" font-size="13">Kartenauslage:</text>'
           '<text x="60" y="20" font-size="13">leer</text></svg>')
    assert layout_problems(svg) == ["'Kartenauslage:' runs past the edge",
                                    "'Kartenauslage:' overlaps 'leer'"]


# --- the paths that draw a board for a reader ----------------------------------------------------------

def test_the_api_board_takes_the_asked_language_then_the_browsers(client):
    created = client.post("/api/v1/games", json={"game": "pillars", "options": {"seed": "board-lang"},
                                                  "seats": [{"name": "Ann"}, {"name": "Bob"}]}).get_json()
    url = f"/api/v1/games/{created['id']}/board.svg"
    english = client.get(url)
    assert english.status_code == 200 and "Round 1 of 6" in english.text
    assert english.headers["ETag"] == '"v1"' and english.headers["Content-Language"] == "en"
    german = client.get(url + "?lang=de")
    assert "Runde 1 von 6" in german.text and "Round 1 of 6" not in german.text
    assert german.headers["Content-Language"] == "de" and german.headers["ETag"] == '"v1-de"'
    assert "Accept-Language" in german.headers["Vary"]
    french = client.get(url, headers={"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.8"})
    assert "Manche 1 sur 6" in french.text and french.headers["Content-Language"] == "fr"
    asked = client.get(url + "?lang=de", headers={"Accept-Language": "fr"})
    assert "Runde 1 von 6" in asked.text, "?lang= before the browser's"
    unknown = client.get(url + "?lang=pl", headers={"Accept-Language": "fr"})
    assert "Manche 1 sur 6" in unknown.text, "a language the service lacks: the browser's"
    assert "⟦" in client.get(url + "?lang=en-XA").text, "the pseudo-locale in an app under test"
    png = client.get(f"/api/v1/games/{created['id']}/board.png?lang=fr")
    if png.status_code == 200:   # (a host without a PNG renderer answers with the SVG's address)
        assert png.headers["ETag"] == '"v1-fr"' and png.headers["Content-Language"] == "fr"
        assert png.data != client.get(f"/api/v1/games/{created['id']}/board.png").data
    else:
        assert png.status_code == 302 and "lang=fr" in png.headers["Location"]
    # a game that speaks only English draws as it always did, in any language
    tiletum = client.post("/api/v1/games", json={"seats": [{"name": "Ann"}, {"name": "Bob"}],
                                                 "options": {"seed": "board-lang"}}).get_json()
    turl = f"/api/v1/games/{tiletum['id']}/board.svg"
    if len(games.get("tiletum").languages) == 1:
        assert client.get(turl + "?lang=de").text == client.get(turl).text


class _Transport:
    def __init__(self):
        self.sent = []

    def send(self, msg):
        self.sent.append(msg)


@pytest.mark.parametrize("game, lang, alt, english", [
    ("carcassonne", "de", "Der Spielplan, ", "The board, "),
    ("carcassonne", "fr", "Le plateau, ", "The board, "),
    ("pillars", "de", "Der Spielplan von The Pillars of the Earth", "The board of"),
    ("pillars", "fr", "Le plateau de The Pillars of the Earth", "The board of"),
    ("tiletum", "de", "Der Tiletum-Tisch, Runde 1, Phase: Aktion", "The Tiletum table"),
    ("tiletum", "fr", "La table de Tiletum, manche 1, phase : action", "The Tiletum table"),
])
def test_the_turn_emails_pictures_and_their_alt_texts_speak_the_recipients_language(redis_client, game, lang,
                                                                                    alt, english):
    from application.game_service import GameService
    from application.notifications import set_language
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox

    ada, bob = f"ada-b-{game}-{lang}@words.test", f"bob-b-{game}-{lang}@words.test"
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
    notifier = Notifier(svc, Outbox(redis_client, _Transport()), cfg)
    set_language(redis_client, bob, lang)
    try:
        g = svc.create_game([{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
                            {"seed": f"alt-{game}-{lang}"}, game=game)
        gid, tokens = g["id"], [s["token"] for s in g["seats"]]
        meta, state = svc.load(gid)
        rules = games.of_meta(meta)
        svc.submit(gid, tokens[0], state.version, [rules.legal_moves(state)[0][0]])
        meta, state = svc.load(gid)
        pictures = notifier.pictures(gid, meta, state, 1, lang=lang)
        english_pictures = notifier.pictures(gid, meta, state, 1)
        if not pictures:
            pytest.skip("no PNG renderer on this host")
        assert pictures[0].alt.startswith(alt) and all(english not in p.alt for p in pictures)
        assert english_pictures[0].alt.startswith(english), "English unchanged"
        html = next(part.get_payload(decode=True).decode("utf-8") for part in
                    notifier.turn_message(gid, meta, state, 1).walk()
                    if part.get_content_type() == "text/html")
        alts = re.findall(r'<img [^>]*alt="([^"]*)"([^>]*)>', html)
        assert any(unescape(a).startswith(alt) for a, _rest in alts), html
        assert all(english not in a and 'lang="en"' not in rest for a, rest in alts), html
    finally:
        set_language(redis_client, bob, None)


def test_a_game_that_speaks_only_english_has_its_alt_text_marked_english(redis_client):
    """A German recipient of a game whose words are English only (the example game, a third
    party's): its pictures' alt texts are the game's (English), marked ``lang="en"`` so that a
    screen reader says them as English."""
    from application.game_service import GameService
    from application.notifications import set_language
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox

    ada, bob = "ada-alt-en@words.test", "bob-alt-en@words.test"
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
    notifier = Notifier(svc, Outbox(redis_client, _Transport()), cfg)
    for address in (ada, bob):
        set_language(redis_client, address, "de")
    try:
        with hosting("connect-four") as game:
            assert tuple(game.languages or ("en",)) == ("en",)
            g = svc.create_game([{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
                                {}, game="connect-four")
            meta, state = svc.load(g["id"])
            seat = game.actor(state)
            html = next(part.get_payload(decode=True).decode("utf-8") for part in
                        notifier.turn_message(g["id"], meta, state, seat).walk()
                        if part.get_content_type() == "text/html")
            imgs = re.findall(r"<img [^>]*>", html)
            if not imgs:
                pytest.skip("no PNG renderer on this host")
            assert all('lang="en"' in i for i in imgs), imgs
    finally:
        for address in (ada, bob):
            set_language(redis_client, address, None)


def test_the_pillars_position_says_its_round_summary_in_a_language():
    """The page's round summary (the position's ``round_summary``) in the language asked, English as
    it was without one."""
    g = games.PILLARS
    state = next(s for s in playout(g, 2, "summary-lang", every=1) if s.round == 2 and s.round_end)
    english = g.position(state, 0)["round_summary"]
    assert english == g.position(state, 0, lang="en")["round_summary"]
    pseudo = g.position(state, 0, **in_language(g, PSEUDO))["round_summary"]
    lines = [line for seat in pseudo["seats"] for line in seat["lines"]]
    assert lines and all(leftover(line, set()) == [] for line in lines), lines
    assert pseudo["seats"][0]["vp"] == english["seats"][0]["vp"]
    german = g.position(state, 0, lang="de")["round_summary"]
    assert german != english and german["round"] == english["round"] == 1
