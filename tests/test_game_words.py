"""The games' own words in German and French (issue 53, docs/i18n.md "The games' own words"): each
game that speaks more than English has its catalogs, every message of its code translated in each
with the same placeholders; random playouts rendered in the pseudo-locale leave no English in any
event text, move word or email text; English is unchanged (the games' own tests); and a Carcassonne,
Pillars or Tiletum turn email to a German or French player says the game's words in that language."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir

import games
from games.base import in_language, resign_text
from rules_common.words import PSEUDO
from tests import po

ROOT = Path(__file__).resolve().parent.parent
SPEAKING = [g for g in games.GAMES.values() if len(g.languages) > 1]
KEYWORDS = {"_": None, "ngettext": (1, 2), "N_": None, "NC_": ((1, "c"), 2), "NP_": (1, 2),
            "pgettext": ((1, "c"), 2), "Reason": None}


def test_carcassonne_pillars_and_tiletum_speak_german_and_french_and_the_others_stay_english():
    assert {g.name for g in SPEAKING} >= {"carcassonne", "pillars", "tiletum"}
    assert all(set(g.languages) >= {"en", "de", "fr"} and g.catalogs for g in SPEAKING)

    class EnglishOnly:
        languages = ("en",)
    assert in_language(EnglishOnly(), "de") == {}, "a game that speaks only English is called as before"
    carcassonne = games.get("carcassonne")
    assert in_language(carcassonne, "de") == {"lang": "de"} and in_language(carcassonne, "en") == {}
    assert in_language(carcassonne, "pl") == {} and in_language(carcassonne, PSEUDO) == {"lang": PSEUDO}


# --- the catalogs ----------------------------------------------------------------------------------

def game_messages(game) -> set:
    """Every message the game's code marks (its ``translations/babel.cfg``, as ``make messages``
    extracts it): a plural as (singular, plural), a message with a context as (context, message)."""
    folder = Path(game.catalogs[0])
    cfg = (folder / "babel.cfg").read_text()
    method_map = [(p, m) for m, p in re.findall(r"^\[([\w.:]+): (.+)\]$", cfg, re.M)]
    return {po.key(m, c) for _f, _l, m, _c, c in extract_from_dir(str(ROOT), method_map=method_map,
                                                               keywords=KEYWORDS)}


def catalog_problems(game, lang: str, wanted: set) -> list[str]:
    """What is wrong with the game's ``lang`` catalog for the messages ``wanted`` (tests/po.py)."""
    return po.problems(Path(game.catalogs[0]) / f"{lang}.po", lang, wanted)


@pytest.mark.parametrize("game", SPEAKING, ids=lambda g: g.name)
def test_every_message_of_a_game_is_translated_in_each_language(game):
    wanted = game_messages(game)
    assert len(wanted) > 50, "the extraction found the game's messages"
    for lang in set(game.languages) - {"en"}:
        assert catalog_problems(game, lang, wanted) == []


def test_the_catalog_check_fails_on_a_missing_or_different_message():
    game = games.get("carcassonne")
    assert catalog_problems(game, "de", {"closes {nothing}"}) == ["de: missing 'closes {nothing}'"]
    assert catalog_problems(game, "fr", {("side", "up")}) == ["fr: missing ('side', 'up')"]
    assert "{what} and {n} shield" in str(game_messages(game)) and ("side", "north") in game_messages(game)


# --- the pseudo-locale: no English left --------------------------------------------------------------

NAMES = ["Ada", "Bob", "Cid", "Dora", "Eve"]


def leftover(text: str, allowed: set[str]) -> list[str]:
    """The letter words of ``text`` outside the pseudo-locale's ``⟦…⟧`` (innermost first), the players'
    names and ``allowed`` (the notation: what a player types is one language-neutral text)."""
    while True:
        shorter = re.sub(r"⟦[^⟦⟧]*⟧", " ", text)
        if shorter == text:
            break
        text = shorter
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in allowed and w not in NAMES]


def rendered(game, state, events: list[dict], players: int) -> list[str]:
    """Everything the game says of ``state`` in the pseudo-locale, as each method of its words says it."""
    said = in_language(game, PSEUDO)
    names = NAMES[:players]
    seat = game.actor(state)
    out = [game.progress(state, **said)]
    out += [d for _m, d in game.legal_moves(state, **said)]
    out += game.event_texts(events, start=max(0, len(events) - 3), names=names, **said)
    out += game.event_texts(events, start=max(0, len(events) - 3), **said)
    for viewer in range(players):
        out += game.email_position_lines(state, viewer, names, **said)
        out += [d for _m, d in game.email_moves(state, viewer, names, **said)]
        out += game.email_round_end(state, viewer, names, **said)
        if getattr(game, "review", False):
            out.append(game.review_position(state, viewer, **said))
    out += [game.email_what(state, **said), game.email_reply_hint(**said)]
    if seat is not None:
        out.append(game.refusal(state, seat, "xyzzy 1", "⟦…⟧", **said))
    out.append(game.event_text(state, {"type": games.RESIGNED, "seat": 0, "winner": 1}, names, **said))
    return out


@pytest.mark.parametrize("game", SPEAKING, ids=lambda g: g.name)
def test_random_playouts_in_the_pseudo_locale_leave_no_english(game):
    rng = random.Random(53)
    game.say(PSEUDO).used.clear()   # the messages asked from here on (the Words are the process's)
    found: dict[str, str] = {}
    setups = [(players, {}) for players in range(game.min_players, game.max_players + 1)]
    if game.automa is not None:   # a game against its own automa (Tiletum's solo game and its Cardinalbot)
        setups.append((game.automa.seats, {game.automa.option: {"level": game.automa.default_level}}))
    for players, options in setups:
        state, events = game.new_game(players, f"words-{players}-{len(options)}", options)
        events = list(events)
        step = 0
        while True:
            if step % 7 == 0 or game.is_over(state):
                allowed = {w for m, _ in game.legal_moves(state) for w in m.split()}
                for text in rendered(game, state, events, players):
                    for w in leftover(text, allowed):
                        found.setdefault(w, text)
            if game.is_over(state):
                break
            move = rng.choice(game.legal_moves(state))[0]
            evs, state = game.play(state, game.actor(state), move, f"words-{players}-{len(options)}")
            events += evs
            step += 1
        assert game.is_over(state)
    assert found == {}, "English left in the game's words"
    # every message the renderings asked for is in the catalogs, translated
    used = game.say(PSEUDO).used
    assert used, "the pseudo-locale recorded the messages"
    for lang in set(game.languages) - {"en"}:
        assert catalog_problems(game, lang, used) == []


def test_the_check_finds_english_left():
    assert leftover("⟦Ŷöûŕ ţûŕñ⟧ closes Ada's city: place 1,0", {"place"}) == ["closes", "city"]
    assert resign_text({"seat": 0}, ["Ada"]) == "Ada resigned", "English unchanged"


# --- German and French words, read -------------------------------------------------------------------

def test_carcassonne_tiles_and_cells_in_german_and_french():
    from carcassonne.pieces import cell_words, tile_phrase, tile_words
    assert tile_words("D") == "a city on the north side and a road from east to west"
    assert tile_phrase("D", 0, "de") == ("ein Plättchen mit einer Stadt im Norden und einer Straße von Osten "
                                         "nach Westen")
    assert tile_phrase("D", 90, "fr") == ("une tuile avec une ville côté est et une route reliant les côtés "
                                          "nord et sud")
    assert cell_words(2, -1, "de") == "2 östlich und 1 südlich des Startplättchens"
    assert cell_words(-1, 0, "fr") == "1 à l’ouest de la tuile de départ"
    game = games.get("carcassonne")
    state, _ = game.new_game(2, "words", {})
    assert game.progress(state, lang="de").endswith("Plättchen übrig")
    assert game.progress(state, lang="fr").endswith("tuiles restantes")
    assert game.progress(state) == f"{len(state.pile)} tiles left"


def test_a_catalog_not_compiled_is_read_from_its_po(tmp_path):
    from rules_common.words import words
    src = Path(games.get("carcassonne").catalogs[0])
    (tmp_path / "de.po").write_bytes((src / "de.po").read_bytes())
    w = words(str(tmp_path), "carcassonne", "de")
    assert w.lang == "de" and w._("your turn") == "dein Zug"
    assert w.pgettext("side", "north") == "Norden"
    assert w.ngettext("{n} tile left", "{n} tiles left", 3) == "3 Plättchen übrig"
    assert words(str(tmp_path), "carcassonne", "fr").lang == "en", "a language without a catalog is English"


# --- a Carcassonne turn email in German ----------------------------------------------------------------

def _plain(msg) -> str:
    return next(part.get_payload(decode=True).decode("utf-8") for part in msg.walk()
                if part.get_content_type() == "text/plain")


def _speaks(msg, lang: str, words: list[str], english: list[str]) -> None:
    """The email says it is in ``lang``, and its plain text has each of ``words`` and none of
    ``english``."""
    text = _plain(msg)
    assert msg["Content-Language"] == lang
    assert [w for w in words if w not in text] == [], text
    assert [w for w in english if w in text] == [], text


@pytest.fixture()
def mail_in(redis_client):
    """The game service and a notifier whose turn emails are composed, never sent, and ``speaks(address,
    lang)``: the language an address chose for its emails (reset after the test)."""
    from application.game_service import GameService
    from application.notifications import set_language
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox

    class Transport:
        def send(self, msg):
            pass

    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x",
                     pictures=False)
    chosen: list[str] = []

    def speaks(address: str, lang: str) -> None:
        set_language(redis_client, address, lang)
        chosen.append(address)

    yield svc, Notifier(svc, Outbox(redis_client, Transport()), cfg), speaks
    for address in chosen:
        set_language(redis_client, address, None)


@pytest.mark.parametrize("lang, words, english", [
    ("de", ["Dein Plättchen zum Anlegen: ein Plättchen mit", "Deine Punkte: 0; Gefolgsleute im Vorrat: 7.",
            "Die anderen: Ada", "Noch verdeckte Plättchen:", "Das Plättchen allein",
            "Ada legte ein Plättchen mit",
            "des Startplättchens", "Bob zieht ein Plättchen mit", "Es ist dein Zug in Carcassonne",
            "Ein Zug pro Runde:"],
     ["Your tile to place", "The tile alone", "placed a tile", "followers in supply", "One move a turn"]),
    ("fr", ["Votre tuile à poser : une tuile avec", "Les autres : Ada", "La tuile seule",
            "Ada a posé une tuile avec", "de la tuile de départ", "Bob pioche une tuile avec",
            "C’est votre tour dans Carcassonne"],
     ["Your tile to place", "The tile alone", "placed a tile", "followers in supply", "One move a turn"]),
])
def test_a_carcassonne_turn_email_speaks_the_players_language(mail_in, lang, words, english):
    ada, bob = f"ada-{lang}@words.test", f"bob-{lang}@words.test"
    svc, notifier, speaks = mail_in
    speaks(bob, lang)
    g = svc.create_game([{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
                        {"seed": f"words-{lang}"}, game="carcassonne")
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    meta, state = svc.load(gid)
    game = games.of_meta(meta)
    svc.submit(gid, tokens[0], state.version, [game.legal_moves(state)[0][0]])
    meta, state = svc.load(gid)
    msg = notifier.turn_message(gid, meta, state, 1)
    _speaks(msg, lang, words, english)
    # the stored texts stay English: GET /events in English, the email's made from the events
    assert svc.events_after(gid, 1)[0]["text"].startswith("Ada placed a tile with")
    # Ada's English email is as it always was
    english_text = _plain(notifier.turn_message(gid, meta, state, 0))
    assert "Your score: 0 points; followers in supply: 7." in english_text


# --- a Pillars turn email in German and French ----------------------------------------------------------

@pytest.mark.parametrize("lang, words, english", [
    ("de", ["Runde 1 von 6.", "Phase I: Baustoffkarten und Handwerker.", "Du hast 2 SP,", "Deine Handwerker:",
            "Die anderen: Ada", "Die Kartenauslage:", "Ada nimmt", "Es ist dein Zug: eine Baustoffkarte",
            "Auf dem Baustoffmarkt: 4 Stein"],
     ["Your craftsmen", "The card pool", "At the market", "You have", "your turn to", "workers)"]),
    ("fr", ["Manche 1 sur 6.", "Phase I : cartes Ressource et artisans.", "Vous avez 2 PV,", "Vos artisans :",
            "Les autres : Ada", "Les cartes disponibles :", "Ada prend",
            "C’est à vous de prendre une carte Ressource", "Au marché : 4 pierres"],
     ["Your craftsmen", "The card pool", "At the market", "You have", "your turn to", "workers)"]),
])
def test_a_pillars_turn_email_speaks_the_players_language(mail_in, lang, words, english):
    """Bob reads The Pillars of the Earth's own words in his language, Ada's English is unchanged."""
    ada, bob = f"ada-p-{lang}@words.test", f"bob-p-{lang}@words.test"
    svc, notifier, speaks = mail_in
    speaks(bob, lang)
    g = svc.create_game([{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
                        {"seed": f"pwords-{lang}"}, game="pillars")
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    meta, state = svc.load(gid)
    game = games.of_meta(meta)
    assert game.actor(state) == 0, "Ada starts"
    take = next(m for m, _ in game.legal_moves(state) if m.startswith("take"))
    svc.submit(gid, tokens[0], state.version, [take])
    meta, state = svc.load(gid)
    msg = notifier.turn_message(gid, meta, state, 1)
    _speaks(msg, lang, words, english)
    # the stored texts stay English; the English seat's email is as it always was
    assert svc.events_after(gid, 1)[0]["text"].startswith("Ada takes the ")
    english_text = _plain(notifier.turn_message(gid, meta, state, 0))
    assert "Round 1 of 6." in english_text and "Your craftsmen: the " in english_text


# --- a Tiletum turn email in German and French ----------------------------------------------------------

@pytest.mark.parametrize("lang, words, english", [
    ("de", ["Runde 1, Phase: Aktion. Deine Punkte:", "Ressourcen: ",
            "Händler in Tiletum, Architekt in Tiletum", "Lager: leer.", "Punkte der anderen: Ada",
            "Würfel auf dem Aktionsrad:", "Ada nahm den ", "— Nimm den ", "Du kannst mehrere Züge schicken"],
     ["Your score", "Resources:", "Storehouse", "Scores of the others", "Dice on the Action Wheel",
      "Take the ", "You may send several moves"]),
    ("fr", ["Manche 1, phase : action. Votre score :", "Ressources : ",
            "Marchand à Tiletum, Architecte à Tiletum", "Entrepôt : vide.", "Scores des autres : Ada",
            "Dés sur la roue d’actions :", "Ada a pris le ", "— Prenez le ",
            "Vous pouvez envoyer plusieurs coups"],
     ["Your score", "Resources:", "Storehouse", "Scores of the others", "Dice on the Action Wheel",
      "Take the ", "You may send several moves"]),
])
def test_a_tiletum_turn_email_speaks_the_players_language(mail_in, lang, words, english):
    """Bob reads Tiletum's own words in his language after Ada's turn; Ada's English is unchanged."""
    ada, bob = f"ada-t-{lang}@words.test", f"bob-t-{lang}@words.test"
    svc, notifier, speaks = mail_in
    speaks(bob, lang)
    g = svc.create_game([{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
                        {"seed": f"twords-{lang}"}, game="tiletum")
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    meta, state = svc.load(gid)
    game = games.of_meta(meta)
    first = game.actor(state)
    assert [s["name"] for s in meta["seats"]][first] == "Ada", "the seed seats Ada first"
    while game.actor(state) == first:   # Ada's first turn: the first die without a shift, then end
        moves = [m for m, _ in game.legal_moves(state)]
        takes = [m for m in moves if m.startswith("take") and ">" not in m]
        move = takes[0] if takes else "end" if "end" in moves else next(m for m in moves if m != "undo")
        svc.submit(gid, tokens[first], state.version, [move])
        meta, state = svc.load(gid)
    other = game.actor(state)
    msg = notifier.turn_message(gid, meta, state, other)
    _speaks(msg, lang, words, english)
    # the stored texts stay English; the English seat's email is as it always was
    assert svc.events_after(gid, 1)[0]["text"].startswith("Ada took the ")
    english_text = _plain(notifier.turn_message(gid, meta, state, first))
    assert "Scores of the others: Bob" in english_text and "Dice on the Action Wheel:" in english_text


def test_a_game_speaks_each_language_it_has_a_catalog_of(tmp_path):
    """Giving a game a language is its catalog (docs/i18n.md): its languages are English and those of
    the catalogs in its folder, whatever else lies there."""
    from rules_common.words import catalog_languages

    assert catalog_languages(tmp_path) == ("en",)
    for name in ("pl.po", "it.po", "game.pot", "babel.cfg", "pl.mo"):
        (tmp_path / name).write_text("")
    assert catalog_languages(tmp_path) == ("en", "it", "pl")
    for game in SPEAKING:
        assert tuple(game.languages) == catalog_languages(game.catalogs[0]), game.name
