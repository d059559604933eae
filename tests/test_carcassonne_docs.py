"""Keep docs/carcassonne.md in step with the Carcassonne engine: its moves parse and round-trip, the
moves of its example game are legal in order, every rule code and synonym the engine knows is
named, and the position document's keys are exactly those documented."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from carcassonne import new_game, parse, play
from carcassonne.notation import NO_FOLLOWER, ROLE_SYNONYMS, VERBS

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "carcassonne.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks(lang: str) -> list[tuple[str, str]]:
    return [(info, body) for info, body in FENCE.findall(DOC) if info.split()[:1] == [lang]]


def section(heading: str) -> str:
    m = re.search(rf"^(#+) {re.escape(heading)}[ \t]*$", DOC, re.M)
    assert m, heading
    rest = DOC[m.end():]
    end = re.search(rf"^#{{1,{len(m.group(1))}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def test_moves_blocks_parse_and_round_trip():
    found = blocks("moves")
    assert len(found) >= 3
    for _, body in found:
        for line in body.strip().splitlines():
            m = parse(line)
            assert parse(str(m)) == m


def test_canonical_examples_are_canonical():
    first = blocks("moves")[0][1].strip().splitlines()
    assert all(str(parse(line)) == line for line in first)


def test_the_example_game_is_legal_in_order():
    games = [(info, body) for info, body in blocks("moves") if "game=" in info]
    assert games
    for info, body in games:
        opts = dict(w.split("=", 1) for w in info.split()[1:])
        s, _ = new_game(int(opts["players"]), opts["game"])
        for line in body.strip().splitlines():
            _, s = play(s, s.actor, line, seed=opts["game"])
        assert s.version == 1 + len(body.strip().splitlines())


def test_every_rule_code_is_documented():
    src = "\n".join(p.read_text() for p in (ROOT / "carcassonne").glob("*.py"))
    # a reason is a string, or a rules_common.errors.Reason or rules_common.words.Said (said in words)
    codes = set(re.findall(r'\("([a-z]+(?:-[a-z]+)+)", (?:f?"|why|Said\(|Reason\()', src))
    assert {"edges-differ", "feature-occupied", "not-adjacent"} <= codes
    table = section("Rule codes")
    missing = [c for c in codes if f"`{c}`" not in table]
    assert not missing, f"rule codes not in docs/carcassonne.md 'Rule codes': {missing}"


def test_every_synonym_is_documented():
    notation = section("Notation")
    words = set(ROLE_SYNONYMS) | (VERBS - {"place"}) | (NO_FOLLOWER - {"no"})
    shown = {"nofollower": "no follower"}  # the spaces are dropped before the lookup
    missing = [w for w in words if f"`{shown.get(w, w)}`" not in notation and f'"{w}"' not in notation]
    assert not missing, f"synonyms not in docs/carcassonne.md 'Notation': {missing}"


@pytest.mark.parametrize("players", [2, 5])
def test_position_document_keys_are_documented(players):
    table = section("Position document")
    documented = {m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", table, re.M)}
    s, _ = new_game(players, "doc-keys")
    assert documented == set(s.to_doc())
