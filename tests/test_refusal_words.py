"""A refused move's reason in the player's language (issue 53, docs/i18n.md "A refused move's reason"):
each game's parser and rules say why a move is refused as a ``rules_common.errors.Reason``, which the
game says in German, French or the pseudo-locale (``game.reason(error, lang)``, ``game.refusal``), and
in English exactly as before (``error.message``).

The reasons are collected from seeded random playouts of each game: at each position, texts the
notation refuses (every branch of each parser we could name), moves that read well but are not legal
there (legal moves of other positions, and legal moves with a word changed), and a move by a seat
whose turn it is not."""
from __future__ import annotations

import pickle
import random
import re
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import games
from games.base import in_language
from rules_common.errors import EngineError, NotationError, Reason, Term
from rules_common.words import PSEUDO

GAMES = [games.get(name) for name in ("carcassonne", "pillars", "tiletum")]

# texts each game's notation refuses, one or more for each of its parser's reasons
BAD_TEXTS = {
    "carcassonne": ["", "   ", "x" * 201, "zap 1", "place", "place 0,1", "place 0,1 r45",
                    "place 0,1 r0 wizard",
                    "place 0,1 r0 monk N", "place 0,1 r0 knight", "place 0,1 r0 farmer",
                    "place 0,1 r0 farmer N",
                    "place 0,1 r0 knight NE", "place 0,1 r0 thief up"],
    "pillars": ["", "x" * 81, "frobnicate", "pass now", "take", "take C99x", "take wood3 discard",
                "place kingsbridge", "place kingsbridge C01", "place shiring", "place nowhere", "buy gold 2",
                "buy metal 1", "buy wood x", "collect metal", "use C05 0", "drop"],
    "tiletum": ["", "frobnicate", "take", "take X9", "take G", "action foo", "tile nosuch",
                "architect Atlantis",
                "house London_Brugge", "buy Q", "char 9", "crest T1 9", "place C1 9.9", "place C1 x",
                "exchange G"],
}


# the values put into a reason that are notation or what the player typed, kept as they are
NOTATION = {"text", "move", "token", "verb", "usage", "moves", "options", "choices", "fields", "resources",
            "actions", "card", "tile", "die", "spot", "stage", "field"}


def english_values(reason: Reason) -> list[str]:
    """The values put into ``reason`` (and into the reasons in it) that are English words, not said
    through the catalog: a plain string with two words in a row, other than notation."""
    out = []
    for name, value in reason.params.items():
        if isinstance(value, Reason):
            out += english_values(value)
        elif not isinstance(value, Term) and isinstance(value, str) and name not in NOTATION \
                and re.search(r"[A-Za-z]{2,} [A-Za-z]{2,}", value):
            out.append(f"{name}={value!r}")
    return out


def _fields(text: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def catalog(game, lang: str) -> dict:
    with open(Path(game.catalogs[0]) / f"{lang}.po", "rb") as fp:
        return {(m.context, m.id): m for m in read_po(fp, locale=lang) if m.id}


def playout_errors(game, seed: int, plies: int = 120, tries: int = 6) -> list[tuple[object, int, str,
                                                                                    EngineError]]:
    """(state, seat, text, error) for refused moves along one seeded random playout of 2 seats."""
    rng = random.Random(seed)
    state, _ = game.new_game(2, f"reasons-{seed}", {})
    seen: list[str] = []
    out = []
    for _ in range(plies):
        if game.is_over(state):
            break
        seat = game.actor(state)
        legal = [m for m, _ in game.legal_moves(state)]
        seen += rng.sample(legal, min(5, len(legal)))
        candidates = [rng.choice(seen) for _ in range(tries)]
        for move in rng.sample(legal, min(tries, len(legal))):   # a legal move with one word changed
            words = move.split()
            donor = rng.choice(seen).split()
            if len(words) > 1 and len(donor) > 1:
                i = rng.randrange(1, len(words))
                words[i] = rng.choice(donor[1:])
                candidates.append(" ".join(words))
        candidates += rng.sample(BAD_TEXTS[game.name], 2)
        for text in candidates:
            if text in legal:
                continue
            try:
                game.play(state, seat, text, f"reasons-{seed}")
            except EngineError as e:
                out.append((state, seat, text, e))
        other = (seat + 1) % 2 if seat is not None else 0
        try:
            game.play(state, other, legal[0], f"reasons-{seed}")
        except EngineError as e:
            out.append((state, other, legal[0], e))
        _, state = game.play(state, seat, rng.choice(legal), f"reasons-{seed}")
    for text in BAD_TEXTS[game.name]:
        try:
            game.play(state, game.actor(state) or 0, text, f"reasons-{seed}")
        except NotationError as e:
            out.append((state, game.actor(state) or 0, text, e))
    return out


@pytest.fixture(scope="module", params=GAMES, ids=lambda g: g.name)
def refused(request):
    game = request.param
    return game, [r for seed in (1, 2, 3) for r in playout_errors(game, seed)]


def test_the_reasons_are_many_and_in_english_as_before(refused):
    game, errors = refused
    codes = {e.code for *_, e in errors}
    templates = {e.reason.template for *_, e in errors}
    assert {"bad-notation", "not-your-turn"} <= codes and len(codes) >= 5, codes
    assert len(templates) >= 12, templates
    for _state, _seat, _text, e in errors:
        assert isinstance(e.reason, Reason), f"{e.message!r} is not a catalog message"
        assert english_values(e.reason) == [], e.message
        assert game.reason(e) == game.reason(e, lang="en") == e.message == str(e.reason)
        assert str(e) == f"{e.message} [{e.code}]"


def test_the_reasons_in_the_pseudo_locale_are_catalog_messages_only(refused):
    game, errors = refused
    w = game.say(PSEUDO)
    for state, seat, text, e in errors:
        said = game.reason(e, **in_language(game, PSEUDO))
        # the outermost message wraps everything it says (the typed text, the notation, the words
        # put into it: those said through the catalog are wrapped themselves)
        assert said.startswith("⟦") and said.endswith("⟧"), said
        assert "{" not in re.sub(r"\{[^{}]*\}", "", said) or "{" in text, said
        if isinstance(e, NotationError):
            whole = game.refusal(state, seat, text, e.reason, **in_language(game, PSEUDO))
            assert whole.startswith("⟦") and whole.endswith("⟧"), whole
    held = catalog(game, "de")
    missing = [m for m in w.used if isinstance(m, str) and (None, m) not in held]
    missing += [m for m in w.used if isinstance(m, tuple) and m not in held and (None, m) not in held]
    assert missing == [], "the reasons asked for messages the catalog lacks"


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_the_reasons_in_german_and_french(refused, lang):
    game, errors = refused
    held = catalog(game, lang)
    for state, seat, text, e in errors:
        said = game.reason(e, lang=lang)
        assert said != e.message, f"{lang}: {said!r}"
        assert said.count("{") == text.count("{"), said
        template = e.reason.template
        message = held[(None, template)]
        forms = [message.string] if isinstance(template, str) else list(message.string)
        assert all(forms) and not message.fuzzy
        english = template if isinstance(template, str) else template[1]
        assert all(_fields(f) - {"n"} == _fields(english) - {"n"} for f in forms)
        if isinstance(e, NotationError):
            whole = game.refusal(state, seat, text, e.reason, lang=lang)
            assert e.message[:20] not in whole or e.message[:20] == said[:20], whole


def test_a_refusal_in_german_and_french_reads_well():
    carcassonne, pillars, tiletum = GAMES
    state, _ = carcassonne.new_game(2, "reasons", {})
    with pytest.raises(NotationError) as bad:
        carcassonne.play(state, 0, "place 0,1 r0 knight", "reasons")
    assert bad.value.message == ("'place 0,1 r0 knight': on which side (N, E, S, W) of the tile does the "
                                 "knight go?")
    assert carcassonne.reason(bad.value, lang="de") == ("'place 0,1 r0 knight': an welche Seite (N, E, S, W) "
                                                        "des Plättchens kommt der Gefolgsmann (Ritter)?")
    assert carcassonne.reason(bad.value, lang="fr").endswith("va ce partisan (chevalier) ?")
    with pytest.raises(EngineError) as illegal:
        carcassonne.play(state, 0, "place 0,0 r0", "reasons")
    assert illegal.value.message == "'place 0,0 r0': there is already a tile at 0,0"
    assert carcassonne.reason(illegal.value, lang="de") == "„place 0,0 r0“: auf 0,0 liegt schon ein Plättchen"
    assert carcassonne.reason(illegal.value, lang="fr") == "« place 0,0 r0 » : il y a déjà une tuile en 0,0"
    refusal = carcassonne.refusal(state, 0, "zap", NotationError(
        Reason("{text}: unknown verb {verb} (a move is the word place, the cell as column,row, the tile's "
               "turn r0, r90, r180 or r270, and a follower with its spot if you put one: e.g. place 3,-1 "
               "r90 knight N)", text="'zap'", verb="'zap'")).reason, lang="de")
    assert refusal.startswith("„zap“ ist hier kein Zug")

    state, _ = pillars.new_game(2, "reasons", {})
    with pytest.raises(NotationError) as bad:
        pillars.play(state, 0, "buy gold 2", "reasons")
    assert bad.value.message == "'buy gold 2': 'gold' is not a resource (stone, wood, sand)"
    assert pillars.reason(bad.value,
                          lang="de") == "'buy gold 2': 'gold' ist kein Baustoff (stone, wood, sand)"
    assert pillars.reason(bad.value,
                          lang="fr") == "'buy gold 2' : 'gold' n’est pas une ressource (stone, wood, sand)"

    state, _ = tiletum.new_game(2, "reasons", {})
    with pytest.raises(EngineError) as illegal:
        tiletum.play(state, 1, "end", "reasons")
    assert illegal.value.code == "not-your-turn"
    assert tiletum.reason(illegal.value, lang="de") == "„end“: Platz 0 entscheidet, nicht Platz 1"
    assert tiletum.reason(illegal.value,
                          lang="fr") == "« end » : c’est à la place 0 de décider, pas à la place 1"


def test_a_term_is_said_by_its_context_and_a_reason_keeps_its_english():
    game = games.get("tiletum")
    from tiletum.terms import action, res, town
    why = Reason("{town}: {resource} for the {action} Action", town=town("Koeln"), resource=res("S"),
                 action=action("architect"))
    assert why == "Koeln: Stone for the architect Action"
    assert why.said(game.say("de")) == "Köln: Stein for the Architekt Action", \
        "a message the catalog lacks is its English, its words said in the language"
    assert town("Koeln").said(game.say("de")) == "Köln" and str(town("Koeln")) == "Koeln"
    assert res("S").said(game.say("de")) == "Stein"
    assert action("architect").said(game.say("fr")) == "Architecte"
    assert town("London_Brugge") == "London_Brugge" and not isinstance(town("London_Brugge"), Term)
    # an error keeps its Reason across a pickle (a worker's answer), and a plain English one says itself
    e = pickle.loads(pickle.dumps(Reason("the game is over")))
    assert e.template == "the game is over" and e.said(game.say("de")) == "die Partie ist vorbei"
    assert game.reason(EngineError("plain"), lang="de") == "plain"
    assert EngineError("{n} left", n=3).reason.said(game.say("fr")) == "3 left"
    # a reason with its plural: English as it always said it, the language's forms chosen by n
    from pillars.basics import C
    from rules_common.words import NP_
    pillars = games.get("pillars")
    once = Reason(NP_("your {craftsman} works at most {n} times a round",
                      "your {craftsman} works at most {n} times a round"),
                  craftsman=Term("craftsman", C.craftsmen["C05"]["name"]), n=1)
    assert once == f"your {C.craftsmen['C05']['name']} works at most 1 times a round"
    assert "höchstens einmal pro Runde" in once.said(pillars.say("de"))
    assert "au plus 1 fois" in once.said(pillars.say("fr"))
    assert once.said(pillars.say(PSEUDO)).startswith("⟦")
