"""Keep docs/pillars.md in step with the Pillars engine: its moves parse and round-trip, its
example round is legal in order and reveals what the doc says, every rule code is named (and no
other), every position document key is documented, and the card tables match the data file."""
from __future__ import annotations

import re
from pathlib import Path

from pillars import new_game, parse, play
from pillars.describe import event_texts
from pillars.playout import random_game
from pillars.state import data

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "pillars.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks(lang: str) -> list[tuple[str, str]]:
    return [(info, body) for info, body in FENCE.findall(DOC) if info.split()[:1] == [lang]]


def test_moves_blocks_parse_and_round_trip():
    found = blocks("moves")
    assert len(found) >= 2
    for _, body in found:
        for line in body.strip().splitlines():
            m = parse(line)
            assert str(m) == line and parse(str(m)) == m


def test_example_round_is_legal_and_reveals_what_the_doc_says():
    info, body = next((i, b) for i, b in blocks("moves") if "game" in i)
    opts = dict(kv.split("=") for kv in info.split()[2:])
    state, _ = new_game(int(opts["players"]), opts["seed"])
    rows = re.findall(r"^\| (\d+) \| (\d) \| `([^`]+)` \| ([^|]*) \|$", DOC, re.M)
    moves = body.strip().splitlines()
    assert len(rows) == len(moves)
    for (_, seat, move, revealed), line in zip(rows, moves, strict=True):
        assert move == line and int(seat) == state.actor
        events, state = play(state, state.actor, line, seed=opts["seed"])
        assert ", ".join(f"{k} {v}" for k, v in events[0]["chance"]) == revealed.strip()


def test_rule_codes_are_documented():
    # the rules (pillars/rules.py and the modules of each concern it dispatches to) and the adapter
    src = "".join((ROOT / "pillars" / f).read_text() for f in (
        "rules.py", "basics.py", "ledger.py", "round_start.py", "cards_phase.py", "builders_phase.py",
        "actions_phase.py", "market.py", "decisions.py", "game.py"))
    # a reason is a string, or a rules_common.errors.Reason or rules_common.words.Said (said in words)
    codes = set(re.findall(r'"([a-z]+(?:-[a-z]+)+|[a-z]+)",\s*(?:f?"|\(|Said\(|Reason\()', src)) | set(
        re.findall(r'return\s+\(?\s*"([a-z-]+)",', src))
    codes = {c for c in codes if "-" in c}
    section = DOC.split("## Rule codes", 1)[1].split("##", 1)[0]
    named = set(re.findall(r"`([a-z-]+)`", section))
    assert codes <= named, sorted(codes - named)
    assert named - codes <= {"bad-players", "code"}, sorted(named - codes)


def test_position_document_keys_are_documented():
    doc = random_game(2, "doc-keys").state.to_doc()
    table = DOC.split("## Position document", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^\| ([^|]+) \|", table, re.M))
    keys = {k for cell in named for k in re.findall(r"`([a-z_]+)`", cell)}
    assert set(doc) <= keys, sorted(set(doc) - keys)


def test_card_tables_match_the_data():
    for c in data()["craftsmen"]:
        cid = c["id"] if c["round"] else c["id"][:2] + "0-3"
        row = re.search(rf"^\| {cid} \| [^|]+ \| {re.escape(c['name'])} \| {c['cost']} \| [^|]+ \| "
                        rf"{c['capacity']} \|", DOC, re.M)
        assert row, cid
    for p in data()["privileges"]:
        assert f"| {p['id']} | {p['kind']}" in DOC and p["text"] in DOC
    for e in data()["events"]:
        assert f"| {e['id']} | {'positive' if e['positive'] else 'negative'} | {e['text']}" in DOC
    for r in data()["resource_cards"]:
        assert f"| {r['id']} | {r['yield']} {r['resource']} | {r['workers']} |" in DOC


def test_every_event_of_a_game_is_said_in_words():
    g = random_game(4, "words")
    texts = event_texts(g.events, names=["Ann", "Bob", "Cy", "Di"])
    assert len(texts) == len(g.events)
    assert all(t != ev.get("move") for t, ev in zip(texts, g.events, strict=True))
    assert any("Ann" in t for t in texts) and any("tax die shows" in t for t in texts)


def _label(source: str) -> str:
    """The source column of docs/pillars.md's card tables for a data record's ``source``."""
    if source.startswith("inferred:"):
        return "inferred"
    if source.startswith("reconstructed"):
        return "reconstructed"
    assert source.startswith("rules"), source
    return "rules + reconstructed" if "reconstructed" in source else "rules"


def test_the_docs_say_what_the_data_says_is_reconstructed():
    """Issue 42: the data called sand2, stone4, P02 and P03 `rules` while their matching to the rules'
    text is an inference, and the docs stated reconstructed spot counts as fact."""
    d = data()
    for table in ("craftsmen", "resource_cards", "privileges", "events"):
        for r in d[table]:
            cid = r["id"] if table != "craftsmen" or r["round"] else r["id"][:2] + "0-3"
            row = re.search(rf"^\| {re.escape(cid)} \|.*\| ([a-z +]+) \|$", DOC, re.M)
            assert row, cid
            assert row.group(1) == _label(r["source"]), (cid, row.group(1), r["source"])
    fields = d["fields"]["source"]
    assert fields.startswith("rules for") and "reconstructed: archbishop 1" in fields
    assert ("the Archbishop's\nOffice 1, the King's Court 2 (the first beside the metal) and the Cathedral 1"
            in DOC)
    assert "are reconstructed: the rules do not give their counts" in DOC
