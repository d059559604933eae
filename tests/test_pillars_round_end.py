"""Issue 42, "game pieces, not codes": the end of a Pillars round explained (a newcomer dropped to 0
gold and 0 VP without a word of why). The engine keeps a ledger of what each step and decision of
phase III did to each player (pillars/rules.py ``note``); ``pillars.summary`` says the finished
round's in words. Checked here against the engine's events of seeded random games of 2, 3 and 4
players: every decision of phase III in the event stream is in the summary (each conversion at the
Cathedral, each trade at the market, the cubes returned), the event card and the tax die are the
ones the events revealed, what the lines add up to is what the round did to each player's VP and
gold, and no line holds a card id. And the turn email after a round's end carries the summary,
once."""
from __future__ import annotations

import email
import email.policy
import re

import pytest

import games
from mail.compose import TurnContext, turn_email
from pillars.game import apply_event
from pillars.playout import random_game
from pillars.state import cards
from pillars.summary import round_summary, summary_text

CARD_ID = re.compile(r"\b(?:MM|WW|SC)\d\b|\b[CPE]\d\d\b|\b(?:sand|wood|stone)\d\b")
NEXT_ROUND = {"privilege", "shiring", "aside"}   # what a round's end reveals of the next round


def rounds(players: int, seed: str):
    """(the events from the one that began the round's phase III, the state before it, the state at
    the round's end) for each round of a random game."""
    state = None
    start, since = None, []
    for ev in random_game(players, seed).events:
        before = state.clone() if state is not None else None
        prev = state.round_end if state is not None else None
        state = apply_event(state, ev)
        if start is None and before is not None and before.ledger is None and (
                state.ledger is not None or state.round_end is not prev):
            start, since = before, []   # the move that began phase III
        if start is not None:
            since.append(ev)
        if state.round_end is not prev:
            yield since, start, state
            start, since = None, []


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", ["r1", "r2", "r3"])
def test_the_summary_of_each_round_is_the_engines_events(players, seed):
    seen = 0
    for since, before, end in rounds(players, f"{seed}-{players}"):
        led = end.round_end
        assert led is not None and led["round"] == before.round
        seen += 1
        summary = round_summary(led)
        # what the lines add up to is what phase III did to each player
        for seat in range(players):
            for key in ("gold", "vp"):
                total = sum(e.get("delta", {}).get(key, 0) for e in led["entries"] if e["seat"] == seat)
                assert led["end"][key][seat] - led["start"][key][seat] == total, (key, seat)
            assert summary["seats"][seat]["vp"] == [led["start"]["vp"][seat], end.vp[seat]]
            assert summary["seats"][seat]["gold"] == [led["start"]["gold"][seat], end.gold[seat]]
            # phase III's start: no later than the placements' end, as the state before it had them
            assert led["start"]["vp"][seat] == before.vp[seat]
        # the event and the tax die are the ones the events revealed
        revealed = dict((k, v) for ev in since for k, v in ev["chance"] if k in ("event", "tax"))
        assert led["event"] == revealed["event"] and led["tax"] == revealed["tax"]
        moves = [(ev["seat"], ev["move"]) for ev in since if ev["type"] == "MovePlayed"]
        for verb, why in (("use", "cathedral"), ("buy", "market"), ("sell", "market"), ("drop", "carry")):
            played = [(s, m) for s, m in moves if m.split()[0] == verb]
            noted = [(e["seat"], e["move"]) for e in led["entries"] if e["why"] == why
                     and e["move"].split()[0] == verb]
            assert played == noted, verb
        for s, m in moves:
            if m.startswith("use "):
                _, cid, n = m.split()
                name = cards().craftsmen[cid]["name"]
                assert any(f"the {name} worked {n} time" in line for line in summary["seats"][s]["lines"])
            if m.startswith(("buy ", "sell ")):
                v, r, n = m.split()
                said = f"The market: {'bought' if v == 'buy' else 'sold'} {n} {r}"
                assert any(line.startswith(said) for line in summary["seats"][s]["lines"]), (m, s)
        # taxes: every seat paid, was spared by the King's Court, or decided on its privilege
        for seat in range(players):
            taxes = [e for e in led["entries"] if e["seat"] == seat and e["why"] == "taxes"]
            assert len(taxes) == 1 and taxes[0]["n"] == revealed["tax"]
            line = [x for x in summary["seats"][seat]["lines"] if x.startswith("Taxes")]
            assert line and f"showed {revealed['tax']}" in line[0]
        for line in (x for s in summary["seats"] for x in s["lines"]):
            assert not CARD_ID.search(line), line
            assert line.endswith("."), line
        # the round's end is the move that revealed the next round's cards, or the game's end
        assert end.phase == "over" or NEXT_ROUND & {k for k, _ in since[-1]["chance"]}
    assert seen == 6


def _state_at(players: int, seed: str, pred):
    game = random_game(players, seed)
    state = None
    for ev in game.events:
        state = apply_event(state, ev)
        if pred(state):
            return state
    raise AssertionError("no such state")


def _email(state, seat: int):
    names = ["Ada", "Bob", "Cy"][: state.players]
    msg = turn_email(TurnContext(game_id="g1", seat=seat, seat_name=names[seat], to_addr="a@x.test",
                                 from_addr="t@x.test", reply_to="r@x.test", state=state, seat_names=names,
                                 since=[], open_url="https://x.test/play/g1", game=games.PILLARS))
    parsed = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    return parsed.get_body(("plain",)).get_content(), parsed.get_body(("html",)).get_content()


def test_the_turn_email_after_a_rounds_end_says_what_it_did_and_why():
    # each seat's first decision of round 2 (phase I, in turn order from the start player)
    for k in range(3):
        first = _state_at(3, "mail-1", lambda s, k=k: s.round == 2 and s.phase == "cards"
                          and s.version - s.round_end["version"] == k)
        seat = first.actor
        text, html = _email(first, seat)
        want = summary_text(round_summary(first.round_end), ["Ada", "Bob", "Cy"], seat)
        assert "The end of round 1, player by player:" in text
        for line in want:
            assert line in text
        assert "<p>The end of round 1, player by player:</p>" in html
        assert "<li>Taxes (the tax die showed" in html
        assert not CARD_ID.search(text.split("Your legal moves:")[0].split("The end of round 1")[1])
    # a later decision of the round: told once, not again
    later = _state_at(3, "mail-1", lambda s: s.round == 2 and s.phase == "builders")
    text, _ = _email(later, later.actor)
    assert "The end of round" not in text
    # round 1 has no round before it
    text, _ = _email(_state_at(3, "mail-1", lambda s: s.version == 2), 1)
    assert "The end of round" not in text


def test_the_results_email_lines_carry_the_last_round():
    over = random_game(2, "results-1").state
    lines = games.PILLARS.email_round_end(over, 0, ["Ada", "Bob"])
    assert lines[0] == "The end of round 6, player by player:"
    assert lines[1].startswith("You: ") and any(x.startswith("Bob: ") for x in lines)
    assert games.TILETUM.email_round_end(None, 0, ["Ada"]) == []
