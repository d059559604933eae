"""Keep docs/tiletum-notation.md and docs/tiletum-state.md in step with the engine.

* tiletum-notation.md: every verb of ``tiletum.notation.GRAMMAR`` and every alias is documented (verb
  tables and grammar, with the right argument kinds); every line of a ```moves block parses and
  round-trips to its canonical form; ```moves blocks tagged ``game=SEED players=N`` replay as
  legal moves; the ```pycon transcripts run as doctests; every rule code, decision kind and map
  spot the engine knows is named.
* tiletum-state.md: every top-level key and every seat key of a real position document is documented
  (and nothing else); the ``turn`` keys and agenda decision kinds are named; the example
  document is exactly what the engine produces for the moves it says, and loads back.
"""
from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import pytest

import tiletum
from tiletum import GameState, parse
from tiletum.components import components
from tiletum.notation import ALIASES, GRAMMAR

ROOT = Path(__file__).resolve().parents[1]
NOTATION = ROOT / "docs" / "tiletum-notation.md"
STATE = ROOT / "docs" / "tiletum-state.md"
ENGINE = ROOT / "engine"

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def blocks(text: str, lang: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block whose language is ``lang``."""
    out = []
    for info, body in FENCE.findall(text):
        words = info.split()
        if words and words[0] == lang:
            out.append((info, body))
    return out


def section(text: str, heading: str) -> str:
    """The text under a markdown heading (any level) up to the next heading of the same or a
    higher level."""
    m = re.search(rf"^(#+) {re.escape(heading)}[ \t]*$", text, re.M)
    assert m, f"no heading {heading!r}"
    level = len(m.group(1))
    rest = text[m.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def first_cells(text: str) -> list[str]:
    """The first cell of every table row (header and separator rows excluded)."""
    cells = []
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"^\|\s*-", line):
            cells.append(line.split("|")[1].strip())
    return cells


def engine_source() -> str:
    return "\n".join(read(p) for p in sorted(ENGINE.glob("*.py")))


def rule_codes() -> set[str]:
    """Every stable error code the engine can report."""
    src = engine_source()
    codes = set(re.findall(r'\(\s*"([a-z]+(?:-[a-z]+)+)",\s*(?:f?"|Reason\()', src))
    codes |= set(re.findall(r'\bcode\s*=\s*"([a-z]+(?:-[a-z]+)+)"', src))
    return codes


def choice_kinds() -> set[str]:
    """Every kind of decision the engine can put on the agenda."""
    return set(re.findall(r'\bchoice\(\s*[\w.]+\s*,\s*"(\w+)"', engine_source()))


def moves_lines(body: str) -> list[tuple[str, str]]:
    """(input, canonical) of each line of a ```moves block: ``input => canonical`` or a line
    that is already canonical. ``#`` starts a comment."""
    out = []
    for raw in body.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if "=>" in line:
            given, canonical = (x.strip() for x in line.split("=>", 1))
        else:
            given = canonical = line
        out.append((given, canonical))
    return out


@pytest.fixture(scope="module")
def notation() -> str:
    return read(NOTATION)


@pytest.fixture(scope="module")
def state_doc_text() -> str:
    return read(STATE)


@pytest.fixture(scope="module")
def real_doc() -> dict:
    return tiletum.new_game(3, "x")[0].to_doc()


# --- notation.md ---------------------------------------------------------------------------

def test_every_verb_has_a_row_in_the_verb_tables(notation):
    verbs_doc = section(notation, "Verbs") + section(notation, "Decisions")
    heads = {m.group(1) for cell in first_cells(verbs_doc) for m in [re.match(r"^`(\w+)", cell)] if m}
    missing = set(GRAMMAR) - heads
    assert not missing, \
        f"verbs without a row in the Verbs tables of docs/tiletum-notation.md: {sorted(missing)}"


def test_verb_tables_document_no_unknown_verb(notation):
    rows = first_cells(section(notation, "Verbs"))
    for cell in rows:
        m = re.match(r"^`(\w+)", cell)
        if m and cell != "verb":
            assert m.group(1) in GRAMMAR, f"docs/tiletum-notation.md documents an unknown verb: {cell}"


def test_verb_rows_show_the_grammar_arguments(notation):
    """`fulfil <tile> [<res>]`: the row heading of each verb shows its argument kinds."""
    verbs_doc = section(notation, "Verbs") + section(notation, "Decisions")
    shown = {}
    for cell in first_cells(verbs_doc):
        m = re.match(r"^`(\w+)((?: (?:<\w+>|\[<\w+>\]))*)`$", cell)
        if m and m.group(1) in GRAMMAR:
            kinds = tuple(k[2:-2] + "?" if k.startswith("[") else k[1:-1] for k in m.group(2).split())
            shown.setdefault(m.group(1), set()).add(kinds)
    for verb, kinds in GRAMMAR.items():
        assert verb in shown, f"no `{verb} ...` row heading in docs/tiletum-notation.md"
        # "action" rows name their argument after the kind; optional args may be shown or not
        full = tuple(kinds)
        required = tuple(k for k in kinds if not k.endswith("?"))
        assert shown[verb] & {full, required}, (
            f"`{verb}` rows show arguments {sorted(shown[verb])}, GRAMMAR says {kinds}")


def test_every_alias_is_documented(notation):
    overview = section(notation, "Overview")
    for alias in ALIASES:
        assert f"`{alias}`" in overview, f"alias {alias!r} is not in the Overview of docs/tiletum-notation.md"


def test_grammar_block_matches_GRAMMAR(notation):
    ebnf = blocks(notation, "ebnf")
    assert len(ebnf) == 1, "docs/tiletum-notation.md has one ```ebnf grammar block"
    body = ebnf[0][1]
    start = re.search(r"^move\s*=", body, re.M)
    assert start, "the grammar defines `move = ...`"
    move_rule = body[start.start(): body.index(";", start.start()) + 1]
    productions = {}
    for line in move_rule.splitlines():
        m = re.match(r'^\s*(?:move\s*=|\|)\s*(\([^)]*\)|"\w+")\s*(.*?)\s*;?\s*$', line)
        if not m:
            continue
        words = re.findall(r'"(\w+)"', m.group(1))
        tokens = re.findall(r"\[\s*\w+\s*\]|\w+", m.group(2))
        args = tuple(re.sub(r"^\[\s*(\w+)\s*\]$", r"\1?", a) for a in tokens)
        for w in words:
            productions[w] = args
    documented_verbs = {w for w in productions if w in GRAMMAR}
    assert documented_verbs == set(GRAMMAR), (
        f"grammar verbs differ: {sorted(documented_verbs ^ set(GRAMMAR))}")
    for verb, kinds in GRAMMAR.items():
        assert productions[verb] == kinds, f"grammar of {verb!r}: doc {productions[verb]}, engine {kinds}"
    for alias, verb in ALIASES.items():
        assert productions.get(alias) == GRAMMAR[verb], (
            f"alias {alias!r} missing from the grammar alternative of {verb!r}")
    extra = set(productions) - set(GRAMMAR) - set(ALIASES)
    assert not extra, f"grammar names verbs the engine does not know: {sorted(extra)}"
    for kind in {k.rstrip("?") for kinds in GRAMMAR.values() for k in kinds}:
        assert re.search(rf"^{kind}\s+=", body, re.M), f"argument kind {kind!r} is not defined in the grammar"


def test_moves_blocks_parse_and_round_trip(notation):
    found = blocks(notation, "moves")
    assert found, "docs/tiletum-notation.md has ```moves blocks"
    seen_verbs, seen_aliases = set(), set()
    for _info, body in found:
        for given, canonical in moves_lines(body):
            m = parse(given)
            assert str(m) == canonical, f"{given!r} parses to {str(m)!r}, the doc says {canonical!r}"
            assert parse(str(m)) == m
            assert parse(canonical) == m
            seen_verbs.add(m.verb)
            first = given.split()[0].lower()
            if first in ALIASES:
                seen_aliases.add(first)
    assert seen_verbs == set(GRAMMAR), f"verbs without an example line: {sorted(set(GRAMMAR) - seen_verbs)}"
    assert seen_aliases == set(ALIASES), (
        f"aliases without an example line: {sorted(set(ALIASES) - seen_aliases)}")


def test_game_moves_blocks_are_legal_in_sequence(notation):
    games = [(info, body) for info, body in blocks(notation, "moves") if "game=" in info]
    assert games, "the worked example is a ```moves game=SEED players=N block"
    for info, body in games:
        opts = dict(w.split("=", 1) for w in info.split()[1:])
        seed, players = opts["game"], int(opts["players"])
        state, _ = tiletum.new_game(players, seed)
        for given, canonical in moves_lines(body):
            m = parse(given)
            if m.verb != "undo":
                assert canonical in tiletum.legal_moves(state), (
                    f"{canonical!r} is not legal in the worked example")
            _, state = tiletum.play(state, state.actor, m, seed=seed)


def _run_doctests(text: str, name: str) -> None:
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    found = blocks(text, "pycon")
    assert found, f"{name} has ```pycon examples"
    for i, (_info, body) in enumerate(found):
        test = parser.get_doctest(body, {}, f"{name}[{i}]", name, 0)
        runner.run(test)
    summary = runner.summarize(verbose=False)
    assert summary.failed == 0, f"{summary.failed} example(s) in {name} differ from the engine (see above)"


def test_notation_transcripts_run(notation):
    _run_doctests(notation, "docs/tiletum-notation.md")


def test_every_rule_code_is_documented(notation):
    errors = section(notation, "Errors")
    missing = sorted(c for c in rule_codes() if f"`{c}`" not in errors)
    assert not missing, f"error codes not in the Errors section of docs/tiletum-notation.md: {missing}"


def test_every_decision_kind_has_its_answers_documented(notation):
    decisions = section(notation, "Decisions")
    rows = {re.sub(r"`", "", c) for c in first_cells(decisions)}
    missing = sorted(choice_kinds() - rows)
    assert not missing, f"decision kinds without a row in docs/tiletum-notation.md: {missing}"


def test_every_map_spot_is_listed(notation):
    c = components()
    args = section(notation, "Arguments")
    missing = [s for s in c.spots if not re.search(rf"\b{re.escape(s)}\b", args)]
    assert not missing, f"map spots not listed in docs/tiletum-notation.md: {missing}"
    ctowns = re.search(r"Cathedral towns: ([^.]*)\.", args).group(1)
    assert [t.strip() for t in ctowns.split(",")] == list(c.cathedral_towns)


# --- state.md ------------------------------------------------------------------------------

def documented_keys(text: str, heading: str) -> list[str]:
    keys = []
    for cell in first_cells(section(text, heading)):
        m = re.fullmatch(r"`(\w+)`", cell)
        if m:
            keys.append(m.group(1))
    return keys


def test_every_top_level_key_is_documented(state_doc_text, real_doc):
    keys = documented_keys(state_doc_text, "Top-level fields")
    assert not set(real_doc) - set(keys), f"undocumented top-level keys: {sorted(set(real_doc) - set(keys))}"
    assert not set(keys) - set(real_doc), (
        f"documented keys that are not in the document: {sorted(set(keys) - set(real_doc))}")
    assert keys == list(real_doc), "docs/tiletum-state.md lists the top-level keys in the document's order"


def test_every_seat_key_is_documented(state_doc_text, real_doc):
    keys = documented_keys(state_doc_text, "Seat fields")
    seat = real_doc["seats"][0]
    assert not set(seat) - set(keys), f"undocumented seat keys: {sorted(set(seat) - set(keys))}"
    assert not set(keys) - set(seat), (
        f"documented seat keys not in the document: {sorted(set(keys) - set(seat))}")
    assert keys == list(seat), "docs/tiletum-state.md lists the seat keys in the document's order"
    text = section(state_doc_text, "Seat fields")
    for k in seat["buildings"][0]:
        assert f"`{k}`" in text, f"building key {k!r} is not described"


def test_turn_and_agenda_are_documented(state_doc_text, real_doc):
    turn = section(state_doc_text, "The turn")
    for k in real_doc["turn"]:
        assert f"`{k}`" in turn, f"turn key {k!r} is not documented"
    agenda = section(state_doc_text, "The agenda")
    for t in ("frame", "fx", "choice"):
        assert f'`"{t}"`' in agenda or f"`{t}`" in agenda
    kinds = {re.sub(r"`", "", c) for c in first_cells(agenda)}
    missing = sorted(choice_kinds() - kinds)
    assert not missing, f"decision kinds not in the agenda table of docs/tiletum-state.md: {missing}"


def _example(text: str) -> tuple[str, dict]:
    ex = section(text, "Example")
    found = blocks(ex, "json")
    assert len(found) == 1, "the Example section holds one ```json document"
    m = re.search(r"```moves game=(\S+) players=(\d+)\n(.*?)```", ex, re.S)
    assert m, "the Example section says which moves produced it (```moves game=SEED players=N)"
    return ex, {"doc": json.loads(found[0][1]), "seed": m.group(1), "players": int(m.group(2)),
                "moves": [c for _g, c in moves_lines(m.group(3))]}


def test_example_document_is_what_the_engine_produces(state_doc_text):
    _, ex = _example(state_doc_text)
    state, _ = tiletum.new_game(ex["players"], ex["seed"])
    for move in ex["moves"]:
        _, state = tiletum.play(state, state.actor, move, seed=ex["seed"])
    assert ex["doc"] == state.to_doc(), "the example in docs/tiletum-state.md is stale: regenerate it"
    loaded = GameState.from_doc(ex["doc"])
    assert loaded == state and loaded.to_doc() == ex["doc"]
    assert tiletum.legal_moves(loaded) == tiletum.legal_moves(state)


def test_example_shows_every_kind_of_agenda_entry(state_doc_text):
    _, ex = _example(state_doc_text)
    assert {e["t"] for e in ex["doc"]["agenda"]} == {"frame", "fx", "choice"}


def test_state_transcripts_run(state_doc_text):
    _run_doctests(state_doc_text, "docs/tiletum-state.md")
