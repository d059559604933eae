"""The service knows no game by name (issue 38): no module of application/, mail/, workers/ or api/
names a game, compares a game's name, or reads a game's state fields; what it needs of a game goes
through the game interface (games/: ``Game.is_over``, ``actor``, ``phase``, ``automa_seat``,
``fallback_move``, the email texts, the review capability) and the registry (``games.GAMES``). The
import-linter contract "The service knows no game by name" forbids the imports
(tests/test_layers.py); this test reads the code for the rest: game names as strings, the
registry's game constants, engine state fields, and the pages' hand-kept lists of games.

The allow-list is small and says why. Most of it is the service's own name, which is also the
first game's: the product is Table Post, so its Celery queue, app names and key prefixes say
``tiletum`` without meaning the game. A new use of a game's name must be added here with a reason
(or, better, be a method of the game)."""
from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

import games
from tests.examples import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("application", "mail", "workers", "api", "tournaments", "seats")
NAMES = frozenset(games.NAMES)
CONSTANTS = frozenset(name.upper() for name in games.NAMES)   # games.TILETUM, ...
# a game's state fields: read through the game (Views, Rules), never directly
STATE_FIELDS = frozenset({"agenda", "phase", "solo", "turn", "cycle", "undo_moves", "piles", "king_pos",
                          "reveals", "corruption_pool", "bag", "offer", "queue", "pile", "tiles", "vp"})
# read through the game where the object is a state (an attribute of ``state``, ``s``, ``before``)
STATE_VIEWS = frozenset({"actor", "winner", "seats", "round", "scores", "players"})
STATE_NAMES = re.compile(r"(^|\W)(state|s|before|after|st)$")

PRODUCT = "the service's own name (Table Post), not the game"
EXAMPLE = "an OpenAPI example of a served document (documentation)"
POSITION = ("each game's position schema says its own game (api/schemas/positions/, one module per "
            "game, collected by the format each declares)")
# (file, string) -> (how many, why)
ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("api/cli.py", "tiletum"): (1, "the command's old name, an alias for one release (issue 52)"),
    ("application/queues.py", "tiletum"): (1, "the email queue's name before issue 40, to drain a broker"),
    ("application/profiles.py", "tiletum"): (1, "a handle nobody may take: the service's old name"),
    ("workers/beat.py", "tiletum:beat:lock"): (1, "a Redis key of the service's old name, kept: a running "
                                                 "beat's lock is honoured across the upgrade"),
    ("api/resources/games.py", "tiletum"): (1, EXAMPLE),
    ("api/resources/games.py", "carcassonne"): (1, EXAMPLE),
    ("api/resources/lobby.py", "tiletum"): (1, EXAMPLE),
    ("api/resources/me.py", "tiletum"): (2, EXAMPLE),
    ("api/resources/me.py", "carcassonne"): (1, EXAMPLE),
    ("api/resources/players.py", "tiletum"): (1, EXAMPLE),
    ("api/resources/players.py", "carcassonne"): (1, EXAMPLE),
    ("api/resources/tournaments.py", "tiletum"): (2, EXAMPLE),
    ("api/schemas/positions/carcassonne.py", "carcassonne"): (1, POSITION),
    ("api/schemas/positions/pillars.py", "pillars"): (1, POSITION),
}
# the pages: a game's own page (api/pages.py GAME_PAGE_FILES) is the game's; no other page lists games
PAGE_ALLOWED: dict[str, str] = {}   # page file -> why it may name a game (none need to)


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def findings(path: Path, source: str) -> list[tuple[str, str]]:
    """(what, where) for each game name, game constant and state field the source reads."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    out = []
    for node in ast.walk(tree):
        where = f"{path}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if node.value in NAMES or any(node.value.startswith(n + ":") for n in NAMES):
                out.append((f"string {node.value!r}", where))
        elif isinstance(node, ast.Name) and node.id in CONSTANTS:
            out.append((f"name {node.id}", where))
        elif isinstance(node, ast.alias) and node.name.split(".")[-1] in CONSTANTS | NAMES:
            out.append((f"import {node.name}", where))
        elif isinstance(node, ast.Attribute) and id(node) not in called:
            base = ast.unparse(node.value)
            if node.attr in CONSTANTS:
                out.append((f"name {base}.{node.attr}", where))
            elif node.attr in STATE_FIELDS or (node.attr in STATE_VIEWS and STATE_NAMES.search(base)):
                out.append((f"state field {base}.{node.attr}", where))
    return out


def service_sources():
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text("utf-8")


def test_the_service_names_no_game_and_reads_no_game_state():
    strings: Counter = Counter()
    bad = []
    for rel, source in service_sources():
        for what, where in findings(Path(rel), source):
            if what.startswith("string "):
                value = ast.literal_eval(what[len("string "):])
                strings[(rel, value)] += 1
                if (rel, value) in ALLOWED:
                    continue
            bad.append(f"{where}: {what}")
    over = [f"{rel}: {value!r} {n} times, {ALLOWED[(rel, value)][0]} allowed"
            for (rel, value), n in strings.items()
            if (rel, value) in ALLOWED and n > ALLOWED[(rel, value)][0]]
    assert not bad and not over, "\n".join(bad + over)
    # the allow-list stays as small as the code: an entry no longer needed goes
    stale = [key for key, (n, _) in ALLOWED.items() if strings[key] < n]
    assert not stale, f"allow-list entries to lower or remove: {stale}"


@pytest.mark.parametrize("snippet, found", [
    ("if state.phase == 'over':\n    pass", "state field state.phase"),
    ("x = state.actor", "state field state.actor"),
    ("so = getattr(state, 'solo', None) or s.solo", "state field s.solo"),
    ("top = state.agenda[-1]", "state field state.agenda"),
    ("if game is not games.TILETUM:\n    pass", "name games.TILETUM"),
    ("from games import CARCASSONNE", "import CARCASSONNE"),
    ("create(game='pillars')", "string 'pillars'"),
    ("pool = 'carcassonne:multiplayer'", "string 'carcassonne:multiplayer'"),
    ("if view.get('game') != 'tiletum':\n    pass", "string 'tiletum'"),
])
def test_the_reader_finds_each_kind_of_game_knowledge(snippet, found):
    """The check can fail: each kind of game knowledge it looks for, planted, is found."""
    assert found in [what for what, _ in findings(Path("x.py"), snippet)]


def test_the_reader_leaves_the_game_interface_alone():
    code = ("game = games.of_meta(meta)\nif game.is_over(state) or game.actor(state) != seat:\n    pass\n"
            "'''The Tiletum stand-in (a docstring may name a game).'''\nx = games.get(None).title\n")
    assert findings(Path("x.py"), code) == []


GAME_NAME_IN_PAGE = re.compile(r"""["'](%s)["']""" % "|".join(sorted(NAMES)))


def test_the_pages_keep_no_list_of_games():
    """Outside a game's own page, no page names a game in its markup or script: the lists of games
    come from GET /api/v1/catalog (api/static/catalog.js)."""
    own_pages = {spec.page.partition(":")[2] for spec in games.specs().values() if spec.page}
    bad = []
    for path in sorted((ROOT / "api" / "static").glob("*.html")):
        if path.name in own_pages or path.name in PAGE_ALLOWED:
            continue
        for i, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if GAME_NAME_IN_PAGE.search(line):
                bad.append(f"{path.name}:{i}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)
    assert GAME_NAME_IN_PAGE.search('<option value="carcassonne">Carcassonne</option>')   # it can fail


# --- each game's declared vocabulary (issue 52) ------------------------------------------------------
# (Words joined by a hyphen are words of their own: the old names kept in "tiletum-pbem", "X-Tiletum-
# Signature", "tiletum-link/1" and the pairing seeds, for stored data and a release, are not the game's.)
# Not only the games' names: every word a game declares its own (``Game.vocabulary``: its name and
# title, its options, its automa's seat kind, name, levels and settings, its rulebook's ``terms``)
# is absent from what the service says: the strings of its code (not docstrings or comments: those
# may name a game as an example) over every package of the platform, and every page but a game's own.
VOCABULARY = {word: game.name for game in [*games.GAMES.values(), *(s.game for s in EXAMPLES.values())]
              for word in game.vocabulary}
WORD = re.compile(r"(?<![\w-])(%s)s?(?![\w-])" % "|".join(re.escape(w) for w in sorted(VOCABULARY, key=len,
                                                                                       reverse=True)),
                  re.IGNORECASE)
OLD_NAME = "the service's old name, kept for a release or to keep stored data (issue 52)"
# (file, word) -> (how many, why)
VOCABULARY_ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("api/cli.py", "tiletum"): (1, "the command's old name, an alias for one release"),
    ("application/queues.py", "tiletum"): (1, "the email queue's name before issue 40, to drain a broker"),
    ("application/queues.py", "cardinalbot"): (1, "the seats queue's name before issue 40 (a broker drains)"),
    ("application/profiles.py", "tiletum"): (1, "a handle nobody may take: the service's old name"),
    ("workers/beat.py", "tiletum"): (1, OLD_NAME + ": a running beat's lock is honoured across the upgrade"),
    ("seats/worker.py", "cardinalbot"): (4, "the seat tasks' names before issue 52, kept for one release"),
    # the documentation examples the name check allows (above) speak a game's name too
    **{key: why for key, why in ALLOWED.items() if why[1] == EXAMPLE},
}


def vocabulary_in(rel: str, source: str) -> list[tuple[str, int]]:
    """(word, line) for each word of a game's own in the code strings of a module (not its docstrings)."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return sorted((m.group(1).lower(), node.lineno) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                  for m in WORD.finditer(node.value))


def test_the_service_speaks_no_game_s_vocabulary():
    own = {f"api/schemas/positions/{name}.py" for name in games.NAMES}   # each game's position schema
    counts: Counter = Counter()
    bad = []
    for rel, source in service_sources():
        if rel in own:
            continue
        for word, line in vocabulary_in(rel, source):
            counts[(rel, word)] += 1
            if (rel, word) not in VOCABULARY_ALLOWED:
                bad.append(f"{rel}:{line}: {word!r} ({VOCABULARY[word]}'s)")
    over = [f"{rel}: {word!r} {n} times, {VOCABULARY_ALLOWED[(rel, word)][0]} allowed"
            for (rel, word), n in counts.items()
            if (rel, word) in VOCABULARY_ALLOWED and n > VOCABULARY_ALLOWED[(rel, word)][0]]
    stale = [key for key, (n, _) in VOCABULARY_ALLOWED.items() if counts[key] < n]
    assert not bad and not over and not stale, "\n".join(bad + over + [f"stale: {stale}"])


def test_no_page_but_a_game_s_own_speaks_its_vocabulary():
    """The site's pages and scripts say what the catalog says (api/static/catalog.js) and what the
    pages' markers put in (api/pages.py: the game cards), never a game's own words; a game's own page
    (its spec's ``page``) is the game's."""
    own_pages = {spec.page.partition(":")[2] for spec in games.specs().values() if spec.page}
    bad = []
    for path in sorted((ROOT / "api" / "static").iterdir()):
        if path.suffix not in (".html", ".js", ".css") or path.name in own_pages:
            continue
        for i, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for m in WORD.finditer(line):
                bad.append(f"{path.name}:{i}: {m.group(1)!r} ({VOCABULARY[m.group(1).lower()]}'s)")
    assert not bad, "\n".join(bad)


def test_the_vocabulary_is_each_game_s_declaration():
    """It can fail: each kind of declared word is in the vocabulary and is found where it is spoken."""
    tiletum, carcassonne = games.get("tiletum"), games.get("carcassonne")
    assert {"tiletum", "cardinalbot", "priest", "action_tiles", "challenges",
            "architect"} <= tiletum.vocabulary
    assert {"carcassonne", "follower"} <= carcassonne.vocabulary
    assert vocabulary_in("x.py", 'raise Forbidden("the Cardinalbot plays on")\nlevel = "bishop"\n') == [
        ("bishop", 2), ("cardinalbot", 1)]
    assert vocabulary_in("x.py", '"""A docstring may say the Cardinalbot."""\nx = "followers: 3"\n') == [
        ("follower", 2)]
    assert vocabulary_in("x.py", 'x = "tiletum-pbem is a word of its own, as is bishops-x"\n') == []


def test_the_platform_s_catalog_speaks_no_game_s_vocabulary():
    """The platform's catalog (tablepost/translations/messages.pot: its code's, its pages' and the pages'
    shared scripts' messages) says no game's own word: a game's own page's messages are in the game's
    own catalog (docs/i18n.md, "A game's own page"; tablepost/page_text.py)."""
    from babel.messages.pofile import read_po
    with open(ROOT / "tablepost" / "translations" / "messages.pot", "rb") as fp:
        catalog = read_po(fp)
    bad = [f"{m.group(1)!r} ({VOCABULARY[m.group(1).lower()]}'s) in {text!r}"
           for message in catalog if message.id
           for text in ([message.id] if isinstance(message.id, str) else message.id)
           for m in WORD.finditer(text)]
    assert not bad, "\n".join(bad)
    assert WORD.search("Then place it with or without a follower:")   # it can fail
